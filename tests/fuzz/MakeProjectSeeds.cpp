// Seeds for project-fuzzer: .tpuproj files written by the project store itself, an empty project and one
// with every kind of row (datasets and samples, both tables, configurations with options JSON, runs with
// layer metrics and summaries, view state, notes).
#include "project/ProjectStore.h"

#include <cstdio>
#include <filesystem>

using namespace tpuc::project;

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make-project-seeds DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  Project empty;
  Project full;
  full.model.path = (dir / "net.onnx").string();
  full.model.format = "onnx";
  full.importSettings.inputShapes = "[[1,3,32,32]]";
  full.datasets.push_back({1, "photos", {{(dir / "a.png").string()}, {(dir / "b.jpg").string()}}});
  full.caliTables.push_back(
      {1, "net photos kl", 1, "2026-12-05T10:00:00Z", "seed", {{"conv1", 2.5, -1, 2.5}}});
  full.quantTables.push_back({1, "mixed", 1, "2026-12-05T10:00:00Z", "", {{"conv1", "F16"}}});
  full.compileConfigs.push_back(
      {1, "int8", "bm1684x", "INT8", R"({"test_input":"a.png","tolerance":"0.9,0.8"})"});
  tpuc::project::RunRecord run;
  run.id = 1;
  run.configName = "Deploy net INT8 bm1684x (int8)";
  run.started = "2026-12-05T10:00:00Z";
  run.finished = "2026-12-05T10:00:02Z";
  run.latencyMs = 0.5;
  run.layerMetricsJson = R"([{"name":"conv1","status":"SIMILAR","pass":true,"cosine":0.999}])";
  run.summaryJson = R"({"command":"deploy","exitCode":0,"simulatedLatencyMs":0.5})";
  full.runs.push_back(run);
  full.viewState["tabs"] = R"(["overview"])";
  full.notes = "seed project";
  for (const auto &[name, project] : {std::pair{"empty.tpuproj", &empty}, std::pair{"full.tpuproj", &full}}) {
    std::filesystem::remove(dir / name);
    if (auto saved = saveProject(*project, dir / name, SaveMode::Replace); !saved) {
      std::fprintf(stderr, "make-project-seeds: %s\n", saved.error().c_str());
      return 1;
    }
  }
  return 0;
}
