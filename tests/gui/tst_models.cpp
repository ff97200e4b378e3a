// Tests of the studio's item models with QAbstractItemModelTester, and of edits through the context.
#include "project/ProjectStore.h"
#include "ui/SampleImport.h"
#include "ui/StudioContext.h"
#include "ui/jobs/JobQueue.h"
#include "ui/models/JobListModel.h"
#include "ui/models/ProjectTreeModel.h"
#include "ui/models/SampleListModel.h"
#include "ui/models/TableModels.h"

#include <QAbstractItemModelTester>
#include <QBuffer>
#include <QIcon>
#include <QImage>
#include <QPixmap>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace tpuc;
using namespace tpuc::ui;

namespace {

project::Project sampleProject() {
  project::Project p;
  p.model.path = "/m/resnet.onnx";
  p.datasets.push_back({1, "cali", {{"/d/a.jpg", "{}", {}}, {"/d/b.jpg", "{}", {}}}});
  p.caliTables.push_back({1, "cali", 1, "", "", {{"conv1", 4, -3, 4}, {"relu1", 2, 0, 2}, {"fc", 9, -9, 8}}});
  p.quantTables.push_back({1, "mixed", 1, "", "", {{"conv1", "F16"}, {"fc", "F32"}}});
  p.compileConfigs.push_back({1, "int8", "bm1684x", "INT8", "{}"});
  return p;
}

/// Loads a project into the context the way the studio does: through a saved file.
void load(StudioContext &context, const project::Project &p) {
  static QTemporaryDir dir;
  QString file = dir.filePath("models.tpuproj");
  Result<void> saved = project::saveProject(p, file.toStdString(), project::SaveMode::Replace);
  QVERIFY2(saved, saved.error().c_str());
  QString message;
  QVERIFY2(context.openProject(file, &message), qPrintable(message));
}

} // namespace

class TestModels : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void projectTreeModel();
  void caliTableModelEditsAreUndoable();
  void quantTableModelValidatesModes();
  void jobListModel();
  void sampleListModel();
  void namesStayUnique();
};

void TestModels::projectTreeModel() {
  StudioContext context;
  ProjectTreeModel model(&context);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QCOMPARE(model.rowCount(), 8);
  load(context, sampleProject());
  QModelIndex cali = model.indexFor({Section::CaliTables, -1});
  QVERIFY(cali.isValid());
  QCOMPARE(model.rowCount(cali), 1);
  QModelIndex table = model.index(0, 0, cali);
  QCOMPARE(table.data().toString(), QString("cali v1"));
  QCOMPARE(model.index(0, 1, cali).data().toString(), QString("3 ops"));
  QCOMPARE(model.selectionFor(table), (Selection{Section::CaliTables, 1}));
  QCOMPARE(model.indexFor({Section::CaliTables, 1}), table);
  QCOMPARE(model.parent(table), cali);
  QCOMPARE(model.index(0, 1, model.indexFor({Section::Datasets, -1})).data().toString(), QString("2 samples"));
  // A run added through the context appears (snapshot swap) and is announced.
  QSignalSpy finished(&context, &StudioContext::runFinished);
  project::RunRecord run;
  run.configName = "int8";
  run.latencyMs = 1.5;
  qint64 id = context.addRun(run);
  QCOMPARE(finished.count(), 1);
  QModelIndex runs = model.indexFor({Section::Runs, -1});
  QCOMPARE(model.rowCount(runs), 1);
  QCOMPARE(model.selectionFor(model.index(0, 0, runs)).id, id);
  QVERIFY(context.isModified());
  context.closeProject();
  QCOMPARE(model.rowCount(model.indexFor({Section::Runs, -1})), 0);
}

void TestModels::caliTableModelEditsAreUndoable() {
  StudioContext context;
  load(context, sampleProject());
  CaliTableModel model(&context, 1);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QCOMPARE(model.rowCount(), 3);
  QCOMPARE(model.index(2, CaliTableModel::OpColumn).data().toString(), QString("fc"));
  QVERIFY(!(model.flags(model.index(0, CaliTableModel::OpColumn)) & Qt::ItemIsEditable));
  QVERIFY(model.setData(model.index(1, CaliTableModel::ThresholdColumn), 3.5));
  QCOMPARE(model.index(1, CaliTableModel::ThresholdColumn).data().toDouble(), 3.5);
  QCOMPARE(context.project().caliTables[0].entries[1].threshold, 3.5);
  QVERIFY(!model.setData(model.index(1, CaliTableModel::MinColumn), 5.0)); // min > max
  QVERIFY(!model.setData(model.index(1, CaliTableModel::MaxColumn), "abc"));
  QVERIFY(context.isModified());
  context.undoStack()->undo();
  QCOMPARE(model.index(1, CaliTableModel::ThresholdColumn).data().toDouble(), 2.0);
  QVERIFY(!context.isModified());
  context.undoStack()->redo();
  QCOMPARE(model.index(1, CaliTableModel::ThresholdColumn).data().toDouble(), 3.5);
  // A new version copies the edited table; the old version stays as it was.
  qint64 v2 = context.newCaliTableVersion(1);
  QCOMPARE(context.project().caliTables.size(), std::size_t(2));
  QCOMPARE(context.project().caliTables[1].id, v2);
  QCOMPARE(context.project().caliTables[1].version, 2);
  QCOMPARE(context.project().caliTables[1].entries, context.project().caliTables[0].entries);
  CaliTableModel second(&context, v2);
  QVERIFY(second.setData(second.index(0, CaliTableModel::ThresholdColumn), 1.25));
  QCOMPARE(context.project().caliTables[0].entries[0].threshold, 4.0);
  QCOMPARE(model.index(0, CaliTableModel::ThresholdColumn).data().toDouble(), 4.0);
  // A model over a table that does not exist is empty, not a crash.
  CaliTableModel missing(&context, 42);
  QCOMPARE(missing.rowCount(), 0);
}

