// The accuracy view: a run's per-layer comparison (accumulated vs isolated error) as a sortable, filterable
// table and a chart along the graph, with "keep this layer in F16/BF16" and "compare with previous run".
#ifndef TPUC_UI_VIEWS_ACCURACYVIEW_H
#define TPUC_UI_VIEWS_ACCURACYVIEW_H

#include "ui/StudioContext.h"
#include "ui/views/AccuracyModel.h"
#include "ui/views/SampleAccuracy.h"

#include <QWidget>

class QChartView;
class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;
class QToolButton;

namespace tpuc::ui {
class SamplesPanel;
}

namespace tpuc::ui {

/// Shows one run's layer metrics (or a report given directly). Selecting a row publishes the op through
/// StudioContext::selectOp (graph views highlight it); an op selected elsewhere selects its row. The
/// "keep" actions add `op MODE` to the project's quantize table as one undoable edit.
class AccuracyView : public QWidget {
  Q_OBJECT
public:
  /// Shows run `runId` of the context's project (-1: nothing until setReport).
  AccuracyView(StudioContext *context, qint64 runId, QWidget *parent = nullptr);

  /// Shows a report that is not (yet) a run, e.g. a `tpuc compare --format json` file.
  void setReport(AccuracyReport report, const QString &title);
  /// Loads a deploy or compare JSON file; false with a one-line error.
  bool loadFile(const QString &path, QString *error);

  qint64 runId() const { return m_runId; }
  AccuracyModel *model() const { return m_model; }
  AccuracyFilter *filter() const { return m_filter; }
  QTableView *table() const { return m_table; }
  QChartView *chart() const { return m_chart; }
  /// Chooses a filter as the "Show:" box does (ErrorBorn also sorts worst first).
  void setFilterMode(AccuracyFilter::Mode mode);
  /// The layer of the current row, empty when none.
  QString currentLayer() const;

  /// Adds `op mode` (F16, BF16, ...) to the project's newest quantize table, or to a new table "mixed
  /// precision" when the project has none; one undo step. Returns the table id, -1 when `op` is empty.
  qint64 keepLayerInFloat(const QString &op, const QString &mode);
  /// Compares with another run of the project (-1: none): adds its accumulated cosines to the table and
  /// chart. The runs offered are the ones with layer metrics; the one before this run is the default.
  void compareWithRun(qint64 runId);
  /// The run compared with, or -1.
  qint64 comparedRun() const { return m_previousRun; }

  /// Over many test samples (issue 22): the run's compare_samples and first_divergent records, read off the
  /// UI thread when the run is shown (samplesLoaded tells when).
  const SampleRecords &sampleRecords() const { return m_records; }
  SamplesPanel *samplesPanel() const { return m_samplesPanel; }
  /// Shows `layer` on sample `sampleIndex`: sampleTensorsRequested with its files (a deploy over many
  /// samples keeps no tensors), or tensorsRequested when the run did keep that sample's tensors. False when
  /// there is no such sample.
  bool showLayerOnSample(const QString &layer, int64_t sampleIndex);
  /// showLayerOnSample on the layer's worst sample (lowest accumulated cosine there).
  bool showWorstSample(const QString &layer);

Q_SIGNALS:
  /// Show the tensors of `layer` (the Tensors button, or a double click on a row) of this run.
  void tensorsRequested(qint64 runId, const QString &layer);
  /// Show the tensors of `layer` on one sample the run did not keep tensors of: deploy the run's
  /// configuration on its `files` and open the tensors of that run.
  void sampleTensorsRequested(qint64 runId, const QString &layer, const QStringList &files);
  /// The run's many-sample records were read (sampleRecords(); their error in sampleRecords().error).
  void samplesLoaded();

private:
  void reloadRun();
  void fillRunChoices();
  void rebuildChart();
  void updateSummary();
  void selectLayer(const QString &name);
  void fitNameColumn();
  void loadSampleRecords();
  void showSampleRecords(SampleRecords records);

  StudioContext *m_context;
  qint64 m_runId;
  qint64 m_previousRun = -1;
  QString m_title;
  AccuracyReport m_previousReport;
  AccuracyModel *m_model;
  AccuracyFilter *m_filter;
  QTableView *m_table;
  QChartView *m_chart;
  QLabel *m_summary;
  QComboBox *m_mode;
  QLineEdit *m_search;
  QComboBox *m_compare;
  QToolButton *m_keep;
  QToolButton *m_tensors;
  QToolButton *m_worst;
  SamplesPanel *m_samplesPanel;
  SampleRecords m_records;
  quint64 m_recordsGeneration = 0;
  bool m_publishing = false;
};

} // namespace tpuc::ui

#endif
