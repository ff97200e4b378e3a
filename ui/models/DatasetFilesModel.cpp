// The files of one calibration dataset as a table (and, column 0, a thumbnail grid).
#include "ui/models/DatasetFilesModel.h"

#include "ui/Background.h"
#include "ui/SampleImport.h"
#include "ui/models/ThumbnailCache.h"

#include <QApplication>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QStyle>

#include <algorithm>

namespace tpuc::ui {

namespace {

QString joinDims(const std::vector<int64_t> &shape) {
  QStringList dims;
  for (int64_t d : shape)
    dims << QString::number(d);
  return dims.join(QChar(0x00D7));
}

qint64 elements(const std::vector<int64_t> &shape) {
  qint64 n = shape.empty() ? 0 : 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

DatasetRow rowOfEntry(const dataset::DatasetIndex &index, const dataset::FileEntry &e) {
  DatasetRow row;
  row.path = QString::fromStdString(e.path);
  row.absolute = QString::fromStdString(index.absolutePath(e.path));
  const qsizetype slash = row.path.lastIndexOf(QLatin1Char('/'));
  row.name = slash < 0 ? row.path : row.path.mid(slash + 1);
  row.folder = slash < 0 ? QString() : row.path.left(slash);
  row.size = static_cast<qint64>(e.size);
  const dataset::FileMetadata &m = e.metadata;
  row.format = QString::fromStdString(m.format);
  row.image = m.width > 0;
  if (row.image) {
    row.dimensions = QStringLiteral("%1%2%3").arg(m.width).arg(QChar(0x00D7)).arg(m.height);
    row.pixels = m.width * m.height;
    row.channels = static_cast<int>(m.channels);
  } else if (!m.shape.empty()) {
    row.dimensions = joinDims(m.shape) + QLatin1Char(' ') + QString::fromStdString(m.dtype);
    row.pixels = elements(m.shape);
  }
  // Before the scan has read a file, its format is unknown: guess images by name so the grid shows them.
  if (m.format.empty()) {
    const QString suffix = QFileInfo(row.name).suffix().toLower();
    row.image = suffix != QLatin1String("npy") && suffix != QLatin1String("npz");
  }
  row.thumbnailKey = e.contentHash.empty() ? row.absolute : QString::fromStdString(e.contentHash);
  return row;
}

DatasetRow rowOfSample(const project::Sample &sample) {
  DatasetRow row;
  row.path = row.absolute = QString::fromStdString(sample.path);
  QFileInfo info(row.absolute);
  row.name = info.fileName();
  row.folder = info.path();
  const QJsonObject meta = QJsonDocument::fromJson(QByteArray::fromStdString(sample.metadataJson)).object();
  row.size = meta.value(QStringLiteral("bytes")).toInteger();
  row.format = meta.value(QStringLiteral("format")).toString();
  const int width = meta.value(QStringLiteral("width")).toInt(),
            height = meta.value(QStringLiteral("height")).toInt();
  if (width > 0) {
    row.image = true;
    row.dimensions = QStringLiteral("%1%2%3").arg(width).arg(QChar(0x00D7)).arg(height);
    row.pixels = qint64(width) * height;
  } else if (meta.contains(QStringLiteral("shape"))) {
    std::vector<int64_t> shape;
    for (const QJsonValue &d : meta.value(QStringLiteral("shape")).toArray())
      shape.push_back(d.toInteger());
    row.dimensions = joinDims(shape) + QLatin1Char(' ') + meta.value(QStringLiteral("dtype")).toString();
    row.pixels = elements(shape);
  }
  row.storedThumbnail = QByteArray(reinterpret_cast<const char *>(sample.thumbnailPng.data()),
                                   static_cast<qsizetype>(sample.thumbnailPng.size()));
  row.thumbnailKey = row.absolute;
  return row;
}

/// A style icon that also has a thumbnail-sized square form: the grid's items all have the same size (it
/// takes the first item's), so an icon must be as tall as a thumbnail; the table picks the small forms.
QIcon squareIcon(QStyle::StandardPixmap which) {
  const QIcon standard = QApplication::style()->standardIcon(which);
  QIcon icon;
  for (int side : {16, 24, 32})
    icon.addPixmap(standard.pixmap(side));
  icon.addPixmap(squareThumbnail(standard.pixmap(kThumbnailSide / 2).toImage(), kThumbnailSide));
  return icon;
}

QString sizeText(qint64 bytes) {
  return QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat);
}

} // namespace

DatasetFilesModel::DatasetFilesModel(StudioContext *context, qint64 datasetId, ThumbnailCache *thumbnails,
                                     QObject *parent, Rows *prebuilt)
    : QAbstractTableModel(parent), m_context(context), m_datasetId(datasetId), m_thumbnails(thumbnails) {
  connect(context, &StudioContext::projectChanged, this, [this](Section section) {
    if (section == Section::Datasets)
      refresh();
  });
  connect(context, &StudioContext::projectLoaded, this, &DatasetFilesModel::refresh);
  connect(context, &StudioContext::projectClosed, this, &DatasetFilesModel::refresh);
  connect(thumbnails, &ThumbnailCache::ready, this, [this](const QString &key) {
    for (int row : m_rowsOfKey.value(key))
      Q_EMIT dataChanged(index(row, Name), index(row, Name), {Qt::DecorationRole});
  });
  if (prebuilt && prebuilt->fingerprint == fingerprint(dataset()))
    adopt(std::move(*prebuilt));
  else
    refresh();
}

const project::Dataset *DatasetFilesModel::dataset() const {
  const auto &sets = m_context->project().datasets;
  auto it = std::find_if(sets.begin(), sets.end(),
                         [this](const project::Dataset &d) { return d.id == m_datasetId; });
  return it == sets.end() ? nullptr : &*it;
}

quint64 DatasetFilesModel::fingerprint(const project::Dataset *d) {
  // FNV-1a over what the rows show (not the subsets: making one changes no row).
  quint64 h = 1469598103934665603ull;
  auto mix = [&h](const void *data, size_t size) {
    const auto *bytes = static_cast<const unsigned char *>(data);
    for (size_t i = 0; i < size; ++i)
      h = (h ^ bytes[i]) * 1099511628211ull;
  };
  auto text = [&mix](const std::string &s) { mix(s.data(), s.size() + 1); };
  auto value = [&mix](const auto &v) { mix(&v, sizeof v); };
  if (!d)
    return 0;
  if (d->index) {
    text(d->index->root);
    for (const dataset::FileEntry &e : d->index->files) {
      text(e.path);
      text(e.contentHash);
      text(e.metadata.format);
      text(e.metadata.dtype);
      value(e.size);
      value(e.metadata.width);
      value(e.metadata.height);
      value(e.metadata.channels);
      for (int64_t dim : e.metadata.shape)
        value(dim);
    }
    for (const dataset::UnreadableFile &u : d->index->unreadable) {
      text(u.path);
      text(u.reason);
    }
  }
  for (const project::Sample &sample : d->samples) {
    text(sample.path);
    text(sample.metadataJson);
    value(sample.thumbnailPng.size());
  }
  return h | 1; // never 0, the fingerprint of no dataset
}

DatasetFilesModel::Rows DatasetFilesModel::buildRows(const project::Dataset *d) {
  Rows built;
  built.fingerprint = fingerprint(d);
  if (!d)
    return built;
  std::vector<DatasetRow> &rows = built.rows;
  if (d->index) {
    rows.reserve(d->index->files.size() + d->index->unreadable.size());
    for (const dataset::FileEntry &e : d->index->files)
      rows.push_back(rowOfEntry(*d->index, e));
    for (const dataset::UnreadableFile &u : d->index->unreadable) {
      dataset::FileEntry e{u.path, 0, 0, {}, {}};
      DatasetRow row = rowOfEntry(*d->index, e);
      row.unreadable = true;
      row.image = false;
      row.format = tr("unreadable");
      row.problem = QString::fromStdString(u.reason);
      row.size = QFileInfo(row.absolute).size();
      rows.push_back(std::move(row));
    }
  }
  for (const project::Sample &s : d->samples)
    rows.push_back(rowOfSample(s));
  built.rowOf.reserve(static_cast<qsizetype>(rows.size()));
  for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
    built.rowOf.insert(rows[i].path, i);
    built.rowsOfKey[rows[i].thumbnailKey].append(i);
  }
  return built;
}

