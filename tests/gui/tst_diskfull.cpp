// A full disk (issue 25): a small tmpfs, mounted by the test, filled up under the studio's Save, Save As and
// autosave and under the engine's output writes. Nothing may be lost: the project file keeps its previous
// content, the edits stay in the studio to be saved once there is room, no half-written file is left for a
// reader to trip over, and every failure is one line naming the file and saying why.
#include "project/ProjectStore.h"
#include "ui/Autosave.h"
#include "ui/StudioContext.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <cstring>

#include <sys/mount.h>
#include <unistd.h>

using namespace tpuc;
using namespace tpuc::ui;

namespace {

/// Fills the file system of `dir` until a write fails with "no space"; returns the filler's path.
QString fillUp(const QString &dir) {
  const QString path = QDir(dir).filePath(QStringLiteral("filler"));
  QFile filler(path);
  if (!filler.open(QIODevice::WriteOnly | QIODevice::Append | QIODevice::Unbuffered))
    return {};
  const QByteArray block(4096, 'x');
  while (filler.write(block) == block.size()) {
  }
  return path;
}

/// Files below `dir` that a failed write must not leave behind: temporary files of an atomic write or a
/// save, and JSON files that do not parse.
QStringList debris(const QString &dir) {
  QStringList found;
  for (const QFileInfo &info : QDir(dir).entryInfoList(QDir::Files | QDir::Hidden)) {
    const QString name = info.fileName();
    if (name.contains(QLatin1String(".tmp-")) || name.contains(QLatin1String(".saving-")))
      found << name;
    if (name.endsWith(QLatin1String(".json"))) {
      QFile f(info.filePath());
      QJsonParseError error;
      if (!f.open(QIODevice::ReadOnly) || (QJsonDocument::fromJson(f.readAll(), &error), error.error))
        found << name + QStringLiteral(" (not whole JSON)");
    }
  }
  return found;
}

project::Project smallProject(const QString &dir) {
  project::Project p;
  project::Dataset d{1, "images", {}};
  for (int i = 0; i < 20; ++i)
    d.samples.push_back({(dir + QStringLiteral("/img%1.jpg").arg(i)).toStdString(), "{}", {}});
  p.datasets.push_back(d);
  p.compileConfigs.push_back({1, "int8", "bm1684x", "INT8", "{}"});
  p.notes = "before";
  return p;
}

} // namespace

class TestDiskFull : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase();
  void cleanupTestCase();
  void init();
  void saveKeepsTheFileAndTheEdits();
  void saveAsAndAutosaveLeaveNoPartialFile();
  void engineOutputsAreWholeOrAbsent();

private:
  QTemporaryDir m_mountPoint;
  QString m_disk; ///< the small file system
  bool m_mounted = false;
};

void TestDiskFull::initTestCase() {
  if (::geteuid() != 0)
    QSKIP("mounting a small tmpfs needs root (CI runs as root, as the package test does)");
  QVERIFY(m_mountPoint.isValid());
  m_disk = m_mountPoint.path();
  QVERIFY2(::mount("tmpfs", m_disk.toLocal8Bit().constData(), "tmpfs", 0, "size=2m") == 0,
           std::strerror(errno));
  m_mounted = true;
}

void TestDiskFull::cleanupTestCase() {
  if (m_mounted)
    ::umount2(m_disk.toLocal8Bit().constData(), MNT_DETACH);
}

void TestDiskFull::init() {
  // Every case starts on an empty disk.
  for (const QFileInfo &info : QDir(m_disk).entryInfoList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot))
    QFile::remove(info.filePath());
}

