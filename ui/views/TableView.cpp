// A central tab showing one editable table.
#include "ui/views/TableView.h"

#include "ui/models/TableModels.h"
#include "ui/views/ActivationStatsView.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace tpuc::ui {

TableView::TableView(StudioContext *context, Selection table, QWidget *parent)
    : QWidget(parent), m_context(context), m_table(table), m_filter(new QLineEdit), m_view(new QTableView) {
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
  auto *bar = new QHBoxLayout;
  bar->addWidget(m_filter, 1);
  if (table.section == Section::CaliTables) {
    m_statistics = new QPushButton(tr("Activation Statistics"), this);
    connect(m_statistics, &QPushButton::clicked, this,
            [this] { Q_EMIT activationStatisticsRequested(m_table.id); });
    bar->addWidget(m_statistics);
    updateStatisticsButton();
  }
  auto *layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(m_view);
}

void TableView::showEvent(QShowEvent *event) {
  QWidget::showEvent(event);
  updateStatisticsButton(); // a report may have been written or deleted since
}

void TableView::updateStatisticsButton() {
  if (!m_statistics)
    return;
  const bool has = !calibrationReportOfTable(*m_context, m_table.id).isEmpty();
  m_statistics->setEnabled(has);
  m_statistics->setToolTip(
      has ? tr("Each tensor's histogram with the threshold of every method, and how the "
               "thresholds settled as samples were added")
          : tr("This table has no activation statistics: tables imported from files have none; "
               "calibrate in the studio (Run ▸ Calibrate) to get them"));
}

} // namespace tpuc::ui
