// The accuracy view's lower panel for a run over many test samples (issue 22): the samples, sortable by
// output cosine, and the first divergent layers with their gain in float and the report's summary line.
#ifndef TPUC_UI_VIEWS_SAMPLESPANEL_H
#define TPUC_UI_VIEWS_SAMPLESPANEL_H

#include "ui/views/SampleAccuracy.h"

#include <QTabWidget>

class QLabel;
class QTableView;

namespace tpuc::ui {

/// Two tabs over a run's SampleRecords: "Samples" and "First divergent layers". Emits which candidate
/// was selected (its op, for the graph) and which sample was activated (double click, Enter).
class SamplesPanel : public QTabWidget {
  Q_OBJECT
public:
  explicit SamplesPanel(QWidget *parent = nullptr);

  /// Shows `records` (a tab without its record is removed); false when neither record is there.
  bool setRecords(const SampleRecords &records);

  SamplesModel *samplesModel() const { return m_samples; }
  DivergentModel *divergentModel() const { return m_divergent; }
  QTableView *samplesTable() const { return m_samplesTable; }
  QTableView *divergentTable() const { return m_divergentTable; }
  /// The divergent report's summary line as shown.
  QString divergentSummary() const;
  /// Shows the divergent tab and selects the candidate of rank `row` (0: the first).
  void selectCandidate(int row);
  /// The sample index of the samples table's current row, -1 when none.
  int64_t currentSample() const;

Q_SIGNALS:
  void candidateSelected(const QString &layer);
  void sampleActivated(int64_t sampleIndex);

private:
  SamplesModel *m_samples;
  DivergentModel *m_divergent;
  NumericSortProxy *m_samplesProxy, *m_divergentProxy;
  QTableView *m_samplesTable, *m_divergentTable;
  QWidget *m_samplesPage, *m_divergentPage;
  QLabel *m_samplesNote, *m_summary;
};

} // namespace tpuc::ui

#endif
