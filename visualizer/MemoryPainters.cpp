// DDR buffers over group steps and LMEM planned vs simulated over cycles.
#include "visualizer/MemoryPainters.h"

#include "visualizer/GroupPainters.h"

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>

namespace tpuc::vis {

using namespace tpuc::chip;

std::vector<int64_t> envelope(const std::vector<CounterSample> &samples, int64_t t0, int64_t t1, int columns) {
  std::vector<int64_t> out(static_cast<size_t>(std::max(columns, 0)), 0);
  if (columns <= 0 || t1 <= t0)
    return out;
  const double width = static_cast<double>(t1 - t0) / columns;
  auto it = std::upper_bound(samples.begin(), samples.end(), t0,
                             [](int64_t c, const CounterSample &s) { return c < s.cycle; });
  int64_t current = it == samples.begin() ? 0 : std::prev(it)->bytes;
  for (int k = 0; k < columns; ++k) {
    int64_t end = k + 1 == columns ? t1 : t0 + static_cast<int64_t>(std::floor((k + 1) * width));
    int64_t best = current;
    for (; it != samples.end() && it->cycle < end; ++it) {
      current = it->bytes;
      best = std::max(best, current);
    }
    out[static_cast<size_t>(k)] = best;
  }
  return out;
}

// --- DdrChart ------------------------------------------------------------------------------------

void DdrChart::setRun(std::shared_ptr<const ChipRun> run) {
  m_run = std::move(run);
  m_weightGroup.clear();
  m_steps = 1;
  m_height = 1;
  const Plan *p = m_run ? m_run->plan() : nullptr;
  if (!p)
    return;
  std::vector<int> firstGroup(p->values.size(), -1);
  for (const Group &g : p->groups)
    for (int w : g.weights)
      if (w >= 0 && w < static_cast<int>(firstGroup.size()) && firstGroup[w] < 0)
        firstGroup[w] = g.id;
  for (const DdrWeight &w : p->gmem.weights)
    m_weightGroup.push_back(w.value >= 0 && w.value < static_cast<int>(firstGroup.size()) ? firstGroup[w.value] : -1);
  m_steps = std::max<int64_t>(1, static_cast<int64_t>(p->groups.size()));
  for (const DdrBuffer &b : p->gmem.buffers) {
    m_steps = std::max(m_steps, b.end + 1);
    m_height = std::max(m_height, b.address - p->gmem.activationBase + b.size);
  }
  m_height = std::max(m_height, m_run->ddr().peak);
}

DdrChart::Layout DdrChart::layout(const QFont &font, const QRectF &area) const {
  QFontMetricsF fm(font);
  double line = fm.height();
  double left = fm.horizontalAdvance(QStringLiteral("000.0 MiB")) + 12;
  double top = area.top() + 1.6 * line;
  QRectF coeff(area.left() + left, top + line * 1.1, area.width() - left - 10, line * 1.2);
  QRectF plot(area.left() + left, coeff.bottom() + 1.8 * line, area.width() - left - 10, 0);
  plot.setBottom(area.bottom() - 2.6 * line);
  if (plot.height() < 10)
    plot.setBottom(plot.top() + 10);
  return {coeff, plot};
}

QRectF DdrChart::bufferRect(const QRectF &plot, const DdrBuffer &b) const {
  const Plan &p = *m_run->plan();
  double x0 = plot.left() + static_cast<double>(b.start) / m_steps * plot.width();
  double x1 = plot.left() + static_cast<double>(b.end + 1) / m_steps * plot.width();
  double a0 = static_cast<double>(b.address - p.gmem.activationBase);
  double y0 = plot.bottom() - a0 / m_height * plot.height();
  double y1 = plot.bottom() - (a0 + b.size) / m_height * plot.height();
  return QRectF(QPointF(x0, y1), QPointF(x1, y0));
}

std::vector<QRectF> DdrChart::weightRects(const QRectF &strip) const {
  std::vector<QRectF> out;
  const Plan &p = *m_run->plan();
  const double total = static_cast<double>(std::max<int64_t>(1, p.gmem.coeffBytes));
  for (const DdrWeight &w : p.gmem.weights)
    out.push_back(QRectF(strip.left() + w.address / total * strip.width(), strip.top(),
                         std::max(0.5, w.size / total * strip.width()), strip.height()));
  return out;
}

int DdrChart::stepAt(const QFont &font, const QRectF &area, double x) const {
  if (!m_run || !m_run->plan())
    return -1;
  QRectF plot = layout(font, area).plot;
  if (x < plot.left() || x >= plot.right())
    return -1;
  return static_cast<int>((x - plot.left()) / plot.width() * m_steps);
}

int DdrChart::itemAt(const QFont &font, const QRectF &area, QPointF pt) const {
  if (!m_run || !m_run->plan())
    return -1;
  Layout lay = layout(font, area);
  const Plan &p = *m_run->plan();
  if (lay.coeff.contains(pt)) {
    std::vector<QRectF> rects = weightRects(lay.coeff);
    for (int i = static_cast<int>(rects.size()) - 1; i >= 0; --i)
      if (rects[i].adjusted(-0.5, 0, 0.5, 0).contains(pt))
        return -2 - i;
    return -1;
  }
  // Storage owners first drawn, views on top: test views first.
  for (int pass = 0; pass < 2; ++pass)
    for (int i = static_cast<int>(p.gmem.buffers.size()) - 1; i >= 0; --i) {
      const DdrBuffer &b = p.gmem.buffers[i];
      bool view = b.root != b.value && b.root >= 0;
      if (view != (pass == 0))
        continue;
      if (bufferRect(lay.plot, b).contains(pt))
        return i;
    }
  return -1;
}

int DdrChart::opOf(int item) const {
  const Plan *p = m_run ? m_run->plan() : nullptr;
  if (!p)
    return -1;
  if (item <= -2) {
    size_t w = static_cast<size_t>(-2 - item);
    return w < p->gmem.weights.size() ? p->opOfValue(p->gmem.weights[w].value, m_weightGroup[w]) : -1;
  }
  if (item < 0 || item >= static_cast<int>(p->gmem.buffers.size()))
    return -1;
  const DdrBuffer &b = p->gmem.buffers[item];
  int op = p->opIndex(p->values[b.value].name);
  if (op >= 0)
    return op;
  // A graph input: the first op of the first group reading it.
  for (const Group &g : p->groups)
    if (std::find(g.inputs.begin(), g.inputs.end(), b.value) != g.inputs.end())
      return g.ops.empty() ? -1 : g.ops.front();
  return -1;
}

QString DdrChart::describe(int item) const {
  const Plan *p = m_run ? m_run->plan() : nullptr;
  if (!p)
    return {};
  if (item <= -2) {
    size_t w = static_cast<size_t>(-2 - item);
    if (w >= p->gmem.weights.size())
      return {};
    const DdrWeight &dw = p->gmem.weights[w];
    return QStringLiteral("weight %1 · %2 at 0x%3 (coefficient region)")
        .arg(QString::fromStdString(p->values[dw.value].name), byteSize(dw.size), QString::number(dw.address, 16));
  }
  if (item < 0 || item >= static_cast<int>(p->gmem.buffers.size()))
    return {};
  const DdrBuffer &b = p->gmem.buffers[item];
  QString s = QStringLiteral("%1 · %2 at 0x%3 (offset %4 in the activation region) · live from group %5 to %6")
                  .arg(QString::fromStdString(p->values[b.value].name), byteSize(b.size), QString::number(b.address, 16),
                       groupedNumber(b.address - p->gmem.activationBase))
                  .arg(b.start)
                  .arg(b.end);
  if (b.io)
    s += QStringLiteral(" · graph input/output");
  if (b.root != b.value && b.root >= 0)
    s += QStringLiteral(" · shares the storage of %1 (offset %2)")
             .arg(QString::fromStdString(p->values[b.root].name), groupedNumber(b.offset));
  return s;
}

void DdrChart::paint(Canvas &c, const QRectF &area, const ChipStyle &s, int cursorStep, int selectedValue) const {
  const Plan *p = m_run ? m_run->plan() : nullptr;
  if (!p) {
    c.text(area, Qt::AlignCenter, QStringLiteral("No plan: deploy with a model file (--model) to see DDR"), s.dimText);
    return;
  }
  const DdrOccupancy &occ = m_run->ddr();
  Layout lay = layout(c.font(), area);
  const double line = c.lineHeight();
  const QRectF plot = lay.plot;
  c.text(QRectF(area.left(), area.top(), area.width(), line * 1.4), Qt::AlignLeft | Qt::AlignVCenter,
         QStringLiteral("DDR activations · peak %1 · lower bound %2 (most bytes live at once) · packing %3× · %4 buffers")
             .arg(byteSize(occ.peak), byteSize(occ.lowerBound))
             .arg(occ.efficiency(), 0, 'f', 3)
             .arg(p->gmem.buffers.size()),
         s.text, true);
  // The coefficient region, apart: every weight as a segment of the strip.
  c.text(QRectF(lay.coeff.left(), lay.coeff.top() - line * 1.1, lay.coeff.width(), line), Qt::AlignLeft | Qt::AlignVCenter,
         QStringLiteral("coefficient region: %1 in %2 weights (live the whole run)")
             .arg(byteSize(p->gmem.coeffBytes))
             .arg(p->gmem.weights.size()),
         s.dimText);
  c.rect(lay.coeff, Style{s.faded(s.grid, 0.5), s.axis});
  std::vector<QRectF> wr = weightRects(lay.coeff);
  for (size_t i = 0; i < wr.size(); ++i) {
    const DdrWeight &w = p->gmem.weights[i];
    Style st = s.buffer(BufferKind::Weight, w.value == selectedValue);
    if (wr[i].width() < 3)
      st.stroke = w.value == selectedValue ? s.selection : Qt::transparent;
    Mark m; // for exports only
    if (c.fullDetail()) {
      m.cls = QStringLiteral("weight");
      int op = opOf(-2 - static_cast<int>(i));
      m.op = op >= 0 ? QString::fromStdString(p->ops[op].name) : QString();
      m.title = describe(-2 - static_cast<int>(i));
      m.data = {{QStringLiteral("value"), QString::fromStdString(p->values[w.value].name)}};
    }
    c.rect(wr[i], st, &m);
  }
  // Axes.
  c.rect(plot, Style{s.faded(s.grid, 0.6), s.axis});
  auto y = [&](double bytes) { return plot.bottom() - bytes / m_height * plot.height(); };
  auto x = [&](double step) { return plot.left() + step / m_steps * plot.width(); };
  for (double t : byteTicks(static_cast<double>(m_height), std::max(2, static_cast<int>(plot.height() / (2.5 * line))))) {
    c.line(QPointF(plot.left() - 4, y(t)), QPointF(plot.left(), y(t)), s.axis);
    c.text(QRectF(area.left(), y(t) - line / 2, plot.left() - area.left() - 6, line), Qt::AlignRight | Qt::AlignVCenter,
           byteSize(static_cast<qint64>(t)), s.dimText);
  }
  for (double t : niceTicks(0, static_cast<double>(m_steps), std::max(2, static_cast<int>(plot.width() / 80)))) {
    if (t != std::floor(t))
      continue;
    c.line(QPointF(x(t), plot.bottom()), QPointF(x(t), plot.bottom() + 4), s.axis);
    c.text(QRectF(x(t) - 40, plot.bottom() + 4, 80, line), Qt::AlignCenter, QString::number(static_cast<qint64>(t)),
           s.dimText);
  }
  c.text(QRectF(plot.left(), plot.bottom() + 1.3 * line, plot.width(), line), Qt::AlignCenter,
         QStringLiteral("group step (layer groups and global ops in execution order)"), s.dimText);
  // Buffers: storage owners, then views into them (reshapes, in-place concats) outlined on top.
  c.clip(plot.adjusted(-1, -1, 1, 1));
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < p->gmem.buffers.size(); ++i) {
      const DdrBuffer &b = p->gmem.buffers[i];
      bool view = b.root != b.value && b.root >= 0;
      if (view != (pass == 1))
        continue;
      QRectF r = bufferRect(plot, b);
      Style st = s.buffer(b.io ? BufferKind::Input : BufferKind::Output, b.value == selectedValue);
      if (view) {
        st.fill = Qt::transparent;
        st.pattern = Pattern::Solid;
        st.strokeStyle = Qt::DashLine;
        st.stroke = b.value == selectedValue ? s.selection : s.text;
      }
      Mark m;
      if (c.fullDetail()) {
        m.cls = QStringLiteral("buffer");
        int op = opOf(static_cast<int>(i));
        m.op = op >= 0 ? QString::fromStdString(p->ops[op].name) : QString();
        m.title = describe(static_cast<int>(i));
        m.data = {{QStringLiteral("value"), QString::fromStdString(p->values[b.value].name)},
                  {QStringLiteral("start"), QString::number(b.start)},
                  {QStringLiteral("end"), QString::number(b.end)}};
        if (view)
          m.data.append({QStringLiteral("view"), QStringLiteral("1")});
      }
      c.rect(r, st, &m);
      if (!view && r.height() >= line && r.width() > c.textWidth(QStringLiteral("xxxxx")))
        c.text(r.adjusted(3, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter, shortName(p->values[b.value].name),
               s.textOn(st.fill));
    }
  // Occupancy: live bytes per step, the lower bound and the peak.
  QPolygonF curve;
  for (size_t k = 0; k < occ.liveBytes.size(); ++k) {
    curve << QPointF(x(static_cast<double>(k)), y(static_cast<double>(occ.liveBytes[k])))
          << QPointF(x(static_cast<double>(k + 1)), y(static_cast<double>(occ.liveBytes[k])));
  }
  c.polyline(curve, s.text, 2);
  c.clearClip();
  c.line(QPointF(plot.left(), y(occ.peak)), QPointF(plot.right(), y(occ.peak)), s.capacity, 1.5);
  if (occ.peak == occ.lowerBound) {
    c.text(QRectF(plot.left() + 4, y(occ.peak) - line - 1, plot.width() - 8, line), Qt::AlignRight | Qt::AlignBottom,
           QStringLiteral("peak = lower bound %1: no placement can use less").arg(byteSize(occ.peak)), s.capacity);
  } else {
    c.line(QPointF(plot.left(), y(occ.lowerBound)), QPointF(plot.right(), y(occ.lowerBound)), s.text, 1, Qt::DashLine);
    c.text(QRectF(plot.left() + 4, y(occ.lowerBound) - line - 1, plot.width() - 8, line), Qt::AlignLeft | Qt::AlignBottom,
           QStringLiteral("lower bound %1").arg(byteSize(occ.lowerBound)), s.text);
    c.text(QRectF(plot.left() + 4, y(occ.peak) - line - 1, plot.width() - 8, line), Qt::AlignRight | Qt::AlignBottom,
           QStringLiteral("peak %1").arg(byteSize(occ.peak)), s.capacity);
  }
  if (cursorStep >= 0) {
    double xc = x(cursorStep + 0.5);
    c.line(QPointF(xc, plot.top()), QPointF(xc, plot.bottom()), s.cursor, 2);
  }
}

// --- LmemTimeChart -------------------------------------------------------------------------------

QRectF LmemTimeChart::plotRect(const QFont &font, const QRectF &area) const {
  QFontMetricsF fm(font);
  double line = fm.height();
  double left = fm.horizontalAdvance(QStringLiteral("000.0 KiB")) + 12;
  QRectF plot = area.adjusted(left, 1.7 * line, -10, -2.6 * line);
  return plot.height() > 10 && plot.width() > 10 ? plot : area;
}

int64_t LmemTimeChart::cycleAt(const QFont &font, const QRectF &area, int64_t t0, int64_t t1, double x) const {
  QRectF plot = plotRect(font, area);
  if (x < plot.left() || x > plot.right() || t1 <= t0)
    return -1;
  return t0 + static_cast<int64_t>((x - plot.left()) / plot.width() * (t1 - t0));
}

int LmemTimeChart::divergenceAt(const QFont &font, const QRectF &area, int64_t t0, int64_t t1, double x) const {
  if (!m_run)
    return -1;
  QRectF plot = plotRect(font, area);
  const auto &div = m_run->divergences();
  const double perPx = static_cast<double>(t1 - t0) / plot.width();
  int64_t c = cycleAt(font, area, t0, t1, x);
  for (size_t i = 0; i < div.size(); ++i)
    if (c >= div[i].start - 3 * perPx && c < div[i].end + 3 * perPx)
      return static_cast<int>(i);
  return -1;
}

QString LmemTimeChart::describeDivergence(int index) const {
  if (!m_run || index < 0 || index >= static_cast<int>(m_run->divergences().size()))
    return {};
  const Divergence &d = m_run->divergences()[index];
  const Trace *t = m_run->trace();
  return QStringLiteral("Simulated LMEM above the plan: %1/lane against %2 planned, cycles %3–%4%5")
      .arg(byteSize(d.simulated), byteSize(d.planned), groupedNumber(d.start), groupedNumber(d.end))
      .arg(d.group >= 0 ? QStringLiteral(" (group %1, stage %2)").arg(d.group).arg(d.step) : QString()) +
      (t ? QStringLiteral(" · %1").arg(cyclesText(d.end - d.start, t->frequencyMhz)) : QString());
}

void LmemTimeChart::paint(Canvas &c, const QRectF &area, const ChipStyle &s, int64_t t0, int64_t t1, int64_t cursor) const {
  const Trace *t = m_run ? m_run->trace() : nullptr;
  const Plan *p = m_run ? m_run->plan() : nullptr;
  if (!t) {
    c.text(area, Qt::AlignCenter,
           QStringLiteral("No engine trace: run the model file (Run ▸ Run Model File, or tpuc run --profile)"), s.dimText);
    return;
  }
  if (t1 <= t0) {
    t0 = 0;
    t1 = std::max<int64_t>(1, t->totalCycles);
  }
  const double line = c.lineHeight();
  QRectF plot = plotRect(c.font(), area);
  const int64_t capacity = p ? p->chip.lmemBytesPerLane : std::max<int64_t>(1, t->lmemPeak);
  int64_t plannedPeak = 0;
  for (const CounterSample &x : m_run->plannedLmem())
    plannedPeak = std::max(plannedPeak, x.bytes);
  int64_t simPeak = 0;
  for (const CounterSample &x : t->lmem)
    simPeak = std::max(simPeak, x.bytes);
  const auto &div = m_run->divergences();
  QString title = QStringLiteral("LMEM over simulated time (per lane) · simulated peak %1").arg(byteSize(simPeak));
  if (p)
    title += QStringLiteral(" · planned peak %1 · capacity %2 · %3")
                 .arg(byteSize(plannedPeak), byteSize(capacity),
                      div.empty() ? QStringLiteral("simulation within the plan")
                                  : QStringLiteral("%1 divergence(s)").arg(div.size()));
  c.text(QRectF(area.left(), area.top(), area.width(), line * 1.4), Qt::AlignLeft | Qt::AlignVCenter, title,
         div.empty() ? s.text : s.warning, true);
  c.rect(plot, Style{s.faded(s.grid, 0.6), s.axis});
  // The axis ends a little above the highest curve when that is under 60 % of the lane (the capacity is
  // then named in the title), else at the capacity.
  const int64_t highest = std::max<int64_t>(1, std::max(simPeak, plannedPeak));
  const bool zoomed = highest < capacity * 6 / 10;
  const double step = std::exp2(std::ceil(std::log2(std::max(1.0, highest / 8.0))));
  const double top = zoomed ? std::ceil(highest * 1.1 / step) * step : static_cast<double>(std::max(capacity, highest));
  auto y = [&](double b) { return plot.bottom() - b / top * plot.height(); };
  auto x = [&](double cyc) { return plot.left() + (cyc - t0) / static_cast<double>(t1 - t0) * plot.width(); };
  for (double v : byteTicks(top, std::max(2, static_cast<int>(plot.height() / (2.5 * line))))) {
    c.line(QPointF(plot.left() - 4, y(v)), QPointF(plot.left(), y(v)), s.axis);
    c.text(QRectF(area.left(), y(v) - line / 2, plot.left() - area.left() - 6, line), Qt::AlignRight | Qt::AlignVCenter,
           byteSize(static_cast<qint64>(v)), s.dimText);
  }
  for (double v : niceTicks(static_cast<double>(t0), static_cast<double>(t1), std::max(2, static_cast<int>(plot.width() / 100)))) {
    c.line(QPointF(x(v), plot.bottom()), QPointF(x(v), plot.bottom() + 4), s.axis);
    c.text(QRectF(x(v) - 50, plot.bottom() + 4, 100, line), Qt::AlignCenter,
           QStringLiteral("%1 µs").arg(v / t->frequencyMhz, 0, 'f', v / t->frequencyMhz < 10 ? 2 : 1), s.dimText);
  }
  c.text(QRectF(plot.left(), plot.bottom() + 1.3 * line, plot.width(), line), Qt::AlignCenter,
         QStringLiteral("simulated time"), s.dimText);
  c.clip(plot);
  const int columns = std::max(1, static_cast<int>(plot.width()));
  auto curve = [&](const std::vector<CounterSample> &samples) {
    std::vector<int64_t> env = envelope(samples, t0, t1, columns);
    QPolygonF pts;
    for (int k = 0; k < columns; ++k) {
      double xa = plot.left() + k * plot.width() / columns, xb = plot.left() + (k + 1) * plot.width() / columns;
      pts << QPointF(xa, y(static_cast<double>(env[k]))) << QPointF(xb, y(static_cast<double>(env[k])));
    }
    return pts;
  };
  if (p) {
    QPolygonF planned = curve(m_run->plannedLmem());
    planned.prepend(QPointF(plot.left(), plot.bottom()));
    planned << QPointF(plot.right(), plot.bottom());
    QColor fill = s.bufferColor(BufferKind::Intermediate);
    fill.setAlphaF(0.35f);
    c.polygon(planned, fill);
  }
  // Divergences: where the simulator holds more than the plan placed. Exports draw each as an element;
  // the screen marks the pixel columns they touch (thousands of short ones would be thousands of rects).
  Style divStyle;
  divStyle.fill = s.warning;
  divStyle.fill.setAlphaF(0.18f);
  divStyle.pattern = Pattern::Hatch;
  divStyle.patternColor = s.warning;
  if (c.fullDetail()) {
    for (size_t i = 0; i < div.size(); ++i) {
      if (div[i].end <= t0 || div[i].start >= t1)
        continue;
      QRectF r(QPointF(std::max(plot.left(), x(div[i].start)), plot.top()),
               QPointF(std::min(plot.right(), std::max(x(div[i].end), x(div[i].start) + 2)), plot.bottom()));
      Mark m;
      m.cls = QStringLiteral("divergence");
      m.title = describeDivergence(static_cast<int>(i));
      m.data = {{QStringLiteral("start"), QString::number(div[i].start)}, {QStringLiteral("end"), QString::number(div[i].end)}};
      if (div[i].group >= 0 && p && div[i].group < static_cast<int>(p->groups.size()) && !p->groups[div[i].group].ops.empty())
        m.op = QString::fromStdString(p->ops[p->groups[div[i].group].ops.front()].name);
      c.rect(r, divStyle, &m);
    }
  } else {
    std::vector<uint8_t> flagged(static_cast<size_t>(columns), 0);
    auto first = std::lower_bound(div.begin(), div.end(), t0, [](const Divergence &d, int64_t v) { return d.end <= v; });
    for (auto it = first; it != div.end() && it->start < t1; ++it) {
      int a = std::clamp(static_cast<int>(x(static_cast<double>(it->start)) - plot.left()), 0, columns - 1);
      int b = std::clamp(static_cast<int>(std::ceil(x(static_cast<double>(it->end)) - plot.left())), a + 2, columns);
      std::fill(flagged.begin() + a, flagged.begin() + std::min(b, columns), 1);
    }
    const double colPx = plot.width() / columns;
    for (int q = 0; q < columns;) {
      if (!flagged[q]) {
        ++q;
        continue;
      }
      int e = q;
      while (e < columns && flagged[e])
        ++e;
      c.rect(QRectF(plot.left() + q * colPx, plot.top(), (e - q) * colPx, plot.height()), divStyle);
      q = e;
    }
  }
  c.polyline(curve(t->lmem), s.text, 1.5);
  c.clearClip();
  if (!zoomed)
    c.line(QPointF(plot.left(), y(static_cast<double>(capacity))), QPointF(plot.right(), y(static_cast<double>(capacity))),
           s.capacity, 2);
  // Legend.
  QRectF leg(plot.left() + 6, plot.top() + 4, plot.width() - 12, line);
  QColor fill = s.bufferColor(BufferKind::Intermediate);
  c.rect(QRectF(leg.left(), leg.top() + line * 0.25, line, line * 0.5), Style{fill, fill.darker(130)});
  c.text(QRectF(leg.left() + line * 1.3, leg.top(), 200, line), Qt::AlignLeft | Qt::AlignVCenter,
         QStringLiteral("planned (plan's rectangles)"), s.text);
  double lx = leg.left() + line * 1.3 + c.textWidth(QStringLiteral("planned (plan's rectangles)")) + line;
  c.line(QPointF(lx, leg.center().y()), QPointF(lx + line, leg.center().y()), s.text, 2);
  c.text(QRectF(lx + line * 1.3, leg.top(), 220, line), Qt::AlignLeft | Qt::AlignVCenter,
         QStringLiteral("simulated (trace counter)"), s.text);
  if (zoomed)
    c.text(QRectF(leg.left(), leg.top(), leg.width(), line), Qt::AlignRight | Qt::AlignVCenter,
           QStringLiteral("axis zoomed to the curves: capacity %1 is above").arg(byteSize(capacity)), s.capacity);
  if (cursor >= t0 && cursor < t1)
    c.line(QPointF(x(static_cast<double>(cursor)), plot.top()), QPointF(x(static_cast<double>(cursor)), plot.bottom()),
           s.cursor, 2);
}

} // namespace tpuc::vis
