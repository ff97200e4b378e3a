// Offscreen tests of the main window: screenshots, panels and menus, errors, undo, autosave and recovery,
// drag and drop, and the tpu-studio --screenshot option.
#include "Screenshots.h"
#include "project/ProjectStore.h"
#include "ui/AboutDialog.h"
#include "ui/Autosave.h"
#include "ui/MainWindow.h"
#include "ui/Settings.h"
#include "ui/StudioContext.h"
#include "ui/jobs/JobQueue.h"
#include "ui/models/DatasetFilesModel.h"
#include "ui/panels/CompileConfigEditor.h"
#include "ui/views/DatasetView.h"
#include "ui/views/TableView.h"

#include <QAbstractButton>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QHeaderView>
#include <QLineEdit>
#include <QListView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStatusBar>
#include <QToolButton>
#include <QPushButton>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>
#include <QTreeWidget>
#include <QUndoStack>

using namespace tpuc;
using namespace tpuc::ui;

namespace {

project::Project exampleProject(const QString &dir) {
  project::Project p;
  p.model = {(dir + "/models/resnet18.onnx").toStdString(), project::hashBytes("x"), 46'827'520, "onnx", {}};
  p.importSettings.inputShapes = "[[1,3,224,224]]";
  p.importSettings.mean = {123.675, 116.28, 103.53};
  p.importSettings.scale = {0.0171, 0.0175, 0.0174};
  project::Dataset d{1, "imagenet-cali", {}};
  for (int i = 0; i < 100; ++i)
    d.samples.push_back({(dir + QString("/data/%1.jpg").arg(i)).toStdString(), "{}", {}});
  p.datasets.push_back(d);
  project::CaliTable table{1, "resnet18_cali", 1, "2026-01-01T00:00:00Z", "", {}};
  for (int i = 0; i < 60; ++i) {
    double t = 1.0 + 6.0 * std::abs(std::sin(i * 0.7)) + (i % 7) * 0.3;
    table.entries.push_back({"conv" + std::to_string(i), t, -t, t});
  }
  p.caliTables.push_back(table);
  p.quantTables.push_back({1, "mixed", 1, "", "", {{"conv0", "F16"}, {"fc", "F32"}}});
  p.compileConfigs.push_back({1, "int8", "bm1684x", "INT8", "{}"});
  project::RunRecord run;
  run.id = 1;
  run.configName = "int8";
  run.latencyMs = 0.552;
  run.memoryPeakBytes = 13'000'000;
  p.runs.push_back(run);
  p.notes = "ResNet-18 deployment study";
  return p;
}

QString saveExample(const QTemporaryDir &dir, const QString &name = "resnet18.tpuproj") {
  QString file = dir.filePath(name);
  if (Result<void> saved =
          project::saveProject(exampleProject(dir.path()), file.toStdString(), project::SaveMode::Replace);
      !saved)
    qFatal("%s", saved.error().c_str());
  return file;
}

/// Answers the next modal message box with `button` and records its text.
void answerNextMessageBox(QString *text, QMessageBox::StandardButton button) {
  QTimer::singleShot(0, [=] {
    auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
    if (!box) {
      answerNextMessageBox(text, button); // not shown yet: try again on the next event loop pass
      return;
    }
    *text = box->text();
    box->button(button)->click();
  });
}

/// A screenshot that is not a blank picture: a real window has many colours.
void saveScreenshot(QWidget &widget, const QString &name) {
  tpuc::ui::guitest::saveScreenshot(widget, name);
  const QImage image(tpuc::ui::guitest::screenshotDir() + "/" + name);
  QSet<QRgb> colours;
  for (int y = 0; y < image.height(); y += 7)
    for (int x = 0; x < image.width(); x += 7)
      colours.insert(image.pixel(x, y));
  QVERIFY2(colours.size() > 20, qPrintable(QString::number(colours.size())));
}

} // namespace

class TestMainWindow : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName("TPU Studio Tests");
    QApplication::setApplicationName("tst_mainwindow");
  }
  void smokeAndScreenshots();
  void damagedFileShowsMessage();
  void importSettingsEditIsUndoable();
  void autosaveIsOfferedAfterCrash();
  void dropProjectFileOpensIt();
  void screenshotOption();
  void jobsPanelAndStatusBar();
  void darkPalette();
  void recentFilesAndUntitledRecovery();
  void droppedImagesBecomeSamples();
  void compileConfigEditor();
  void transformJobCarriesImportSettings();
  void tableFilesImportAndExport();
};

