//===- ProjectBench.cpp - A large project: open and save times -----------===//
//
// Issue 25's load goal: a project with 10,000 runs and 100,000 samples opens in ≤ 2 s and saves in ≤ 1 s.
// Builds such a project (runs with the per-layer metrics and summaries a resnet-sized deploy stores, samples
// with metadata and a small thumbnail each, in 10 datasets), writes it, then measures (median of --repeat):
//   store load     project::loadProject (what every open does first)
//   studio open    MainWindow::startup on the file, offscreen: the store, the context and every view the
//                  window builds for it, until the event loop is idle again
//   save           StudioContext::save after one edit (the in-place transaction Ctrl+S runs)
// and the file size and peak RSS. The goals are printed, not enforced (the machine may be loaded).
//
//   bench-project [--runs N] [--samples N] [--layers N] [--repeat N] [--dir DIR]
//
//===----------------------------------------------------------------------===//

#include "project/ProjectStore.h"
#include "ui/Autosave.h"
#include "ui/MainWindow.h"
#include "ui/StudioContext.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

using namespace tpuc;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::string layerMetrics(int layers, int seed) {
  std::string json = "[";
  for (int i = 0; i < layers; ++i) {
    char row[320];
    std::snprintf(row, sizeof row,
                  "%s{\"name\":\"/layer%d/conv/Conv_output_0\",\"status\":\"SIMILAR\",\"pass\":true,"
                  "\"cosine\":0.99%04d,\"euclidean\":0.9%03d,\"sqnr\":%d.5,\"maxAbsDiff\":0.0%03d,"
                  "\"isolated\":{\"cosine\":0.999%03d,\"euclidean\":0.95,\"sqnr\":30.1}}",
                  i ? "," : "", i, (seed + i) % 10000, (seed * 7 + i) % 1000, 20 + i % 20, i % 1000,
                  i % 1000);
    json += row;
  }
  return json + "]";
}

project::Project makeProject(int runs, int samples, int layers, const std::filesystem::path &dir) {
  project::Project p;
  p.model.path = (dir / "resnet.onnx").string();
  p.model.format = "onnx";
  p.importSettings.inputShapes = "[[1,3,224,224]]";
  const std::vector<std::uint8_t> thumbnail(1500, 0x5a); // about what a 96-px JPEG-like PNG weighs
  for (int d = 0; d < 10; ++d) {
    project::Dataset dataset{d + 1, "dataset " + std::to_string(d), {}};
    for (int i = d; i < samples; i += 10)
      dataset.samples.push_back(
          {(dir / ("images/" + std::to_string(i) + ".jpg")).string(),
           "{\"width\":640,\"height\":480,\"label\":\"class" + std::to_string(i % 100) + "\"}", thumbnail});
    p.datasets.push_back(std::move(dataset));
  }
  p.compileConfigs.push_back({1, "bm1684x-int8", "bm1684x", "INT8", "{}"});
  const std::string metrics = layerMetrics(layers, 1);
  for (int i = 0; i < runs; ++i) {
    project::RunRecord run;
    run.id = i + 1;
    run.configName = "Deploy resnet INT8 bm1684x (bm1684x-int8)";
    run.started = "2026-12-05T10:00:00Z";
    run.finished = "2026-12-05T10:00:05Z";
    run.latencyMs = 0.5 + i * 1e-6;
    run.layerMetricsJson = i % 10 == 0 ? layerMetrics(layers, i) : metrics; // not all identical
    run.summaryJson =
        "{\"command\":\"deploy\",\"exitCode\":0,\"simulatedLatencyMs\":0.5,\"run\":" + std::to_string(i) +
        "}";
    p.runs.push_back(std::move(run));
  }
  return p;
}

long peakRssMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;
}

} // namespace

