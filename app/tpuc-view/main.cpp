// tpuc-view: `tpuc view groups|memory|timeline` — the studio's chip views rendered headless (SVG, PNG, CSV)
// with the same drawing code — and `tpuc view calibration`, the figures of a calibration report
// (CalibrationView.h). tpuc runs it for its `view` subcommand and for `calibrate --report`; it needs Qt
// (offscreen), tpuc does not.
#include "CalibrationView.h"

#include "tpuc/ChipData/Run.h"
#include "tpuc/Support/ArgParser.h"
#include "tpuc/Support/ParseOrExit.h"
#include "visualizer/ChipFigures.h"

#include <QGuiApplication>

#include <fstream>
#include <iostream>

using namespace tpuc;

namespace {

constexpr int kExitOk = 0, kExitFailed = 1, kExitUsage = 2;

struct ViewOptions {
  std::string kind, plan, trace, format = "svg", output, select, theme = "light";
  int64_t group = -1, from = 0, to = 0, width = 1600, height = 0, core = 0;
  bool noCritical = false;
};

void addViewOptions(ArgParser &p, ViewOptions &o) {
  p.addPositional(
      {{"view"},
       "VIEW",
       "which view: groups (layer groups), memory (DDR and LMEM), timeline (engines); calibration (a "
       "calibration report's figures: see 'tpuc view calibration --help')",
       true,
       {"groups", "memory", "timeline"}},
      &o.kind);
  p.addOption({{"--plan"}, "FILE", "the backend plan (<stem>_plan.json, written by tpuc deploy --model)"}, &o.plan);
  p.addOption({{"--trace"}, "FILE", "the engine trace (<stem>_trace.json, or tpuc run --profile)"}, &o.trace);
  p.addOption({{"--format"}, "FORMAT", "output format (csv: memory only)", false, {"svg", "png", "csv"}, "svg"}, &o.format);
  p.addOption({{"-o", "--output"}, "FILE", "output file", true}, &o.output);
  p.addOption({{"--group"}, "N", "groups: the layer group detailed (default: the one with the highest LMEM peak)"},
              &o.group);
  p.addOption({{"--from"}, "CYCLE", "memory/timeline: first cycle shown", false, {}, "0"}, &o.from);
  p.addOption({{"--to"}, "CYCLE", "memory/timeline: last cycle shown (default: the end of the run)"}, &o.to);
  p.addOption({{"--core"}, "K",
               "memory/timeline of a model compiled for several cores (--num_core): core K's engines and LMEM",
               false, {}, "0"},
              &o.core);
  p.addOption({{"--select"}, "OP", "highlight the op (tensor name) in the view"}, &o.select);
  p.addOption({{"--width"}, "PX", "page width", false, {}, "1600"}, &o.width);
  p.addOption({{"--height"}, "PX", "page height (default: 1000 groups, 900 memory, 560 timeline)"}, &o.height);
  p.addOption({{"--theme"}, "THEME", "colours", false, {"light", "dark"}, "light"}, &o.theme);
  p.addFlag({{"--no_critical_path"}, "", "timeline: do not mark the critical path"}, &o.noCritical);
}

std::string validate(const ViewOptions &o) {
  if (o.plan.empty() && o.trace.empty())
    return "give --plan, --trace or both";
  if (o.kind == "timeline" && o.trace.empty())
    return "the timeline needs --trace";
  if (o.kind != "timeline" && o.plan.empty())
    return "the " + o.kind + " view needs --plan";
  if (o.format == "csv" && o.kind != "memory")
    return "--format csv is for the memory view";
  if (o.width < 200 || (o.height != 0 && o.height < 150) || o.width > 20000 || o.height > 20000)
    return "--width and --height must be within 200..20000 and 150..20000";
  if (o.core < 0)
    return "--core must be 0 or more";
  if (o.from < 0 || (o.to != 0 && o.to <= o.from))
    return "--to must be after --from";
  return "";
}

} // namespace

int main(int argc, char **argv) {
  // A command-line renderer: no display needed.
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args.front() == "calibration")
    return view::runCalibrationView(argc, argv, args);
  ViewOptions o;
  ArgParser parser("tpuc view",
                        "Render the layer-group, memory or engine-timeline view of a deploy as SVG, PNG or CSV (the "
                        "studio's drawing code).");
  addViewOptions(parser, o);
  if (std::optional<int> exit = parseOrExit(parser, args, kExitUsage))
    return *exit;
  if (std::string e = validate(o); !e.empty()) {
    std::cerr << "tpuc view: " << e << " (see 'tpuc view --help')" << std::endl;
    return kExitUsage;
  }
  auto run = chip::ChipRun::load(o.plan, o.trace, static_cast<int>(o.core));
  if (!run) {
    std::cerr << "tpuc view: " << llvm::toString(run.takeError()) << std::endl;
    return kExitUsage;
  }
  if (o.format == "csv") {
    std::ofstream out(o.output, std::ios::binary);
    out << chip::memoryCsv(**run);
    if (!out) {
      std::cerr << "tpuc view: " << o.output << ": cannot write" << std::endl;
      return kExitUsage;
    }
    return kExitOk;
  }
  QGuiApplication app(argc, argv);
  vis::FigureOptions fo;
  const int64_t height = o.height ? o.height : o.kind == "groups" ? 1000 : o.kind == "memory" ? 900 : 560;
  fo.size = QSize(static_cast<int>(o.width), static_cast<int>(height));
  fo.dark = o.theme == "dark";
  fo.group = static_cast<int>(o.group);
  fo.t0 = o.from;
  fo.t1 = o.to;
  fo.selectedOp = QString::fromStdString(o.select);
  fo.showCritical = !o.noCritical;
  const vis::ChipFigure figure = o.kind == "groups" ? vis::ChipFigure::Groups
                                 : o.kind == "memory" ? vis::ChipFigure::Memory
                                                      : vis::ChipFigure::Timeline;
  if (const chip::Plan *p = (*run)->plan(); p && o.group >= static_cast<int64_t>(p->groups.size())) {
    std::cerr << "tpuc view: --group " << o.group << ": the plan has " << p->groups.size() << " groups" << std::endl;
    return kExitUsage;
  }
  QString error;
  if (!vis::renderFigure(*run, figure, fo, QString::fromStdString(o.format), QString::fromStdString(o.output), &error)) {
    std::cerr << "tpuc view: " << error.toStdString() << std::endl;
    return kExitFailed;
  }
  return kExitOk;
}
