// Layer-group drawings: the group strip, the LMEM chart and the slice shapes.
#include "visualizer/GroupPainters.h"

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>

namespace tpuc::vis {

using namespace tpuc::chip;

std::vector<double> niceTicks(double lo, double hi, int count) {
  std::vector<double> ticks;
  if (!(hi > lo) || count < 1)
    return ticks;
  double raw = (hi - lo) / count;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (raw <= m * mag) {
      step = m * mag;
      break;
    }
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step)
    ticks.push_back(t);
  return ticks;
}

std::vector<double> byteTicks(double hi, int count) {
  std::vector<double> ticks;
  if (!(hi > 0) || count < 1)
    return ticks;
  double step = std::exp2(std::ceil(std::log2(hi / count)));
  for (double t = 0; t <= hi * (1 + 1e-9); t += step)
    ticks.push_back(t);
  return ticks;
}

QString shortName(const std::string &name) {
  QString n = QString::fromStdString(name);
  // Keep the last two path parts of ONNX-style names: "conv1/Conv".
  int last = static_cast<int>(n.lastIndexOf(QLatin1Char('/')));
  if (last > 0) {
    int prev = static_cast<int>(n.lastIndexOf(QLatin1Char('/'), last - 1));
    return n.mid(prev + 1);
  }
  return n;
}

namespace {

QString valueName(const Plan &p, int v) {
  return v >= 0 && v < static_cast<int>(p.values.size()) ? QString::fromStdString(p.values[v].name) : QStringLiteral("?");
}

QString shapeText(const PlanValue &v) {
  QStringList dims;
  for (int64_t d : v.shape)
    dims << QString::number(d);
  QString s = dims.join(QChar(0x00d7));
  if (!v.dtype.empty())
    s += QLatin1Char(' ') + QString::fromStdString(v.dtype);
  return s;
}

/// A zigzag along y between x0 and x1: marks where a wrapped buffer is cut.
void zigzag(Canvas &c, double x0, double x1, double y, const QColor &color) {
  QPolygonF pts;
  const double step = 4;
  bool up = true;
  for (double x = x0; x < x1; x += step, up = !up)
    pts << QPointF(x, y + (up ? -2 : 2));
  pts << QPointF(x1, y);
  c.polyline(pts, color, 1.5);
}

} // namespace

// --- GroupStrip ----------------------------------------------------------------------------------

std::vector<double> GroupStrip::edges(const QRectF &area) const {
  std::vector<double> e;
  const Plan *p = m_run ? m_run->plan() : nullptr;
  if (!p || p->groups.empty())
    return e;
  const size_t n = p->groups.size();
  const double minW = std::min(2.0, area.width() / n);
  double total = 0;
  for (const Group &g : p->groups)
    total += static_cast<double>(std::max<int64_t>(g.cycles, 0));
  double spare = std::max(0.0, area.width() - minW * n);
  e.reserve(n + 1);
  double x = area.left();
  e.push_back(x);
  for (const Group &g : p->groups) {
    x += minW + (total > 0 ? spare * std::max<int64_t>(g.cycles, 0) / total : spare / n);
    e.push_back(x);
  }
  return e;
}

QRectF GroupStrip::groupRect(const QRectF &area, int group) const {
  std::vector<double> e = edges(area);
  if (group < 0 || group + 1 >= static_cast<int>(e.size()))
    return {};
  return QRectF(QPointF(e[group], area.top()), QPointF(e[group + 1], area.bottom()));
}

int GroupStrip::groupAt(const QRectF &area, QPointF p) const {
  if (!area.contains(p))
    return -1;
  std::vector<double> e = edges(area);
  auto it = std::upper_bound(e.begin(), e.end(), p.x());
  int g = static_cast<int>(it - e.begin()) - 1;
  return g >= 0 && g + 1 < static_cast<int>(e.size()) ? g : -1;
}

