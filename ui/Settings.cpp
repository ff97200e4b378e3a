// Studio settings stored with QSettings under the application's organization and name.
#include "ui/Settings.h"

#include <QDir>
#include <QSettings>

namespace tpuc::ui::settings {

namespace {
constexpr const char *kRecent = "files/recent";
constexpr const char *kAutosave = "files/autosaveIntervalSeconds";
constexpr const char *kLastDir = "files/lastDirectory";
constexpr const char *kGeometry = "window/geometry";
constexpr const char *kState = "window/state";
constexpr int kDefaultAutosaveSeconds = 60;
} // namespace

QStringList recentFiles() { return QSettings().value(kRecent).toStringList(); }

void addRecentFile(const QString &path) {
  QStringList files = recentFiles();
  files.removeAll(path);
  files.prepend(path);
  while (files.size() > kMaxRecentFiles)
    files.removeLast();
  QSettings().setValue(kRecent, files);
}

void removeRecentFile(const QString &path) {
  QStringList files = recentFiles();
  files.removeAll(path);
  QSettings().setValue(kRecent, files);
}

int autosaveIntervalSeconds() { return QSettings().value(kAutosave, kDefaultAutosaveSeconds).toInt(); }
void setAutosaveIntervalSeconds(int seconds) { QSettings().setValue(kAutosave, seconds); }

QString lastDirectory() { return QSettings().value(kLastDir, QDir::homePath()).toString(); }
void setLastDirectory(const QString &dir) { QSettings().setValue(kLastDir, dir); }

QByteArray windowState() { return QSettings().value(kState).toByteArray(); }
QByteArray windowGeometry() { return QSettings().value(kGeometry).toByteArray(); }
void setWindowLayout(const QByteArray &geometry, const QByteArray &state) {
  QSettings settings;
  settings.setValue(kGeometry, geometry);
  settings.setValue(kState, state);
}

} // namespace tpuc::ui::settings
