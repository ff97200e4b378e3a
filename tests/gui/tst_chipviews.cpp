// Offscreen tests of the chip views (issue 16): LMEM rectangle geometry, colours and patterns, banks and the
// wrap-around split on a small known plan; the level of detail of a large trace; idle attribution and the
// critical path on a hand-made trace; SVG classes and data-op; the item models; and, on resnet18 INT8 deployed
// by the real engine, selection linking in both directions through the StudioContext (graph, chip views),
// the run records, the compare page and screenshots of every view.
#include "Screenshots.h"
#include "tpuc/ChipDataGen.h"
#include "ui/MainWindow.h"
#include "ui/StudioContext.h"
#include "ui/jobs/RunHistory.h"
#include "ui/views/ChipViewsTab.h"
#include "ui/views/GraphViewTab.h"
#include "visualizer/ChipCompare.h"
#include "visualizer/ChipFigures.h"
#include "visualizer/EngineTimeline.h"
#include "visualizer/GraphView.h"
#include "visualizer/LayerGroupView.h"
#include "visualizer/MemoryTimeline.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPainter>
#include <QProcess>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <set>

using namespace tpuc;
using namespace tpuc::ui;

namespace {

QString inputs(const QString &name) { return QStringLiteral(TPUC_CHIP_INPUTS) + QLatin1Char('/') + name; }

using tpuc::ui::guitest::screenshotDir;

std::shared_ptr<const chip::ChipRun> load(const QString &plan, const QString &trace) {
  auto run = chip::ChipRun::load(plan.toStdString(), trace.toStdString());
  if (!run)
    qFatal("%s", llvm::toString(run.takeError()).c_str());
  return *run;
}

/// Elements of an SVG document by class: their data-op values.
std::map<QString, std::vector<QString>> svgElements(const QString &path, QString *error = nullptr) {
  std::map<QString, std::vector<QString>> out;
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly))
    return out;
  QXmlStreamReader xml(&f);
  while (!xml.atEnd()) {
    if (xml.readNext() == QXmlStreamReader::StartElement) {
      QString cls = xml.attributes().value(QStringLiteral("class")).toString();
      if (!cls.isEmpty())
        out[cls].push_back(xml.attributes().value(QStringLiteral("data-op")).toString());
    }
  }
  if (xml.hasError() && error)
    *error = xml.errorString();
  return out;
}

/// Counts what a painter draws (level-of-detail checks).
struct CountingCanvas : vis::Canvas {
  int rects = 0, texts = 0, marked = 0;
  QStringList textLines;
  bool detail = false;
  void rect(const QRectF &, const vis::Style &, const vis::Mark *m) override {
    ++rects;
    marked += m && !m->cls.isEmpty();
  }
  void line(QPointF, QPointF, const QColor &, double, Qt::PenStyle) override {}
  void polyline(const QPolygonF &, const QColor &, double, Qt::PenStyle) override {}
  void polygon(const QPolygonF &, const QColor &, const QColor &) override {}
  void text(const QRectF &, Qt::Alignment, const QString &t, const QColor &, bool) override {
    ++texts;
    textLines << t;
  }
  void clip(const QRectF &) override {}
  void clearClip() override {}
  bool fullDetail() const override { return detail; }
};

double luminance(const QColor &c) { return 0.2126 * c.redF() + 0.7152 * c.greenF() + 0.0722 * c.blueF(); }

int runTpuc(const QStringList &args, QString *log) {
  QProcess p;
  p.setProcessChannelMode(QProcess::MergedChannels);
  p.start(QStringLiteral(TPUC_ENGINE), args);
  if (!p.waitForFinished(300000))
    return -1;
  *log = QString::fromLocal8Bit(p.readAll());
  return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

} // namespace

class TestChipViews : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase();
  void lmemGeometryBanksAndWrap();
  void bufferColoursReadInBothThemes();
  void svgClassesAndDataOp();
  void levelOfDetailOnAMillionCommands();
  void idleAttributionAndCriticalPath();
  void modelsPassTheTester();
  void resnet18RunRecords();
  void selectionLinksBothWays();
  void compareTwoConfigurations();
  void twoCoresOneAtATime();
  void screenshots();
  void tpucViewOnEveryChip();

private:
  QTemporaryDir m_dir;
  QString m_top, m_int8Stem, m_f16Stem;
  std::unique_ptr<StudioContext> m_context;
  std::unique_ptr<MainWindow> m_window;
  qint64 m_int8Run = -1, m_f16Run = -1;
};

void TestChipViews::initTestCase() {
  QVERIFY(m_dir.isValid());
}

