// Offscreen tests of the dataset view on generated folders with known answers (tests/common/DatasetGen.h:
// planted exact and near duplicates, a BGR-swapped copy, a dark outlier, a 0..1 scaled tensor, corrupt
// files): import by File ▸ Import Dataset Folder and by dropping the folder, the scan filling in metadata,
// grid and table over the same rows, the quality report with its findings clickable, every subset method,
// the data list export, a rescan noticing moved, changed, added and removed files, a project that moves
// with its dataset, and calibration from a subset with the real engine.
#include "DatasetGen.h"
#include "GuiTestSupport.h"
#include "Screenshots.h"

#include "project/ProjectStore.h"
#include "ui/MainWindow.h"
#include "ui/StudioContext.h"
#include "ui/jobs/JobQueue.h"
#include "ui/models/DatasetFilesModel.h"
#include "ui/models/ThumbnailCache.h"
#include "ui/views/DatasetQualityView.h"
#include "ui/views/DatasetView.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QListView>
#include <QMimeData>
#include <QProcess>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QUndoStack>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

using namespace tpuc;
using namespace tpuc::ui;

namespace {

using tpuc::ui::guitest::saveScreenshot;

/// Waits until the view's scan and quality report are done.
void waitForScan(DatasetView *view) { QTRY_VERIFY_WITH_TIMEOUT(view->idle(), 60000); }

/// Waits for every thumbnail the view asked for.
void waitForThumbnails(DatasetView *view) {
  QTRY_VERIFY_WITH_TIMEOUT(view->thumbnails()->pending() == 0, 30000);
  QApplication::processEvents();
}

DatasetView *currentDatasetView(MainWindow &window) {
  return qobject_cast<DatasetView *>(window.centralTabs()->currentWidget());
}

QStringList readLines(const QString &path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly))
    return {};
  return QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
}

} // namespace

class TestDatasetView : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void importScanQualityAndSubsets();
  void droppedFolderAndRescan();
  void calibrateFromSubset();
  void multiInputFolderPairsFiles();
};

