// The accuracy view: per-layer table, chart along the graph, keep-in-float and compare-with-run actions.
#include "ui/views/AccuracyView.h"
#include "visualizer/ChartTheme.h"

#include "ui/Background.h"
#include "ui/MixedPrecision.h"
#include "ui/views/LayerTable.h"
#include "ui/views/SamplesPanel.h"

#include "ui/views/TensorsTab.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QFile>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLegendMarker>
#include <QLineEdit>
#include <QLineSeries>
#include <QMenu>
#include <QScatterSeries>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>

namespace tpuc::ui {

namespace {

using vis::blend;

QString runLabel(const project::RunRecord &r) {
  return QStringLiteral("#%1 %2 (%3)").arg(r.id).arg(QString::fromStdString(r.configName),
                                                      QString::fromStdString(r.finished));
}

} // namespace

AccuracyView::AccuracyView(StudioContext *context, qint64 runId, QWidget *parent)
    : QWidget(parent), m_context(context), m_runId(runId), m_model(new AccuracyModel(this)),
      m_filter(new AccuracyFilter(this)), m_table(new QTableView(this)), m_chart(new QChartView(this)),
      m_summary(new QLabel(this)), m_mode(new QComboBox(this)), m_search(new QLineEdit(this)),
      m_compare(new QComboBox(this)), m_keep(new QToolButton(this)), m_tensors(new QToolButton(this)),
      m_worst(new QToolButton(this)), m_samplesPanel(new SamplesPanel(this)) {
  m_filter->setSourceModel(m_model);
  m_table->setModel(m_filter);
  setUpLayerTable(m_table, AccuracyModel::Name, AccuracyModel::Order);

  m_summary->setWordWrap(true);
  m_summary->setTextFormat(Qt::RichText);
  m_mode->addItem(tr("All layers"), AccuracyFilter::All);
  m_mode->addItem(tr("Only NOT_SIMILAR"), AccuracyFilter::NotSimilar);
  m_mode->addItem(tr("Where error is born"), AccuracyFilter::ErrorBorn);
  m_mode->setToolTip(
      tr("Where error is born: the layers whose isolated comparison (the op fed exact inputs) comes "
         "closest to the tolerance, worst first — quantizing these ops loses accuracy by itself"));
  m_search->setPlaceholderText(tr("Filter layers by name"));
  m_search->setClearButtonEnabled(true);
  m_keep->setText(tr("Keep in float"));
  m_keep->setToolTip(
      tr("Add the selected layer to the quantize table of the configuration this run deployed, in "
         "F16 or BF16 (undoable); deploy the configuration again to see what it gains"));
  m_keep->setPopupMode(QToolButton::InstantPopup);
  auto *keepMenu = new QMenu(m_keep);
  for (const QString &mode : {QStringLiteral("F16"), QStringLiteral("BF16")})
    keepMenu->addAction(tr("Keep This Layer in %1").arg(mode), this, [this, mode] { keepLayerInFloat(currentLayer(), mode); });
  m_keep->setMenu(keepMenu);
  m_keep->setEnabled(false);
  m_tensors->setObjectName(QStringLiteral("showTensors"));
  m_tensors->setText(tr("Tensors…"));
  m_tensors->setToolTip(tr("The selected layer's float and quantized tensors side by side, their difference, "
                           "histogram and statistics (or double-click a row)"));
  m_tensors->setEnabled(false);
  connect(m_tensors, &QToolButton::clicked, this,
          [this] { Q_EMIT tensorsRequested(m_runId, currentLayer()); });
  connect(m_table, &QTableView::doubleClicked, this, [this] {
    if (m_tensors->isEnabled())
      Q_EMIT tensorsRequested(m_runId, currentLayer());
  });
  m_compare->setToolTip(tr("Show another run's accumulated cosine per layer beside this one"));
  // Over many samples: the selected layer's worst sample one click away.
  m_worst->setObjectName(QStringLiteral("worstSample"));
  m_worst->setText(tr("Worst Sample…"));
  m_worst->setToolTip(tr("The selected layer's tensors on the sample where its accumulated cosine is lowest: "
                         "the configuration is deployed again on that sample alone, keeping every tensor"));
  m_worst->setVisible(false);
  connect(m_worst, &QToolButton::clicked, this, [this] { showWorstSample(currentLayer()); });
  m_samplesPanel->setVisible(false);
  connect(m_samplesPanel, &SamplesPanel::candidateSelected, this,
          [this](const QString &layer) { selectLayer(layer); });
  connect(m_samplesPanel, &SamplesPanel::sampleActivated, this, [this](int64_t index) {
    // The selected layer, else where the sample first fails, else the model's last layer.
    QString layer = currentLayer();
    if (layer.isEmpty())
      if (const driver::SampleResult *sample = m_records.sample(index))
        layer = QString::fromStdString(sample->firstFailing);
    if (layer.isEmpty() && !m_model->report().layers.empty())
      layer = m_model->report().layers.back().name;
    showLayerOnSample(layer, index);
  });

  auto *bar = new QHBoxLayout;
  bar->setContentsMargins(0, 0, 0, 0);
  bar->addWidget(new QLabel(tr("Show:"), this));
  bar->addWidget(m_mode);
  bar->addWidget(m_search, 1);
  bar->addWidget(new QLabel(tr("Compare with:"), this));
  bar->addWidget(m_compare, 1);
  bar->addWidget(m_keep);
  bar->addWidget(m_tensors);
  bar->addWidget(m_worst);

  auto *splitter = new QSplitter(Qt::Vertical, this);
  m_chart->setRenderHint(QPainter::Antialiasing);
  m_chart->setMinimumHeight(fontMetrics().height() * 12);
  splitter->addWidget(m_chart);
  splitter->addWidget(m_table);
  splitter->addWidget(m_samplesPanel);
  splitter->setStretchFactor(0, 2);
  splitter->setStretchFactor(1, 3);
  splitter->setStretchFactor(2, 2);
  auto *layout = new QVBoxLayout(this);
  layout->addWidget(m_summary);
  layout->addLayout(bar);
  layout->addWidget(splitter, 1);

  connect(m_mode, &QComboBox::currentIndexChanged, this, [this] {
    const auto mode = static_cast<AccuracyFilter::Mode>(m_mode->currentData().toInt());
    m_filter->setMode(mode);
    // On the Order column error born comes in its rank, worst first; the other modes in graph order.
    m_table->sortByColumn(AccuracyModel::Order, Qt::AscendingOrder);
  });
  connect(m_search, &QLineEdit::textChanged, m_filter, &AccuracyFilter::setNameFilter);
  connect(m_compare, &QComboBox::activated, this, [this] { compareWithRun(m_compare->currentData().toLongLong()); });
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
    const QString name = currentLayer();
    m_keep->setEnabled(!name.isEmpty());
    const project::RunRecord *run = m_context->project().findRun(m_runId);
    m_tensors->setEnabled(!name.isEmpty() && run && tensorFilesOf(*run).complete());
    m_worst->setEnabled(m_model->sampleStats(name) != nullptr);
    rebuildChart();
    m_publishing = true;
    m_context->selectOp(name);
    m_publishing = false;
  });
  connect(m_context, &StudioContext::opSelectionChanged, this, [this](const QString &name) {
    if (!m_publishing)
      selectLayer(name);
  });
  // A node selected in a graph view: its tensor name is the layer of the comparison; a run recorded when
  // ops were named after ONNX nodes has it under the node's legacy name.
  connect(m_context, &StudioContext::graphSelectionChanged, this, [this] {
    const GraphSelection &g = m_context->graphSelection();
    if (!g.graph || g.node == graph::kNoNode || g.node >= g.graph->nodes.size())
      return;
    const graph::Node &n = g.graph->nodes[g.node];
    const QString name = QString::fromStdString(n.name);
    const std::string &legacy = n.legacyName.empty() ? n.onnxNode : n.legacyName;
    selectLayer(m_model->report().indexOf(name) < 0 && !legacy.empty() ? QString::fromStdString(legacy) : name);
  });
  connect(m_context, &StudioContext::projectChanged, this, [this](Section section) {
    if (section == Section::Runs)
      fillRunChoices();
  });
  connect(m_context, &StudioContext::runFinished, this, [this] { fillRunChoices(); });
  reloadRun();
}

