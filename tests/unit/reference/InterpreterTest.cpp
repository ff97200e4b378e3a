//===- InterpreterTest.cpp - The reference interpreter on whole functions ---===//
// A small CNN with an .npz weight file checked tensor by tensor against NumPy, tensor naming and order,
// freeing of dead tensors, input handling, cancellation and the one-line errors.
//===----------------------------------------------------------------------===//
#include "TestSupport.h"

#include "tpuc/Dialect/Top/WeightStore.h"
#include "tpuc/Simulator/Interpreter.h"
#include "tpuc/Support/Npz.h"

#include "llvm/Support/FileSystem.h"

using namespace tpuc;
using namespace tpuc::sim;

namespace {

const std::string kCasesDir = TPUC_REF_CASES_DIR;
const std::string kInputsDir = TPUC_REF_INPUTS_DIR;

std::string errorText(llvm::Error err) { return err ? llvm::toString(std::move(err)) : std::string(); }

class InterpreterTest : public ::testing::Test {
protected:
  void SetUp() override { context = test::makeContext(); }

  mlir::OwningOpRef<mlir::ModuleOp> parse(const std::string &text) {
    return mlir::parseSourceString<mlir::ModuleOp>(text, context.get());
  }
  mlir::OwningOpRef<mlir::ModuleOp> smallCnn() {
    auto module = mlir::parseSourceFile<mlir::ModuleOp>(kInputsDir + "/small_cnn.mlir", context.get());
    if (module)
      (*module)->setAttr(top::TopDialect::kWeightFileAttr,
                         mlir::StringAttr::get(context.get(), kCasesDir + "/small_cnn.npz"));
    return module;
  }

  std::unique_ptr<mlir::MLIRContext> context;
};

const std::vector<std::string> kCnnTensors = {
    "images", "conv1", "pool1", "dw_conv_fused", "bn", "relu_0", "add", "gap", "flatten", "fc", "prob"};

TEST_F(InterpreterTest, DumpsEveryTensorInProgramOrder) {
  auto module = smallCnn();
  ASSERT_TRUE(module);
  NpzFile data = NpzFile::read(kCasesDir + "/small_cnn.npz");
  Interpreter interp(*module);
  EXPECT_EQ(interp.inputNames(), std::vector<std::string>{"images"});
  EXPECT_EQ(interp.outputNames(), (std::vector<std::string>{"prob", "add"}));
  ASSERT_EQ(errorText(interp.setInput("images", data.get("images"))), "");
  ASSERT_EQ(errorText(interp.run(RunOptions{.dumpAll = true, .profile = true})), "");
  EXPECT_EQ(interp.tensors().names(), kCnnTensors);
  for (const std::string &name : kCnnTensors) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(test::allClose(interp.tensors().get(name), data.get("expect:" + name), 1e-5, 1e-4));
  }
  EXPECT_EQ(interp.outputs().names(), (std::vector<std::string>{"prob", "add"}));
  EXPECT_EQ(interp.stats().opSeconds.size(), interp.stats().numOps);
  // Dumping keeps everything: the peak covers every tensor.
  EXPECT_GE(interp.stats().peakLiveBytes, interp.stats().totalTensorBytes);

  // The dump is a TPU-MLIR style npz: one float32 array per tensor, named after its op, in order.
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("top_outputs", "npz", path));
  interp.tensors().write(path.str().str());
  NpzFile back = NpzFile::read(path.str().str());
  llvm::sys::fs::remove(path);
  EXPECT_EQ(back.names(), kCnnTensors);
  EXPECT_EQ(back.get("conv1").dtype(), DType::F32);
  EXPECT_EQ(back.get("conv1").shape(), (std::vector<int64_t>{1, 8, 16, 16}));
}

