// The quality report of a calibration dataset: duplicates, outliers, channel swaps and unreadable files
// (each sample one click away), with the resolution, aspect and per-folder histograms.
#ifndef TPUC_UI_VIEWS_DATASETQUALITYVIEW_H
#define TPUC_UI_VIEWS_DATASETQUALITYVIEW_H

#include "tpuc/Dataset/Quality.h"

#include <QHash>
#include <QWidget>

class QChartView;
class QLabel;
class QTreeWidget;

namespace tpuc::ui {

class DatasetQualityView : public QWidget {
  Q_OBJECT
public:
  explicit DatasetQualityView(QWidget *parent = nullptr);

  /// Shows a report (computed off the UI thread by the dataset view).
  void setReport(const dataset::QualityReport &report);
  const dataset::QualityReport &report() const { return m_report; }
  /// What the report says about each file, by path: the dataset view's Problem column.
  QHash<QString, QString> problems() const;
  QTreeWidget *findings() const { return m_tree; }
  /// One line: "3 exact duplicates, 1 near-duplicate group, 2 outliers, 1 channel swap, 1 unreadable".
  QString summary() const;

Q_SIGNALS:
  /// A finding's file was clicked: its path relative to the dataset's root.
  void fileActivated(const QString &path);

private:
  dataset::QualityReport m_report;
  QLabel *m_summary;
  QTreeWidget *m_tree;
  QChartView *m_resolutions, *m_aspects, *m_folders;
};

} // namespace tpuc::ui

#endif