void TestChipViews::lmemGeometryBanksAndWrap() {
  auto run = load(inputs("chip_wrap_plan.json"), QString());
  vis::LmemChart chart;
  chart.setGroup(run, 0);
  const QFont font(QStringLiteral("DejaVu Sans"), 9);
  const QRectF area(0, 0, 800, 400);
  const QRectF plot = chart.plotRect(font, area);
  QVERIFY(plot.width() > 500 && plot.height() > 200);
  const double units = 8, cap = 1024;
  auto x = [&](double u) { return plot.left() + u / units * plot.width(); };
  auto y = [&](double a) { return plot.bottom() - a / cap * plot.height(); };
  // The input of slice 0: units [0, 3), bytes [0, 256).
  std::vector<QRectF> in = chart.pieces(plot, 0);
  QCOMPARE(in.size(), size_t(1));
  QCOMPARE(in[0].left(), x(0));
  QCOMPARE(in[0].right(), x(3));
  QCOMPARE(in[0].top(), y(256));
  QCOMPARE(in[0].bottom(), y(0));
  // The output wraps: [768, 1024) at the top and [0, 128) at the bottom, both over units [3, 6).
  std::vector<QRectF> out = chart.pieces(plot, 3);
  QCOMPARE(out.size(), size_t(2));
  QCOMPARE(out[0].top(), y(1024));
  QCOMPARE(out[0].bottom(), y(768));
  QCOMPARE(out[1].top(), y(128));
  QCOMPARE(out[1].bottom(), y(0));
  for (const QRectF &piece : out) {
    QCOMPARE(piece.left(), x(3));
    QCOMPARE(piece.right(), x(6));
    QCOMPARE(chart.rectAt(font, area, piece.center()), 3);
  }
  QVERIFY(chart.describe(3).contains(QStringLiteral("wraps around")));
  QVERIFY2(chart.describe(2).contains(QStringLiteral("weight")) && chart.describe(2).contains(QStringLiteral("bank 2")),
           qPrintable(chart.describe(2)));
  QCOMPARE(chart.rectAt(font, area, QPointF(x(7.5), y(1000))), -1);
  // Painted for an export: every rect and both wrapped pieces are marked buffers; the four banks are
  // labelled. On screen nothing is marked (the marks are built for exports only).
  CountingCanvas screen;
  screen.setFont(font);
  chart.paint(screen, area, vis::ChipStyle(vis::figurePalette(false)), -1, -1);
  QCOMPARE(screen.marked, 0);
  CountingCanvas counter;
  counter.detail = true;
  counter.setFont(font);
  vis::ChipStyle style(vis::figurePalette(false));
  chart.paint(counter, area, style, -1, -1);
  QCOMPARE(counter.marked, 6);
  for (int b = 0; b < 4; ++b)
    QVERIFY2(counter.textLines.contains(QStringLiteral("bank %1").arg(b)), qPrintable(counter.textLines.join('|')));
  QVERIFY(counter.textLines.filter(QStringLiteral("1 bank conflict")).size() == 1);
  // The same in the SVG: one element per piece, the wrapped ones numbered.
  QString svg = m_dir.filePath("wrap.svg"), error;
  vis::FigureOptions options;
  options.group = 0;
  QVERIFY2(vis::renderFigure(run, vis::ChipFigure::Groups, options, "svg", svg, &error), qPrintable(error));
  QFile f(svg);
  QVERIFY(f.open(QIODevice::ReadOnly));
  const QString text = QString::fromUtf8(f.readAll());
  QCOMPARE(text.count(QStringLiteral("class=\"buffer\"")), 6);
  QCOMPARE(text.count(QStringLiteral("data-wrap=\"1\"")), 1);
  QCOMPARE(text.count(QStringLiteral("data-wrap=\"2\"")), 1);
  QVERIFY(text.contains(QStringLiteral("data-value=\"w\" data-kind=\"weight\"")));
  // The slices drawn over the input's shape: two slices and the halo rows both read (3 and 4).
  const auto elements = svgElements(svg);
  QCOMPARE(elements.at(QStringLiteral("slice")).size(), size_t(2));
  QCOMPARE(elements.at(QStringLiteral("halo")).size(), size_t(1));
  QCOMPARE(elements.at(QStringLiteral("group")).size(), size_t(2));
  QCOMPARE(elements.at(QStringLiteral("cut")).size(), size_t(2));
}

void TestChipViews::bufferColoursReadInBothThemes() {
  for (bool dark : {false, true}) {
    vis::ChipStyle s(vis::figurePalette(dark));
    std::set<QRgb> colours;
    for (chip::BufferKind k : {chip::BufferKind::Input, chip::BufferKind::Weight, chip::BufferKind::Intermediate,
                               chip::BufferKind::Output}) {
      QColor c = s.bufferColor(k);
      colours.insert(c.rgb());
      QVERIFY2(std::abs(luminance(c) - luminance(s.background)) > 0.2,
               qPrintable(QStringLiteral("%1 on %2").arg(c.name(), s.background.name())));
      // Text drawn on a buffer reads.
      QVERIFY(std::abs(luminance(s.textOn(c)) - luminance(c)) > 0.4);
    }
    QCOMPARE(colours.size(), size_t(4));
    // Weights hatched, intermediates (scratch) dotted, activations solid: told apart without colour too.
    QCOMPARE(s.buffer(chip::BufferKind::Weight).pattern, vis::Pattern::Hatch);
    QCOMPARE(s.buffer(chip::BufferKind::Intermediate).pattern, vis::Pattern::Dots);
    QCOMPARE(s.buffer(chip::BufferKind::Input).pattern, vis::Pattern::Solid);
    QCOMPARE(s.buffer(chip::BufferKind::Output).pattern, vis::Pattern::Solid);
    QVERIFY(std::abs(luminance(s.capacity) - luminance(s.background)) > 0.2);
    QVERIFY(std::abs(luminance(s.text) - luminance(s.background)) > 0.6);
  }
}