void TestDiskFull::saveKeepsTheFileAndTheEdits() {
  const QString file = QDir(m_disk).filePath(QStringLiteral("p.tpuproj"));
  QVERIFY(project::saveProject(smallProject(m_disk), file.toStdString(), project::SaveMode::Replace));
  StudioContext context;
  QString error;
  QVERIFY2(context.openProject(file, &error), qPrintable(error));

  const QString filler = fillUp(m_disk);
  QVERIFY(!filler.isEmpty());
  // An edit that needs room: the in-place save's journal and new pages cannot be written.
  context.setNotes(QString(200000, QLatin1Char('n')));
  QVERIFY(context.isModified());
  QVERIFY(!context.save(&error));
  qInfo() << "save on a full disk:" << error;
  QVERIFY2(!error.contains(QLatin1Char('\n')) && error.contains(file), qPrintable(error));
  QVERIFY(context.isModified()); // the edit is still there, still unsaved
  auto onDisk = project::loadProject(file.toStdString());
  QVERIFY2(onDisk, onDisk.error().c_str());
  QCOMPARE(onDisk->notes, std::string("before")); // the previous content, whole
  QVERIFY2(debris(m_disk).isEmpty(), qPrintable(debris(m_disk).join(QLatin1String(", "))));

  // Room again: the same studio saves, and the file has the edit.
  QVERIFY(QFile::remove(filler));
  QVERIFY2(context.save(&error), qPrintable(error));
  QVERIFY(!context.isModified());
  auto saved = project::loadProject(file.toStdString());
  QVERIFY2(saved, saved.error().c_str());
  QCOMPARE(saved->notes.size(), std::size_t(200000));
  QCOMPARE(saved->datasets.size(), std::size_t(1));
}

void TestDiskFull::saveAsAndAutosaveLeaveNoPartialFile() {
  const QString file = QDir(m_disk).filePath(QStringLiteral("q.tpuproj"));
  QVERIFY(project::saveProject(smallProject(m_disk), file.toStdString(), project::SaveMode::Replace));
  StudioContext context;
  QString error;
  QVERIFY2(context.openProject(file, &error), qPrintable(error));
  AutosaveController autosave(&context);
  autosave.setIntervalSeconds(0);
  context.setNotes(QStringLiteral("first autosave"));
  QVERIFY(autosave.autosaveNow());
  const QString autosaveFile = AutosaveController::autosavePathFor(file);
  QFile before(autosaveFile);
  QVERIFY(before.open(QIODevice::ReadOnly));
  const QByteArray autosaved = before.readAll();
  before.close();

  const QString filler = fillUp(m_disk);
  QVERIFY(!filler.isEmpty());
  context.setNotes(QString(300000, QLatin1Char('a')));
  QSignalSpy failed(&autosave, &AutosaveController::autosaveFailed);
  QVERIFY(!autosave.autosaveNow());
  QCOMPARE(failed.size(), 1);
  qInfo() << "autosave on a full disk:" << failed[0][0].toString();
  QVERIFY(!failed[0][0].toString().contains(QLatin1Char('\n')));
  QFile after(autosaveFile);
  QVERIFY(after.open(QIODevice::ReadOnly));
  QCOMPARE(after.readAll(), autosaved); // the previous autosave, untouched

  // Save As over its own file (the lock is already held): the complete new file cannot be written, and
  // the old one stays as it was.
  QVERIFY(!context.saveAs(file, &error));
  qInfo() << "save as over itself on a full disk:" << error;
  QVERIFY2(!error.contains(QLatin1Char('\n')) && error.contains(file), qPrintable(error));
  auto kept = project::loadProject(file.toStdString());
  QVERIFY2(kept, kept.error().c_str());
  QCOMPARE(kept->notes, std::string("before"));

  const QString copy = QDir(m_disk).filePath(QStringLiteral("copy.tpuproj"));
  QVERIFY(!context.saveAs(copy, &error));
  qInfo() << "save as on a full disk:" << error;
  QVERIFY2(!error.contains(QLatin1Char('\n')) && error.contains(copy), qPrintable(error));
  QVERIFY(!QFileInfo::exists(copy));
  QCOMPARE(context.filePath(), file); // still the project it was
  QVERIFY(context.isModified());
  QVERIFY2(debris(m_disk).isEmpty(), qPrintable(debris(m_disk).join(QLatin1String(", "))));
  QVERIFY(QFile::remove(filler));
  QVERIFY2(context.saveAs(copy, &error), qPrintable(error));
  QCOMPARE(context.filePath(), copy);
}