void DatasetFilesModel::refresh() {
  // Every dataset view follows every change of the datasets section: the fingerprint (a pass over the
  // entries, no allocation) skips the rebuild when this dataset's rows would not change.
  const project::Dataset *current = dataset();
  const quint64 now = fingerprint(current);
  if (now == m_fingerprint || now == m_building)
    return;
  // Thousands of rows are made off the UI thread from a copy (copying is quick, making the rows' strings is
  // not); the rows shown meanwhile are the previous ones.
  constexpr size_t kBackgroundRows = 2000;
  if (!current || current->fileCount() < kBackgroundRows) {
    m_building = 0;
    adopt(buildRows(current));
    return;
  }
  m_building = now;
  auto copy = std::make_shared<const project::Dataset>(*current);
  runInBackground(
      this, [copy] { return std::make_shared<Rows>(buildRows(copy.get())); },
      [this](const std::shared_ptr<Rows> &rows) {
        if (rows->fingerprint != m_building)
          return; // a newer build is on its way
        m_building = 0;
        if (fingerprint(dataset()) == rows->fingerprint)
          adopt(std::move(*rows));
        else
          refresh();
      });
}

void DatasetFilesModel::adopt(Rows built) {
  for (DatasetRow &row : built.rows)
    if (!row.unreadable)
      row.problem = m_problems.value(row.path);
  const bool sameFiles =
      std::equal(built.rows.begin(), built.rows.end(), m_rows.begin(), m_rows.end(),
                 [](const DatasetRow &a, const DatasetRow &b) { return a.path == b.path; });
  if (!sameFiles)
    beginResetModel();
  m_fingerprint = built.fingerprint;
  m_rows = std::move(built.rows);
  m_rowOf = std::move(built.rowOf);
  m_rowsOfKey = std::move(built.rowsOfKey);
  m_stored.clear();
  if (!sameFiles)
    endResetModel();
  else if (!m_rows.empty()) { // the same files (names and folders too): what a scan fills in, and the
                              // thumbnails, now by content hash
    const int last = static_cast<int>(m_rows.size()) - 1;
    Q_EMIT dataChanged(index(0, Format), index(last, ColumnCount - 1));
    Q_EMIT dataChanged(index(0, Name), index(last, Name), {Qt::DecorationRole, Qt::ToolTipRole});
  }
}

