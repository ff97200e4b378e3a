//===- RunnerTest.cpp - The four runners through one interface, and runAndCompare ---===//
// One small Top module (conv+relu+add+pool+sigmoid) on the reference interpreter, its F32 lowering on the
// Tpu simulator (bit-identical), the model file codegen makes of that on the command-level simulator, and
// ONNX Runtime on make_models.py's tiny model against its numpy reference; runAndCompare passing, and
// catching a deliberate mismatch.
//===----------------------------------------------------------------------===//
#include "tpuc/Simulator/Runner.h"

#include "tpuc/Backend/ChipProfile.h"
#include "tpuc/Codegen/ModelCodegen.h"
#include "tpuc/Conversion/TopToTpu.h"
#include "tpuc/Dialect/Top/TopDialect.h"
#include "tpuc/Dialect/Top/WeightStore.h"
#include "tpuc/Dialect/Tpu/TpuDialect.h"
#include "tpuc/Simulator/CmdExec.h"
#include "tpuc/Simulator/Interpreter.h"
#include "tpuc/Simulator/OnnxRuntime.h"
#include "tpuc/Simulator/TpuSim.h"
#include "tpuc/Testing/TestAssets.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace tpuc;
using namespace tpuc::sim;

namespace {

std::string errorText(llvm::Error err) { return err ? llvm::toString(std::move(err)) : std::string(); }

std::string readText(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class RunnerTest : public ::testing::Test {
protected:
  RunnerTest() {
    mlir::DialectRegistry registry;
    registry.insert<mlir::func::FuncDialect, mlir::quant::QuantDialect, top::TopDialect, tpu::TpuDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    std::vector<float> x(32);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = 0.25f * static_cast<float>(static_cast<int>(i * 7 % 13) - 6);
    inputs.set("in", Tensor::fromValues<float>({1, 2, 4, 4}, x));
  }
  mlir::OwningOpRef<mlir::ModuleOp> parse(const std::string &text) {
    auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
    EXPECT_TRUE(module);
    return module;
  }
  mlir::OwningOpRef<mlir::ModuleOp> topModule() {
    return parse(readText(TPUC_CONVERSION_INPUTS "/conv_relu_add_pool.mlir"));
  }
  mlir::OwningOpRef<mlir::ModuleOp> lowered(mlir::ModuleOp top) {
    mlir::OwningOpRef<mlir::ModuleOp> copy(top.clone());
    LoweringOptions options; // bm1684x, F32
    EXPECT_EQ(errorText(lowerToTpu(*copy, options)), "");
    return copy;
  }

  mlir::MLIRContext context;
  NpzFile inputs;
};

TEST_F(RunnerTest, TopAndTpuRunnersShareTheSurface) {
  auto top = topModule();
  ASSERT_TRUE(top);
  auto tpuModule = lowered(*top);
  TopRunner reference(*top);
  TpuRunner tpu(*tpuModule, reference.outputNames());
  for (Runner *runner : {static_cast<Runner *>(&reference), static_cast<Runner *>(&tpu)}) {
    SCOPED_TRACE(runner->name());
    EXPECT_EQ(runner->inputNames(), std::vector<std::string>{"in"});
    EXPECT_EQ(runner->outputNames(), std::vector<std::string>{"sig"});
    size_t calls = 0;
    RunnerOptions options;
    options.dumpAll = true;
    options.progress = [&](size_t, size_t, llvm::StringRef) { return ++calls > 0; };
    ASSERT_EQ(errorText(runOn(*runner, inputs, options)), "");
    EXPECT_GT(calls, 0u);
    EXPECT_EQ(runner->outputs().names(), std::vector<std::string>{"sig"});
    for (const char *name : {"in", "conv", "conv2", "add", "pool", "sig"})
      EXPECT_TRUE(runner->tensors().has(name)) << name;
    EXPECT_GT(runner->stats().steps, 0u);
  }
  EXPECT_EQ(reference.name(), "reference");
  EXPECT_EQ(tpu.name(), "Tpu simulation");
  EXPECT_EQ(TpuRunner(*tpuModule, {}, &reference.tensors()).name(), "isolated simulation");

  // F32 lowering is bit-identical to the reference, tensor for tensor (both have run: nothing reruns).
  RunCompareOptions options;
  options.allTensors = true;
  auto compared = runAndCompare(tpu, reference, options);
  ASSERT_TRUE(bool(compared)) << llvm::toString(compared.takeError());
  EXPECT_EQ(compared->firstFailing(), nullptr);
  EXPECT_GE(compared->comparison.results.size(), 6u);
  EXPECT_EQ(compared->comparison.count(CompareStatus::Equal),
            static_cast<int64_t>(compared->comparison.results.size()));
}

TEST_F(RunnerTest, ModelFileRunnerMatchesTheTpuSimulation) {
  testsupport::TempDir dir("tpuc-runner");
  auto top = topModule();
  ASSERT_TRUE(top);
  auto tpuModule = lowered(*top);
  ASSERT_TRUE(mlir::succeeded(top::saveWeights(*tpuModule, dir.file("w.npz"))));
  mlir::OwningOpRef<mlir::ModuleOp> addressed(tpuModule->clone());
  BackendOptions backend;
  backend.modelPath = dir.file("m.tpum");
  ASSERT_EQ(errorText(runBackend(*addressed, backend)), "");
  codegen::Model model = codegen::readModelFile(backend.modelPath);
  backend::ChipProfile chip = backend::findChipProfile(model.chip);

  TpuRunner tpu(*tpuModule);
  cmdsim::ModelFileRunner file(backend.modelPath, chip, model);
  EXPECT_EQ(file.name(), backend.modelPath);
  EXPECT_EQ(file.inputNames(), std::vector<std::string>{"in"});
  EXPECT_EQ(file.outputNames(), std::vector<std::string>{"sig"});
  RunCompareOptions options;
  options.targetInputs = &inputs;
  options.referenceInputs = &inputs;
  options.allTensors = true;
  std::vector<std::string> ran;
  options.beforeRun = [&](const Runner &runner) { ran.push_back(runner.name()); };
  options.align = [&](NpzFile &target, NpzFile &reference) {
    cmdsim::maskNotComputed(file.stageRunner().stats().partial, target, reference);
  };
  auto compared = runAndCompare(file, tpu, options);
  ASSERT_TRUE(bool(compared)) << llvm::toString(compared.takeError());
  EXPECT_EQ(ran, (std::vector<std::string>{"Tpu simulation", backend.modelPath})); // the reference first
  EXPECT_EQ(compared->firstFailing(), nullptr);
  EXPECT_TRUE(file.tensors().has("sig"));
  EXPECT_GT(file.stats().steps, 0u);

  // A run error names the runner.
  NpzFile wrong;
  wrong.set("in", Tensor(DType::F32, {1, 3}));
  options.targetInputs = &wrong;
  options.referenceInputs = nullptr;
  auto failed = runAndCompare(file, tpu, options);
  std::string message = llvm::toString(failed.takeError());
  EXPECT_EQ(message.rfind(backend.modelPath + ": input 'in' needs shape", 0), 0u) << message;
}

TEST_F(RunnerTest, RunAndCompareCatchesADeliberateMismatch) {
  auto top = topModule();
  ASSERT_TRUE(top);
  // The same graph with another bias on the first conv's first channel.
  std::string text = readText(TPUC_CONVERSION_INPUTS "/conv_relu_add_pool.mlir");
  size_t at = text.find("dense<[0.5, -0.25, 1.0]>");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 24, "dense<[4.5, -0.25, 1.0]>");
  auto changed = parse(text);
  ASSERT_TRUE(changed);
  TopRunner reference(*top), target(*changed, {}, "changed");

  RunCompareOptions options;
  options.targetInputs = &inputs;
  options.referenceInputs = &inputs;
  options.targetName = "changed";
  options.referenceName = "top";
  auto outputs = runAndCompare(target, reference, options);
  ASSERT_TRUE(bool(outputs)) << llvm::toString(outputs.takeError());
  ASSERT_NE(outputs->firstFailing(), nullptr);
  EXPECT_EQ(outputs->firstFailing()->name, "sig");
  EXPECT_EQ(outputs->comparison.targetName, "changed");
  EXPECT_EQ(outputs->comparison.referenceName, "top");

  // Every tensor: the input agrees, the first conv is where they part.
  options.allTensors = true;
  auto layers = runAndCompare(target, reference, options);
  ASSERT_TRUE(bool(layers)) << llvm::toString(layers.takeError());
  ASSERT_NE(layers->firstFailing(), nullptr);
  EXPECT_EQ(layers->firstFailing()->name, "conv");
  EXPECT_TRUE(layers->comparison.results.front().passed()); // "in"

  // A recorded reference (a --test_reference file) with one output spoiled, and excepts skipping it.
  NpzFile file = reference.tensors();
  Tensor spoiled = file.get("sig");
  for (float &v : spoiled.values<float>())
    v = -v;
  file.set("sig", spoiled);
  auto recorded = RecordedRunner::create("ref.npz", file, {"sig"});
  ASSERT_TRUE(bool(recorded)) << llvm::toString(recorded.takeError());
  RunCompareOptions againstFile;
  againstFile.targetInputs = &inputs;
  auto vsFile = runAndCompare(reference, **recorded, againstFile);
  ASSERT_TRUE(bool(vsFile)) << llvm::toString(vsFile.takeError());
  ASSERT_NE(vsFile->firstFailing(), nullptr);
  EXPECT_EQ(vsFile->firstFailing()->name, "sig");
  againstFile.excepts = {"sig"};
  againstFile.allTensors = true;
  auto excepted = runAndCompare(reference, **recorded, againstFile);
  ASSERT_TRUE(bool(excepted)) << llvm::toString(excepted.takeError());
  EXPECT_EQ(excepted->firstFailing(), nullptr);

  auto lacking = RecordedRunner::create("ref.npz", NpzFile(), {"sig"});
  EXPECT_EQ(llvm::toString(lacking.takeError()), "ref.npz: no tensor 'sig' (an output of the model)");
  EXPECT_EQ(errorText(runOn(reference, NpzFile(), {})),
            "reference: missing input 'in' (argument 0) in the input file");
}

TEST(OrtRunnerTest, RunsTheFrameworkModelThroughTheInterface) {
  std::string why;
  ASSERT_TRUE(ort::available(why)) << "ONNX Runtime is required by this test: " << why;
  testsupport::TempDir dir("tpuc-runner-ort");
  std::string cmd = std::string(TPUC_PYTHON) + " " + TPUC_MAKE_MODELS + " " + dir.path();
  ASSERT_EQ(std::system(cmd.c_str()), 0)
      << "make_models.py failed (needs /usr/bin/python3 with python3-onnx)";
  NpzFile numpy = NpzFile::read(dir.file("tiny_ref.npz"));
  NpzFile feeds;
  feeds.set("x", numpy.get("x"));
  feeds.set("ids", numpy.get("ids"));

  auto session = OrtRunner::open(dir.file("tiny.onnx"), /*allTensors=*/true);
  ASSERT_TRUE(bool(session)) << llvm::toString(session.takeError());
  Runner &ort = **session;
  EXPECT_EQ(ort.name(), "ONNX Runtime");
  EXPECT_EQ(ort.inputNames(), (std::vector<std::string>{"x", "ids"}));
  auto recorded = RecordedRunner::create("numpy", numpy, {"out", "ids_out"});
  ASSERT_TRUE(bool(recorded)) << llvm::toString(recorded.takeError());
  RunCompareOptions options;
  options.targetInputs = &feeds;
  options.allTensors = true;
  auto compared = runAndCompare(ort, **recorded, options);
  ASSERT_TRUE(bool(compared)) << llvm::toString(compared.takeError());
  EXPECT_EQ(compared->firstFailing(), nullptr);
  for (const char *name : {"mm", "relu", "out", "ids_out"})
    EXPECT_TRUE(ort.tensors().has(name)) << name;

  // ORT's exceptions arrive as errors naming the model.
  auto missing = OrtRunner::open(dir.file("nothing.onnx"), false);
  std::string message = llvm::toString(missing.takeError());
  EXPECT_NE(message.find("nothing.onnx: cannot open file"), std::string::npos) << message;
  NpzFile partial;
  partial.set("x", numpy.get("x"));
  auto other = OrtRunner::open(dir.file("tiny.onnx"), false);
  ASSERT_TRUE(bool(other)) << llvm::toString(other.takeError());
  message = errorText(runOn(**other, partial, {}));
  EXPECT_EQ(message.rfind("ONNX Runtime: ", 0), 0u) << message;
  EXPECT_NE(message.find("missing input 'ids'"), std::string::npos) << message;
}

} // namespace