TEST_F(InterpreterTest, FreesDeadTensorsWhenNotDumping) {
  auto module = smallCnn();
  ASSERT_TRUE(module);
  NpzFile data = NpzFile::read(kCasesDir + "/small_cnn.npz");
  Interpreter interp(*module);
  ASSERT_EQ(errorText(interp.setInputs(data)), "");
  ASSERT_EQ(errorText(interp.run()), "");
  const RunStats &stats = interp.stats();
  // The input buffer, images and conv1 (3 + 3 + 8 planes of 16x16) are the most alive at once;
  // everything together is far more.
  int64_t all = 4 * (2 * 3 * 256 + 8 * 256 + 5 * 8 * 64 + 8 + 8 + 10 + 10);
  EXPECT_EQ(stats.totalTensorBytes, all);
  EXPECT_LT(stats.peakLiveBytes, stats.totalTensorBytes);
  EXPECT_EQ(stats.peakLiveBytes, 4 * (2 * 3 * 256 + 8 * 256));
  EXPECT_GT(stats.weightBytes, 0);
  // Without dumping, the tensors are the outputs, and they match.
  EXPECT_EQ(interp.tensors().names(), (std::vector<std::string>{"prob", "add"}));
  EXPECT_TRUE(test::allClose(interp.outputs().get("prob"), data.get("expect:prob"), 1e-5, 1e-4));
  // A second run reuses inputs, loaded weights and recycled buffers and gives the same result; so does
  // a run after all of that memory is dropped.
  Tensor first = interp.outputs().get("prob");
  ASSERT_EQ(errorText(interp.run()), "");
  EXPECT_EQ(interp.outputs().get("prob"), first);
  interp.releaseMemory();
  ASSERT_EQ(errorText(interp.run()), "");
  EXPECT_EQ(interp.outputs().get("prob"), first);
}

TEST_F(InterpreterTest, InputsByIndexNameAliasAndAnyDtype) {
  auto module = smallCnn();
  ASSERT_TRUE(module);
  NpzFile data = NpzFile::read(kCasesDir + "/small_cnn.npz");
  const Tensor &images = data.get("images");
  std::vector<double> asDouble = images.toDoubles();
  Tensor f64 = Tensor::fromValues<double>(images.shape(), asDouble);
  Interpreter interp(*module);
  EXPECT_EQ(interp.inputShape(0), (std::vector<int64_t>{1, 3, 16, 16}));
  for (int how = 0; how < 3; ++how) {
    llvm::Error err = how == 0   ? interp.setInput(0, f64)
                      : how == 1 ? interp.setInput("input_0", images)
                                 : interp.setInput("images", f64);
    ASSERT_EQ(errorText(std::move(err)), "");
    ASSERT_EQ(errorText(interp.run()), "");
    EXPECT_TRUE(test::allClose(interp.outputs().get("prob"), data.get("expect:prob"), 1e-5, 1e-4));
  }
}

TEST_F(InterpreterTest, ClearErrors) {
  auto module = smallCnn();
  ASSERT_TRUE(module);
  Interpreter interp(*module);
  EXPECT_EQ(errorText(interp.run()), "missing input 'images' (argument 0)");
  EXPECT_EQ(errorText(interp.setInput("images", Tensor(DType::F32, {1, 3, 8, 8}))),
            "input 'images' has shape (1, 3, 8, 8) but the function expects (1, 3, 16, 16)");
  EXPECT_EQ(errorText(interp.setInput("pixels", Tensor(DType::F32, {1}))),
            "the function has no input 'pixels' (inputs: images)");
  EXPECT_EQ(errorText(interp.setInput(3, Tensor(DType::F32, {1}))),
            "input index 3 is out of range: the function has 1 inputs");
  NpzFile empty;
  EXPECT_EQ(errorText(interp.setInputs(empty)), "missing input 'images' (argument 0) in the input file");

  Interpreter wrongName(*module, "forward");
  EXPECT_EQ(errorText(wrongName.run()), "the module has no function 'forward'");
}

TEST_F(InterpreterTest, MissingWeightNamesTheWeight) {
  auto module = smallCnn();
  ASSERT_TRUE(module);
  top::clearWeightCache();
  (*module)->setAttr(top::TopDialect::kWeightFileAttr,
                     mlir::StringAttr::get(context.get(), kCasesDir + "/conv_basic.npz"));
  Interpreter interp(*module);
  ASSERT_EQ(errorText(interp.setInput(0, Tensor(DType::F32, {1, 3, 16, 16}))), "");
  std::string message = errorText(interp.run());
  EXPECT_EQ(message.rfind("'conv1_w' (top.weight at loc(", 0), 0u) << message;
  EXPECT_NE(message.find("weight 'conv1_w' is not in the weight file"), std::string::npos) << message;
}