int main(int argc, char **argv) {
  int runs = 10000, samples = 100000, layers = 60, repeat = 3;
  std::string dirArg;
  for (int i = 1; i < argc; ++i) {
    auto value = [&](const char *flag) -> const char * {
      if (std::strcmp(argv[i], flag) != 0 || i + 1 >= argc)
        return nullptr;
      return argv[++i];
    };
    if (const char *v = value("--runs"))
      runs = std::atoi(v);
    else if (const char *v = value("--samples"))
      samples = std::atoi(v);
    else if (const char *v = value("--layers"))
      layers = std::atoi(v);
    else if (const char *v = value("--repeat"))
      repeat = std::max(1, std::atoi(v));
    else if (const char *v = value("--dir"))
      dirArg = v;
    else {
      std::fprintf(stderr,
                   "usage: bench-project [--runs N] [--samples N] [--layers N] [--repeat N] [--dir DIR]\n");
      return 2;
    }
  }
  QApplication app(argc, argv);
  QTemporaryDir temp;
  const std::filesystem::path dir = dirArg.empty() ? temp.path().toStdString() : dirArg;
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = dir / "large.tpuproj";
  std::filesystem::remove(file);

  QElapsedTimer clock;
  clock.start();
  project::Project p = makeProject(runs, samples, layers, dir);
  const double built = clock.elapsed() / 1000.0;
  clock.restart();
  if (auto saved = project::saveProject(p, file, project::SaveMode::Replace); !saved) {
    std::fprintf(stderr, "bench-project: %s\n", saved.error().c_str());
    return 1;
  }
  const double firstWrite = clock.elapsed() / 1000.0;

  std::vector<double> load, open, save, autosave;
  for (int r = 0; r < repeat; ++r) {
    clock.restart();
    auto loaded = project::loadProject(file);
    load.push_back(clock.elapsed() / 1000.0);
    if (!loaded || loaded->runs.size() != p.runs.size()) {
      std::fprintf(stderr, "bench-project: %s\n", loaded ? "runs lost" : loaded.error().c_str());
      return 1;
    }
    ui::StudioContext context;
    ui::MainWindow window(&context);
    window.setInteractive(false);
    window.resize(1400, 900);
    window.show();
    clock.restart();
    if (!window.startup(QString::fromStdString(file.string())))
      return 1;
    QApplication::processEvents();
    open.push_back(clock.elapsed() / 1000.0);
    context.setNotes(QStringLiteral("edit %1").arg(r));
    clock.restart();
    QString error;
    if (!context.save(&error)) {
      std::fprintf(stderr, "bench-project: %s\n", qPrintable(error));
      return 1;
    }
    save.push_back(clock.elapsed() / 1000.0);
    // Autosave: the first snapshot writes the whole file, each later one what changed since.
    ui::AutosaveController autosaver(&context);
    for (int edit = 0; edit < 2; ++edit) {
      context.setNotes(QStringLiteral("autosaved edit %1.%2").arg(r).arg(edit));
      clock.restart();
      if (!autosaver.autosaveNow()) {
        std::fprintf(stderr, "bench-project: autosave failed\n");
        return 1;
      }
      if (edit == 1)
        autosave.push_back(clock.elapsed() / 1000.0);
    }
    autosaver.discard();
  }
  std::printf("project: %d runs (%d layers of metrics each), %d samples in 10 datasets, %.1f MB on disk\n",
              runs, layers, samples, std::filesystem::file_size(file) / 1e6);
  std::printf("built in memory %.2f s, first write %.2f s\n", built, firstWrite);
  std::printf("%-14s %8s %8s\n", "", "median", "goal");
  std::printf("%-14s %7.3fs %8s\n", "store load", median(load), "");
  std::printf("%-14s %7.3fs %8s\n", "studio open", median(open), "<= 2 s");
  std::printf("%-14s %7.3fs %8s\n", "save", median(save), "<= 1 s");
  std::printf("%-14s %7.3fs %8s\n", "autosave", median(autosave), "");
  std::printf("peak RSS %ld MB\n", peakRssMb());
  return 0;
}
