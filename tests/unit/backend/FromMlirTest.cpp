//===- FromMlirTest.cpp - Backend graph from Top IR -----------------------===//
//
// The adapter on small inline IR (kinds, windows, names, dtype override,
// errors) and on the Top IR of resnet18 / mobilenet_v2 imported from ONNX:
// the graphs built from real IR agree with the hand-derived model-zoo graphs
// (op kinds, MACs, parameters) and plan to valid layer groups.

#include "tpuc/Backend/FromMlir.h"
#include "tpuc/Backend/GlobalMemory.h"
#include "tpuc/Backend/ModelZoo.h"
#include "tpuc/Dialect/Top/TopDialect.h"
#include "tpuc/Dialect/Tpu/TpuDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <map>

using namespace tpuc::backend;

namespace {

struct Parsed {
  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp func() {
    mlir::func::FuncOp f;
    module->walk([&](mlir::func::FuncOp op) { f = op; });
    return f;
  }
};

Parsed parse(llvm::StringRef text, bool isFile = false) {
  Parsed p;
  mlir::DialectRegistry registry;
  registry.insert<tpuc::top::TopDialect, tpuc::tpu::TpuDialect, mlir::func::FuncDialect,
                  mlir::quant::QuantDialect>();
  p.context = std::make_unique<mlir::MLIRContext>(registry);
  // Tpu ops are read by name and attributes: generic syntax of an
  // unregistered "tpu" dialect keeps this test independent of its ODS.
  p.context->allowUnregisteredDialects();
  p.context->loadAllAvailableDialects();
  p.module = isFile ? mlir::parseSourceFile<mlir::ModuleOp>(text, p.context.get())
                    : mlir::parseSourceString<mlir::ModuleOp>(text, p.context.get());
  return p;
}

std::map<OpKind, int> kindCounts(const Graph &g) {
  std::map<OpKind, int> m;
  for (const Op &op : g.ops)
    ++m[op.kind];
  return m;
}

int64_t macs(const Graph &g, const ChipProfile &c) {
  int64_t total = 0;
  for (const Op &op : g.ops)
    if (op.kind == OpKind::Conv || op.kind == OpKind::MatMul)
      total += tiuCost(c, g, op, fullBox(g.values[op.outputs[0]])).macs;
  return total;
}

int64_t params(const Graph &g) {
  int64_t n = 0;
  for (const Value &v : g.values)
    if (v.isWeight)
      n += v.elements();
  return n;
}

const char *kSmall = R"mlir(
module {
  func.func @main(%arg0: tensor<1x8x16x16xf32> loc("in")) -> tensor<1x10xf32> {
    %w = top.weight "w" : tensor<8x8x3x3xf32> loc("w")
    %b = top.weight "b" : tensor<8xf32> loc("b")
    %fw = top.weight "fw" : tensor<512x10xf32> loc("fw")
    %x = top.input %arg0 : tensor<1x8x16x16xf32> -> tensor<1x8x16x16xf32> loc("data")
    %c = top.conv %x, %w, %b {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>,
                              pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>}
        : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x16x16xf32> loc("conv")
    %p = top.maxpool %c {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = true}
        : tensor<1x8x16x16xf32> -> tensor<1x8x8x8xf32> loc("pool")
    %r = top.reshape %p : tensor<1x8x8x8xf32> -> tensor<1x512xf32> loc("flat")
    %n = top.none : none loc("none")
    %y = top.matmul %r, %fw, %n : (tensor<1x512xf32>, tensor<512x10xf32>, none) -> tensor<1x10xf32> loc("fc")
    return %y : tensor<1x10xf32> loc("ret")
  }
}
)mlir";

TEST(FromMlir, SmallTopGraph) {
  Parsed p = parse(kSmall);
  ASSERT_TRUE(p.module) << "the Top syntax of this test changed";
  auto g = graphFromFunc(p.func());
  ASSERT_TRUE(succeeded(g));
  ASSERT_EQ(g->ops.size(), 4u);
  EXPECT_EQ(g->ops[0].name, "conv");
  EXPECT_EQ(g->ops[0].kind, OpKind::Conv);
  EXPECT_EQ(g->ops[0].weights.size(), 2u);
  EXPECT_EQ(g->ops[0].window.kh, 3);
  EXPECT_EQ(g->ops[0].window.padBottom, 1);
  EXPECT_EQ(g->ops[1].kind, OpKind::Pool);
  // ceil_mode: 16 -> 8 with k3 s2 needs one more row of end padding.
  EXPECT_EQ(g->ops[1].window.padBottom, 1);
  EXPECT_EQ(g->ops[2].kind, OpKind::Reshape);
  EXPECT_EQ(g->ops[3].kind, OpKind::MatMul);
  EXPECT_EQ(g->ops[3].weights.size(), 1u); // none is skipped
  ASSERT_EQ(g->inputs.size(), 1u);
  EXPECT_EQ(g->values[g->inputs[0]].name, "data");
  ASSERT_EQ(g->outputs.size(), 1u);
  EXPECT_EQ(g->values[g->outputs[0]].name, "fc");
  EXPECT_EQ(g->values[g->outputs[0]].dtype, DType::F32);

  FromMlirOptions o;
  o.dtype = DType::INT8;
  auto q = graphFromFunc(p.func(), o);
  ASSERT_TRUE(succeeded(q));
  EXPECT_EQ(q->values[q->ops[0].outputs[0]].dtype, DType::INT8);
  EXPECT_EQ(q->values[q->ops[0].weights[0]].dtype, DType::INT8);
  EXPECT_EQ(q->values[q->ops[0].weights[1]].dtype, DType::INT32);
}

