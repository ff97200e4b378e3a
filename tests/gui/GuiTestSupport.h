// What the studio's GUI tests share: generating inputs with the Python scripts of the lit tests, and a main
// window started on a new project with a model imported.
#ifndef TPUC_TESTS_GUI_GUITESTSUPPORT_H
#define TPUC_TESTS_GUI_GUITESTSUPPORT_H

#include "ui/MainWindow.h"
#include "ui/StudioContext.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QSignalSpy>
#include <QStringList>

namespace tpuc::ui::guitest {

/// Runs `/usr/bin/python3 script args...`; "" when it succeeded, else what went wrong (its stderr).
inline QString runPython(const QString &script, const QStringList &args) {
  QProcess python;
  python.start(QStringLiteral("/usr/bin/python3"), QStringList{script} + args);
  if (!python.waitForFinished(60000))
    return script + QStringLiteral(": did not finish in 60 s");
  if (python.exitStatus() != QProcess::NormalExit || python.exitCode() != 0)
    return script + QStringLiteral(": ") + QString::fromLocal8Bit(python.readAllStandardError());
  return {};
}

/// Starts `window` (non-interactive) on a new project, imports `model` and sets `settings`; "" when the model
/// arrived, else why not.
inline QString startWithModel(MainWindow &window, StudioContext &context, const QString &model,
                              const project::ImportSettings &settings) {
  window.setInteractive(false);
  window.startup(QString());
  QSignalSpy imported(&window, &MainWindow::modelImported);
  window.importModel(model);
  if (!imported.wait(10000) || !imported.front().front().toBool())
    return model + QStringLiteral(": not imported");
  context.setImportSettings(settings);
  return {};
}

/// Copies the built example project ($TPUC_EXAMPLE_PROJECT) into `dir` as example.tpuproj, its model and
/// image folders linked beside it (the project names them relative to itself), so a test's runs and cache
/// stay out of the build's example. Sets `*file` to the copy; "" when it worked, else why not.
inline QString copyExampleProject(const QString &dir, QString *file) {
  const QString source = qEnvironmentVariable("TPUC_EXAMPLE_PROJECT");
  if (!QFileInfo::exists(source))
    return QStringLiteral("example project missing: '%1'").arg(source);
  *file = QDir(dir).filePath(QStringLiteral("example.tpuproj"));
  if (!QFile::copy(source, *file))
    return QStringLiteral("cannot copy %1 to %2").arg(source, *file);
  const QDir example = QFileInfo(source).dir();
  for (const QString &folder : {"models", "images", "text-lines", "test"})
    if (!QFile::link(example.filePath(folder), QDir(dir).filePath(folder)))
      return QStringLiteral("cannot link %1").arg(folder);
  return {};
}

} // namespace tpuc::ui::guitest

#endif
