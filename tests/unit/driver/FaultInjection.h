//===- FaultInjection.h - Validating the first-divergent debugger by planted faults ===//
//
// A fault is planted in one op of an INT8 deployment and the accuracy debugger (evaluateSamples, then
// findFirstDivergent: the engine of `tpuc deploy --compare_all --find_divergent`) must name that op or a
// direct neighbour (a producer or a consumer) first. Two kinds of fault:
//
//  * threshold: the op's calibration threshold scaled by a large factor (x0.05 .. x0.2 clips its output,
//    x5 .. x20 wastes its INT8 range) - a bad calibration;
//  * shift: the requantization shift of some of the op's output channels moved by 1 or 2 bits in the
//    lowered Tpu module (its output scaled by 2, 4, 1/2 or 1/4 there) - a lowering bug; re-applied to
//    every module the debugger lowers again.
//
// A trial counts only when the fault is visible at the tolerance (some layer that passes in the clean
// deployment fails with the fault); a threshold the lowering does not use (a max pool shares its input's
// scale) changes nothing. Both are reported, never silently dropped.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_TESTS_UNIT_DRIVER_FAULTINJECTION_H
#define TPUC_TESTS_UNIT_DRIVER_FAULTINJECTION_H

#include "tpuc/Driver/Accuracy.h"
#include "tpuc/Driver/Driver.h"
#include "tpuc/Quant/Tables.h"
#include "tpuc/Simulator/Compare.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <random>
#include <string>
#include <vector>

namespace tpuc::testing::fault {

/// A small random CNN as Top MLIR: chains of convs (1x1 / 3x3, stride 1 / 2, with or without relu),
/// residual blocks (conv, relu, conv, add, relu), max and average pools, and optionally a reshape and matmul
/// head. Writes `<dir>/<name>.mlir` and its weights `<dir>/<name>_weight.npz`, and `count` random input
/// samples into `<dir>/<name>_samples/`. Returns the MLIR path.
std::string writeRandomGraph(std::mt19937 &rng, const std::string &dir, const std::string &name, int samples);

enum class Kind { Threshold, Shift };
const char *kindName(Kind kind);

/// The outcome of one planted fault.
struct Trial {
  Kind kind = Kind::Threshold;
  std::string op;    ///< where the fault is
  std::string fault; ///< "threshold x0.1", "shift -2 on 5/8 channels"
  enum Result { Hit, Miss, NoEffect, NotVisible } result = Miss;
  std::string named; ///< the debugger's first candidate, "" when none
  std::vector<std::string> candidates;
  /// Per candidate: its gains in float, alone and with its consumers ("+0.0123/+0.0456"; "-" unmeasured).
  std::vector<std::string> gains;
  std::vector<std::string> neighbours; ///< the op's producers and consumers
  std::string line() const;
};

/// A model deployed INT8 with a calibration table, ready for faults.
struct Model {
  std::string name;
  std::string mlir, table;
  std::vector<driver::CalibrationSample> samples; ///< the samples the debugger evaluates
  std::string chip = "bm1684x";
  CompareTolerance tolerance;
  size_t gainSamples = 2; ///< the debugger's --divergent_samples
  size_t candidates = 5;  ///< its --divergent_top
};

class FaultInjector {
public:
  /// Loads the model and evaluates the clean deployment (the reference for "visible").
  static llvm::Expected<std::unique_ptr<FaultInjector>> create(Model model);
  ~FaultInjector();

  /// Plants one fault of `kind` in a random op and runs the debugger.
  llvm::Expected<Trial> run(std::mt19937 &rng, Kind kind);

  /// The ops a fault of `kind` can be planted in.
  const std::vector<std::string> &targets(Kind kind) const;

private:
  FaultInjector() = default;
  struct State;
  std::unique_ptr<State> state;
};

/// Counts of trials by result, and the rate the issue asks for.
struct Tally {
  int hits = 0, misses = 0, noEffect = 0, notVisible = 0;
  void add(const Trial &trial);
  int counted() const { return hits + misses; }
  double rate() const { return counted() ? double(hits) / double(counted()) : 0.0; }
  std::string line(const std::string &what) const;
};

} // namespace tpuc::testing::fault

#endif // TPUC_TESTS_UNIT_DRIVER_FAULTINJECTION_H