QString AccuracyView::currentLayer() const {
  const QModelIndex index = m_filter->mapToSource(m_table->currentIndex());
  return index.isValid() ? m_model->layer(index.row()).name : QString();
}

void AccuracyView::setFilterMode(AccuracyFilter::Mode mode) {
  m_mode->setCurrentIndex(m_mode->findData(mode));
}

void AccuracyView::reloadRun() {
  if (const project::RunRecord *run = m_context->project().findRun(m_runId)) {
    m_title = runLabel(*run);
    m_model->setReport(accuracyOfRun(*run));
  }
  loadSampleRecords();
  fillRunChoices();
  // By default compare with the run before this one that has layer metrics.
  qint64 previous = -1;
  for (const project::RunRecord &r : m_context->project().runs)
    if (r.id < m_runId && !accuracyOfRun(r).layers.empty())
      previous = r.id;
  compareWithRun(previous);
}

void AccuracyView::loadSampleRecords() {
  const quint64 generation = ++m_recordsGeneration;
  const project::RunRecord *run = m_context->project().findRun(m_runId);
  if (!run) {
    showSampleRecords({});
    return;
  }
  runInBackground(
      this, [copy = *run] { return sampleRecordsOfRun(copy); },
      [this, generation](const SampleRecords &records) {
        if (generation == m_recordsGeneration) // a newer run or report superseded it
          showSampleRecords(records);
      });
}