void TestMainWindow::smokeAndScreenshots() {
  QTemporaryDir dir;
  QString file = saveExample(dir);
  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  window.startup(file);
  const int unit = window.fontMetrics().height();
  window.resize(unit * 72, unit * 44);
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  QCOMPARE(context.filePath(), QFileInfo(file).absoluteFilePath());
  QVERIFY(window.windowTitle().startsWith("resnet18.tpuproj"));

  QStringList menus;
  for (QAction *action : window.menuBar()->actions())
    menus << action->text().remove('&');
  QCOMPARE(menus, (QStringList{"File", "Edit", "View", "Run", "Help"}));
  QStringList docks;
  for (QDockWidget *dock : window.findChildren<QDockWidget *>())
    docks << dock->objectName();
  docks.sort();
  QCOMPARE(docks, (QStringList{"JobsDock", "LogDock", "ProjectDock", "PropertiesDock"}));
  saveScreenshot(window, "main-window.png");

  // Activating a calibration table in the explorer opens it in a central tab.
  auto *tree = window.findChild<QDockWidget *>("ProjectDock")->findChild<QTreeView *>();
  QVERIFY(tree);
  // The explorer fits its dock: names in full, the info column elided, no horizontal scrolling.
  QVERIFY(tree->header()->length() <= tree->viewport()->width());
  context.select({Section::CaliTables, 1});
  QCOMPARE(tree->currentIndex().data().toString(), QString("resnet18_cali v1"));
  Q_EMIT tree->activated(tree->currentIndex());
  QCOMPARE(window.centralTabs()->count(), 2);
  auto *tab = qobject_cast<TableView *>(window.centralTabs()->currentWidget());
  QVERIFY(tab);
  QCOMPARE(tab->view()->model()->rowCount(), 60);
  saveScreenshot(window, "main-window-cali-table.png");
  // Activating it again focuses the same tab.
  context.activate({Section::CaliTables, 1});
  QCOMPARE(window.centralTabs()->count(), 2);

  AboutDialog about(&window);
  about.show();
  QVERIFY(QTest::qWaitForWindowExposed(&about));
  QString aboutText;
  for (QLabel *label : about.findChildren<QLabel *>())
    aboutText += label->text();
  QVERIFY(aboutText.contains("TPU Studio " + studioVersion()));
  QVERIFY(!studioVersion().isEmpty());
  saveScreenshot(about, "about-dialog.png");
  window.close();
}

void TestMainWindow::damagedFileShowsMessage() {
  QTemporaryDir dir;
  QString file = dir.filePath("damaged.tpuproj");
  {
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray(8192, '\x5a'));
  }
  StudioContext context;
  MainWindow window(&context);
  window.startup(QString());
  QString text;
  answerNextMessageBox(&text, QMessageBox::Ok);
  QVERIFY(!window.openProjectFile(file));
  QVERIFY2(text.contains(file) && text.contains("not a TPU Studio project"), qPrintable(text));
  QVERIFY(context.filePath().isEmpty()); // the untitled project stays
}

void TestMainWindow::importSettingsEditIsUndoable() {
  QTemporaryDir dir;
  QString file = saveExample(dir);
  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  window.startup(file);
  window.show();
  context.select({Section::ImportSettings, -1});
  auto *props = window.findChild<QDockWidget *>("PropertiesDock");
  QLineEdit *shapes = nullptr;
  for (QLineEdit *edit : props->findChildren<QLineEdit *>())
    if (edit->text() == "[[1,3,224,224]]")
      shapes = edit;
  QVERIFY(shapes);
  shapes->setText("[[4,3,224,224]]");
  QPushButton *apply = nullptr;
  for (QPushButton *button : props->findChildren<QPushButton *>())
    if (button->text().remove('&') == "Apply")
      apply = button;
  QVERIFY(apply);
  apply->click();
  QCOMPARE(context.project().importSettings.inputShapes, std::string("[[4,3,224,224]]"));
  QVERIFY(context.isModified());
  QVERIFY(window.isWindowModified());
  context.undoStack()->undo();
  QCOMPARE(context.project().importSettings.inputShapes, std::string("[[1,3,224,224]]"));
  QCOMPARE(shapes->text(), QString("[[1,3,224,224]]")); // the editor follows the undo
  QVERIFY(!context.isModified());
  context.undoStack()->redo();
  QCOMPARE(context.project().importSettings.inputShapes, std::string("[[4,3,224,224]]"));
}

