// The graph view: layout through the view, search, clusters, exports, selection into the properties panel,
// `tpuc graph`, and screenshots of resnet18's Top IR (the real engine extracts it out of process).
#include "Screenshots.h"
#include "tpuc/GraphData/GraphLayout.h"
#include "tpuc/GraphData/GraphSynthetic.h"
#include "tpuc/Testing/TestAssets.h"
#include "ui/StudioContext.h"
#include "ui/panels/PropertiesPanel.h"
#include "ui/views/GraphViewTab.h"
#include "visualizer/GraphView.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QSignalSpy>
#include <QSplitter>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QXmlStreamReader>
#include <QtTest>

using namespace tpuc;

namespace {

using tpuc::ui::guitest::screenshotDir;

bool parsesAsXml(const QString &path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly))
    return false;
  QXmlStreamReader xml(&file);
  bool sawSvg = false;
  while (!xml.atEnd()) {
    xml.readNext();
    if (xml.isStartElement() && xml.name() == QLatin1String("svg"))
      sawSvg = true;
  }
  return !xml.hasError() && sawSvg;
}

bool overlap(const graph::Rect &a, const graph::Rect &b) {
  return a.x + 0.5 < b.x + b.width && b.x + 0.5 < a.x + a.width && a.y + 0.5 < b.y + b.height &&
         b.y + 0.5 < a.y + a.height;
}

} // namespace

class GraphViewTest : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase();
  void layoutIsStableAndDoesNotOverlap();
  void clustersOpenAndCloseWithCachedLayouts();
  void searchRevealsAndSelects();
  void exportsSvgAndPng();
  void selectionFillsPropertiesPanel();
  void overlaysHaveLegends();
  void tpucGraphHeadless();
  void resnet18Screenshots();
  void qwen2ShapedScreenshot();

private:
  QString m_resnetTop; ///< resnet18's Top IR made by `tpuc transform`, empty when the asset is missing
  QString m_missing;   ///< why m_resnetTop is empty: the tests that need it fail with this
  QTemporaryDir m_dir;
};

void GraphViewTest::initTestCase() {
  QVERIFY(m_dir.isValid());
  qputenv("TPUC", TPUC_ENGINE);
  QString onnx = QString::fromStdString(testsupport::assetsDir()) + QStringLiteral("/models/resnet18.onnx");
  if (!QFileInfo::exists(onnx)) {
    // Not a skip: the tests that need it fail and say what to do (README: a missing asset fails its test).
    m_missing = onnx + QStringLiteral(" is missing: ") + QString::fromLatin1(testsupport::kFetchHint);
    return;
  }
  QProcess tpuc;
  tpuc.setWorkingDirectory(m_dir.path());
  tpuc.start(QStringLiteral(TPUC_ENGINE), {"transform", "--model_name", "resnet18", "--model_def", onnx,
                                           "--input_shapes", "[[1,3,224,224]]", "--mlir",
                                           m_dir.filePath("resnet18.top.mlir")});
  QVERIFY(tpuc.waitForFinished(120000));
  QCOMPARE(tpuc.exitCode(), 0);
  m_resnetTop = m_dir.filePath("resnet18.top.mlir");
}

void GraphViewTest::layoutIsStableAndDoesNotOverlap() {
  auto g = std::make_shared<const graph::Graph>(graph::syntheticGraph(2000));
  vis::GraphView a, b;
  a.resize(800, 600);
  b.resize(800, 600);
  a.setGraph(g);
  b.setGraph(g);
  QVERIFY(a.waitForLayout());
  QVERIFY(b.waitForLayout());
  const graph::Scene &sa = a.layoutScene(), &sb = b.layoutScene();
  QVERIFY(!sa.items.empty());
  QCOMPARE(sa.items.size(), sb.items.size());
  for (size_t i = 0; i < sa.items.size(); ++i) {
    QCOMPARE(sa.items[i].rect.x, sb.items[i].rect.x);
    QCOMPARE(sa.items[i].rect.y, sb.items[i].rect.y);
    for (size_t j = i + 1; j < sa.items.size(); ++j)
      QVERIFY2(!overlap(sa.items[i].rect, sa.items[j].rect), qPrintable(QString("items %1 and %2").arg(i).arg(j)));
  }
}

