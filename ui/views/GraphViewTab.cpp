// The graph tab: runs `tpuc graph --format json`, shows the result, feeds overlays from the run history.
#include "ui/views/GraphViewTab.h"

#include "ui/views/SampleAccuracy.h"

#include "ui/views/TensorsTab.h"

#include "ui/MixedPrecision.h"

#include "ui/jobs/EngineClient.h"

#include "ui/Background.h"
#include "visualizer/GraphView.h"

#include <QCheckBox>

#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>

#include <cmath>

namespace tpuc::ui {

namespace {

QString qs(const std::string &s) { return QString::fromStdString(s); }

/// Reads and parses the JSON the engine wrote; runs on a worker thread.
struct LoadResult {
  std::shared_ptr<const graph::Graph> graph;
  QString error;
};
LoadResult readGraphJson(const QString &path, const QString &source) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly))
    return {nullptr, QObject::tr("cannot read the engine's output %1").arg(path)};
  QByteArray bytes = file.readAll();
  Result<graph::Graph> parsed =
      graph::fromJson(std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())));
  if (!parsed)
    return {nullptr, qs(parsed.error())};
  auto g = std::make_shared<graph::Graph>(std::move(*parsed));
  g->source = source.toStdString();
  return {std::move(g), {}};
}

} // namespace

std::unordered_map<std::string, double> runLayerValues(const project::RunRecord &run, const std::string &key) {
  std::unordered_map<std::string, double> values;
  QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(run.layerMetricsJson));
  const QString k = qs(key);
  for (const QJsonValue &row : doc.array()) {
    QJsonObject o = row.toObject();
    QJsonValue v = o.value(k);
    if (o.value(QStringLiteral("name")).isString() && v.isDouble())
      values[o.value(QStringLiteral("name")).toString().toStdString()] = v.toDouble();
  }
  return values;
}

