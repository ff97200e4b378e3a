// A central tab showing one editable calibration or quantize table.
#ifndef TPUC_UI_VIEWS_TABLEVIEW_H
#define TPUC_UI_VIEWS_TABLEVIEW_H

#include "ui/StudioContext.h"

#include <QWidget>

class QAbstractItemModel;
class QLineEdit;
class QTableView;

namespace tpuc::ui {

/// A filterable table over a CaliTableModel or QuantTableModel; edits are undoable through the context.
class TableView : public QWidget {
  Q_OBJECT
public:
  TableView(StudioContext *context, Selection table, QWidget *parent = nullptr);
  Selection table() const { return m_table; }
  QTableView *view() const { return m_view; }

private:
  Selection m_table;
  QLineEdit *m_filter;
  QTableView *m_view;
};

} // namespace tpuc::ui

#endif
