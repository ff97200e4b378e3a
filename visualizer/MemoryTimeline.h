// The memory timeline view: DDR buffers over the plan's group steps (with the occupancy curve, its lower
// bound and the packing efficiency) above LMEM over simulated time (planned vs simulated, divergences
// flagged). A time picked in one moves the cursor in the other.
#ifndef TPUC_VISUALIZER_MEMORYTIMELINE_H
#define TPUC_VISUALIZER_MEMORYTIMELINE_H

#include "visualizer/ChipWidgets.h"

#include <QWidget>

class QLabel;

namespace tpuc::vis {

class MemoryTimeline : public QWidget {
  Q_OBJECT
public:
  explicit MemoryTimeline(QWidget *parent = nullptr);
  void setRun(std::shared_ptr<const chip::ChipRun> run);
  /// Moves both cursors to `cycle` (the DDR chart shows the group running then) without emitting.
  void setCursorCycle(int64_t cycle);
  /// Outlines the buffers of the op's tensor (empty clears).
  void setSelectedOp(const QString &name);
  DdrChartWidget *ddrChart() const { return m_ddr; }
  LmemTimeWidget *lmemChart() const { return m_lmem; }

Q_SIGNALS:
  void cursorMoved(qint64 cycle);
  void opSelected(const QString &name);

private:
  std::shared_ptr<const chip::ChipRun> m_run;
  DdrChartWidget *m_ddr;
  LmemTimeWidget *m_lmem;
  QLabel *m_hint;
};

} // namespace tpuc::vis

#endif
