// The pass recorder on the Top pipeline: the expected pass list, files and counts, and provenance of the
// conv + batchnorm + relu the pipeline fuses into one conv.
#include "tpuc/Transforms/PassRecorder.h"
#include "tpuc/PassData/PassProvenance.h"
#include "tpuc/PassData/PassSnapshots.h"
#include "tpuc/Support/Npz.h"
#include "tpuc/Testing/TestAssets.h"
#include "tpuc/Transforms/Passes.h"
#include "tpuc/Transforms/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

using namespace tpuc;

namespace {

/// conv + batchnorm + relu with placeholder shapes, as an importer leaves them (tests/lit's top-pipeline).
std::string convBnRelu(const std::string &weightFile) {
  return R"(module attributes {top.state = #top.state<TOP_F32>, top.weight_file = ")" + weightFile + R"("} {
  func.func @main(%arg0: tensor<1x3x8x8xf32> loc("in")) -> tensor<*xf32> {
    %x = top.input %arg0 : tensor<1x3x8x8xf32> -> tensor<*xf32> loc("in")
    %w = top.weight "conv_w" : tensor<4x3x3x3xf32> loc("conv_w")
    %b = top.weight "conv_b" : tensor<4xf32> loc("conv_b")
    %c = top.conv %x, %w, %b {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : (tensor<*xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<*xf32> loc("conv")
    %m = top.weight "bn_mean" : tensor<4xf32> loc("bn_mean")
    %v = top.weight "bn_var" : tensor<4xf32> loc("bn_var")
    %g = top.weight "bn_gamma" : tensor<4xf32> loc("bn_gamma")
    %be = top.weight "bn_beta" : tensor<4xf32> loc("bn_beta")
    %bn = top.batchnorm %c, %m, %v, %g, %be {epsilon = 1.0e-5 : f64} : (tensor<*xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<*xf32> loc("bn")
    %r = top.relu %bn : tensor<*xf32> -> tensor<*xf32> loc("relu")
    return %r : tensor<*xf32> loc(unknown)
  }
}
)";
}

void writeWeights(const std::string &path) {
  NpzFile npz;
  std::vector<float> w(4 * 3 * 3 * 3);
  for (std::size_t i = 0; i < w.size(); ++i)
    w[i] = 0.01f * static_cast<float>(i % 17);
  npz.set("conv_w", Tensor::fromValues<float>({4, 3, 3, 3}, w));
  npz.set("conv_b", Tensor::fromValues<float>({4}, {0.1f, 0.2f, 0.3f, 0.4f}));
  npz.set("bn_mean", Tensor::fromValues<float>({4}, {0.f, 0.5f, -0.5f, 1.f}));
  npz.set("bn_var", Tensor::fromValues<float>({4}, {1.f, 2.f, 0.5f, 1.f}));
  npz.set("bn_gamma", Tensor::fromValues<float>({4}, {1.f, 1.5f, 0.5f, 2.f}));
  npz.set("bn_beta", Tensor::fromValues<float>({4}, {0.f, 0.1f, 0.2f, 0.3f}));
  npz.write(path);
}

struct Recorded {
  std::unique_ptr<mlir::MLIRContext> context;
  PassRun run;
};

/// Runs the Top pipeline on conv + bn + relu with a recorder writing into `dir`.
Recorded runTopPipeline(const testsupport::TempDir &tmp, const std::string &dir, bool saveWeights) {
  Recorded r;
  mlir::DialectRegistry registry;
  registerDialects(registry);
  r.context = std::make_unique<mlir::MLIRContext>(registry);
  r.context->loadAllAvailableDialects();
  writeWeights(tmp.file("weights.npz"));
  auto module = mlir::parseSourceString<mlir::ModuleOp>(convBnRelu(tmp.file("weights.npz")), r.context.get());
  EXPECT_TRUE(module);
  if (!module)
    return r;
  mlir::PassManager pm(r.context.get());
  TopPipelineOptions options;
  if (saveWeights)
    options.weightFile = tmp.file("out.npz");
  buildTopPipeline(pm, options);
  PassRecorder recorder(dir);
  recorder.attach(pm, "top-pipeline");
  EXPECT_TRUE(mlir::succeeded(pm.run(*module)));
  EXPECT_EQ(recorder.error(), "");
  r.run = recorder.run();
  return r;
}

std::vector<std::string> labels(const PassRun &run) {
  std::vector<std::string> out;
  for (const PassSnapshot &s : run.snapshots)
    out.push_back(s.label());
  return out;
}

} // namespace

TEST(PassRecorder, TopPipelineRecordsEveryPass) {
  testsupport::TempDir tmp("tpuc-passes");
  std::string dir = tmp.file("snapshots");
  Recorded r = runTopPipeline(tmp, dir, /*saveWeights=*/true);
  EXPECT_EQ(labels(r.run), (std::vector<std::string>{"input", "top-shape-infer", "canonicalize", "cse",
                                                      "top-verify-state", "top-save-weights"}));
  const auto &s = r.run.snapshots;
  ASSERT_EQ(s.size(), 6u);
  for (std::size_t i = 0; i < s.size(); ++i) {
    EXPECT_EQ(s[i].index, i);
    EXPECT_EQ(s[i].pipeline, "top-pipeline");
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dir) / s[i].irFile)) << s[i].irFile;
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dir) / s[i].opsFile)) << s[i].opsFile;
    EXPECT_GE(s[i].wallMs, 0.0);
    if (i > 0) // counts add up: every op is kept (changed or not), added or removed
      EXPECT_EQ(s[i].opCount + s[i].removed, s[i - 1].opCount + s[i].added) << s[i].label();
  }
  EXPECT_EQ(s[0].opCount, 12u); // func, input, 6 weights, conv, bn, relu, return
  EXPECT_EQ(s[0].irFile, "000-input.mlir");
  // Shape inference changes every typed op and adds nothing.
  EXPECT_TRUE(s[1].irChanged);
  EXPECT_EQ(s[1].added + s[1].removed, 0u);
  EXPECT_GE(s[1].changed, 5u);
  // Canonicalization folds bn into the conv (two new weights) and the relu into it; the old weights die.
  EXPECT_EQ(s[2].opCount, 6u); // func, input, folded weight and bias, conv, return
  // Removed: batchnorm, relu, conv_b and the 4 batchnorm weights. The conv keeps its identity (its fused
  // location starts with "conv"); the folded filter and bias are both located at conv_w: one takes its
  // identity (changed), the other is added.
  EXPECT_EQ(s[2].removed, 7u);
  EXPECT_EQ(s[2].added, 1u);
  EXPECT_EQ(s[2].changed, 3u); // conv, conv_w and the return (new producer)
  if (const char *keep = std::getenv("TPUC_KEEP_SNAPSHOTS"))
    std::filesystem::copy(dir, keep, std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing);
  // The verifier changes nothing: its snapshot shares the previous files.
  EXPECT_FALSE(s[4].irChanged);
  EXPECT_EQ(s[4].irFile, s[3].irFile);
  EXPECT_EQ(s[4].added + s[4].removed + s[4].changed, 0u);
  EXPECT_GT(s[1].wallMs + s[2].wallMs, 0.0);

  // The index on disk is what the recorder holds.
  Result<PassRun> back = readPassRun(dir);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(*back, r.run);
  Result<LoadedSnapshot> last = loadSnapshot(dir, s[5]);
  ASSERT_TRUE(last) << last.error();
  EXPECT_NE(last->ir.find("do_relu = true"), std::string::npos);
  EXPECT_NE(last->ir.find("loc("), std::string::npos);
  EXPECT_EQ(last->ops.size(), s[5].opCount);
}