void TestDatasetView::importScanQualityAndSubsets() {
  QTemporaryDir dir;
  const QString folder = dir.filePath("calib");
  const testing::QualityFolder planted = testing::generateQualityFolder(folder.toStdString());
  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  window.startup(QString());
  QString error;
  QVERIFY2(context.saveAs(dir.filePath("p.tpuproj"), &error), qPrintable(error));
  const int unit = window.fontMetrics().height();
  window.resize(unit * 80, unit * 48);
  window.show();

  QSignalSpy imported(&window, &MainWindow::datasetImported);
  window.importDatasetFolder(folder);
  QVERIFY(imported.wait(10000));
  const qint64 id = imported.front().front().toLongLong();
  QVERIFY(id > 0);
  DatasetView *view = currentDatasetView(window);
  QVERIFY(view);
  // The files are listed at once (before any metadata), readable and unreadable alike.
  const size_t total = planted.readable + planted.corrupt.size();
  waitForScan(view);
  waitForThumbnails(view);
  saveScreenshot(window, "dataset-imported.png");
  const project::Dataset &d = context.project().datasets.back();
  QVERIFY(d.index);
  QCOMPARE(d.index->files.size(), planted.readable);
  QCOMPARE(d.index->unreadable.size(), planted.corrupt.size());
  QCOMPARE(view->filesModel()->rowCount(), static_cast<int>(total));
  QVERIFY(std::all_of(d.index->files.begin(), d.index->files.end(), [](const dataset::FileEntry &e) {
    return !e.contentHash.empty() && !e.metadata.format.empty();
  }));
  // Unreadable files are rows with their reason, never fatal.
  for (const std::string &path : planted.corrupt) {
    const int row = view->filesModel()->rowOf(QString::fromStdString(path));
    QVERIFY2(row >= 0, path.c_str());
    QVERIFY(view->filesModel()->row(row).unreadable);
    QVERIFY(!view->filesModel()->row(row).problem.isEmpty());
  }

  // The quality report names what was planted, and its findings select the file.
  const dataset::QualityReport &report = view->qualityView()->report();
  QCOMPARE(report.exactDuplicates.size(), std::size_t(1));
  QCOMPARE(report.channelSwaps.size(), std::size_t(1));
  QCOMPARE(report.channelSwaps[0].swapped, planted.swapped);
  std::set<std::string> outliers;
  for (const dataset::Outlier &o : report.outliers)
    outliers.insert(o.path);
  QVERIFY(outliers.count(planted.darkOutlier));
  QVERIFY(outliers.count(planted.scaledTensor));
  const int swappedRow = view->filesModel()->rowOf(QString::fromStdString(planted.swapped));
  QVERIFY2(view->filesModel()->row(swappedRow).problem.contains("swapped"),
           qPrintable(view->filesModel()->row(swappedRow).problem));
  QTreeWidget *findings = view->qualityView()->findings();
  QTreeWidgetItem *swapItem = nullptr;
  for (QTreeWidgetItemIterator it(findings); *it; ++it)
    if ((*it)->text(0) == QString::fromStdString(planted.swapped))
      swapItem = *it;
  QVERIFY(swapItem);
  view->showSubset(QString());
  view->setSearch("cats"); // the swapped copy is not under cats/: a click still finds it
  Q_EMIT findings->itemClicked(swapItem, 0);
  QCOMPARE(view->selectedPaths(), QStringList{QString::fromStdString(planted.swapped)});
  view->setSearch(QString());

  // Grid and table share rows and selection; the table sorts by size numerically.
  QCOMPARE(view->view()->model(), view->table()->model());
  view->showGrid(false);
  view->table()->sortByColumn(DatasetFilesModel::Size, Qt::DescendingOrder);
  const QAbstractItemModel *shown = view->table()->model();
  for (int r = 1; r < shown->rowCount(); ++r)
    QVERIFY(shown->index(r - 1, DatasetFilesModel::Size).data(DatasetFilesModel::SortRole).toLongLong() >=
            shown->index(r, DatasetFilesModel::Size).data(DatasetFilesModel::SortRole).toLongLong());
  saveScreenshot(window, "dataset-table.png");
  view->table()->sortByColumn(DatasetFilesModel::Name, Qt::AscendingOrder);
  view->showGrid(true);
  waitForThumbnails(view);
  saveScreenshot(window, "dataset-grid.png");

  // Every subset method, saved in the project (undoable) and shown as a filter.
  QSignalSpy made(view, &DatasetView::subsetMade);
  auto make = [&](const QString &name, const QString &method, int count, const QStringList &paths = {}) {
    made.clear();
    view->makeSubset(name, method, count, 7, paths);
    QVERIFY(made.wait(10000));
    QVERIFY2(made.front().front().toString().isEmpty(), qPrintable(made.front().front().toString()));
  };
  make("r10", "random", 10);
  make("f5", "first", 5);
  make("s9", "stratified", 9);
  make("d6", "diverse", 6);
  make("two", "manual", 0,
       {"cats/" + QString::fromStdString(std::filesystem::path(d.index->files[3].path).filename().string()),
        QString::fromStdString(planted.swapped)});
  const dataset::DatasetIndex &index = *context.project().datasets.back().index;
  QCOMPARE(index.subsets.size(), std::size_t(5));
  QCOMPARE(index.findSubset("r10")->paths.size(), std::size_t(10));
  QCOMPARE(index.findSubset("d6")->method, std::string("diverse"));
  QCOMPARE(view->shownSubset(), QString("two"));
  QCOMPARE(view->view()->model()->rowCount(), 2);
  // A bad request is one line naming the field, and the subset list is unchanged.
  made.clear();
  view->makeSubset("bad", "manual", 0, 0, {"no/such.png"});
  QVERIFY(made.wait(10000));
  QVERIFY(made.front().front().toString().contains("no/such.png"));
  QCOMPARE(context.project().datasets.back().index->subsets.size(), std::size_t(5));
  // The data list of the shown subset: absolute paths a line.
  view->showSubset("s9");
  QVERIFY(view->writeDataList(dir.filePath("s9.txt")));
  const QStringList lines = readLines(dir.filePath("s9.txt"));
  QCOMPARE(lines.size(), 9);
  for (const QString &line : lines)
    QVERIFY2(QFileInfo(line).isAbsolute() && QFileInfo::exists(line), qPrintable(line));
  view->showSubset("d6");
  saveScreenshot(window, "dataset-subset.png");
  context.undoStack()->undo(); // the manual subset
  QCOMPARE(context.project().datasets.back().index->subsets.size(), std::size_t(4));

  // The quality tab.
  view->findChild<QTabWidget *>()->setCurrentIndex(1);
  saveScreenshot(window, "dataset-quality.png");

  // The project keeps the index, the subsets and a root relative to it: move both, reopen, rescan.
  QVERIFY2(context.save(&error), qPrintable(error));
  const QString moved = dir.filePath("moved");
  QVERIFY(QDir().mkpath(moved));
  QVERIFY(QDir().rename(dir.filePath("calib"), moved + "/calib"));
  QVERIFY(QFile::rename(dir.filePath("p.tpuproj"), moved + "/p.tpuproj"));
  StudioContext reopened;
  QVERIFY2(reopened.openProject(moved + "/p.tpuproj", &error), qPrintable(error));
  const project::Dataset &again = reopened.project().datasets.back();
  QVERIFY(again.index);
  QCOMPARE(QString::fromStdString(again.index->root), QDir(moved + "/calib").absolutePath());
  QCOMPARE(again.index->subsets.size(), std::size_t(4));
  DatasetView reopenedView(&reopened, again.id);
  waitForScan(&reopenedView);
  QVERIFY(reopenedView.changesText().isEmpty()); // nothing changed on disk
  QVERIFY(!reopened.isModified());
}