void GraphViewTest::clustersOpenAndCloseWithCachedLayouts() {
  auto g = std::make_shared<const graph::Graph>(graph::syntheticGraph(1000));
  vis::GraphView view;
  view.resize(800, 600);
  view.setGraph(g);
  QVERIFY(view.waitForLayout());
  QCOMPARE(view.layoutScene().itemOfCluster(1) >= 0, true);
  QCOMPARE(view.layoutScene().items[static_cast<size_t>(view.layoutScene().itemOfCluster(1))].kind,
           graph::ItemKind::Collapsed);
  view.setExpanded(1, true);
  QVERIFY(view.waitForLayout());
  QCOMPARE(view.layoutScene().items[static_cast<size_t>(view.layoutScene().itemOfCluster(1))].kind,
           graph::ItemKind::Frame);
  size_t runs = view.layoutStats().dotRuns;
  view.setExpanded(1, false);
  QVERIFY(view.waitForLayout());
  view.setExpanded(1, true);
  QVERIFY(view.waitForLayout());
  QCOMPARE(view.layoutStats().dotRuns, runs); // both levels came from the cache
  QVERIFY(view.isExpanded(1));
}

void GraphViewTest::searchRevealsAndSelects() {
  auto g = std::make_shared<const graph::Graph>(graph::syntheticGraph(1000));
  vis::GraphView view;
  view.resize(800, 600);
  view.setGraph(g);
  QVERIFY(view.waitForLayout());
  QSignalSpy selected(&view, &vis::GraphView::nodeSelected);
  QVector<graph::NodeId> matches = view.search(QStringLiteral("/stage1/block7/op"), false);
  QCOMPARE(matches.size(), 10);
  QCOMPARE(selected.count(), 1);
  QVERIFY(view.waitForLayout());
  // The first match is now drawn as a node (its clusters were opened).
  QVERIFY(view.layoutScene().itemOfNode(matches.front()) >= 0);
  QCOMPARE(view.selectedNode(), matches.front());
  QCOMPARE(view.nextMatch(), matches[1]);
  QString error;
  QVERIFY(view.search(QStringLiteral("block(7"), true, &error).isEmpty());
  QVERIFY(error.contains(QStringLiteral("invalid regular expression")));
  QCOMPARE(view.search(QStringLiteral("^/stage0/block1/op[0-3]$"), true).size(), 4);
}

void GraphViewTest::exportsSvgAndPng() {
  auto g = std::make_shared<const graph::Graph>(graph::syntheticGraph(300));
  vis::GraphView view;
  view.resize(800, 600);
  view.setGraph(g);
  QVERIFY(view.waitForLayout());
  QString svg = m_dir.filePath("export.svg"), png = m_dir.filePath("export.png");
  QString error;
  QVERIFY2(view.exportSvg(svg, &error), qPrintable(error));
  QVERIFY(parsesAsXml(svg));
  QVERIFY2(view.exportPng(png, &error), qPrintable(error));
  QImage image(png);
  QVERIFY(!image.isNull());
  QVERIFY(image.width() > 100);
  QVERIFY(!view.exportSvg(QStringLiteral("/nonexistent-dir/x.svg"), &error));
  QVERIFY(error.contains(QStringLiteral("/nonexistent-dir/x.svg")));
}

void GraphViewTest::selectionFillsPropertiesPanel() {
  ui::StudioContext context;
  ui::PropertiesPanel panel(&context);
  ui::GraphViewTab tab(&context, QString());
  auto g = std::make_shared<const graph::Graph>(graph::syntheticGraph(100));
  tab.setGraph(g);
  QVERIFY(tab.view()->waitForLayout());
  graph::NodeId add = g->findByName("/stage0/block2/op8");
  QVERIFY(add != graph::kNoNode);
  tab.view()->selectNode(add);
  QCOMPARE(context.graphSelection().node, add);
  auto *tree = panel.findChild<QTreeWidget *>();
  QVERIFY(tree);
  QStringList rows;
  for (int i = 0; i < tree->topLevelItemCount(); ++i)
    rows << tree->topLevelItem(i)->text(0) + '=' + tree->topLevelItem(i)->text(1);
  QVERIFY2(rows.contains(QStringLiteral("Op=top.add")), qPrintable(rows.join('\n')));
  QVERIFY(rows.contains(QStringLiteral("Producers=/stage0/block2/op7, /stage0/block1/op9")));
  QVERIFY(rows.contains(QStringLiteral("Consumers=/stage0/block2/op9")));

  // An op selected elsewhere by name (the accuracy view's rows) selects its node here; an unknown name
  // leaves the selection alone.
  graph::NodeId other = g->findByName("/stage0/block1/op9");
  QVERIFY(other != graph::kNoNode);
  context.selectOp(QStringLiteral("/stage0/block1/op9"));
  QCOMPARE(context.graphSelection().node, other);
  context.selectOp(QStringLiteral("no-such-op"));
  QCOMPARE(context.graphSelection().node, other);
}

