// The run comparison tab: manifest differences, per-layer accuracy and cycles of two runs, cosine chart.
#include "ui/views/RunCompareView.h"
#include "visualizer/ChartTheme.h"

#include "ui/Background.h"
#include "ui/jobs/EngineClient.h"
#include "ui/jobs/RunManifests.h"
#include "ui/views/GraphViewTab.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QFile>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QSplitter>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QValueAxis>

#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <unordered_set>

namespace tpuc::ui {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double valueOr(const std::unordered_map<std::string, double> &values, const std::string &name) {
  auto it = values.find(name);
  return it == values.end() ? kNaN : it->second;
}

/// The simulated latency a run recorded (its engine trace), NaN when none.
double latencyOf(const project::RunRecord &run) {
  if (run.latencyMs > 0)
    return run.latencyMs;
  const QJsonObject summary = QJsonDocument::fromJson(QByteArray::fromStdString(run.summaryJson)).object();
  const QJsonValue v = summary.value(QStringLiteral("simulatedLatencyMs"));
  return v.isDouble() ? v.toDouble() : kNaN;
}

QString number(double v, int digits) {
  return std::isnan(v) ? QStringLiteral("–") : QString::number(v, 'f', digits);
}

QString signedNumber(double v, int digits) {
  if (std::isnan(v))
    return QStringLiteral("–");
  return (v > 0 ? QStringLiteral("+") : QString()) + QString::number(v, 'f', digits);
}

} // namespace

// --- model ------------------------------------------------------------------------------------------------

void RunCompareModel::setRows(std::vector<CompareLayerRow> rows) {
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}

int RunCompareModel::rowCount(const QModelIndex &parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int RunCompareModel::columnCount(const QModelIndex &parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunCompareModel::data(const QModelIndex &index, int role) const {
  if (!index.isValid() || index.row() >= rowCount())
    return {};
  const CompareLayerRow &r = m_rows[static_cast<size_t>(index.row())];
  double value = kNaN;
  switch (index.column()) {
  case ACosine:
    value = r.aCosine;
    break;
  case BCosine:
    value = r.bCosine;
    break;
  case DeltaCosine:
    value = r.bCosine - r.aCosine;
    break;
  case AIsolated:
    value = r.aIsolated;
    break;
  case BIsolated:
    value = r.bIsolated;
    break;
  case ACycles:
    value = r.aCycles;
    break;
  case BCycles:
    value = r.bCycles;
    break;
  case DeltaCycles:
    value = r.bCycles - r.aCycles;
    break;
  default:
    break;
  }
  if (role == SortRole)
    return index.column() == Name ? QVariant(index.row()) : QVariant(value);
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
    case Name:
      return r.name;
    case DeltaCosine:
      return signedNumber(value, 6);
    case ACycles:
    case BCycles:
      return number(value, 0);
    case DeltaCycles:
      return signedNumber(value, 0);
    default:
      return number(value, 6);
    }
  }
  if (role == Qt::ToolTipRole && index.column() == Name)
    return r.name;
  if (role == Qt::TextAlignmentRole && index.column() != Name)
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  // Better in B: green; worse: vermillion (fewer cycles and a higher cosine are better).
  if (role == Qt::ForegroundRole && !std::isnan(value) && value != 0 &&
      (index.column() == DeltaCosine || index.column() == DeltaCycles)) {
    const bool better = index.column() == DeltaCosine ? value > 0 : value < 0;
    if (index.column() == DeltaCosine && std::abs(value) < 1e-6)
      return {};
    return better ? QColor(0x00, 0x9e, 0x73) : QColor(0xd5, 0x5e, 0x00);
  }
  return {};
}

QVariant RunCompareModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  static const char *const names[] = {"layer",     "A cos",    "B cos",    "Δ cos",   "A iso cos",
                                      "B iso cos", "A cycles", "B cycles", "Δ cycles"};
  return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

RunCompareFilter::RunCompareFilter(QObject *parent) : QSortFilterProxyModel(parent) {
  setSortRole(RunCompareModel::SortRole);
}

