//===- ChipViewsBench.cpp - Chip views at scale: ready time, redraw, memory ===//
//
// A generated plan of 1,000 layer groups with a trace of 1,000,000 commands (tests/common/ChipDataGen),
// and the plan and trace of any deploy given with --plan/--trace (e.g. a transformer): the time until the
// layer-group, memory and engine-timeline views are ready (records read and analysed, first paint of
// each view), the engine timeline's redraw at zooms from the whole run to a few commands and while panning,
// and the process's peak RSS. Offscreen Qt. Goals (issue 16): ready <= 1 s, redraw <= 30 ms, <= 300 MB.
//
//===----------------------------------------------------------------------===//

#include "tpuc/ChipData/Run.h"
#include "tpuc/ChipDataGen.h"
#include "tpuc/Testing/PeakRss.h"
#include "visualizer/EngineTimeline.h"
#include "visualizer/LayerGroupView.h"
#include "visualizer/MemoryTimeline.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace tpuc;

namespace {

long peakRssMb() { return testsupport::peakRssKb() / 1024; }

double ms(const QElapsedTimer &t) { return static_cast<double>(t.nsecsElapsed()) / 1e6; }

struct Figures {
  double loadMs = 0, groupsMs = 0, memoryMs = 0, timelineMs = 0;
  std::vector<std::pair<QString, double>> redraws;
  long rssAfterLoad = 0, rssAfterViews = 0;
  size_t groups = 0, commands = 0;
};

Figures measure(const QString &plan, const QString &trace) {
  Figures f;
  QElapsedTimer t;
  t.start();
  auto loaded = chip::ChipRun::load(plan.toStdString(), trace.toStdString());
  if (!loaded) {
    std::fprintf(stderr, "bench-chipviews: %s\n", llvm::toString(loaded.takeError()).c_str());
    std::exit(2);
  }
  std::shared_ptr<const chip::ChipRun> run = *loaded;
  f.loadMs = ms(t);
  f.rssAfterLoad = peakRssMb();
  f.groups = run->plan() ? run->plan()->groups.size() : 0;
  f.commands = run->trace() ? run->trace()->commandCount() : 0;
  // Each view: set the run and paint it once at a typical tab size.
  auto first = [&](QWidget &w, auto set) {
    w.resize(1400, 800);
    QElapsedTimer v;
    v.start();
    set();
    w.grab();
    return ms(v);
  };
  vis::LayerGroupView groups;
  f.groupsMs = first(groups, [&] { groups.setRun(run); });
  vis::MemoryTimeline memory;
  f.memoryMs = first(memory, [&] { memory.setRun(run); });
  if (qEnvironmentVariableIsSet("TPUC_BENCH_DETAIL")) {
    vis::DdrChartWidget ddr;
    vis::LmemTimeWidget lmem;
    std::printf("  (ddr chart %.1f ms, lmem chart %.1f ms)\n", first(ddr, [&] { ddr.setRun(run); }),
                first(lmem, [&] { lmem.setRun(run); }));
  }
  vis::EngineTimeline timeline;
  f.timelineMs = first(timeline, [&] { timeline.setRun(run); });
  f.rssAfterViews = peakRssMb();
  if (!run->trace())
    return f;
  // Redraws of the timeline canvas at several zooms (the canvas times its own paint), then pans.
  const int64_t total = run->trace()->totalCycles;
  vis::TimelineCanvas *canvas = timeline.canvas();
  auto redraw = [&](const QString &what, int64_t t0, int64_t t1) {
    canvas->setWindow(t0, t1);
    double best = 1e9, worst = 0;
    for (int i = 0; i < 5; ++i) {
      canvas->grab();
      best = std::min(best, canvas->lastPaintMs());
      worst = std::max(worst, canvas->lastPaintMs());
    }
    f.redraws.push_back({what, worst});
  };
  redraw(QStringLiteral("whole run"), 0, total);
  for (double share : {0.1, 0.01, 0.001, 0.00001}) {
    int64_t span = std::max<int64_t>(50, static_cast<int64_t>(total * share));
    redraw(QStringLiteral("%1 % of the run").arg(share * 100), total / 3, total / 3 + span);
  }
  // Panning across the run at 1 %: 20 steps, the slowest frame.
  int64_t span = std::max<int64_t>(50, total / 100);
  double worst = 0;
  for (int i = 0; i < 20; ++i) {
    int64_t t0 = (total - span) * i / 19;
    canvas->setWindow(t0, t0 + span);
    canvas->grab();
    worst = std::max(worst, canvas->lastPaintMs());
  }
  f.redraws.push_back({QStringLiteral("panning at 1 % (slowest of 20)"), worst});
  return f;
}

void print(const char *title, const Figures &f) {
  std::printf("\n%s: %zu groups, %zu commands\n", title, f.groups, f.commands);
  std::printf("  records read + analysed      %8.1f ms\n", f.loadMs);
  std::printf("  layer-group view first paint %8.1f ms\n", f.groupsMs);
  std::printf("  memory view first paint      %8.1f ms\n", f.memoryMs);
  std::printf("  engine timeline first paint  %8.1f ms\n", f.timelineMs);
  std::printf("  ready (all three)            %8.1f ms   (goal <= 1000)\n", f.loadMs + f.groupsMs + f.memoryMs + f.timelineMs);
  for (const auto &[what, t] : f.redraws)
    std::printf("  redraw, %-28s %6.1f ms   (goal <= 30)\n", qPrintable(what), t);
  std::printf("  peak RSS after reading %ld MB, with the views %ld MB   (goal <= 300)\n", f.rssAfterLoad, f.rssAfterViews);
}

} // namespace

int main(int argc, char **argv) {
  QString dir = QDir::tempPath() + QStringLiteral("/tpuc-bench-chipviews"), plan, trace;
  bench::GenSizes sizes;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? QString::fromLocal8Bit(argv[++i]) : QString(); };
    if (a == "--dir")
      dir = next();
    else if (a == "--groups")
      sizes.groups = next().toInt();
    else if (a == "--commands")
      sizes.commands = next().toLongLong();
    else if (a == "--plan")
      plan = next();
    else if (a == "--trace")
      trace = next();
    else {
      std::fprintf(stderr, "usage: bench-chipviews [--groups N] [--commands N] [--dir DIR] [--plan P --trace T]\n");
      return 2;
    }
  }
  const bool generated = plan.isEmpty() && trace.isEmpty();
  if (generated) {
    // Generated in a child process, so this process's peak RSS is the views' alone.
    QDir().mkpath(dir);
    plan = dir + QStringLiteral("/gen_plan.json");
    trace = dir + QStringLiteral("/gen_trace.json");
    pid_t child = fork();
    if (child == 0) {
      int64_t n = bench::writeSyntheticRun(dir.toStdString(), sizes);
      std::printf("generated %lld commands in %s (%lld MB of trace)\n", static_cast<long long>(n), qPrintable(dir),
                  static_cast<long long>(QFileInfo(trace).size() >> 20));
      std::fflush(stdout);
      _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      return 1;
  }
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  Figures f = measure(plan, trace);
  print(generated ? "generated" : qPrintable(QFileInfo(plan.isEmpty() ? trace : plan).fileName()), f);
  return 0;
}
