// The memory timeline view.
#include "visualizer/MemoryTimeline.h"

#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

namespace tpuc::vis {

using namespace tpuc::chip;

MemoryTimeline::MemoryTimeline(QWidget *parent)
    : QWidget(parent), m_ddr(new DdrChartWidget(this)), m_lmem(new LmemTimeWidget(this)), m_hint(new QLabel(this)) {
  m_hint->setText(tr("Click a buffer to select its op, a group step or a time to move the cursor in both charts; "
                     "wheel over the LMEM chart zooms, drag pans, double click fits."));
  m_hint->setWordWrap(true);
  m_hint->setForegroundRole(QPalette::PlaceholderText);
  auto *split = new QSplitter(Qt::Vertical, this);
  split->addWidget(m_ddr);
  split->addWidget(m_lmem);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto *layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_hint);
  layout->addWidget(split, 1);
  connect(m_ddr, &DdrChartWidget::opClicked, this, &MemoryTimeline::opSelected);
  connect(m_ddr, &DdrChartWidget::stepClicked, this, [this](int step) {
    if (!m_run)
      return;
    auto [start, end] = m_run->groupTime(step);
    if (start < 0)
      return;
    m_lmem->setCursorCycle(start);
    Q_EMIT cursorMoved(start);
  });
  connect(m_lmem, &LmemTimeWidget::cycleClicked, this, [this](qint64 cycle) {
    if (m_run)
      m_ddr->setCursorStep(m_run->groupAt(cycle));
    Q_EMIT cursorMoved(cycle);
  });
}

void MemoryTimeline::setRun(std::shared_ptr<const ChipRun> run) {
  m_run = run;
  m_ddr->setRun(run);
  m_lmem->setRun(std::move(run));
}

void MemoryTimeline::setCursorCycle(int64_t cycle) {
  m_lmem->setCursorCycle(cycle);
  m_ddr->setCursorStep(m_run ? m_run->groupAt(cycle) : -1);
}

void MemoryTimeline::setSelectedOp(const QString &name) {
  const Plan *p = m_run ? m_run->plan() : nullptr;
  m_ddr->setSelectedValue(p && !name.isEmpty() ? p->valueIndex(name.toStdString()) : -1);
}

} // namespace tpuc::vis
