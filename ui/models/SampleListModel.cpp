// The samples of one calibration dataset as a list with thumbnails.
#include "ui/models/SampleListModel.h"

#include "ui/SampleImport.h"

#include <QApplication>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QStyle>

#include <algorithm>

namespace tpuc::ui {

SampleListModel::SampleListModel(StudioContext *context, qint64 datasetId, QObject *parent)
    : QAbstractListModel(parent), m_context(context), m_datasetId(datasetId) {
  auto reset = [this] {
    beginResetModel();
    m_thumbnails.clear();
    endResetModel();
  };
  connect(context, &StudioContext::projectChanged, this, [reset](Section section) {
    if (section == Section::Datasets)
      reset();
  });
  connect(context, &StudioContext::projectLoaded, this, reset);
  connect(context, &StudioContext::projectClosed, this, reset);
}

const project::Dataset *SampleListModel::dataset() const {
  const auto &sets = m_context->project().datasets;
  auto it = std::find_if(sets.begin(), sets.end(), [this](const project::Dataset &d) { return d.id == m_datasetId; });
  return it == sets.end() ? nullptr : &*it;
}

int SampleListModel::rowCount(const QModelIndex &parent) const {
  const project::Dataset *d = dataset();
  return parent.isValid() || !d ? 0 : static_cast<int>(d->samples.size());
}

QVariant SampleListModel::data(const QModelIndex &index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const project::Sample &sample = dataset()->samples[index.row()];
  switch (role) {
  case Qt::DisplayRole: return QFileInfo(QString::fromStdString(sample.path)).fileName();
  case Qt::ToolTipRole:
    return QStringLiteral("%1\n%2").arg(QString::fromStdString(sample.path), QString::fromStdString(sample.metadataJson));
  case PathRole: return QString::fromStdString(sample.path);
  case MetadataRole: return QString::fromStdString(sample.metadataJson);
  case Qt::DecorationRole: {
    if (sample.thumbnailPng.empty()) // tensors: the style's file icon
      return QApplication::style()->standardIcon(QStyle::SP_FileIcon);
    auto it = m_thumbnails.find(index.row());
    if (it == m_thumbnails.end()) {
      QImage thumb;
      thumb.loadFromData(sample.thumbnailPng.data(), static_cast<int>(sample.thumbnailPng.size()), "PNG");
      // Centre it on a transparent square so the names below line up whatever the aspect ratio.
      QImage square(kThumbnailSide, kThumbnailSide, QImage::Format_ARGB32_Premultiplied);
      square.fill(Qt::transparent);
      QPainter painter(&square);
      painter.drawImage((kThumbnailSide - thumb.width()) / 2, (kThumbnailSide - thumb.height()) / 2, thumb);
      painter.end();
      it = m_thumbnails.insert(index.row(), QPixmap::fromImage(square));
    }
    return *it;
  }
  default: return {};
  }
}

} // namespace tpuc::ui
