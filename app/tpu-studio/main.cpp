// tpu-studio: the desktop studio. Opens an optional project or model (or --example); --screenshot renders a
// PNG of it.
#include "ui/AboutDialog.h"
#include "ui/Autosave.h"
#include "ui/ExampleProject.h"
#include "ui/MainWindow.h"
#include "ui/SingleInstance.h"
#include "ui/StudioContext.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>
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
  parser.addOptions({screenshot, example, newInstance});
  parser.process(app);
  const qsizetype maxFiles = parser.isSet(example) ? 0 : 1;
  if (parser.positionalArguments().size() > maxFiles) {
    std::fprintf(stderr, "tpu-studio: expected at most %lld file(s), got %lld\n", static_cast<long long>(maxFiles),
                 static_cast<long long>(parser.positionalArguments().size()));
    return 2;
  }
  QString project = parser.positionalArguments().value(0);
  const QString screenshotFile = parser.value(screenshot);
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
    window.resize(unit * 72, unit * 44);
  }
  const bool opened = window.startup(project);
  window.show();
  if (screenshotFile.isEmpty())
    window.offerTourOnce();

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
      poll->stop();
      QApplication::processEvents();
      if (!window.grab().save(screenshotFile, "PNG")) {
        std::fprintf(stderr, "tpu-studio: cannot write the screenshot '%s'\n", qPrintable(screenshotFile));
        QApplication::exit(1);
        return;
      }
      QApplication::exit(opened && (!waitForModel || arrived) ? 0 : 1);
    });
    poll->start();
  }
  return QApplication::exec();
}
