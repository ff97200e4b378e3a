// Pass inspection in the studio: the timeline of a real Top pipeline run (recorded in process on a small
// residual CNN), its text and graph diffs, and the side-by-side view with provenance. Screenshots:
// pass-diff-text.png, pass-diff-graph.png, side-by-side.png.
#include "tpuc/Support/Npz.h"
#include "tpuc/Transforms/PassRecorder.h"
#include "tpuc/Transforms/Pipelines.h"
#include "ui/views/PassInspectorView.h"
#include "visualizer/PassDiffText.h"
#include "visualizer/PassGraphView.h"
#include "visualizer/PassTimeline.h"
#include "visualizer/SideBySide.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <set>

using namespace tpuc;

namespace {

/// A residual CNN as an importer leaves it (placeholder shapes, each op named after its tensor with its
/// ONNX node as provenance), with its weights written to `npz`.
std::string residualCnn(const std::string &npz) {
  NpzFile weights;
  std::string ir;
  int counter = 0;
  auto weight = [&](const std::string &name, std::vector<int64_t> shape) {
    int64_t n = 1;
    std::string type = "tensor<";
    for (int64_t d : shape) {
      n *= d;
      type += std::to_string(d) + "x";
    }
    type += "f32>";
    std::vector<float> values(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i] = name.find("var") != std::string::npos ? 1.0f + 0.01f * static_cast<float>(i % 7)
                                                         : 0.02f * static_cast<float>((i * 7 + counter) % 11) - 0.1f;
    weights.set(name, Tensor::fromValues<float>(shape, values));
    std::string v = "%w" + std::to_string(counter++);
    ir += "    " + v + " = top.weight \"" + name + "\" : " + type + " loc(\"" + name + "\")\n";
    return std::make_pair(v, type);
  };
  // `loc("/<node>_output_0"("/<node>"))`: the tensor of ONNX node /<node>.
  auto loc = [](const std::string &node) { return "loc(\"/" + node + "_output_0\"(\"/" + node + "\"))"; };
  auto convBn = [&](const std::string &in, const std::string &scope, int cin, bool relu) {
    auto [w, wt] = weight(scope + ".conv.weight", {8, cin, 3, 3});
    auto [b, bt] = weight(scope + ".conv.bias", {8});
    std::string c = "%" + std::to_string(counter++);
    ir += "    " + c + " = top.conv " + in + ", " + w + ", " + b +
          " {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, "
          "dilations = array<i64: 1, 1>} : (tensor<*xf32>, " + wt + ", " + bt + ") -> tensor<*xf32> " +
          loc(scope + "/conv/Conv") + "\n";
    auto [m, mt] = weight(scope + ".bn.running_mean", {8});
    auto [v, vt] = weight(scope + ".bn.running_var", {8});
    auto [g, gt] = weight(scope + ".bn.weight", {8});
    auto [be, bet] = weight(scope + ".bn.bias", {8});
    std::string n = "%" + std::to_string(counter++);
    ir += "    " + n + " = top.batchnorm " + c + ", " + m + ", " + v + ", " + g + ", " + be +
          " {epsilon = 1.0e-5 : f64} : (tensor<*xf32>, " + mt + ", " + vt + ", " + gt + ", " + bet +
          ") -> tensor<*xf32> " + loc(scope + "/bn/BatchNormalization") + "\n";
    if (!relu)
      return n;
    std::string r = "%" + std::to_string(counter++);
    ir += "    " + r + " = top.relu " + n + " : tensor<*xf32> -> tensor<*xf32> " + loc(scope + "/relu/Relu") + "\n";
    return r;
  };
  ir += "    %x = top.input %arg0 : tensor<1x3x16x16xf32> -> tensor<*xf32> loc(\"input\")\n";
  std::string stem = convBn("%x", "stem", 3, true);
  std::string a = convBn(stem, "layer1/0/a", 8, true);
  std::string b = convBn(a, "layer1/0/b", 8, false);
  ir += "    %add = top.add " + stem + ", " + b +
        " : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32> loc(\"/layer1/0/add/Add_output_0\"(\"/layer1/0/add/Add\"))\n"
        "    %addr = top.relu %add : tensor<*xf32> -> tensor<*xf32> loc(\"/layer1/0/relu/Relu_output_0\"(\"/layer1/0/relu/Relu\"))\n"
        "    %p = top.maxpool %addr {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, "
        "1, 1, 1>} : tensor<*xf32> -> tensor<*xf32> loc(\"/pool/MaxPool_output_0\"(\"/pool/MaxPool\"))\n"
        "    %gap = top.adaptive_avgpool %p {output_size = array<i64: 1, 1>} : tensor<*xf32> -> tensor<*xf32> "
        "loc(\"/gap/GlobalAveragePool_output_0\"(\"/gap/GlobalAveragePool\"))\n"
        "    %flat = top.reshape %gap : tensor<*xf32> -> tensor<1x8xf32> loc(\"/flatten/Flatten_output_0\"(\"/flatten/Flatten\"))\n";
  auto [fw, fwt] = weight("fc.weight", {10, 8});
  auto [fb, fbt] = weight("fc.bias", {10});
  ir += "    %fc = top.matmul %flat, " + fw + ", " + fb + " {right_transpose = true} : (tensor<1x8xf32>, " + fwt + ", " +
        fbt + ") -> tensor<*xf32> loc(\"/fc/Gemm_output_0\"(\"/fc/Gemm\"))\n"
        "    return %fc : tensor<*xf32> loc(unknown)\n";
  weights.write(npz);
  return "module attributes {top.state = #top.state<TOP_F32>, top.weight_file = \"" + npz +
         "\"} {\n  func.func @main(%arg0: tensor<1x3x16x16xf32> loc(\"input\")) -> tensor<*xf32> {\n" + ir +
         "  } loc(unknown)\n} loc(unknown)\n";
}

QString screenshotPath(const QString &name) {
  QDir().mkpath(QStringLiteral(TPUC_SCREENSHOT_DIR));
  return QStringLiteral(TPUC_SCREENSHOT_DIR) + QLatin1Char('/') + name;
}

graph::NodeId nodeNamed(const graph::Graph &g, const std::string &name, const std::string &op) {
  for (const graph::Node &n : g.nodes)
    if (n.name == name && n.op == op)
      return n.id;
  return graph::kNoNode;
}

} // namespace