void TestChipViews::svgClassesAndDataOp() {
  auto run = load(inputs("chip_wrap_plan.json"), inputs("chip_idle_trace.json"));
  QString error;
  const QString svg = m_dir.filePath("timeline.svg");
  QVERIFY2(vis::renderFigure(run, vis::ChipFigure::Timeline, {}, "svg", svg, &error), qPrintable(error));
  auto elements = svgElements(svg, &error);
  QVERIFY2(error.isEmpty(), qPrintable(error));
  // Every command is one element naming its op.
  const auto &commands = elements[QStringLiteral("command")];
  QCOMPARE(commands.size(), run->trace()->commandCount());
  std::multiset<QString> ops(commands.begin(), commands.end());
  QCOMPARE(ops.count(QStringLiteral("A")), size_t(2));
  QCOMPARE(ops.count(QStringLiteral("B")), size_t(2));
  QCOMPARE(ops.count(QStringLiteral("C")), size_t(2));
  // Groups of the trace, named by their first op.
  const auto &groups = elements[QStringLiteral("group")];
  QCOMPARE(groups.size(), size_t(2));
  QCOMPARE(groups.front(), QStringLiteral("A"));
  const QString memory = m_dir.filePath("memory.svg");
  QVERIFY2(vis::renderFigure(run, vis::ChipFigure::Memory, {}, "svg", memory, &error), qPrintable(error));
  elements = svgElements(memory, &error);
  QVERIFY2(error.isEmpty(), qPrintable(error));
  const auto &buffers = elements[QStringLiteral("buffer")];
  QCOMPARE(buffers.size(), run->plan()->gmem.buffers.size());
  // A graph input belongs to the first op reading it; a result to the op producing it.
  QCOMPARE(buffers[0], QStringLiteral("A"));
  QCOMPARE(buffers[1], QStringLiteral("B"));
  QCOMPARE(elements[QStringLiteral("weight")].size(), size_t(1));
  QCOMPARE(elements[QStringLiteral("weight")][0], QStringLiteral("A"));
  // The simulated LMEM (300 B) above this plan's stages: flagged.
  QVERIFY(!elements[QStringLiteral("divergence")].empty());
  // The PNG has the page size.
  const QString png = m_dir.filePath("memory.png");
  QVERIFY2(vis::renderFigure(run, vis::ChipFigure::Memory, {}, "png", png, &error), qPrintable(error));
  QCOMPARE(QImage(png).size(), QSize(1600, 1000));
  // What a figure needs.
  auto planOnly = load(inputs("chip_wrap_plan.json"), QString());
  QVERIFY(!vis::renderFigure(planOnly, vis::ChipFigure::Timeline, {}, "svg", svg, &error));
  QVERIFY2(error.contains(QStringLiteral("trace")), qPrintable(error));
}

void TestChipViews::levelOfDetailOnAMillionCommands() {
  bench::GenSizes sizes;
  sizes.groups = 200;
  sizes.commands = 1000000;
  const int64_t written = bench::writeSyntheticRun(m_dir.path().toStdString(), sizes);
  QVERIFY(written >= 900000);
  auto run = load(m_dir.filePath("gen_plan.json"), m_dir.filePath("gen_trace.json"));
  QCOMPARE(static_cast<int64_t>(run->trace()->commandCount()), written);
  vis::TimelinePainter painter;
  painter.setRun(run);
  vis::ChipStyle style(vis::figurePalette(false));
  const QRectF area(0, 0, 1600, 500);
  // Zoomed out: columns are aggregated, so the draw calls are bounded by the width, not the commands.
  CountingCanvas lod;
  lod.setFont(QFont(QStringLiteral("DejaVu Sans"), 9));
  vis::TimelineState st;
  painter.paint(lod, area, style, st);
  QVERIFY2(lod.rects < 4 * 1600 + 2000, qPrintable(QString::number(lod.rects)));
  // Zoomed in to a few hundred commands: each is drawn on its own.
  const auto &tiu = run->trace()->of(chip::Engine::TIU);
  st.t0 = tiu[5000].start;
  st.t1 = tiu[5200].end;
  CountingCanvas near;
  near.setFont(lod.font());
  painter.paint(near, area, style, st);
  QVERIFY(near.marked >= 200);
  // Redraw time through the widget at several zooms (figures come from bench-chipviews; this only guards
  // against a path that scales with the trace).
  vis::EngineTimeline view;
  view.resize(1600, 500);
  view.setRun(run);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  for (double factor : {1.0, 0.1, 0.01, 0.0001}) {
    int64_t span = static_cast<int64_t>(run->trace()->totalCycles * factor);
    view.setWindow(run->trace()->totalCycles / 3, run->trace()->totalCycles / 3 + std::max<int64_t>(span, 100));
    view.canvas()->repaint();
    QVERIFY2(view.canvas()->lastPaintMs() < 500, qPrintable(QString::number(view.canvas()->lastPaintMs())));
  }
}