void TestMainWindow::autosaveIsOfferedAfterCrash() {
  QTemporaryDir dir;
  QString file = saveExample(dir);
  QString autosave = AutosaveController::autosavePathFor(QFileInfo(file).absoluteFilePath());
  {
    StudioContext context;
    MainWindow window(&context);
    window.setInteractive(false);
    window.startup(file);
    context.setNotes("edited before the crash");
    QTest::qWait(20); // the autosave must be visibly newer than the project file
    QVERIFY(window.autosave()->autosaveNow());
    QVERIFY(QFileInfo::exists(autosave));
    // The window goes away without closeEvent, as after a kill: the autosave stays.
  }
  QVERIFY(QFileInfo::exists(autosave));
  QCOMPARE(AutosaveController::pendingRecovery(QFileInfo(file).absoluteFilePath()), QFileInfo(autosave).absoluteFilePath());

  StudioContext context;
  MainWindow window(&context);
  QString question;
  answerNextMessageBox(&question, QMessageBox::Yes);
  window.startup(file);
  QVERIFY2(question.contains("Recover them?"), qPrintable(question));
  QCOMPARE(context.project().notes, std::string("edited before the crash"));
  QCOMPARE(context.filePath(), QFileInfo(file).absoluteFilePath());
  QVERIFY(context.isModified());
  QString error;
  QVERIFY2(context.save(&error), qPrintable(error));
  QVERIFY(!QFileInfo::exists(autosave)); // saved: nothing left to recover
  auto reloaded = project::loadProject(file.toStdString());
  QVERIFY2(reloaded, reloaded.error().c_str());
  QCOMPARE(reloaded->notes, std::string("edited before the crash"));
}

void TestMainWindow::dropProjectFileOpensIt() {
  QTemporaryDir dir;
  QString file = saveExample(dir, "dropped.tpuproj");
  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  window.startup(QString());
  window.show();
  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(file)});
  QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&window, &enter);
  QVERIFY(enter.isAccepted());
  QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&window, &drop);
  QCOMPARE(context.filePath(), QFileInfo(file).absoluteFilePath());
  // Something else is refused.
  QMimeData other;
  other.setUrls({QUrl::fromLocalFile(dir.filePath("notes.txt"))});
  QDragEnterEvent refused(QPoint(10, 10), Qt::CopyAction, &other, Qt::LeftButton, Qt::NoModifier);
  refused.setAccepted(false);
  QApplication::sendEvent(&window, &refused);
  QVERIFY(!refused.isAccepted());
}

void TestMainWindow::screenshotOption() {
  QTemporaryDir dir;
  QString file = saveExample(dir);
  QString png = QString(TPUC_SCREENSHOT_DIR) + "/tpu-studio-cli.png";
  QFile::remove(png);
  QProcess studio;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("QT_QPA_PLATFORM", "offscreen");
  studio.setProcessEnvironment(env);
  studio.start(TPUC_STUDIO, {"--screenshot", png, file});
  QVERIFY(studio.waitForFinished(60000));
  QCOMPARE(studio.exitCode(), 0);
  QImage image(png);
  QVERIFY(!image.isNull());
  QVERIFY(image.width() > 400 && image.height() > 300);
  // HiDPI: at scale factor 2 the same window is rendered with twice the device pixels.
  QString png2x = QString(TPUC_SCREENSHOT_DIR) + "/tpu-studio-cli-2x.png";
  env.insert("QT_SCALE_FACTOR", "2");
  studio.setProcessEnvironment(env);
  studio.start(TPUC_STUDIO, {"--screenshot", png2x, file});
  QVERIFY(studio.waitForFinished(60000));
  QCOMPARE(studio.exitCode(), 0);
  QImage image2x(png2x);
  QCOMPARE(image2x.size(), image.size() * 2);
  env.remove("QT_SCALE_FACTOR");
  studio.setProcessEnvironment(env);
  // A damaged project: the studio still renders, says why on stderr... and exits non-zero.
  QString broken = dir.filePath("broken.tpuproj");
  {
    QFile f(broken);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("not a project");
  }
  studio.start(TPUC_STUDIO, {"--screenshot", dir.filePath("b.png"), broken});
  QVERIFY(studio.waitForFinished(60000));
  QCOMPARE(studio.exitStatus(), QProcess::NormalExit);
  QCOMPARE(studio.exitCode(), 1);
  QVERIFY(QFileInfo::exists(dir.filePath("b.png")));
}

