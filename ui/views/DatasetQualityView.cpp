// The quality report of a calibration dataset.
#include "ui/views/DatasetQualityView.h"

#include "ui/StudioContext.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QGridLayout>
#include <QHeaderView>
#include <QHorizontalBarSeries>
#include <QLabel>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>

namespace tpuc::ui {

namespace {

constexpr int kPathRole = Qt::UserRole + 1;

/// Bars of (label, count), largest first when `byCount`, at most `limit` of them.
void fillBars(QChartView *view, const QString &title, std::vector<std::pair<QString, double>> bars,
              bool byCount, size_t limit) {
  if (byCount)
    std::stable_sort(bars.begin(), bars.end(),
                     [](const auto &a, const auto &b) { return a.second > b.second; });
  if (bars.size() > limit)
    bars.resize(limit);
  // Horizontal bars list their categories bottom-up: reverse so the first is on top.
  std::reverse(bars.begin(), bars.end());
  auto *set = new QBarSet(title);
  set->setColor(view->palette().color(QPalette::Highlight));
  set->setBorderColor(Qt::transparent);
  QStringList labels;
  double top = 0;
  for (const auto &[label, value] : bars) {
    *set << value;
    labels << label;
    top = std::max(top, value);
  }
  auto *series = new QHorizontalBarSeries;
  series->append(set);
  series->setBarWidth(0.8);
  auto *chart = new QChart;
  chart->addSeries(series);
  chart->setTitle(title);
  chart->legend()->hide();
  chart->setBackgroundBrush(view->palette().base());
  chart->setTitleBrush(view->palette().text());
  chart->setMargins(QMargins(0, 0, 0, 0));
  auto *categories = new QBarCategoryAxis;
  categories->append(labels);
  categories->setLabelsBrush(view->palette().text());
  auto *values = new QValueAxis;
  values->setRange(0, std::max(1.0, top));
  values->setLabelFormat(QStringLiteral("%d"));
  values->setTickCount(std::min(6, std::max(2, static_cast<int>(top) + 1)));
  values->applyNiceNumbers();
  values->setLabelsBrush(view->palette().text());
  chart->addAxis(categories, Qt::AlignLeft);
  chart->addAxis(values, Qt::AlignBottom);
  series->attachAxis(categories);
  series->attachAxis(values);
  QChart *old = view->chart();
  view->setChart(chart);
  delete old;
}

QTreeWidgetItem *fileItem(QTreeWidgetItem *parent, const std::string &path, const QString &detail = {}) {
  auto *item = new QTreeWidgetItem(parent, {QString::fromStdString(path), detail});
  item->setData(0, kPathRole, QString::fromStdString(path));
  item->setToolTip(0, QString::fromStdString(path));
  item->setToolTip(1, detail);
  return item;
}

} // namespace

DatasetQualityView::DatasetQualityView(QWidget *parent)
    : QWidget(parent), m_summary(new QLabel(this)), m_tree(new QTreeWidget(this)),
      m_resolutions(new QChartView(this)), m_aspects(new QChartView(this)), m_folders(new QChartView(this)) {
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_tree->setObjectName(QStringLiteral("qualityFindings"));
  m_tree->setHeaderLabels({tr("Finding"), tr("Detail")});
  m_tree->setUniformRowHeights(true);
  m_tree->header()->setSectionResizeMode(0, QHeaderView::Interactive);
  m_tree->header()->setStretchLastSection(true);
  m_tree->setColumnWidth(0, fontMetrics().averageCharWidth() * 48);
  for (QChartView *view : {m_resolutions, m_aspects, m_folders}) {
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(fontMetrics().height() * 12);
  }
  m_resolutions->setObjectName(QStringLiteral("resolutionChart"));
  m_aspects->setObjectName(QStringLiteral("aspectChart"));
  m_folders->setObjectName(QStringLiteral("folderChart"));
  connect(m_tree, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem *item) {
    const QString path = item->data(0, kPathRole).toString();
    if (!path.isEmpty())
      Q_EMIT fileActivated(path);
  });
  connect(m_tree, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) {
    const QString path = item->data(0, kPathRole).toString();
    if (!path.isEmpty())
      Q_EMIT fileActivated(path);
  });

  auto *charts = new QWidget(this);
  auto *grid = new QGridLayout(charts);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->addWidget(m_resolutions, 0, 0);
  grid->addWidget(m_aspects, 0, 1);
  grid->addWidget(m_folders, 0, 2);
  auto *split = new QSplitter(Qt::Vertical, this);
  split->addWidget(m_tree);
  split->addWidget(charts);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto *layout = new QVBoxLayout(this);
  layout->addWidget(m_summary);
  layout->addWidget(split, 1);
  setReport({});
}

