// Helpers the main window's tasks share: running work off the UI thread, and finding the engine.
#ifndef TPUC_UI_BACKGROUND_H
#define TPUC_UI_BACKGROUND_H

#include <QCoreApplication>
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QtConcurrent/QtConcurrentRun>

#include <type_traits>

namespace tpuc::ui {

/// Runs `work` on the thread pool, then `done` with its result on the receiver's thread, unless the
/// receiver is gone by then. A watcher parented to the receiver works whether or not the work has already
/// finished when watching starts.
template <typename Work, typename Done> void runInBackground(QObject *receiver, Work work, Done done) {
  using Result = std::invoke_result_t<Work>;
  auto *watcher = new QFutureWatcher<Result>(receiver);
  QObject::connect(watcher, &QFutureWatcherBase::finished, receiver, [watcher, done] {
    done(watcher->result());
    watcher->deleteLater();
  });
  watcher->setFuture(QtConcurrent::run(std::move(work)));
}

/// The engine: $TPUC when set (tests, custom installs), else the tpuc installed beside tpu-studio.
inline QString tpucPath() {
  const QString fromEnv = qEnvironmentVariable("TPUC");
  return fromEnv.isEmpty() ? QCoreApplication::applicationDirPath() + QStringLiteral("/tpuc") : fromEnv;
}

} // namespace tpuc::ui

#endif
