// Kept run manifests: a copy per run of the manifest and the records beside it.
#include "ui/jobs/RunManifests.h"

#include "project/ProjectStore.h"
#include "tpuc/Driver/Manifest.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace tpuc::ui {

QString keepRunManifest(const JobInfo &job, project::RunRecord &run) {
  const QString result = job.spec.resultFile;
  if (!result.endsWith(QLatin1String("_result.json")))
    return {};
  const QDir base(job.spec.workingDirectory.isEmpty() ? QDir::currentPath() : job.spec.workingDirectory);
  const QString manifest =
      base.absoluteFilePath(result.chopped(int(qstrlen("_result.json"))) + QStringLiteral("_manifest.json"));
  QFile file(manifest);
  if (!file.open(QIODevice::ReadOnly))
    return {};
  const QByteArray text = file.readAll();
  driver::ReadResult<driver::RunManifest> parsed = driver::parseManifest(text.toStdString());
  if (!parsed)
    return {};
  const QFileInfo info(manifest);
  const QString stem = info.fileName().chopped(int(qstrlen("_manifest.json")));
  const QString when = (job.finished.isValid() ? job.finished : QDateTime::currentDateTimeUtc())
                           .toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"));
  QDir folder(info.dir().filePath(QStringLiteral("kept-runs/%1-%2-job%3").arg(stem, when).arg(job.id)));
  if (!folder.mkpath(QStringLiteral(".")))
    return {};
  // The records are named relative to the manifest, so they travel with it.
  for (const std::string &record : {parsed.result.result, parsed.result.compare, parsed.result.compareSamples,
                                    parsed.result.firstDivergent, parsed.result.trace}) {
    if (record.empty())
      continue;
    const QString name = QString::fromStdString(record);
    QFile::copy(info.dir().filePath(name), folder.filePath(name));
  }
  const QString kept = folder.filePath(info.fileName());
  if (!QFile::copy(manifest, kept))
    return {};
  run.artifacts.push_back(
      {kRunManifestKind, kept.toStdString(), project::hashFile(kept.toStdString()).value_or("")});
  return kept;
}

QString runManifestOf(const project::RunRecord &run) {
  for (const project::ArtifactRef &a : run.artifacts)
    if (a.kind == kRunManifestKind && QFileInfo::exists(QString::fromStdString(a.name)))
      return QString::fromStdString(a.name);
  for (const project::ArtifactRef &a : run.artifacts)
    if (a.name.ends_with("_manifest.json") && QFileInfo::exists(QString::fromStdString(a.name)))
      return QString::fromStdString(a.name);
  return {};
}

} // namespace tpuc::ui
