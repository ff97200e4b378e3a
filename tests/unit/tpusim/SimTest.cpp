//===- SimTest.cpp - The Tpu simulator on tiny graphs with known answers --===//
// Accumulated vs isolated mode, dequantized dumps, f16 rounding of each op's result, naming, errors.
//===----------------------------------------------------------------------===//
#include "tpuc/Simulator/TpuSim.h"

#include "tpuc/Dialect/Top/TopDialect.h"
#include "tpuc/Dialect/Tpu/TpuDialect.h"
#include "tpuc/Quant/Arith.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace tpuc;
using namespace tpuc::sim;

namespace {

class TpuSimTest : public ::testing::Test {
protected:
  TpuSimTest() {
    context.loadDialect<mlir::func::FuncDialect, mlir::quant::QuantDialect, top::TopDialect, tpu::TpuDialect>();
  }
  mlir::OwningOpRef<mlir::ModuleOp> parse(const std::string &text) {
    auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
    EXPECT_TRUE(module) << text;
    return module;
  }
  static Tensor row(std::vector<float> values) {
    return Tensor::fromValues<float>({1, static_cast<int64_t>(values.size())}, values);
  }
  static std::vector<float> floats(const Tensor &t) {
    auto v = t.values<float>();
    return std::vector<float>(v.begin(), v.end());
  }
  mlir::MLIRContext context;
};

// x -> cast to INT8 (scale 0.1) "x_i8" -> INT8 relu "r" -> cast back to f32 "r_f32".
const char *kInt8Chain = R"mlir(
!q = !quant.uniform<i8:f32, 0.1>
func.func @main(%arg0: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %0 = "top.input"(%arg0) : (tensor<1x4xf32>) -> tensor<1x4xf32> loc("x")
  %1 = tpu.cast %0 {precision = #top.precision<INT8>} : (tensor<1x4xf32>) -> tensor<1x4x!q> loc("x_i8")
  %2 = tpu.relu %1 {precision = #top.precision<INT8>} : (tensor<1x4x!q>) -> tensor<1x4x!q> loc("r")
  %3 = tpu.cast %2 {precision = #top.precision<F32>} : (tensor<1x4x!q>) -> tensor<1x4xf32> loc("r_f32")
  return %3 : tensor<1x4xf32>
}
)mlir";

TEST_F(TpuSimTest, AccumulatedInt8ChainDumpsDequantizedTensors) {
  auto module = parse(kInt8Chain);
  ASSERT_TRUE(module);
  TpuSimulator sim(*module);
  ASSERT_FALSE(sim.setInput("x", row({-0.26f, 0.04f, 0.15f, 1.0f})));
  ASSERT_FALSE(sim.run({.dumpAll = true}));
  const NpzFile &t = sim.tensors();
  EXPECT_EQ(t.names(), (std::vector<std::string>{"x", "x_i8", "r", "r_f32"}));
  // quantize: -2.6 -> -3, 0.4 -> 0, 1.5 -> 2 (half away from zero), 10; relu clamps at zp 0.
  std::vector<float> xq = floats(t.get("x_i8")), r = floats(t.get("r"));
  std::vector<float> expectX = {-0.3f, 0.0f, 0.2f, 1.0f}, expectR = {0.0f, 0.0f, 0.2f, 1.0f};
  for (int i = 0; i < 4; ++i) {
    EXPECT_FLOAT_EQ(xq[i], expectX[i]) << i;
    EXPECT_FLOAT_EQ(r[i], expectR[i]) << i;
  }
  EXPECT_EQ(sim.outputNames(), std::vector<std::string>{"r_f32"});
  EXPECT_EQ(floats(sim.outputs().get("r_f32")), floats(t.get("r")));
}

TEST_F(TpuSimTest, IsolatedModeFeedsEachOpTheReference) {
  auto module = parse(kInt8Chain);
  ASSERT_TRUE(module);
  TpuSimulator sim(*module);
  ASSERT_FALSE(sim.setInput("x", row({-0.26f, 0.04f, 0.15f, 1.0f})));
  // The float reference disagrees with the INT8 chain on "r": the cast "r_f32" must start from it.
  NpzFile reference;
  reference.set("x", row({-0.26f, 0.04f, 0.15f, 1.0f}));
  reference.set("r", row({0.5f, -1.0f, 0.26f, 3.0f}));
  ASSERT_FALSE(sim.run({.dumpAll = true, .reference = &reference}));
  std::vector<float> r = floats(sim.tensors().get("r")), out = floats(sim.tensors().get("r_f32"));
  std::vector<float> expectR = {0.0f, 0.0f, 0.2f, 1.0f};       // relu fed quantize(reference x) via "x_i8"
  std::vector<float> expectOut = {0.5f, -1.0f, 0.3f, 3.0f};    // quantize(reference r), dequantized
  for (int i = 0; i < 4; ++i) {
    EXPECT_FLOAT_EQ(r[i], expectR[i]) << i;
    EXPECT_FLOAT_EQ(out[i], expectOut[i]) << i;
  }
  // The accumulated run of the same simulator is unaffected by the earlier isolated one.
  ASSERT_FALSE(sim.run({.dumpAll = true}));
  EXPECT_FLOAT_EQ(floats(sim.tensors().get("r_f32"))[0], 0.0f);
}

// F16 chain: every op's result is rounded to f16.
const char *kF16Chain = R"mlir(
func.func @main(%arg0: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %0 = "top.input"(%arg0) : (tensor<1x3xf32>) -> tensor<1x3xf32> loc("x")
  %n = "top.none"() : () -> none loc("none")
  %1 = tpu.cast %0 {precision = #top.precision<F16>} : (tensor<1x3xf32>) -> tensor<1x3xf16> loc("x_f16")
  %2 = tpu.add_const %1, %n {precision = #top.precision<F16>, const_val = 1.0 : f64}
      : (tensor<1x3xf16>, none) -> tensor<1x3xf16> loc("a")
  %3 = tpu.mul_const %2, %n {precision = #top.precision<F16>, const_val = 3.0 : f64}
      : (tensor<1x3xf16>, none) -> tensor<1x3xf16> loc("m")
  %4 = tpu.cast %3 {precision = #top.precision<F32>} : (tensor<1x3xf16>) -> tensor<1x3xf32> loc("m_f32")
  return %4 : tensor<1x3xf32>
}
)mlir";

TEST_F(TpuSimTest, F16RoundsEveryResultAndIsolatesFromReference) {
  auto module = parse(kF16Chain);
  ASSERT_TRUE(module);
  TpuSimulator sim(*module);
  std::vector<float> x = {0.1f, 1000.3f, -2.0f / 3.0f};
  ASSERT_FALSE(sim.setInput(0, row(x)));
  ASSERT_FALSE(sim.run({.dumpAll = true}));
  std::vector<float> m = floats(sim.tensors().get("m"));
  for (int i = 0; i < 3; ++i) {
    float a = quant::roundToF16(quant::roundToF16(x[i]) + 1.0f);
    EXPECT_EQ(m[i], quant::roundToF16(3.0f * a)) << i;
  }
  NpzFile reference;
  reference.set("a", row({10.0f, 0.1f, 2049.0f}));
  ASSERT_FALSE(sim.run({.dumpAll = true, .reference = &reference}));
  m = floats(sim.tensors().get("m"));
  EXPECT_EQ(m[0], 30.0f);
  EXPECT_EQ(m[1], quant::roundToF16(3.0f * quant::roundToF16(0.1f)));
  EXPECT_EQ(m[2], 6144.0f); // 2049 rounds to 2048 in f16 (tie to even), times 3
}

// INT8 deconv 2x2 stride 2 (each input code spreads over its own 2x2 block), int32 bias, identity requant.
const char *kInt8Deconv = R"mlir(
!qi = !quant.uniform<i8:f32, 0.5:3>
!qo = !quant.uniform<i8:f32, 0.5:-4>
func.func @main(%arg0: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %0 = "top.input"(%arg0) : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32> loc("x")
  %w = top.weight "w" {value = dense<[[[[1, 2], [3, -4]]]]> : tensor<1x1x2x2xi8>} : tensor<1x1x2x2xi8> loc("w")
  %b = top.weight "b" {value = dense<[10]> : tensor<1xi32>} : tensor<1xi32> loc("b")
  %1 = tpu.cast %0 {precision = #top.precision<INT8>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2x!qi> loc("x_i8")
  %2 = tpu.deconv2d %1, %w, %b {precision = #top.precision<INT8>, kernel_shape = array<i64: 2, 2>,
                                strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>,
                                dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>,
                                multiplier = array<i64: 1>, rshift = array<i64: 0>, do_relu = true}
      : (tensor<1x1x2x2x!qi>, tensor<1x1x2x2xi8>, tensor<1xi32>) -> tensor<1x1x4x4x!qo> loc("d")
  %3 = tpu.cast %2 {precision = #top.precision<F32>} : (tensor<1x1x4x4x!qo>) -> tensor<1x1x4x4xf32> loc("d_f32")
  return %3 : tensor<1x1x4x4xf32>
}
)mlir";

TEST_F(TpuSimTest, Int8DeconvSpreadsShiftedCodes) {
  auto module = parse(kInt8Deconv);
  ASSERT_TRUE(module);
  TpuSimulator sim(*module);
  // Codes 5, 1, 3, 30 (x / 0.5 + 3); shifted 2, -2, 0, 27.
  ASSERT_FALSE(sim.setInput(0, Tensor::fromValues<float>({1, 1, 2, 2}, std::vector<float>{1.0f, -1.0f, 0.0f, 13.5f})));
  ASSERT_FALSE(sim.run({.dumpAll = true}));
  std::vector<float> y = floats(sim.tensors().get("d"));
  const int w[2][2] = {{1, 2}, {3, -4}}, shifted[2][2] = {{2, -2}, {0, 27}};
  for (int oy = 0; oy < 4; ++oy)
    for (int ox = 0; ox < 4; ++ox) {
      int64_t acc = int64_t{shifted[oy / 2][ox / 2]} * w[oy % 2][ox % 2] + 10;
      int64_t code = std::clamp<int64_t>(std::max<int64_t>(acc - 4, -4), -128, 127); // + zp_out, relu at zp
      EXPECT_FLOAT_EQ(y[oy * 4 + ox], (code + 4) * 0.5f) << oy << "," << ox;
    }
}

TEST_F(TpuSimTest, Int8ActiveLooksUpItsTable) {
  // table[i] = (i - 128) / 3 (truncated) - 1: y = table[q + 128] whatever active_mode says.
  std::string table;
  for (int i = 0; i < 256; ++i)
    table += (i ? ", " : "") + std::to_string((i - 128) / 3 - 1);
  std::string text = R"mlir(
!q = !quant.uniform<i8:f32, 0.25>
!o = !quant.uniform<i8:f32, 0.5:2>
func.func @main(%arg0: tensor<1x5xf32>) -> tensor<1x5xf32> {
  %0 = "top.input"(%arg0) : (tensor<1x5xf32>) -> tensor<1x5xf32> loc("x")
  %t = top.weight "t" {value = dense<[)mlir" + table + R"mlir(]> : tensor<256xi8>} : tensor<256xi8> loc("t")
  %1 = tpu.cast %0 {precision = #top.precision<INT8>} : (tensor<1x5xf32>) -> tensor<1x5x!q> loc("x_i8")
  %2 = tpu.active %1, %t {precision = #top.precision<INT8>, active_mode = #tpu.active_mode<sigmoid>}
      : (tensor<1x5x!q>, tensor<256xi8>) -> tensor<1x5x!o> loc("s")
  %3 = tpu.cast %2 {precision = #top.precision<F32>} : (tensor<1x5x!o>) -> tensor<1x5xf32> loc("s_f32")
  return %3 : tensor<1x5xf32>
}
)mlir";
  auto module = parse(text);
  ASSERT_TRUE(module);
  TpuSimulator sim(*module);
  std::vector<float> x = {-32.0f, -1.0f, 0.0f, 0.5f, 31.75f}; // codes -128, -4, 0, 2, 127
  ASSERT_FALSE(sim.setInput(0, row(x)));
  ASSERT_FALSE(sim.run({.dumpAll = true}));
  std::vector<float> y = floats(sim.tensors().get("s"));
  const int codes[] = {-128, -4, 0, 2, 127};
  for (int i = 0; i < 5; ++i) {
    int out = (codes[i] + 128 - 128) / 3 - 1;
    EXPECT_FLOAT_EQ(y[i], (out - 2) * 0.5f) << codes[i];
  }
}

TEST_F(TpuSimTest, Int32BiasBeyondFloatPrecisionStaysExact) {
  // acc = bias = -(3 * 2^23) - 1, which float32 cannot hold (it rounds to -(3 * 2^23)). With rshift 24:
  // exact (acc + 2^23) >> 24 = floor(-1.00000006) = -2; the float-rounded bias would give -1.
  const char *text = R"mlir(
!q = !quant.uniform<i8:f32, 1.0>
func.func @main(%arg0: tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32> {
  %0 = "top.input"(%arg0) : (tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32> loc("x")
  %w = top.weight "w" {value = dense<1> : tensor<1x1x1x1xi8>} : tensor<1x1x1x1xi8> loc("w")
  %b = top.weight "b" {value = dense<[-25165825]> : tensor<1xi32>} : tensor<1xi32> loc("b")
  %1 = tpu.cast %0 {precision = #top.precision<INT8>} : (tensor<1x1x1x1xf32>) -> tensor<1x1x1x1x!q> loc("x_i8")
  %2 = tpu.conv2d %1, %w, %b {precision = #top.precision<INT8>, kernel_shape = array<i64: 1, 1>,
                              strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>,
                              dilations = array<i64: 1, 1>, multiplier = array<i64: 1>, rshift = array<i64: 24>}
      : (tensor<1x1x1x1x!q>, tensor<1x1x1x1xi8>, tensor<1xi32>) -> tensor<1x1x1x1x!q> loc("c")
  %3 = tpu.cast %2 {precision = #top.precision<F32>} : (tensor<1x1x1x1x!q>) -> tensor<1x1x1x1xf32> loc("c_f32")
  return %3 : tensor<1x1x1x1xf32>
}
)mlir";
  auto module = parse(text);
  ASSERT_TRUE(module);
  TpuSimulator sim(*module);
  ASSERT_FALSE(sim.setInput(0, Tensor::fromValues<float>({1, 1, 1, 1}, std::vector<float>{0.0f})));
  ASSERT_FALSE(sim.run());
  EXPECT_EQ(floats(sim.outputs().get("c_f32"))[0], -2.0f);
}

TEST_F(TpuSimTest, ErrorsNameTheInputAndTheShape) {
  auto module = parse(kInt8Chain);
  ASSERT_TRUE(module);
  TpuSimulator sim(*module);
  auto err = sim.setInput("y", row({1, 2, 3, 4}));
  ASSERT_TRUE(bool(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("no input 'y'"), std::string::npos);
  err = sim.setInput(0, row({1, 2}));
  ASSERT_TRUE(bool(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("shape (1, 2)"), std::string::npos);
  err = sim.run();
  ASSERT_TRUE(bool(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("missing input 'x'"), std::string::npos);
}

} // namespace

namespace {

// The LLM ops the lowering emits last run through their Top reference kernels and round to f16.
const char *kF16RmsNorm = R"mlir(
func.func @main(%arg0: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %0 = "top.input"(%arg0) : (tensor<1x4xf32>) -> tensor<1x4xf32> loc("x")
  %n = "top.none"() : () -> none loc("none")
  %1 = tpu.cast %0 {precision = #top.precision<F16>} : (tensor<1x4xf32>) -> tensor<1x4xf16> loc("x_f16")
  %2 = tpu.rmsnorm %1, %n {precision = #top.precision<F16>, eps = 1.0e-06 : f64}
      : (tensor<1x4xf16>, none) -> tensor<1x4xf16> loc("norm")
  %3 = tpu.cast %2 {precision = #top.precision<F32>} : (tensor<1x4xf16>) -> tensor<1x4xf32> loc("norm_f32")
  return %3 : tensor<1x4xf32>
}
)mlir";

TEST_F(TpuSimTest, F16RmsNormRunsTheReferenceKernelAndRounds) {
  auto module = parse(kF16RmsNorm);
  ASSERT_TRUE(module);
  TpuSimulator sim(*module);
  std::vector<float> x = {0.1f, 3.3f, -2.0f / 3.0f, 7.25f};
  ASSERT_FALSE(sim.setInput(0, row(x)));
  ASSERT_FALSE(sim.run({.dumpAll = true}));
  std::vector<float> y = floats(sim.tensors().get("norm"));
  double sq = 0;
  for (float v : x)
    sq += double(quant::roundToF16(v)) * quant::roundToF16(v);
  double inv = 1.0 / std::sqrt(sq / 4 + 1e-6);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(y[i], quant::roundToF16(y[i])) << i; // an f16 value
    EXPECT_NEAR(y[i], quant::roundToF16(x[i]) * inv, 2e-3 * std::fabs(quant::roundToF16(x[i]) * inv)) << i;
  }
}

} // namespace

namespace {

// x [B=1, L=2, H=1, D=2] -> bf16 -> rope (half: pairs element 0 with 1) -> self-attention (no mask).
const char *kBF16RopeAttention = R"mlir(
func.func @main(%arg0: tensor<1x2x1x2xf32>, %arg1: tensor<2x2xf32>, %arg2: tensor<2x2xf32>) -> tensor<1x2x1x2xf32> {
  %0 = "top.input"(%arg0) : (tensor<1x2x1x2xf32>) -> tensor<1x2x1x2xf32> loc("x")
  %c = "top.input"(%arg1) : (tensor<2x2xf32>) -> tensor<2x2xf32> loc("cos")
  %s = "top.input"(%arg2) : (tensor<2x2xf32>) -> tensor<2x2xf32> loc("sin")
  %n = "top.none"() : () -> none loc("none")
  %1 = tpu.cast %0 {precision = #top.precision<BF16>} : (tensor<1x2x1x2xf32>) -> tensor<1x2x1x2xbf16> loc("x_bf16")
  %2 = tpu.cast %c {precision = #top.precision<BF16>} : (tensor<2x2xf32>) -> tensor<2x2xbf16> loc("cos_bf16")
  %3 = tpu.cast %s {precision = #top.precision<BF16>} : (tensor<2x2xf32>) -> tensor<2x2xbf16> loc("sin_bf16")
  %4 = tpu.rope %1, %2, %3 {precision = #top.precision<BF16>, rope_mode = #top.rope_mode<half>}
      : (tensor<1x2x1x2xbf16>, tensor<2x2xbf16>, tensor<2x2xbf16>) -> tensor<1x2x1x2xbf16> loc("rope")
  %5 = tpu.attention %4, %4, %4, %n {precision = #top.precision<BF16>, scale = 0.5 : f64}
      : (tensor<1x2x1x2xbf16>, tensor<1x2x1x2xbf16>, tensor<1x2x1x2xbf16>, none) -> tensor<1x2x1x2xbf16> loc("att")
  %6 = tpu.cast %5 {precision = #top.precision<F32>} : (tensor<1x2x1x2xbf16>) -> tensor<1x2x1x2xf32> loc("att_f32")
  return %6 : tensor<1x2x1x2xf32>
}
)mlir";

TEST_F(TpuSimTest, BF16RopeAndAttentionRunTheReferenceKernelsAndRound) {
  auto module = parse(kBF16RopeAttention);
  ASSERT_TRUE(module);
  TpuSimulator sim(*module);
  std::vector<float> x = {0.3f, -1.7f, 2.1f, 0.45f}, c = {0.8f, 0.8f, -0.4f, -0.4f}, s = {0.6f, 0.6f, 0.9f, 0.9f};
  ASSERT_FALSE(sim.setInput(0, Tensor::fromValues<float>({1, 2, 1, 2}, x)));
  ASSERT_FALSE(sim.setInput(1, Tensor::fromValues<float>({2, 2}, c)));
  ASSERT_FALSE(sim.setInput(2, Tensor::fromValues<float>({2, 2}, s)));
  ASSERT_FALSE(sim.run({.dumpAll = true}));
  auto bf = [](double v) { return static_cast<double>(quant::roundToBF16(static_cast<float>(v))); };
  double r[2][2];
  for (int l = 0; l < 2; ++l) {
    double x0 = bf(x[2 * l]), x1 = bf(x[2 * l + 1]);
    r[l][0] = bf(x0 * bf(c[2 * l]) - x1 * bf(s[2 * l]));
    r[l][1] = bf(x1 * bf(c[2 * l + 1]) + x0 * bf(s[2 * l + 1]));
  }
  std::vector<float> rope = floats(sim.tensors().get("rope")), att = floats(sim.tensors().get("att"));
  for (int l = 0; l < 2; ++l)
    for (int d = 0; d < 2; ++d)
      EXPECT_NEAR(rope[2 * l + d], r[l][d], 1e-2 * std::fabs(r[l][d]) + 1e-6) << l << " " << d;
  for (int i = 0; i < 2; ++i) {
    double score[2], sum = 0;
    for (int j = 0; j < 2; ++j)
      sum += score[j] = std::exp(0.5 * (r[i][0] * r[j][0] + r[i][1] * r[j][1]));
    for (int d = 0; d < 2; ++d) {
      double want = (score[0] * r[0][d] + score[1] * r[1][d]) / sum;
      float got = att[2 * i + d];
      EXPECT_EQ(got, quant::roundToBF16(got)) << "a bf16 value";
      EXPECT_NEAR(got, want, 1e-2 * std::fabs(want) + 1e-6) << i << " " << d;
    }
  }
}

} // namespace
