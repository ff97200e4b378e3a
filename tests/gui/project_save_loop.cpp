// Test helper: saves a project in place over and over, printing "saved N" after each committed save,
// so a test can SIGKILL it at a random moment and check the file it leaves behind.
#include "project/ProjectStore.h"

#include <cstdio>
#include <string>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: project_save_loop FILE.tpuproj\n");
    return 2;
  }
  using namespace tpuc::project;
  Project project;
  if (auto loaded = loadProject(argv[1]))
    project = std::move(*loaded);
  // Enough rows that a save takes a while, so kills land inside transactions too.
  if (project.datasets.empty()) {
    Dataset d{1, "images", {}};
    for (int i = 0; i < 400; ++i)
      d.samples.push_back({"/data/img" + std::to_string(i) + ".jpg", "{\"label\":" + std::to_string(i % 10) + "}",
                           std::vector<std::uint8_t>(512, static_cast<std::uint8_t>(i))});
    project.datasets.push_back(std::move(d));
  }
  for (;;) {
    // Invariant checked by the test: notes == "round N" and there are exactly N runs after N rounds
    // of this process's history, whatever the moment of the kill.
    RunRecord run;
    run.id = static_cast<std::int64_t>(project.runs.size()) + 1;
    run.configName = "loop";
    run.latencyMs = static_cast<double>(run.id);
    project.runs.push_back(run);
    project.notes = "round " + std::to_string(project.runs.size());
    if (tpuc::Result<void> saved = saveProject(project, argv[1], SaveMode::InPlace); !saved) {
      std::fprintf(stderr, "%s\n", saved.error().c_str());
      return 1;
    }
    std::printf("saved %zu\n", project.runs.size());
    std::fflush(stdout);
  }
}