void TestChipViews::idleAttributionAndCriticalPath() {
  auto run = load(QString(), inputs("chip_idle_trace.json"));
  vis::TimelinePainter painter;
  painter.setRun(run);
  CountingCanvas c;
  c.setFont(QFont(QStringLiteral("DejaVu Sans"), 9));
  painter.paint(c, QRectF(0, 0, 1200, 400), vis::ChipStyle(vis::figurePalette(false)), {});
  QVERIFY2(c.textLines.contains(QStringLiteral("TIU idle 56 % of the run, 50 % of that waiting on GDMA loads of B's inputs "
                                               "— by kind: input loads 50 %, stores 30 %, weight loads 20 %")),
           qPrintable(c.textLines.join('\n')));
  QVERIFY(c.textLines.contains(
      QStringLiteral("GDMA idle 22 % of the run, 100 % of that waiting on TIU compute of C — by kind: compute 100 %")));
  QVERIFY(c.textLines.filter(QStringLiteral("Critical path: 5 commands, 90 cycles")).size() == 1);
  QVERIFY(c.textLines.contains(QStringLiteral("TIU 44.4 % busy")));
  // A command's tooltip: its arguments, the command it waited for and that it is on the critical path.
  QString tip = painter.describe({vis::TimelineRow::TIU, 1});
  QVERIFY2(tip.contains(QStringLiteral("TIU #2")) && tip.contains(QStringLiteral("waits for GDMA #2")) &&
               tip.contains(QStringLiteral("it held this command back")) && tip.contains(QStringLiteral("critical path")),
           qPrintable(tip));
  QVERIFY(painter.describe({vis::TimelineRow::GDMA, 0}).contains(QStringLiteral("(weights)")));
  // Hit tests land on the command under the mouse.
  const QFont font(QStringLiteral("DejaVu Sans"), 9);
  const QRectF area(0, 0, 1200, 400);
  vis::TimelineState st;
  QRectF plot = painter.plotRect(font, area);
  const double x = plot.left() + 60.0 / 90.0 * plot.width(); // TIU #2 runs [55, 65)
  for (double y = plot.top(); y < plot.bottom(); y += 2) {
    vis::TimelineHit hit = painter.hitTest(font, area, st, QPointF(x, y));
    if (hit.row == vis::TimelineRow::TIU) {
      QCOMPARE(hit.index, 1);
      QCOMPARE(painter.opOf(hit), run->trace()->opIndex("B"));
      return;
    }
  }
  QFAIL("no point of the TIU row was hit");
}

