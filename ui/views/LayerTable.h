// The look of a per-layer (per-tensor) table: the accuracy view's and the activation statistics'.
#ifndef TPUC_UI_VIEWS_LAYERTABLE_H
#define TPUC_UI_VIEWS_LAYERTABLE_H

#include <QHeaderView>
#include <QTableView>

namespace tpuc::ui {

/// Sorted by `orderColumn` (graph order), one row selected at a time, compact rows from the font, every
/// column sized to its contents except the name, which gets a fixed share elided in the middle (long ONNX
/// tensor names differ at the end, not the start) so the metrics stay in sight; the user can widen it.
inline void setUpLayerTable(QTableView *table, int nameColumn, int orderColumn) {
  table->setSortingEnabled(true);
  table->sortByColumn(orderColumn, Qt::AscendingOrder);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->setSelectionMode(QAbstractItemView::SingleSelection);
  table->setAlternatingRowColors(true);
  table->verticalHeader()->hide();
  table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
  table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table->horizontalHeader()->setSectionResizeMode(nameColumn, QHeaderView::Interactive);
  table->horizontalHeader()->setHighlightSections(false);
  table->setTextElideMode(Qt::ElideMiddle);
  table->setWordWrap(false);
}

} // namespace tpuc::ui

#endif
