// The overview tab: a summary of the loaded project and the spread of its calibration thresholds.
#ifndef TPUC_UI_VIEWS_OVERVIEWVIEW_H
#define TPUC_UI_VIEWS_OVERVIEWVIEW_H

#include "ui/StudioContext.h"

#include <QWidget>

class QLabel;
class QPushButton;

namespace tpuc::vis {
class HistogramView;
}

namespace tpuc::ui {

class OverviewView : public QWidget {
  Q_OBJECT
public:
  explicit OverviewView(StudioContext *context, QWidget *parent = nullptr);

Q_SIGNALS:
  /// "Chat with Model" on the overview of an LLM project.
  void chatRequested();
  /// "Run Whole Pipeline" on the overview of an ONNX project.
  void pipelineRequested();

private:
  void refresh();
  StudioContext *m_context;
  QLabel *m_summary;
  QPushButton *m_chat;
  QLabel *m_nextStep;
  QPushButton *m_pipeline;
  vis::HistogramView *m_thresholds;
};

} // namespace tpuc::ui

#endif
