// A central tab showing a calibration dataset's samples, the selected one beside its preprocessing preview.
#include "ui/views/DatasetView.h"

#include "ui/SampleImport.h"
#include "ui/models/SampleListModel.h"
#include "ui/views/PreprocessPreview.h"

#include <QListView>
#include <QSplitter>
#include <QVBoxLayout>

namespace tpuc::ui {

DatasetView::DatasetView(StudioContext *context, qint64 datasetId, QWidget *parent)
    : QWidget(parent), m_datasetId(datasetId), m_view(new QListView) {
  m_view->setModel(new SampleListModel(context, datasetId, this));
  m_view->setViewMode(QListView::IconMode);
  m_view->setResizeMode(QListView::Adjust);
  m_view->setMovement(QListView::Static);
  m_view->setSpacing(fontMetrics().height() / 2);
  m_view->setTextElideMode(Qt::ElideMiddle);
  // Thumbnails are kThumbnailSide image pixels; the grid adds room for a line of text from the font.
  const int line = fontMetrics().height();
  m_view->setIconSize(QSize(kThumbnailSide, kThumbnailSide));
  m_view->setGridSize(QSize(kThumbnailSide + line * 3, kThumbnailSide + line * 3));
  // Until the dataset view's redesign embeds it: the selected sample as the model receives it, on the right.
  auto *preview = new PreprocessPreview;
  preview->followProject(context, datasetId);
  connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, preview,
          [preview](const QModelIndex &current) {
            preview->setSample(current.isValid()
                                   ? QStringList{current.data(SampleListModel::PathRole).toString()}
                                   : QStringList{});
          });
  auto *split = new QSplitter;
  split->addWidget(m_view);
  split->addWidget(preview);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  auto *layout = new QVBoxLayout(this);
  layout->addWidget(split);
}

} // namespace tpuc::ui
