// Studio settings stored with QSettings under the application's organization and name.
#include "ui/Settings.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>

namespace tpuc::ui::settings {

namespace {
constexpr const char *kRecent = "files/recent";
constexpr const char *kRecentOpened = "files/recentOpened";
constexpr const char *kTourOffered = "help/tourOffered";
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
  QSettings settings;
  settings.setValue(kRecent, files);
  // The dates of files that left the list go with them.
  const QVariantMap old = settings.value(kRecentOpened).toMap();
  QVariantMap opened;
  for (const QString &file : files)
    if (old.contains(file))
      opened.insert(file, old.value(file));
  opened.insert(path, QDateTime::currentDateTime());
  settings.setValue(kRecentOpened, opened);
}

void clearRecentFiles() {
  QSettings settings;
  settings.remove(kRecent);
  settings.remove(kRecentOpened);
}

QDateTime recentFileOpened(const QString &path) {
  return QSettings().value(kRecentOpened).toMap().value(path).toDateTime();
}

QString recentThumbnailFile(const QString &path) {
  const QByteArray key =
      QCryptographicHash::hash(QFileInfo(path).absoluteFilePath().toUtf8(), QCryptographicHash::Sha1);
  return QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/recent/") +
         QString::fromLatin1(key.toHex()) + QStringLiteral(".png");
}

bool tourOffered() { return QSettings().value(kTourOffered, false).toBool(); }
void setTourOffered(bool offered) { QSettings().setValue(kTourOffered, offered); }

void removeRecentFile(const QString &path) {
  QStringList files = recentFiles();
  files.removeAll(path);
  QSettings().setValue(kRecent, files);
}

int jobStallSeconds() { return QSettings().value(QStringLiteral("jobs/stallSeconds"), 1800).toInt(); }

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