class TestPassInspector : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase();
  void timelineListsThePipeline();
  void passDiffShowsTheFusion();
  void sideBySideFollowsProvenance();
  void badDirectoryGivesOneLine();

private:
  void openView(ui::PassInspectorView &view);

  QTemporaryDir m_tmp;
  QString m_snapshots;
};

void TestPassInspector::initTestCase() {
  QVERIFY(m_tmp.isValid());
  m_snapshots = m_tmp.filePath(QStringLiteral("snapshots"));
  mlir::DialectRegistry registry;
  registerDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  std::string text = residualCnn(m_tmp.filePath(QStringLiteral("weights.npz")).toStdString());
  auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  QVERIFY2(module, text.c_str());
  mlir::PassManager pm(&context);
  buildTopPipeline(pm, TopPipelineOptions{});
  PassRecorder recorder(m_snapshots.toStdString());
  recorder.attach(pm, "top-pipeline");
  QVERIFY(mlir::succeeded(pm.run(*module)));
  QCOMPARE(QString::fromStdString(recorder.error()), QString());
}

void TestPassInspector::openView(ui::PassInspectorView &view) {
  QSignalSpy loaded(&view, &ui::PassInspectorView::runLoaded);
  QSignalSpy diff(&view, &ui::PassInspectorView::diffShown);
  QSignalSpy stages(&view, &ui::PassInspectorView::stagesShown);
  view.resize(1500, 900);
  view.show();
  QVERIFY(loaded.count() || loaded.wait(20000));
  QCOMPARE(loaded.first().first().toString(), QString());
  QVERIFY(diff.count() || diff.wait(20000));
  QVERIFY(stages.count() || stages.wait(20000));
}