TEST(PassRecorder, ProvenanceOfFusedConvBnRelu) {
  testsupport::TempDir tmp("tpuc-passes");
  std::string dir = tmp.file("snapshots");
  Recorded r = runTopPipeline(tmp, dir, /*saveWeights=*/false);
  ASSERT_EQ(labels(r.run).size(), 5u);
  Result<LoadedSnapshot> before = loadSnapshot(dir, r.run.snapshots[1]); // shapes inferred, nothing fused yet
  Result<LoadedSnapshot> after = loadSnapshot(dir, r.run.snapshots.back());
  ASSERT_TRUE(before && after) << before.error() << after.error();
  auto find = [](const OpRecords &ops, const std::string &kind, const std::string &name) -> std::size_t {
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (ops[i].kind == kind && ops[i].name == name)
        return i;
    ADD_FAILURE() << "no " << kind << " " << name;
    return 0;
  };
  std::size_t fused = find(after->ops, "top.conv", "conv");
  EXPECT_EQ(after->ops[fused].locNames, (std::vector<std::string>{"conv", "bn", "relu"}));

  Provenance p = mapProvenance(before->ops, after->ops);
  // Many-to-one: the conv, batchnorm and relu of the Top stage all became the fused conv.
  std::set<std::string> sources;
  for (std::size_t i : p.backward[fused])
    sources.insert(before->ops[i].kind + " " + before->ops[i].name);
  EXPECT_EQ(sources, (std::set<std::string>{"top.conv conv", "top.batchnorm bn", "top.relu relu"}));
  for (const char *name : {"conv", "relu"}) {
    std::string kind = std::string(name) == "conv" ? "top.conv" : "top.relu";
    EXPECT_EQ(p.forward[find(before->ops, kind, name)], std::vector<std::size_t>{fused});
  }
  // One-to-many: the conv's filter became the folded filter and the folded bias (both located at it).
  std::set<std::string> targets;
  for (std::size_t j : p.forward[find(before->ops, "top.weight", "conv_w")])
    targets.insert(after->ops[j].attributes);
  EXPECT_EQ(targets.size(), 2u);
  // The removed batchnorm parameters relate to nothing that is left.
  EXPECT_TRUE(p.forward[find(before->ops, "top.weight", "bn_mean")].empty());
}

