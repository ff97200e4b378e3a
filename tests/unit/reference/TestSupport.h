//===- TestSupport.h - Shared helpers of the reference tests ----*- C++ -*-===//
// An MLIR context with Top, func and the reference kernels, module parsing and tolerance checks.
//===----------------------------------------------------------------------===//
#ifndef TPUC_TESTS_UNIT_REFERENCE_TESTSUPPORT_H
#define TPUC_TESTS_UNIT_REFERENCE_TESTSUPPORT_H

#include "tpuc/Dialect/Top/TopOps.h"
#include "tpuc/Simulator/ReferenceKernels.h"
#include "tpuc/Support/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

namespace tpuc::sim::test {

/// A context with the Top and func dialects loaded and the reference kernels registered.
inline std::unique_ptr<mlir::MLIRContext> makeContext() {
  mlir::DialectRegistry registry;
  registry.insert<top::TopDialect, mlir::func::FuncDialect>();
  registerTopReferenceKernels(registry);
  auto context = std::make_unique<mlir::MLIRContext>(registry);
  context->loadAllAvailableDialects();
  return context;
}

/// Checks |got - want| <= atol + rtol * |want| element-wise; reports the worst element.
inline ::testing::AssertionResult allClose(const Tensor &got, const Tensor &want, double atol, double rtol) {
  if (got.shape() != want.shape())
    return ::testing::AssertionFailure()
           << "shape " << shapeToString(got.shape()) << " != expected " << shapeToString(want.shape());
  std::vector<double> g = got.toDoubles(), w = want.toDoubles();
  int64_t worst = -1, bad = 0;
  double worstExcess = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    double excess = std::fabs(g[i] - w[i]) - (atol + rtol * std::fabs(w[i]));
    bool ok = excess <= 0 || (std::isnan(g[i]) && std::isnan(w[i])) || (g[i] == w[i]);
    if (!ok) {
      ++bad;
      if (worst < 0 || excess > worstExcess || std::isnan(excess))
        worst = i, worstExcess = excess;
    }
  }
  if (bad == 0)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " of " << g.size() << " elements differ; worst at flat index " << worst << ": got "
         << g[worst] << ", expected " << w[worst];
}

} // namespace tpuc::sim::test

#endif // TPUC_TESTS_UNIT_REFERENCE_TESTSUPPORT_H
