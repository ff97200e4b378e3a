// The samples of one calibration dataset as a list with thumbnails.
#ifndef TPUC_UI_MODELS_SAMPLELISTMODEL_H
#define TPUC_UI_MODELS_SAMPLELISTMODEL_H

#include "ui/StudioContext.h"

#include <QAbstractListModel>
#include <QHash>
#include <QPixmap>

namespace tpuc::ui {

/// Rows are the dataset's samples: file name, thumbnail (decoded once and cached), metadata as tooltip.
/// Follows the context: a change of the datasets section resets it.
class SampleListModel : public QAbstractListModel {
  Q_OBJECT
public:
  enum Role { PathRole = Qt::UserRole + 1, MetadataRole };
  SampleListModel(StudioContext *context, qint64 datasetId, QObject *parent = nullptr);

  int rowCount(const QModelIndex &parent = {}) const override;
  QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

private:
  const project::Dataset *dataset() const;
  StudioContext *m_context;
  qint64 m_datasetId;
  mutable QHash<int, QPixmap> m_thumbnails; ///< decoded thumbnails by row, cleared on reset
};

} // namespace tpuc::ui

#endif
