// A sweep report as a table; the report is read off the UI thread with the engine's own reader.
#include "ui/views/SweepReportView.h"

#include "ui/Background.h"
#include "ui/views/AccuracyModel.h"

#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include <cmath>

namespace tpuc::ui {

namespace {

QString number(double v, int digits) { return std::isnan(v) ? QString() : QString::number(v, 'f', digits); }

/// Sorts by SortRole with the studio's numeric order (NaN last).
class SweepSortProxy : public QSortFilterProxyModel {
public:
  using QSortFilterProxyModel::QSortFilterProxyModel;

protected:
  bool lessThan(const QModelIndex &left, const QModelIndex &right) const override {
    return sortsBefore(left.data(SweepReportModel::SortRole), right.data(SweepReportModel::SortRole));
  }
};

} // namespace

void SweepReportModel::setReport(driver::SweepReport report) {
  beginResetModel();
  m_report = std::move(report);
  endResetModel();
}

int SweepReportModel::rowCount(const QModelIndex &parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_report.cells.size());
}

int SweepReportModel::columnCount(const QModelIndex &parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant SweepReportModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return {};
  static const char *const kHeaders[] = {"#",
                                         "Model",
                                         "Precision",
                                         "Chip",
                                         "Status",
                                         "Regression",
                                         "Min output cos",
                                         "Outputs (cos / euc / SQNR)",
                                         "First divergent",
                                         "Latency ms",
                                         "Compile s",
                                         "Peak RSS MiB",
                                         "Error"};
  return section >= 0 && section < ColumnCount ? tr(kHeaders[section]) : QVariant();
}

QVariant SweepReportModel::data(const QModelIndex &index, int role) const {
  if (!index.isValid() || index.row() >= rowCount())
    return {};
  const driver::SweepCellRecord &c = m_report.cells[index.row()];
  const bool regression = c.accuracyRegression || c.latencyRegression;
  if (role == RegressionRole)
    return regression;
  if (role == Qt::BackgroundRole)
    return regression ? QVariant(QColor(255, 205, 205)) : QVariant();
  if (role == Qt::ForegroundRole) {
    if (regression)
      return QColor(Qt::black);
    if (index.column() == Status)
      return c.status == "passed"   ? QColor(26, 127, 55)
             : c.status == "failed" ? QColor(179, 89, 0)
                                    : QColor(Qt::red);
    return {};
  }
  if (role == Qt::TextAlignmentRole) {
    switch (index.column()) {
    case Index:
    case MinCosine:
    case Latency:
    case Compile:
    case PeakRss:
      return int(Qt::AlignRight | Qt::AlignVCenter);
    default:
      return {};
    }
  }
  const double cosine = driver::minOutputCosine(c);
  if (role == SortRole) {
    switch (index.column()) {
    case Index:
      return qlonglong(c.index);
    case Regression:
      return regression ? 0 : 1;
    case MinCosine:
      return cosine;
    case Latency:
      return c.latencyMs > 0 ? c.latencyMs : NAN;
    case Compile:
      return c.compileSeconds;
    case PeakRss:
      return qlonglong(c.peakRssKb);
    default:
      return data(index, Qt::DisplayRole);
    }
  }
  if (role == Qt::ToolTipRole && index.column() == Error)
    return QString::fromStdString(c.message);
  if (role != Qt::DisplayRole)
    return {};
  switch (index.column()) {
  case Index:
    return qlonglong(c.index);
  case Model:
    return QString::fromStdString(c.model);
  case Precision:
    return QString::fromStdString(c.precision);
  case Chip:
    return QString::fromStdString(c.chip);
  case Status:
    return QString::fromStdString(c.status);
  case Regression: {
    QStringList what;
    if (c.accuracyRegression)
      what << tr("accuracy (was %1, %2)")
                  .arg(number(c.previousOutputCosine.value_or(NAN), 4),
                       QString::fromStdString(c.previousStatus));
    if (c.latencyRegression)
      what << tr("latency (was %1 ms)").arg(number(c.previousLatencyMs.value_or(NAN), 3));
    return what.join(QStringLiteral("; "));
  }
  case MinCosine:
    return number(cosine, 5);
  case Outputs: {
    QStringList outputs;
    for (const driver::TensorResult &t : c.outputs)
      outputs << QStringLiteral("%1: %2 / %3 / %4%5")
                     .arg(QString::fromStdString(t.name), number(t.cosine, 4), number(t.euclidean, 4),
                          number(t.sqnr, 1), t.pass ? QString() : tr(" (out of tolerance)"));
    return outputs.join(QStringLiteral("; "));
  }
  case FirstDivergent:
    return QString::fromStdString(c.firstDivergent);
  case Latency:
    return c.latencyMs > 0 ? number(c.latencyMs, 3) : QString();
  case Compile:
    return number(c.compileSeconds, 2);
  case PeakRss:
    return number(c.peakRssKb / 1024.0, 1);
  case Error:
    return c.stage.empty() ? QString() : QString::fromStdString(c.stage + ": " + c.message);
  default:
    return {};
  }
}

