//===- RunsCommand.cpp - tpuc runs diff: two run manifests side by side ----===//
//
// Reads two run manifests (tpuc/Driver/Manifest.h), names what differs between them and, when both runs
// compared every layer (deploy --compare_all), puts their per-layer cosines side by side, and when both
// have an engine trace (deploy --model), their simulated latency and per-op TIU cycles. Differences are
// what it reports, not failures: exit 0 when both manifests were read, 2 when one cannot be.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "tpuc/ChipData/Trace.h"
#include "tpuc/Driver/Manifest.h"

#include "llvm/Support/Error.h"

#include <filesystem>

#include <fstream>
#include <iostream>
#include <sstream>

namespace tpuc::cli {

namespace {

/// The manifest at `path`, or the one-line error naming it.
driver::ReadResult<driver::RunManifest> readManifest(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return {{}, path + ": cannot read"};
  std::stringstream text;
  text << in.rdbuf();
  driver::ReadResult<driver::RunManifest> manifest = driver::parseManifest(text.str());
  if (!manifest)
    manifest.error = path + ": " + manifest.error;
  return manifest;
}

/// The simulated time of a run: its manifest's engine trace (beside it), header and op table only.
driver::ReadResult<driver::RunCycles> readRunCycles(const driver::RunManifest &m,
                                                    const std::string &manifestPath) {
  if (m.trace.empty())
    return {{}, "the run wrote no engine trace (deploy --model writes one)"};
  driver::RunCycles cycles;
  cycles.file = (std::filesystem::path(manifestPath).parent_path() / m.trace).string();
  auto trace = chip::readTraceSummary(cycles.file);
  if (!trace)
    return {{}, cycles.file + ": " + llvm::toString(trace.takeError())};
  cycles.totalCycles = trace->totalCycles;
  cycles.latencyMs = trace->cyclesToUs(trace->totalCycles) / 1000.0;
  for (const chip::TraceOp &op : trace->ops)
    if (!op.name.empty() && op.tiuCycles > 0)
      cycles.ops.emplace_back(op.name, op.tiuCycles);
  return {cycles, ""};
}

} // namespace

int runRuns(const RunsOptions &o) {
  driver::ReadResult<driver::RunManifest> a = readManifest(o.a), b = readManifest(o.b);
  for (const auto *m : {&a, &b})
    if (!*m) {
      std::cerr << "tpuc runs: " << m->error << std::endl;
      return kExitUsage;
    }
  driver::RunsDiff diff;
  diff.a = o.a;
  diff.b = o.b;
  diff.differences = driver::diffManifests(a.result, b.result);
  driver::ReadResult<driver::LayerCosines> layersA = driver::readLayerCosines(a.result, o.a),
                                           layersB = driver::readLayerCosines(b.result, o.b);
  std::string note;
  if (layersA && layersB) {
    diff.layersA = layersA.result.file;
    diff.layersB = layersB.result.file;
    diff.layers = driver::diffRunLayers(layersA.result, layersB.result);
  } else {
    note = "no layers side by side: " + (layersA ? layersB.error : layersA.error) + "\n";
  }
  driver::ReadResult<driver::RunCycles> cyclesA = readRunCycles(a.result, o.a),
                                        cyclesB = readRunCycles(b.result, o.b);
  for (auto [cycles, latency] : {std::pair{&cyclesA, &diff.latencyA}, std::pair{&cyclesB, &diff.latencyB}})
    if (*cycles)
      *latency =
          driver::RunLatency{cycles->result.file, cycles->result.latencyMs, cycles->result.totalCycles};
  if (cyclesA || cyclesB)
    driver::addRunCycles(diff.layers, cyclesA ? &cyclesA.result : nullptr,
                         cyclesB ? &cyclesB.result : nullptr);
  if (!cyclesA || !cyclesB)
    note += "no cycles side by side: " + (cyclesA ? cyclesB.error : cyclesA.error) + "\n";
  std::string report = o.format == "json" ? driver::toJson(diff) : driver::formatRunsDiff(diff) + note;
  if (o.output.empty()) {
    std::cout << report << std::flush;
    return kExitOk;
  }
  std::ofstream out(o.output, std::ios::binary | std::ios::trunc);
  if (!(out << report) || !out.flush()) {
    std::cerr << "tpuc runs: " << o.output << ": cannot write" << std::endl;
    return kExitUsage;
  }
  std::cout << diff.differences.size() << " difference(s), " << diff.layers.size()
            << " layer(s) (report: " << o.output << ")" << std::endl;
  return kExitOk;
}

} // namespace tpuc::cli
