// Small widgets around the chip painters: each paints its painter through a PainterCanvas with the widget's
// font and palette, shows the painter's description of what is under the mouse as a tooltip and reports
// clicks as domain signals (group, op name, step, cycle).
#ifndef TPUC_VISUALIZER_CHIPWIDGETS_H
#define TPUC_VISUALIZER_CHIPWIDGETS_H

#include "visualizer/GroupPainters.h"
#include "visualizer/MemoryPainters.h"

#include <QWidget>

#include <memory>

namespace tpuc::vis {

/// Base: paint, tooltip and hover plumbing.
class ChipChartWidget : public QWidget {
  Q_OBJECT
public:
  explicit ChipChartWidget(QWidget *parent = nullptr);
  /// The area the painter draws into (the widget minus a small margin).
  QRectF chartArea() const;

protected:
  void paintEvent(QPaintEvent *event) override;
  bool event(QEvent *event) override;
  virtual void paintChart(Canvas &c, const QRectF &area, const ChipStyle &s) = 0;
  virtual QString tooltipAt(QPointF p) const = 0;
};

/// All groups as a strip; a click picks one.
class GroupStripWidget : public ChipChartWidget {
  Q_OBJECT
public:
  explicit GroupStripWidget(QWidget *parent = nullptr);
  void setRun(std::shared_ptr<const chip::ChipRun> run);
  void setSelectedGroup(int group);
  int selectedGroup() const { return m_selected; }
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

Q_SIGNALS:
  void groupClicked(int group);

protected:
  void paintChart(Canvas &c, const QRectF &area, const ChipStyle &s) override;
  QString tooltipAt(QPointF p) const override;
  void mousePressEvent(QMouseEvent *event) override;

private:
  std::shared_ptr<const chip::ChipRun> m_run;
  GroupStrip m_strip;
  int m_selected = -1;
};

/// A group's LMEM chart; hovering lightens a buffer, clicking selects its value and op.
class LmemChartWidget : public ChipChartWidget {
  Q_OBJECT
public:
  explicit LmemChartWidget(QWidget *parent = nullptr);
  void setGroup(std::shared_ptr<const chip::ChipRun> run, int group);
  void setSelectedValue(int value);
  int selectedValue() const { return m_selectedValue; }
  /// Zooms the address axis to the peak (see LmemChart::setFitToPeak).
  void setFitToPeak(bool fit);
  const LmemChart &chart() const { return m_chart; }
  /// The rect under a widget position (-1: none).
  int rectAt(QPointF p) const;
  QSize sizeHint() const override { return {700, 320}; }

Q_SIGNALS:
  /// A buffer was clicked: its rect index, value and the op it belongs to (tensor name, may be empty).
  void bufferClicked(int rect, int value, const QString &op);

protected:
  void paintChart(Canvas &c, const QRectF &area, const ChipStyle &s) override;
  QString tooltipAt(QPointF p) const override;
  void mouseMoveEvent(QMouseEvent *event) override;
  void mousePressEvent(QMouseEvent *event) override;
  void leaveEvent(QEvent *event) override;

private:
  std::shared_ptr<const chip::ChipRun> m_run;
  LmemChart m_chart;
  int m_selectedValue = -1, m_hovered = -1;
};

/// The slices of a group over a value's shape.
class SliceShapeWidget : public ChipChartWidget {
  Q_OBJECT
public:
  explicit SliceShapeWidget(QWidget *parent = nullptr);
  void setValue(std::shared_ptr<const chip::ChipRun> run, int group, int value, int selectedSlice = -1);
  int value() const { return m_shape.value(); }
  QSize sizeHint() const override { return {420, 220}; }

protected:
  void paintChart(Canvas &c, const QRectF &area, const ChipStyle &s) override;
  QString tooltipAt(QPointF) const override { return {}; }

private:
  std::shared_ptr<const chip::ChipRun> m_run;
  SliceShape m_shape;
  int m_slice = -1;
};

/// DDR buffers over group steps; clicks select an op and a step (the cursor).
class DdrChartWidget : public ChipChartWidget {
  Q_OBJECT
public:
  explicit DdrChartWidget(QWidget *parent = nullptr);
  void setRun(std::shared_ptr<const chip::ChipRun> run);
  void setCursorStep(int step);
  int cursorStep() const { return m_cursor; }
  void setSelectedValue(int value);
  const DdrChart &chart() const { return m_chart; }
  QSize sizeHint() const override { return {800, 320}; }

Q_SIGNALS:
  void stepClicked(int step);
  void opClicked(const QString &op);

protected:
  void paintChart(Canvas &c, const QRectF &area, const ChipStyle &s) override;
  QString tooltipAt(QPointF p) const override;
  void mousePressEvent(QMouseEvent *event) override;

private:
  std::shared_ptr<const chip::ChipRun> m_run;
  DdrChart m_chart;
  int m_cursor = -1, m_selectedValue = -1;
};

/// LMEM planned vs simulated over cycles; wheel zooms around the mouse, drag pans, double click fits.
class LmemTimeWidget : public ChipChartWidget {
  Q_OBJECT
public:
  explicit LmemTimeWidget(QWidget *parent = nullptr);
  void setRun(std::shared_ptr<const chip::ChipRun> run);
  void setWindow(int64_t t0, int64_t t1);
  std::pair<int64_t, int64_t> window() const { return {m_t0, m_t1}; }
  void setCursorCycle(int64_t cycle);
  int64_t cursorCycle() const { return m_cursor; }
  QSize sizeHint() const override { return {800, 260}; }

Q_SIGNALS:
  void cycleClicked(qint64 cycle);
  void windowChanged(qint64 t0, qint64 t1);

protected:
  void paintChart(Canvas &c, const QRectF &area, const ChipStyle &s) override;
  QString tooltipAt(QPointF p) const override;
  void mousePressEvent(QMouseEvent *event) override;
  void mouseMoveEvent(QMouseEvent *event) override;
  void mouseReleaseEvent(QMouseEvent *event) override;
  void mouseDoubleClickEvent(QMouseEvent *event) override;
  void wheelEvent(QWheelEvent *event) override;

private:
  int64_t total() const;
  std::shared_ptr<const chip::ChipRun> m_run;
  LmemTimeChart m_chart;
  int64_t m_t0 = 0, m_t1 = 0, m_cursor = -1;
  double m_dragX = -1;
  int64_t m_dragT0 = 0;
  bool m_dragged = false;
};

/// Zooms [t0, t1) by `factor` (< 1 zooms in) around cycle `anchor`, kept inside [0, total] with at least
/// 20 cycles visible. Shared by the timeline and the LMEM chart.
std::pair<int64_t, int64_t> zoomWindow(int64_t t0, int64_t t1, int64_t anchor, double factor, int64_t total);

} // namespace tpuc::vis

#endif
