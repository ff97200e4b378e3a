// The mixed-precision search as a curve (issue 22, item 4): every greedy step of search_qtable (the INT8
// model, then one more op in float each) as output cosine against simulated latency, the steps as a table,
// and "Use this table" storing the ops up to a chosen step as the configuration's quantize table.
#ifndef TPUC_UI_VIEWS_SEARCHQTABLEVIEW_H
#define TPUC_UI_VIEWS_SEARCHQTABLEVIEW_H

#include "tpuc/Driver/SearchRecord.h"
#include "ui/StudioContext.h"

#include <QWidget>

class QChartView;
class QLabel;
class QPushButton;
class QTableWidget;

namespace tpuc::ui {

class SearchQtableView : public QWidget {
  Q_OBJECT
public:
  /// Reads `recordPath` (a tpuc.search_qtable record) off the UI thread; `configId` is the configuration
  /// "Use this table" sets.
  SearchQtableView(StudioContext *context, const QString &recordPath, qint64 configId,
                   QWidget *parent = nullptr);

  QString recordPath() const { return m_path; }
  bool isLoaded() const { return m_loaded; }
  QString error() const { return m_error; }
  const driver::SearchQtableRecord &record() const { return m_record; }
  /// The step "Use this table" stores (its ops and every earlier step's); the last step by default.
  int chosenStep() const { return m_chosen; }
  void chooseStep(int step);
  /// Stores the float ops of steps 1..chosenStep() as a new quantize table of the configuration (one undo
  /// step); returns the table's id, or -1 (nothing to store, or the configuration is gone).
  qint64 useTable();
  QChartView *chart() const { return m_chart; }
  QTableWidget *steps() const { return m_steps; }
  QLabel *summary() const { return m_summary; }

Q_SIGNALS:
  void loaded(const QString &error);

private:
  void show(const driver::SearchQtableRecord &record);
  void rebuildChart();

  StudioContext *m_context;
  QString m_path;
  qint64 m_configId;
  driver::SearchQtableRecord m_record;
  bool m_loaded = false;
  QString m_error;
  int m_chosen = 0;
  QLabel *m_summary;
  QChartView *m_chart;
  QTableWidget *m_steps;
  QPushButton *m_use;
};

} // namespace tpuc::ui

#endif