void GroupStrip::paint(Canvas &c, const QRectF &area, const ChipStyle &s, int selectedGroup) const {
  const Plan *p = m_run ? m_run->plan() : nullptr;
  if (!p)
    return;
  std::vector<double> e = edges(area);
  for (size_t i = 0; i + 1 < e.size(); ++i) {
    const Group &g = p->groups[i];
    QRectF r(QPointF(e[i], area.top()), QPointF(e[i + 1], area.bottom()));
    Style st;
    st.fill = g.global ? s.faded(s.axis, 0.5) : s.groupColor(g.memoryBound());
    st.stroke = static_cast<int>(i) == selectedGroup ? s.selection : s.background;
    st.strokeWidth = static_cast<int>(i) == selectedGroup ? 2.5 : (r.width() > 4 ? 1 : 0);
    if (r.width() <= 4 && static_cast<int>(i) != selectedGroup)
      st.stroke = Qt::transparent;
    Mark m; // for exports only: the screen never reads it
    if (c.fullDetail()) {
      m.cls = QStringLiteral("group");
      m.op = g.ops.empty() ? QString() : QString::fromStdString(p->ops[g.ops.front()].name);
      m.data = {{QStringLiteral("group"), QString::number(g.id)},
                {QStringLiteral("ops"), QString::number(g.ops.size())},
                {QStringLiteral("cycles"), QString::number(g.cycles)}};
      m.title = QStringLiteral("group %1 (%2): %3 op(s), %4, %5-bound")
                    .arg(g.id)
                    .arg(g.global ? QStringLiteral("global") : QStringLiteral("LMEM"))
                    .arg(g.ops.size())
                    .arg(cyclesText(g.cycles, p->chip.frequencyMhz))
                    .arg(g.memoryBound() ? QStringLiteral("memory") : QStringLiteral("compute"));
    }
    c.rect(r, st, &m);
    QString label = g.global && g.ops.size() == 1 ? shortName(p->ops[g.ops.front()].name) : QStringLiteral("G%1").arg(g.id);
    if (r.width() > c.textWidth(QStringLiteral("G00")) + 4)
      c.text(r.adjusted(2, 0, -2, 0), Qt::AlignCenter, label, s.textOn(st.fill));
  }
}

// --- LmemChart -----------------------------------------------------------------------------------

void LmemChart::setGroup(std::shared_ptr<const ChipRun> run, int group) {
  m_run = std::move(run);
  const Plan *p = m_run ? m_run->plan() : nullptr;
  m_group = p && group >= 0 && group < static_cast<int>(p->groups.size()) ? group : -1;
}

namespace {

struct ChartLayout {
  QRectF plot;
  double line;
};

/// Font-relative margins: address labels left, bank labels right, the title on top, stage labels below.
ChartLayout layoutOf(const QFont &font, const QRectF &area) {
  QFontMetricsF fm(font);
  double line = fm.height();
  double left = fm.horizontalAdvance(QStringLiteral("256.0 KiB")) + 12;
  double right = fm.horizontalAdvance(QStringLiteral("bank 15")) + 10;
  QRectF plot = area.adjusted(left, 1.7 * line, -right, -3.7 * line);
  if (plot.width() < 10 || plot.height() < 10)
    plot = area;
  return {plot, line};
}

} // namespace

double LmemChart::axisTop() const {
  const Plan *p = m_run ? m_run->plan() : nullptr;
  if (!p || m_group < 0)
    return 1;
  const Group &g = p->groups[m_group];
  const double cap = static_cast<double>(p->chip.lmemBytesPerLane);
  if (!m_fit || g.lmemPeak <= 0 || g.lmemPeak >= 0.6 * cap)
    return cap;
  for (const LmemRect &r : g.rects)
    if (r.addr + r.size > p->chip.lmemBytesPerLane)
      return cap;
  // A round number of KiB above the peak.
  double step = std::exp2(std::ceil(std::log2(std::max(1.0, g.lmemPeak / 8.0))));
  return std::min(cap, std::ceil(g.lmemPeak * 1.08 / step) * step);
}

