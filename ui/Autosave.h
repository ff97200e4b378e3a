// Periodic autosave of a modified project beside it, and detection of a newer autosave at open time.
#ifndef TPUC_UI_AUTOSAVE_H
#define TPUC_UI_AUTOSAVE_H

#include "project/ProjectStore.h"

#include <QObject>

class QTimer;

namespace tpuc::ui {

class StudioContext;

/// Writes the modified project to its autosave file every interval: the first time a full snapshot
/// written to a temp file and renamed, then only what changed, in place in one transaction (either way a
/// kill never leaves a half-written autosave). The autosave is removed once the
/// project is saved or closed without changes; if the studio dies, it stays and is offered on the next
/// start (see pendingRecovery).
class AutosaveController : public QObject {
  Q_OBJECT
public:
  explicit AutosaveController(StudioContext *context, QObject *parent = nullptr);

  /// 0 disables autosave.
  void setIntervalSeconds(int seconds);
  /// The autosave file of a project file; untitled projects use one in the app's data folder.
  static QString autosavePathFor(const QString &projectPath);
  /// The autosave of `projectPath` when it exists and is newer than the project, else empty.
  static QString pendingRecovery(const QString &projectPath);
  /// Writes the autosave now if the project is modified; true when a file was written.
  bool autosaveNow();
  /// Removes the current project's autosave file.
  void discard();

Q_SIGNALS:
  void autosaved(const QString &path);
  void autosaveFailed(const QString &error);

private:
  StudioContext *m_context;
  QTimer *m_timer;
  QString m_path; ///< the autosave file of the project currently open
  project::StoredState m_state; ///< what m_path holds after our last autosave
};

} // namespace tpuc::ui

#endif
