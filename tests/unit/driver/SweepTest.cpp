// Sweeps (issue 26): the manifest read through the subcommands' flag tables (values, paths, precisions,
// tolerances) and its one-line errors, cell numbering, the sweep request's argv round trip, cell records and
// the report through JSON, regressions against a previous sweep sorted first, the HTML table.
#include "tpuc/Driver/Sweep.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace tpuc::driver;

namespace {

const char *kManifest = R"({
  "name": "zoo",
  "precisions": ["f16", "INT8"],
  "chips": ["bm1684x", "cv186ah"],
  "slurm": {"partition": "npu", "cpus_per_task": 2, "mem": "4G", "time": "00:20:00"},
  "models": [
    {"name": "cls",
     "transform": {"model_def": "models/cls.onnx", "input_shapes": [[1,3,48,192]], "mean": [127.5,127.5,127.5],
                   "scale": 0.0078, "keep_aspect_ratio": true, "test_input": "a.png,/abs/b.png"},
     "calibrate": {"dataset": "cal", "input_num": 8, "subset": "cal100"},
     "deploy": {"find_divergent": false, "excepts": ["x", "y"]},
     "tolerance": {"INT8": "0.85,0.5"}},
    {"name": "det", "transform": {"model_def": "/m/det.onnx", "input_shapes": "[[1,3,64,64]]",
                                   "test_input": "dog.jpg"},
     "calibrate": {"dataset": "/cal"}, "tolerance": "0.95,0.9"}
  ]
})";

SweepManifest parsed() {
  auto m = parseSweepManifest(kManifest, "/work/zoo/zoo.json");
  EXPECT_TRUE(m) << m.error;
  return m.result;
}

std::string errorOf(const std::string &text) { return parseSweepManifest(text, "/z/m.json").error; }

} // namespace

