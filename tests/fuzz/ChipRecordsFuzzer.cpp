//===- ChipRecordsFuzzer.cpp - libFuzzer targets for the plan and trace readers ===//
//
// Built twice: TPUC_FUZZ_PLAN reads the input as a backend plan, otherwise as an engine trace, both as
// a document in memory and streamed from a file; when both readings succeed they must agree. Whatever
// is accepted goes through every analysis the views run (LOD, idle attribution, critical path,
// occupancy, planned vs simulated LMEM, the memory CSV). Any input must give an llvm::Error or pass;
// a crash, a hang or an ASan/UBSan report is a bug.
//
//===----------------------------------------------------------------------===//

#include "tpuc/ChipData/Run.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>

using namespace tpuc::chip;

namespace {

void exercise(const std::shared_ptr<const ChipRun> &run) {
  (void)memoryCsv(*run);
  if (const Trace *t = run->trace())
    for (int e = 0; e < kEngines; ++e) {
      const Engine engine = static_cast<Engine>(e);
      int64_t total = 0;
      for (const LodColumn &c : aggregateColumns(t->of(engine), run->busy(engine), 0, t->totalCycles + 1, 97))
        total += c.busy;
      if (total != run->busy(engine).busy(0, t->totalCycles + 1))
        __builtin_trap(); // the columns tile the range
      (void)run->commandsOf(engine, 0);
    }
  if (const Plan *p = run->plan())
    for (const Group &g : p->groups)
      (void)lmemUnitOccupancy(g);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
#ifdef TPUC_FUZZ_PLAN
  auto plan = parsePlan(text, "fuzz_plan.json");
  if (!plan) {
    llvm::consumeError(plan.takeError());
    return 0;
  }
  exercise(ChipRun::make(std::move(*plan), std::nullopt));
#else
  auto whole = parseTrace(text, "fuzz_trace.json");
  // The streamed reader, through a file as the studio reads it.
  static const std::string path = "/tmp/chip-trace-fuzz-" + std::to_string(::getpid()) + ".json";
  if (std::FILE *f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  auto streamed = readTraceFile(path);
  if (whole && streamed) {
    if (whole->commandCount() != streamed->commandCount() || whole->totalCycles != streamed->totalCycles)
      __builtin_trap(); // one document, two readers, two answers
    for (int e = 0; e < kEngines; ++e)
      for (size_t i = 0; i < whole->commands[e].size(); ++i)
        if (whole->commands[e][i].start != streamed->commands[e][i].start ||
            whole->commands[e][i].end != streamed->commands[e][i].end)
          __builtin_trap();
  }
  if (!streamed)
    llvm::consumeError(streamed.takeError());
  if (!whole) {
    llvm::consumeError(whole.takeError());
    return 0;
  }
  exercise(ChipRun::make(std::nullopt, std::move(*whole)));
#endif
  return 0;
}