void TestModels::quantTableModelValidatesModes() {
  StudioContext context;
  load(context, sampleProject());
  QuantTableModel model(&context, 1);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(!model.setData(model.index(0, QuantTableModel::ModeColumn), "FP64"));
  QVERIFY(model.setData(model.index(0, QuantTableModel::ModeColumn), "int8"));
  QCOMPARE(model.index(0, QuantTableModel::ModeColumn).data().toString(), QString("INT8"));
  QCOMPARE(context.undoStack()->count(), 1);
  QCOMPARE(context.undoStack()->undoText(), QString("Edit quantization of conv1"));
  context.undoStack()->undo();
  QCOMPARE(model.index(0, QuantTableModel::ModeColumn).data().toString(), QString("F16"));
}

void TestModels::jobListModel() {
  JobQueue queue;
  JobListModel model(&queue);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QSignalSpy finished(&queue, &JobQueue::jobFinished);
  queue.enqueue({"first", TPUC_FAKE_JOB, {"ok"}, {}});
  queue.enqueue({"second", TPUC_FAKE_JOB, {"fail"}, {}});
  QCOMPARE(model.rowCount(), 2);
  QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 20000);
  QCOMPARE(model.index(0, JobListModel::StateColumn).data().toString(), QString("done"));
  QCOMPARE(model.index(1, JobListModel::StateColumn).data().toString(), QString("failed"));
  QCOMPARE(model.index(0, JobListModel::ProgressColumn).data().toString(), QString("done 100%"));
  QVERIFY(model.index(1, JobListModel::MessageColumn).data().toString().contains("exit code 3"));
}

void TestModels::sampleListModel() {
  StudioContext context;
  project::Project p = sampleProject();
  QImage image(8, 4, QImage::Format_RGB32);
  image.fill(Qt::red);
  QByteArray png;
  QBuffer buffer(&png);
  buffer.open(QIODevice::WriteOnly);
  image.save(&buffer, "PNG");
  p.datasets[0].samples[0].thumbnailPng.assign(png.begin(), png.end());
  load(context, p);
  SampleListModel model(&context, 1);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QCOMPARE(model.rowCount(), 2);
  QCOMPARE(model.index(0).data().toString(), QString("a.jpg"));
  // Thumbnails are centred on a square; tensors without one get an icon.
  QImage shown = model.index(0).data(Qt::DecorationRole).value<QPixmap>().toImage();
  QCOMPARE(shown.size(), QSize(kThumbnailSide, kThumbnailSide));
  QCOMPARE(QColor(shown.pixel(kThumbnailSide / 2, kThumbnailSide / 2)), QColor(Qt::red));
  QCOMPARE(qAlpha(shown.pixel(0, 0)), 0);
  QVERIFY(model.index(1).data(Qt::DecorationRole).canConvert<QIcon>());
  context.addSamples(1, {{"/d/c.png", "{}", {}}});
  QCOMPARE(model.rowCount(), 3);
  context.undoStack()->undo();
  QCOMPARE(model.rowCount(), 2);
  SampleListModel missing(&context, 99);
  QCOMPARE(missing.rowCount(), 0);
}

void TestModels::namesStayUnique() {
  // The file keeps configuration names and (table name, version) pairs unique; the context never
  // produces a project that could not be saved.
  StudioContext context;
  load(context, sampleProject());
  qint64 a = context.addCompileConfig({0, "int8", "bm1688", "INT8", "{}"});
  QCOMPARE(context.project().compileConfigs.back().name, std::string("int8 (2)"));
  project::CompileConfig renamed = context.project().compileConfigs.back();
  renamed.name = "int8";
  QVERIFY(!context.setCompileConfig(renamed));
  renamed.name = "int8-1688";
  QVERIFY(context.setCompileConfig(renamed));
  QCOMPARE(context.project().compileConfigs.back().id, a);
  context.addCaliTable({0, "cali", 1, "", "", {}});
  QCOMPARE(context.project().caliTables.back().version, 2);
  QTemporaryDir dir;
  QString error;
  QVERIFY2(context.saveAs(dir.filePath("unique.tpuproj"), &error), qPrintable(error));
}

QTEST_MAIN(TestModels)
#include "tst_models.moc"