void TestMainWindow::jobsPanelAndStatusBar() {
  QTemporaryDir dir;
  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  window.startup(saveExample(dir));
  const int unit = window.fontMetrics().height();
  window.resize(unit * 72, unit * 44);
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  window.findChild<QDockWidget *>("JobsDock")->raise();
  JobQueue *jobs = window.jobQueue();
  QSignalSpy finished(jobs, &JobQueue::jobFinished);
  jobs->enqueue({"Transform resnet18", TPUC_FAKE_JOB, {"ok"}, {}});
  jobs->enqueue({"Calibrate resnet18", TPUC_FAKE_JOB, {"segfault"}, {}});
  int hang = jobs->enqueue({"Deploy resnet18 INT8", TPUC_FAKE_JOB, {"hang"}, {}});
  QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 20000);
  QTRY_VERIFY_WITH_TIMEOUT(jobs->job(hang)->fraction >= 0.5, 20000);
  // The running job's progress shows in the status bar, with a cancel button.
  auto *progress = window.statusBar()->findChild<QProgressBar *>();
  QVERIFY(progress && progress->isVisible());
  QCOMPARE(progress->value(), 500);
  saveScreenshot(window, "main-window-jobs.png");
  // The crash is in the log with the child's last words.
  auto *log = window.findChild<QDockWidget *>("LogDock")->findChild<QPlainTextEdit *>();
  QVERIFY2(log->toPlainText().contains("Calibrate resnet18 crashed (segmentation fault)"), qPrintable(log->toPlainText()));
  QVERIFY(log->toPlainText().contains("about to crash"));
  auto *cancel = window.statusBar()->findChild<QToolButton *>();
  QVERIFY(cancel && cancel->isVisible());
  cancel->click();
  QVERIFY(finished.wait(5000));
  QCOMPARE(jobs->job(hang)->state, JobState::Cancelled);
  QVERIFY(!progress->isVisible());
  // Each finished job's log is kept in the project's cache folder.
  QDir logs(context.filePath() + ".cache/logs");
  QStringList kept = logs.entryList({"*.log"}, QDir::Files, QDir::Name);
  QCOMPARE(kept.size(), 3);
  QVERIFY2(kept[1].endsWith("-job2-calibrate-resnet18.log"), qPrintable(kept.join(',')));
  QFile crashLog(logs.filePath(kept[1]));
  QVERIFY(crashLog.open(QIODevice::ReadOnly));
  QByteArray text = crashLog.readAll();
  QVERIFY(text.contains("about to crash"));
  QVERIFY(text.contains("crashed (segmentation fault)"));
}

void TestMainWindow::darkPalette() {
  QTemporaryDir dir;
  QPalette original = QApplication::palette();
  QPalette dark;
  dark.setColor(QPalette::Window, QColor(45, 45, 48));
  dark.setColor(QPalette::WindowText, QColor(220, 220, 220));
  dark.setColor(QPalette::Base, QColor(30, 30, 30));
  dark.setColor(QPalette::AlternateBase, QColor(45, 45, 48));
  dark.setColor(QPalette::Text, QColor(220, 220, 220));
  dark.setColor(QPalette::Button, QColor(45, 45, 48));
  dark.setColor(QPalette::ButtonText, QColor(220, 220, 220));
  dark.setColor(QPalette::Highlight, QColor(38, 120, 200));
  dark.setColor(QPalette::HighlightedText, Qt::white);
  dark.setColor(QPalette::PlaceholderText, QColor(150, 150, 150));
  QApplication::setPalette(dark);
  {
    StudioContext context;
    MainWindow window(&context);
    window.setInteractive(false);
    window.startup(saveExample(dir));
    const int unit = window.fontMetrics().height();
    window.resize(unit * 72, unit * 44);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    saveScreenshot(window, "main-window-dark.png");
    // Mostly dark: every view draws with the palette, none with fixed light colours.
    QImage image = window.grab().toImage();
    int darkPixels = 0, total = 0;
    for (int y = 0; y < image.height(); y += 5)
      for (int x = 0; x < image.width(); x += 5, ++total)
        darkPixels += qGray(image.pixel(x, y)) < 90;
    QVERIFY2(darkPixels > total * 8 / 10, qPrintable(QString("%1 of %2").arg(darkPixels).arg(total)));
  }
  QApplication::setPalette(original);
}