std::vector<QRectF> LmemChart::pieces(const QRectF &plot, int rect) const {
  std::vector<QRectF> out;
  const Plan *p = m_run ? m_run->plan() : nullptr;
  if (!p || m_group < 0)
    return out;
  const Group &g = p->groups[m_group];
  if (rect < 0 || rect >= static_cast<int>(g.rects.size()))
    return out;
  const LmemRect &r = g.rects[rect];
  const double cap = static_cast<double>(p->chip.lmemBytesPerLane), top = axisTop();
  const double units = static_cast<double>(std::max<int64_t>(1, std::max(g.timeUnits(), (int64_t)g.steps.size() * g.unitsPerStage)));
  auto x = [&](double u) { return plot.left() + u / units * plot.width(); };
  auto y = [&](double a) { return plot.bottom() - a / top * plot.height(); };
  double a0 = static_cast<double>(r.addr), a1 = static_cast<double>(r.addr + r.size);
  if (a1 <= cap) {
    out.push_back(QRectF(QPointF(x(r.t0), y(a1)), QPointF(x(r.t1), y(a0))));
  } else {
    // Wraps around the lane: [addr, capacity) and [0, addr + size - capacity).
    out.push_back(QRectF(QPointF(x(r.t0), y(cap)), QPointF(x(r.t1), y(std::min(a0, cap)))));
    out.push_back(QRectF(QPointF(x(r.t0), y(std::min(a1 - cap, cap))), QPointF(x(r.t1), y(0))));
  }
  return out;
}

QRectF LmemChart::plotRect(const QFont &font, const QRectF &area) const { return layoutOf(font, area).plot; }

int64_t LmemChart::unitAt(const QFont &font, const QRectF &area, double x) const {
  const Plan *p = m_run ? m_run->plan() : nullptr;
  if (!p || m_group < 0)
    return -1;
  const Group &g = p->groups[m_group];
  QRectF plot = plotRect(font, area);
  if (x < plot.left() || x >= plot.right())
    return -1;
  const double units = static_cast<double>(std::max<int64_t>(1, std::max(g.timeUnits(), (int64_t)g.steps.size() * g.unitsPerStage)));
  return static_cast<int64_t>((x - plot.left()) / plot.width() * units);
}

int LmemChart::rectAt(const QFont &font, const QRectF &area, QPointF pt) const {
  const Plan *p = m_run ? m_run->plan() : nullptr;
  if (!p || m_group < 0)
    return -1;
  QRectF plot = plotRect(font, area);
  const Group &g = p->groups[m_group];
  for (int i = static_cast<int>(g.rects.size()) - 1; i >= 0; --i)
    for (const QRectF &piece : pieces(plot, i))
      if (piece.contains(pt))
        return i;
  return -1;
}

QString LmemChart::describe(int rect) const {
  const Plan *p = m_run ? m_run->plan() : nullptr;
  if (!p || m_group < 0 || rect < 0 || rect >= static_cast<int>(p->groups[m_group].rects.size()))
    return {};
  const Group &g = p->groups[m_group];
  const LmemRect &r = g.rects[rect];
  const int64_t L = std::max<int64_t>(1, g.unitsPerStage);
  int64_t bank = p->chip.bankBytes() > 0 ? (r.addr % p->chip.lmemBytesPerLane) / p->chip.bankBytes() : 0;
  QString s = QStringLiteral("%1 · %2 · %3 · %4/lane at 0x%5 (bank %6) · units %7–%8 (stage %9–%10)")
                  .arg(valueName(*p, r.value), QString::fromLatin1(bufferKindName(r.kind)),
                       r.slice >= 0 ? QStringLiteral("slice %1").arg(r.slice) : QStringLiteral("whole group"),
                       byteSize(r.size), QString::number(r.addr, 16))
                  .arg(bank)
                  .arg(r.t0)
                  .arg(r.t1 - 1)
                  .arg(r.t0 / L)
                  .arg((r.t1 - 1) / L);
  if (r.addr + r.size > p->chip.lmemBytesPerLane)
    s += QStringLiteral(" · wraps around: %1 at the top, %2 from address 0")
             .arg(byteSize(p->chip.lmemBytesPerLane - r.addr), byteSize(r.addr + r.size - p->chip.lmemBytesPerLane));
  return s;
}