GraphViewTab::GraphViewTab(StudioContext *context, const QString &mlirPath, QWidget *parent)
    : QWidget(parent), m_context(context), m_path(mlirPath), m_view(new vis::GraphView(this)),
      m_search(new QLineEdit(this)), m_regex(new QCheckBox(tr("Regex"), this)), m_overlay(new QComboBox(this)),
      m_status(new QLabel(this)) {
  auto *bar = new QHBoxLayout;
  bar->setContentsMargins(4, 4, 4, 0);
  m_search->setPlaceholderText(tr("Find op by name, type or category (Enter: next)"));
  m_search->setClearButtonEnabled(true);
  m_search->setMinimumWidth(fontMetrics().averageCharWidth() * 24);
  bar->addWidget(m_search, 2);
  bar->addWidget(m_regex);
  bar->addWidget(new QLabel(tr("Colour:"), this));
  for (vis::OverlayMode mode : vis::kAllOverlays)
    m_overlay->addItem(vis::overlayName(mode), static_cast<int>(mode));
  bar->addWidget(m_overlay);
  auto button = [&](const QString &text, const QString &tip, auto slot) {
    auto *b = new QToolButton(this);
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    connect(b, &QToolButton::clicked, this, slot);
    bar->addWidget(b);
    return b;
  };
  button(tr("Expand All"), tr("Open every cluster (large graphs take a while)"), [this] { m_view->expandAll(); });
  button(tr("Collapse All"), tr("Close every cluster"), [this] { m_view->collapseAll(); });
  button(tr("Fit"), tr("Fit the graph in the view (F)"), [this] { m_view->fitToView(); });
  QToolButton *tensors =
      button(tr("Tensors…"),
             tr("The selected op's float and quantized tensors side by side (from the selected "
                "run, or the newest deploy that compared every layer)"),
             [this] { requestTensors(); });
  tensors->setObjectName(QStringLiteral("graphTensors"));
  QToolButton *keep =
      button(tr("Keep in Float"),
             tr("Add the selected op to the quantize table of the current compile configuration, in "
                "the float mode its chip runs (F16; BF16 where the chip has no F16); undoable"),
             [this] { keepSelectedInFloat(); });
  keep->setObjectName(QStringLiteral("graphKeepFloat"));
  QToolButton *redeploy =
      button(tr("Re-deploy and Compare"),
             tr("Deploy the current compile configuration again (with its quantize table) and "
                "compare the new run with the previous one"),
             [this] { Q_EMIT redeployRequested(currentConfigId(*m_context)); });
  redeploy->setObjectName(QStringLiteral("graphRedeploy"));
  m_view->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(m_view, &QWidget::customContextMenuRequested, this, [this](const QPoint &pos) {
    QMenu menu(this);
    QAction *keepAction = menu.addAction(tr("Keep in Float"), this, [this] { keepSelectedInFloat(); });
    keepAction->setEnabled(m_view->selectedNode() != graph::kNoNode);
    menu.addAction(tr("Re-deploy and Compare"), this,
                   [this] { Q_EMIT redeployRequested(currentConfigId(*m_context)); });
    menu.addAction(tr("Tensors…"), this, [this] { requestTensors(); });
    menu.exec(m_view->mapToGlobal(pos));
  });
  button(tr("SVG…"), tr("Export what is shown as SVG"), [this] { exportAs(QStringLiteral("svg")); });
  button(tr("PNG…"), tr("Export what is shown as PNG"), [this] { exportAs(QStringLiteral("png")); });
  bar->addStretch(1);

  auto *layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addLayout(bar);
  layout->addWidget(m_view, 1);
  m_status->setContentsMargins(6, 0, 6, 2);
  layout->addWidget(m_status);

  connect(m_search, &QLineEdit::returnPressed, this, [this] {
    if (m_search->text() == m_lastQuery && !m_view->isLayoutPending()) {
      m_view->nextMatch();
      return;
    }
    m_lastQuery = m_search->text();
    QString error;
    QVector<graph::NodeId> matches = m_view->search(m_search->text(), m_regex->isChecked(), &error);
    m_status->setText(error.isEmpty() ? tr("%n match(es)", nullptr, static_cast<int>(matches.size())) : error);
  });
  connect(m_overlay, &QComboBox::currentIndexChanged, this, [this] {
    m_view->setOverlay(static_cast<vis::OverlayMode>(m_overlay->currentData().toInt()));
  });
  connect(m_view, &vis::GraphView::nodeSelected, this, [this](graph::NodeId id) {
    m_context->selectGraphNode({m_view->graph(), id});
    // By name too, so the accuracy table and the chip views follow (an op is named after its tensor).
    if (auto graph = m_view->graph(); graph && id != graph::kNoNode && id < static_cast<graph::NodeId>(graph->nodes.size()))
      m_context->selectOp(QString::fromStdString(graph->nodes[id].name));
  });
  connect(m_view, &vis::GraphView::layoutApplied, this, [this] {
    const graph::Scene &s = m_view->layoutScene();
    if (!m_view->graph())
      return;
    m_status->setText(tr("%1 · %2 ops · %3 shown · layout %4 ms")
                          .arg(QFileInfo(m_path).fileName())
                          .arg(m_view->graph()->visibleNodeCount())
                          .arg(s.items.size())
                          .arg(m_view->lastLayoutMs()));
  });
  connect(context, &StudioContext::runFinished, this, &GraphViewTab::applyRunMetrics);
  connect(context, &StudioContext::selectionChanged, this, [this](const Selection &s) {
    if (s.section == Section::Runs)
      applyRunMetrics();
    applyFloatMarks();
  });
  connect(context, &StudioContext::projectChanged, this, [this](Section s) {
    if (s == Section::QuantTables || s == Section::CompileConfigs)
      applyFloatMarks();
  });
  connect(context, &StudioContext::projectLoaded, this, &GraphViewTab::applyFloatMarks);
  // An op picked elsewhere (e.g. a row of the accuracy view) is shown here when this graph has it.
  connect(context, &StudioContext::opSelectionChanged, this, [this](const QString &name) {
    auto graph = m_view->graph();
    if (!graph)
      return;
    graph::NodeId id = graph->findByName(name.toStdString());
    const GraphSelection &current = m_context->graphSelection();
    if (id != graph::kNoNode && !(current.graph == graph && current.node == id))
      m_view->selectNode(id);
  });
  if (!m_path.isEmpty())
    reload();
}

