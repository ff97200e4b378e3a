// The project explorer panel: the project's sections as a tree; selecting or activating goes to the context.
#ifndef TPUC_UI_PANELS_PROJECTEXPLORER_H
#define TPUC_UI_PANELS_PROJECTEXPLORER_H

#include "ui/StudioContext.h"

#include <QWidget>

class QTreeView;

namespace tpuc::ui {

class ProjectTreeModel;

class ProjectExplorer : public QWidget {
  Q_OBJECT
public:
  /// Sized in characters and lines, so the first-run layout scales with the font and DPI.
  QSize sizeHint() const override;
  explicit ProjectExplorer(StudioContext *context, QWidget *parent = nullptr);
  QTreeView *view() const { return m_view; }

private:
  StudioContext *m_context;
  ProjectTreeModel *m_model;
  QTreeView *m_view;
};

} // namespace tpuc::ui

#endif
