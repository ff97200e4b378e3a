// A central tab showing one editable calibration or quantize table.
#ifndef TPUC_UI_VIEWS_TABLEVIEW_H
#define TPUC_UI_VIEWS_TABLEVIEW_H

#include "ui/StudioContext.h"

#include <QWidget>

class QAbstractItemModel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace tpuc::ui {

/// A filterable table over a CaliTableModel or QuantTableModel; edits are undoable through the context. A
/// calibration table made by a studio calibration has its activation statistics one click away.
class TableView : public QWidget {
  Q_OBJECT
public:
  TableView(StudioContext *context, Selection table, QWidget *parent = nullptr);
  Selection table() const { return m_table; }
  QTableView *view() const { return m_view; }
  /// "Activation Statistics": shown for calibration tables, enabled when the table has a report.
  QPushButton *statisticsButton() const { return m_statistics; }

Q_SIGNALS:
  /// The user asked for the table's activation statistics (the main window opens them).
  void activationStatisticsRequested(qint64 tableId);

protected:
  void showEvent(QShowEvent *event) override;

private:
  void updateStatisticsButton();

  StudioContext *m_context;
  Selection m_table;
  QLineEdit *m_filter;
  QTableView *m_view;
  QPushButton *m_statistics = nullptr;
};

} // namespace tpuc::ui

#endif
