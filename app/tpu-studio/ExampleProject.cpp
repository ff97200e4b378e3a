// The example project as `tpu-studio --example` opens it (see ExampleProject.h).
#include "ExampleProject.h"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

namespace tpuc::app {

namespace {

const QString kProjectFile = QStringLiteral("ppocr-cls.tpuproj");

/// Copies the files under `from` into `to` (created); false with `error` at the first failure.
bool copyTree(const QString &from, const QString &to, QString *error) {
  QDir source(from);
  QDirIterator it(from, QDir::Files | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QString file = it.next();
    // The installed tree has no caches, but a build tree's example may: runs are not part of the example.
    const QString relative = source.relativeFilePath(file);
    if (relative.contains(QLatin1String(".tpuproj.cache/")) || relative.contains(QLatin1String(".autosave")))
      continue;
    const QString target = QDir(to).filePath(relative);
    if (!QDir().mkpath(QFileInfo(target).absolutePath()) || !QFile::copy(file, target)) {
      *error = QStringLiteral("cannot copy %1 to %2").arg(file, target);
      return false;
    }
    // Installed files are read-only; the copy is the user's.
    QFile::setPermissions(target, QFile::permissions(target) | QFileDevice::WriteOwner);
  }
  return true;
}

} // namespace

QString exampleSourceDir() {
  const QDir bin(QCoreApplication::applicationDirPath());
  for (const QString &candidate : {QStringLiteral("../share/tpu-studio/example"), QStringLiteral("../example")})
    if (QFileInfo(bin.filePath(candidate + QLatin1Char('/') + kProjectFile)).isFile())
      return QDir::cleanPath(bin.filePath(candidate));
  return {};
}

QString openableExampleProject(QString *error) {
  const QString source = exampleSourceDir();
  if (source.isEmpty()) {
    *error = QStringLiteral("no example project beside %1 (share/tpu-studio/example, or build it with "
                            "'ninja tpuc-example-project')")
                 .arg(QCoreApplication::applicationDirPath());
    return {};
  }
  // A build tree's example is the developer's own; an installed one is never written (not even by root).
  if (!source.endsWith(QLatin1String("share/tpu-studio/example")))
    return QDir(source).filePath(kProjectFile);
  const QString copy =
      QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath(QStringLiteral("example"));
  if (!QFileInfo(QDir(copy).filePath(kProjectFile)).isFile()) {
    // Copied into a fresh folder, then moved in place: an interrupted copy is never taken for the example.
    const QString partial = copy + QStringLiteral(".partial");
    QDir(partial).removeRecursively();
    if (!copyTree(source, partial, error))
      return {};
    QDir(copy).removeRecursively();
    if (!QDir().rename(partial, copy)) {
      *error = QStringLiteral("cannot move %1 to %2").arg(partial, copy);
      return {};
    }
  }
  return QDir(copy).filePath(kProjectFile);
}

} // namespace tpuc::app
