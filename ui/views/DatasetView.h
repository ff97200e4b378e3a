// A central tab for one calibration dataset: its files as a thumbnail grid or a table, the selected
// sample's preview, the named subsets, and the quality report.
#ifndef TPUC_UI_VIEWS_DATASETVIEW_H
#define TPUC_UI_VIEWS_DATASETVIEW_H

#include "tpuc/Dataset/Quality.h"
#include "ui/StudioContext.h"
#include "ui/models/DatasetFilesModel.h"

#include <QWidget>

#include <atomic>
#include <memory>

class QAbstractItemView;
class QComboBox;
class QLabel;
class QLineEdit;
class QListView;
class QPushButton;
class QStackedWidget;
class QTabWidget;
class QTableView;
class QTimer;
class QToolButton;

namespace tpuc::ui {

class DatasetFilesProxy;
class DatasetQualityView;
class PreprocessPreview;
class ThumbnailCache;

/// What a folder's listing prepares off the UI thread for the view that opens on it: the rows and a copy of
/// the index (the first scan's previous index), so that 100,000 files are not copied on the UI thread.
struct PreparedDataset {
  DatasetFilesModel::Rows rows;
  std::shared_ptr<const dataset::DatasetIndex> snapshot;
};

/// The folder the studio keeps dataset caches in (metadata by content hash, thumbnails): beside the project
/// file's other regenerable artifacts, or in the user's cache folder for an untitled project.
QString datasetCacheDir(const StudioContext *context);

class DatasetView : public QWidget {
  Q_OBJECT
public:
  /// `prepared`: what the folder's listing made off the UI thread (taken when it still matches the dataset).
  DatasetView(StudioContext *context, qint64 datasetId, QWidget *parent = nullptr,
              PreparedDataset *prepared = nullptr);
  ~DatasetView() override;
  Selection dataset() const { return {Section::Datasets, m_datasetId}; }

  /// The thumbnail grid and the table (both over the same sorted and filtered rows).
  QListView *view() const { return m_grid; }
  QTableView *table() const { return m_table; }
  QAbstractItemView *currentView() const;
  DatasetFilesModel *filesModel() const { return m_model; }
  DatasetFilesProxy *proxy() const { return m_proxy; }
  DatasetQualityView *qualityView() const { return m_quality; }
  ThumbnailCache *thumbnails() const { return m_thumbnails; }

  /// Grid (true) or table.
  void showGrid(bool grid);
  void setSearch(const QString &text);
  /// Shows the files of a subset, "" for all files.
  void showSubset(const QString &name);
  QString shownSubset() const;
  /// Selects a file by its path (relative to the root) in the files tab; false when it is not shown.
  bool selectFile(const QString &path);
  /// The selected files' paths, in view order.
  QStringList selectedPaths() const;

  /// Rescans the dataset's folder (the index takes what changed); a scan already running is kept.
  void rescan();
  bool scanning() const { return m_scanCancel != nullptr; }
  /// No scan, quality report or subset is being made or waiting to start.
  bool idle() const;
  /// The last scan's changes as shown to the user ("" when none or on the first scan).
  QString changesText() const;

  /// Writes the readable files shown (all files or the subset, filtered, in view order) as a TPU-MLIR data
  /// list; false after logging the error.
  bool writeDataList(const QString &file);

  /// Makes a subset (in the background for "diverse" on large datasets) and shows it; `done` gets an error
  /// message or "".
  void makeSubset(const QString &name, const QString &method, int count, quint64 seed,
                  const QStringList &paths);

Q_SIGNALS:
  /// Calibrate on this dataset, or on one of its subsets.
  void calibrateRequested(qint64 datasetId, const QString &subset, const QString &method);
  void scanFinished(bool ok);
  void qualityReady();
  void subsetMade(const QString &error);

private:
  void buildToolbar(QWidget *bar);
  void updateHeader();
  void updateSubsetChoices();
  void updateSelection();
  void startScan();
  void showQuality(const dataset::QualityReport &report);
  void newSubsetDialog();
  void exportDataList();
  const project::Dataset *datasetData() const;

  StudioContext *m_context;
  qint64 m_datasetId;
  ThumbnailCache *m_thumbnails;
  DatasetFilesModel *m_model;
  DatasetFilesProxy *m_proxy;
  QLabel *m_header;
  QLabel *m_changes;
  QPushButton *m_cancelScan;
  QLineEdit *m_search;
  QComboBox *m_show;
  QToolButton *m_gridButton, *m_tableButton;
  QToolButton *m_deleteSubset;
  QTabWidget *m_tabs;
  QStackedWidget *m_stack;
  QListView *m_grid;
  QTableView *m_table;
  PreprocessPreview *m_preview = nullptr;
  QLabel *m_sampleLabel;
  DatasetQualityView *m_quality;
  QTimer *m_scanTimer;
  std::shared_ptr<std::atomic<bool>> m_scanCancel;
  std::shared_ptr<std::atomic<size_t>> m_scanDone, m_scanTotal;
  QString m_changesText;
  /// A copy of the last scan's index, made off the UI thread, and the fingerprint of the dataset it matches.
  std::shared_ptr<const dataset::DatasetIndex> m_snapshot;
  quint64 m_snapshotFingerprint = 0;
  int m_busy = 0; ///< background tasks started or scheduled and not finished
};

} // namespace tpuc::ui

#endif
