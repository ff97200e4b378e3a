//===- FunctionProgramTest.cpp - Value ids, names, aliases and last uses of a function ---===//
#include "tpuc/Simulator/FunctionProgram.h"

#include "tpuc/Dialect/Top/TopDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace tpuc;
using namespace tpuc::sim;

namespace {

// Two inputs; `r` has the alias `d` (a folded Dropout); `u` is read by nobody; the result is called
// "output" in the graph.
const char *kFunction = R"mlir(
module attributes {top.state = #top.state<TOP_F32>} {
  func.func @main(%arg0: tensor<1x4xf32>, %arg1: tensor<1x4xf32>) -> (tensor<1x4xf32> {top.name = "output"}) {
    %x = top.input %arg0 : tensor<1x4xf32> -> tensor<1x4xf32> loc("x")
    %y = top.input %arg1 : tensor<1x4xf32> -> tensor<1x4xf32> loc("y")
    %a = top.add %x, %y : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32> loc("a")
    %r = top.relu %a : tensor<1x4xf32> -> tensor<1x4xf32> loc("r"(fused["/relu/Relu", fused<"aliases">["d"("/drop/Dropout")]]))
    %u = top.sigmoid %x : tensor<1x4xf32> -> tensor<1x4xf32> loc("u")
    %m = top.mul %r, %a : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32> loc("m")
    return %m : tensor<1x4xf32>
  }
}
)mlir";

class FunctionProgramTest : public ::testing::Test {
protected:
  FunctionProgramTest() { context.loadDialect<mlir::func::FuncDialect, top::TopDialect>(); }
  mlir::OwningOpRef<mlir::ModuleOp> parse(const char *text) {
    auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
    EXPECT_TRUE(module);
    return module;
  }
  mlir::MLIRContext context;
};

TEST_F(FunctionProgramTest, NumbersNamesAndLastUses) {
  auto module = parse(kFunction);
  ASSERT_TRUE(module);
  auto built = FunctionProgram::build(*module);
  ASSERT_TRUE(bool(built)) << llvm::toString(built.takeError());
  const FunctionProgram &p = *built;

  // Arguments first, then every op result in program order.
  ASSERT_EQ(p.numArguments, 2u);
  ASSERT_EQ(p.values.size(), 8u);
  ASSERT_EQ(p.steps.size(), 6u);
  EXPECT_EQ(p.argumentNames().vec(), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(p.names[5], "r");
  EXPECT_EQ(p.names[6], "u");
  EXPECT_EQ(p.names[7], "m");
  EXPECT_EQ(p.producer, (std::vector<int>{-1, -1, 0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(p.steps[2].operands, (llvm::SmallVector<int>{2, 3}));
  EXPECT_EQ(p.steps[5].operands, (llvm::SmallVector<int>{5, 4}));
  EXPECT_EQ(p.stepName(p.steps[3]), "r");
  EXPECT_EQ(p.sizes[4], 4);
  EXPECT_EQ(p.shape(4), (std::vector<int64_t>{1, 4}));

  // Aliases: the folded Dropout's name on `r`; the graph-output name on `m`.
  EXPECT_EQ(p.aliases[5], std::vector<std::string>{"d"});
  EXPECT_EQ(p.aliases[7], std::vector<std::string>{"output"});
  EXPECT_TRUE(p.aliases[4].empty());
  EXPECT_EQ(p.resultIds, std::vector<int>{7});
  EXPECT_EQ(p.resultNames, std::vector<std::string>{"output"});

  // Last uses: x is read last by u (step 4), y by a (step 2), a and r by m (step 5); the unread u dies
  // where it is born; the result lives to the end. Arguments are never freed.
  EXPECT_EQ(p.lastUse, (std::vector<int>{0, 1, 4, 2, 5, 5, 4, -1}));
  EXPECT_EQ(p.steps[2].freeAfter, (llvm::SmallVector<int>{3}));
  EXPECT_EQ(p.steps[4].freeAfter, (llvm::SmallVector<int>{2, 6}));
  EXPECT_EQ(p.steps[5].freeAfter, (llvm::SmallVector<int>{4, 5}));
  EXPECT_TRUE(p.steps[0].freeAfter.empty());
  EXPECT_TRUE(p.steps[1].freeAfter.empty());
}

TEST_F(FunctionProgramTest, OpErrorsNameTensorOpAndLocation) {
  auto module = parse(kFunction);
  ASSERT_TRUE(module);
  auto p = FunctionProgram::build(*module, "main");
  ASSERT_TRUE(bool(p)) << llvm::toString(p.takeError());
  EXPECT_EQ(llvm::toString(p->opError(p->steps[2], "no kernel")), "'a' (top.add at loc(\"a\")): no kernel");
}

TEST_F(FunctionProgramTest, SelectsTheFunctionOrSaysWhy) {
  auto module = parse(R"mlir(
    func.func private @f(%arg0: tensor<2xf32>) -> tensor<2xf32> { return %arg0 : tensor<2xf32> }
    func.func private @g(%arg0: tensor<2xf32>) -> tensor<2xf32> { return %arg0 : tensor<2xf32> }
    func.func private @ext(%arg0: tensor<2xf32>) -> tensor<2xf32>
  )mlir");
  ASSERT_TRUE(module);
  auto none = FunctionProgram::build(*module);
  EXPECT_EQ(llvm::toString(none.takeError()),
            "the module has 3 functions and no public 'main'; name the function to run");
  auto missing = FunctionProgram::build(*module, "nope");
  EXPECT_EQ(llvm::toString(missing.takeError()), "the module has no function 'nope'");
  auto external = FunctionProgram::build(*module, "ext");
  EXPECT_EQ(llvm::toString(external.takeError()), "function 'ext' must have a body of one block");
  auto g = FunctionProgram::build(*module, "g");
  ASSERT_TRUE(bool(g)) << llvm::toString(g.takeError());
  EXPECT_TRUE(g->steps.empty());
  EXPECT_EQ(g->resultIds, std::vector<int>{0}); // returns its argument
  EXPECT_EQ(g->lastUse, std::vector<int>{-1});
}

} // namespace