GraphViewTab::~GraphViewTab() = default; // m_call, a child, kills and reaps the engine

void GraphViewTab::failed(const QString &message) {
  m_status->setText(message);
  m_context->log(LogLevel::Error, message);
  Q_EMIT loaded(message);
}

void GraphViewTab::reload() {
  delete m_call; // a superseded call: its child is killed
  m_call = nullptr;
  quint64 generation = ++m_generation;
  m_status->setText(tr("Reading %1…").arg(QFileInfo(m_path).fileName()));
  auto dir = std::make_shared<QTemporaryDir>();
  QString out = dir->filePath(QStringLiteral("graph.json"));
  driver::GraphOptions request;
  request.mlir = m_path.toStdString();
  request.format = "json";
  request.output = out.toStdString();
  EngineClient::Called called = EngineClient::call(request, this);
  if (!called.call) {
    failed(called.error);
    return;
  }
  m_call = called.call;
  connect(m_call, &EngineCall::failedToStart, this,
          [this] { failed(tr("The tpuc engine was not found at %1").arg(tpucPath())); });
  connect(m_call, &EngineCall::finished, this,
          [this, dir, out, generation](int code, const QString &stderrText) {
            m_call->deleteLater();
            m_call = nullptr;
            if (generation != m_generation)
              return;
            if (code != 0) {
              failed(stderrText.isEmpty() ? tr("tpuc graph failed on %1 (exit code %2)").arg(m_path).arg(code)
                                          : stderrText.section(QLatin1Char('\n'), -1));
              return;
            }
            QString source = m_path;
            runInBackground(
                this, [dir, out, source] { return readGraphJson(out, source); },
                [this, generation](const LoadResult &result) {
                  if (generation != m_generation)
                    return;
                  if (!result.graph) {
                    failed(result.error);
                    return;
                  }
                  setGraph(result.graph);
                });
          });
}

void GraphViewTab::setGraph(std::shared_ptr<const graph::Graph> graph) {
  m_view->setGraph(std::move(graph));
  applyRunMetrics();
  applyFloatMarks();
  connect(m_view, &vis::GraphView::layoutApplied, this, [this] { Q_EMIT loaded({}); },
          Qt::SingleShotConnection);
}

void GraphViewTab::setOverlay(int mode) {
  int index = m_overlay->findData(mode);
  if (index >= 0)
    m_overlay->setCurrentIndex(index);
}

qint64 GraphViewTab::tensorRun() const {
  const std::vector<project::RunRecord> &runs = m_context->project().runs;
  if (m_context->selection().section == Section::Runs)
    if (const project::RunRecord *r = m_context->project().findRun(m_context->selection().id);
        r && tensorFilesOf(*r).complete())
      return r->id;
  for (auto it = runs.rbegin(); it != runs.rend(); ++it)
    if (tensorFilesOf(*it).complete())
      return it->id;
  return -1;
}

bool GraphViewTab::requestTensors() {
  const std::shared_ptr<const graph::Graph> graph = m_view->graph();
  const graph::NodeId id = m_view->selectedNode();
  const qint64 run = tensorRun();
  if (!graph || id == graph::kNoNode || id >= graph->nodes.size()) {
    m_status->setText(tr("Select an op first, then Tensors… shows its tensors."));
    return false;
  }
  if (run < 0) {
    m_status->setText(tr("No run kept its tensors: deploy with a test input and “compare every layer”."));
    return false;
  }
  const graph::Node &node = graph->nodes[id];
  QStringList inputs;
  for (const graph::Operand &operand : node.operands)
    if (!operand.constant && operand.producer != graph::kNoNode)
      inputs << QString::fromStdString(operand.name);
  Q_EMIT tensorsRequested(run, QString::fromStdString(node.name), inputs);
  return true;
}