void TestMainWindow::recentFilesAndUntitledRecovery() {
  QTemporaryDir dir;
  QString file = saveExample(dir, "recent.tpuproj");
  {
    StudioContext context;
    MainWindow window(&context);
    window.setInteractive(false);
    QVERIFY(window.openProjectFile(file));
  }
  QCOMPARE(settings::recentFiles().value(0), QFileInfo(file).absoluteFilePath());

  // An untitled project that was never saved is offered back after a crash.
  QString untitled = AutosaveController::autosavePathFor(QString());
  QFile::remove(untitled);
  {
    StudioContext context;
    MainWindow window(&context);
    window.setInteractive(false);
    window.startup(QString());
    context.setNotes("never saved");
    QVERIFY(window.autosave()->autosaveNow());
  }
  QCOMPARE(AutosaveController::pendingRecovery(QString()), QFileInfo(untitled).absoluteFilePath());
  StudioContext context;
  MainWindow window(&context);
  QString question;
  answerNextMessageBox(&question, QMessageBox::Yes);
  window.startup(QString());
  QVERIFY2(question.contains("Recover the unsaved project?"), qPrintable(question));
  QCOMPARE(context.project().notes, std::string("never saved"));
  QVERIFY(context.filePath().isEmpty());
  QVERIFY(context.isModified());
  QString error;
  QVERIFY2(context.saveAs(dir.filePath("rescued.tpuproj"), &error), qPrintable(error));
  QVERIFY(!QFileInfo::exists(untitled));
}

void TestMainWindow::droppedImagesBecomeSamples() {
  QTemporaryDir dir;
  // Two images of different shapes, a .npy tensor and a file that only claims to be an image.
  QImage wide(640, 320, QImage::Format_RGB32);
  wide.fill(Qt::darkCyan);
  QVERIFY(wide.save(dir.filePath("wide.png")));
  QImage tall(100, 300, QImage::Format_RGB32);
  tall.fill(Qt::darkYellow);
  QVERIFY(tall.save(dir.filePath("tall.jpg")));
  {
    QFile npy(dir.filePath("input.npy"));
    QVERIFY(npy.open(QIODevice::WriteOnly));
    QByteArray header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, 224, 224), }";
    header.append(QByteArray(64 - (10 + header.size() + 1) % 64, ' ')).append('\n');
    npy.write(QByteArray("\x93NUMPY\x01\x00", 8));
    npy.write(QByteArray(1, char(header.size() & 0xff)) + QByteArray(1, char(header.size() >> 8)));
    npy.write(header);
    npy.write(QByteArray(4 * 3 * 224 * 224, '\0'));
  }
  {
    QFile fake(dir.filePath("fake.png"));
    QVERIFY(fake.open(QIODevice::WriteOnly));
    fake.write("not a png");
  }
  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  window.startup(QString());
  window.show();
  QSignalSpy added(&window, &MainWindow::samplesAdded);
  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(dir.filePath("wide.png")), QUrl::fromLocalFile(dir.filePath("tall.jpg")),
                QUrl::fromLocalFile(dir.filePath("input.npy")), QUrl::fromLocalFile(dir.filePath("fake.png"))});
  QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&window, &enter);
  QVERIFY(enter.isAccepted());
  QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&window, &drop);
  QVERIFY(added.wait(10000));
  QCOMPARE(added.at(0).at(0).toInt(), 3);
  QCOMPARE(context.project().datasets.size(), std::size_t(1));
  const auto &samples = context.project().datasets[0].samples;
  QCOMPARE(samples.size(), std::size_t(3));
  QCOMPARE(QString::fromStdString(samples[0].path), dir.filePath("wide.png"));
  QVERIFY2(QString::fromStdString(samples[0].metadataJson).contains("\"width\":640"), samples[0].metadataJson.c_str());
  QVERIFY2(QString::fromStdString(samples[0].metadataJson).contains("\"format\":\"png\""), samples[0].metadataJson.c_str());
  QVERIFY2(QString::fromStdString(samples[1].metadataJson).contains("\"format\":\"jpeg\""), samples[1].metadataJson.c_str());
  QImage thumb = QImage::fromData(QByteArray(reinterpret_cast<const char *>(samples[0].thumbnailPng.data()),
                                             static_cast<qsizetype>(samples[0].thumbnailPng.size())), "PNG");
  QCOMPARE(thumb.size(), QSize(96, 48));
  QVERIFY2(QString::fromStdString(samples[2].metadataJson).contains("\"shape\":[1,3,224,224]"), samples[2].metadataJson.c_str());
  QVERIFY(samples[2].thumbnailPng.empty());
  auto *log = window.findChild<QDockWidget *>("LogDock")->findChild<QPlainTextEdit *>();
  QVERIFY(log->toPlainText().contains("fake.png' is not a readable image"));
  // The dataset opens as a grid of thumbnails.
  const int unit = window.fontMetrics().height();
  window.resize(unit * 72, unit * 44);
  context.activate({Section::Datasets, context.project().datasets[0].id});
  auto *view = qobject_cast<DatasetView *>(window.centralTabs()->currentWidget());
  QVERIFY(view);
  QCOMPARE(view->view()->model()->rowCount(), 3);
  const int wideRow = view->filesModel()->rowOf(dir.filePath("wide.png"));
  QVERIFY(wideRow >= 0);
  QCOMPARE(view->filesModel()->index(wideRow, 0).data(Qt::DecorationRole).value<QIcon>().pixmap(96).size(),
           QSize(96, 96));
  saveScreenshot(window, "main-window-dataset.png");
  // One undo step takes the new dataset and its samples away.
  context.undoStack()->undo();
  QVERIFY(context.project().datasets.empty());
}

