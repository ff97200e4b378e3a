// Widgets around the chip painters.
#include "visualizer/ChipWidgets.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace tpuc::vis {

using namespace tpuc::chip;

std::pair<int64_t, int64_t> zoomWindow(int64_t t0, int64_t t1, int64_t anchor, double factor, int64_t total) {
  total = std::max<int64_t>(total, 1);
  double span = std::clamp(static_cast<double>(t1 - t0) * factor, std::min(20.0, static_cast<double>(total)),
                           static_cast<double>(total));
  double a = std::clamp(static_cast<double>(anchor), static_cast<double>(t0), static_cast<double>(t1));
  double rel = t1 > t0 ? (a - t0) / static_cast<double>(t1 - t0) : 0.5;
  double n0 = a - rel * span;
  n0 = std::clamp(n0, 0.0, static_cast<double>(total) - span);
  int64_t s = static_cast<int64_t>(std::llround(n0));
  return {s, s + static_cast<int64_t>(std::llround(span))};
}

// --- ChipChartWidget ------------------------------------------------------------------------------

ChipChartWidget::ChipChartWidget(QWidget *parent) : QWidget(parent) {
  setMouseTracking(true);
  setAttribute(Qt::WA_OpaquePaintEvent);
  setMinimumSize(200, 80);
}

QRectF ChipChartWidget::chartArea() const { return QRectF(rect()).adjusted(6, 4, -6, -4); }

void ChipChartWidget::paintEvent(QPaintEvent *) {
  QPainter p(this);
  ChipStyle style(palette());
  p.fillRect(rect(), style.background);
  p.setFont(font());
  PainterCanvas canvas(p);
  paintChart(canvas, chartArea(), style);
}