void AccuracyView::showSampleRecords(SampleRecords records) {
  m_records = std::move(records);
  if (!m_records.error.isEmpty())
    m_context->log(LogLevel::Warning,
                   tr("Accuracy over samples of run #%1: %2").arg(m_runId).arg(m_records.error));
  QHash<QString, driver::LayerStats> stats;
  if (m_records.samples)
    for (const driver::LayerStats &l : m_records.samples->layers)
      stats.insert(QString::fromStdString(l.name), l);
  const QString current = currentLayer();
  m_model->setSampleStats(std::move(stats));
  const bool many = m_model->hasSampleStats();
  for (int c = AccuracyModel::MeanCosine; c <= AccuracyModel::WorstSample; ++c)
    m_table->setColumnHidden(c, !many);
  // Over many samples the single-sample SQNR and max |Δ| (the worst sample's) make way for the statistics.
  const bool isolated = m_model->report().hasIsolated();
  for (int c : {AccuracyModel::AccSqnr, AccuracyModel::AccMaxDiff})
    m_table->setColumnHidden(c, many);
  for (int c : {AccuracyModel::IsoSqnr, AccuracyModel::IsoMaxDiff})
    m_table->setColumnHidden(c, many || !isolated);
  m_table->setColumnHidden(AccuracyModel::IsoP5Cosine, !many || !isolated);
  m_worst->setVisible(many);
  m_samplesPanel->setVisible(m_samplesPanel->setRecords(m_records));
  if (!current.isEmpty())
    selectLayer(current);
  updateSummary();
  Q_EMIT samplesLoaded();
}

bool AccuracyView::showWorstSample(const QString &layer) {
  const driver::LayerStats *stats = m_model->sampleStats(layer);
  return stats && showLayerOnSample(layer, stats->accumulated.worstSample);
}

bool AccuracyView::showLayerOnSample(const QString &layer, int64_t sampleIndex) {
  const driver::SampleResult *sample = m_records.sample(sampleIndex);
  if (layer.isEmpty() || !sample)
    return false;
  // A deploy over many samples streams them and keeps no tensors; one that kept the worst sample's (a run
  // on that one sample) shows them directly.
  const project::RunRecord *run = m_context->project().findRun(m_runId);
  if (sampleIndex == m_records.samples->worstSample && run && tensorFilesOf(*run).complete()) {
    Q_EMIT tensorsRequested(m_runId, layer);
    return true;
  }
  QStringList files;
  for (const std::string &f : sample->files)
    files << QString::fromStdString(f);
  Q_EMIT sampleTensorsRequested(m_runId, layer, files);
  return true;
}

void AccuracyView::fitNameColumn() {
  int longest = 0;
  for (const LayerAccuracy &l : m_model->report().layers)
    longest = std::max(longest, fontMetrics().horizontalAdvance(l.name));
  const int cap = fontMetrics().horizontalAdvance(QLatin1Char('x')) * 34;
  m_table->setColumnWidth(AccuracyModel::Name, std::clamp(longest + fontMetrics().height(), cap / 3, cap));
}

void AccuracyView::setReport(AccuracyReport report, const QString &title) {
  m_runId = -1;
  ++m_recordsGeneration;
  showSampleRecords({});
  m_title = title;
  m_model->setReport(std::move(report));
  fillRunChoices();
  compareWithRun(-1);
}

