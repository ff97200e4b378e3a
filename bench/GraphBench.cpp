//===- GraphBench.cpp - Graph view: first view time and memory at scale ---===//
//
// For generated CNN-shaped graphs (default 1k, 10k, 50k ops) and a Qwen2-0.5B-shaped Top IR (24 decoder
// layers, prefill and decode stages): the time to get the plain-data graph (generation, or MLIR parse +
// extraction), then the first view — dot layout of the collapsed top level on the view's worker thread,
// applied, and the first paint of an 1280×800 view — plus opening one cluster, one repeated block (a
// cache hit) and the process's peak RSS. Offscreen Qt; goals: first view ≤ 2 s at 10k, ≤ 10 s at 50k.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Graph/GraphExtract.h"
#include "tpuc/GraphData/GraphSynthetic.h"
#include "tpuc/Testing/PeakRss.h"
#include "visualizer/GraphView.h"

#include "mlir/Parser/Parser.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

using namespace tpuc;
using tpuc::testsupport::peakRssKb;

namespace {


struct Figures {
  double graphMs = 0, firstViewMs = 0, layoutMs = 0, paintMs = 0, expandMs = 0, repeatMs = 0;
  size_t ops = 0, shown = 0;
  size_t dotRuns = 0, cacheHits = 0;
};

Figures measureView(std::shared_ptr<const graph::Graph> g, double graphMs) {
  Figures f;
  f.graphMs = graphMs;
  f.ops = g->visibleNodeCount();
  vis::GraphView view;
  view.resize(1280, 800);
  QElapsedTimer timer;
  timer.start();
  view.setGraph(g);
  view.waitForLayout(600000);
  f.layoutMs = static_cast<double>(view.lastLayoutMs());
  QElapsedTimer paint;
  paint.start();

  (void)view.grab();
  f.paintMs = static_cast<double>(paint.elapsed());
  f.firstViewMs = static_cast<double>(timer.elapsed());
  f.shown = view.layoutScene().items.size();
  // Open the largest cluster of the top level, then a second one with the same structure if any.
  std::vector<graph::Graph::LevelItem> items = g->levelItems(graph::kRootCluster);
  graph::ClusterId first = graph::kRootCluster, twin = graph::kRootCluster;
  for (const auto &item : items)
    if (item.isCluster && (first == graph::kRootCluster ||
                           g->clusters[item.ref].totalNodes > g->clusters[first].totalNodes))
      first = item.ref;
  if (first != graph::kRootCluster) {
    for (const auto &item : items)
      if (item.isCluster && item.ref != first && g->clusters[item.ref].signature == g->clusters[first].signature)
        twin = item.ref;
    timer.restart();
    view.setExpanded(first, true);
    view.waitForLayout(600000);
    (void)view.grab();
    f.expandMs = static_cast<double>(timer.elapsed());
    if (twin != graph::kRootCluster) {
      timer.restart();
      view.setExpanded(twin, true);
      view.waitForLayout(600000);
      (void)view.grab();
      f.repeatMs = static_cast<double>(timer.elapsed());
    }
  }
  f.dotRuns = view.layoutStats().dotRuns;
  f.cacheHits = view.layoutStats().cacheHits;
  return f;
}

void print(const std::string &name, const Figures &f) {
  std::printf("%-26s %7zu %9.0f %10.0f %9.0f %8.0f %7zu %9.0f %9.0f %5zu/%-5zu %8ld\n", name.c_str(), f.ops, f.graphMs,
              f.firstViewMs, f.layoutMs, f.paintMs, f.shown, f.expandMs, f.repeatMs, f.dotRuns, f.cacheHits,
              peakRssKb() / 1024);
  std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  std::vector<size_t> sizes{1000, 10000, 50000};
  int qwenLayers = 24;
  std::vector<size_t> irOps{10000, 50000};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--sizes" && i + 1 < argc) {
      sizes.clear();
      std::string list = argv[++i];
      for (size_t pos = 0; pos < list.size();) {
        size_t comma = list.find(',', pos);
        sizes.push_back(std::stoul(list.substr(pos, comma - pos)));
        pos = comma == std::string::npos ? list.size() : comma + 1;
      }
    } else if (arg == "--ir-ops" && i + 1 < argc) {
      irOps.clear();
      std::string list = argv[++i];
      for (size_t pos = 0; pos < list.size();) {
        size_t comma = list.find(',', pos);
        irOps.push_back(std::stoul(list.substr(pos, comma - pos)));
        pos = comma == std::string::npos ? list.size() : comma + 1;
      }
    } else if (arg == "--qwen-layers" && i + 1 < argc) {
      qwenLayers = std::stoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: bench-graph [--sizes 1000,10000,50000] [--ir-ops 10000,50000] [--qwen-layers 24]\n");
      return 2;
    }
  }
  std::printf("%-26s %7s %9s %10s %9s %8s %7s %9s %9s %11s %8s\n", "graph", "ops", "graph ms", "1st view", "layout",
              "paint", "shown", "open ms", "twin ms", "dot/cached", "peak MB");
  for (size_t n : sizes) {
    QElapsedTimer t;
    t.start();
    auto g = std::make_shared<const graph::Graph>(graph::syntheticGraph(n));
    print("generated " + std::to_string(n), measureView(g, static_cast<double>(t.elapsed())));
  }
  // The studio's whole road at scale: MLIR text → parse → extract → JSON (what `tpuc graph --format json`
  // writes) → JSON read back (what the studio does) → first view. Decoders deep enough for ~10k / ~50k ops.
  for (size_t ops : irOps) {
    graph::TransformerShape shape;
    shape.layers = static_cast<int>(std::max<size_t>(1, ops / 20));
    shape.seqLength = 1;
    std::string ir = graph::transformerTopIR(shape);
    QElapsedTimer t, stage;
    t.start();
    stage.start();
    auto context = graph::makeGraphContext();
    auto module = mlir::parseSourceString<mlir::ModuleOp>(ir, context.get());
    if (!module) {
      std::fprintf(stderr, "bench-graph: the generated decoder IR does not parse\n");
      return 1;
    }
    qint64 parseMs = stage.restart();
    graph::Graph extracted = graph::extractGraph(*module);
    qint64 extractMs = stage.restart();
    std::string json = graph::toJson(extracted);
    qint64 writeMs = stage.restart();
    module = {};
    Result<graph::Graph> parsed = graph::fromJson(json);
    if (!parsed) {
      std::fprintf(stderr, "bench-graph: %s\n", parsed.error().c_str());
      return 1;
    }
    auto g = std::make_shared<graph::Graph>(std::move(*parsed));
    qint64 readMs = stage.restart();
    print("IR→JSON→view " + std::to_string(shape.layers) + " layers", measureView(g, static_cast<double>(t.elapsed())));
    std::printf("    (parse %lld ms, extract %lld ms, JSON write %lld ms, read %lld ms, %zu MB of JSON)\n",
                static_cast<long long>(parseMs), static_cast<long long>(extractMs), static_cast<long long>(writeMs),
                static_cast<long long>(readMs), json.size() >> 20);
  }
  if (qwenLayers > 0) {
    for (int seq : {512, 1}) {
      graph::TransformerShape shape;
      shape.layers = qwenLayers;
      shape.seqLength = seq;
      std::string ir = graph::transformerTopIR(shape);
      QElapsedTimer t;
      t.start();
      auto context = graph::makeGraphContext();
      auto module = mlir::parseSourceString<mlir::ModuleOp>(ir, context.get());
      if (!module) {
        std::fprintf(stderr, "bench-graph: the generated Qwen2-shaped IR does not parse\n");
        return 1;
      }
      auto g = std::make_shared<const graph::Graph>(graph::extractGraph(*module));
      std::string name = "qwen2-0.5b " + std::string(seq == 1 ? "decode" : "prefill") + " (" +
                         std::to_string(qwenLayers) + " layers)";
      print(name, measureView(g, static_cast<double>(t.elapsed())));
    }
  }
  return 0;
}
