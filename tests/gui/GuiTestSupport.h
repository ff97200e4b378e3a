// What the studio's GUI tests share: generating inputs with the Python scripts of the lit tests, and a main
// window started on a new project with a model imported.
#ifndef TPUC_TESTS_GUI_GUITESTSUPPORT_H
#define TPUC_TESTS_GUI_GUITESTSUPPORT_H

#include "ui/MainWindow.h"
#include "ui/StudioContext.h"

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

} // namespace tpuc::ui::guitest

#endif
