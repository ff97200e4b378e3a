// Studio settings, declared once with their defaults and kept apart from projects (QSettings).
#ifndef TPUC_UI_SETTINGS_H
#define TPUC_UI_SETTINGS_H

#include <QDateTime>
#include <QStringList>

namespace tpuc::ui::settings {

/// Most recently used project files, newest first.
QStringList recentFiles();
/// Moves `path` to the front of the recent files (keeps at most kMaxRecentFiles).
void addRecentFile(const QString &path);
void removeRecentFile(const QString &path);
void clearRecentFiles();
inline constexpr int kMaxRecentFiles = 10;
/// When `path` was last opened or saved (addRecentFile stamps it); invalid when never.
QDateTime recentFileOpened(const QString &path);
/// Where the small picture of a recent project's window is kept: the app's cache folder, keyed by the
/// project's path (the file may not exist yet).
QString recentThumbnailFile(const QString &path);

/// Whether the guided tour was offered already (it is offered once, on the first start). Default false.
bool tourOffered();
void setTourOffered(bool offered);

/// Seconds between autosaves of a modified project; 0 disables autosave. Default 60.
/// How long a job's child may write nothing before the studio stops it as hung (0: never); default 1800.
int jobStallSeconds();
int autosaveIntervalSeconds();
void setAutosaveIntervalSeconds(int seconds);

/// The folder the file dialogs start in. Default: the home folder.
QString lastDirectory();
void setLastDirectory(const QString &dir);

/// Saved window geometry and dock layout (QMainWindow::saveState), empty by default.
QByteArray windowState();
QByteArray windowGeometry();
void setWindowLayout(const QByteArray &geometry, const QByteArray &state);

} // namespace tpuc::ui::settings

#endif
