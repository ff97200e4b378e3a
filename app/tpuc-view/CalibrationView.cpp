// tpuc-view calibration: the PNG figures of a `tpuc calibrate --report` folder (overview, one figure per
// tensor, index.html) drawn by the studio's activation statistics charts, offscreen.
#include "CalibrationView.h"

#include "tpuc/Support/ArgParser.h"
#include "tpuc/Support/ParseOrExit.h"
#include "visualizer/CalibrationCharts.h"
#include "visualizer/ChipFigures.h"

#include <QApplication>

#include <iostream>

namespace tpuc::view {

namespace {

constexpr int kExitOk = 0, kExitFailed = 1, kExitUsage = 2;

struct CalibrationViewOptions {
  std::string kind, report, output, theme = "light";
  int64_t width = 1200, height = 900, maxTensors = 64;
};

} // namespace

int runCalibrationView(int argc, char **argv, const std::vector<std::string> &args) {
  CalibrationViewOptions o;
  ArgParser parser(
      "tpuc view calibration",
      "Draw a calibration report (tpuc calibrate --report DIR) as PNG figures: overview.png (whether the "
      "samples were enough, every tensor's threshold convergence), one figure per tensor (its |x| "
      "histogram with every method's threshold, its convergence) and index.html listing them.");
  parser.addPositional({{"view"}, "VIEW", "calibration", true, {"calibration"}}, &o.kind);
  parser.addOption({{"--report"}, "DIR", "the report folder (histograms.json, convergence.json)", true},
                   &o.report);
  parser.addOption({{"-o", "--output"}, "DIR", "where the figures go (default: the report folder)"},
                   &o.output);
  parser.addOption(
      {{"--max_tensors"},
       "N",
       "figures for at most N tensors: those that did not settle first (latest first), then graph order",
       false,
       {},
       "64"},
      &o.maxTensors);
  parser.addOption({{"--width"}, "PX", "figure width", false, {}, "1200"}, &o.width);
  parser.addOption({{"--height"}, "PX", "figure height", false, {}, "900"}, &o.height);
  parser.addOption({{"--theme"}, "THEME", "colours", false, {"light", "dark"}, "light"}, &o.theme);
  if (std::optional<int> exit = parseOrExit(parser, args, kExitUsage))
    return *exit;
  if (o.width < 400 || o.height < 300 || o.width > 8000 || o.height > 8000) {
    std::cerr << "tpuc view: --width and --height must be within 400..8000 and 300..8000" << std::endl;
    return kExitUsage;
  }
  if (o.maxTensors < 0) {
    std::cerr << "tpuc view: --max_tensors must be 0 or more" << std::endl;
    return kExitUsage;
  }
  Result<vis::CalibrationReport> report = vis::readCalibrationReport(QString::fromStdString(o.report));
  if (!report) {
    std::cerr << "tpuc view: " << report.error() << std::endl;
    return kExitUsage;
  }
  // Qt Charts draws with widgets: a QApplication, on the offscreen platform main() chose.
  QApplication app(argc, argv);
  const QString out = QString::fromStdString(o.output.empty() ? o.report : o.output);
  Result<QStringList> written =
      vis::writeCalibrationFigures(*report, out, QSize(static_cast<int>(o.width), static_cast<int>(o.height)),
                                   vis::figurePalette(o.theme == "dark"), static_cast<int>(o.maxTensors));
  if (!written) {
    std::cerr << "tpuc view: " << written.error() << std::endl;
    return kExitFailed;
  }
  const qsizetype figures = written->size() - 2; // overview.png and index.html
  std::cout << "tpuc view: " << figures << " tensor figure(s) of " << report->tensors.size()
            << " tensors, overview.png and index.html written to " << out.toStdString() << std::endl;
  return kExitOk;
}

} // namespace tpuc::view