void TestMainWindow::compileConfigEditor() {
  QTemporaryDir dir;
  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  window.startup(saveExample(dir));
  window.show();
  qint64 second = context.addCompileConfig({0, "f16", "bm1688", "F16", "{}"});
  context.select({Section::CompileConfigs, 1});
  auto *editor = window.findChild<CompileConfigEditor *>();
  QVERIFY(editor && editor->isVisible());
  auto combos = editor->findChildren<QComboBox *>();
  QCOMPARE(combos.size(), 2);
  QCOMPARE(combos[1]->currentText(), QString("INT8"));
  const int unit = window.fontMetrics().height();
  window.resize(unit * 72, unit * 44);
  saveScreenshot(window, "main-window-compile-config.png");
  combos[1]->setCurrentText("W4F16");
  auto edits = editor->findChildren<QLineEdit *>();
  QLineEdit *options = edits[1];
  options->setText("{\"quant_input\": true}");
  QVERIFY(editor->apply());
  QCOMPARE(context.project().compileConfigs[0].precision, std::string("W4F16"));
  QCOMPARE(context.project().compileConfigs[0].optionsJson, std::string("{\"quant_input\": true}"));
  options->setText("[1, 2]");
  QVERIFY(!editor->apply()); // not an object
  options->setText("{\"quant_inptu\": true}");
  QVERIFY(!editor->apply()); // a misspelt option is named, not ignored
  QCOMPARE(context.project().compileConfigs[0].optionsJson, std::string("{\"quant_input\": true}"));
  auto *why = editor->findChild<QLabel *>("error");
  QVERIFY(why && why->text().contains("quant_inptu"));
  options->setText("{}");
  edits[0]->setText("f16");
  QVERIFY(!editor->apply()); // the name of the other configuration
  QCOMPARE(context.project().compileConfigs[0].name, std::string("int8"));
  context.undoStack()->undo();
  QCOMPARE(context.project().compileConfigs[0].precision, std::string("INT8"));
  QCOMPARE(combos[1]->currentText(), QString("INT8")); // the editor follows the undo
  QCOMPARE(context.project().compileConfigs[1].id, second);
}