void RunCompareFilter::setOnlyChanged(bool on) {
  m_onlyChanged = on;
  invalidateFilter();
}

void RunCompareFilter::setNameFilter(const QString &text) {
  m_name = text;
  invalidateFilter();
}

bool RunCompareFilter::filterAcceptsRow(int row, const QModelIndex &) const {
  auto *model = static_cast<const RunCompareModel *>(sourceModel());
  const CompareLayerRow &r = model->rows()[static_cast<size_t>(row)];
  if (!m_name.isEmpty() && !r.name.contains(m_name, Qt::CaseInsensitive))
    return false;
  if (!m_onlyChanged)
    return true;
  auto differs = [](double a, double b, double eps) {
    return std::isnan(a) != std::isnan(b) || (!std::isnan(a) && std::abs(a - b) > eps);
  };
  return differs(r.aCosine, r.bCosine, 1e-6) || differs(r.aIsolated, r.bIsolated, 1e-6) ||
         differs(r.aCycles, r.bCycles, 0.5);
}

bool RunCompareFilter::lessThan(const QModelIndex &left, const QModelIndex &right) const {
  const double a = left.data(RunCompareModel::SortRole).toDouble(),
               b = right.data(RunCompareModel::SortRole).toDouble();
  // NaN last in either order.
  if (std::isnan(a) || std::isnan(b))
    return sortOrder() == Qt::AscendingOrder ? !std::isnan(a) && std::isnan(b)
                                             : std::isnan(a) && !std::isnan(b);
  return a < b;
}

std::vector<CompareLayerRow> compareRows(const driver::RunsDiff &diff, const project::RunRecord &a,
                                         const project::RunRecord &b) {
  // A side whose engine trace the diff read takes its cycles from the diff (the kept copy of that run's
  // trace); otherwise from what the run recorded when it finished.
  const bool fromDiffA = diff.latencyA.has_value(), fromDiffB = diff.latencyB.has_value();
  const auto aCycles = fromDiffA ? std::unordered_map<std::string, double>() : runLayerValues(a, "cycles"),
             bCycles = fromDiffB ? std::unordered_map<std::string, double>() : runLayerValues(b, "cycles");
  auto cyclesOf = [](std::optional<int64_t> v) { return v ? static_cast<double>(*v) : kNaN; };
  std::vector<CompareLayerRow> rows;
  std::unordered_set<std::string> seen;
  auto add = [&](const std::string &name, double ac, double bc, double ai, double bi,
                 const driver::LayerDelta *layer = nullptr) {
    if (!seen.insert(name).second)
      return;
    rows.push_back({QString::fromStdString(name), ac, bc, ai, bi,
                    fromDiffA ? (layer ? cyclesOf(layer->aCycles) : kNaN) : valueOr(aCycles, name),
                    fromDiffB ? (layer ? cyclesOf(layer->bCycles) : kNaN) : valueOr(bCycles, name)});
  };
  for (const driver::LayerDelta &l : diff.layers)
    if (!std::isnan(l.aCosine) || !std::isnan(l.bCosine) || !std::isnan(l.aIsolated) ||
        !std::isnan(l.bIsolated))
      add(l.name, l.aCosine, l.bCosine, l.aIsolated, l.bIsolated, &l);
  const bool accuracyInDiff = !rows.empty();
  if (!accuracyInDiff) {
    // No accuracy records beside the manifests (or a run without --compare_all): the recorded cosines.
    const auto aCos = runLayerValues(a, "cosine"), bCos = runLayerValues(b, "cosine");
    auto layerOf = [&](const std::string &name) -> const driver::LayerDelta * {
      for (const driver::LayerDelta &l : diff.layers)
        if (l.name == name)
          return &l;
      return nullptr;
    };
    QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(a.layerMetricsJson));
    for (const QJsonValue &v : doc.array())
      if (const std::string name = v.toObject().value(QStringLiteral("name")).toString().toStdString();
          aCos.count(name))
        add(name, aCos.at(name), valueOr(bCos, name), kNaN, kNaN, layerOf(name));
    doc = QJsonDocument::fromJson(QByteArray::fromStdString(b.layerMetricsJson));
    for (const QJsonValue &v : doc.array())
      if (const std::string name = v.toObject().value(QStringLiteral("name")).toString().toStdString();
          bCos.count(name))
        add(name, valueOr(aCos, name), bCos.at(name), kNaN, kNaN, layerOf(name));
  }
  // Ops with cycles only: the diff's (A's trace order, then B's own), then a recorded side's in the order
  // the run recorded them.
  for (const driver::LayerDelta &l : diff.layers)
    add(l.name, kNaN, kNaN, kNaN, kNaN, &l);
  for (const auto *cycles : {&aCycles, &bCycles}) {
    const project::RunRecord &run = cycles == &aCycles ? a : b;
    QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(run.layerMetricsJson));
    for (const QJsonValue &v : doc.array()) {
      const std::string name = v.toObject().value(QStringLiteral("name")).toString().toStdString();
      if (cycles->count(name))
        add(name, kNaN, kNaN, kNaN, kNaN);
    }
  }
  return rows;
}