bool AccuracyView::loadFile(const QString &path, QString *error) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    *error = QStringLiteral("%1: %2").arg(path, file.errorString());
    return false;
  }
  QString why;
  std::optional<AccuracyReport> report = parseAccuracyJson(file.readAll(), &why);
  if (!report) {
    *error = QStringLiteral("%1: %2").arg(path, why);
    return false;
  }
  setReport(std::move(*report), path);
  return true;
}

void AccuracyView::fillRunChoices() {
  const QSignalBlocker block(m_compare);
  m_compare->clear();
  m_compare->addItem(tr("(no other run)"), qint64(-1));
  for (auto it = m_context->project().runs.rbegin(); it != m_context->project().runs.rend(); ++it)
    if (it->id != m_runId && !accuracyOfRun(*it).layers.empty())
      m_compare->addItem(runLabel(*it), qint64(it->id));
  const int index = m_compare->findData(m_previousRun);
  m_compare->setCurrentIndex(index < 0 ? 0 : index);
}

void AccuracyView::compareWithRun(qint64 runId) {
  m_previousRun = -1;
  m_previousReport = {};
  QHash<QString, double> cosines;
  if (const project::RunRecord *run = runId >= 0 ? m_context->project().findRun(runId) : nullptr) {
    m_previousRun = runId;
    m_previousReport = accuracyOfRun(*run);
    for (const LayerAccuracy &l : m_previousReport.layers)
      if (l.accumulated.present)
        cosines.insert(l.name, l.accumulated.cosine);
  }
  m_model->setPrevious(cosines);
  m_table->setColumnHidden(AccuracyModel::PrevCosine, !m_model->hasPrevious());
  m_table->setColumnHidden(AccuracyModel::DeltaCosine, !m_model->hasPrevious());
  const bool isolated = m_model->report().hasIsolated();
  for (int c = AccuracyModel::IsoCosine; c <= AccuracyModel::IsoStatus; ++c)
    m_table->setColumnHidden(c, !isolated);
  const int index = m_compare->findData(m_previousRun);
  m_compare->setCurrentIndex(index < 0 ? 0 : index);
  fitNameColumn();
  updateSummary();
  rebuildChart();
}

void AccuracyView::updateSummary() {
  const AccuracyReport &r = m_model->report();
  int failed = 0;
  for (const LayerAccuracy &l : r.layers)
    failed += l.accumulated.present && !l.accumulated.passed;
  QString text = QStringLiteral("<b>%1</b> — %2").arg(m_title.toHtmlEscaped(), countText(static_cast<qint64>(r.layers.size()),
                                                                                         tr("layer"), tr("layers")));
  if (r.toleranceCosine > 0)
    text += tr(", tolerance cos %1 euc %2").arg(r.toleranceCosine).arg(r.toleranceEuclidean);
  if (failed)
    text += tr(", <span style='color:%1'><b>%2 NOT_SIMILAR</b>, first at <b>%3</b></span>")
                .arg(statusColor(QStringLiteral("NOT_SIMILAR")).name())
                .arg(failed)
                .arg(r.firstFailing.toHtmlEscaped());
  else if (!r.layers.empty())
    text += tr(", all within tolerance");
  if (!r.hasIsolated() && !r.layers.empty())
    text += tr(" <i>(accumulated only: deploy with --compare_all for isolated error)</i>");
  if (const std::optional<driver::CompareSamplesRecord> &samples = m_records.samples) {
    text += tr("<br>%1 over <b>%2</b>, ")
                .arg(samples->testInput.empty() ? tr("Statistics")
                                                : QString::fromStdString(samples->testInput).toHtmlEscaped())
                .arg(countText(static_cast<qint64>(samples->samples.size()), tr("sample"), tr("samples")));
    text += samples->failingSamples > 0 ? tr("<span style='color:%1'><b>%2 failing</b></span>")
                                              .arg(statusColor(QStringLiteral("NOT_SIMILAR")).name())
                                              .arg(samples->failingSamples)
                                        : tr("none failing");
    if (const driver::SampleResult *worst = m_records.sample(samples->worstSample))
      text += tr(", worst sample <b>%1</b> (output cos %2; the single-sample metrics above are its own)")
                  .arg(QString::fromStdString(worst->name).toHtmlEscaped())
                  .arg(worst->outputCosine, 0, 'f', 6);
  }
  m_summary->setText(text);
}

