//===- TensorNamesTest.cpp - Tensor names in locations: known answers -----===//
// The naming convention of TensorNames.h: tensor NameLocs with the ONNX node (and the name the op had when
// ops were named after nodes) as their child, one NameLoc per result, aliases; the names every dump gives;
// the translation of names written the old way.
#include "TestIR.h"
#include "tpuc/Dialect/Top/TensorNames.h"
#include "tpuc/Quant/Tables.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace tpuc;

namespace {

std::string printed(Location loc) {
  std::string s;
  llvm::raw_string_ostream os(s);
  loc.print(os);
  return s;
}

// A module as the importer writes it: a Gemm `/fc/Gemm` producing `logits` with a helper reshape, a TopK
// node with both outputs, a Relu whose tensor a Dropout and an Identity forwarded, and a conv fused with a
// relu; the last result is a graph output by another name.
const char *kNamed = R"mlir(
module {
  func.func @main(%arg0: tensor<2x4xf32>) -> (tensor<2x3xf32> {top.name = "logits"}, tensor<2x2xf32> {top.name = "values"}, tensor<2x2xi64> {top.name = "indices"}, tensor<2x4xf32> {top.name = "probs"}) {
    %x = top.input %arg0 : tensor<2x4xf32> -> tensor<2x4xf32> loc("x")
    %w = top.weight "w" : tensor<3x4xf32> loc("w")
    %n = top.none : none loc("none")
    %r = top.relu %x : tensor<2x4xf32> -> tensor<2x4xf32> loc("r"(fused["/relu/Relu", fused<"aliases">["d"("/drop/Dropout"), "id"("/id/Identity")]]))
    %m = top.matmul %r, %w, %n {right_transpose = true} : (tensor<2x4xf32>, tensor<3x4xf32>, none) -> tensor<2x3xf32> loc("logits_matmul"("/fc/Gemm_matmul"("/fc/Gemm")))
    %y = top.reshape %m : tensor<2x3xf32> -> tensor<2x3xf32> loc("logits"("/fc/Gemm"))
    %v, %i = top.topk %x {axis = 1 : i64, k = 2 : i64} : (tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>) loc(fused["values"("/topk/TopK"), "indices"("/topk/TopK")])
    %s = top.sigmoid %x : tensor<2x4xf32> -> tensor<2x4xf32> loc(fused["c"("/conv/Conv"), "s"("/act/Sigmoid")])
    return %y, %v, %i, %s : tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x2xi64>, tensor<2x4xf32>
  }
}
)mlir";

TEST(TensorNames, LocationsCarryTensorNodeAndAliases) {
  auto context = test::makeContext();
  MLIRContext *ctx = context.get();
  Location y = top::tensorLoc(ctx, "y", "/fc/Gemm");
  EXPECT_EQ(printed(y), "loc(\"y\"(\"/fc/Gemm\"))");
  EXPECT_EQ(top::locationName(y), "y");
  EXPECT_EQ(top::sourceNode(y), "/fc/Gemm");
  EXPECT_EQ(top::legacyName(y), "/fc/Gemm");
  EXPECT_EQ(printed(top::tensorLoc(ctx, "x", "")), "loc(\"x\")");

  // One NameLoc per result, even when they share the provenance; the legacy names were "<node>", "<node>_1".
  Location topk = top::resultsLoc(ctx, {"values", "indices"}, NameLoc::get(StringAttr::get(ctx, "/TopK")));
  EXPECT_EQ(printed(topk), "loc(fused[\"values\"(\"/TopK\"), \"indices\"(\"/TopK\")])");
  EXPECT_EQ(top::resultNameLoc(topk, 1, 2).getName(), "indices");
  EXPECT_EQ(top::legacyName(topk, 1, 2), "/TopK_1");
  EXPECT_EQ(top::sourceNode(topk, 1, 2), "/TopK");

  // Aliases go into the tensor's own NameLoc, one group, in the order added; the tensor keeps its name.
  Location aliased = top::addAlias(y, 0, 1, "d", "/Dropout");
  aliased = top::addAlias(aliased, 0, 1, "out", "/Identity");
  EXPECT_EQ(printed(aliased), "loc(\"y\"(fused[\"/fc/Gemm\", fused<\"aliases\">[\"d\"(\"/Dropout\"), "
                              "\"out\"(\"/Identity\")]]))");
  EXPECT_EQ(top::locationName(aliased), "y");
  EXPECT_EQ(top::aliasNames(aliased), (std::vector<std::string>{"d", "out"}));
  EXPECT_EQ(top::sourceNode(aliased), "/fc/Gemm");
  Location aliasedIndices = top::addAlias(topk, 1, 2, "idx", "/Identity");
  EXPECT_TRUE(top::aliasNames(aliasedIndices, 0, 2).empty());
  EXPECT_EQ(top::aliasNames(aliasedIndices, 1, 2), std::vector<std::string>{"idx"});
  EXPECT_EQ(top::resultNameLoc(aliasedIndices, 0, 2).getName(), "values");

  // A fusion puts the consumer last: its tensor is the op's; the fused-away producer names nothing.
  Location fused = FusedLoc::get(ctx, {top::tensorLoc(ctx, "c", "/Conv"), aliased});
  EXPECT_EQ(top::locationName(fused), "y");
  EXPECT_EQ(top::aliasNames(fused), (std::vector<std::string>{"d", "out"}));
  // A helper's provenance is its old name, whose child is the node.
  Location helper = top::tensorLoc(
      ctx, "y_reshape",
      NameLoc::get(StringAttr::get(ctx, "/fc/Gemm_reshape"), NameLoc::get(StringAttr::get(ctx, "/fc/Gemm"))));
  EXPECT_EQ(top::sourceNode(helper), "/fc/Gemm");
  EXPECT_EQ(top::legacyName(helper), "/fc/Gemm_reshape");
}