void TestDatasetView::droppedFolderAndRescan() {
  QTemporaryDir dir;
  const QString folder = dir.filePath("drop");
  testing::generateImageFolder(folder.toStdString(), 12, 3);
  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  window.startup(QString());
  window.show();
  QSignalSpy imported(&window, &MainWindow::datasetImported);
  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(folder)});
  QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&window, &enter);
  QVERIFY(enter.isAccepted());
  QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&window, &drop);
  QVERIFY(imported.wait(10000));
  DatasetView *view = currentDatasetView(window);
  QVERIFY(view);
  waitForScan(view);
  QVERIFY(view->changesText().isEmpty()); // the first scan fills in the listing: no "changes"
  const dataset::DatasetIndex before = *context.project().datasets.back().index;
  QCOMPARE(before.files.size(), std::size_t(12));
  QSignalSpy made(view, &DatasetView::subsetMade);
  view->makeSubset("all", "first", 12, 0, {});
  QVERIFY(made.wait(10000));

  // Move one file, change one, remove one, add one: the rescan says so and the subset follows the move.
  const QString root = QString::fromStdString(before.root);
  const QString a = QString::fromStdString(before.files[0].path),
                b = QString::fromStdString(before.files[1].path),
                c = QString::fromStdString(before.files[2].path);
  QVERIFY(QFile::rename(root + "/" + a, root + "/renamed.png"));
  testing::writeImage((root + "/" + b).toStdString(), testing::patternImage(991));
  QVERIFY(QFile::remove(root + "/" + c));
  testing::writeImage((root + "/new.png").toStdString(), testing::patternImage(992));
  QSignalSpy scanned(view, &DatasetView::scanFinished);
  view->rescan();
  QVERIFY(scanned.wait(30000));
  QVERIFY(scanned.front().front().toBool());
  const QString changes = view->changesText();
  QVERIFY2(changes.contains("1 added") && changes.contains("1 removed") && changes.contains("1 changed") &&
               changes.contains("1 moved"),
           qPrintable(changes));
  const dataset::DatasetIndex &after = *context.project().datasets.back().index;
  const std::vector<std::string> &paths = after.findSubset("all")->paths;
  QVERIFY(std::find(paths.begin(), paths.end(), "renamed.png") != paths.end());
  QVERIFY(std::find(paths.begin(), paths.end(), c.toStdString()) == paths.end());
  QCOMPARE(paths.size(), std::size_t(11));
  QVERIFY(view->filesModel()->rowOf("new.png") >= 0);

  // A folder that disappeared is reported, not fatal.
  QVERIFY(QDir(root).removeRecursively());
  scanned.clear();
  view->rescan();
  QVERIFY(scanned.wait(30000));
  QVERIFY(!scanned.front().front().toBool());
  QCOMPARE(context.project().datasets.back().index->files.size(), after.files.size());
}

