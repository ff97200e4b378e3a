// The files of one calibration dataset as a table (and, column 0, a thumbnail grid).
#ifndef TPUC_UI_MODELS_DATASETFILESMODEL_H
#define TPUC_UI_MODELS_DATASETFILESMODEL_H

#include "ui/StudioContext.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QIcon>
#include <QSortFilterProxyModel>
#include <QStringList>

#include <memory>

namespace tpuc::ui {

class ThumbnailCache;

/// One row: a readable sample, or a file the scan could not read (with the reason).
struct DatasetRow {
  QString path;     ///< relative to the dataset's root (folder datasets) or absolute (sample lists)
  QString absolute; ///< on disk
  QString name, folder, format;
  QString dimensions; ///< "640×480" for images, "1×3×224×224 <f4" for tensors
  qint64 size = 0;
  qint64 pixels = 0; ///< width × height, or the element count: what the Dimensions column sorts by
  int channels = 0;
  QString thumbnailKey;       ///< the content hash, else the absolute path
  QByteArray storedThumbnail; ///< PNG kept in the project (sample lists), else empty
  bool image = false;
  bool unreadable = false;
  QString problem; ///< why it is unreadable, or what the quality report says about it
};

/// Rows are a dataset's files: the index of a folder dataset (files, then the unreadable ones), or the
/// samples of a list dataset. Columns: name (with the thumbnail), folder, format, size, dimensions,
/// channels, problem. Follows the context: a change of the datasets section rebuilds the rows (a reset
/// only when the files differ, so scrolling and selection survive a scan filling in metadata).
class DatasetFilesModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { Name, Folder, Format, Size, Dimensions, Channels, Problem, ColumnCount };
  enum Role {
    PathRole = Qt::UserRole + 1, ///< DatasetRow::path
    AbsolutePathRole,
    SortRole,   ///< numbers for the numeric columns
    SearchRole, ///< every column's text, for the filter
    UnreadableRole,
    ProblemRole, ///< true when the row has a problem
  };
  struct Rows;
  /// `prebuilt`: rows made off the UI thread for the dataset as it is now (a folder just listed); taken when
  /// its fingerprint matches, else the rows are built as usual.
  DatasetFilesModel(StudioContext *context, qint64 datasetId, ThumbnailCache *thumbnails,
                    QObject *parent = nullptr, Rows *prebuilt = nullptr);

  int rowCount(const QModelIndex &parent = {}) const override;
  int columnCount(const QModelIndex &parent = {}) const override;
  QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  const DatasetRow &row(int i) const { return m_rows[i]; }
  /// The row of a path (DatasetRow::path), or -1.
  int rowOf(const QString &path) const { return m_rowOf.value(path, -1); }
  /// Problems found by the quality report, by path (shown in the Problem column beside unreadable files).
  void setProblems(const QHash<QString, QString> &problems);
  /// Rebuilds the rows from the project when this dataset's changed (in the background for large ones).
  void refresh();
  /// The fingerprint of the dataset the rows shown were made from (0 before any).
  quint64 shownFingerprint() const { return m_fingerprint; }
  /// Rows are being made in the background.
  bool building() const { return m_building != 0; }

  /// The rows of a dataset, made on any thread (a scan builds them off the UI thread), and adopted by the
  /// model on the UI thread; refresh() then finds them current by their fingerprint.
  struct Rows {
    std::vector<DatasetRow> rows;
    QHash<QString, int> rowOf;
    QHash<QString, QList<int>> rowsOfKey;
    quint64 fingerprint = 0;
  };
  static Rows buildRows(const project::Dataset *dataset);
  /// A hash of what the rows show (files, metadata, unreadable files, samples; not subsets); 0 for none.
  static quint64 fingerprint(const project::Dataset *dataset);
  void adopt(Rows rows);

private:
  const project::Dataset *dataset() const;
  StudioContext *m_context;
  qint64 m_datasetId;
  ThumbnailCache *m_thumbnails;
  quint64 m_fingerprint = 0; ///< of the dataset the rows were built from
  quint64 m_building = 0;    ///< of the dataset whose rows are being made in the background, else 0
  std::vector<DatasetRow> m_rows;
  QHash<QString, int> m_rowOf;
  QHash<QString, QList<int>> m_rowsOfKey; ///< thumbnail key -> rows
  QHash<QString, QString> m_problems;
  mutable QHash<QString, QIcon> m_stored; ///< thumbnails kept in the project, decoded once
};

/// Sorts by DatasetFilesModel::SortRole and filters on the search text (every column, case-insensitive, words
/// all present) and on a set of paths (a subset), or on unreadable / problem rows only.
class DatasetFilesProxy : public QSortFilterProxyModel {
  Q_OBJECT
public:
  enum class Show { All, Paths, Unreadable, Problems };
  explicit DatasetFilesProxy(QObject *parent = nullptr);
  void setSearch(const QString &text);
  void setShow(Show show, const QStringList &paths = {});

protected:
  bool filterAcceptsRow(int row, const QModelIndex &parent) const override;

private:
  QStringList m_words;
  Show m_show = Show::All;
  QSet<QString> m_paths;
};

} // namespace tpuc::ui

#endif