void AccuracyView::rebuildChart() {
  const AccuracyReport &r = m_model->report();
  const QPalette pal = palette();
  QChart *chart = vis::newChart(pal);

  auto *acc = new QLineSeries;
  acc->setName(tr("accumulated cosine"));
  acc->setPen(QPen(QColor(0x1f, 0x77, 0xb4), 2));
  auto *iso = new QLineSeries;
  iso->setName(tr("isolated cosine"));
  iso->setPen(QPen(QColor(0xff, 0x7f, 0x0e), 2));
  std::map<QString, QScatterSeries *> byStatus;
  double low = 1.0;
  for (const LayerAccuracy &l : r.layers) {
    const double x = l.order + 1;
    if (l.accumulated.present && std::isfinite(l.accumulated.cosine)) {
      acc->append(x, l.accumulated.cosine);
      low = std::min(low, l.accumulated.cosine);
      QScatterSeries *&points = byStatus[l.accumulated.status];
      if (!points) {
        points = new QScatterSeries;
        points->setName(l.accumulated.status);
        points->setMarkerSize(fontMetrics().height() * 0.55);
        points->setColor(statusColor(l.accumulated.status));
        points->setBorderColor(pal.color(QPalette::Base));
      }
      points->append(x, l.accumulated.cosine);
    }
    if (l.isolated.present && std::isfinite(l.isolated.cosine)) {
      iso->append(x, l.isolated.cosine);
      low = std::min(low, l.isolated.cosine);
    }
  }
  chart->addSeries(acc);
  if (iso->count())
    chart->addSeries(iso);
  else
    delete iso;
  if (!m_previousReport.layers.empty()) {
    auto *prev = new QLineSeries;
    prev->setName(tr("accumulated, run #%1").arg(m_previousRun));
    QPen pen(blend(pal.color(QPalette::Text), pal.color(QPalette::Base), 0.45), 1.5, Qt::DashLine);
    prev->setPen(pen);
    for (const LayerAccuracy &l : r.layers) {
      const int i = m_previousReport.indexOf(l.name);
      if (i >= 0 && m_previousReport.layers[i].accumulated.present &&
          std::isfinite(m_previousReport.layers[i].accumulated.cosine)) {
        prev->append(l.order + 1, m_previousReport.layers[i].accumulated.cosine);
        low = std::min(low, m_previousReport.layers[i].accumulated.cosine);
      }
    }
    chart->addSeries(prev);
  }
  // Failures drawn last, so they sit on top of the lines.
  for (const QString &status : {QStringLiteral("EQUAL"), QStringLiteral("CLOSE"), QStringLiteral("SIMILAR"),
                                QStringLiteral("NOT_SIMILAR"), QStringLiteral("MISMATCH")})
    if (auto it = byStatus.find(status); it != byStatus.end()) {
      chart->addSeries(it->second);
      byStatus.erase(it);
    }
  for (auto &[status, points] : byStatus)
    chart->addSeries(points);
  if (r.toleranceCosine > 0) {
    auto *tolerance = new QLineSeries;
    tolerance->setName(tr("tolerance %1").arg(r.toleranceCosine));
    tolerance->setPen(QPen(statusColor(QStringLiteral("NOT_SIMILAR")), 1, Qt::DotLine));
    tolerance->append(1, r.toleranceCosine);
    tolerance->append(std::max<double>(2, static_cast<double>(r.layers.size())), r.toleranceCosine);
    low = std::min(low, r.toleranceCosine);
    chart->addSeries(tolerance);
  }
  // The current layer: a ring around its accumulated point.
  const QString current = currentLayer();
  if (const int i = r.indexOf(current); i >= 0 && r.layers[i].accumulated.present) {
    auto *ring = new QScatterSeries;
    ring->setName(current);
    ring->setMarkerSize(fontMetrics().height() * 1.2);
    ring->setColor(Qt::transparent);
    ring->setBorderColor(pal.color(QPalette::Highlight));
    ring->setPen(QPen(pal.color(QPalette::Highlight), 2.5));
    ring->append(i + 1, r.layers[i].accumulated.cosine);
    chart->addSeries(ring);
  }

  auto *x = new QValueAxis;
  x->setTitleText(tr("layer in graph order"));
  x->setLabelFormat(QStringLiteral("%d"));
  x->setRange(0.5, std::max<double>(1.5, static_cast<double>(r.layers.size()) + 0.5));
  x->setTickType(QValueAxis::TicksDynamic);
  x->setTickAnchor(1);
  x->setTickInterval(std::max(1.0, std::ceil(static_cast<double>(r.layers.size()) / 12.0)));
  auto *y = new QValueAxis;
  y->setTitleText(tr("cosine"));
  const double span = std::max(1e-4, 1.0 - low);
  y->setRange(std::max(-1.0, low - span * 0.08), 1.0 + span * 0.04);
  y->setLabelFormat(span < 0.01 ? QStringLiteral("%.4f") : QStringLiteral("%.3f"));
  // Three labels (the lowest, the middle, 1): the chart is often a short strip above the table, where five
  // labels overlap and Qt elides them all.
  y->setTickCount(3);
  vis::attachAxes(chart, x, y, pal);
  // The ring and the per-status points explain themselves in the table; keep the legend to the lines
  // and the statuses that occur.
  for (QLegendMarker *marker : chart->legend()->markers())
    if (marker->series()->name() == current && !current.isEmpty())
      marker->setVisible(false);
  // Clicking a point selects its layer.
  for (QAbstractSeries *series : chart->series())
    if (auto *xy = qobject_cast<QXYSeries *>(series))
      connect(xy, &QXYSeries::clicked, this, [this](const QPointF &point) {
        const int i = static_cast<int>(std::lround(point.x())) - 1;
        if (i >= 0 && i < static_cast<int>(m_model->report().layers.size()))
          selectLayer(m_model->report().layers[i].name);
      });
  QChart *old = m_chart->chart();
  m_chart->setChart(chart);
  delete old;
}

