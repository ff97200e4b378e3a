// The overview tab: a summary of the loaded project and the spread of its calibration thresholds.
#ifndef TPUC_UI_VIEWS_OVERVIEWVIEW_H
#define TPUC_UI_VIEWS_OVERVIEWVIEW_H

#include "ui/StudioContext.h"

#include <QWidget>

class QLabel;

namespace tpuc::vis {
class HistogramView;
}

namespace tpuc::ui {

class OverviewView : public QWidget {
  Q_OBJECT
public:
  explicit OverviewView(StudioContext *context, QWidget *parent = nullptr);

private:
  void refresh();
  StudioContext *m_context;
  QLabel *m_summary;
  vis::HistogramView *m_thresholds;
};

} // namespace tpuc::ui

#endif