SweepReportView::SweepReportView(const QString &reportPath, QWidget *parent)
    : QWidget(parent), m_path(reportPath), m_summary(new QLabel(tr("Reading %1…").arg(reportPath), this)),
      m_model(new SweepReportModel(this)), m_proxy(new SweepSortProxy(this)), m_table(new QTableView(this)),
      m_open(new QPushButton(tr("Open Cell's Run"), this)) {
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_proxy->setSourceModel(m_model);
  m_table->setModel(m_proxy);
  m_table->setSortingEnabled(true);
  m_table->sortByColumn(-1, Qt::AscendingOrder); // the report's order: regressions first
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->verticalHeader()->hide();
  m_table->setAlternatingRowColors(true);
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_open->setToolTip(tr("The cell's per-layer accuracy (deploy --compare_all), else its run folder"));
  m_open->setEnabled(false);
  auto *top = new QHBoxLayout;
  top->addWidget(m_summary, 1);
  top->addWidget(m_open);
  auto *layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(m_table, 1);
  connect(m_table, &QTableView::doubleClicked, this,
          [this](const QModelIndex &index) { openCell(m_proxy->mapToSource(index).row()); });
  connect(m_open, &QPushButton::clicked, this, [this] {
    const QModelIndex current = m_table->currentIndex();
    if (current.isValid())
      openCell(m_proxy->mapToSource(current).row());
  });
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex &current) { m_open->setEnabled(current.isValid()); });

  const std::string path = reportPath.toStdString();
  runInBackground(
      this, [path] { return driver::readSweepReport(path); },
      [this](const driver::ReadResult<driver::SweepReport> &read) {
        m_loaded = true;
        if (!read) {
          m_error = QString::fromStdString(read.error);
          m_summary->setText(m_error);
          Q_EMIT loaded(m_error);
          return;
        }
        show(read.result);
        Q_EMIT loaded(QString());
      });
}

void SweepReportView::show(driver::SweepReport report) {
  QString text = tr("<b>Sweep %1</b>: %2 cells, %3 passed, %4 failed, %5 errors")
                     .arg(QString::fromStdString(report.name).toHtmlEscaped())
                     .arg(report.cells.size())
                     .arg(report.passed)
                     .arg(report.failed)
                     .arg(report.errors);
  if (!report.compared.empty())
    text += tr("; <b>%1 regression(s)</b> against %2 (accuracy: lowest output cosine down by more than %3; "
               "latency: up by more than %4 %)")
                .arg(report.regressions)
                .arg(QString::fromStdString(report.compared).toHtmlEscaped())
                .arg(report.accuracyThreshold)
                .arg(report.latencyThreshold * 100);
  text += tr(". Executor %1, %2 s wall.")
              .arg(QString::fromStdString(report.executor))
              .arg(report.wallSeconds, 0, 'f', 1);
  m_summary->setText(text);
  m_model->setReport(std::move(report));
  m_table->resizeColumnsToContents();
  m_table->setColumnWidth(SweepReportModel::Outputs,
                          std::min(m_table->columnWidth(SweepReportModel::Outputs), 320));
}

bool SweepReportView::openCell(int row) {
  if (row < 0 || row >= m_model->rowCount())
    return false;
  const driver::SweepCellRecord &c = m_model->report().cells[row];
  // The record's paths are relative to the sweep folder, the report's folder.
  const QDir sweep = QFileInfo(m_path).absoluteDir();
  QString accuracy;
  if (!c.accuracy.empty() && QFileInfo::exists(sweep.filePath(QString::fromStdString(c.accuracy))))
    accuracy = sweep.filePath(QString::fromStdString(c.accuracy));
  Q_EMIT cellRequested(accuracy, sweep.filePath(QString::fromStdString(c.runDir)),
                       QString::fromStdString(c.model + "/" + c.precision + "/" + c.chip));
  return true;
}

} // namespace tpuc::ui
