// runBackend (what `tpuc deploy` calls) on hand-written Tpu IR: groups, addresses, plan JSON and a .tpum
// whose weights are the weight file's bytes and whose streams simulate without errors; a model larger
// than the chip's DDR fails with one clear message.
#include "tpuc/Codegen/ModelCodegen.h"
#include "tpuc/Dialect/Top/ModuleState.h"
#include "tpuc/Dialect/Top/TopDialect.h"
#include "tpuc/Dialect/Tpu/TpuDialect.h"
#include "tpuc/Simulator/CmdExec.h"
#include "tpuc/Simulator/CmdSim.h"
#include "tpuc/Support/Npz.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

std::string tempDir(const std::string &name) {
  auto dir = std::filesystem::temp_directory_path() / ("tpuc-runbackend-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

struct Fixture {
  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  tpuc::NpzFile weights;
};

Fixture load(const std::string &dir) {
  Fixture f;
  std::vector<float> w1(16 * 16 * 9), w2(16 * 16 * 9), w3(10 * 1024);
  for (size_t i = 0; i < w1.size(); ++i)
    w1[i] = 0.001f * static_cast<float>(i), w2[i] = -0.002f * static_cast<float>(i);
  for (size_t i = 0; i < w3.size(); ++i)
    w3[i] = 0.5f - 0.0001f * static_cast<float>(i);
  f.weights.set("w1", tpuc::Tensor::fromValues<float>({16, 16, 3, 3}, w1));
  f.weights.set("w2", tpuc::Tensor::fromValues<float>({16, 16, 3, 3}, w2));
  f.weights.set("w3", tpuc::Tensor::fromValues<float>({10, 1024}, w3));
  f.weights.write(dir + "/w.npz");
  std::ifstream in(TPUC_BACKEND_LIT_INPUTS "/small.mlir");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  text.replace(text.find("WEIGHTS"), 7, dir + "/w.npz");
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, mlir::quant::QuantDialect, tpuc::top::TopDialect,
                  tpuc::tpu::TpuDialect>();
  f.context = std::make_unique<mlir::MLIRContext>(registry);
  f.context->loadAllAvailableDialects();
  f.module = mlir::parseSourceString<mlir::ModuleOp>(text, f.context.get());
  return f;
}

TEST(RunBackend, GroupsAddressesPlanAndModel) {
  std::string dir = tempDir("ok");
  Fixture f = load(dir);
  ASSERT_TRUE(f.module);
  tpuc::BackendOptions o;
  o.planJsonPath = dir + "/plan.json";
  o.modelPath = dir + "/m.tpum";
  o.netName = "small";
  llvm::Error err = tpuc::runBackend(*f.module, o);
  ASSERT_FALSE(err) << llvm::toString(std::move(err));
  EXPECT_EQ(tpuc::top::getModuleState(*f.module), tpuc::top::ModuleState::TPU_ADDRESSED);
  EXPECT_TRUE(std::filesystem::file_size(o.planJsonPath) > 0);
  tpuc::codegen::Model m = tpuc::codegen::readModelFile(o.modelPath);
  EXPECT_TRUE(tpuc::codegen::validateModel(m).empty());
  ASSERT_EQ(m.nets.size(), 1u);
  EXPECT_EQ(m.nets[0].name, "small");
  const tpuc::codegen::Stage &s = m.nets[0].stages[0];
  // Every weight's bytes are the weight file's, placed at the address the IR got.
  ASSERT_EQ(s.weights.size(), 3u);
  for (const char *name : {"w1", "w2", "w3"}) {
    const tpuc::Tensor &t = f.weights.get(name);
    bool found = false;
    for (const auto &w : s.weights) {
      const auto &b = m.blobs[w.blob];
      if (b.name != name)
        continue;
      found = true;
      ASSERT_EQ(b.size, t.byteSize());
      EXPECT_EQ(std::memcmp(m.coeffData.data() + b.offset, t.data(), b.size), 0) << name;
    }
    EXPECT_TRUE(found) << name;
  }
  EXPECT_EQ(s.inputs[0].name, "x");
  EXPECT_EQ(s.outputs[0].name, "fc");
  tpuc::cmdsim::SimResult r = tpuc::cmdsim::simulateStage(tpuc::backend::findChipProfile(m.chip), s);
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  EXPECT_GT(r.totalCycles, 0);
}

TEST(RunBackend, ModelLargerThanDdrFails) {
  std::string dir = tempDir("ddr");
  Fixture f = load(dir);
  ASSERT_TRUE(f.module);
  setenv("TPUC_CHIP_DIR", TPUC_BACKEND_LIT_INPUTS, 1);
  tpuc::BackendOptions o;
  o.chip = "tinyddr";
  llvm::Error err = tpuc::runBackend(*f.module, o);
  unsetenv("TPUC_CHIP_DIR");
  ASSERT_TRUE(static_cast<bool>(err));
  std::string msg = llvm::toString(std::move(err));
  EXPECT_NE(msg.find("chip tinyddr: model needs"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

// The functional runner loads weights once and keeps what it decoded from them: a second run of the same
// runner gives the same outputs; a command that writes into the coefficient region is rejected by name.
TEST(RunBackend, StageRunnerRerunsAndRejectsWritesIntoWeights) {
  std::string dir = tempDir("rerun");
  Fixture f = load(dir);
  ASSERT_TRUE(f.module);
  tpuc::BackendOptions o;
  o.modelPath = dir + "/m.tpum";
  o.netName = "small";
  llvm::Error err = tpuc::runBackend(*f.module, o);
  ASSERT_FALSE(err) << llvm::toString(std::move(err));
  tpuc::codegen::Model m = tpuc::codegen::readModelFile(o.modelPath);
  const tpuc::backend::ChipProfile &chip = tpuc::backend::findChipProfile(m.chip);
  const tpuc::codegen::TensorDesc &x = m.nets[0].stages[0].inputs[0];
  std::vector<float> values(static_cast<size_t>(tpuc::Tensor(tpuc::DType::F32, x.shape).numElements()));
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = std::sin(0.01f * static_cast<float>(i));
  tpuc::Tensor input = tpuc::Tensor::fromValues<float>(x.shape, values);
  auto runOnce = [&](tpuc::cmdsim::StageRunner &runner) -> std::string {
    if (llvm::Error e = runner.setInput(x.name, input))
      return llvm::toString(std::move(e));
    if (llvm::Error e = runner.run())
      return llvm::toString(std::move(e));
    return "";
  };
  tpuc::cmdsim::StageRunner runner(chip, m, 0, 0);
  ASSERT_EQ(runOnce(runner), "");
  tpuc::NpzFile first = runner.outputs();
  ASSERT_EQ(runOnce(runner), "");
  ASSERT_EQ(first.names(), runner.outputs().names());
  for (const std::string &name : first.names()) {
    const tpuc::Tensor &a = first.get(name), &b = runner.outputs().get(name);
    ASSERT_EQ(a.byteSize(), b.byteSize());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.byteSize()), 0) << name;
  }

  // Point a store into DDR (a global op's output or a GDMA store) at address 0, inside the weights.
  tpuc::codegen::Stage &s = m.nets[0].stages[0];
  ASSERT_GT(s.coeffBytes, 0u);
  tpuc::codegen::TensorRef *out = nullptr;
  for (auto &c : s.tiu())
    if (c.numOutputs && c.operands[0].space == tpuc::codegen::MemSpace::DDR)
      out = &c.operands[0];
  for (auto &c : s.gdma())
    if (!out && c.operands.size() == 2 && c.operands[1].space == tpuc::codegen::MemSpace::DDR)
      out = &c.operands[1];
  ASSERT_NE(out, nullptr);
  out->address = 0;
  tpuc::cmdsim::StageRunner broken(chip, m, 0, 0);
  std::string msg = runOnce(broken);
  EXPECT_NE(msg.find("writes into the coefficient region"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

} // namespace
