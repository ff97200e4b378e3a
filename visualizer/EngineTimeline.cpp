// The engine timeline view.
#include "visualizer/EngineTimeline.h"

#include <QCheckBox>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <cmath>

namespace tpuc::vis {

using namespace tpuc::chip;

// --- TimelineCanvas -------------------------------------------------------------------------------

TimelineCanvas::TimelineCanvas(QWidget *parent) : ChipChartWidget(parent) {
  setFocusPolicy(Qt::StrongFocus);
  setMinimumHeight(220);
}

int64_t TimelineCanvas::total() const {
  return m_run && m_run->trace() ? std::max<int64_t>(1, m_run->trace()->totalCycles) : 1;
}

void TimelineCanvas::setRun(std::shared_ptr<const ChipRun> run) {
  m_run = run;
  m_painter.setRun(std::move(run));
  m_state = TimelineState();
  m_state.t1 = total();
  update();
}

void TimelineCanvas::setWindow(int64_t t0, int64_t t1) {
  if (t1 <= t0) {
    t0 = 0;
    t1 = total();
  }
  t0 = std::clamp<int64_t>(t0, 0, total());
  t1 = std::clamp<int64_t>(t1, t0 + 1, total());
  if (t0 == m_state.t0 && t1 == m_state.t1)
    return;
  m_state.t0 = t0;
  m_state.t1 = t1;
  update();
  Q_EMIT windowChanged(t0, t1);
}

void TimelineCanvas::zoom(double factor, int64_t anchor) {
  auto [t0, t1] = zoomWindow(m_state.t0, m_state.t1, anchor, factor, total());
  setWindow(t0, t1);
}

void TimelineCanvas::paintEvent(QPaintEvent *event) {
  QElapsedTimer timer;
  timer.start();
  ChipChartWidget::paintEvent(event);
  m_lastPaintMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

void TimelineCanvas::paintChart(Canvas &c, const QRectF &area, const ChipStyle &s) { m_painter.paint(c, area, s, m_state); }

QString TimelineCanvas::tooltipAt(QPointF p) const { return m_painter.describe(hitAt(p)); }

void TimelineCanvas::mousePressEvent(QMouseEvent *event) {
  m_dragX = event->position().x();
  m_dragT0 = m_state.t0;
  m_dragged = false;
  setFocus();
}

void TimelineCanvas::mouseMoveEvent(QMouseEvent *event) {
  if (m_dragX >= 0 && (event->buttons() & Qt::LeftButton)) {
    QRectF plot = m_painter.plotRect(font(), chartArea());
    double dx = event->position().x() - m_dragX;
    if (std::abs(dx) > 3)
      m_dragged = true;
    if (m_dragged && plot.width() > 0) {
      int64_t span = m_state.t1 - m_state.t0;
      int64_t t0 = std::clamp<int64_t>(m_dragT0 - static_cast<int64_t>(dx / plot.width() * span), 0, total() - span);
      setCursor(Qt::ClosedHandCursor);
      setWindow(t0, t0 + span);
    }
    return;
  }
  TimelineHit hit = hitAt(event->position());
  if (hit.row != m_state.hovered.row || hit.index != m_state.hovered.index) {
    m_state.hovered = hit;
    setCursor(hit.index >= 0 ? Qt::PointingHandCursor : Qt::ArrowCursor);
    update();
  }
}

void TimelineCanvas::mouseReleaseEvent(QMouseEvent *event) {
  setCursor(Qt::ArrowCursor);
  if (!m_dragged && m_dragX >= 0) {
    TimelineHit hit = hitAt(event->position());
    int64_t cycle = m_painter.cycleAt(font(), chartArea(), m_state, event->position().x());
    QRectF plot = m_painter.plotRect(font(), chartArea());
    if (event->position().x() >= plot.left()) {
      m_state.cursor = cycle;
      update();
      Q_EMIT cursorMoved(cycle);
    }
    if (hit.index >= 0)
      Q_EMIT hitClicked(hit);
  }
  m_dragX = -1;
}

void TimelineCanvas::mouseDoubleClickEvent(QMouseEvent *event) {
  TimelineHit hit = hitAt(event->position());
  auto [a, b] = m_painter.rangeOf(hit);
  if (a < 0) {
    setWindow(0, total());
    return;
  }
  int64_t pad = std::max<int64_t>(10, (b - a) / 10);
  setWindow(std::max<int64_t>(0, a - pad), std::min(total(), b + pad));
}

void TimelineCanvas::wheelEvent(QWheelEvent *event) {
  int64_t anchor = m_painter.cycleAt(font(), chartArea(), m_state, event->position().x());
  double factor = std::pow(0.8, event->angleDelta().y() / 120.0);
  zoom(factor, anchor);
  event->accept();
}

void TimelineCanvas::keyPressEvent(QKeyEvent *event) {
  const int64_t span = m_state.t1 - m_state.t0, mid = (m_state.t0 + m_state.t1) / 2;
  switch (event->key()) {
  case Qt::Key_F:
  case Qt::Key_Home:
    setWindow(0, total());
    return;
  case Qt::Key_Plus:
  case Qt::Key_Equal:
    zoom(0.5, m_state.cursor >= 0 ? m_state.cursor : mid);
    return;
  case Qt::Key_Minus:
    zoom(2.0, m_state.cursor >= 0 ? m_state.cursor : mid);
    return;
  case Qt::Key_Left:
    setWindow(std::max<int64_t>(0, m_state.t0 - span / 4), std::max<int64_t>(0, m_state.t0 - span / 4) + span);
    return;
  case Qt::Key_Right: {
    int64_t t0 = std::min(total() - span, m_state.t0 + span / 4);
    setWindow(t0, t0 + span);
    return;
  }
  default:
    ChipChartWidget::keyPressEvent(event);
  }
}

void TimelineCanvas::leaveEvent(QEvent *) {
  if (m_state.hovered.index >= 0) {
    m_state.hovered = {};
    update();
  }
}

// --- EngineTimeline -------------------------------------------------------------------------------

EngineTimeline::EngineTimeline(QWidget *parent) : QWidget(parent), m_canvas(new TimelineCanvas(this)) {
  auto *bar = new QHBoxLayout;
  bar->setContentsMargins(6, 4, 6, 0);
  auto button = [&](const QString &text, const QString &tip, auto slot) {
    auto *b = new QToolButton(this);
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    connect(b, &QToolButton::clicked, this, slot);
    bar->addWidget(b);
    return b;
  };
  button(tr("Fit"), tr("Show the whole run (F)"), [this] { fit(); });
  button(tr("Zoom In"), tr("Zoom in around the cursor (+; or the mouse wheel)"), [this] {
    const auto &st = m_canvas->state();
    m_canvas->zoom(0.5, st.cursor >= 0 ? st.cursor : (st.t0 + st.t1) / 2);
  });
  button(tr("Zoom Out"), tr("Zoom out (-)"), [this] {
    const auto &st = m_canvas->state();
    m_canvas->zoom(2.0, st.cursor >= 0 ? st.cursor : (st.t0 + st.t1) / 2);
  });
  m_critical = new QCheckBox(tr("Critical path"), this);
  m_critical->setChecked(true);
  m_critical->setToolTip(tr("Mark the chain of commands that sets the run's length"));
  bar->addWidget(m_critical);
  m_status = new QLabel(this);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  bar->addWidget(m_status, 1);
  auto *layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addLayout(bar);
  layout->addWidget(m_canvas, 1);
  connect(m_critical, &QCheckBox::toggled, this, [this](bool on) {
    m_canvas->state().showCritical = on;
    m_canvas->update();
  });
  connect(m_canvas, &TimelineCanvas::windowChanged, this, &EngineTimeline::updateStatus);
  connect(m_canvas, &TimelineCanvas::cursorMoved, this, &EngineTimeline::cursorMoved);
  connect(m_canvas, &TimelineCanvas::hitClicked, this, [this](const TimelineHit &hit) {
    int op = m_canvas->painter().opOf(hit);
    if (op < 0 || !m_run)
      return;
    m_canvas->state().selectedOp = op;
    m_canvas->update();
    Q_EMIT opSelected(QString::fromStdString(m_run->traceOpName(op)));
  });
}

void EngineTimeline::setRun(std::shared_ptr<const ChipRun> run) {
  m_run = run;
  m_canvas->setRun(std::move(run));
  updateStatus();
}

void EngineTimeline::setSelectedOp(const QString &name) {
  int op = m_run && m_run->trace() && !name.isEmpty() ? m_run->trace()->opIndex(name.toStdString()) : -1;
  if (op == m_canvas->state().selectedOp)
    return;
  m_canvas->state().selectedOp = op;
  m_canvas->update();
}

void EngineTimeline::setCursorCycle(int64_t cycle) {
  if (cycle == m_canvas->state().cursor)
    return;
  m_canvas->state().cursor = cycle;
  // Bring the cursor into view when it is outside.
  const auto &st = m_canvas->state();
  if (cycle >= 0 && (cycle < st.t0 || cycle >= st.t1)) {
    int64_t span = st.t1 - st.t0;
    int64_t t0 = std::clamp<int64_t>(cycle - span / 2, 0, std::max<int64_t>(0, m_canvas->total() - span));
    m_canvas->setWindow(t0, t0 + span);
  }
  m_canvas->update();
}

void EngineTimeline::updateStatus() {
  const Trace *t = m_run ? m_run->trace() : nullptr;
  if (!t) {
    m_status->setText(tr("No engine trace for this run"));
    return;
  }
  const auto &st = m_canvas->state();
  const auto &tiu = t->of(Engine::TIU), &gdma = t->of(Engine::GDMA);
  auto count = [&](const std::vector<Command> &cmds, const BusyIndex &index) {
    size_t a = index.firstEndingAfter(st.t0);
    auto it = std::lower_bound(cmds.begin() + static_cast<std::ptrdiff_t>(a), cmds.end(), st.t1,
                               [](const Command &c, int64_t v) { return c.start < v; });
    return static_cast<qint64>(it - cmds.begin()) - static_cast<qint64>(a);
  };
  qint64 shown = count(tiu, m_run->busy(Engine::TIU)) + count(gdma, m_run->busy(Engine::GDMA));
  m_status->setText(tr("showing %1–%2 µs of %3 µs · %4 of %5 commands · wheel: zoom, drag: pan, double click: zoom to")
                        .arg(st.t0 / t->frequencyMhz, 0, 'f', 2)
                        .arg(st.t1 / t->frequencyMhz, 0, 'f', 2)
                        .arg(t->totalCycles / t->frequencyMhz, 0, 'f', 2)
                        .arg(groupedNumber(shown), groupedNumber(static_cast<qint64>(t->commandCount()))));
}

} // namespace tpuc::vis