void GraphViewTest::overlaysHaveLegends() {
  auto g = std::make_shared<const graph::Graph>(graph::syntheticGraph(100));
  vis::GraphOverlay overlay;
  overlay.setGraph(g.get());
  QVERIFY(overlay.legend().entries.size() >= 4); // conv, norm, activation, elementwise
  overlay.setMode(vis::OverlayMode::Flops);
  QVERIFY(overlay.legend().ramp);
  QVERIFY(overlay.nodeColor(0) != overlay.nodeColor(1)); // conv vs batchnorm FLOPs
  overlay.setMode(vis::OverlayMode::Cosine);
  QVERIFY(overlay.legend().note.contains(QStringLiteral("no data")));
  overlay.setValues(vis::OverlayMode::Cosine, {{"/stage0/block0/op0", 0.91}, {"/stage0/block0/op1", 0.999}});
  QVERIFY(overlay.legend().ramp);
  QCOMPARE(overlay.valueText(0), QStringLiteral("cos 0.910000"));
  QVERIFY(overlay.valueText(2).isEmpty());
  // A run's layer metrics feed it.
  project::RunRecord run;
  run.layerMetricsJson = R"([{"name": "a", "cosine": 0.5}, {"name": "b", "cosine": null}])";
  auto values = ui::runLayerValues(run, "cosine");
  QCOMPARE(values.size(), size_t(1));
  QCOMPARE(values["a"], 0.5);
}

void GraphViewTest::tpucGraphHeadless() {
  if (m_resnetTop.isEmpty())
    QFAIL(qPrintable(m_missing));
  for (const char *format : {"svg", "png", "dot", "json"}) {
    QString out = m_dir.filePath(QStringLiteral("resnet18.") + format);
    QProcess tpuc;
    tpuc.start(QStringLiteral(TPUC_ENGINE), {"graph", m_resnetTop, "--format", format, "-o", out});
    QVERIFY(tpuc.waitForFinished(60000));
    QCOMPARE(tpuc.exitCode(), 0);
    QVERIFY(QFileInfo(out).size() > 100);
  }
  QVERIFY(parsesAsXml(m_dir.filePath("resnet18.svg")));
  QVERIFY(!QImage(m_dir.filePath("resnet18.png")).isNull());
  QFile::copy(m_dir.filePath("resnet18.svg"), screenshotDir() + "/graph-resnet18-tpuc.svg");
  QFile::remove(screenshotDir() + "/graph-resnet18-tpuc.png");
  QFile::copy(m_dir.filePath("resnet18.png"), screenshotDir() + "/graph-resnet18-tpuc.png");
  // Bad input: one line naming the file, exit code 2.
  QFile bad(m_dir.filePath("bad.mlir"));
  QVERIFY(bad.open(QIODevice::WriteOnly));
  bad.write("module { func.func @f( }");
  bad.close();
  QProcess tpuc;
  tpuc.start(QStringLiteral(TPUC_ENGINE), {"graph", bad.fileName(), "-o", m_dir.filePath("bad.svg")});
  QVERIFY(tpuc.waitForFinished(60000));
  QCOMPARE(tpuc.exitCode(), 2);
  QString err = QString::fromLocal8Bit(tpuc.readAllStandardError()).trimmed();
  QVERIFY2(err.contains(QStringLiteral("bad.mlir")) && !err.contains('\n'), qPrintable(err));
}