void DatasetFilesModel::setProblems(const QHash<QString, QString> &problems) {
  m_problems = problems;
  for (DatasetRow &row : m_rows)
    if (!row.unreadable)
      row.problem = m_problems.value(row.path);
  if (!m_rows.empty())
    Q_EMIT dataChanged(index(0, Problem), index(static_cast<int>(m_rows.size()) - 1, Problem));
}

int DatasetFilesModel::rowCount(const QModelIndex &parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int DatasetFilesModel::columnCount(const QModelIndex &parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant DatasetFilesModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return {};
  switch (section) {
  case Name:
    return tr("Name");
  case Folder:
    return tr("Folder");
  case Format:
    return tr("Format");
  case Size:
    return tr("Size");
  case Dimensions:
    return tr("Dimensions");
  case Channels:
    return tr("Channels");
  case Problem:
    return tr("Problem");
  default:
    return {};
  }
}

QVariant DatasetFilesModel::data(const QModelIndex &index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const DatasetRow &r = m_rows[index.row()];
  switch (role) {
  case Qt::DisplayRole:
    switch (index.column()) {
    case Name:
      return r.name;
    case Folder:
      return r.folder;
    case Format:
      return r.format;
    case Size:
      return r.size > 0 ? sizeText(r.size) : QString();
    case Dimensions:
      return r.dimensions;
    case Channels:
      return r.channels > 0 ? QVariant(r.channels) : QVariant();
    case Problem:
      return r.problem;
    default:
      return {};
    }
  case SortRole:
    switch (index.column()) {
    case Size:
      return r.size;
    case Dimensions:
      return r.pixels;
    case Channels:
      return r.channels;
    case Name:
      return r.name.toLower();
    default:
      return data(index, Qt::DisplayRole).toString().toLower();
    }
  case Qt::ToolTipRole: {
    QString tip = r.absolute;
    if (!r.dimensions.isEmpty())
      tip += QLatin1Char('\n') + r.format + QStringLiteral(" · ") + r.dimensions;
    if (!r.problem.isEmpty())
      tip += QLatin1Char('\n') + r.problem;
    return tip;
  }
  case Qt::TextAlignmentRole:
    if (index.column() == Size || index.column() == Channels)
      return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
  case Qt::DecorationRole: {
    if (index.column() == Problem && !r.problem.isEmpty())
      return QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);
    if (index.column() != Name)
      return {};
    if (r.unreadable) {
      static const QIcon warning = squareIcon(QStyle::SP_MessageBoxWarning);
      return warning;
    }
    if (!r.storedThumbnail.isEmpty()) {
      auto it = m_stored.find(r.thumbnailKey);
      if (it == m_stored.end()) {
        QImage stored;
        stored.loadFromData(r.storedThumbnail, "PNG");
        it = m_stored.insert(r.thumbnailKey, QIcon(squareThumbnail(stored, kThumbnailSide)));
      }
      return *it;
    }
    if (!r.image || m_thumbnails->failed(r.thumbnailKey)) {
      static const QIcon file = squareIcon(QStyle::SP_FileIcon);
      return file;
    }
    QPixmap thumb = m_thumbnails->get(r.thumbnailKey, r.absolute);
    // Until it is made, a blank of the same size: the grid's items keep one size (uniform item sizes take
    // the first item's), so the names stay where they will be.
    // An icon, not a pixmap: the views scale it to their icon size (a line in the table, the grid's square).
    return QIcon(thumb.isNull() ? m_thumbnails->placeholder() : thumb);
  }
  case PathRole:
    return r.path;
  case AbsolutePathRole:
    return r.absolute;
  case UnreadableRole:
    return r.unreadable;
  case ProblemRole:
    return !r.problem.isEmpty();
  case SearchRole:
    return QStringList{r.path, r.format, r.dimensions, r.problem}.join(QLatin1Char(' '));
  default:
    return {};
  }
}

