// Page layouts of the chip figures and their SVG/PNG output.
#include "visualizer/ChipFigures.h"

#include "visualizer/GroupPainters.h"
#include "visualizer/MemoryPainters.h"
#include "visualizer/TimelinePainter.h"

#include <QImage>
#include <QPainter>

namespace tpuc::vis {

using namespace tpuc::chip;

QPalette figurePalette(bool dark) {
  QPalette p;
  if (dark) {
    p.setColor(QPalette::Base, QColor(30, 31, 34));
    p.setColor(QPalette::Window, QColor(30, 31, 34));
    p.setColor(QPalette::Text, QColor(225, 226, 228));
    p.setColor(QPalette::WindowText, QColor(225, 226, 228));
    p.setColor(QPalette::Highlight, QColor(80, 160, 255));
  } else {
    p.setColor(QPalette::Base, Qt::white);
    p.setColor(QPalette::Window, Qt::white);
    p.setColor(QPalette::Text, QColor(25, 25, 28));
    p.setColor(QPalette::WindowText, QColor(25, 25, 28));
    p.setColor(QPalette::Highlight, QColor(20, 110, 230));
  }
  return p;
}

int defaultFigureGroup(const ChipRun &run) {
  const Plan *p = run.plan();
  if (!p)
    return -1;
  int best = -1;
  for (const Group &g : p->groups)
    if (!g.global && (best < 0 || g.lmemPeak > p->groups[best].lmemPeak))
      best = g.id;
  return best >= 0 ? best : (p->groups.empty() ? -1 : 0);
}

QString missingFor(const ChipRun &run, ChipFigure figure) {
  if (figure == ChipFigure::Timeline)
    return run.trace() ? QString() : QStringLiteral("the timeline needs an engine trace (--trace)");
  return run.plan() ? QString() : QStringLiteral("this view needs a backend plan (--plan)");
}

namespace {

/// A plain table of text cells; the first row is the header.
void textTable(Canvas &c, const QRectF &area, const ChipStyle &s, const QStringList &header,
               const std::vector<QStringList> &rows, const std::vector<bool> &highlight) {
  const double line = c.lineHeight() * 1.15;
  const int cols = static_cast<int>(header.size());
  std::vector<double> widths(cols, 0);
  for (int k = 0; k < cols; ++k) {
    widths[k] = c.textWidth(header[k], true);
    for (const QStringList &r : rows)
      if (k < r.size())
        widths[k] = std::max(widths[k], c.textWidth(r[k]));
  }
  double total = 0;
  for (double w : widths)
    total += w + 14;
  double scale = total > area.width() ? area.width() / total : 1.0;
  // A highlighted row shows its last cell in the warning colour.
  auto draw = [&](double y, const QStringList &cells, bool bold, bool highlighted) {
    double x = area.left();
    for (int k = 0; k < cols; ++k) {
      double w = (widths[k] + 14) * scale;
      if (k < cells.size())
        c.text(QRectF(x, y, w - 6, line), (k == 0 ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter, cells[k],
               highlighted && k + 1 == cols ? s.warning : s.text, bold);
      x += w;
    }
  };
  draw(area.top(), header, true, false);
  c.line(QPointF(area.left(), area.top() + line), QPointF(area.left() + std::min(total * scale, area.width()), area.top() + line),
         s.axis);
  double y = area.top() + line + 2;
  for (size_t i = 0; i < rows.size() && y + line <= area.bottom(); ++i, y += line)
    draw(y, rows[i], false, i < highlight.size() && highlight[i]);
}

/// The value whose slices overlap most (the input a conv chain reads with halos), else the first output.
int haloValue(const Group &g) {
  int best = g.outputs.empty() ? (g.inputs.empty() ? -1 : g.inputs.front()) : g.outputs.front();
  int64_t bestOverlap = 0;
  std::vector<int> candidates = g.inputs;
  candidates.insert(candidates.end(), g.intermediates.begin(), g.intermediates.end());
  for (int v : candidates) {
    int64_t overlap = 0;
    for (size_t i = 0; i + 1 < g.slices.size(); ++i) {
      const Box *a = g.slices[i].valueBox(v), *b = g.slices[i + 1].valueBox(v);
      if (!a || !b)
        continue;
      int64_t volume = 1; // elements both slices read
      for (int d = 0; d < 4; ++d)
        volume *= std::max<int64_t>(0, std::min((*a)[d].end, (*b)[d].end) - std::max((*a)[d].begin, (*b)[d].begin));
      overlap += volume;
    }
    if (overlap > bestOverlap) {
      bestOverlap = overlap;
      best = v;
    }
  }
  return best;
}

void paintGroups(Canvas &c, const QRectF &area, const ChipStyle &s, const std::shared_ptr<const ChipRun> &run,
                 const FigureOptions &o) {
  const Plan &p = *run->plan();
  const double line = c.lineHeight();
  int lmemGroups = 0;
  for (const Group &g : p.groups)
    lmemGroups += !g.global;
  int group = o.group >= 0 && o.group < static_cast<int>(p.groups.size()) ? o.group : defaultFigureGroup(*run);
  c.text(QRectF(area.left(), area.top(), area.width(), line * 1.5), Qt::AlignLeft | Qt::AlignVCenter,
         QStringLiteral("Layer groups · %1 · opt %2 · %3 groups (%4 in LMEM, %5 global ops) · %6 planned")
             .arg(QString::fromStdString(p.chip.name))
             .arg(p.opt)
             .arg(p.groups.size())
             .arg(lmemGroups)
             .arg(p.groups.size() - lmemGroups)
             .arg(cyclesText(p.totalCycles, p.chip.frequencyMhz)),
         s.text, true);
  double y = area.top() + line * 1.7;
  GroupStrip strip;
  strip.setRun(run);
  double stripH = GroupStrip::preferredHeight(c);
  strip.paint(c, QRectF(area.left(), y, area.width(), stripH), s, group);
  y += stripH + line * 0.6;
  c.text(QRectF(area.left(), y, area.width(), line), Qt::AlignLeft | Qt::AlignVCenter,
         QStringLiteral("Width = planned cycles; green: compute-bound, orange: memory-bound (GDMA busier than TIU), "
                        "grey: global ops through DDR"),
         s.dimText);
  y += line * 1.4;
  const double rest = area.bottom() - y;
  const bool global = group >= 0 && p.groups[group].global;
  QRectF chart(area.left(), y, area.width(), rest * (global ? 0.12 : 0.5));
  LmemChart lmem;
  lmem.setGroup(run, group);
  int selectedValue = o.selectedOp.isEmpty() ? -1 : p.valueIndex(o.selectedOp.toStdString());
  lmem.paint(c, chart, s, selectedValue, -1);
  y = chart.bottom() + line;
  const double lower = area.bottom() - y;
  QRectF steps(area.left(), y, area.width() * 0.48, lower * (global ? 0.12 : 0.55));
  QRectF slices(area.left() + area.width() * 0.52, y, area.width() * 0.48, steps.height());
  if (group >= 0) {
    const Group &g = p.groups[group];
    QStringList header = {QStringLiteral("stage"), QStringLiteral("load"), QStringLiteral("compute"), QStringLiteral("store"),
                          QStringLiteral("weights"), QStringLiteral("TIU"), QStringLiteral("GDMA"), QStringLiteral("bound")};
    std::vector<QStringList> rows;
    std::vector<bool> hl;
    auto slice = [](int s) { return s >= 0 ? QStringLiteral("slice %1").arg(s) : QStringLiteral("–"); };
    for (size_t t = 0; t < g.steps.size(); ++t) {
      const TimeStep &st = g.steps[t];
      rows.push_back({QString::number(t), slice(st.loadSlice), slice(st.computeSlice), slice(st.storeSlice),
                      st.loadsWeights ? QStringLiteral("yes") : QString(), groupedNumber(st.tiuCycles),
                      groupedNumber(st.gdmaCycles), st.gdmaBound() ? QStringLiteral("GDMA") : QStringLiteral("TIU")});
      hl.push_back(st.gdmaBound());
    }
    c.text(QRectF(steps.left(), steps.top() - line * 0.2, steps.width(), line), Qt::AlignLeft | Qt::AlignVCenter,
           QStringLiteral("Time steps of group %1 (load ‖ compute ‖ store)").arg(group), s.text, true);
    if (g.global)
      c.text(steps.adjusted(0, line * 1.2, 0, 0), Qt::AlignLeft | Qt::AlignTop,
             QStringLiteral("A global op has no pipeline: %1").arg(cyclesText(g.cycles, p.chip.frequencyMhz)), s.dimText);
    else
      textTable(c, steps.adjusted(0, line * 1.2, 0, 0), s, header, rows, hl);
    SliceShape shape;
    int value = g.global ? -1 : haloValue(g);
    if (selectedValue >= 0)
      for (const SliceBoxes &sb : g.slices)
        if (sb.valueBox(selectedValue))
          value = selectedValue;
    shape.setValue(run, group, value);
    if (!g.global)
      shape.paint(c, slices, s, -1);
  }
  // Why the planner cut where it did.
  QRectF why(area.left(), steps.bottom() + line * 0.6, area.width(), area.bottom() - steps.bottom() - line * 0.6);
  c.text(QRectF(why.left(), why.top(), why.width(), line), Qt::AlignLeft | Qt::AlignVCenter,
         p.cuts.empty() ? QStringLiteral("Why the planner cut here: not recorded in this plan (version %1)").arg(p.version)
                        : QStringLiteral("Why the planner cut here (%1 reason(s))").arg(p.cuts.size()),
         s.text, true);
  double ly = why.top() + line * 1.2;
  // The detailed group's reasons first, then the rest in order.
  std::vector<const Cut *> cuts;
  for (const Cut &cut : p.cuts)
    if (cut.group == group)
      cuts.push_back(&cut);
  for (const Cut &cut : p.cuts)
    if (cut.group != group)
      cuts.push_back(&cut);
  for (const Cut *cut : cuts) {
    if (ly + line > why.bottom())
      break;
    Mark m;
    m.cls = QStringLiteral("cut");
    m.op = cut->op >= 0 ? QString::fromStdString(p.ops[cut->op].name) : QString();
    m.data = {{QStringLiteral("group"), QString::number(cut->group)},
              {QStringLiteral("reason"), QString::fromStdString(cut->reason)}};
    c.beginGroup(m);
    c.text(QRectF(why.left() + 8, ly, why.width() - 8, line), Qt::AlignLeft | Qt::AlignVCenter,
           QStringLiteral("group %1: %2").arg(cut->group).arg(QString::fromStdString(cut->message)),
           cut->group == group ? s.text : s.dimText);
    c.endGroup();
    ly += line * 1.1;
  }
}

void paintMemory(Canvas &c, const QRectF &area, const ChipStyle &s, const std::shared_ptr<const ChipRun> &run,
                 const FigureOptions &o) {
  const Plan &p = *run->plan();
  int selectedValue = o.selectedOp.isEmpty() ? -1 : p.valueIndex(o.selectedOp.toStdString());
  DdrChart ddr;
  ddr.setRun(run);
  if (!run->trace()) {
    ddr.paint(c, area, s, -1, selectedValue);
    return;
  }
  const double line = c.lineHeight();
  QRectF top(area.left(), area.top(), area.width(), area.height() * 0.56);
  QRectF bottom(area.left(), top.bottom() + line, area.width(), area.bottom() - top.bottom() - line);
  ddr.paint(c, top, s, -1, selectedValue);
  LmemTimeChart lmem;
  lmem.setRun(run);
  lmem.paint(c, bottom, s, o.t0, o.t1, -1);
}

void paintTimeline(Canvas &c, const QRectF &area, const ChipStyle &s, const std::shared_ptr<const ChipRun> &run,
                   const FigureOptions &o) {
  const Trace &t = *run->trace();
  const double line = c.lineHeight();
  int64_t t0 = o.t0, t1 = o.t1 > o.t0 ? o.t1 : std::max<int64_t>(1, t.totalCycles);
  c.text(QRectF(area.left(), area.top(), area.width(), line * 1.5), Qt::AlignLeft | Qt::AlignVCenter,
         QStringLiteral("Engine timeline · %1 · %2 · %3 TIU + %4 GDMA commands · shown %5–%6")
             .arg(QString::fromStdString(t.chip) +
                      (t.cores > 1 ? QStringLiteral(" core %1 of %2").arg(t.core).arg(t.cores) : QString()),
                  cyclesText(t.totalCycles, t.frequencyMhz),
                  groupedNumber(static_cast<qint64>(t.of(Engine::TIU).size())),
                  groupedNumber(static_cast<qint64>(t.of(Engine::GDMA).size())), groupedNumber(t0), groupedNumber(t1)),
         s.text, true);
  TimelinePainter painter;
  painter.setRun(run);
  TimelineState st;
  st.t0 = t0;
  st.t1 = t1;
  st.showCritical = o.showCritical;
  st.selectedOp = o.selectedOp.isEmpty() ? -1 : t.opIndex(o.selectedOp.toStdString());
  painter.paint(c, area.adjusted(0, line * 1.8, 0, 0), s, st);
}

} // namespace

void paintFigure(Canvas &c, const QRectF &area, const ChipStyle &s, const std::shared_ptr<const ChipRun> &run,
                 ChipFigure figure, const FigureOptions &options) {
  if (!run || !missingFor(*run, figure).isEmpty()) {
    c.text(area, Qt::AlignCenter, run ? missingFor(*run, figure) : QStringLiteral("nothing loaded"), s.dimText);
    return;
  }
  switch (figure) {
  case ChipFigure::Groups:
    paintGroups(c, area, s, run, options);
    break;
  case ChipFigure::Memory:
    paintMemory(c, area, s, run, options);
    break;
  case ChipFigure::Timeline:
    paintTimeline(c, area, s, run, options);
    break;
  }
}

bool renderFigure(const std::shared_ptr<const ChipRun> &run, ChipFigure figure, const FigureOptions &options,
                  const QString &format, const QString &path, QString *error) {
  if (QString missing = run ? missingFor(*run, figure) : QStringLiteral("nothing loaded"); !missing.isEmpty()) {
    if (error)
      *error = missing;
    return false;
  }
  const QPalette palette = figurePalette(options.dark);
  const ChipStyle style(palette);
  const QRectF page(0, 0, options.size.width(), options.size.height());
  const QRectF area = page.adjusted(16, 12, -16, -12);
  if (format == QLatin1String("svg")) {
    SvgCanvas svg(page.size(), style.background);
    paintFigure(svg, area, style, run, figure, options);
    return svg.save(path, error);
  }
  if (format == QLatin1String("png")) {
    QImage image(options.size, QImage::Format_ARGB32_Premultiplied);
    image.fill(style.background);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing, false);
    painter.setRenderHint(QPainter::TextAntialiasing, true);
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPixelSize(12);
    painter.setFont(font);
    PainterCanvas canvas(painter);
    paintFigure(canvas, area, style, run, figure, options);
    painter.end();
    if (!image.save(path, "PNG")) {
      if (error)
        *error = QStringLiteral("%1: cannot write the PNG").arg(path);
      return false;
    }
    return true;
  }
  if (error)
    *error = QStringLiteral("unknown format '%1' (svg or png)").arg(format);
  return false;
}

} // namespace tpuc::vis