void AccuracyView::selectLayer(const QString &name) {
  const int row = m_model->report().indexOf(name);
  if (row < 0)
    return;
  // Column 0, so scrolling to the row never scrolls the metrics sideways out of sight.
  QModelIndex index = m_filter->mapFromSource(m_model->index(row, AccuracyModel::Order));
  if (!index.isValid()) { // hidden by the filter: show all layers again
    m_mode->setCurrentIndex(0);
    m_filter->setMode(AccuracyFilter::All);
    m_search->clear();
    index = m_filter->mapFromSource(m_model->index(row, AccuracyModel::Order));
  }
  m_table->setCurrentIndex(index);
  m_table->scrollTo(index);
}

qint64 AccuracyView::keepLayerInFloat(const QString &op, const QString &mode) {
  if (op.isEmpty())
    return -1;
  const project::Project &p = m_context->project();
  // A run deployed from a configuration: that configuration's quantize table, as the graph's Keep in Float
  // edits it, so that deploying the configuration again uses it.
  if (const qint64 configId = configOfRun(p, m_runId); configId >= 0)
    return keepOpsInFloat(*m_context, configId, {op}, mode);
  // Otherwise (a report opened without its run): the project's newest quantize table.
  const project::QuantEntry entry{op.toStdString(), mode.toStdString()};
  if (p.quantTables.empty())
    return m_context->addQuantTable({0, "mixed precision", 1, "", "layers kept in float from the accuracy view", {entry}});
  const project::QuantTable &table = p.quantTables.back();
  const qint64 id = table.id;
  const std::vector<project::QuantEntry> before = table.entries;
  std::vector<project::QuantEntry> after = before;
  auto it = std::find_if(after.begin(), after.end(), [&](const auto &e) { return e.opName == entry.opName; });
  if (it != after.end() && *it == entry)
    return id; // already kept in that mode
  if (it != after.end())
    *it = entry;
  else
    after.push_back(entry);
  auto setEntries = [id](std::vector<project::QuantEntry> entries) {
    return [id, entries](project::Project &p) {
      for (project::QuantTable &t : p.quantTables)
        if (t.id == id)
          t.entries = entries;
    };
  };
  m_context->edit(tr("Keep %1 in %2").arg(op, mode), Section::QuantTables, setEntries(after), setEntries(before));
  m_context->log(LogLevel::Info, tr("%1 kept in %2 in quantize table '%3'")
                                     .arg(op, mode, QString::fromStdString(table.name)));
  return id;
}

} // namespace tpuc::ui
