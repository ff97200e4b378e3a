// The project explorer panel.
#include "ui/panels/ProjectExplorer.h"

#include "ui/models/ProjectTreeModel.h"

#include <QHeaderView>
#include <QTreeView>
#include <QVBoxLayout>

namespace tpuc::ui {

ProjectExplorer::ProjectExplorer(StudioContext *context, QWidget *parent)
    : QWidget(parent), m_context(context), m_model(new ProjectTreeModel(context, this)), m_view(new QTreeView(this)) {
  auto *layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_view);
  m_view->setModel(m_model);
  m_view->setUniformRowHeights(true);
  // Names take what they need, the info column the rest (elided): no horizontal scrolling.
  // The stretched last section never shrinks below the size it had when stretching was switched on, so
  // it is switched on again from a small size after each re-measure.
  m_view->header()->setMinimumSectionSize(m_view->fontMetrics().averageCharWidth() * 4);
  auto setColumnModes = [this] {
    QHeaderView *header = m_view->header();
    header->setStretchLastSection(false);
    m_view->resizeColumnToContents(ProjectTreeModel::NameColumn);
    header->resizeSection(ProjectTreeModel::InfoColumn, header->minimumSectionSize());
    header->setStretchLastSection(true);
  };
  m_view->expandAll();
  setColumnModes();

  connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this,
          [this](const QModelIndex &current) { m_context->select(m_model->selectionFor(current)); });
  connect(m_view, &QTreeView::activated, this,
          [this](const QModelIndex &index) { m_context->activate(m_model->selectionFor(index)); });
  // A reset collapses the tree and drops the current item: restore both from the context.
  connect(m_model, &QAbstractItemModel::modelReset, this, [this, setColumnModes] {
    m_view->expandAll();
    setColumnModes();
    QModelIndex index = m_model->indexFor(m_context->selection());
    if (index.isValid())
      m_view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                           QItemSelectionModel::Rows);
  });
  connect(context, &StudioContext::selectionChanged, this, [this](const Selection &selection) {
    QModelIndex index = m_model->indexFor(selection);
    if (index != m_view->currentIndex())
      m_view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                           QItemSelectionModel::Rows);
  });
}

QSize ProjectExplorer::sizeHint() const {
  const QFontMetrics fm = fontMetrics();
  return {fm.averageCharWidth() * 44, fm.height() * 24};
}

} // namespace tpuc::ui
