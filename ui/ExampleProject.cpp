// The example project as `tpu-studio --example` and the start page open it (see ExampleProject.h).
#include "ui/ExampleProject.h"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

namespace tpuc::ui {

namespace {

const QString kProjectFile = QStringLiteral("ppocr-cls.tpuproj");

/// Copies the files under `from` into `to` (created); the first failure, or empty.
QString copyTree(const QString &from, const QString &to) {
  QDir source(from);
  QDirIterator it(from, QDir::Files | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QString file = it.next();
    // The installed tree has no caches, but a build tree's example may: runs are not part of the example.
    const QString relative = source.relativeFilePath(file);
    if (relative.contains(QLatin1String(".tpuproj.cache/")) || relative.contains(QLatin1String(".autosave")))
      continue;
    const QString target = QDir(to).filePath(relative);
    if (!QDir().mkpath(QFileInfo(target).absolutePath()) || !QFile::copy(file, target))
      return QStringLiteral("cannot copy %1 to %2").arg(file, target);
    // Installed files are read-only; the copy is the user's.
    QFile::setPermissions(target, QFile::permissions(target) | QFileDevice::WriteOwner);
  }
  return {};
}

} // namespace

QString exampleSourceDir() {
  const QDir bin(QCoreApplication::applicationDirPath());
  for (const QString &candidate :
       {QStringLiteral("../share/tpu-studio/example"), QStringLiteral("../example")})
    if (QFileInfo(bin.filePath(candidate + QLatin1Char('/') + kProjectFile)).isFile())
      return QDir::cleanPath(bin.filePath(candidate));
  return {};
}

QString exampleProjectFile() {
  if (const QString env = qEnvironmentVariable("TPUC_EXAMPLE_PROJECT"); !env.isEmpty())
    return QFileInfo::exists(env) ? QFileInfo(env).absoluteFilePath() : QString();
  const QString source = exampleSourceDir();
  return source.isEmpty() ? QString() : QDir(source).filePath(kProjectFile);
}

ExampleProject openableExampleProject() {
  if (const QString env = qEnvironmentVariable("TPUC_EXAMPLE_PROJECT"); !env.isEmpty())
    return QFileInfo::exists(env)
               ? ExampleProject{QFileInfo(env).absoluteFilePath(), {}}
               : ExampleProject{{}, QStringLiteral("TPUC_EXAMPLE_PROJECT: no file %1").arg(env)};
  const QString source = exampleSourceDir();
  if (source.isEmpty())
    return {{},
            QStringLiteral("no example project beside %1 (share/tpu-studio/example, or build it with "
                           "'ninja tpuc-example-project')")
                .arg(QCoreApplication::applicationDirPath())};
  // A build tree's example is the developer's own; an installed one is never written (not even by root).
  if (!source.endsWith(QLatin1String("share/tpu-studio/example")))
    return {QDir(source).filePath(kProjectFile), {}};
  const QString copy = QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
                           .filePath(QStringLiteral("example"));
  if (!QFileInfo(QDir(copy).filePath(kProjectFile)).isFile()) {
    // Copied into a fresh folder, then moved in place: an interrupted copy is never taken for the example.
    const QString partial = copy + QStringLiteral(".partial");
    QDir(partial).removeRecursively();
    if (QString error = copyTree(source, partial); !error.isEmpty())
      return {{}, error};
    QDir(copy).removeRecursively();
    if (!QDir().rename(partial, copy))
      return {{}, QStringLiteral("cannot move %1 to %2").arg(partial, copy)};
  }
  return {QDir(copy).filePath(kProjectFile), {}};
}

} // namespace tpuc::ui