TEST_F(InterpreterTest, OpWithoutKernelIsNamed) {
  context->allowUnregisteredDialects();
  auto module = parse(R"mlir(
    func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
      %0 = top.input %arg0 : tensor<2xf32> -> tensor<2xf32> loc("x")
      %1 = "mystery.op"(%0) : (tensor<2xf32>) -> tensor<2xf32> loc("strange")
      return %1 : tensor<2xf32>
    })mlir");
  ASSERT_TRUE(module);
  Interpreter interp(*module);
  ASSERT_EQ(errorText(interp.setInput("x", Tensor(DType::F32, {2}))), "");
  EXPECT_EQ(errorText(interp.run()),
            "'strange' (mystery.op at loc(\"strange\")): no reference kernel for this op");
}

TEST_F(InterpreterTest, KernelErrorsNameTheOp) {
  auto module = parse(R"mlir(
    func.func @main(%arg0: tensor<4x2xf32>, %arg1: tensor<3xi64>) -> tensor<3x2xf32> {
      %0 = top.input %arg0 : tensor<4x2xf32> -> tensor<4x2xf32> loc("table")
      %1 = top.input %arg1 : tensor<3xi64> -> tensor<3xi64> loc("ids")
      %2 = top.gather %0, %1 {axis = 0 : i64} : (tensor<4x2xf32>, tensor<3xi64>) -> tensor<3x2xf32> loc("lookup")
      return %2 : tensor<3x2xf32>
    })mlir");
  ASSERT_TRUE(module);
  Interpreter interp(*module);
  ASSERT_EQ(errorText(interp.setInput("table", Tensor(DType::F32, {4, 2}))), "");
  ASSERT_EQ(errorText(interp.setInput("ids", Tensor::fromValues<int64_t>({3}, {0, -4, 4}))), "");
  std::string message = errorText(interp.run());
  EXPECT_NE(message.find("'lookup' (top.gather at loc(\"lookup\")):"), std::string::npos) << message;
  EXPECT_NE(message.find("index 4 is out of range for axis 0 of size 4"), std::string::npos) << message;
}

TEST_F(InterpreterTest, NamesFromLocationsOrGenerated) {
  auto module = parse(R"mlir(
    func.func @main(%arg0: tensor<1x6xf32>, %arg1: tensor<1x6xf32>) -> (tensor<1x2xf32>, tensor<1x2xi64>, tensor<1x6xf32>) {
      %0 = top.input %arg0 : tensor<1x6xf32> -> tensor<1x6xf32>
      %1 = top.input %arg1 : tensor<1x6xf32> -> tensor<1x6xf32> loc("b")
      %2 = top.add %0, %1 : (tensor<1x6xf32>, tensor<1x6xf32>) -> tensor<1x6xf32> loc("same")
      %3 = top.mul %2, %1 : (tensor<1x6xf32>, tensor<1x6xf32>) -> tensor<1x6xf32> loc("same")
      %4 = top.relu %3 : tensor<1x6xf32> -> tensor<1x6xf32>
      %5 = top.relu %4 : tensor<1x6xf32> -> tensor<1x6xf32> loc(fused["a", "b2"])
      %v, %i = top.topk %5 {axis = 1 : i64, k = 2 : i64} : (tensor<1x6xf32>) -> (tensor<1x2xf32>, tensor<1x2xi64>) loc(fused["top_values", "top_indices"])
      %6 = top.sigmoid %5 : tensor<1x6xf32> -> tensor<1x6xf32> loc(callsite("inner" at "outer"))
      return %v, %i, %6 : tensor<1x2xf32>, tensor<1x2xi64>, tensor<1x6xf32>
    })mlir");
  ASSERT_TRUE(module);
  Interpreter interp(*module);
  EXPECT_EQ(interp.inputNames(), (std::vector<std::string>{"input_0", "b"}));
  ASSERT_EQ(errorText(interp.setInput("input_0", Tensor::fromValues<float>({1, 6}, {1, 5, 3, 5, 0, 2}))), "");
  ASSERT_EQ(errorText(interp.setInput("b", Tensor::fromValues<float>({1, 6}, {1, 1, 1, 1, 1, 1}))), "");
  ASSERT_EQ(errorText(interp.run(RunOptions{.dumpAll = true})), "");
  EXPECT_EQ(interp.tensors().names(), (std::vector<std::string>{"input_0", "b", "same", "same_1", "relu_0",
                                                                "b2", "top_values", "top_indices", "inner"}));
  EXPECT_EQ(interp.outputNames(), (std::vector<std::string>{"top_values", "top_indices", "inner"}));
  std::vector<double> indices = interp.outputs().get("top_indices").toDoubles();
  EXPECT_EQ(indices, (std::vector<double>{1, 3})); // ties: lower index first
  EXPECT_EQ(locationName(mlir::NameLoc::get(mlir::StringAttr::get(context.get(), "n"))), "n");
  EXPECT_EQ(locationName(mlir::UnknownLoc::get(context.get())), "");
}

