// Synthetic plans and traces at any size (version 2 layouts), for the chip-view benchmark and tests: groups
// of conv-like ops sliced over H, pipelined stages, LMEM rectangles, and per stage GDMA loads / TIU
// computes / GDMA stores with the codegen's dependency pattern.
#ifndef TPUC_TESTS_CHIPDATAGEN_H
#define TPUC_TESTS_CHIPDATAGEN_H

#include <cstdint>
#include <string>

namespace tpuc::bench {

struct GenSizes {
  int groups = 1000;
  int64_t commands = 1000000; ///< Trace commands (about; a whole number of stages is emitted).
  int opsPerGroup = 5;
  int slices = 4;
};

/// Writes `<dir>/gen_plan.json` and `<dir>/gen_trace.json`; returns the number of commands written.
int64_t writeSyntheticRun(const std::string &dir, const GenSizes &sizes);

} // namespace tpuc::bench

#endif