qint64 GraphViewTab::keepSelectedInFloat() {
  const std::shared_ptr<const graph::Graph> graph = m_view->graph();
  const graph::NodeId id = m_view->selectedNode();
  if (!graph || id == graph::kNoNode || id >= graph->nodes.size()) {
    m_status->setText(tr("Select an op first, then Keep in Float adds it to the quantize table."));
    return -1;
  }
  const qint64 configId = currentConfigId(*m_context);
  const project::CompileConfig *config = nullptr;
  for (const project::CompileConfig &c : m_context->project().compileConfigs)
    if (c.id == configId)
      config = &c;
  if (!config) {
    m_status->setText(
        tr("The project has no compile configuration yet: add one (Edit ▸ Add Compile Configuration)."));
    return -1;
  }
  const QString mode = floatModeFor(*config);
  if (mode.isEmpty()) {
    m_status->setText(tr("Configuration '%1' deploys F32: every op is already in float.")
                          .arg(QString::fromStdString(config->name)));
    return -1;
  }
  const QString op = QString::fromStdString(graph->nodes[id].name);
  const qint64 table = keepOpsInFloat(*m_context, configId, {op}, mode);
  m_status->setText(
      tr("%1 kept in %2 for configuration '%3'").arg(op, mode, QString::fromStdString(config->name)));
  return table;
}

void GraphViewTab::applyFloatMarks() {
  m_view->setNodeBadges(floatOpsOf(m_context->project(), currentConfigId(*m_context)));
}

void GraphViewTab::applyRunMetrics() {
  // The run selected in the explorer (or shown in a chip views tab) first, then the latest: the newest
  // compare and the newest simulation win.
  const std::vector<project::RunRecord> &all = m_context->project().runs;
  std::vector<const project::RunRecord *> runs;
  for (auto it = all.rbegin(); it != all.rend(); ++it)
    runs.push_back(&*it);
  if (m_context->selection().section == Section::Runs)
    std::stable_partition(runs.begin(), runs.end(),
                          [&](const project::RunRecord *r) { return r->id == m_context->selection().id; });
  bool haveCosine = false, haveCycles = false, haveGroups = false;
  // The error overlays follow the run the cosine comes from; the float gain the newest run that measured it.
  bool haveGain = false;
  for (auto it = runs.begin(); it != runs.end() && !(haveCosine && haveCycles && haveGroups && haveGain);
       ++it) {
    if (!haveGain)
      if (auto values = floatGainValues(**it); !values.empty()) {
        m_view->setNodeValues(vis::OverlayMode::FloatGain, std::move(values));
        haveGain = true;
      }
    if (!haveCosine)
      if (auto values = runLayerValues(**it, "cosine"); !values.empty()) {
        m_view->setNodeValues(vis::OverlayMode::IsolatedError, layerErrorValues(**it, true));
        m_view->setNodeValues(vis::OverlayMode::AccumulatedError, layerErrorValues(**it, false));
      }
    if (!haveCosine)
      if (auto values = runLayerValues(**it, "cosine"); !values.empty()) {
        m_view->setNodeValues(vis::OverlayMode::Cosine, std::move(values));
        haveCosine = true;
      }
    if (!haveCycles)
      if (auto values = runLayerValues(**it, "cycles"); !values.empty()) {
        m_view->setNodeValues(vis::OverlayMode::Cycles, std::move(values));
        haveCycles = true;
      }
    // The backend plan's groups (the layer-group view's), for ops whose IR carries no group attribute.
    if (!haveGroups)
      if (auto values = runLayerValues(**it, "group"); !values.empty()) {
        m_view->setNodeValues(vis::OverlayMode::LayerGroup, std::move(values));
        haveGroups = true;
      }
  }
}

