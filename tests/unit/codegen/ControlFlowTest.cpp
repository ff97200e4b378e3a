// Control flow in a model file (version 5 blocks) on the functional command-level simulator: an If takes
// the branch its DDR condition names, a loop runs its body while a DDR counter is nonzero and the timing
// of the path taken adds up per block, control flow that never ends stops with one line.
#include "StreamTestUtil.h"
#include "tpuc/Backend/Graph.h"
#include "tpuc/Simulator/CmdExec.h"
#include "tpuc/Simulator/CmdSim.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

using namespace tpuc::codegen;
using tpuc::backend::ChipProfile;
using tpuc::backend::DType;
using tpuc::codegen::testing::syncCommand;
namespace cmdsim = tpuc::cmdsim;

namespace {

ChipProfile chip() { return tpuc::backend::findChipProfile("bm1684x", {TPUC_CHIP_TEST_DIR}); }

/// `x + value` on one f32 element: the program of a global add_const.
OpInfo addConst(const std::string &operand, const std::string &result, double value) {
  OpInfo op;
  op.name = result;
  op.type = "tpu.add_const";
  op.program = "func.func @op(%arg0: tensor<1xf32>, %arg1: none) -> tensor<1xf32> {\n"
               "  %0 = tpu.add_const %arg0, %arg1 {precision = #top.precision<F32>, const_val = " +
               std::to_string(value) +
               " : f64} : (tensor<1xf32>, none) -> tensor<1xf32>\n"
               "  return %0 : tensor<1xf32>\n"
               "}\n";
  op.operandMap = {0, -1};
  op.operandNames = {operand, ""};
  op.resultNames = {result};
  return op;
}

/// One element of `dtype` at DDR `address`.
TensorRef ddr(uint64_t address, DType dtype) {
  TensorRef t;
  t.space = MemSpace::DDR;
  t.dtype = static_cast<uint8_t>(dtype);
  t.address = address;
  t.shape = {1, 1, 1, 1};
  int64_t bytes = tpuc::backend::dtypeBytes(dtype);
  t.stride = {bytes, bytes, bytes, bytes};
  return t;
}

/// A global TIU command of op `op` writing DDR `out` from DDR `in` (f32 elements).
Command global(uint32_t id, uint32_t op, uint64_t out, uint64_t in, int64_t cycles) {
  Command c;
  c.engine = Engine::TIU;
  c.kind = CmdKind::Global;
  c.id = id;
  c.op = op;
  c.cycles = cycles;
  c.operands = {ddr(out, DType::F32), ddr(in, DType::F32)};
  c.numOutputs = 1;
  c.numInputs = 1;
  return c;
}

TensorDesc io(const std::string &name, DType dtype, uint64_t address) {
  TensorDesc t;
  t.name = name;
  t.dtype = static_cast<uint8_t>(dtype);
  t.shape = {1};
  t.address = address;
  t.bytes = static_cast<uint64_t>(tpuc::backend::dtypeBytes(dtype));
  return t;
}

Block block(Block::Range range, Terminator::Kind kind = Terminator::Kind::Next, uint32_t target = 0,
            uint32_t elseTarget = 0, TensorRef cond = {}) {
  Block b;
  b.cores = {range};
  b.terminator.kind = kind;
  b.terminator.target = target;
  b.terminator.elseTarget = elseTarget;
  b.terminator.cond = cond;
  return b;
}

Model modelOf(Stage s) {
  Model m;
  m.chip = "bm1684x";
  m.nets.push_back({"net", {std::move(s)}});
  return m;
}

/// DDR: x (f32) at 0, the condition at 16, y (f32) at 32, all in the 64-byte activation region.
Stage ioStage(DType condType, const std::string &condName) {
  Stage s;
  s.name = "main";
  s.activationBytes = 64;
  s.inputs = {io("x", DType::F32, 0), io(condName, condType, 16)};
  s.outputs = {io("y", DType::F32, 32)};
  return s;
}

float value(const tpuc::Tensor &t) {
  float v;
  std::memcpy(&v, t.data(), sizeof(v));
  return v;
}

tpuc::Tensor scalar(float v) { return tpuc::Tensor::fromValues<float>({1}, {v}); }

/// Fails the test with the error's message.
void expectOk(llvm::Error err) {
  if (err)
    ADD_FAILURE() << llvm::toString(std::move(err));
}

TEST(ControlFlow, IfRunsTheBranchItsConditionNames) {
  // Block 0 branches on an INT8 flag: then-block 1 (y = x + 1) jumps past else-block 2 (y = x - 1).
  Stage s = ioStage(DType::INT8, "flag");
  s.ops = {addConst("x", "y_then", 1.0), addConst("x", "y_else", -1.0)};
  s.tiu() = {syncCommand(Engine::TIU, 1), global(2, 0, 32, 0, 100), syncCommand(Engine::TIU, 3),
             global(4, 1, 32, 0, 60), syncCommand(Engine::TIU, 5)};
  s.gdma() = {syncCommand(Engine::GDMA, 1), syncCommand(Engine::GDMA, 2), syncCommand(Engine::GDMA, 3)};
  s.blocks = {block({0, 1, 0, 1}, Terminator::Kind::Branch, 1, 2, ddr(16, DType::INT8)),
              block({1, 3, 1, 2}, Terminator::Kind::Jump, 3), block({3, 5, 2, 3})};
  Model m = modelOf(s);
  ASSERT_TRUE(validateModel(m).empty()) << validateModel(m).front();
  ChipProfile ch = chip();
  cmdsim::StageRunner runner(ch, m, 0, 0);
  for (float flag : {1.0f, 0.0f, -3.0f}) {
    expectOk(runner.setInput("x", scalar(2.5f)));
    expectOk(runner.setInput("flag", scalar(flag)));
    llvm::Error err = runner.run({.dumpAll = true});
    ASSERT_FALSE(static_cast<bool>(err)) << llvm::toString(std::move(err));
    const bool taken = flag != 0;
    const cmdsim::ExecStats &st = runner.stats();
    EXPECT_EQ(value(runner.outputs().get("y")), taken ? 3.5f : 1.5f) << flag;
    std::vector<uint32_t> path = {0, taken ? 1u : 2u};
    EXPECT_EQ(st.timing.path, path);
    EXPECT_EQ(st.timing.totalCycles, cmdsim::simulateStage(ch, s, path).totalCycles);
    EXPECT_EQ(st.timing.totalCycles, 5 + (taken ? 100 : 60) + 5);
    EXPECT_EQ(st.tiuCommands, 1u);
    // Only the branch that ran is dumped, and completely.
    EXPECT_EQ(runner.tensors().has("y_then"), taken);
    EXPECT_EQ(runner.tensors().has("y_else"), !taken);
    EXPECT_TRUE(st.partial.empty());
  }
  // Without data the then-branch is timed.
  EXPECT_EQ(cmdsim::simulateStage(ch, s).path, (std::vector<uint32_t>{0, 1}));
}

TEST(ControlFlow, LoopRunsItsBodyWhileItsCounterIsNonzero) {
  // Block 0: y = x. Header block 1 branches on the f32 counter n: body block 2 (y += 2, n -= 1), which
  // jumps back to the header, or the end of the stage.
  Stage s = ioStage(DType::F32, "n");
  s.ops = {addConst("x", "y_init", 0.0), addConst("y_init", "y_acc", 2.0), addConst("n", "n_next", -1.0)};
  s.tiu() = {global(1, 0, 32, 0, 30),   syncCommand(Engine::TIU, 2), syncCommand(Engine::TIU, 3),
             global(4, 1, 32, 32, 100), global(5, 2, 16, 16, 50),    syncCommand(Engine::TIU, 6)};
  s.gdma() = {syncCommand(Engine::GDMA, 1), syncCommand(Engine::GDMA, 2), syncCommand(Engine::GDMA, 3)};
  s.blocks = {block({0, 2, 0, 1}), block({2, 3, 1, 2}, Terminator::Kind::Branch, 2, 3, ddr(16, DType::F32)),
              block({3, 6, 2, 3}, Terminator::Kind::Jump, 1)};
  Model m = modelOf(s);
  ASSERT_TRUE(validateModel(m).empty()) << validateModel(m).front();
  ChipProfile ch = chip();
  const int64_t init = cmdsim::simulateStage(ch, s, {0}).totalCycles,
                header = cmdsim::simulateStage(ch, s, {1}).totalCycles,
                body = cmdsim::simulateStage(ch, s, {2}).totalCycles;
  EXPECT_EQ(init, 30 + 5);
  EXPECT_EQ(header, 5);
  EXPECT_EQ(body, 100 + 50 + 5);
  cmdsim::StageRunner runner(ch, m, 0, 0);
  for (int n : {3, 0, 1}) {
    expectOk(runner.setInput("x", scalar(0.25f)));
    expectOk(runner.setInput("n", scalar(static_cast<float>(n))));
    llvm::Error err = runner.run({.dumpAll = true});
    ASSERT_FALSE(static_cast<bool>(err)) << llvm::toString(std::move(err));
    const cmdsim::ExecStats &st = runner.stats();
    EXPECT_EQ(value(runner.outputs().get("y")), 0.25f + 2.0f * static_cast<float>(n)) << n;
    std::vector<uint32_t> path = {0, 1};
    for (int i = 0; i < n; ++i)
      path.insert(path.end(), {2, 1});
    EXPECT_EQ(st.timing.path, path);
    // The body's cycles once per run of it, within the schedule of the path taken.
    EXPECT_EQ(st.timing.totalCycles, init + (n + 1) * header + n * body) << n;
    EXPECT_EQ(st.opCycles[1], 100 * n);
    EXPECT_EQ(st.tiuCommands, 1u + 2u * static_cast<size_t>(n));
    // A body run several times is dumped as its last run left it; one never run is not dumped.
    EXPECT_EQ(runner.tensors().has("y_acc"), n > 0);
    if (n > 0) {
      EXPECT_EQ(value(runner.tensors().get("y_acc")), 0.25f + 2.0f * static_cast<float>(n));
      EXPECT_EQ(value(runner.tensors().get("n_next")), 0.0f);
    }
  }
  // Without data the body runs once.
  EXPECT_EQ(cmdsim::simulateStage(ch, s).path, (std::vector<uint32_t>{0, 1, 2, 1}));
}

TEST(ControlFlow, ControlFlowThatNeverEndsStopsWithOneLine) {
  Stage s;
  s.name = "main";
  s.ops = {OpInfo{}};
  s.tiu() = {syncCommand(Engine::TIU, 1)};
  s.gdma() = {syncCommand(Engine::GDMA, 1)};
  s.blocks = {block({0, 1, 0, 1}, Terminator::Kind::Jump, 0)};
  Model m = modelOf(s);
  cmdsim::StageRunner runner(chip(), m, 0, 0);
  llvm::Error err = runner.run();
  ASSERT_TRUE(static_cast<bool>(err));
  EXPECT_EQ(llvm::toString(std::move(err)), "control flow did not end after 1000000 blocks");
}

} // namespace