// --- view -------------------------------------------------------------------------------------------------

RunCompareView::RunCompareView(StudioContext *context, qint64 runA, qint64 runB, QWidget *parent)
    : QWidget(parent), m_context(context), m_runA(runA), m_runB(runB), m_summary(new QLabel(this)),
      m_differences(new QTreeWidget(this)), m_model(new RunCompareModel(this)),
      m_filter(new RunCompareFilter(this)), m_table(new QTableView(this)), m_search(new QLineEdit(this)),
      m_onlyChanged(new QCheckBox(tr("Only layers that changed"), this)), m_chart(new QChartView(this)) {
  m_summary->setWordWrap(true);
  m_summary->setTextFormat(Qt::RichText);
  m_summary->setContentsMargins(6, 4, 6, 2);
  m_differences->setColumnCount(3);
  m_differences->setHeaderLabels({tr("What differs"), tr("Run A"), tr("Run B")});
  m_differences->setRootIsDecorated(false);
  m_differences->setAlternatingRowColors(true);
  m_differences->setObjectName(QStringLiteral("runDifferences"));
  m_filter->setSourceModel(m_model);
  m_table->setModel(m_filter);
  m_table->setSortingEnabled(true);
  m_table->sortByColumn(RunCompareModel::Name, Qt::AscendingOrder);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->verticalHeader()->hide();
  m_table->horizontalHeader()->setStretchLastSection(false);
  m_table->setAlternatingRowColors(true);
  m_search->setPlaceholderText(tr("Filter layers by name"));
  m_search->setClearButtonEnabled(true);
  m_chart->setRenderHint(QPainter::Antialiasing);

  auto *bar = new QHBoxLayout;
  bar->setContentsMargins(6, 0, 6, 0);
  bar->addWidget(m_search, 1);
  bar->addWidget(m_onlyChanged);
  auto *tableBox = new QWidget(this);
  auto *tableLayout = new QVBoxLayout(tableBox);
  tableLayout->setContentsMargins(0, 0, 0, 0);
  tableLayout->addLayout(bar);
  tableLayout->addWidget(m_table, 1);
  auto *bottom = new QSplitter(Qt::Horizontal, this);
  bottom->addWidget(tableBox);
  bottom->addWidget(m_chart);
  bottom->setStretchFactor(0, 3);
  bottom->setStretchFactor(1, 2);
  const int em = fontMetrics().horizontalAdvance(QLatin1Char('M'));
  bottom->setSizes({em * 68, em * 32});
  auto *split = new QSplitter(Qt::Vertical, this);
  split->addWidget(m_differences);
  split->addWidget(bottom);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 3);
  auto *layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_summary);
  layout->addWidget(split, 1);

  connect(m_search, &QLineEdit::textChanged, m_filter, &RunCompareFilter::setNameFilter);
  connect(m_onlyChanged, &QCheckBox::toggled, m_filter, &RunCompareFilter::setOnlyChanged);
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex &index) {
            if (index.isValid())
              m_context->selectOp(m_filter->index(index.row(), RunCompareModel::Name).data().toString());
          });
  start();
}