TEST(PassRecorder, UnwritableDirectoryIsAnError) {
  PassRecorder recorder("/proc/self/no-such-dir/snapshots");
  EXPECT_NE(recorder.error().find("cannot create the snapshot directory"), std::string::npos);
}

TEST(PassRecorder, MalformedIndexNamesTheFileAndField) {
  testsupport::TempDir tmp("tpuc-passes");
  Result<PassRun> missing = readPassRun(tmp.path());
  EXPECT_FALSE(missing);
  EXPECT_NE(missing.error().find("index.json: cannot be read"), std::string::npos);
  ASSERT_TRUE(writeTextFile(tmp.file("index.json"), R"({"format": "tpuc-pass-snapshots", "version": 1,
    "passes": [{"index": 0, "pass": "input"}]})"));
  Result<PassRun> incomplete = readPassRun(tmp.path());
  EXPECT_FALSE(incomplete);
  EXPECT_EQ(incomplete.error(), tmp.file("index.json") + ": passes[0]: missing \"argument\"");
  // Found by tests/fuzz (pass-index): a count given as a float too large for any integer.
  ASSERT_TRUE(writeTextFile(tmp.file("index.json"), R"({"format": "tpuc-pass-snapshots", "version": 1,
    "passes": [{"index": 8.9e113, "pass": "input"}]})"));
  Result<PassRun> huge = readPassRun(tmp.path());
  EXPECT_FALSE(huge);
  EXPECT_EQ(huge.error(), tmp.file("index.json") + ": passes[0]: \"index\" is not an integer in range");
  PassRun run;
  run.snapshots.push_back({});
  run.snapshots[0].irFile = "../../etc/passwd";
  run.snapshots[0].opsFile = "x.ops.json";
  ASSERT_TRUE(writePassRunIndex(run, tmp.path()));
  Result<PassRun> escaping = readPassRun(tmp.path());
  EXPECT_FALSE(escaping);
  EXPECT_NE(escaping.error().find("bad file name"), std::string::npos);
}

