//===- TopToTpu.h - Lowering Top to Tpu in one precision --------*- C++ -*-===//
// The C++ entry point of the `top-to-tpu` pass, for `tpuc deploy` and the studio.
//===----------------------------------------------------------------------===//
#ifndef TPUC_CONVERSION_TOPTOTPU_H
#define TPUC_CONVERSION_TOPTOTPU_H

#include "mlir/IR/BuiltinOps.h"
#include "tpuc/Dialect/Top/TopDialect.h"
#include "tpuc/Quant/Tables.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace tpuc {

/// How `lowerToTpu` lowers a module. docs/quantization.md ("Lowering") states the rules.
struct LoweringOptions {
  /// bm1684x, bm1688 or cv186ah; stored as the module's `top.chip`.
  std::string chip = "bm1684x";
  /// The default precision of every op: F32, F16, BF16, INT8, W8F16, W8BF16, W4F16 or W4BF16 (the W
  /// modes quantize matmul weights only; every other op runs in F16 or BF16).
  top::Precision mode = top::Precision::F32;
  /// INT8 activations with zero points (from the table's min/max) instead of symmetric thresholds;
  /// W8/W4 weights with per-group zero points.
  bool asymmetric = false;
  /// TPU-MLIR calibration table (`op_name threshold min max`); required when any op is INT8.
  std::string calibrationTableFile;
  /// TPU-MLIR quantize table (`op_name MODE`): per-op precision overrides (mixed precision).
  std::string quantizeTableFile;
  /// Already parsed tables; take precedence over the file names when set.
  std::optional<quant::CalibrationTable> calibrationTable;
  std::optional<quant::QuantizeTable> quantizeTable;
  /// Group size along K of W8/W4 weight-only matmuls; 0 = one group per row.
  int64_t qGroupSize = 0;
  /// model_deploy's --quant_input: an input whose every user takes it in one other precision (INT8 with its
  /// calibrated scale, F16, BF16) is that type itself, so the model's caller passes it quantized and no cast
  /// runs on the chip. An input also read in another precision stays float.
  bool quantInput = false;
  /// --quant_output: an output the lowering would cast back to f32 is returned in its own precision (INT8
  /// codes with their scale and zero point in the model file, F16, BF16).
  bool quantOutput = false;
};

/// Parses a `--quantize` / `mode` value (F32, F16, BF16, INT8, W8F16, W8BF16, W4F16, W4BF16; any case).
std::optional<top::Precision> parseLoweringMode(llvm::StringRef name);

/// Lowers every Top op of `module` (state TOP_F32) to the Tpu dialect, keeping each op's location, adds
/// casts and requantizations at precision boundaries (named `<producer>_<suffix>`), creates the new
/// weights in the module's weight store (save them with top-save-weights / saveWeights), sets `top.chip`,
/// `top.mode` and the state TPU_LOWERED. Function signatures stay f32 (outputs are cast back).
/// On failure returns one line (an unsupported op's kind and name, a tensor missing from the calibration
/// table, a bad option or table); the module is then left partially lowered and must be discarded.
llvm::Error lowerToTpu(mlir::ModuleOp module, const LoweringOptions &options);

} // namespace tpuc

#endif // TPUC_CONVERSION_TOPTOTPU_H