TEST(Sweep, ManifestStagesAreTheSubcommandsFlags) {
  SweepManifest m = parsed();
  EXPECT_EQ(m.name, "zoo");
  EXPECT_EQ(m.precisions, (std::vector<std::string>{"F16", "INT8"})); // canonical spelling
  EXPECT_EQ(m.slurm, (SweepSlurm{"npu", "4G", "00:20:00", 2}));
  ASSERT_EQ(m.models.size(), 2u);
  const SweepModel &cls = m.models[0];
  auto transform = parseRequest<TransformOptions>(cls.transformArgs, false);
  ASSERT_TRUE(transform) << transform.error;
  EXPECT_EQ(transform.request.modelDef, "/work/zoo/models/cls.onnx");
  EXPECT_EQ(transform.request.inputShapes, (std::vector<std::vector<int64_t>>{{1, 3, 48, 192}}));
  EXPECT_EQ(transform.request.mean, (std::vector<double>{127.5, 127.5, 127.5}));
  EXPECT_EQ(transform.request.scale, (std::vector<double>{0.0078}));
  EXPECT_TRUE(transform.request.keepAspectRatio);
  EXPECT_EQ(transform.request.testInput, (std::vector<std::string>{"/work/zoo/a.png", "/abs/b.png"}));
  auto calibrate = parseRequest<CalibrateOptions>(cls.calibrateArgs, false);
  EXPECT_EQ(calibrate.request.dataset, "/work/zoo/cal");
  EXPECT_EQ(calibrate.request.inputNum, 8);
  EXPECT_EQ(calibrate.request.subset, "cal100"); // a name in the index, not a file
  auto deploy = parseRequest<DeployOptions>(cls.deployArgs, false);
  EXPECT_FALSE(deploy.request.findDivergent);
  EXPECT_EQ(deploy.request.excepts, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(cellTolerance(cls, "INT8"), "0.85,0.5");
  EXPECT_EQ(cellTolerance(cls, "F16"), "0.99,0.90");
  EXPECT_EQ(cellTolerance(m.models[1], "INT8"), "0.95,0.9");
  EXPECT_EQ(defaultTolerance("F32"), "0.99,0.99");
}

TEST(Sweep, CellsAreModelMajor) {
  SweepManifest m = parsed();
  std::vector<SweepCell> cells = sweepCells(m);
  ASSERT_EQ(cells.size(), 8u);
  EXPECT_EQ(cellName(m, cells[0]), "cls/F16/bm1684x");
  EXPECT_EQ(cellName(m, cells[1]), "cls/F16/cv186ah");
  EXPECT_EQ(cellName(m, cells[2]), "cls/INT8/bm1684x");
  EXPECT_EQ(cellName(m, cells[7]), "det/INT8/cv186ah");
  EXPECT_EQ(cells[5].index, 5);
}

TEST(Sweep, ManifestErrorsNameTheField) {
  EXPECT_EQ(errorOf("[1]"), "/z/m.json: expects a JSON object");
  EXPECT_NE(errorOf("{").find("/z/m.json: "), std::string::npos);
  const std::string base = R"("precisions": ["F16"], "chips": ["bm1684x"])";
  EXPECT_EQ(errorOf("{" + base + "}"), "/z/m.json: models: expects a non-empty list of models");
  EXPECT_EQ(errorOf(R"({"precisions": ["F17"], "chips": ["bm1684x"], "models": []})"),
            "/z/m.json: precisions: unknown precision 'F17'");
  EXPECT_EQ(errorOf(R"({"precisions": ["F16"], "chips": ["bm9"], "models": []})"),
            "/z/m.json: chips: unknown chip 'bm9'");
  const std::string model =
      R"("transform": {"model_def": "a.onnx", "input_shapes": [[1,3]], "test_input": "x.npz")";
  EXPECT_EQ(errorOf("{" + base + R"(, "models": [{"name": "a b", )" + model + "}}]}"),
            "/z/m.json: models[0].name: expects a name of letters, digits, '_', '-' or '.'");
  EXPECT_EQ(errorOf("{" + base + R"(, "models": [{"name": "a", )" + model + R"(, "meen": 1}}]})"),
            "/z/m.json: models[0].transform: tpuc transform: unknown option '--meen' (see 'tpuc transform "
            "--help')");
  EXPECT_EQ(errorOf("{" + base + R"(, "models": [{"name": "a", )" + model + R"(, "mlir": "x"}}]})"),
            "/z/m.json: models[0].transform.mlir: set by the sweep for each cell");
  EXPECT_EQ(
      errorOf("{" + base + R"(, "models": [{"name": "a", "transform": {"model_def": "a.onnx"}}]})"),
      "/z/m.json: models[0].transform: needs model_def, input_shapes and test_input (the sample the cells "
      "compare on)");
  EXPECT_EQ(
      errorOf(R"({"precisions": ["INT8"], "chips": ["bm1684x"], "models": [{"name": "a", )" + model + "}}]}"),
      "/z/m.json: models[0].calibrate: missing, and INT8 needs a calibration (dataset, ...)");
  EXPECT_EQ(errorOf("{" + base + R"(, "models": [{"name": "a", )" + model + R"(}, "tolerance": "0.9"}]})"),
            "/z/m.json: 'models[0].tolerance' expects two numbers 'cos,euc' (e.g. 0.99,0.90), got '0.9'");
  EXPECT_EQ(errorOf("{" + base + R"(, "models": [{"name": "a", )" + model + R"(}}, {"name": "a", )" + model +
                    "}}]}"),
            "/z/m.json: models[1].name: 'a' is listed twice");
  EXPECT_EQ(errorOf("{" + base + R"(, "models": [{"name": "a", )" + model + R"(}, "deploy": {"mean": 1}}]})"),
            "/z/m.json: models[0].deploy: tpuc deploy: unknown option '--mean' (see 'tpuc deploy --help')");
}

TEST(Sweep, RequestRoundTripsThroughArgv) {
  SweepOptions o;
  o.manifest = "/z/m.json";
  o.executor = "slurm";
  o.cell = 3;
  o.out = "/shared/sweep";
  o.partition = "npu";
  o.cpusPerTask = 2;
  o.latencyThreshold = 0.1;
  Argv argv = toArgv(o);
  ASSERT_TRUE(argv) << argv.error;
  auto back = parseRequest<SweepOptions>(argv.args);
  ASSERT_TRUE(back) << back.error;
  EXPECT_EQ(back.request, o);
  EXPECT_EQ(validateSweepOptions(o), "");
  o.jobs = -1;
  EXPECT_EQ(validateSweepOptions(o), "'--jobs' must not be negative");
  EXPECT_EQ(sweepOutDir(SweepOptions{.manifest = "/z/m.json"}), "/z/m_sweep");
}

TEST(Sweep, RecordsAndReportRoundTrip) {
  SweepCellRecord c;
  c.index = 2;
  c.model = "cls";
  c.precision = "INT8";
  c.chip = "bm1684x";
  c.status = "failed";
  c.stage = "deploy";
  c.message = "tpuc deploy: beyond --tolerance";
  c.tolerance = "0.9,0.8";
  c.outputs = {{"out", "SIMILAR", true, 0.99, 0.9, INFINITY, 0.01}};
  c.firstDivergent = "conv1";
  c.latencyMs = 0.25;
  c.cycles = 1000;
  c.compileSeconds = 3.5;
  c.peakRssKb = 150000;
  c.stages = {{"transform", 0, 1.0, 140000}, {"deploy", 1, 2.5, 150000}};
  c.runDir = "cells/2-cls-INT8-bm1684x";
  c.accuracy = "cells/2-cls-INT8-bm1684x/cls_compare.json";
  auto back = parseSweepCellRecord(toJson(c));
  ASSERT_TRUE(back) << back.error;
  EXPECT_EQ(back.result, c);
  EXPECT_TRUE(isFinished(c));
  EXPECT_EQ(parseSweepCellRecord(R"({"schema": "tpuc.sweep_cell", "version": 9})").error,
            "tpuc.sweep_cell version 9 is not supported (this build reads 1)");
  EXPECT_EQ(cellRecordPath("/s", 4), "/s/cells/4.json");

  SweepReport r;
  r.name = "zoo";
  r.executor = "local";
  r.cells = {c};
  countSweep(r);
  EXPECT_EQ(r.failed, 1);
  auto report = parseSweepReport(toJson(r));
  ASSERT_TRUE(report) << report.error;
  EXPECT_EQ(report.result, r);
}

TEST(Sweep, RegressionsAreFlaggedAndSortedFirst) {
  auto cell = [](int64_t index, const char *model, double cosine, double latency, const char *status) {
    SweepCellRecord c;
    c.index = index;
    c.model = model;
    c.precision = "INT8";
    c.chip = "bm1684x";
    c.status = status;
    c.outputs = {{"out", "SIMILAR", true, cosine, 0.9, 20, 0.1}};
    c.latencyMs = latency;
    return c;
  };
  SweepReport previous, now;
  previous.cells = {cell(0, "a", 0.99, 1.0, "passed"), cell(1, "b", 0.99, 1.0, "passed"),
                    cell(2, "c", 0.99, 1.0, "passed"), cell(3, "d", 0.99, 1.0, "passed")};
  now.accuracyThreshold = 0.01;
  now.latencyThreshold = 0.05;
  now.cells = {cell(0, "a", 0.985, 1.04, "passed"), // within both thresholds
               cell(1, "b", 0.97, 1.0, "passed"),   // cosine down 0.02
               cell(2, "c", 0.99, 1.2, "passed"),   // latency up 20 %
               cell(3, "d", 0.99, 1.0, "failed"),   // a pass turned into a failure
               cell(4, "e", 0.5, 9.0, "passed")};   // new: nothing to compare with
  compareSweeps(now, previous);
  ASSERT_EQ(now.cells.size(), 5u);
  std::vector<int64_t> order;
  for (const SweepCellRecord &c : now.cells)
    order.push_back(c.index);
  EXPECT_EQ(order, (std::vector<int64_t>{1, 2, 3, 0, 4}));
  EXPECT_TRUE(now.cells[0].accuracyRegression);
  EXPECT_FALSE(now.cells[0].latencyRegression);
  EXPECT_TRUE(now.cells[1].latencyRegression);
  EXPECT_EQ(now.cells[1].previousLatencyMs, 1.0);
  EXPECT_TRUE(now.cells[2].accuracyRegression);
  EXPECT_EQ(now.cells[2].previousStatus, "passed");
  EXPECT_FALSE(now.cells[3].accuracyRegression || now.cells[3].latencyRegression);
  EXPECT_FALSE(now.cells[4].previousOutputCosine.has_value());
  EXPECT_EQ(now.regressions, 3);
  std::string html = sweepReportHtml(now);
  EXPECT_EQ(std::count(html.begin(), html.end(), '\n') > 5, true);
  size_t rows = 0, regressions = 0;
  for (size_t at = html.find("<tr class="); at != std::string::npos; at = html.find("<tr class=", at + 1))
    ++rows;
  for (size_t at = html.find(" regression\">"); at != std::string::npos;
       at = html.find(" regression\">", at + 1))
    ++regressions;
  EXPECT_EQ(rows, 5u);
  EXPECT_EQ(regressions, 3u);
  EXPECT_EQ(html.find("<script"), std::string::npos); // self-contained, static
}
