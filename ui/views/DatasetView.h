// A central tab showing a calibration dataset's samples as a grid of thumbnails.
#ifndef TPUC_UI_VIEWS_DATASETVIEW_H
#define TPUC_UI_VIEWS_DATASETVIEW_H

#include "ui/StudioContext.h"

#include <QWidget>

class QListView;

namespace tpuc::ui {

class DatasetView : public QWidget {
  Q_OBJECT
public:
  DatasetView(StudioContext *context, qint64 datasetId, QWidget *parent = nullptr);
  Selection dataset() const { return {Section::Datasets, m_datasetId}; }
  QListView *view() const { return m_view; }

private:
  qint64 m_datasetId;
  QListView *m_view;
};

} // namespace tpuc::ui

#endif