RunCompareView::~RunCompareView() = default; // m_call, a child, kills and reaps the engine

void RunCompareView::fail(const QString &message) {
  m_loaded = true;
  m_error = message;
  m_summary->setText(QStringLiteral("<b>%1</b>").arg(message.toHtmlEscaped()));
  m_context->log(LogLevel::Error, message);
  Q_EMIT loaded(message);
}

void RunCompareView::start() {
  const project::RunRecord *a = m_context->project().findRun(m_runA);
  const project::RunRecord *b = m_context->project().findRun(m_runB);
  if (!a || !b)
    return fail(tr("Run #%1 or #%2 is no longer in the project.").arg(m_runA).arg(m_runB));
  const QString manifestA = runManifestOf(*a), manifestB = runManifestOf(*b);
  for (auto [run, manifest] : {std::pair{a, manifestA}, std::pair{b, manifestB}})
    if (manifest.isEmpty())
      return fail(
          tr("Run #%1 has no run manifest on disk (deploy and calibrate runs write one; the cache may "
             "have been deleted).")
              .arg(run->id));
  m_summary->setText(tr("Comparing run #%1 with run #%2…").arg(m_runA).arg(m_runB));
  auto dir = std::make_shared<QTemporaryDir>();
  const QString out = dir->filePath(QStringLiteral("runs_diff.json"));
  driver::RunsOptions request;
  request.action = "diff";
  request.a = manifestA.toStdString();
  request.b = manifestB.toStdString();
  request.format = "json";
  request.output = out.toStdString();
  EngineClient::Called called = EngineClient::call(request, this);
  if (!called.call)
    return fail(called.error);
  m_call = called.call;
  connect(m_call, &EngineCall::failedToStart, this,
          [this] { fail(tr("The tpuc engine was not found at %1").arg(tpucPath())); });
  connect(m_call, &EngineCall::finished, this, [this, dir, out](int code, const QString &stderrText) {
    m_call->deleteLater();
    m_call = nullptr;
    if (code != 0)
      return fail(stderrText.isEmpty() ? tr("tpuc runs diff failed (exit code %1)").arg(code)
                                       : stderrText.section(QLatin1Char('\n'), -1));
    runInBackground(
        this,
        [dir, out] {
          QFile file(out);
          if (!file.open(QIODevice::ReadOnly))
            return driver::ReadResult<driver::RunsDiff>{
                {}, (out + QStringLiteral(": cannot read")).toStdString()};
          return driver::parseRunsDiff(file.readAll().toStdString());
        },
        [this](const driver::ReadResult<driver::RunsDiff> &read) {
          if (!read)
            return fail(tr("runs diff: %1").arg(QString::fromStdString(read.error)));
          show(read.result);
        });
  });
}

