// The project explorer's item model: the project's sections and their items, as a two-level tree.
#ifndef TPUC_UI_MODELS_PROJECTTREEMODEL_H
#define TPUC_UI_MODELS_PROJECTTREEMODEL_H

#include "ui/StudioContext.h"

#include <QAbstractItemModel>
#include <QList>

namespace tpuc::ui {

/// A thin view over a snapshot of the project's structure. Top-level rows are sections, their children
/// the section's items (datasets, tables, configurations, runs). A project change swaps the snapshot
/// (model reset). Rows map back to the domain through selectionFor().
class ProjectTreeModel : public QAbstractItemModel {
  Q_OBJECT
public:
  enum Column { NameColumn, InfoColumn, ColumnCount };

  explicit ProjectTreeModel(StudioContext *context, QObject *parent = nullptr);

  QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
  QModelIndex parent(const QModelIndex &child) const override;
  int rowCount(const QModelIndex &parent = {}) const override;
  int columnCount(const QModelIndex &parent = {}) const override;
  QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  /// The selection an index stands for (section, and the item's domain id for children).
  Selection selectionFor(const QModelIndex &index) const;
  /// The index of a selection, or an invalid index.
  QModelIndex indexFor(const Selection &selection) const;

private:
  struct Item {
    QString name, info, toolTip;
    qint64 id = -1;
  };
  struct Node {
    Section section;
    QString name, info;
    QList<Item> children;
  };
  void rebuild();

  StudioContext *m_context;
  QList<Node> m_nodes; ///< the snapshot
};

} // namespace tpuc::ui

#endif
