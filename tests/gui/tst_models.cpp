// Tests of the studio's item models with QAbstractItemModelTester, and of edits through the context.
#include "project/ProjectStore.h"
#include "ui/SampleImport.h"
#include "ui/StudioContext.h"
#include "ui/jobs/JobQueue.h"
#include "ui/models/DatasetFilesModel.h"
#include "ui/models/JobListModel.h"
#include "ui/models/ProjectTreeModel.h"
#include "ui/models/TableModels.h"
#include "ui/models/ThumbnailCache.h"

#include <QAbstractItemModelTester>
#include <QBuffer>
#include <QDir>
#include <QFileInfo>
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
  static int loads = 0; // a file per load: an earlier context may still hold its file's lock
  QString file = dir.filePath(QStringLiteral("models-%1.tpuproj").arg(++loads));
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
  void folderDatasetModel();
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
  p.datasets[0].samples[0].metadataJson = R"({"bytes":1234,"format":"jpeg","width":640,"height":480})";
  p.datasets[0].samples[1].metadataJson = R"({"bytes":99,"format":"npy","dtype":"<f4","shape":[1,3,2,2]})";
  load(context, p);
  ThumbnailCache thumbnails(kThumbnailSide, {});
  DatasetFilesModel model(&context, 1, &thumbnails);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QCOMPARE(model.rowCount(), 2);
  QCOMPARE(model.index(0, DatasetFilesModel::Name).data().toString(), QString("a.jpg"));
  QCOMPARE(model.index(0, DatasetFilesModel::Dimensions).data().toString(), QString("640×480"));
  QCOMPARE(model.index(0, DatasetFilesModel::Dimensions).data(DatasetFilesModel::SortRole).toLongLong(),
           640 * 480);
  QCOMPARE(model.index(1, DatasetFilesModel::Dimensions).data().toString(), QString("1×3×2×2 <f4"));
  QCOMPARE(model.index(0, DatasetFilesModel::Size).data(DatasetFilesModel::SortRole).toLongLong(), 1234);
  // Thumbnails are centred on a square; tensors without one get an icon.
  QImage shown = model.index(0, 0).data(Qt::DecorationRole).value<QIcon>().pixmap(kThumbnailSide).toImage();
  QCOMPARE(shown.size(), QSize(kThumbnailSide, kThumbnailSide));
  QCOMPARE(QColor(shown.pixel(kThumbnailSide / 2, kThumbnailSide / 2)), QColor(Qt::red));
  QCOMPARE(qAlpha(shown.pixel(0, 0)), 0);
  QVERIFY(model.index(1, 0).data(Qt::DecorationRole).canConvert<QIcon>());
  context.addSamples(1, {{"/d/c.png", "{}", {}}});
  QCOMPARE(model.rowCount(), 3);
  context.undoStack()->undo();
  QCOMPARE(model.rowCount(), 2);
  DatasetFilesModel missing(&context, 99, &thumbnails);
  QCOMPARE(missing.rowCount(), 0);
}