TEST(TensorNames, DumpNamesAliasesAndGraphOutputs) {
  auto context = test::makeContext();
  auto module = test::parse(*context, kNamed);
  ASSERT_TRUE(module);
  auto func = *module->getOps<func::FuncOp>().begin();
  top::TensorNaming naming = top::nameTensors(func);
  // Arguments first (named after their top.input), then every op result in order.
  EXPECT_EQ(naming.names, (std::vector<std::string>{"x", "x", "w", "none", "r", "logits_matmul", "logits", "values",
                                                    "indices", "s"}));
  std::vector<std::string> aliases;
  for (auto &[value, alias] : naming.aliases)
    aliases.push_back(naming.names[value] + "=" + alias);
  // The sigmoid's graph output "probs" is another name of "s"; "logits", "values", "indices" are their own.
  EXPECT_EQ(aliases, (std::vector<std::string>{"r=d", "r=id", "s=probs"}));
  EXPECT_EQ(naming.results, (std::vector<std::string>{"logits", "values", "indices", "probs"}));
}

TEST(TensorNames, OldNamesTranslateThroughTheLocations) {
  auto context = test::makeContext();
  auto module = test::parse(*context, kNamed);
  ASSERT_TRUE(module);
  llvm::StringMap<std::string> map = top::nameTranslations(*module);
  auto to = [&](StringRef name) { return map.count(name) ? map.lookup(name) : std::string("-"); };
  EXPECT_EQ(to("/relu/Relu"), "r");
  EXPECT_EQ(to("/fc/Gemm"), "logits");
  EXPECT_EQ(to("/fc/Gemm_matmul"), "logits_matmul");
  EXPECT_EQ(to("/topk/TopK"), "values");
  EXPECT_EQ(to("/topk/TopK_1"), "indices");
  EXPECT_EQ(to("/act/Sigmoid"), "s");
  EXPECT_EQ(to("d"), "r"); // an alias
  EXPECT_EQ(to("probs"), "s"); // a graph output's name
  EXPECT_EQ(to("logits"), "-"); // tensor names need no translation
  EXPECT_EQ(to("/conv/Conv"), "-"); // fused away: no tensor of its own any more

  // A calibration table written the old way (rows named after ONNX nodes) applies to the new names; a
  // translated row never replaces the table's own row for that tensor.
  quant::CalibrationTable table = quant::parseCalibrationTable("# op_name threshold min max\n"
                                                               "x 1.0 -1.0 1.0\n"
                                                               "/relu/Relu 2.0 0.0 2.0\n"
                                                               "/fc/Gemm 3.0 -3.0 3.0\n"
                                                               "/topk/TopK_1 4.0 0.0 4.0\n"
                                                               "s 0.5 0.0 0.5\n"
                                                               "/act/Sigmoid 0.9 0.0 0.9\n"
                                                               "#int4_th\n"
                                                               "/relu/Relu 1.5 0.0 1.5\n",
                                                               "old.table");
  quant::NameTranslation translate = [&](std::string_view name) -> const std::string * {
    auto it = map.find(StringRef(name.data(), name.size()));
    return it == map.end() ? nullptr : &it->second;
  };
  EXPECT_EQ(quant::translateNames(table, translate), 4u);
  std::vector<std::string> rows;
  for (const auto &e : table.int8)
    rows.push_back(e.name);
  EXPECT_EQ(rows, (std::vector<std::string>{"x", "r", "logits", "indices", "s"}));
  EXPECT_EQ(table.find("logits")->threshold, 3.0);
  EXPECT_EQ(table.find("s")->threshold, 0.5);
  ASSERT_NE(table.findInt4("r"), nullptr);
  quant::QuantizeTable qtable = quant::parseQuantizeTable("/fc/Gemm F16\nvalues F32\n", "old.qtable");
  EXPECT_EQ(quant::translateNames(qtable, translate), 1u);
  EXPECT_EQ(qtable.find("logits"), quant::QuantMode::F16);
  EXPECT_EQ(qtable.find("values"), quant::QuantMode::F32);
}

} // namespace
