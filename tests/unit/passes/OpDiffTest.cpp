// Op-level diffs of small IR pairs with known answers, and provenance through locations.
#include "tpuc/PassData/PassDiff.h"
#include "tpuc/PassData/PassProvenance.h"
#include "tpuc/PassData/PassSnapshots.h"
#include "tpuc/Transforms/PassRecorder.h"
#include "tpuc/Transforms/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <set>

using namespace tpuc;

namespace {

struct OpDiffTest : ::testing::Test {
  OpDiffTest() {
    mlir::DialectRegistry registry;
    registerDialects(registry);
    context = std::make_unique<mlir::MLIRContext>(registry);
    context->loadAllAvailableDialects();
  }
  OpRecords records(const std::string &body) {
    std::string text = "module {\n  func.func @main(%arg0: tensor<1x4xf32>) -> tensor<1x4xf32> {\n" + body + "  }\n}\n";
    auto module = mlir::parseSourceString<mlir::ModuleOp>(text, context.get());
    EXPECT_TRUE(module) << text;
    return module ? collectOpRecords(module->getOperation()) : OpRecords{};
  }
  std::unique_ptr<mlir::MLIRContext> context;
};

/// "name|kind" of the listed records, as a set.
std::set<std::string> ids(const OpRecords &r, const std::vector<std::size_t> &indices) {
  std::set<std::string> out;
  for (std::size_t i : indices)
    out.insert(r[i].identity());
  return out;
}
std::set<std::string> firsts(const OpRecords &r, const std::vector<std::pair<std::size_t, std::size_t>> &pairs) {
  std::set<std::string> out;
  for (auto [i, j] : pairs)
    out.insert(r[i].identity());
  return out;
}

const char *kChain = R"(    %0 = top.input %arg0 : tensor<1x4xf32> -> tensor<1x4xf32> loc("x")
    %1 = top.relu %0 : tensor<1x4xf32> -> tensor<1x4xf32> loc("a")
    %2 = top.relu %1 : tensor<1x4xf32> -> tensor<1x4xf32> loc("b")
    return %2 : tensor<1x4xf32> loc(unknown)
)";

} // namespace

TEST_F(OpDiffTest, RecordsCarryIdentityOperandsAndParents) {
  OpRecords r = records(kChain);
  ASSERT_EQ(r.size(), 5u); // func, input, relu a, relu b, return
  EXPECT_EQ(r[0].identity(), "@main|func.func");
  EXPECT_EQ(r[1].identity(), "x|top.input");
  EXPECT_EQ(r[3].identity(), "b|top.relu");
  EXPECT_EQ(r[3].parent, 0);
  ASSERT_EQ(r[3].operands.size(), 1u);
  EXPECT_EQ(r[3].operands[0], (OpOperand{2, 0}));
  EXPECT_EQ(r[1].operands[0], (OpOperand{-1, 0})); // the block argument
  EXPECT_EQ(r[3].types, "tensor<1x4xf32>");
  EXPECT_EQ(r[4].name, "");
}

TEST_F(OpDiffTest, IdenticalIRHasNoDifference) {
  OpDiff d = diffOps(records(kChain), records(kChain));
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(d.unchanged.size(), 5u);
}

TEST_F(OpDiffTest, InsertedOpIsAddedAndItsUserChanged) {
  OpRecords before = records(kChain);
  OpRecords after = records(R"(    %0 = top.input %arg0 : tensor<1x4xf32> -> tensor<1x4xf32> loc("x")
    %1 = top.relu %0 : tensor<1x4xf32> -> tensor<1x4xf32> loc("a")
    %c = top.relu %1 : tensor<1x4xf32> -> tensor<1x4xf32> loc("c")
    %2 = top.relu %c : tensor<1x4xf32> -> tensor<1x4xf32> loc("b")
    return %2 : tensor<1x4xf32> loc(unknown)
)");
  OpDiff d = diffOps(before, after);
  EXPECT_EQ(ids(after, d.added), std::set<std::string>{"c|top.relu"});
  EXPECT_TRUE(d.removed.empty());
  // b now reads c: same identity, different operand source. a, x, the return and the function are as they were.
  EXPECT_EQ(firsts(before, d.changed), std::set<std::string>{"b|top.relu"});
  EXPECT_EQ(d.unchanged.size(), 4u);
}

TEST_F(OpDiffTest, RemovedOpAndAttributeChange) {
  OpRecords before = records(kChain);
  OpRecords after = records(R"(    %0 = top.input %arg0 : tensor<1x4xf32> -> tensor<1x4xf32> loc("x")
    %2 = top.relu %0 {relu_limit = 6.0 : f64} : tensor<1x4xf32> -> tensor<1x4xf32> loc("b")
    return %2 : tensor<1x4xf32> loc(unknown)
)");
  OpDiff d = diffOps(before, after);
  EXPECT_TRUE(d.added.empty());
  EXPECT_EQ(ids(before, d.removed), std::set<std::string>{"a|top.relu"});
  EXPECT_EQ(firsts(before, d.changed), std::set<std::string>{"b|top.relu"});
}