void TestPassInspector::timelineListsThePipeline() {
  ui::PassInspectorView view(m_snapshots);
  openView(view);
  vis::PassTimeline *timeline = view.timeline();
  QAbstractItemModelTester tester(timeline->table()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  QCOMPARE(view.run().snapshots.size(), std::size_t(5));
  QStringList passes;
  for (const PassSnapshot &s : view.run().snapshots)
    passes << QString::fromStdString(s.label());
  QCOMPARE(passes, QStringList({"input", "top-shape-infer", "canonicalize", "cse", "top-verify-state"}));
  QCOMPARE(timeline->visibleRows(), 5);
  // cse finds nothing to merge here and the verifier changes nothing.
  timeline->setHideUnchanged(true);
  QCOMPARE(timeline->visibleRows(), 3);
  // The default selection is the first pass that changed ops.
  QCOMPARE(timeline->selectedSnapshot(), 1);
  // Selecting a hidden pass shows all passes again.
  timeline->selectSnapshot(4);
  QCOMPARE(timeline->visibleRows(), 5);
}

void TestPassInspector::passDiffShowsTheFusion() {
  ui::PassInspectorView view(m_snapshots);
  openView(view);
  QSignalSpy diff(&view, &ui::PassInspectorView::diffShown);
  view.selectSnapshot(2); // canonicalize
  QVERIFY(diff.wait(20000));
  QCOMPARE(diff.last().first().toInt(), 2);
  auto data = view.currentDiff();
  QVERIFY(data && data->error.isEmpty());
  // Text: batchnorms and relus disappear, convs gain do_relu.
  const QString text = view.textDiff()->toPlainText();
  QVERIFY(text.contains(QRegularExpression(QStringLiteral("\\n *\\d+ +- .*top\\.batchnorm"))));
  QVERIFY(text.contains(QRegularExpression(QStringLiteral("\\n +\\d+ \\+ .*top\\.conv.*do_relu = true"))));
  QVERIFY(data->text->deleted > 0 && data->text->inserted > 0);
  // Value numbers are masked by default: the maxpool, renumbered but otherwise as it was, is context.
  QVERIFY(text.contains(QRegularExpression(QStringLiteral("\\n *\\d+ +\\d+   .*top\\.maxpool"))));
  const std::size_t maskedChanges = data->text->deleted + data->text->inserted;
  view.setIgnoreSsaNumbers(false);
  QVERIFY(diff.wait(20000));
  QVERIFY(view.currentDiff()->text->deleted + view.currentDiff()->text->inserted > maskedChanges);
  QVERIFY(!view.textDiff()->toPlainText().contains(QRegularExpression(QStringLiteral("\\n *\\d+ +\\d+   .*top\\.maxpool"))));
  view.setIgnoreSsaNumbers(true);
  QVERIFY(diff.wait(20000));
  // Graph: 3 batchnorms and 3 relus removed (the add's relu fused into it too); 3 convs and the add changed.
  QVERIFY(data->graph);
  QCOMPARE(data->graph->removed, std::size_t(6));
  std::size_t convsChanged = 0;
  for (std::size_t i = 0; i < data->graph->change.size(); ++i)
    if (data->graph->change[i] == NodeChange::Changed && data->graph->graph.nodes[i].op == "top.conv")
      ++convsChanged;
  QCOMPARE(convsChanged, std::size_t(3));
  // The unchanged tail (pools, reshape, fc) is folded into a collapsed cluster.
  QVERIFY(data->graph->graph.clusters.size() >= 2);

  view.showTab(0);
  QVERIFY(view.grab().save(screenshotPath(QStringLiteral("pass-diff-text.png"))));
  view.showTab(1);
  QVERIFY(view.graphDiff()->waitForLayout(30000));
  view.graphDiff()->fitToView();
  QCoreApplication::processEvents();
  QVERIFY(view.grab().save(screenshotPath(QStringLiteral("pass-diff-graph.png"))));
}

void TestPassInspector::sideBySideFollowsProvenance() {
  ui::PassInspectorView view(m_snapshots);
  openView(view);
  QSignalSpy stages(&view, &ui::PassInspectorView::stagesShown);
  view.compareStages(1, 4); // shapes inferred, before fusion | the pipeline's result
  QVERIFY(stages.wait(20000));
  view.showTab(2);
  vis::SideBySideView *side = view.sideBySide();
  for (int s = 0; s < 2; ++s) {
    QVERIFY(side->view(s)->waitForLayout(30000));
    side->view(s)->expandAll();
    QVERIFY(side->view(s)->waitForLayout(30000));
  }
  const graph::Graph &left = *side->view(0)->graph();
  const graph::Graph &right = *side->view(1)->graph();
  // The fused conv produces the relu's tensor, and is named after it.
  graph::NodeId fused = nodeNamed(right, "/stem/relu/Relu_output_0", "top.conv");
  QVERIFY(fused != graph::kNoNode);
  // Many-to-one: the fused conv came from the stem's conv, batchnorm and relu.
  std::set<std::string> sources;
  for (graph::NodeId id : side->relatedNodes(0, fused))
    sources.insert(left.nodes[id].name);
  QCOMPARE(sources, (std::set<std::string>{"/stem/conv/Conv_output_0", "/stem/bn/BatchNormalization_output_0",
                                           "/stem/relu/Relu_output_0"}));
  // And back: the batchnorm became the fused conv.
  graph::NodeId bn = nodeNamed(left, "/stem/bn/BatchNormalization_output_0", "top.batchnorm");
  QCOMPARE(side->relatedNodes(1, bn), std::vector<graph::NodeId>{fused});

  // Selecting on the right marks the sources on the left.
  side->selectNode(1, fused);
  QVERIFY(side->statusText().contains(QStringLiteral("came from 3 op(s)")));
  std::size_t related = 0;
  for (vis::NodeMark m : side->view(0)->marks())
    related += m == vis::NodeMark::Related;
  QCOMPARE(related, std::size_t(3));
  for (int s = 0; s < 2; ++s)
    QVERIFY(side->view(s)->waitForLayout(30000));
  QCoreApplication::processEvents();
  QVERIFY(view.grab().save(screenshotPath(QStringLiteral("side-by-side.png"))));
}

void TestPassInspector::badDirectoryGivesOneLine() {
  ui::PassInspectorView view(m_tmp.filePath(QStringLiteral("nowhere")));
  QSignalSpy loaded(&view, &ui::PassInspectorView::runLoaded);
  QVERIFY(loaded.wait(20000));
  const QString error = loaded.first().first().toString();
  QVERIFY(error.endsWith(QStringLiteral("nowhere/index.json: cannot be read")));
  QVERIFY(!error.contains(QLatin1Char('\n')));
}

QTEST_MAIN(TestPassInspector)
#include "tst_passinspector.moc"