TEST_F(InterpreterTest, ProgressAndCancel) {
  auto module = smallCnn();
  ASSERT_TRUE(module);
  Interpreter interp(*module);
  ASSERT_EQ(errorText(interp.setInput(0, Tensor(DType::F32, {1, 3, 16, 16}))), "");
  std::vector<std::string> seen;
  size_t total = 0;
  RunOptions options;
  options.progress = [&](size_t done, size_t all, llvm::StringRef name) {
    EXPECT_EQ(done, seen.size() + 1);
    total = all;
    seen.push_back(name.str());
    return name != "pool1";
  };
  EXPECT_EQ(errorText(interp.run(options)), "cancelled");
  EXPECT_EQ(seen.back(), "pool1");
  EXPECT_GT(total, seen.size());
}

TEST_F(InterpreterTest, EveryTopOpHasAKernel) {
  int count = 0;
  for (mlir::RegisteredOperationName name : context->getRegisteredOperations()) {
    if (name.getDialectNamespace() != "top")
      continue;
    ++count;
    // Control flow is the interpreter's own: it runs the regions of top.if / top.loop, and top.yield ends
    // them.
    if (llvm::is_contained({"top.if", "top.loop", "top.yield"}, name.getStringRef()))
      continue;
    EXPECT_TRUE(name.hasInterface<top::InferenceInterface>()) << name.getStringRef().str();
  }
  EXPECT_GE(count, 60);
}

TEST_F(InterpreterTest, PicksMainOrTheOnlyFunction) {
  const char *twoFunctions = R"mlir(
    func.func private @helper(%arg0: tensor<2xf32>) -> tensor<2xf32> {
      %0 = top.relu %arg0 : tensor<2xf32> -> tensor<2xf32> loc("helper_relu")
      return %0 : tensor<2xf32>
    }
    func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
      %0 = top.input %arg0 : tensor<2xf32> -> tensor<2xf32> loc("x")
      %1 = top.abs %0 : tensor<2xf32> -> tensor<2xf32> loc("y")
      return %1 : tensor<2xf32>
    })mlir";
  auto module = parse(twoFunctions);
  ASSERT_TRUE(module);
  Tensor x = Tensor::fromValues<float>({2}, {-1.5f, 2.0f});
  Interpreter byDefault(*module);
  ASSERT_EQ(errorText(byDefault.setInput(0, x)), "");
  ASSERT_EQ(errorText(byDefault.run()), "");
  EXPECT_EQ(byDefault.outputs().get("y").toDoubles(), (std::vector<double>{1.5, 2.0}));
  Interpreter helper(*module, "helper");
  ASSERT_EQ(errorText(helper.setInput(0, x)), "");
  ASSERT_EQ(errorText(helper.run()), "");
  EXPECT_EQ(helper.outputs().get("helper_relu").toDoubles(), (std::vector<double>{0.0, 2.0}));
}

} // namespace
