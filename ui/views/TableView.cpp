// A central tab showing one editable table.
#include "ui/views/TableView.h"

#include "ui/models/TableModels.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace tpuc::ui {

TableView::TableView(StudioContext *context, Selection table, QWidget *parent)
    : QWidget(parent), m_table(table), m_filter(new QLineEdit), m_view(new QTableView) {
  QAbstractItemModel *model = table.section == Section::QuantTables
                                  ? static_cast<QAbstractItemModel *>(new QuantTableModel(context, table.id, this))
                                  : new CaliTableModel(context, table.id, this);
  auto *proxy = new QSortFilterProxyModel(this);
  proxy->setSourceModel(model);
  proxy->setFilterKeyColumn(0);
  proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
  m_filter->setPlaceholderText(tr("Filter ops"));
  m_filter->setClearButtonEnabled(true);
  connect(m_filter, &QLineEdit::textChanged, proxy, &QSortFilterProxyModel::setFilterFixedString);
  m_view->setModel(proxy);
  m_view->setSortingEnabled(true);
  m_view->sortByColumn(-1, Qt::AscendingOrder); // keep the table's own order until a header is clicked
  m_view->horizontalHeader()->setStretchLastSection(true);
  m_view->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  auto *layout = new QVBoxLayout(this);
  layout->addWidget(m_filter);
  layout->addWidget(m_view);
}

} // namespace tpuc::ui