TEST_F(OpDiffTest, FusedLocationKeepsTheFirstNameAsIdentity) {
  OpRecords before = records(kChain);
  OpRecords after = records(R"(    %0 = top.input %arg0 : tensor<1x4xf32> -> tensor<1x4xf32> loc("x")
    %1 = top.relu %0 : tensor<1x4xf32> -> tensor<1x4xf32> loc(fused["a", "b"])
    return %1 : tensor<1x4xf32> loc(unknown)
)");
  OpDiff d = diffOps(before, after);
  EXPECT_TRUE(d.added.empty());
  EXPECT_EQ(ids(before, d.removed), std::set<std::string>{"b|top.relu"});
  // a's location changed (and the return now reads a): both changed.
  EXPECT_EQ(firsts(before, d.changed), (std::set<std::string>{"a|top.relu", "|func.return"}));

  Provenance p = mapProvenance(before, after);
  // Many-to-one: a and b both became the fused op (index 2 of `after`); one-to-many the other way.
  EXPECT_EQ(p.forward[2], std::vector<std::size_t>{2});
  EXPECT_EQ(p.forward[3], std::vector<std::size_t>{2});
  EXPECT_EQ(p.backward[2], (std::vector<std::size_t>{2, 3}));
  EXPECT_TRUE(p.forward[4].empty()); // the return has no name
}

TEST_F(OpDiffTest, SuffixNamesRelateOnlyWhenNothingMatchesExactly) {
  OpRecords top = records(kChain);
  OpRecords lowered = records(R"(    %0 = top.input %arg0 : tensor<1x4xf32> -> tensor<1x4xf32> loc("x")
    %c = top.relu %0 : tensor<1x4xf32> -> tensor<1x4xf32> loc("x_f16")
    %1 = top.relu %c : tensor<1x4xf32> -> tensor<1x4xf32> loc("a")
    %2 = top.relu %1 : tensor<1x4xf32> -> tensor<1x4xf32> loc("a_b")
    %3 = top.relu %2 : tensor<1x4xf32> -> tensor<1x4xf32> loc("zz_f32")
    return %3 : tensor<1x4xf32> loc(unknown)
)");
  Provenance p = mapProvenance(top, lowered);
  EXPECT_EQ(p.backward[2], std::vector<std::size_t>{1}); // x_f16 <- x
  EXPECT_EQ(p.backward[4], std::vector<std::size_t>{2}); // a_b <- a (its own name matches nothing)
  EXPECT_TRUE(p.backward[5].empty());                    // zz matches nothing either
  // b (top) matches nothing exactly; names of the earlier stage are never guessed from ("a_b" is not b's).
  EXPECT_TRUE(p.forward[3].empty());
  EXPECT_EQ(p.forward[1], (std::vector<std::size_t>{1, 2})); // x -> x and its cast
}

TEST_F(OpDiffTest, TypeChangesCountAsChanged) {
  OpRecords before = records(R"(    %0 = top.input %arg0 : tensor<1x4xf32> -> tensor<*xf32> loc("x")
    %1 = top.relu %0 : tensor<*xf32> -> tensor<*xf32> loc("a")
    %2 = top.relu %1 : tensor<*xf32> -> tensor<1x4xf32> loc("b")
    return %2 : tensor<1x4xf32> loc(unknown)
)");
  OpDiff d = diffOps(before, records(kChain));
  // b's result type was already static: only the operand types changed, which b's producer accounts for.
  EXPECT_EQ(firsts(before, d.changed), (std::set<std::string>{"x|top.input", "a|top.relu"}));
}

TEST_F(OpDiffTest, DuplicateIdentitiesPairEqualContentsFirst) {
  // Two unnamed weights of one kind: inserting a third equal to the second must not shift the pairs.
  auto body = [](bool extra) {
    std::string s = R"(    %0 = top.input %arg0 : tensor<1x4xf32> -> tensor<1x4xf32> loc("x")
    %w1 = top.weight "w1" : tensor<4xf32> loc(unknown)
)";
    if (extra)
      s += "    %w3 = top.weight \"w3\" : tensor<4xf32> loc(unknown)\n";
    s += R"(    %w2 = top.weight "w2" : tensor<4xf32> loc(unknown)
    return %0 : tensor<1x4xf32> loc(unknown)
)";
    return s;
  };
  OpRecords before = records(body(false)), after = records(body(true));
  OpDiff d = diffOps(before, after);
  ASSERT_EQ(d.added.size(), 1u);
  EXPECT_NE(after[d.added[0]].attributes.find("w3"), std::string::npos);
  EXPECT_TRUE(d.changed.empty());
}

TEST_F(OpDiffTest, OpsJsonRoundTrips) {
  OpRecords r = records(kChain);
  Result<OpRecords> back = opRecordsFromJson(opRecordsToJson(r), "ops.json");
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(*back, r);
  Result<OpRecords> bad = opRecordsFromJson("{\"ops\": [{\"kind\": \"top.relu\"}]}", "bad.json");
  EXPECT_FALSE(bad);
  EXPECT_EQ(bad.error(), "bad.json: ops[0]: missing \"name\"");
  EXPECT_FALSE(opRecordsFromJson("[]", "bad.json"));
}
