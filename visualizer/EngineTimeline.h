// The engine timeline view: the TimelinePainter's Gantt with wheel zoom around the mouse, drag pan, fit,
// hover tooltips (a command's arguments and dependency), click to select an op, double click to zoom to a
// command or group, and a critical-path switch.
#ifndef TPUC_VISUALIZER_ENGINETIMELINE_H
#define TPUC_VISUALIZER_ENGINETIMELINE_H

#include "visualizer/ChipWidgets.h"
#include "visualizer/TimelinePainter.h"

class QCheckBox;
class QLabel;

namespace tpuc::vis {

/// The Gantt canvas (public for tests and the benchmark).
class TimelineCanvas : public ChipChartWidget {
  Q_OBJECT
public:
  explicit TimelineCanvas(QWidget *parent = nullptr);
  void setRun(std::shared_ptr<const chip::ChipRun> run);
  TimelineState &state() { return m_state; }
  const TimelineState &state() const { return m_state; }
  const TimelinePainter &painter() const { return m_painter; }
  void setWindow(int64_t t0, int64_t t1);
  void zoom(double factor, int64_t anchor);
  int64_t total() const;
  TimelineHit hitAt(QPointF p) const { return m_painter.hitTest(font(), chartArea(), m_state, p); }
  /// Milliseconds the last paint took (the benchmark reads it).
  double lastPaintMs() const { return m_lastPaintMs; }
  QSize sizeHint() const override { return {1000, 420}; }

Q_SIGNALS:
  void windowChanged(qint64 t0, qint64 t1);
  void hitClicked(const tpuc::vis::TimelineHit &hit);
  void cursorMoved(qint64 cycle);

protected:
  void paintChart(Canvas &c, const QRectF &area, const ChipStyle &s) override;
  void paintEvent(QPaintEvent *event) override;
  QString tooltipAt(QPointF p) const override;
  void mousePressEvent(QMouseEvent *event) override;
  void mouseMoveEvent(QMouseEvent *event) override;
  void mouseReleaseEvent(QMouseEvent *event) override;
  void mouseDoubleClickEvent(QMouseEvent *event) override;
  void wheelEvent(QWheelEvent *event) override;
  void keyPressEvent(QKeyEvent *event) override;
  void leaveEvent(QEvent *event) override;

private:
  std::shared_ptr<const chip::ChipRun> m_run;
  TimelinePainter m_painter;
  TimelineState m_state;
  double m_dragX = -1;
  int64_t m_dragT0 = 0;
  bool m_dragged = false;
  double m_lastPaintMs = 0;
};

class EngineTimeline : public QWidget {
  Q_OBJECT
public:
  explicit EngineTimeline(QWidget *parent = nullptr);
  void setRun(std::shared_ptr<const chip::ChipRun> run);
  /// Highlights the commands of an op (tensor name; empty clears) without emitting opSelected.
  void setSelectedOp(const QString &name);
  void setCursorCycle(int64_t cycle);
  void setWindow(int64_t t0, int64_t t1) { m_canvas->setWindow(t0, t1); }
  void fit() { m_canvas->setWindow(0, m_canvas->total()); }
  TimelineCanvas *canvas() const { return m_canvas; }

Q_SIGNALS:
  /// The user clicked a command, op run or group: its op (tensor name).
  void opSelected(const QString &name);
  /// The user put the cursor at a cycle (a click on empty timeline).
  void cursorMoved(qint64 cycle);

private:
  void updateStatus();
  std::shared_ptr<const chip::ChipRun> m_run;
  TimelineCanvas *m_canvas;
  QCheckBox *m_critical;
  QLabel *m_status;
};

} // namespace tpuc::vis

#endif