void TestModels::folderDatasetModel() {
  // A folder dataset: its index's files, then the unreadable ones with the reason; thumbnails are made off
  // the UI thread and announced; the proxy sorts numerically and filters on words and subsets.
  QTemporaryDir dir;
  QImage wide(40, 20, QImage::Format_RGB32), tall(10, 30, QImage::Format_RGB32);
  wide.fill(Qt::blue);
  tall.fill(Qt::green);
  QVERIFY(QDir(dir.path()).mkpath("cats"));
  QVERIFY(wide.save(dir.filePath("cats/wide.png")));
  QVERIFY(tall.save(dir.filePath("tall.png")));
  project::Project p = sampleProject();
  dataset::DatasetIndex index;
  index.root = dir.path().toStdString();
  dataset::FileEntry a{"cats/wide.png", 500, 0, "sha256:aaaaaaaaaaaa", {}};
  a.metadata.format = "png";
  a.metadata.width = 40;
  a.metadata.height = 20;
  a.metadata.channels = 3;
  dataset::FileEntry b{"tall.png", 90, 0, "sha256:bbbbbbbbbbbb", {}};
  b.metadata.format = "png";
  b.metadata.width = 10;
  b.metadata.height = 30;
  b.metadata.channels = 3;
  index.files = {a, b};
  index.unreadable = {{"broken.jpg", "cannot decode image: bad Huffman table"}};
  index.subsets = {{"one", "manual", 1, 0, {"tall.png"}}};
  project::Dataset folder;
  folder.id = 2;
  folder.name = "folder";
  folder.index = index;
  p.datasets.push_back(folder);
  StudioContext context;
  load(context, p);
  QTemporaryDir cache;
  ThumbnailCache thumbnails(kThumbnailSide, cache.path());
  DatasetFilesModel model(&context, 2, &thumbnails);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QCOMPARE(model.rowCount(), 3);
  QCOMPARE(model.index(0, DatasetFilesModel::Folder).data().toString(), QString("cats"));
  QCOMPARE(model.index(0, DatasetFilesModel::Channels).data().toInt(), 3);
  QVERIFY(model.index(2, 0).data(DatasetFilesModel::UnreadableRole).toBool());
  QCOMPARE(model.index(2, DatasetFilesModel::Problem).data().toString(),
           QString("cannot decode image: bad Huffman table"));
  // The thumbnail is not there at first; it is made in the background, announced, then served from memory
  // and kept on disk under its content hash.
  QSignalSpy ready(&thumbnails, &ThumbnailCache::ready);
  QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
  const QImage blank =
      model.index(0, 0).data(Qt::DecorationRole).value<QIcon>().pixmap(kThumbnailSide).toImage();
  QCOMPARE(blank.size(), QSize(kThumbnailSide, kThumbnailSide)); // a placeholder of the same size
  QCOMPARE(qAlpha(blank.pixel(kThumbnailSide / 2, kThumbnailSide / 2)), 0);
  QVERIFY(ready.wait(5000));
  QCOMPARE(ready.at(0).at(0).toString(), QString("sha256:aaaaaaaaaaaa"));
  QVERIFY(!changed.isEmpty());
  QImage shown = model.index(0, 0).data(Qt::DecorationRole).value<QIcon>().pixmap(kThumbnailSide).toImage();
  QCOMPARE(shown.size(), QSize(kThumbnailSide, kThumbnailSide));
  QCOMPARE(QColor(shown.pixel(kThumbnailSide / 2, kThumbnailSide / 2)), QColor(Qt::blue));
  QVERIFY(QFileInfo::exists(cache.filePath("aa/aaaaaaaaaaaa.png")));
  // Problems from the quality report join the unreadable reasons.
  model.setProblems({{"tall.png", "outlier: mean B is far from the dataset's"}});
  QCOMPARE(model.index(1, DatasetFilesModel::Problem).data().toString(),
           QString("outlier: mean B is far from the dataset's"));
  // Sort by dimensions (pixels): tall (300) before wide (800); filter on words, subsets, unreadable files.
  DatasetFilesProxy proxy;
  proxy.setSourceModel(&model);
  proxy.sort(DatasetFilesModel::Dimensions, Qt::AscendingOrder);
  QCOMPARE(proxy.index(0, 0).data().toString(), QString("broken.jpg")); // no dimensions: 0
  QCOMPARE(proxy.index(1, 0).data().toString(), QString("tall.png"));
  proxy.setSearch("CATS png");
  QCOMPARE(proxy.rowCount(), 1);
  proxy.setSearch("");
  proxy.setShow(DatasetFilesProxy::Show::Paths, {"tall.png"});
  QCOMPARE(proxy.rowCount(), 1);
  proxy.setShow(DatasetFilesProxy::Show::Unreadable);
  QCOMPARE(proxy.rowCount(), 1);
  QCOMPARE(proxy.index(0, 0).data().toString(), QString("broken.jpg"));
  proxy.setShow(DatasetFilesProxy::Show::Problems);
  QCOMPARE(proxy.rowCount(), 2);
  // A scan filling in metadata keeps the rows (no reset: scrolling and selection survive).
  QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
  dataset::DatasetIndex scanned = *context.project().datasets[1].index;
  scanned.files[1].metadata.width = 11;
  context.setDatasetIndex(2, scanned);
  QCOMPARE(reset.count(), 0);
  QCOMPARE(model.index(1, DatasetFilesModel::Dimensions).data().toString(), QString("11×30"));
  QCOMPARE(context.project().datasets[1].index->subsets.size(), std::size_t(1));
  // An undoable subset edit.
  context.putSubset(2, {"two", "manual", 2, 0, {"cats/wide.png", "tall.png"}});
  QCOMPARE(context.project().datasets[1].index->subsets.size(), std::size_t(2));
  context.undoStack()->undo();
  QCOMPARE(context.project().datasets[1].index->subsets.size(), std::size_t(1));
  context.removeSubset(2, "one");
  QVERIFY(context.project().datasets[1].index->subsets.empty());
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