void TestDiskFull::engineOutputsAreWholeOrAbsent() {
#ifndef TPUC_ENGINE
  QSKIP("this build has no tpuc");
#else
  const QString example = qEnvironmentVariable("TPUC_EXAMPLE_PROJECT");
  const QString model =
      QFileInfo(example).dir().filePath(QStringLiteral("models/ch_ppocr_mobile_v2.0_cls_infer.onnx"));
  QVERIFY2(QFileInfo::exists(model), qPrintable(model));
  QTemporaryDir roomy;
  const QString filler = fillUp(m_disk);
  QVERIFY(!filler.isEmpty());
  const QStringList shapes = {QStringLiteral("--input_shapes"), QStringLiteral("[[1,3,48,192]]")};

  // Transform with its outputs on the full disk.
  QProcess transform;
  transform.start(QStringLiteral(TPUC_ENGINE),
                  QStringList{QStringLiteral("transform"), QStringLiteral("--model_name"),
                              QStringLiteral("m"), QStringLiteral("--model_def"), model}
                      << shapes << QStringLiteral("--mlir")
                      << QDir(m_disk).filePath(QStringLiteral("m.mlir")));
  QVERIFY(transform.waitForFinished(120000));
  QVERIFY(transform.exitCode() != 0);
  const QString transformError = QString::fromLocal8Bit(transform.readAllStandardError()).trimmed();
  qInfo() << "transform:" << transformError;
  QVERIFY2(transformError.contains(QLatin1String("No space left on device")), qPrintable(transformError));
  QVERIFY2(debris(m_disk).isEmpty(), qPrintable(debris(m_disk).join(QLatin1String(", "))));

  // Deploy of a model transformed elsewhere, writing its model file, plan and records to the full disk.
  QProcess ok;
  ok.setWorkingDirectory(roomy.path());
  ok.start(QStringLiteral(TPUC_ENGINE),
           QStringList{QStringLiteral("transform"), QStringLiteral("--model_name"), QStringLiteral("m"),
                       QStringLiteral("--model_def"), model}
               << shapes << QStringLiteral("--mlir") << QStringLiteral("m.mlir"));
  QVERIFY(ok.waitForFinished(120000));
  QCOMPARE(ok.exitCode(), 0);
  QProcess deploy;
  deploy.start(QStringLiteral(TPUC_ENGINE),
               QStringList{QStringLiteral("deploy"), QStringLiteral("--mlir"),
                           roomy.filePath(QStringLiteral("m.mlir")), QStringLiteral("--quantize"),
                           QStringLiteral("F16"), QStringLiteral("--chip"), QStringLiteral("bm1684x"),
                           QStringLiteral("--model"), QDir(m_disk).filePath(QStringLiteral("m.tpumodel"))});
  QVERIFY(deploy.waitForFinished(120000));
  QVERIFY(deploy.exitCode() != 0);
  const QString deployError = QString::fromLocal8Bit(deploy.readAllStandardError()).trimmed();
  qInfo() << "deploy:" << deployError;
  for (const QString &line : deployError.split(QLatin1Char('\n')))
    QVERIFY2(line.contains(m_disk), qPrintable(line)); // every line names the file it could not write
  QVERIFY2(deployError.contains(QLatin1String("No space left on device")), qPrintable(deployError));
  QVERIFY2(debris(m_disk).isEmpty(), qPrintable(debris(m_disk).join(QLatin1String(", "))));
  QVERIFY(!QFileInfo::exists(QDir(m_disk).filePath(QStringLiteral("m.tpumodel"))));
#endif
}

QTEST_MAIN(TestDiskFull)
#include "tst_diskfull.moc"