void GraphViewTest::resnet18Screenshots() {
  if (m_resnetTop.isEmpty())
    QFAIL(qPrintable(m_missing));
  ui::StudioContext context;
  QSplitter window;
  auto *tab = new ui::GraphViewTab(&context, m_resnetTop, &window);
  auto *panel = new ui::PropertiesPanel(&context, &window);
  window.addWidget(tab);
  window.addWidget(panel);
  window.setSizes({1000, 380});
  window.resize(1400, 900);
  window.show();
  QSignalSpy loaded(tab, &ui::GraphViewTab::loaded);
  QVERIFY(loaded.wait(60000));
  QVERIFY2(loaded.front().front().toString().isEmpty(), qPrintable(loaded.front().front().toString()));
  vis::GraphView *view = tab->view();
  const graph::Graph &g = *view->graph();
  QVERIFY(g.visibleNodeCount() > 25); // after BatchNorm and Relu folding
  QVERIFY(window.grab().save(screenshotDir() + "/graph-resnet18.png"));

  // Open layer1 and select its first conv: producers and consumers highlighted, properties filled.
  // Named after the tensor it produces: the conv with its fused relu gives the relu's.
  graph::NodeId conv = g.findByName("/layer1/layer1.0/relu/Relu_output_0");
  QVERIFY(conv != graph::kNoNode);
  view->selectNode(conv);
  QVERIFY(view->waitForLayout());
  QVERIFY(view->layoutScene().itemOfNode(conv) >= 0);
  view->fitToView();
  QCOMPARE(context.graphSelection().node, conv);
  QVERIFY(window.grab().save(screenshotDir() + "/graph-resnet18-layer1-selected.png"));

  view->expandAll();
  QVERIFY(view->waitForLayout());
  tab->setOverlay(static_cast<int>(vis::OverlayMode::Flops));
  QCOMPARE(view->overlay(), vis::OverlayMode::Flops);
  view->fitToView();
  QVERIFY(window.grab().save(screenshotDir() + "/graph-resnet18-flops.png"));
  tab->setOverlay(static_cast<int>(vis::OverlayMode::Category));
  QString error;
  QVERIFY2(view->exportSvg(screenshotDir() + "/graph-resnet18-export.svg", &error), qPrintable(error));
  QVERIFY(parsesAsXml(screenshotDir() + "/graph-resnet18-export.svg"));
  QVERIFY2(view->exportPng(screenshotDir() + "/graph-resnet18-export.png", &error, 1.0), qPrintable(error));
}

void GraphViewTest::qwen2ShapedScreenshot() {
  // 24 identical decoder layers: the first view shows them collapsed; opening two lays out one.
  QString path = m_dir.filePath("qwen2.top.mlir");
  QFile file(path);
  QVERIFY(file.open(QIODevice::WriteOnly));
  file.write(QByteArray::fromStdString(graph::transformerTopIR({})));
  file.close();
  ui::StudioContext context;
  ui::GraphViewTab tab(&context, path);
  tab.resize(1400, 900);
  tab.show();
  QSignalSpy loaded(&tab, &ui::GraphViewTab::loaded);
  QVERIFY(loaded.wait(60000));
  QVERIFY2(loaded.front().front().toString().isEmpty(), qPrintable(loaded.front().front().toString()));
  vis::GraphView *view = tab.view();
  const graph::Graph &g = *view->graph();
  std::vector<graph::ClusterId> layers;
  for (const graph::Graph::LevelItem &item : g.levelItems(graph::kRootCluster))
    if (item.isCluster)
      layers.push_back(item.ref);
  QCOMPARE(layers.size(), size_t(24));
  view->setExpanded(layers[3], true);
  QVERIFY(view->waitForLayout());
  size_t runs = view->layoutStats().dotRuns;
  view->setExpanded(layers[4], true);
  QVERIFY(view->waitForLayout());
  // Layer 4's interior (and its attention/MLP scopes) came from layer 3's layouts; only the root ran again.
  QCOMPARE(view->layoutStats().dotRuns, runs + 1);
  graph::NodeId q = g.findByName("model.layers.3.self_attn.q_proj");
  view->selectNode(q);
  QVERIFY(view->waitForLayout());
  QVERIFY(tab.grab().save(screenshotDir() + "/graph-qwen2-layer3.png"));
}

QTEST_MAIN(GraphViewTest)
#include "graphview_tests.moc"
