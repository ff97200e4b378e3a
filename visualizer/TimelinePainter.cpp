// The engine Gantt with level of detail.
#include "visualizer/TimelinePainter.h"

#include "visualizer/GroupPainters.h"

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>

namespace tpuc::vis {

using namespace tpuc::chip;

namespace {

const char *kRowNames[] = {"Groups", "Ops", "TIU", "GDMA"};

QColor commandColor(const ChipStyle &s, const Command &c, TimelineRow row) {
  return row == TimelineRow::Ops ? s.opColor(c.op) : s.command(c.kind, c.weight);
}

/// Visible commands [first, last) of a start-ordered, non-overlapping row.
std::pair<size_t, size_t> visible(const std::vector<Command> &cmds, const BusyIndex &index, int64_t t0, int64_t t1) {
  size_t a = index.firstEndingAfter(t0);
  auto it = std::lower_bound(cmds.begin() + static_cast<std::ptrdiff_t>(a), cmds.end(), t1,
                             [](const Command &c, int64_t v) { return c.start < v; });
  return {a, static_cast<size_t>(it - cmds.begin())};
}

} // namespace

void TimelinePainter::setRun(std::shared_ptr<const ChipRun> run) {
  m_run = std::move(run);
  m_opRuns.clear();
  if (m_run && m_run->trace())
    for (const Interval &r : m_run->opRuns()) {
      Command c;
      c.start = r.start;
      c.end = r.end;
      c.op = r.id;
      c.step = r.step;
      c.id = static_cast<uint32_t>(m_opRuns.size() + 1);
      m_opRuns.push_back(c);
    }
  m_opIndex = BusyIndex(m_opRuns);
}

TimelinePainter::Rows TimelinePainter::layout(const QFont &font, const QRectF &area) const {
  QFontMetricsF fm(font);
  const double line = fm.height();
  Rows r;
  r.label = fm.horizontalAdvance(QStringLiteral("GDMA 100.0 % busy")) + 16;
  r.ruler = QRectF(area.left() + r.label, area.top(), area.width() - r.label - 8, 1.8 * line);
  r.footer = QRectF(area.left(), area.bottom() - 3.3 * line, area.width(), 3.3 * line);
  double top = r.ruler.bottom() + 2, bottom = r.footer.top() - 4;
  double lane = 1.7 * line, gap = 3;
  double engine = std::clamp((bottom - top - 2 * lane - 4 * gap) / 2, 1.5 * line, 12 * line);
  double heights[4] = {lane, lane, engine, engine};
  double y = top;
  for (int i = 0; i < 4; ++i) {
    r.row[i] = QRectF(r.ruler.left(), y, r.ruler.width(), heights[i]);
    y += heights[i] + gap;
  }
  r.plot = QRectF(QPointF(r.ruler.left(), top), QPointF(r.ruler.right(), r.row[3].bottom()));
  return r;
}

QRectF TimelinePainter::plotRect(const QFont &font, const QRectF &area) const { return layout(font, area).plot; }

int64_t TimelinePainter::cycleAt(const QFont &font, const QRectF &area, const TimelineState &st, double x) const {
  QRectF plot = plotRect(font, area);
  if (st.t1 <= st.t0 || plot.width() <= 0)
    return st.t0;
  return st.t0 + static_cast<int64_t>(std::llround((x - plot.left()) / plot.width() * static_cast<double>(st.t1 - st.t0)));
}

void TimelinePainter::paintRow(Canvas &c, const QRectF &row, const ChipStyle &s, const TimelineState &st,
                               const std::vector<Command> &cmds, const BusyIndex &index, TimelineRow kind,
                               const std::vector<uint8_t> *critical, const std::vector<uint32_t> *criticalCount,
                               std::span<const uint32_t> selected, const std::vector<Command> &selectedOf) const {
  const double span = static_cast<double>(st.t1 - st.t0);
  auto x = [&](int64_t t) { return row.left() + (static_cast<double>(t - st.t0)) / span * row.width(); };
  auto [first, last] = visible(cmds, index, st.t0, st.t1);
  const bool engineRow = kind == TimelineRow::TIU || kind == TimelineRow::GDMA;
  const bool individual = c.fullDetail() || static_cast<double>(last - first) <= row.width() / 2;
  const double line = c.lineHeight();
  if (individual) {
    for (size_t i = first; i < last; ++i) {
      const Command &cmd = cmds[i];
      QRectF r(QPointF(std::max(row.left(), x(cmd.start)), row.top() + 1),
               QPointF(std::min(row.right(), std::max(x(cmd.end), x(cmd.start) + 0.6)), row.bottom() - 1));
      bool hovered = st.hovered.row == kind && st.hovered.index == static_cast<int>(i);
      bool selected = st.selectedOp >= 0 && cmd.op == st.selectedOp;
      bool crit = st.showCritical && critical && (*critical)[i];
      Style style;
      style.fill = commandColor(s, cmd, kind);
      if (hovered)
        style.fill = style.fill.lighter(120);
      style.stroke = selected ? s.selection : (r.width() > 3 ? s.background : Qt::transparent);
      style.strokeWidth = selected ? 2 : 0.5;
      Mark m;
      m.cls = engineRow ? QStringLiteral("command") : QStringLiteral("oprun");
      m.op = QString::fromStdString(m_run->traceOpName(cmd.op));
      if (c.fullDetail()) {
        m.title = describe({kind, static_cast<int>(i)});
        m.data = {{QStringLiteral("engine"), QString::fromLatin1(engineRow ? engineName(cmd.engine) : "op")},
                  {QStringLiteral("id"), QString::number(cmd.id)},
                  {QStringLiteral("start"), QString::number(cmd.start)},
                  {QStringLiteral("end"), QString::number(cmd.end)}};
        if (engineRow)
          m.data.append({{QStringLiteral("kind"), QString::fromLatin1(cmdKindName(cmd.kind))},
                         {QStringLiteral("group"), QString::number(cmd.group)},
                         {QStringLiteral("critical"), crit ? QStringLiteral("1") : QStringLiteral("0")}});
      }
      c.rect(r, style, &m);
      if (crit) // a bar along the top, as the zoomed-out rows mark it, so the command keeps its colour
        c.rect(QRectF(r.left(), r.top(), r.width(), 3), Style{s.critical});
      if (r.width() > c.textWidth(QStringLiteral("xxxxxx")) && row.height() >= line)
        c.text(r.adjusted(2, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter,
               cmd.kind == CmdKind::Sync ? QStringLiteral("barrier") : shortName(m_run->traceOpName(cmd.op)),
               s.textOn(style.fill));
    }
    return;
  }
  // Level of detail: one column per pixel; its bar is as tall as the share of the pixel's time the engine is
  // busy, coloured by the command covering most of it. Equal neighbours merge into one rectangle.
  const int columns = std::max(1, static_cast<int>(std::ceil(row.width())));
  std::vector<LodColumn> cols = aggregateColumns(cmds, index, st.t0, st.t1, columns);
  const double colCycles = span / columns, colPx = row.width() / columns;
  int k = 0;
  while (k < columns) {
    if (cols[k].busy <= 0) {
      ++k;
      continue;
    }
    const Command &dom = cmds[cols[k].dominant];
    QColor color = commandColor(s, dom, kind);
    double share = std::min(1.0, cols[k].busy / colCycles);
    int h = static_cast<int>(std::ceil(share * 8)); // eight height levels keep runs mergeable
    int e = k + 1;
    while (e < columns && cols[e].busy > 0 && static_cast<int>(std::ceil(std::min(1.0, cols[e].busy / colCycles) * 8)) == h &&
           commandColor(s, cmds[cols[e].dominant], kind) == color)
      ++e;
    double height = std::max(2.0, (row.height() - 2) * h / 8.0);
    c.rect(QRectF(row.left() + k * colPx, row.bottom() - 1 - height, (e - k) * colPx, height), Style{color});
    k = e;
  }
  // Marks: columns holding a command of the critical path (prefix counts: O(log n) a column) or of the
  // selected op (its own commands only), so marking never walks the whole visible range.
  std::vector<uint8_t> crit(columns, 0), sel(columns, 0);
  if (st.showCritical && criticalCount && criticalCount->size() == cmds.size() + 1)
    for (int q = 0; q < columns; ++q) {
      if (cols[q].busy <= 0)
        continue;
      const int64_t a = st.t0 + static_cast<int64_t>(std::floor(q * colCycles)),
                    b = q + 1 == columns ? st.t1 : st.t0 + static_cast<int64_t>(std::floor((q + 1) * colCycles));
      const size_t i0 = index.firstEndingAfter(a);
      const size_t i1 = static_cast<size_t>(
          std::lower_bound(cmds.begin() + static_cast<std::ptrdiff_t>(i0), cmds.end(), b,
                           [](const Command &cmd, int64_t v) { return cmd.start < v; }) -
          cmds.begin());
      crit[q] = i1 > i0 && (*criticalCount)[i1] > (*criticalCount)[i0];
    }
  for (uint32_t i : selected) {
    const Command &cmd = selectedOf[i];
    if (cmd.end <= st.t0 || cmd.start >= st.t1)
      continue;
    int a = std::clamp(static_cast<int>((x(cmd.start) - row.left()) / colPx), 0, columns - 1);
    int b = std::clamp(static_cast<int>(std::ceil((x(cmd.end) - row.left()) / colPx)), a + 1, columns);
    for (int q = a; q < b; ++q)
      sel[q] = 1;
  }
  auto bars = [&](const std::vector<uint8_t> &flags, const QColor &color, double y, double h) {
    for (int q = 0; q < columns;) {
      if (!flags[q]) {
        ++q;
        continue;
      }
      int e = q;
      while (e < columns && flags[e])
        ++e;
      c.rect(QRectF(row.left() + q * colPx, y, (e - q) * colPx, h), Style{color});
      q = e;
    }
  };
  bars(crit, s.critical, row.top(), 3);
  bars(sel, s.selection, row.top() + 3, 3);
}

void TimelinePainter::paintSpans(Canvas &c, const QRectF &row, const ChipStyle &s, const TimelineState &st) const {
  const auto &spans = m_run->groupSpans();
  const Plan *p = m_run->plan();
  const double span = static_cast<double>(st.t1 - st.t0);
  auto x = [&](int64_t t) { return row.left() + (static_cast<double>(t - st.t0)) / span * row.width(); };
  int selectedGroup = -1;
  if (st.selectedOp >= 0 && p)
    selectedGroup = p->groupOfOp(m_run->planOpOf(st.selectedOp));
  for (size_t i = 0; i < spans.size(); ++i) {
    const Interval &g = spans[i];
    if (g.end <= st.t0 || g.start >= st.t1)
      continue;
    QRectF r(QPointF(std::max(row.left(), x(g.start)), row.top() + 1),
             QPointF(std::min(row.right(), std::max(x(g.end), x(g.start) + 0.6)), row.bottom() - 1));
    const Group *pg = p && g.id >= 0 && g.id < static_cast<int>(p->groups.size()) ? &p->groups[g.id] : nullptr;
    Style style;
    style.fill = pg ? (pg->global ? s.faded(s.axis, 0.5) : s.groupColor(pg->memoryBound())) : s.groupColor(false);
    bool hovered = st.hovered.row == TimelineRow::Groups && st.hovered.index == static_cast<int>(i);
    if (hovered)
      style.fill = style.fill.lighter(115);
    style.stroke = g.id == selectedGroup ? s.selection : (r.width() > 3 ? s.background : Qt::transparent);
    style.strokeWidth = g.id == selectedGroup ? 2.5 : 0.5;
    Mark m;
    m.cls = QStringLiteral("group");
    if (pg && !pg->ops.empty())
      m.op = QString::fromStdString(p->ops[pg->ops.front()].name);
    if (c.fullDetail()) {
      m.title = describe({TimelineRow::Groups, static_cast<int>(i)});
      m.data = {{QStringLiteral("group"), QString::number(g.id)},
                {QStringLiteral("start"), QString::number(g.start)},
                {QStringLiteral("end"), QString::number(g.end)}};
    }
    c.rect(r, style, &m);
    QString label = pg && pg->global && pg->ops.size() == 1 ? shortName(p->ops[pg->ops.front()].name)
                                                             : QStringLiteral("G%1").arg(g.id);
    if (r.width() > c.textWidth(label) + 4)
      c.text(r.adjusted(2, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter, label, s.textOn(style.fill));
  }
}

void TimelinePainter::paint(Canvas &c, const QRectF &area, const ChipStyle &s, const TimelineState &stIn) const {
  const Trace *t = m_run ? m_run->trace() : nullptr;
  if (!t) {
    c.text(area, Qt::AlignCenter,
           QStringLiteral("No engine trace: run the model file (Run ▸ Run Model File, or tpuc run --profile)"), s.dimText);
    return;
  }
  TimelineState st = stIn;
  if (st.t1 <= st.t0) {
    st.t0 = 0;
    st.t1 = std::max<int64_t>(1, t->totalCycles);
  }
  Rows lay = layout(c.font(), area);
  const double line = c.lineHeight();
  const double span = static_cast<double>(st.t1 - st.t0);
  auto x = [&](double cyc) { return lay.plot.left() + (cyc - st.t0) / span * lay.plot.width(); };
  // Ruler.
  for (double v : niceTicks(static_cast<double>(st.t0), static_cast<double>(st.t1), std::max(2, static_cast<int>(lay.ruler.width() / 110)))) {
    c.line(QPointF(x(v), lay.ruler.bottom() - 5), QPointF(x(v), lay.plot.bottom()), s.grid);
    double us = v / t->frequencyMhz;
    int decimals = span / t->frequencyMhz < 5 ? 3 : span / t->frequencyMhz < 50 ? 2 : 1;
    c.text(QRectF(x(v) - 60, lay.ruler.top(), 120, lay.ruler.height() - 4), Qt::AlignHCenter | Qt::AlignBottom,
           QStringLiteral("%1 µs").arg(us, 0, 'f', decimals), s.dimText);
  }
  // Row labels and backgrounds.
  const auto &idle = m_run->idle();
  for (int i = 0; i < 4; ++i) {
    QString label = QString::fromLatin1(kRowNames[i]);
    if (i >= 2)
      label += QStringLiteral(" %1 % busy").arg(100.0 * idle[i - 2].busyShare, 0, 'f', 1);
    c.text(QRectF(area.left() + 4, lay.row[i].top(), lay.label - 10, lay.row[i].height()), Qt::AlignLeft | Qt::AlignVCenter,
           label, i >= 2 ? s.text : s.dimText, i >= 2);
    c.rect(lay.row[i], Style{s.faded(s.grid, 0.7)});
  }
  c.clip(lay.plot);
  paintSpans(c, lay.row[0], s, st);
  // The op lane is made of TIU commands: its selected op is marked from the TIU commands of that op.
  const auto selTiu = m_run->commandsOf(Engine::TIU, st.selectedOp), selGdma = m_run->commandsOf(Engine::GDMA, st.selectedOp);
  const CriticalPath &crit = m_run->critical();
  paintRow(c, lay.row[1], s, st, m_opRuns, m_opIndex, TimelineRow::Ops, nullptr, nullptr, selTiu, t->of(Engine::TIU));
  paintRow(c, lay.row[2], s, st, t->of(Engine::TIU), m_run->busy(Engine::TIU), TimelineRow::TIU, &crit.on[0], &crit.count[0],
           selTiu, t->of(Engine::TIU));
  paintRow(c, lay.row[3], s, st, t->of(Engine::GDMA), m_run->busy(Engine::GDMA), TimelineRow::GDMA, &crit.on[1],
           &crit.count[1], selGdma, t->of(Engine::GDMA));
  if (st.cursor >= st.t0 && st.cursor < st.t1)
    c.line(QPointF(x(static_cast<double>(st.cursor)), lay.plot.top()), QPointF(x(static_cast<double>(st.cursor)), lay.plot.bottom()),
           s.cursor, 2);
  c.clearClip();
  // Footer: where the idle time goes and what sets the length of the run.
  const CriticalPath &cp = m_run->critical();
  const int64_t critTiu = cp.engineCycles[0];
  QString critical = QStringLiteral("Critical path: %1 commands, %2 — TIU %3 %, GDMA %4 % of it")
                         .arg(groupedNumber(static_cast<qint64>(cp.chain.size())), cyclesText(cp.cycles, t->frequencyMhz))
                         .arg(cp.cycles ? 100.0 * critTiu / cp.cycles : 0, 0, 'f', 0)
                         .arg(cp.cycles ? 100.0 * (cp.cycles - critTiu) / cp.cycles : 0, 0, 'f', 0);
  if (st.showCritical)
    critical += QStringLiteral(" (marked red)");
  auto idleLine = [&](const EngineIdle &e) {
    QString line = QString::fromStdString(e.summary);
    if (!e.breakdown.empty())
      line += QStringLiteral(" — by kind: ") + QString::fromStdString(e.breakdown);
    return line;
  };
  QString lines[3] = {idleLine(idle[0]), idleLine(idle[1]), critical};
  for (int i = 0; i < 3; ++i)
    c.text(QRectF(lay.footer.left() + 4, lay.footer.top() + i * 1.1 * line, lay.footer.width() - 8, line),
           Qt::AlignLeft | Qt::AlignVCenter, lines[i], i == 2 ? s.critical : s.text);
}

TimelineHit TimelinePainter::hitTest(const QFont &font, const QRectF &area, const TimelineState &stIn, QPointF p) const {
  TimelineHit hit;
  const Trace *t = m_run ? m_run->trace() : nullptr;
  if (!t)
    return hit;
  TimelineState st = stIn;
  if (st.t1 <= st.t0) {
    st.t0 = 0;
    st.t1 = std::max<int64_t>(1, t->totalCycles);
  }
  Rows lay = layout(font, area);
  int row = -1;
  for (int i = 0; i < 4; ++i)
    if (lay.row[i].contains(p))
      row = i;
  if (row < 0)
    return hit;
  const double perPx = static_cast<double>(st.t1 - st.t0) / lay.plot.width();
  const int64_t cycle = cycleAt(font, area, st, p.x());
  const int64_t slack = static_cast<int64_t>(std::ceil(3 * perPx));
  if (row == 0) {
    const auto &spans = m_run->groupSpans();
    int best = -1;
    int64_t bestDist = slack + 1;
    for (size_t i = 0; i < spans.size(); ++i) {
      int64_t d = cycle < spans[i].start ? spans[i].start - cycle : cycle >= spans[i].end ? cycle - spans[i].end + 1 : 0;
      if (d < bestDist) {
        bestDist = d;
        best = static_cast<int>(i);
      }
    }
    return best >= 0 ? TimelineHit{TimelineRow::Groups, best} : hit;
  }
  const std::vector<Command> &cmds = row == 1 ? m_opRuns : t->of(row == 2 ? Engine::TIU : Engine::GDMA);
  const BusyIndex &index = row == 1 ? m_opIndex : m_run->busy(row == 2 ? Engine::TIU : Engine::GDMA);
  size_t i = index.firstEndingAfter(cycle);
  auto dist = [&](size_t k) {
    const Command &c = cmds[k];
    return cycle < c.start ? c.start - cycle : cycle >= c.end ? cycle - c.end + 1 : 0;
  };
  int best = -1;
  int64_t bestDist = slack + 1;
  for (size_t k : {i, i - 1})
    if (k < cmds.size() && dist(k) < bestDist) {
      bestDist = dist(k);
      best = static_cast<int>(k);
    }
  if (best < 0)
    return hit;
  return {static_cast<TimelineRow>(row), best};
}

int TimelinePainter::opOf(const TimelineHit &hit) const {
  const Trace *t = m_run ? m_run->trace() : nullptr;
  if (!t || hit.index < 0)
    return -1;
  switch (hit.row) {
  case TimelineRow::TIU:
  case TimelineRow::GDMA: {
    const auto &cmds = t->of(hit.row == TimelineRow::TIU ? Engine::TIU : Engine::GDMA);
    return hit.index < static_cast<int>(cmds.size()) ? cmds[hit.index].op : -1;
  }
  case TimelineRow::Ops:
    return hit.index < static_cast<int>(m_opRuns.size()) ? m_opRuns[hit.index].op : -1;
  case TimelineRow::Groups: {
    const Plan *p = m_run->plan();
    const auto &spans = m_run->groupSpans();
    if (!p || hit.index >= static_cast<int>(spans.size()))
      return -1;
    int g = spans[hit.index].id;
    if (g < 0 || g >= static_cast<int>(p->groups.size()) || p->groups[g].ops.empty())
      return -1;
    return m_run->traceOpOf(p->groups[g].ops.front());
  }
  case TimelineRow::None:
    break;
  }
  return -1;
}

std::pair<int64_t, int64_t> TimelinePainter::rangeOf(const TimelineHit &hit) const {
  const Trace *t = m_run ? m_run->trace() : nullptr;
  if (!t || hit.index < 0)
    return {-1, -1};
  switch (hit.row) {
  case TimelineRow::TIU:
  case TimelineRow::GDMA: {
    const Command &c = t->of(hit.row == TimelineRow::TIU ? Engine::TIU : Engine::GDMA)[hit.index];
    return {c.start, c.end};
  }
  case TimelineRow::Ops:
    return {m_opRuns[hit.index].start, m_opRuns[hit.index].end};
  case TimelineRow::Groups:
    return {m_run->groupSpans()[hit.index].start, m_run->groupSpans()[hit.index].end};
  case TimelineRow::None:
    break;
  }
  return {-1, -1};
}

QString TimelinePainter::describe(const TimelineHit &hit) const {
  const Trace *t = m_run ? m_run->trace() : nullptr;
  if (!t || hit.index < 0)
    return {};
  const double mhz = t->frequencyMhz;
  auto opText = [&](int op) {
    if (op < 0 || op >= static_cast<int>(t->ops.size()))
      return QStringLiteral("?");
    const TraceOp &o = t->ops[op];
    return QString::fromStdString(o.name) + (o.type.empty() ? QString() : QStringLiteral(" (%1)").arg(QString::fromStdString(o.type)));
  };
  if (hit.row == TimelineRow::Groups) {
    const Interval &g = m_run->groupSpans()[hit.index];
    QString s = QStringLiteral("Group %1 · %2 · cycles %3–%4").arg(g.id).arg(cyclesText(g.end - g.start, mhz),
                                                                              groupedNumber(g.start), groupedNumber(g.end));
    if (const Plan *p = m_run->plan(); p && g.id >= 0 && g.id < static_cast<int>(p->groups.size())) {
      const Group &pg = p->groups[g.id];
      s += QStringLiteral("\n%1 op(s)%2 · planned %3 · %4-bound")
               .arg(pg.ops.size())
               .arg(pg.global ? QStringLiteral(", global") : QStringLiteral(", %1 slice(s)").arg(pg.slices.size()))
               .arg(cyclesText(pg.cycles, mhz), pg.memoryBound() ? QStringLiteral("memory") : QStringLiteral("compute"));
      if (!pg.ops.empty())
        s += QStringLiteral("\nfirst op %1").arg(QString::fromStdString(p->ops[pg.ops.front()].name));
    }
    return s;
  }
  if (hit.row == TimelineRow::Ops) {
    const Command &r = m_opRuns[hit.index];
    return QStringLiteral("%1\nTIU computing it for %2 (cycles %3–%4)")
        .arg(opText(r.op), cyclesText(r.end - r.start, mhz), groupedNumber(r.start), groupedNumber(r.end));
  }
  const Engine e = hit.row == TimelineRow::TIU ? Engine::TIU : Engine::GDMA;
  const Command &c = t->of(e)[hit.index];
  QString s = QStringLiteral("%1 #%2 · %3 · %4\n").arg(QString::fromLatin1(engineName(e))).arg(c.id)
                  .arg(QString::fromLatin1(cmdKindName(c.kind)), opText(c.op));
  if (c.group >= 0)
    s += QStringLiteral("group %1 · %2 · stage %3 · ")
             .arg(c.group)
             .arg(c.slice >= 0 ? QStringLiteral("slice %1").arg(c.slice) : QStringLiteral("whole tensor"))
             .arg(c.step);
  s += QStringLiteral("%1, cycles %2–%3").arg(cyclesText(c.duration(), mhz), groupedNumber(c.start), groupedNumber(c.end));
  if (c.kind == CmdKind::Sync)
    s += QStringLiteral("\na barrier: this core waits here until every core has finished the group before");
  if (e == Engine::GDMA && c.bytes)
    s += QStringLiteral("\n%1 %2 DDR 0x%3%4")
             .arg(byteSize(c.bytes), c.kind == CmdKind::Store ? QStringLiteral("to") : QStringLiteral("from"),
                  QString::number(c.ddr, 16), c.weight ? QStringLiteral(" (weights)") : QString());
  const Engine other = e == Engine::TIU ? Engine::GDMA : Engine::TIU;
  if (const Command *dep = t->byId(other, c.wait))
    s += QStringLiteral("\nwaits for %1 #%2 (%3 of %4, ended at %5%6)")
             .arg(QString::fromLatin1(engineName(other)))
             .arg(dep->id)
             .arg(QString::fromLatin1(cmdKindName(dep->kind)), QString::fromStdString(m_run->traceOpName(dep->op)),
                  groupedNumber(dep->end), dep->end == c.start ? QStringLiteral(": it held this command back") : QString());
  if (m_run->critical().on[static_cast<int>(e)][hit.index])
    s += QStringLiteral("\non the critical path");
  return s;
}

} // namespace tpuc::vis
