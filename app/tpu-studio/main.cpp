// tpu-studio: the desktop studio. Opens an optional project or model (or --example); --screenshot renders a
// PNG of it.
#include "ui/AboutDialog.h"
#include "ui/Autosave.h"
#include "ui/ExampleProject.h"
#include "ui/MainWindow.h"
#include "ui/PipelineDialog.h"
#include "ui/PipelineRunner.h"
#include "ui/SingleInstance.h"
#include "ui/StudioContext.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QPointer>
#include <QPushButton>
#include <QStandardPaths>
#include <QTimer>

#include <cstdio>

int main(int argc, char **argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("TPU Studio"));
  QApplication::setApplicationName(QStringLiteral("tpu-studio"));
  QApplication::setApplicationDisplayName(QStringLiteral("TPU Studio"));
  QApplication::setApplicationVersion(tpuc::ui::studioVersion());

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("TPU Studio: compile and simulate neural networks for "
                                                  "TPU-style accelerators."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("file"),
                               QStringLiteral("A .tpuproj project to open, or a model (.onnx, .mlir, a "
                                              "HuggingFace folder) to import into a new project."),
                               QStringLiteral("[file]"));
  QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                QStringLiteral("Render the main window to a PNG file and exit (works with "
                                               "QT_QPA_PLATFORM=offscreen). Uses default settings."),
                                QStringLiteral("file"));
  QCommandLineOption example(QStringLiteral("example"),
                             QStringLiteral("Open the example project (the PP-OCR text-direction classifier); an "
                                            "installed one is copied to the user's data folder the first time."));
  QCommandLineOption newInstance(
      QStringLiteral("new-instance"),
      QStringLiteral("Start a studio of its own even when one runs already (by "
                     "default the running studio opens the file and this one exits)."));
  QCommandLineOption screenshotSize(
      QStringLiteral("screenshot-size"),
      QStringLiteral("The window's size for --screenshot, WIDTHxHEIGHT in pixels "
                     "(default: from the font)."),
      QStringLiteral("size"));
  QCommandLineOption runPipeline(
      QStringLiteral("run-pipeline"),
      QStringLiteral(
          "Once the project is open, run the whole pipeline (transform, calibrate, deploy, simulator) "
          "of its compile configuration NAME (\"-\": the first), as Run > Run Whole Pipeline does. "
          "With --screenshot the picture shows the run's accuracy and the exit code says whether "
          "the pipeline succeeded."),
      QStringLiteral("configuration"));
  parser.addOptions({screenshot, screenshotSize, example, runPipeline, newInstance});
  parser.process(app);
  const qsizetype maxFiles = parser.isSet(example) ? 0 : 1;
  if (parser.positionalArguments().size() > maxFiles) {
    std::fprintf(stderr, "tpu-studio: expected at most %lld file(s), got %lld\n", static_cast<long long>(maxFiles),
                 static_cast<long long>(parser.positionalArguments().size()));
    return 2;
  }
  QString project = parser.positionalArguments().value(0);
  const QString screenshotFile = parser.value(screenshot);
  QSize pictureSize;
  if (parser.isSet(screenshotSize)) {
    const QStringList parts = parser.value(screenshotSize).split(QLatin1Char('x'));
    bool okWidth = false, okHeight = false;
    if (parts.size() == 2)
      pictureSize = QSize(parts[0].toInt(&okWidth), parts[1].toInt(&okHeight));
    if (!okWidth || !okHeight || pictureSize.width() < 200 || pictureSize.height() < 150 ||
        pictureSize.width() > 8000 || pictureSize.height() > 8000) {
      std::fprintf(stderr,
                   "tpu-studio: --screenshot-size '%s' is not WIDTHxHEIGHT between 200x150 and 8000x8000\n",
                   qPrintable(parser.value(screenshotSize)));
      return 2;
    }
  }
  if (!screenshotFile.isEmpty()) {
    // Screenshots are for docs and tests: the user's window layout, recent files and autosaves stay out.
    QStandardPaths::setTestModeEnabled(true);
  }
  if (parser.isSet(example)) {
    const tpuc::ui::ExampleProject found = tpuc::ui::openableExampleProject();
    if (found.path.isEmpty()) {
      std::fprintf(stderr, "tpu-studio: %s\n", qPrintable(found.error));
      return 1;
    }
    project = found.path;
  }

  // One studio per user: a running one takes the file (and comes forward). Screenshots never hand over.
  const bool single = screenshotFile.isEmpty() && !parser.isSet(newInstance);
  if (single && tpuc::ui::SingleInstance::forward(
                    project.isEmpty() ? QString() : QFileInfo(project).absoluteFilePath())) {
    std::fprintf(stderr, "tpu-studio: handed %s to the running studio\n",
                 project.isEmpty() ? "nothing" : qPrintable(QFileInfo(project).absoluteFilePath()));
    return 0;
  }

  tpuc::ui::StudioContext context;
  tpuc::ui::MainWindow window(&context);
  tpuc::ui::SingleInstance instance;
  if (single) {
    instance.listen();
    QObject::connect(&instance, &tpuc::ui::SingleInstance::openRequested, &window, [&](const QString &path) {
      if (window.openForwarded(path) && !path.isEmpty()) // a line scripts and tests can wait for
        std::fprintf(stderr, "tpu-studio: opened %s from another tpu-studio\n", qPrintable(path));
    });
  }
  if (!screenshotFile.isEmpty()) {
    window.setInteractive(false);
    window.autosave()->setIntervalSeconds(0);
    // A size from the font, so the picture scales with the user's font and DPI.
    const int unit = window.fontMetrics().height();
    window.resize(pictureSize.isValid() ? pictureSize : QSize(unit * 72, unit * 44));
  }
  const bool opened = window.startup(project);
  window.show();
  if (screenshotFile.isEmpty() && !parser.isSet(runPipeline))
    window.offerTourOnce();

  // --run-pipeline: the configuration by name; the picture waits for the pipeline and shows its accuracy.
  QPointer<tpuc::ui::PipelineRunner> pipeline;
  bool pipelineDone = !parser.isSet(runPipeline);
  if (parser.isSet(runPipeline)) {
    const QString name = parser.value(runPipeline);
    qint64 configId = -1;
    QStringList names;
    for (const tpuc::project::CompileConfig &config : context.project().compileConfigs) {
      names << QString::fromStdString(config.name);
      if (QString::fromStdString(config.name) == name)
        configId = config.id;
    }
    if (!opened || (configId < 0 && name != QLatin1String("-"))) {
      std::fprintf(stderr, "tpu-studio: --run-pipeline: %s\n",
                   !opened ? "the project did not open"
                           : qPrintable(QStringLiteral("no compile configuration '%1' in %2 (it has: %3)")
                                            .arg(name, project,
                                                 names.isEmpty() ? QStringLiteral("none")
                                                                 : names.join(QStringLiteral(", ")))));
      return 2;
    }
    tpuc::ui::PipelineDialog *dialog = window.runWholePipeline(configId);
    if (!dialog)
      return 1; // the reason is on stderr (the log) or in a message box
    pipeline = dialog->runner();
    QObject::connect(pipeline, &tpuc::ui::PipelineRunner::finished, &window,
                     [&pipelineDone, dialog = QPointer<tpuc::ui::PipelineDialog>(dialog),
                      interactive = screenshotFile.isEmpty()](bool ok) {
                       std::fprintf(stderr, "tpu-studio: pipeline %s\n",
                                    ok ? "done"
                                       : qPrintable(QStringLiteral("stopped: ") + dialog->summary()));
                       if (ok && dialog && !interactive) {
                         dialog->outcomeButtons().front()->click(); // the accuracy of its deploy
                         dialog->close();
                       }
                       pipelineDone = true;
                     });
  }

  if (!screenshotFile.isEmpty()) {
    // A model on the command line is hashed off the UI thread before it is the project's: the picture
    // waits for it (at most 30 s; a model that does not arrive fails the run).
    const bool waitForModel = opened && !project.isEmpty() && !project.endsWith(QLatin1String(".tpuproj"));
    auto *poll = new QTimer(&window);
    poll->setInterval(50);
    QElapsedTimer waited;
    waited.start();
    // The block's locals end before the timer fires: copies of them.
    QObject::connect(poll, &QTimer::timeout, &window, [&, poll, waitForModel, waited] {
      const bool arrived = !context.project().model.path.empty();
      if (waitForModel && !arrived && waited.elapsed() < 30000)
        return;
      if (!pipelineDone && waited.elapsed() < 15 * 60 * 1000)
        return;
      poll->stop();
      QApplication::processEvents();
      if (!window.grab().save(screenshotFile, "PNG")) {
        std::fprintf(stderr, "tpu-studio: cannot write the screenshot '%s'\n", qPrintable(screenshotFile));
        QApplication::exit(1);
        return;
      }
      const bool pipelineOk = !parser.isSet(runPipeline) || (pipeline && pipeline->succeeded());
      QApplication::exit(opened && (!waitForModel || arrived) && pipelineOk ? 0 : 1);
    });
    poll->start();
  }
  return QApplication::exec();
}