void GraphViewTab::exportAs(const QString &format) {
  QString suggested = QFileInfo(m_path).completeBaseName() + QLatin1Char('.') + format;
  QString path = QFileDialog::getSaveFileName(this, tr("Export Graph"), QFileInfo(m_path).dir().filePath(suggested),
                                              format == QLatin1String("svg") ? tr("SVG (*.svg)") : tr("PNG (*.png)"));
  if (path.isEmpty())
    return;
  QString error;
  bool ok = format == QLatin1String("svg") ? m_view->exportSvg(path, &error) : m_view->exportPng(path, &error);
  if (ok)
    m_context->log(LogLevel::Info, tr("Exported the graph to %1").arg(path));
  else
    m_context->log(LogLevel::Error, error);
}

void fillGraphNodeProperties(QTreeWidget *tree, const graph::Graph &g, graph::NodeId id) {
  tree->clear();
  if (id >= g.nodes.size())
    return;
  const graph::Node &n = g.nodes[id];
  auto row = [&](QTreeWidgetItem *parent, const QString &name, const QString &value) {
    auto *item = parent ? new QTreeWidgetItem(parent, {name, value}) : new QTreeWidgetItem(tree, {name, value});
    item->setToolTip(1, value);
    return item;
  };
  auto tensorText = [](const graph::TensorInfo &t) {
    QString text = qs(t.label());
    if (!t.quant.empty())
      text += QStringLiteral(" (") + qs(t.quant) + QLatin1Char(')');
    return text;
  };
  row(nullptr, QObject::tr("Op"), qs(n.op));
  row(nullptr, QObject::tr("Name"), qs(n.name));
  // Ops are named after the tensors they produce; the ONNX node that produced it is provenance.
  if (!n.onnxNode.empty())
    row(nullptr, QObject::tr("ONNX node"), qs(n.onnxNode));
  if (!n.aliases.empty()) {
    QStringList aliases;
    for (const std::string &a : n.aliases)
      aliases << qs(a);
    row(nullptr, QObject::tr("Also named"), aliases.join(QStringLiteral(", ")));
  }
  row(nullptr, QObject::tr("Category"), qs(n.category));
  row(nullptr, QObject::tr("Source location"), qs(n.location));
  if (!n.precision.empty())
    row(nullptr, QObject::tr("Precision"), qs(n.precision));
  if (!n.quant.empty())
    row(nullptr, QObject::tr("Quantization"), qs(n.quant));
  if (n.flops)
    row(nullptr, QObject::tr("FLOPs"), QLocale().toString(static_cast<qlonglong>(*n.flops)));
  if (n.layerGroup)
    row(nullptr, QObject::tr("Layer group"), QString::number(*n.layerGroup));
  if (n.cluster != graph::kRootCluster)
    row(nullptr, QObject::tr("Cluster"), qs(g.clusters[n.cluster].name));
  QTreeWidgetItem *results = row(nullptr, QObject::tr("Results"), QString::number(n.results.size()));
  for (size_t i = 0; i < n.results.size(); ++i)
    row(results, i < n.resultNames.size() ? QStringLiteral("#%1 %2").arg(i).arg(qs(n.resultNames[i])) : QStringLiteral("#%1").arg(i),
        tensorText(n.results[i]));
  QTreeWidgetItem *operands = row(nullptr, QObject::tr("Operands"), QString::number(n.operands.size()));
  for (size_t i = 0; i < n.operands.size(); ++i)
    row(operands, qs(n.operands[i].name), tensorText(n.operands[i].tensor));
  QTreeWidgetItem *attrs = row(nullptr, QObject::tr("Attributes"), QString::number(n.attributes.size()));
  for (const graph::Attribute &a : n.attributes)
    row(attrs, qs(a.name), qs(a.value));
  auto names = [&](const std::vector<graph::NodeId> &ids) {
    QStringList out;
    for (graph::NodeId p : ids)
      out << qs(g.nodes[p].name);
    return out.join(QStringLiteral(", "));
  };
  row(nullptr, QObject::tr("Producers"), names(g.producers(id)));
  row(nullptr, QObject::tr("Consumers"), names(g.consumers(id)));
  tree->expandAll();
}

} // namespace tpuc::ui
