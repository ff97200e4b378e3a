//===- SearchRecord.h - The search_qtable record: accuracy against latency -===//
//
// What `tpuc calibrate --search search_qtable --search_report FILE` writes (schema "tpuc.search_qtable"):
// the ops ranked by isolated error and every greedy step of the search, the INT8 model first, each with
// the output cosine and the simulated latency of the model with that quantize table. Plain structs with
// their JSON; Qt- and MLIR-free (TpucRequests), so the studio draws the curve from it. docs/ACCURACY.md.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DRIVER_SEARCHRECORD_H
#define TPUC_DRIVER_SEARCHRECORD_H

#include "tpuc/Driver/Results.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tpuc::driver {

inline constexpr const char *kSearchQtableSchema = "tpuc.search_qtable";
inline constexpr int kSearchQtableVersion = 1;

/// An op of the Top graph and the error it makes on its own in INT8 (1 - cosine, isolated, averaged over
/// the scored samples).
struct SearchRankedOp {
  std::string name;
  double isolatedError = 0;
  bool operator==(const SearchRankedOp &) const = default;
};

/// One state of the search: step 0 is the INT8 model (no op in float, `op` empty); step k keeps the first
/// k ops of the greedy order in float, `op` the one step k added.
struct SearchStep {
  int64_t step = 0;
  std::string op;
  double cosine = 0;    ///< the lowest scored cosine over the samples
  int64_t cycles = 0;   ///< simulated cycles of the model with this quantize table
  double latencyMs = 0; ///< the same in milliseconds at the chip's clock
  bool operator==(const SearchStep &) const = default;
};

struct SearchQtableRecord {
  std::string mlir, chip, calibrationTable, quantizeTable;
  std::string floatMode; ///< "F16" or "BF16": the mode ops are kept in
  double expectedCos = 0;
  int64_t maxFloatLayers = 0;
  int64_t samples = 0;             ///< how many calibration samples were scored
  std::vector<std::string> scored; ///< the tensors scored (outputs, or a sigmoid output's logits)
  std::vector<SearchRankedOp> ranked;
  std::vector<SearchStep> steps; ///< step 0 first, then one per op kept in float
  bool reached = false;          ///< the last step's cosine reaches expected_cos
  bool operator==(const SearchQtableRecord &) const = default;
};

std::string toJson(const SearchQtableRecord &record);
/// Rejects another schema, a newer version, or steps that are not 0, 1, 2, ... with an op each after 0.
ReadResult<SearchQtableRecord> parseSearchQtable(const std::string &json);

/// The float mode the engine keeps ops in on `chip` (search_qtable, --find_divergent, the studio's "keep in
/// float"): "F16" when the chip's profile lists F16 throughput, else "BF16" (also for an unknown chip).
std::string chipFloatMode(const std::string &chip);

} // namespace tpuc::driver

#endif // TPUC_DRIVER_SEARCHRECORD_H
