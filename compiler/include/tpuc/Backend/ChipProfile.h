//===- ChipProfile.h - A simulated chip's figures, loaded from JSON -------===//
//
// The backend targets a documented architecture model (docs/BACKEND.md)
// parameterized by a chip profile: NPU lanes, local memory, TIU throughput
// per precision, GDMA bandwidth and latency, DDR size and alignment rules.
// Profiles are data files (resources/chips/<name>.json) found by name, so a
// new chip needs no code change. Bad files throw ProfileError naming the file
// and the field.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_BACKEND_CHIPPROFILE_H
#define TPUC_BACKEND_CHIPPROFILE_H

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace tpuc::backend {

/// A profile could not be found or read; what() is one line naming the file
/// and, when one is at fault, the field ("bm1684x.json: npu.lanes: ...").
class ProfileError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Compute precisions the TIU has a throughput for.
enum class Precision { INT8, F16, BF16, F32 };

/// The precision's name as used in profiles ("INT8", "F16", "BF16", "F32").
const char *precisionName(Precision p);

/// The figures of one simulated chip (per core, and how many cores share its DDR). All sizes in bytes.
struct ChipProfile {
  std::string name;        ///< Lower-case chip name, equal to the file stem.
  std::string description; ///< Free text.
  std::string sourceFile;  ///< Where the profile was read from ("" if built).
  std::string calibration; ///< Free text: the data the cost parameters were fitted to ("" if none).
  /// Cores of the chip: each has its own LMEM, TIU and GDMA; DDR and its bandwidth are shared.
  int64_t cores = 1;
  /// Cycles a barrier across cores takes once the last engine has arrived (every engine of every core
  /// sends its message and waits for the others'); required when cores > 1.
  int64_t syncCycles = 0;
  double frequencyMhz = 0; ///< TIU and GDMA clock.

  // NPU / local memory.
  int64_t lanes = 0;   ///< NPU lanes; channel c lives in lane c % lanes.
  int64_t euBytes = 0; ///< Execution-unit width in bytes per lane.
  int64_t lmemBytesPerLane = 0;
  int64_t lmemBanks = 0;
  int64_t lmemAlignment = 0; ///< Address alignment of LMEM tensors.
  /// LMEM bank contention between the engines of one core: while the TIU and the GDMA both run, each
  /// runs at 1 / (1 + engineContention) of its speed, so overlapped work of T and G cycles takes
  /// max(T, G) + engineContention * min(T, G). 0: overlap is free; 1: no gain from overlapping.
  double engineContention = 0;

  // TIU.
  /// Multiply-accumulates per lane per cycle of conv/matmul, by precision.
  std::map<Precision, double> macsPerLanePerCycle;
  int64_t tiuCommandCycles = 0; ///< Fixed cost of issuing one TIU command.
  /// Startup cycles of one TIU pass (one output channel of a lane, one kernel tap, one step of input
  /// channels: docs/BACKEND.md "The cycle model"); what makes small planes and large kernels slow.
  double tiuPassCycles = 0;
  /// Sustained fraction of the peak MAC rate that dense conv reaches, by precision (window fetch of
  /// the taps, partial sums, pipeline bubbles); 1 when the profile says nothing.
  std::map<Precision, double> convEfficiency;
  /// The same for matmul (its operands stream without windows); 1 when the profile says nothing.
  std::map<Precision, double> matmulEfficiency;
  /// Fraction of its rate a conv keeps when its stride is above 1 (the input plane is read with a
  /// stride, so the window fetch feeds the cube less per cycle); 1 when the profile says nothing.
  double convStrideEfficiency = 1;

  // GDMA.
  double gdmaBytesPerSecond = 0; ///< Sustained DDR<->LMEM bandwidth.
  int64_t gdmaLatencyCycles = 0; ///< Fixed cost of one GDMA command.
  int64_t gdmaBurstBytes = 0;    ///< Contiguous runs are rounded up to this.
  /// Sustained fraction of the nominal bandwidth on long contiguous runs (refresh, page misses).
  double gdmaEfficiency = 1;
  /// DDR cycles each contiguous run after the first costs (a new row and descriptor): what makes
  /// strided boxes slower than the same bytes in one piece.
  double gdmaRunCycles = 0;

  // DDR.
  int64_t ddrBytes = 0;
  int64_t gmemAlignment = 0;  ///< Activation / IO addresses.
  int64_t coeffAlignment = 0; ///< Weight addresses in the coefficient region.

  /// Bytes of one LMEM bank in one lane.
  int64_t bankBytes() const { return lmemBytesPerLane / lmemBanks; }
  /// GDMA bytes per TIU cycle.
  double gdmaBytesPerCycle() const { return gdmaBytesPerSecond / (frequencyMhz * 1e6); }
  /// The sustained fraction of peak conv throughput at `p` (1 when the profile has none).
  double convEfficiencyAt(Precision p) const {
    auto it = convEfficiency.find(p);
    return it == convEfficiency.end() ? 1.0 : it->second;
  }
  /// The sustained fraction of peak matmul throughput at `p` (1 when the profile has none).
  double matmulEfficiencyAt(Precision p) const {
    auto it = matmulEfficiency.find(p);
    return it == matmulEfficiency.end() ? 1.0 : it->second;
  }
  /// Peak MACs per cycle of the whole core at `p`.
  double peakMacsPerCycle(Precision p) const {
    return macsPerLanePerCycle.at(p) * static_cast<double>(lanes);
  }
};

/// Parses a profile from JSON text; `file` names it in errors.
ChipProfile parseChipProfile(const std::string &text, const std::string &file);

/// Reads a profile file.
ChipProfile loadChipProfile(const std::string &path);

/// The directories searched for `<name>.json`, in order: `extraDirs`, the
/// TPUC_CHIP_DIR environment variable, `<exe>/../share/tpu-studio/chips`
/// (install and build trees; no source path is compiled in).
std::vector<std::string> chipSearchDirs(const std::vector<std::string> &extraDirs = {});

/// Finds and loads the profile of chip `name` (case-insensitive). Throws a
/// ProfileError listing the known chips when there is none.
ChipProfile findChipProfile(const std::string &name, const std::vector<std::string> &extraDirs = {});

/// Names of every profile found in the search directories, sorted.
std::vector<std::string> knownChips(const std::vector<std::string> &extraDirs = {});

} // namespace tpuc::backend

#endif // TPUC_BACKEND_CHIPPROFILE_H