void TestDatasetView::calibrateFromSubset() {
#ifndef TPUC_ENGINE
  QSKIP("the tpuc target is not part of this build");
#else
  QTemporaryDir dir;
  QString problem = ui::guitest::runPython(TPUC_CNN_SCRIPT, {dir.path()});
  QVERIFY2(problem.isEmpty(), qPrintable(problem));
  const QString folder = dir.filePath("images");
  testing::generateImageFolder(folder.toStdString(), 9, 3);
  StudioContext context;
  MainWindow window(&context);
  project::ImportSettings settings;
  settings.inputShapes = "[[1,3,8,8]]";
  settings.mean = {0, 0, 0};
  settings.scale = {0.0039, 0.0039, 0.0039};
  problem = ui::guitest::startWithModel(window, context, dir.filePath("cnn.onnx"), settings);
  QVERIFY2(problem.isEmpty(), qPrintable(problem));
  QString error;
  QVERIFY2(context.saveAs(dir.filePath("cnn.tpuproj"), &error), qPrintable(error));
  QSignalSpy datasets(&window, &MainWindow::datasetImported);
  window.importDatasetFolder(folder);
  QVERIFY(datasets.wait(10000));
  DatasetView *view = currentDatasetView(window);
  QVERIFY(view);
  waitForScan(view);
  QSignalSpy made(view, &DatasetView::subsetMade);
  view->makeSubset("four", "stratified", 4, 3, {});
  QVERIFY(made.wait(10000));
  // An unknown subset is refused with a message and no job.
  QCOMPARE(window.runCalibrate(datasets.front().front().toLongLong(), "max", "nope"), -1);
  QCOMPARE(window.jobQueue()->jobs().size(), 0);

  qputenv("TPUC", TPUC_ENGINE);
  QSignalSpy added(&window, &MainWindow::calibrationTableAdded);
  Q_EMIT view->calibrateRequested(datasets.front().front().toLongLong(), view->shownSubset(), "max");
  qunsetenv("TPUC");
  QVERIFY(added.wait(120000));
  QVERIFY(added.front().front().toLongLong() > 0);
  const project::CaliTable &table = context.project().caliTables.back();
  QCOMPARE(table.name, std::string("cnn images/four max"));
  QVERIFY2(QString::fromStdString(table.comment).contains("4 samples") &&
               QString::fromStdString(table.comment).contains("subset 'four'"),
           table.comment.c_str());
  // The engine read exactly the subset's files.
  const JobInfo job = window.jobQueue()->jobs().back();
  const int list = job.spec.arguments.indexOf("--data_list");
  QVERIFY(list > 0);
  QCOMPARE(readLines(job.spec.arguments[list + 1]).size(), 4);
#endif
}

void TestDatasetView::multiInputFolderPairsFiles() {
#ifndef TPUC_ENGINE
  QSKIP("the tpuc target is not part of this build");
#else
  // A two-input model and a folder laid out by input (ds/x/sK.npy, ds/y/sK.npy): the studio's calibration
  // pairs the files by name, so the max thresholds are those of the pairs (x 4, y 50, z 51).
  QTemporaryDir dir;
  QString problem = ui::guitest::runPython(TPUC_TWO_INPUTS_SCRIPT, {dir.path()});
  QVERIFY2(problem.isEmpty(), qPrintable(problem));
  StudioContext context;
  MainWindow window(&context);
  project::ImportSettings settings;
  settings.inputShapes = "[[1,8],[1,8]]";
  problem = ui::guitest::startWithModel(window, context, dir.filePath("two.onnx"), settings);
  QVERIFY2(problem.isEmpty(), qPrintable(problem));
  QString error;
  QVERIFY2(context.saveAs(dir.filePath("two.tpuproj"), &error), qPrintable(error));
  QSignalSpy datasets(&window, &MainWindow::datasetImported);
  window.importDatasetFolder(dir.filePath("ds"));
  QVERIFY(datasets.wait(10000));
  DatasetView *view = currentDatasetView(window); // calibrating opens the activation statistics in front
  QVERIFY(view);
  waitForScan(view);
  qputenv("TPUC", TPUC_ENGINE);
  QSignalSpy added(&window, &MainWindow::calibrationTableAdded);
  QVERIFY(window.runCalibrate(datasets.front().front().toLongLong(), "max") > 0);
  qunsetenv("TPUC");
  QVERIFY(added.wait(120000));
  QVERIFY2(added.front().front().toLongLong() > 0,
           qPrintable(window.jobQueue()->jobs().back().log.join('\n')));
  std::map<std::string, double> thresholds;
  for (const project::CaliEntry &e : context.project().caliTables.back().entries)
    thresholds[e.opName] = e.threshold;
  QCOMPARE(thresholds["x"], 4.0);
  QCOMPARE(thresholds["y"], 50.0);
  QCOMPARE(thresholds["z"], 51.0);
  QVERIFY2(QString::fromStdString(context.project().caliTables.back().comment).contains("4 samples"),
           context.project().caliTables.back().comment.c_str());

  // A file without its partner is refused before anything runs, naming it.
  QVERIFY(QFile::copy(dir.filePath("ds/x/s0.npy"), dir.filePath("ds/x/lonely.npy")));
  QSignalSpy scanned(view, &DatasetView::scanFinished);
  view->rescan();
  QVERIFY(scanned.wait(30000));
  const qsizetype jobs = window.jobQueue()->jobs().size();
  qputenv("TPUC", TPUC_ENGINE);
  QCOMPARE(window.runCalibrate(datasets.front().front().toLongLong(), "max"), -1);
  qunsetenv("TPUC");
  QCOMPARE(window.jobQueue()->jobs().size(), jobs);
#endif
}

QTEST_MAIN(TestDatasetView)
#include "tst_datasetview.moc"