bool ChipChartWidget::event(QEvent *e) {
  if (e->type() == QEvent::ToolTip) {
    auto *help = static_cast<QHelpEvent *>(e);
    QString text = tooltipAt(help->pos());
    if (text.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(help->globalPos(), text, this);
    return true;
  }
  return QWidget::event(e);
}

// --- GroupStripWidget -----------------------------------------------------------------------------

GroupStripWidget::GroupStripWidget(QWidget *parent) : ChipChartWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

QSize GroupStripWidget::sizeHint() const { return {600, static_cast<int>(fontMetrics().height() * 2.4) + 8}; }
QSize GroupStripWidget::minimumSizeHint() const { return {200, static_cast<int>(fontMetrics().height() * 2.4) + 8}; }

void GroupStripWidget::setRun(std::shared_ptr<const ChipRun> run) {
  m_run = run;
  m_strip.setRun(std::move(run));
  m_selected = -1;
  update();
}

void GroupStripWidget::setSelectedGroup(int group) {
  if (group == m_selected)
    return;
  m_selected = group;
  update();
}

void GroupStripWidget::paintChart(Canvas &c, const QRectF &area, const ChipStyle &s) { m_strip.paint(c, area, s, m_selected); }

QString GroupStripWidget::tooltipAt(QPointF p) const {
  int g = m_strip.groupAt(chartArea(), p);
  const Plan *plan = m_run ? m_run->plan() : nullptr;
  if (g < 0 || !plan)
    return {};
  const Group &grp = plan->groups[g];
  QString s = QStringLiteral("Group %1 · %2 op(s) · %3 · %4-bound")
                  .arg(g)
                  .arg(grp.ops.size())
                  .arg(cyclesText(grp.cycles, plan->chip.frequencyMhz),
                       grp.memoryBound() ? QStringLiteral("memory") : QStringLiteral("compute"));
  if (!grp.ops.empty())
    s += QStringLiteral("\n%1").arg(QString::fromStdString(plan->ops[grp.ops.front()].name));
  return s;
}

void GroupStripWidget::mousePressEvent(QMouseEvent *event) {
  int g = m_strip.groupAt(chartArea(), event->position());
  if (g >= 0) {
    setSelectedGroup(g);
    Q_EMIT groupClicked(g);
  }
}

// --- LmemChartWidget ------------------------------------------------------------------------------

LmemChartWidget::LmemChartWidget(QWidget *parent) : ChipChartWidget(parent) {}

void LmemChartWidget::setGroup(std::shared_ptr<const ChipRun> run, int group) {
  m_run = run;
  m_chart.setGroup(std::move(run), group);
  m_hovered = -1;
  update();
}

void LmemChartWidget::setSelectedValue(int value) {
  if (value == m_selectedValue)
    return;
  m_selectedValue = value;
  update();
}

void LmemChartWidget::setFitToPeak(bool fit) {
  m_chart.setFitToPeak(fit);
  update();
}

int LmemChartWidget::rectAt(QPointF p) const { return m_chart.rectAt(font(), chartArea(), p); }

void LmemChartWidget::paintChart(Canvas &c, const QRectF &area, const ChipStyle &s) {
  m_chart.paint(c, area, s, m_selectedValue, m_hovered);
}

QString LmemChartWidget::tooltipAt(QPointF p) const { return m_chart.describe(rectAt(p)); }

void LmemChartWidget::mouseMoveEvent(QMouseEvent *event) {
  int r = rectAt(event->position());
  if (r != m_hovered) {
    m_hovered = r;
    setCursor(r >= 0 ? Qt::PointingHandCursor : Qt::ArrowCursor);
    update();
  }
}

void LmemChartWidget::leaveEvent(QEvent *) {
  if (m_hovered >= 0) {
    m_hovered = -1;
    update();
  }
}

void LmemChartWidget::mousePressEvent(QMouseEvent *event) {
  int r = rectAt(event->position());
  const Plan *p = m_run ? m_run->plan() : nullptr;
  if (r < 0 || !p || m_chart.group() < 0)
    return;
  const LmemRect &rect = p->groups[m_chart.group()].rects[r];
  setSelectedValue(rect.value);
  int op = p->opOfValue(rect.value, m_chart.group());
  Q_EMIT bufferClicked(r, rect.value, op >= 0 ? QString::fromStdString(p->ops[op].name) : QString());
}

// --- SliceShapeWidget -----------------------------------------------------------------------------

SliceShapeWidget::SliceShapeWidget(QWidget *parent) : ChipChartWidget(parent) {}

void SliceShapeWidget::setValue(std::shared_ptr<const ChipRun> run, int group, int value, int selectedSlice) {
  m_run = run;
  m_shape.setValue(std::move(run), group, value);
  m_slice = selectedSlice;
  update();
}

void SliceShapeWidget::paintChart(Canvas &c, const QRectF &area, const ChipStyle &s) { m_shape.paint(c, area, s, m_slice); }

// --- DdrChartWidget -------------------------------------------------------------------------------

DdrChartWidget::DdrChartWidget(QWidget *parent) : ChipChartWidget(parent) {}

void DdrChartWidget::setRun(std::shared_ptr<const ChipRun> run) {
  m_run = run;
  m_chart.setRun(std::move(run));
  update();
}

void DdrChartWidget::setCursorStep(int step) {
  if (step == m_cursor)
    return;
  m_cursor = step;
  update();
}

void DdrChartWidget::setSelectedValue(int value) {
  if (value == m_selectedValue)
    return;
  m_selectedValue = value;
  update();
}

void DdrChartWidget::paintChart(Canvas &c, const QRectF &area, const ChipStyle &s) {
  m_chart.paint(c, area, s, m_cursor, m_selectedValue);
}

QString DdrChartWidget::tooltipAt(QPointF p) const {
  int item = m_chart.itemAt(font(), chartArea(), p);
  return item == -1 ? QString() : m_chart.describe(item);
}

void DdrChartWidget::mousePressEvent(QMouseEvent *event) {
  int step = m_chart.stepAt(font(), chartArea(), event->position().x());
  int item = m_chart.itemAt(font(), chartArea(), event->position());
  if (item != -1) {
    int op = m_chart.opOf(item);
    const Plan *p = m_run->plan();
    if (item >= 0)
      setSelectedValue(p->gmem.buffers[item].value);
    else
      setSelectedValue(p->gmem.weights[static_cast<size_t>(-2 - item)].value);
    if (op >= 0)
      Q_EMIT opClicked(QString::fromStdString(p->ops[op].name));
  }
  if (step >= 0) {
    setCursorStep(step);
    Q_EMIT stepClicked(step);
  }
}

// --- LmemTimeWidget -------------------------------------------------------------------------------

LmemTimeWidget::LmemTimeWidget(QWidget *parent) : ChipChartWidget(parent) {}

int64_t LmemTimeWidget::total() const {
  return m_run && m_run->trace() ? std::max<int64_t>(1, m_run->trace()->totalCycles) : 1;
}

void LmemTimeWidget::setRun(std::shared_ptr<const ChipRun> run) {
  m_run = run;
  m_chart.setRun(std::move(run));
  m_t0 = 0;
  m_t1 = total();
  update();
}

void LmemTimeWidget::setWindow(int64_t t0, int64_t t1) {
  if (t1 <= t0) {
    t0 = 0;
    t1 = total();
  }
  if (t0 == m_t0 && t1 == m_t1)
    return;
  m_t0 = t0;
  m_t1 = t1;
  update();
  Q_EMIT windowChanged(m_t0, m_t1);
}

void LmemTimeWidget::setCursorCycle(int64_t cycle) {
  if (cycle == m_cursor)
    return;
  m_cursor = cycle;
  update();
}

void LmemTimeWidget::paintChart(Canvas &c, const QRectF &area, const ChipStyle &s) {
  m_chart.paint(c, area, s, m_t0, m_t1, m_cursor);
}

QString LmemTimeWidget::tooltipAt(QPointF p) const {
  int d = m_chart.divergenceAt(font(), chartArea(), m_t0, m_t1, p.x());
  if (d >= 0)
    return m_chart.describeDivergence(d);
  int64_t cycle = m_chart.cycleAt(font(), chartArea(), m_t0, m_t1, p.x());
  if (cycle < 0 || !m_run || !m_run->trace())
    return {};
  const Trace &t = *m_run->trace();
  QString s = QStringLiteral("cycle %1 (%2 µs): simulated %3/lane")
                  .arg(groupedNumber(cycle))
                  .arg(cycle / t.frequencyMhz, 0, 'f', 2)
                  .arg(byteSize(valueAt(t.lmem, cycle)));
  if (m_run->plan())
    s += QStringLiteral(", planned %1").arg(byteSize(valueAt(m_run->plannedLmem(), cycle)));
  if (int g = m_run->groupAt(cycle); g >= 0)
    s += QStringLiteral(" · group %1").arg(g);
  return s;
}

void LmemTimeWidget::mousePressEvent(QMouseEvent *event) {
  m_dragX = event->position().x();
  m_dragT0 = m_t0;
  m_dragged = false;
}

void LmemTimeWidget::mouseMoveEvent(QMouseEvent *event) {
  if (m_dragX < 0 || !(event->buttons() & Qt::LeftButton))
    return;
  QRectF plot = m_chart.plotRect(font(), chartArea());
  double dx = event->position().x() - m_dragX;
  if (std::abs(dx) > 3)
    m_dragged = true;
  if (!m_dragged || plot.width() <= 0)
    return;
  int64_t span = m_t1 - m_t0;
  int64_t t0 = std::clamp<int64_t>(m_dragT0 - static_cast<int64_t>(dx / plot.width() * span), 0, total() - span);
  setWindow(t0, t0 + span);
}

void LmemTimeWidget::mouseReleaseEvent(QMouseEvent *event) {
  if (!m_dragged) {
    int64_t c = m_chart.cycleAt(font(), chartArea(), m_t0, m_t1, event->position().x());
    if (c >= 0) {
      setCursorCycle(c);
      Q_EMIT cycleClicked(c);
    }
  }
  m_dragX = -1;
}

void LmemTimeWidget::mouseDoubleClickEvent(QMouseEvent *) { setWindow(0, total()); }

void LmemTimeWidget::wheelEvent(QWheelEvent *event) {
  int64_t anchor = m_chart.cycleAt(font(), chartArea(), m_t0, m_t1, event->position().x());
  if (anchor < 0)
    anchor = (m_t0 + m_t1) / 2;
  double factor = std::pow(0.85, event->angleDelta().y() / 120.0);
  auto [t0, t1] = zoomWindow(m_t0, m_t1, anchor, factor, total());
  setWindow(t0, t1);
  event->accept();
}

} // namespace tpuc::vis