TEST(FromMlir, TpuOpsByBackendRoleWithQuantizedTypes) {
  Parsed p = parse(R"mlir(
!qi8 = !quant.uniform<i8:f32, 0.02>
module {
  func.func @main(%arg0: tensor<1x16x32x32x!qi8>) -> tensor<1x16x16x16xf32> {
    %w = top.weight "w" : tensor<16x1x3x3xi8>
    %b = top.weight "b" : tensor<16xi32>
    %c = tpu.conv2d %arg0, %w, %b {precision = #top.precision<INT8>, kernel_shape = array<i64: 3, 3>,
                                   strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>,
                                   dilations = array<i64: 1, 1>, group = 16 : i64,
                                   multiplier = array<i64: 1>, rshift = array<i64: 1>}
        : (tensor<1x16x32x32x!qi8>, tensor<16x1x3x3xi8>, tensor<16xi32>) -> tensor<1x16x16x16x!qi8> loc("dw")
    %r = tpu.requant_int %c {precision = #top.precision<INT8>, multiplier = array<i64: 1>, rshift = array<i64: 0>}
        : (tensor<1x16x16x16x!qi8>) -> tensor<1x16x16x16x!qi8> loc("rq")
    %s = tpu.add %r, %c {precision = #top.precision<INT8>, multiplier = array<i64: 1, 1>, rshift = array<i64: 0>}
        : (tensor<1x16x16x16x!qi8>, tensor<1x16x16x16x!qi8>) -> tensor<1x16x16x16x!qi8> loc("sum")
    %f = tpu.cast %s {precision = #top.precision<F32>} : (tensor<1x16x16x16x!qi8>) -> tensor<1x16x16x16xf32> loc("sum_f32")
    %m = tpu.softmax %f {precision = #top.precision<F32>, axis = 1 : i64}
        : (tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32> loc("sm")
    return %m : tensor<1x16x16x16xf32>
  }
}
)mlir");
  ASSERT_TRUE(p.module);
  auto g = graphFromFunc(p.func());
  ASSERT_TRUE(succeeded(g));
  ASSERT_EQ(g->ops.size(), 5u);
  EXPECT_EQ(g->ops[0].kind, OpKind::Conv);
  EXPECT_EQ(g->ops[0].groups, 16);
  EXPECT_EQ(g->ops[0].window.sh, 2);
  EXPECT_EQ(g->ops[1].kind, OpKind::Unary);
  EXPECT_EQ(g->ops[2].kind, OpKind::Eltwise);
  EXPECT_EQ(g->ops[3].kind, OpKind::Unary);
  EXPECT_EQ(g->ops[4].kind, OpKind::Other); // softmax is not sliceable by rule
  EXPECT_EQ(g->values[g->ops[0].outputs[0]].dtype, DType::INT8);
  EXPECT_EQ(g->values[g->ops[0].weights[1]].dtype, DType::INT32);
  EXPECT_EQ(g->values[g->inputs[0]].name, "arg0");
  EXPECT_TRUE(g->isGroupable(0) && g->isGroupable(1) && g->isGroupable(2));
  EXPECT_FALSE(g->isGroupable(4));
}

TEST(FromMlir, NormalizationsAlongTheLastAxisHaveARowForm) {
  Parsed p = parse(R"mlir(
module {
  func.func @main(%arg0: tensor<1x16x64xf16>, %arg1: tensor<1x4x16x16xf16>) -> (tensor<1x16x64xf16>, tensor<1x4x16x16xf16>) {
    %none = top.none : none
    %g = top.weight "g" : tensor<64xf16>
    %b = top.weight "b" : tensor<64xf16>
    %n = tpu.layernorm %arg0, %g, %b {precision = #top.precision<F16>, axis = 2 : i64, eps = 1.0e-05 : f64}
        : (tensor<1x16x64xf16>, tensor<64xf16>, tensor<64xf16>) -> tensor<1x16x64xf16> loc("ln")
    %r = tpu.rmsnorm %n, %g {precision = #top.precision<F16>, eps = 1.0e-06 : f64}
        : (tensor<1x16x64xf16>, tensor<64xf16>) -> tensor<1x16x64xf16> loc("rms")
    %all = tpu.layernorm %r, %none, %none {precision = #top.precision<F16>, axis = 1 : i64, eps = 1.0e-05 : f64}
        : (tensor<1x16x64xf16>, none, none) -> tensor<1x16x64xf16> loc("ln_all")
    %s = tpu.softmax %arg1 {precision = #top.precision<F16>, axis = -1 : i64}
        : (tensor<1x4x16x16xf16>) -> tensor<1x4x16x16xf16> loc("scores")
    %c = tpu.softmax %s {precision = #top.precision<F16>, axis = 2 : i64}
        : (tensor<1x4x16x16xf16>) -> tensor<1x4x16x16xf16> loc("columns")
    return %all, %c : tensor<1x16x64xf16>, tensor<1x4x16x16xf16>
  }
}
)mlir");
  ASSERT_TRUE(p.module);
  auto g = graphFromFunc(p.func());
  ASSERT_TRUE(succeeded(g));
  ASSERT_EQ(g->ops.size(), 5u);
  EXPECT_EQ(g->ops[0].kind, OpKind::LayerNorm);
  EXPECT_EQ(g->ops[0].weights.size(), 2u);
  EXPECT_EQ(g->ops[1].kind, OpKind::RMSNorm);
  EXPECT_EQ(g->ops[2].kind, OpKind::Other); // normalizes [1, rank): not row by row
  EXPECT_EQ(g->ops[3].kind, OpKind::Softmax);
  EXPECT_EQ(g->ops[4].kind, OpKind::Other); // along an axis before the last
  for (int o : {0, 1, 3}) {
    EXPECT_TRUE(g->isGroupable(o)) << g->ops[o].name;
    EXPECT_TRUE(g->cutsRowsOnly(o)) << g->ops[o].name;
  }
  EXPECT_FALSE(g->isGroupable(2));
  EXPECT_FALSE(g->isGroupable(4));
}

TEST(FromMlir, DynamicShapesAreAnError) {
  Parsed p = parse(R"mlir(
module {
  func.func @main(%arg0: tensor<?x8xf32>) -> tensor<?x8xf32> {
    return %arg0 : tensor<?x8xf32>
  }
}
)mlir");
  ASSERT_TRUE(p.module);
  std::string message;
  mlir::ScopedDiagnosticHandler handler(p.context.get(), [&](mlir::Diagnostic &d) {
    message = d.str();
    return mlir::success();
  });
  EXPECT_TRUE(failed(graphFromFunc(p.func())));
  EXPECT_EQ(message, "backend graph: value needs a static ranked tensor type");
}

TEST(FromMlir, ImportedModelsMatchTheModelZoo) {
  ChipProfile c = findChipProfile("bm1684x", {TPUC_CHIP_TEST_DIR});
  struct Case {
    const char *file;
    Graph (*build)(DType, int64_t, int64_t);
  };
  for (Case cs :
       {Case{"resnet18_top.mlir", buildResNet18}, Case{"mobilenet_v2_top.mlir", buildMobileNetV2}}) {
    Parsed p = parse(std::string(TPUC_BACKEND_TEST_INPUTS) + "/" + cs.file, true);
    ASSERT_TRUE(p.module) << cs.file;
    FromMlirOptions o;
    o.dtype = DType::INT8;
    auto g = graphFromFunc(p.func(), o);
    ASSERT_TRUE(succeeded(g)) << cs.file;
    Graph zoo = cs.build(DType::INT8, 1, 224);
    EXPECT_EQ(kindCounts(*g), kindCounts(zoo)) << cs.file;
    EXPECT_EQ(macs(*g, c), macs(zoo, c)) << cs.file;
    EXPECT_EQ(params(*g), params(zoo)) << cs.file;
    LayerGroupPlan lg = planLayerGroups(c, *g);
    auto errors = validatePlan(c, *g, lg);
    EXPECT_TRUE(errors.empty()) << cs.file << ": " << errors.front();
    GmemPlan gm = planGlobalMemory(c, *g, lg);
    EXPECT_TRUE(validateGmem(c, *g, gm).empty());
    LayerGroupPlan lzoo = planLayerGroups(c, zoo);
    // Op order may differ (ONNX order of the downsample branch), so the
    // partitions may too; the estimates stay close.
    EXPECT_NEAR(static_cast<double>(lg.totalCycles), static_cast<double>(lzoo.totalCycles),
                0.1 * static_cast<double>(lzoo.totalCycles))
        << cs.file;
  }
}

} // namespace