void RunCompareView::show(const driver::RunsDiff &diff) {
  m_diff = diff;
  const project::RunRecord *a = m_context->project().findRun(m_runA);
  const project::RunRecord *b = m_context->project().findRun(m_runB);
  if (!a || !b)
    return fail(tr("Run #%1 or #%2 is no longer in the project.").arg(m_runA).arg(m_runB));
  m_differences->clear();
  for (const driver::ManifestDifference &d : diff.differences) {
    auto *item =
        new QTreeWidgetItem(m_differences, {QString::fromStdString(d.what), QString::fromStdString(d.a),
                                            QString::fromStdString(d.b)});
    for (int c = 0; c < 3; ++c)
      item->setToolTip(c, item->text(c));
  }
  if (diff.differences.empty())
    new QTreeWidgetItem(m_differences, {tr("the manifests agree: same version, flags and inputs"), {}, {}});
  for (int c = 0; c < 3; ++c) {
    m_differences->resizeColumnToContents(c);
    m_differences->setColumnWidth(
        c, std::min(m_differences->columnWidth(c),
                    fontMetrics().horizontalAdvance(QLatin1Char('x')) * (c ? 60 : 36)));
  }
  m_model->setRows(compareRows(diff, *a, *b));
  m_table->resizeColumnsToContents();
  m_table->setColumnWidth(RunCompareModel::Name,
                          std::min(m_table->columnWidth(RunCompareModel::Name),
                                   fontMetrics().horizontalAdvance(QLatin1Char('x')) * 40));
  // The diff's latency (the kept trace of each run) when it read one, else what the run recorded.
  const double latencyA = diff.latencyA ? diff.latencyA->ms : latencyOf(*a),
               latencyB = diff.latencyB ? diff.latencyB->ms : latencyOf(*b);
  QString text = tr("<b>A</b> run #%1 %2 &nbsp;→&nbsp; <b>B</b> run #%3 %4")
                     .arg(m_runA)
                     .arg(QString::fromStdString(a->configName).toHtmlEscaped())
                     .arg(m_runB)
                     .arg(QString::fromStdString(b->configName).toHtmlEscaped());
  text += tr("<br>%1 difference(s) between the manifests; %2 layers")
              .arg(diff.differences.size())
              .arg(m_model->rowCount());
  if (!std::isnan(latencyA) || !std::isnan(latencyB))
    text += tr("; simulated latency %1 ms → %2 ms").arg(number(latencyA, 3), number(latencyB, 3));
  // The output: the last layer both runs compared.
  for (auto it = diff.layers.rbegin(); it != diff.layers.rend(); ++it)
    if (!std::isnan(it->aCosine) && !std::isnan(it->bCosine)) {
      text += tr("; last common layer %1: cos %2 → %3 (%4)")
                  .arg(QString::fromStdString(it->name).toHtmlEscaped(), number(it->aCosine, 6),
                       number(it->bCosine, 6), signedNumber(it->bCosine - it->aCosine, 6));
      break;
    }
  m_summary->setText(text);
  rebuildChart();
  m_loaded = true;
  m_error.clear();
  Q_EMIT loaded({});
}

void RunCompareView::rebuildChart() {
  const QPalette pal = palette();
  QChart *chart = vis::newChart(pal, tr("accumulated cosine per layer"));
  auto *seriesA = new QLineSeries;
  seriesA->setName(tr("A: run #%1").arg(m_runA));
  seriesA->setPen(QPen(QColor(0x1f, 0x77, 0xb4), 2));
  auto *seriesB = new QLineSeries;
  seriesB->setName(tr("B: run #%1").arg(m_runB));
  seriesB->setPen(QPen(QColor(0xd5, 0x5e, 0x00), 2, Qt::DashLine));
  double low = 1.0;
  int count = 0;
  for (const CompareLayerRow &r : m_model->rows()) {
    if (std::isnan(r.aCosine) && std::isnan(r.bCosine))
      continue;
    ++count;
    if (std::isfinite(r.aCosine)) {
      seriesA->append(count, r.aCosine);
      low = std::min(low, r.aCosine);
    }
    if (std::isfinite(r.bCosine)) {
      seriesB->append(count, r.bCosine);
      low = std::min(low, r.bCosine);
    }
  }
  chart->addSeries(seriesA);
  chart->addSeries(seriesB);
  auto *x = new QValueAxis;
  x->setTitleText(tr("layer in graph order"));
  x->setLabelFormat(QStringLiteral("%d"));
  x->setRange(0.5, std::max(1.5, count + 0.5));
  x->setTickType(QValueAxis::TicksDynamic);
  x->setTickAnchor(1);
  x->setTickInterval(std::max(1.0, std::ceil(count / 10.0)));
  auto *y = new QValueAxis;
  y->setTitleText(tr("cosine"));
  const double span = std::max(1e-4, 1.0 - low);
  y->setRange(std::max(-1.0, low - span * 0.08), 1.0 + span * 0.04);
  y->setLabelFormat(span < 0.001  ? QStringLiteral("%.6f")
                    : span < 0.01 ? QStringLiteral("%.4f")
                                  : QStringLiteral("%.3f"));
  vis::attachAxes(chart, x, y, pal);
  QChart *old = m_chart->chart();
  m_chart->setChart(chart);
  delete old;
}

} // namespace tpuc::ui