void TestChipViews::modelsPassTheTester() {
  auto run = load(inputs("chip_wrap_plan.json"), inputs("chip_idle_trace.json"));
  vis::GroupTableModel groups;
  QAbstractItemModelTester t1(&groups, QAbstractItemModelTester::FailureReportingMode::QtTest);
  groups.setRun(run);
  QCOMPARE(groups.rowCount(), 2);
  QCOMPARE(groups.index(0, vis::GroupTableModel::Bound).data().toString(), QStringLiteral("memory"));
  QCOMPARE(groups.index(0, vis::GroupTableModel::Slicing).data().toString(), QStringLiteral("1×1×2×1"));
  QCOMPARE(groups.index(0, vis::GroupTableModel::LmemShare).data().toString(), QStringLiteral("100.0 %"));
  QCOMPARE(groups.index(1, vis::GroupTableModel::Kind).data().toString(), QStringLiteral("global"));
  vis::StepTableModel steps;
  QAbstractItemModelTester t2(&steps, QAbstractItemModelTester::FailureReportingMode::QtTest);
  steps.setGroup(run, 0);
  QCOMPARE(steps.rowCount(), 4);
  QCOMPARE(steps.index(0, vis::StepTableModel::Bottleneck).data().toString(), QStringLiteral("GDMA"));
  QCOMPARE(steps.index(1, vis::StepTableModel::Bottleneck).data().toString(), QStringLiteral("TIU"));
  QCOMPARE(steps.index(2, vis::StepTableModel::Store).data().toString(), QStringLiteral("slice 0"));
  steps.setGroup(run, 1); // a global op has no stages
  QCOMPARE(steps.rowCount(), 0);
  vis::CutListModel cuts;
  QAbstractItemModelTester t3(&cuts, QAbstractItemModelTester::FailureReportingMode::QtTest);
  cuts.setRun(run, 0);
  QCOMPARE(cuts.rowCount(), 1);
  // A group that cannot grow: LMEM short at a known step, with the buffers live then.
  QCOMPARE(cuts.index(0, vis::CutListModel::Reason).data().toString(), QStringLiteral("lmem"));
  QVERIFY(cuts.index(0, vis::CutListModel::Message).data().toString().startsWith(
      QStringLiteral("ends before 'C': LMEM short by 512 B/lane at time step 3")));
  const QString tip = cuts.index(0, vis::CutListModel::Message).data(Qt::ToolTipRole).toString();
  QVERIFY2(tip.contains(QStringLiteral("B (output, slice 0) 384 B/lane")) && tip.contains(QStringLiteral("w (weight) 128 B/lane")),
           qPrintable(tip));
  QCOMPARE(run->plan()->cuts[0].shortBytes, 512);
  QCOMPARE(run->plan()->cuts[0].timeUnit, 3);
  QCOMPARE(run->plan()->cuts[0].unitOp, run->plan()->opIndex("B"));
  cuts.setRun(run, -1);
  QCOMPARE(cuts.rowCount(), 2);
  vis::CompareTotalsModel totals;
  vis::CompareOpsModel ops;
  QAbstractItemModelTester t4(&totals, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QAbstractItemModelTester t5(&ops, QAbstractItemModelTester::FailureReportingMode::QtTest);
  totals.setRuns(run, run);
  ops.setRuns(run, run);
  QCOMPARE(ops.rowCount(), 3);
  QCOMPARE(totals.index(0, vis::CompareTotalsModel::Delta).data().toString(), QStringLiteral("+0.0 %"));
}

void TestChipViews::resnet18RunRecords() {
#ifndef TPUC_ENGINE
  QSKIP("this build has no tpuc");
#else
  const QString assets = qEnvironmentVariableIsEmpty("TPUC_ASSETS") ? QDir::homePath() + "/.cache/tpu-studio/assets"
                                                                    : qEnvironmentVariable("TPUC_ASSETS");
  const QString onnx = assets + "/models/resnet18.onnx";
  if (!QFileInfo::exists(onnx))
    QFAIL(qPrintable(onnx + " is missing: run scripts/fetch-assets.sh"));
  QString log;
  m_top = m_dir.filePath("resnet18.mlir");
  QCOMPARE(runTpuc({"transform", "--model_name", "resnet18", "--model_def", onnx, "--input_shapes", "[[1,3,224,224]]",
                    "--mean", "123.675,116.28,103.53", "--scale", "0.0171,0.0175,0.0174", "--pixel_format", "rgb", "--mlir",
                    m_top},
                   &log),
           0);
  QDir().mkpath(m_dir.filePath("cali"));
  for (const char *name : {"dog.jpg", "eagle.jpg", "giraffe.jpg", "horses.jpg"})
    QFile::copy(assets + "/images/" + name, m_dir.filePath(QStringLiteral("cali/") + name));
  const QString table = m_dir.filePath("resnet18_cali_table");
  QCOMPARE(runTpuc({"calibrate", m_top, "--dataset", m_dir.filePath("cali"), "--input_num", "4", "-o", table}, &log), 0);
  m_context = std::make_unique<StudioContext>();
  m_window = std::make_unique<MainWindow>(m_context.get());
  m_window->setInteractive(false);
  m_window->startup(QString());
  // Two configurations, recorded as the studio records finished jobs (the same artifacts, read the same way).
  auto deploy = [&](const QString &quantize, QString *stem) -> qint64 {
    *stem = m_dir.filePath("resnet18_" + quantize.toLower());
    QStringList args{"deploy", "--mlir", m_top, "--quantize", quantize, "--chip", "bm1684x", "--model", *stem + ".tpum",
                     "--progress", "json"};
    if (quantize == "INT8")
      args << "--calibration_table" << table;
    JobInfo job;
    job.spec.program = TPUC_ENGINE;
    job.spec.arguments = args;
    job.spec.title = "resnet18 " + quantize + " bm1684x";
    job.state = JobState::Succeeded;
    QString out;
    job.exitCode = runTpuc(args, &out);
    if (job.exitCode != 0) {
      qWarning("%s", qPrintable(out));
      return -1;
    }
    job.artifacts = {*stem + ".tpum", *stem + "_plan.json", *stem + "_trace.json"};
    project::RunRecord record = makeRunRecord(job);
    record.configName = job.spec.title.toStdString();
    return m_context->addRun(record);
  };
  m_int8Run = deploy("INT8", &m_int8Stem);
  QVERIFY(m_int8Run > 0);
  m_f16Run = deploy("F16", &m_f16Stem);
  QVERIFY(m_f16Run > 0);
  // The records name the plan and trace; each op's layer row has its group and simulated cycles.
  const project::RunRecord &r = m_context->project().runs.front();
  ChipArtifacts a = chipArtifactsOf(m_context->project(), r.id);
  QCOMPARE(a.plan, m_int8Stem + "_plan.json");
  QCOMPARE(a.trace, m_int8Stem + "_trace.json");
  auto groups = runLayerValues(r, "group");
  auto run = load(a.plan, a.trace);
  QVERIFY(groups.size() >= run->plan()->ops.size() - 1);
  for (const chip::PlanOp &op : run->plan()->ops)
    if (op.group >= 0)
      QCOMPARE(groups.at(op.name), static_cast<double>(op.group));
  const QJsonObject summary = QJsonDocument::fromJson(QByteArray::fromStdString(r.summaryJson)).object();
  QCOMPARE(summary.value("layerGroups").toInt(), static_cast<int>(run->plan()->groups.size()));
  QVERIFY(summary.value("simulatedLatencyMs").toDouble() > 0.1);
  // A `tpuc run` of that model file finds the deploy's plan.
  project::RunRecord simulated;
  simulated.configName = "run";
  simulated.summaryJson = QJsonDocument(QJsonObject{{"command", "run"},
                                                    {"arguments", QJsonArray{"run", "--model", m_int8Stem + ".tpum"}}})
                              .toJson(QJsonDocument::Compact)
                              .toStdString();
  simulated.artifacts = {{"trace", (m_int8Stem + "_trace.json").toStdString(), "sha256:x"}};
  const qint64 simulatedId = m_context->addRun(simulated);
  a = chipArtifactsOf(m_context->project(), simulatedId);
  QCOMPARE(a.plan, m_int8Stem + "_plan.json");
#endif
}

// resnet18 INT8 on both of bm1688's cores: the tab says how many cores ran, shows core 0, and its core
// picker reloads the memory and engine views with core 1's engines and LMEM (each core did work).
void TestChipViews::twoCoresOneAtATime() {
  if (!m_window)
    QFAIL("resnet18RunRecords did not set up the run records this case needs (see its failure)");
#ifdef TPUC_ENGINE
  const QString stem = m_dir.filePath("resnet18_int8_bm1688_2core");
  QStringList args{"deploy", "--mlir", m_top, "--quantize", "INT8", "--chip", "bm1688", "--num_core", "2",
                   "--calibration_table", m_dir.filePath("resnet18_cali_table"), "--model", stem + ".tpum",
                   "--progress", "json"};
  JobInfo job;
  job.spec.program = TPUC_ENGINE;
  job.spec.arguments = args;
  job.spec.title = "resnet18 INT8 bm1688 2 cores";
  job.state = JobState::Succeeded;
  QString out;
  job.exitCode = runTpuc(args, &out);
  QVERIFY2(job.exitCode == 0, qPrintable(out));
  job.artifacts = {stem + ".tpum", stem + "_plan.json", stem + "_trace.json"};
  project::RunRecord record = makeRunRecord(job);
  record.configName = job.spec.title.toStdString();
  const qint64 runId = m_context->addRun(record);
  m_window->resize(1500, 950);
  ChipViewsTab *tab = m_window->openChipViews(runId, ChipViewsTab::Timeline);
  QVERIFY(tab);
  QVERIFY(QTest::qWaitFor([&] { return tab->chipRun() != nullptr; }, 30000));
  const chip::Trace *t0 = tab->chipRun()->trace();
  QVERIFY(t0);
  QCOMPARE(t0->cores, 2);
  QCOMPARE(t0->core, 0);
  QVERIFY(t0->tiuBusy > 0);
  const int64_t total = t0->totalCycles;
  QSignalSpy loaded(tab, &ChipViewsTab::loaded);
  tab->showCore(1);
  QVERIFY(loaded.wait(30000));
  QVERIFY2(loaded.back().front().toString().isEmpty(), qPrintable(loaded.back().front().toString()));
  const chip::Trace *t1 = tab->chipRun()->trace();
  QCOMPARE(tab->shownCore(), 1);
  QCOMPARE(t1->core, 1);
  QVERIFY(t1->commandCount() > 0);
  QVERIFY(t1->tiuBusy > 0);
  QCOMPARE(t1->totalCycles, total); // one run, one end
  QTest::qWait(50);
  QVERIFY(m_window->grab().save(screenshotDir() + "/chip-timeline-resnet18-int8-bm1688-core1.png"));
  tab->showPage(ChipViewsTab::Memory);
  QTest::qWait(50);
  QVERIFY(m_window->grab().save(screenshotDir() + "/chip-memory-resnet18-int8-bm1688-core1.png"));
#else
  QSKIP("this build has no tpuc");
#endif
}

void TestChipViews::selectionLinksBothWays() {
  if (!m_window)
    QFAIL("resnet18RunRecords did not set up the run records this case needs (see its failure)");
  m_window->resize(1500, 950);
  m_window->show();
  QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
  ChipViewsTab *tab = m_window->openChipViews(m_int8Run, ChipViewsTab::Groups);
  QVERIFY(tab);
  QSignalSpy loaded(tab, &ChipViewsTab::loaded);
  QVERIFY(loaded.wait(30000));
  QVERIFY2(loaded.front().front().toString().isEmpty(), qPrintable(loaded.front().front().toString()));
  const auto run = tab->chipRun();
  const chip::Plan &plan = *run->plan();
  const chip::Trace &trace = *run->trace();
  // In: an op selected elsewhere selects its group, outlines its buffers and marks its commands.
  // The conv with its fused relu, named after the relu's tensor.
  const QString conv = QStringLiteral("/layer2/layer2.0/relu/Relu_output_0");
  QVERIFY(plan.opIndex(conv.toStdString()) >= 0);
  m_context->selectOp(conv);
  QCOMPARE(tab->groupsView()->selectedGroup(), plan.groupOfOp(plan.opIndex(conv.toStdString())));
  QCOMPARE(tab->groupsView()->lmemChart()->selectedValue(), plan.valueIndex(conv.toStdString()));
  QCOMPARE(tab->timelineView()->canvas()->state().selectedOp, trace.opIndex(conv.toStdString()));
  // Out: a click on a command publishes its op.
  tab->showPage(ChipViewsTab::Timeline);
  vis::TimelineCanvas *canvas = tab->timelineView()->canvas();
  QCoreApplication::processEvents();
  const chip::Command &cmd = trace.of(chip::Engine::TIU).back(); // the classifier
  const QRectF plot = canvas->painter().plotRect(canvas->font(), canvas->chartArea());
  const double x = plot.left() + (0.5 * (cmd.start + cmd.end)) / trace.totalCycles * plot.width();
  bool clicked = false;
  for (int y = static_cast<int>(plot.top()); y < plot.bottom() && !clicked; y += 3)
    if (canvas->hitAt(QPointF(x, y)).row == vis::TimelineRow::TIU) {
      QTest::mouseClick(canvas, Qt::LeftButton, {}, QPoint(static_cast<int>(x), y));
      clicked = true;
    }
  QVERIFY(clicked);
  QCOMPARE(m_context->selectedOp(), QString::fromStdString(trace.ops[cmd.op].name));
  QCOMPARE(tab->groupsView()->selectedGroup(), plan.groupOfOp(plan.opIndex(trace.ops[cmd.op].name)));
  // A click on an LMEM buffer publishes the op it belongs to.
  tab->showPage(ChipViewsTab::Groups);
  tab->groupsView()->selectGroup(1);
  QCoreApplication::processEvents();
  vis::LmemChartWidget *lmem = tab->groupsView()->lmemChart();
  const chip::Group &g1 = plan.groups[1];
  int target = -1; // the largest activation buffer of the group
  for (size_t i = 0; i < g1.rects.size(); ++i)
    if (g1.rects[i].kind != chip::BufferKind::Weight && plan.opIndex(plan.values[g1.rects[i].value].name) >= 0 &&
        (target < 0 || g1.rects[i].size > g1.rects[target].size))
      target = static_cast<int>(i);
  QVERIFY(target >= 0);
  const QRectF piece = lmem->chart().pieces(lmem->chart().plotRect(lmem->font(), lmem->chartArea()), target).front();
  QCOMPARE(lmem->rectAt(piece.center()), target);
  QTest::mouseClick(lmem, Qt::LeftButton, {}, piece.center().toPoint());
  QCOMPARE(m_context->selectedOp(), QString::fromStdString(plan.values[g1.rects[target].value].name));
  // A click on the strip selects a group and publishes its first op: a group other than 1 that runs
  // commands (an in-place reshape has none, so no time to move the cursors to).
  int other = -1;
  for (int i = 0; i < static_cast<int>(plan.groups.size()) && other < 0; ++i)
    if (i != 1 && run->groupTime(i).first >= 0)
      other = i;
  QVERIFY(other >= 0);
  vis::GroupStripWidget *strip = tab->groupsView()->strip();
  vis::GroupStrip probe; // the widget's painter, for where that group is drawn
  probe.setRun(run);
  const QRectF r2 = probe.groupRect(strip->chartArea(), other);
  QTest::mouseClick(strip, Qt::LeftButton, {}, r2.center().toPoint());
  QCOMPARE(tab->groupsView()->selectedGroup(), other);
  QCOMPARE(m_context->selectedOp(), QString::fromStdString(plan.ops[plan.groups[other].ops.front()].name));
  // The cursor: the group selected moves the timeline's and memory's cursors to its start.
  QCOMPARE(tab->timelineView()->canvas()->state().cursor, run->groupTime(other).first);
  QCOMPARE(tab->memoryView()->lmemChart()->cursorCycle(), run->groupTime(other).first);
  // The graph of the Top IR: its layer-group overlay has the plan's groups, and selecting a node selects
  // the op in the chip views.
  m_context->setModel({m_top.toStdString(), "", 0, "mlir", {}});
  GraphViewTab *graph = m_window->openGraph(m_top);
  QVERIFY(graph);
  QSignalSpy graphLoaded(graph, &GraphViewTab::loaded);
  QVERIFY(graphLoaded.wait(60000));
  graph->view()->expandAll();
  QVERIFY(graph->view()->waitForLayout());
  const graph::Graph &g = *graph->view()->graph();
  graph::NodeId node = g.findByName(conv.toStdString());
  QVERIFY(node != graph::kNoNode);
  graph->view()->selectNode(node);
  QCOMPARE(m_context->selectedOp(), conv);
  QCOMPARE(tab->groupsView()->selectedGroup(), plan.groupOfOp(plan.opIndex(conv.toStdString())));
  graph->setOverlay(static_cast<int>(vis::OverlayMode::LayerGroup));
  int agreeing = 0;
  for (const graph::Node &n : g.nodes) {
    int op = plan.opIndex(n.name);
    if (op < 0 || n.constant)
      continue;
    double shown = graph->view()->overlayValue(n.id);
    QVERIFY2(shown == static_cast<double>(plan.ops[op].group),
             qPrintable(QStringLiteral("%1 (%2): overlay %3, plan group %4")
                            .arg(QString::fromStdString(n.name), QString::fromStdString(n.op))
                            .arg(shown)
                            .arg(plan.ops[op].group)));
    ++agreeing;
  }
  QVERIFY2(agreeing >= 20, qPrintable(QString::number(agreeing)));
}

void TestChipViews::compareTwoConfigurations() {
  if (!m_window)
    QFAIL("resnet18RunRecords did not set up the run records this case needs (see its failure)");
  ChipViewsTab *tab = m_window->openChipViews(m_int8Run, ChipViewsTab::Groups);
  QVERIFY(tab);
  QSignalSpy compared(tab, &ChipViewsTab::compareLoaded);
  tab->compareWith(m_f16Run);
  QVERIFY(compared.wait(30000));
  QVERIFY2(compared.front().front().toString().isEmpty(), qPrintable(compared.front().front().toString()));
  QCOMPARE(tab->currentPage(), ChipViewsTab::Compare);
  const auto &rows = tab->compareView()->totals()->rows();
  QVERIFY(rows.front().haveA && rows.front().haveB);
  // F16 moves twice the bytes of INT8 and takes longer.
  auto row = [&](const QString &metric) {
    for (const auto &r : rows)
      if (r.metric == metric)
        return r;
    qFatal("no row %s", qPrintable(metric));
  };
  QVERIFY(row("coefficient bytes").b > 1.9 * row("coefficient bytes").a);
  QVERIFY(row("simulated cycles").b > row("simulated cycles").a);
  QVERIFY(tab->compareView()->ops()->rowCount() > 20);
  tab->compareView()->resize(1400, 700);
  QVERIFY(m_window->grab().save(screenshotDir() + "/chip-compare-int8-f16.png"));
}

void TestChipViews::screenshots() {
  if (!m_window)
    QFAIL("resnet18RunRecords did not set up the run records this case needs (see its failure)");
  ChipViewsTab *tab = m_window->openChipViews(m_int8Run, ChipViewsTab::Groups);
  QVERIFY(tab);
  m_context->selectOp(QStringLiteral("/layer1/layer1.0/conv2/Conv_output_0"));
  tab->showPage(ChipViewsTab::Groups);
  QCoreApplication::processEvents();
  QVERIFY(m_window->grab().save(screenshotDir() + "/chip-groups-resnet18-int8.png"));
  tab->groupsView()->detailTabs()->setCurrentIndex(1);
  QVERIFY(tab->groupsView()->grab().save(screenshotDir() + "/chip-groups-slices-resnet18-int8.png"));
  tab->groupsView()->detailTabs()->setCurrentIndex(2);
  QVERIFY(tab->groupsView()->grab().save(screenshotDir() + "/chip-groups-why-cut-resnet18-int8.png"));
  tab->showPage(ChipViewsTab::Memory);
  QCoreApplication::processEvents();
  QVERIFY(m_window->grab().save(screenshotDir() + "/chip-memory-resnet18-int8.png"));
  tab->showPage(ChipViewsTab::Timeline);
  tab->timelineView()->fit();
  QCoreApplication::processEvents();
  QVERIFY(m_window->grab().save(screenshotDir() + "/chip-timeline-resnet18-int8.png"));
  // Zoomed in on the first group, and the same in a dark palette.
  auto [a, b] = tab->chipRun()->groupTime(0);
  tab->timelineView()->setWindow(a, b);
  QCoreApplication::processEvents();
  QVERIFY(tab->timelineView()->grab().save(screenshotDir() + "/chip-timeline-zoomed-resnet18-int8.png"));
  QPalette dark = vis::figurePalette(true);
  dark.setColor(QPalette::Window, QColor(40, 41, 45));
  dark.setColor(QPalette::Button, QColor(50, 51, 55));
  dark.setColor(QPalette::ButtonText, QColor(225, 226, 228));
  dark.setColor(QPalette::AlternateBase, QColor(38, 39, 43));
  tab->setPalette(dark);
  tab->showPage(ChipViewsTab::Groups);
  QCoreApplication::processEvents();
  QVERIFY(tab->grab().save(screenshotDir() + "/chip-groups-resnet18-int8-dark.png"));
  tab->showPage(ChipViewsTab::Timeline);
  QCoreApplication::processEvents();
  QVERIFY(tab->grab().save(screenshotDir() + "/chip-timeline-resnet18-int8-dark.png"));
  tab->setPalette(QPalette());
  // The export writes what `tpuc view` draws.
  QString error;
  QVERIFY2(tab->exportCurrent(m_dir.filePath("export.svg"), "svg", &error), qPrintable(error));
  QVERIFY(!svgElements(m_dir.filePath("export.svg"))[QStringLiteral("command")].empty());
  QVERIFY2(tab->exportCurrent(m_dir.filePath("memory.csv"), "csv", &error), qPrintable(error));
  QFile csv(m_dir.filePath("memory.csv"));
  QVERIFY(csv.open(QIODevice::ReadOnly));
  QVERIFY(csv.readLine().startsWith("record,group,value,kind,slice,address,size,start,end,cycle,bytes"));
}

void TestChipViews::tpucViewOnEveryChip() {
#ifndef TPUC_ENGINE
  QSKIP("this build has no tpuc");
#else
  if (m_top.isEmpty())
    QFAIL("resnet18RunRecords did not set up the run records this case needs (see its failure)");
  // resnet18 and mobilenet_v2 INT8 on the three chips: every view renders through `tpuc view` (screenshots to
  // look at), every group and command is in the SVG.
  const QString assets = qEnvironmentVariableIsEmpty("TPUC_ASSETS") ? QDir::homePath() + "/.cache/tpu-studio/assets"
                                                                    : qEnvironmentVariable("TPUC_ASSETS");
  QString log;
  const QString mobilenet = m_dir.filePath("mobilenet_v2.mlir");
  QCOMPARE(runTpuc({"transform", "--model_name", "mobilenet_v2", "--model_def", assets + "/models/mobilenet_v2.onnx",
                    "--input_shapes", "[[1,3,224,224]]", "--mlir", mobilenet},
                   &log),
           0);
  const QString mobileTable = m_dir.filePath("mobilenet_cali");
  QCOMPARE(runTpuc({"calibrate", mobilenet, "--dataset", m_dir.filePath("cali"), "--input_num", "4", "-o", mobileTable}, &log),
           0);
  for (const auto &[model, mlir, table] :
       {std::tuple{QStringLiteral("resnet18"), m_top, m_dir.filePath("resnet18_cali_table")},
        std::tuple{QStringLiteral("mobilenet_v2"), mobilenet, mobileTable}})
    for (const char *chipName : {"bm1684x", "bm1688", "cv186ah"}) {
      const QString stem = m_dir.filePath(model + "_" + chipName);
      QCOMPARE(runTpuc({"deploy", "--mlir", mlir, "--quantize", "INT8", "--calibration_table", table, "--chip", chipName,
                        "--model", stem + ".tpum"},
                       &log),
               0);
      auto run = load(stem + "_plan.json", stem + "_trace.json");
      QVERIFY2(run->trace()->errors.empty(), run->trace()->errors.empty() ? "" : run->trace()->errors.front().c_str());
      for (const char *view : {"groups", "memory", "timeline"}) {
        const QString png = screenshotDir() + QStringLiteral("/tpuc-view-%1-int8-%2-%3.png").arg(model, chipName, view);
        const QString svg = m_dir.filePath(QStringLiteral("%1-%2-%3.svg").arg(model, chipName, view));
        QCOMPARE(runTpuc({"view", view, "--plan", stem + "_plan.json", "--trace", stem + "_trace.json", "-o", png,
                          "--format", "png"},
                         &log),
                 0);
        QVERIFY(!QImage(png).isNull());
        QCOMPARE(runTpuc({"view", view, "--plan", stem + "_plan.json", "--trace", stem + "_trace.json", "-o", svg}, &log),
                 0);
        QString error;
        auto elements = svgElements(svg, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        if (QLatin1String(view) == QLatin1String("timeline"))
          QCOMPARE(elements[QStringLiteral("command")].size(), run->trace()->commandCount());
        if (QLatin1String(view) == QLatin1String("groups"))
          QCOMPARE(elements[QStringLiteral("group")].size(), run->plan()->groups.size());
      }
    }
#endif
}

QTEST_MAIN(TestChipViews)
#include "tst_chipviews.moc"