QString DatasetQualityView::summary() const {
  const dataset::QualityReport &r = m_report;
  size_t exactCopies = 0;
  for (const auto &group : r.exactDuplicates)
    exactCopies += group.size() - 1;
  QStringList parts;
  parts << countText(static_cast<qint64>(exactCopies), tr("exact duplicate"), tr("exact duplicates"))
        << countText(static_cast<qint64>(r.nearDuplicates.size()), tr("near-duplicate group"),
                     tr("near-duplicate groups"))
        << countText(static_cast<qint64>(r.outliers.size()), tr("outlier"), tr("outliers"))
        << countText(static_cast<qint64>(r.channelSwaps.size()), tr("channel swap"), tr("channel swaps"))
        << countText(static_cast<qint64>(r.corrupt.size()), tr("unreadable file"), tr("unreadable files"));
  return parts.join(QStringLiteral(", "));
}

void DatasetQualityView::setReport(const dataset::QualityReport &report) {
  m_report = report;
  const dataset::QualityReport &r = m_report;
  m_summary->setText(tr("<b>%1</b> checked: %2. Folder balance %3 (smallest / largest folder).")
                         .arg(countText(static_cast<qint64>(r.files), tr("file"), tr("files")), summary())
                         .arg(r.balance, 0, 'f', 2));
  m_tree->clear();
  auto section = [this](const QString &title, size_t count) {
    auto *item = new QTreeWidgetItem(m_tree, {QStringLiteral("%1 (%2)").arg(title).arg(count)});
    QFont bold = item->font(0);
    bold.setBold(true);
    item->setFont(0, bold);
    item->setExpanded(count > 0 && count <= 50);
    return item;
  };
  QTreeWidgetItem *exact = section(tr("Exact duplicates"), r.exactDuplicates.size());
  for (const auto &group : r.exactDuplicates) {
    auto *g = new QTreeWidgetItem(exact, {tr("%1 copies of the same bytes").arg(group.size())});
    for (const std::string &path : group)
      fileItem(g, path);
    g->setExpanded(true);
  }
  QTreeWidgetItem *near = section(tr("Near duplicates"), r.nearDuplicates.size());
  for (const auto &group : r.nearDuplicates) {
    auto *g = new QTreeWidgetItem(near, {tr("%1 images that look alike").arg(group.size())});
    for (const std::string &path : group)
      fileItem(g, path);
    g->setExpanded(true);
  }
  QTreeWidgetItem *outliers = section(tr("Outliers"), r.outliers.size());
  for (const dataset::Outlier &o : r.outliers)
    fileItem(outliers, o.path, QString::fromStdString(o.reason));
  QTreeWidgetItem *swaps = section(tr("Channel swaps (BGR/RGB)"), r.channelSwaps.size());
  for (const dataset::ChannelSwap &s : r.channelSwaps)
    fileItem(swaps, s.swapped,
             tr("red and blue exchanged against %1").arg(QString::fromStdString(s.original)));
  QTreeWidgetItem *corrupt = section(tr("Unreadable files"), r.corrupt.size());
  for (const dataset::UnreadableFile &u : r.corrupt)
    fileItem(corrupt, u.path, QString::fromStdString(u.reason));

  std::vector<std::pair<QString, double>> resolutions, aspects, folders;
  for (const auto &[wxh, n] : r.resolutions)
    resolutions.emplace_back(QString::fromStdString(wxh), static_cast<double>(n));
  for (const auto &[aspect, n] : r.aspects)
    aspects.emplace_back(QString::number(aspect, 'f', 2), static_cast<double>(n));
  for (const dataset::FolderCount &f : r.folders)
    folders.emplace_back(f.folder.empty() ? tr("(top folder)") : QString::fromStdString(f.folder),
                         static_cast<double>(f.files));
  // As many bars as keep their labels readable in the chart's height.
  fillBars(m_resolutions, tr("Resolutions (most common)"), std::move(resolutions), true, 6);
  fillBars(m_aspects, tr("Aspect ratios (w/h, most common)"), std::move(aspects), true, 6);
  fillBars(m_folders, tr("Files per folder (largest)"), std::move(folders), true, 6);
}

QHash<QString, QString> DatasetQualityView::problems() const {
  QHash<QString, QString> problems;
  auto add = [&](const std::string &path, const QString &text) {
    QString &p = problems[QString::fromStdString(path)];
    p = p.isEmpty() ? text : p + QStringLiteral("; ") + text;
  };
  for (const auto &group : m_report.exactDuplicates)
    for (size_t i = 1; i < group.size(); ++i)
      add(group[i], tr("exact duplicate of %1").arg(QString::fromStdString(group[0])));
  for (const auto &group : m_report.nearDuplicates)
    for (const std::string &path : group)
      add(path, tr("near duplicate (%1 alike)").arg(group.size()));
  for (const dataset::Outlier &o : m_report.outliers)
    add(o.path, tr("outlier: %1").arg(QString::fromStdString(o.reason)));
  for (const dataset::ChannelSwap &s : m_report.channelSwaps)
    add(s.swapped, tr("red and blue swapped (BGR?) against %1").arg(QString::fromStdString(s.original)));
  return problems;
}

} // namespace tpuc::ui