TEST(PassRecorder, ProvenanceThroughFusionAndLowering) {
  // Top pipeline then top-to-tpu (F16) in one pass manager: the Top and Tpu stages of one run.
  testsupport::TempDir tmp("tpuc-passes");
  std::string dir = tmp.file("snapshots");
  mlir::DialectRegistry registry;
  registerDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  writeWeights(tmp.file("weights.npz"));
  auto module = mlir::parseSourceString<mlir::ModuleOp>(convBnRelu(tmp.file("weights.npz")), &context);
  ASSERT_TRUE(module);
  mlir::PassManager pm(&context);
  buildTopPipeline(pm, TopPipelineOptions{});
  TopToTpuOptions lowering;
  lowering.mode = "F16";
  pm.addPass(createTopToTpu(lowering));
  PassRecorder recorder(dir);
  recorder.attach(pm, "top-to-tpu");
  ASSERT_TRUE(mlir::succeeded(pm.run(*module)));
  PassRun run = recorder.run();
  ASSERT_EQ(labels(run).back(), "top-to-tpu");
  Result<LoadedSnapshot> top = loadSnapshot(dir, run.snapshots[1]); // Top, before fusion
  Result<LoadedSnapshot> tpu = loadSnapshot(dir, run.snapshots.back());
  ASSERT_TRUE(top && tpu) << top.error() << tpu.error();
  std::vector<std::size_t> tpuConvs;
  for (std::size_t j = 0; j < tpu->ops.size(); ++j)
    if (tpu->ops[j].kind == "tpu.conv2d")
      tpuConvs.push_back(j);
  ASSERT_EQ(tpuConvs.size(), 1u) << tpu->ir;
  Provenance p = mapProvenance(top->ops, tpu->ops);
  // The Tpu conv came from the Top conv, batchnorm and relu (fused, then lowered).
  std::set<std::string> sources;
  for (std::size_t i : p.backward[tpuConvs[0]])
    sources.insert(top->ops[i].kind);
  EXPECT_EQ(sources, (std::set<std::string>{"top.conv", "top.batchnorm", "top.relu"}));
  // Casts at the precision boundaries are named after their producer (`in_f16`, `relu_f32`), converted
  // weights after theirs: each relates to its source.
  std::set<std::string> casts;
  for (std::size_t j = 0; j < tpu->ops.size(); ++j) {
    if (tpu->ops[j].kind != "tpu.cast")
      continue;
    for (std::size_t i : p.backward[j])
      casts.insert(tpu->ops[j].name + "<-" + top->ops[i].name);
  }
  EXPECT_EQ(casts, (std::set<std::string>{"in_f16<-in", "relu_f32<-relu"}));
  for (std::size_t j = 0; j < tpu->ops.size(); ++j)
    if (tpu->ops[j].kind == "top.weight")
      EXPECT_EQ(p.backward[j].size(), 1u) << tpu->ops[j].location; // conv_w_bn_f16 <- conv_w (loc of the folded filter)
}

TEST(PassRecorder, FailedPassIsRecordedWithWhatItLeft) {
  testsupport::TempDir tmp("tpuc-passes");
  mlir::DialectRegistry registry;
  registerDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  writeWeights(tmp.file("weights.npz"));
  auto module = mlir::parseSourceString<mlir::ModuleOp>(convBnRelu(tmp.file("weights.npz")), &context);
  ASSERT_TRUE(module);
  mlir::PassManager pm(&context);
  // A Top module does not meet the lowered stage's contract: the verifier fails.
  pm.addPass(createTopVerifyState(TopVerifyStateOptions{"TPU_LOWERED"}));
  PassRecorder recorder(tmp.file("snapshots"));
  recorder.attach(pm, "contract");
  context.getDiagEngine().registerHandler([](mlir::Diagnostic &) { return mlir::success(); });
  EXPECT_TRUE(mlir::failed(pm.run(*module)));
  PassRun run = recorder.run();
  ASSERT_EQ(labels(run), (std::vector<std::string>{"input", "top-verify-state"}));
  EXPECT_TRUE(run.snapshots[1].failed);
  EXPECT_FALSE(run.snapshots[0].failed);
  EXPECT_EQ(run.snapshots[1].opCount, run.snapshots[0].opCount);
  Result<PassRun> back = readPassRun(tmp.file("snapshots"));
  ASSERT_TRUE(back) << back.error();
  EXPECT_TRUE(back->snapshots[1].failed);
}