void LmemChart::paint(Canvas &c, const QRectF &area, const ChipStyle &s, int selectedValue, int hovered) const {
  const Plan *p = m_run ? m_run->plan() : nullptr;
  if (!p || m_group < 0) {
    c.text(area, Qt::AlignCenter, QStringLiteral("Select a layer group"), s.dimText);
    return;
  }
  const Group &g = p->groups[m_group];
  ChartLayout lay = layoutOf(c.font(), area);
  const QRectF plot = lay.plot;
  const double line = lay.line;
  const double cap = static_cast<double>(p->chip.lmemBytesPerLane), top = axisTop();
  // Title.
  QString title = g.global ? QStringLiteral("Group %1 is a global op: it runs through DDR and holds no LMEM").arg(g.id)
                           : QStringLiteral("Group %1 · %2 op(s) · slices n%3 c%4 h%5 w%6 · LMEM peak %7 of %8 · "
                                            "lower bound %9")
                                 .arg(g.id)
                                 .arg(g.ops.size())
                                 .arg(g.cuts[0])
                                 .arg(g.cuts[1])
                                 .arg(g.cuts[2])
                                 .arg(g.cuts[3])
                                 .arg(byteSize(g.lmemPeak), byteSize(p->chip.lmemBytesPerLane), byteSize(g.lmemLowerBound));
  if (g.bankConflicts > 0)
    title += QStringLiteral(" · %1 bank conflict(s)").arg(g.bankConflicts);
  if (!g.global && top < cap)
    title += QStringLiteral(" · axis zoomed to %1").arg(byteSize(static_cast<int64_t>(top)));
  c.text(QRectF(area.left(), area.top(), area.width(), line * 1.4), Qt::AlignLeft | Qt::AlignVCenter, title, s.text, true);
  if (g.global) {
    c.text(area.adjusted(0, line * 1.5, 0, 0), Qt::AlignCenter,
           QStringLiteral("Its operands stay in DDR: see the memory view, and \"Why Cut Here\" for why it is not in a "
                          "group"),
           s.dimText);
    return;
  }
  c.rect(plot, Style{s.faded(s.grid, 0.6), s.axis});
  const int64_t L = std::max<int64_t>(1, g.unitsPerStage);
  const double units = static_cast<double>(std::max<int64_t>(1, std::max(g.timeUnits(), (int64_t)g.steps.size() * L)));
  auto x = [&](double u) { return plot.left() + u / units * plot.width(); };
  auto y = [&](double a) { return plot.bottom() - a / top * plot.height(); };
  // Address axis.
  for (double t : byteTicks(top, std::max(2, static_cast<int>(plot.height() / (2.5 * line))))) {
    c.line(QPointF(plot.left() - 4, y(t)), QPointF(plot.left(), y(t)), s.axis);
    c.text(QRectF(area.left(), y(t) - line / 2, plot.left() - area.left() - 6, line), Qt::AlignRight | Qt::AlignVCenter,
           byteSize(static_cast<qint64>(t)), s.dimText);
  }
  // Stages: bands with their number under the axis.
  const int64_t stages = (static_cast<int64_t>(units) + L - 1) / L;
  for (int64_t k = 0; k <= stages; ++k) {
    double xs = x(static_cast<double>(std::min<int64_t>(k * L, static_cast<int64_t>(units))));
    c.line(QPointF(xs, plot.top()), QPointF(xs, plot.bottom() + 4), s.axis, 1, k == 0 || k == stages ? Qt::SolidLine : Qt::DashLine);
    if (k < stages) {
      double xe = x(static_cast<double>(std::min<int64_t>((k + 1) * L, static_cast<int64_t>(units))));
      QString label = xe - xs > c.textWidth(QStringLiteral("stage 00")) ? QStringLiteral("stage %1").arg(k) : QString::number(k);
      if (xe - xs > c.textWidth(label))
        c.text(QRectF(xs, plot.bottom() + 4, xe - xs, line), Qt::AlignCenter, label, s.dimText);
    }
  }
  // Unit ticks when they are far enough apart.
  if (plot.width() / units >= 5)
    for (int64_t u = 0; u < static_cast<int64_t>(units); ++u)
      c.line(QPointF(x(u), plot.bottom()), QPointF(x(u), plot.bottom() + 2), s.axis);
  c.text(QRectF(plot.left(), plot.bottom() + 1.2 * line + 4, plot.width(), line), Qt::AlignCenter,
         QStringLiteral("time step (%1 unit(s) per stage: one per op)").arg(L), s.dimText);
  // Legend: the four kinds, right-aligned on a line of its own.
  {
    double lx = plot.right();
    const double sw = line * 1.2, ly = plot.bottom() + 2.4 * line + 4;
    for (BufferKind k : {BufferKind::Output, BufferKind::Intermediate, BufferKind::Weight, BufferKind::Input}) {
      QString name = QString::fromLatin1(bufferKindName(k));
      double w = c.textWidth(name);
      lx -= w + sw + 12;
      c.rect(QRectF(lx, ly + line * 0.1, sw, line * 0.8), s.buffer(k));
      c.text(QRectF(lx + sw + 4, ly, w + 4, line), Qt::AlignLeft | Qt::AlignVCenter, name, s.dimText);
    }
  }
  // Banks.
  const int64_t bankBytes = p->chip.bankBytes();
  if (p->chip.lmemBanks > 1 && bankBytes > 0) {
    double spacing = bankBytes / top * plot.height();
    for (int64_t b = 0; b < p->chip.lmemBanks && b * bankBytes < top; ++b) {
      double yb = y(static_cast<double>(b * bankBytes));
      if (b > 0)
        c.line(QPointF(plot.left(), yb), QPointF(plot.right(), yb), s.bank, 1, Qt::DotLine);
      if (spacing >= line * 0.9 || b % std::max<int64_t>(1, static_cast<int64_t>(std::ceil(line / spacing))) == 0)
        c.text(QRectF(plot.right() + 4, yb - std::max(spacing, line) / 2 - line / 2, area.right() - plot.right() - 4, line),
               Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("bank %1").arg(b), s.dimText);
    }
  }
  // Buffers.
  c.clip(plot.adjusted(-1, -1, 1, 1));
  for (int i = 0; i < static_cast<int>(g.rects.size()); ++i) {
    const LmemRect &r = g.rects[i];
    std::vector<QRectF> parts = pieces(plot, i);
    Style st = s.buffer(r.kind, r.value == selectedValue, i == hovered);
    Mark m;
    if (c.fullDetail()) {
      m.cls = QStringLiteral("buffer");
      int op = p->opOfValue(r.value, m_group);
      m.op = op >= 0 ? QString::fromStdString(p->ops[op].name) : QString();
      m.title = describe(i);
    }
    for (size_t k = 0; k < parts.size(); ++k) {
      if (c.fullDetail()) {
        m.data = {{QStringLiteral("value"), valueName(*p, r.value)},
                  {QStringLiteral("kind"), QString::fromLatin1(bufferKindName(r.kind))},
                  {QStringLiteral("slice"), QString::number(r.slice)},
                  {QStringLiteral("group"), QString::number(g.id)}};
        if (parts.size() > 1)
          m.data.append({QStringLiteral("wrap"), QString::number(k + 1)});
      }
      c.rect(parts[k], st, &m);
    }
    if (parts.size() > 1) {
      zigzag(c, parts[0].left(), parts[0].right(), parts[0].top(), s.warning);
      zigzag(c, parts[1].left(), parts[1].right(), parts[1].bottom(), s.warning);
    }
    const QRectF &main = parts.front();
    QString label = shortName(p->values[r.value].name) + (r.slice >= 0 ? QStringLiteral(" · s%1").arg(r.slice) : QString());
    if (main.height() >= line * 0.95 && main.width() > c.textWidth(QStringLiteral("xxxx")))
      c.text(main.adjusted(3, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter, label, s.textOn(st.fill));
  }
  c.clearClip();
  // Capacity (inside the plot, under its line) and peak.
  if (top >= cap) {
    c.line(QPointF(plot.left(), y(cap)), QPointF(plot.right(), y(cap)), s.capacity, 2);
    c.text(QRectF(plot.left() + 4, y(cap) + 2, plot.width() - 8, line), Qt::AlignRight | Qt::AlignTop,
           QStringLiteral("capacity %1/lane").arg(byteSize(p->chip.lmemBytesPerLane)), s.capacity);
  }
  if (g.lmemPeak > 0 && g.lmemPeak < cap) {
    c.line(QPointF(plot.left(), y(g.lmemPeak)), QPointF(plot.right(), y(g.lmemPeak)), s.text, 1, Qt::DashLine);
    // Left-aligned, so it never meets the capacity label on the right when the peak is close to it.
    c.text(QRectF(plot.left() + 4, y(g.lmemPeak) - line - 1, plot.width() - 8, line), Qt::AlignLeft | Qt::AlignBottom,
           QStringLiteral("peak %1").arg(byteSize(g.lmemPeak)), s.text);
  }
}

// --- SliceShape ----------------------------------------------------------------------------------

void SliceShape::setValue(std::shared_ptr<const ChipRun> run, int group, int value) {
  m_run = std::move(run);
  m_group = group;
  m_value = value;
}

void SliceShape::paint(Canvas &c, const QRectF &area, const ChipStyle &s, int selectedSlice) const {
  const Plan *p = m_run ? m_run->plan() : nullptr;
  const double line = c.lineHeight();
  if (!p || m_group < 0 || m_group >= static_cast<int>(p->groups.size()) || m_value < 0 ||
      m_value >= static_cast<int>(p->values.size())) {
    c.text(area, Qt::AlignCenter, QStringLiteral("Select a buffer to see its slices"), s.dimText);
    return;
  }
  const Group &g = p->groups[m_group];
  const PlanValue &v = p->values[m_value];
  // Boxes per slice (what the slice reads or computes of the value) and the value's extent.
  std::vector<std::pair<int, Box>> boxes;
  int64_t H = v.dim(2), W = v.dim(3);
  for (size_t i = 0; i < g.slices.size(); ++i)
    if (const Box *b = g.slices[i].valueBox(m_value)) {
      boxes.emplace_back(static_cast<int>(i), *b);
      H = std::max(H, (*b)[2].end);
      W = std::max(W, (*b)[3].end);
    }
  QString title = QStringLiteral("Slices of %1").arg(QString::fromStdString(v.name));
  if (!v.shape.empty())
    title += QStringLiteral(" (%1)").arg(shapeText(v));
  if (!g.global)
    title += QStringLiteral(": n, c, h, w cut into %1, %2, %3, %4").arg(g.cuts[0]).arg(g.cuts[1]).arg(g.cuts[2]).arg(g.cuts[3]);
  c.text(QRectF(area.left(), area.top(), area.width(), line * 1.4), Qt::AlignLeft | Qt::AlignVCenter, title, s.text, true);
  if (boxes.empty() || H <= 0 || W <= 0) {
    c.text(area.adjusted(0, line * 1.5, 0, 0), Qt::AlignCenter, QStringLiteral("This group has no slice boxes for this value"),
           s.dimText);
    return;
  }
  // The legend column on the right, the plane on the left keeping the aspect of W x H.
  const double legendW = std::min(area.width() * 0.45, c.textWidth(QStringLiteral("slice 00: rows 000–000 (+00 halo) cols 000–000")) + 8);
  QRectF room = area.adjusted(c.textWidth(QStringLiteral("H 00000")) + 8, line * 1.6, -legendW - 8, -line * 1.3);
  if (room.width() < 20 || room.height() < 20)
    room = area.adjusted(0, line * 1.6, 0, 0);
  double scale = std::min(room.width() / W, room.height() / H);
  QRectF plane(room.left(), room.top(), W * scale, H * scale);
  auto map = [&](const Box &b) {
    return QRectF(plane.left() + b[3].begin * scale, plane.top() + b[2].begin * scale, b[3].size() * scale,
                  b[2].size() * scale);
  };
  c.rect(plane, Style{s.faded(s.grid, 0.5), s.axis});
  c.text(QRectF(area.left(), plane.top() - line / 2, plane.left() - area.left() - 4, line), Qt::AlignRight | Qt::AlignVCenter,
         QStringLiteral("0"), s.dimText);
  c.text(QRectF(area.left(), plane.bottom() - line / 2, plane.left() - area.left() - 4, line),
         Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("H %1").arg(H), s.dimText);
  c.text(QRectF(plane.left(), plane.bottom() + 2, plane.width(), line), Qt::AlignRight | Qt::AlignTop,
         QStringLiteral("W %1").arg(W), s.dimText);
  for (size_t k = 0; k < boxes.size(); ++k) {
    const auto &[slice, b] = boxes[k];
    QColor col = s.opColor(slice);
    Style st;
    st.fill = col;
    st.fill.setAlphaF(0.35f);
    st.stroke = slice == selectedSlice ? s.selection : col.darker(140);
    st.strokeWidth = slice == selectedSlice ? 2.5 : 1.2;
    Mark m;
    m.cls = QStringLiteral("slice");
    m.op = QString::fromStdString(v.name);
    m.data = {{QStringLiteral("slice"), QString::number(slice)}};
    c.rect(map(b), st, &m);
  }
  // Halos: rows (or columns) read by two neighbouring slices.
  for (size_t k = 0; k + 1 < boxes.size(); ++k) {
    const Box &a = boxes[k].second, &b = boxes[k + 1].second;
    Box overlap = a;
    bool any = true;
    for (int d = 0; d < 4; ++d) {
      overlap[d] = {std::max(a[d].begin, b[d].begin), std::min(a[d].end, b[d].end)};
      any &= overlap[d].end > overlap[d].begin;
    }
    if (!any)
      continue;
    Style st;
    st.fill = Qt::transparent;
    st.pattern = Pattern::Hatch;
    st.patternColor = s.warning;
    st.stroke = s.warning;
    Mark m;
    m.cls = QStringLiteral("halo");
    m.op = QString::fromStdString(v.name);
    m.data = {{QStringLiteral("slices"), QStringLiteral("%1,%2").arg(boxes[k].first).arg(boxes[k + 1].first)}};
    c.rect(map(overlap), st, &m);
  }
  // Legend: one line per slice.
  double ly = room.top();
  const double lx = area.right() - legendW;
  for (size_t k = 0; k < boxes.size() && ly + line <= area.bottom(); ++k, ly += line * 1.1) {
    const auto &[slice, b] = boxes[k];
    int64_t halo = 0;
    if (k > 0)
      halo += std::max<int64_t>(0, boxes[k - 1].second[2].end - b[2].begin);
    if (k + 1 < boxes.size())
      halo += std::max<int64_t>(0, b[2].end - boxes[k + 1].second[2].begin);
    QString text = QStringLiteral("slice %1: rows %2–%3").arg(slice).arg(b[2].begin).arg(b[2].end - 1);
    if (halo > 0)
      text += QStringLiteral(" (+%1 halo)").arg(halo);
    if (b[3].size() != W)
      text += QStringLiteral(" cols %1–%2").arg(b[3].begin).arg(b[3].end - 1);
    if (g.cuts[0] > 1)
      text += QStringLiteral(" n %1–%2").arg(b[0].begin).arg(b[0].end - 1);
    if (g.cuts[1] > 1)
      text += QStringLiteral(" c %1–%2").arg(b[1].begin).arg(b[1].end - 1);
    QColor col = s.opColor(slice);
    c.rect(QRectF(lx, ly + line * 0.2, line * 0.6, line * 0.6), Style{col, col.darker(140)});
    c.text(QRectF(lx + line, ly, legendW - line, line), Qt::AlignLeft | Qt::AlignVCenter, text,
           slice == selectedSlice ? s.text : s.dimText, slice == selectedSlice);
  }
}

} // namespace tpuc::vis
