//===- RunsCommand.cpp - tpuc runs diff: two run manifests side by side ----===//
//
// Reads two run manifests (tpuc/Driver/Manifest.h), names what differs between them and, when both runs
// compared every layer (deploy --compare_all), puts their per-layer cosines side by side. Differences are
// what it reports, not failures: exit 0 when both manifests were read, 2 when one cannot be.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "tpuc/Driver/Manifest.h"

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