DatasetFilesProxy::DatasetFilesProxy(QObject *parent) : QSortFilterProxyModel(parent) {
  setSortRole(DatasetFilesModel::SortRole);
  setSortCaseSensitivity(Qt::CaseInsensitive);
  setSortLocaleAware(false);
}

void DatasetFilesProxy::setSearch(const QString &text) {
  m_words = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
  invalidateFilter();
}

void DatasetFilesProxy::setShow(Show show, const QStringList &paths) {
  m_show = show;
  m_paths = QSet<QString>(paths.begin(), paths.end());
  invalidateFilter();
}

bool DatasetFilesProxy::filterAcceptsRow(int row, const QModelIndex &parent) const {
  const QModelIndex index = sourceModel()->index(row, 0, parent);
  switch (m_show) {
  case Show::All:
    break;
  case Show::Paths:
    if (!m_paths.contains(index.data(DatasetFilesModel::PathRole).toString()))
      return false;
    break;
  case Show::Unreadable:
    if (!index.data(DatasetFilesModel::UnreadableRole).toBool())
      return false;
    break;
  case Show::Problems:
    if (!index.data(DatasetFilesModel::ProblemRole).toBool())
      return false;
    break;
  }
  if (m_words.isEmpty())
    return true;
  const QString text = index.data(DatasetFilesModel::SearchRole).toString();
  return std::all_of(m_words.begin(), m_words.end(),
                     [&](const QString &w) { return text.contains(w, Qt::CaseInsensitive); });
}

} // namespace tpuc::ui