void TestMainWindow::transformJobCarriesImportSettings() {
  QTemporaryDir dir;
  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  window.startup(QString());
  QCOMPARE(window.runTransform(), -1); // no model yet
  // An untitled project with a model: a user is asked to save it first (declining starts nothing), and the
  // project's properties show the file once it has one.
  context.setModel({dir.filePath("m.onnx").toStdString(), "sha256:0", 0, "onnx", {}});
  window.setInteractive(true);
  QString question;
  answerNextMessageBox(&question, QMessageBox::Cancel);
  QCOMPARE(window.runTransform(), -1);
  QVERIFY2(question.contains("The project has no file yet") && question.contains("Save it now?"), qPrintable(question));
  window.setInteractive(false);
  QString error;
  QVERIFY2(context.saveAs(dir.filePath("untitled-first.tpuproj"), &error), qPrintable(error));
  auto *properties = window.findChild<QTreeWidget *>("propertiesTree");
  QVERIFY(properties);
  QCOMPARE(properties->topLevelItem(1)->text(1), dir.filePath("untitled-first.tpuproj"));
  window.startup(saveExample(dir));
  qputenv("TPUC", "/nonexistent/tpuc");
  QCOMPARE(window.runTransform(), -1); // no engine
  qputenv("TPUC", TPUC_FAKE_JOB);
  QSignalSpy finished(window.jobQueue(), &JobQueue::jobFinished);
  int id = window.runTransform();
  qunsetenv("TPUC");
  QVERIFY(id > 0);
  QVERIFY(finished.wait(20000));
  JobInfo job = *window.jobQueue()->job(id);
  QCOMPARE(job.state, JobState::Succeeded);
  const QString cache = context.filePath() + ".cache";
  QCOMPARE(job.spec.workingDirectory, cache);
  // The pass snapshots go to a timestamped folder of the cache.
  const QRegularExpression snapshots(" --snapshots " + QRegularExpression::escape(cache) +
                                     "/snapshots/resnet18-\\d{8}-\\d{6}");
  QVERIFY2(job.log.value(0).contains(snapshots), qPrintable(job.log.value(0)));
  // The request's command line (driver::toArgv): required flags first, then those that differ from tpuc's
  // defaults (channel_format nchw is the default, so it is not passed).
  QCOMPARE(QString(job.log.value(0)).remove(snapshots),
           QString("argv: transform --model_name resnet18 --model_def ") +
               dir.filePath("models/resnet18.onnx") + " --mlir " + cache +
               "/resnet18.top.mlir"
               " --input_shapes [[1,3,224,224]] --mean 123.675,116.28,103.53"
               " --scale 0.0171,0.0175,0.0174 --pixel_format rgb --progress json");
}

void TestMainWindow::tableFilesImportAndExport() {
  QTemporaryDir dir;
  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  window.startup(saveExample(dir));
  {
    QFile f(dir.filePath("tpu_cali.txt"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("# genetated by run_calibration\nconv0 3.5 -2 3.5\nfc 9.25 -9.25 8\n");
  }
  qint64 id = window.importTableFile(dir.filePath("tpu_cali.txt"), Section::CaliTables);
  QVERIFY(id > 0);
  auto *tab = qobject_cast<TableView *>(window.centralTabs()->currentWidget());
  QVERIFY(tab);
  QCOMPARE(tab->view()->model()->rowCount(), 2);
  QCOMPARE(context.project().caliTables.back().name, std::string("tpu_cali"));
  QVERIFY(window.exportTableFile({Section::CaliTables, id}, dir.filePath("out.txt")));
  QFile out(dir.filePath("out.txt"));
  QVERIFY(out.open(QIODevice::ReadOnly));
  QVERIFY(out.readAll().endsWith("conv0 3.5 -2 3.5\nfc 9.25 -9.25 8\n"));
  // A malformed file names the file and line; nothing is added.
  {
    QFile f(dir.filePath("bad.txt"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("conv0 3.5 -2\n");
  }
  std::size_t tables = context.project().caliTables.size();
  QCOMPARE(window.importTableFile(dir.filePath("bad.txt"), Section::CaliTables), qint64(-1));
  QCOMPARE(context.project().caliTables.size(), tables);
  auto *log = window.findChild<QDockWidget *>("LogDock")->findChild<QPlainTextEdit *>();
  QVERIFY2(log->toPlainText().contains(dir.filePath("bad.txt") + ":1: expected 'op_name threshold min max'"),
           qPrintable(log->toPlainText()));
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
