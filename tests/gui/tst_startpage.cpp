// Offscreen tests of the studio's welcome (issue #24): the start page (recent projects, its buttons, the drop
// target), the first-run and restored window geometry, the keyboard shortcuts dialog, the guided tour, and a
// second tpu-studio handing its file to the running one.
#include "Screenshots.h"
#include "project/ProjectStore.h"
#include "ui/DocumentationBrowser.h"
#include "ui/ExampleProject.h"
#include "ui/GuidedTour.h"
#include "ui/MainWindow.h"
#include "ui/Settings.h"
#include "ui/ShortcutsDialog.h"
#include "ui/SingleInstance.h"
#include "ui/StartPage.h"
#include "ui/StudioContext.h"

#include <QAbstractButton>
#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QLocalServer>
#include <QLocalSocket>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProcess>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>

using namespace tpuc;
using namespace tpuc::ui;
using tpuc::ui::guitest::saveScreenshot;

namespace {

/// A small project file named `name` in `dir`.
QString writeProject(const QTemporaryDir &dir, const QString &name) {
  project::Project p;
  p.notes = name.toStdString();
  const QString path = dir.filePath(name + ".tpuproj");
  if (!project::saveProject(p, path.toStdString(), project::SaveMode::Replace))
    return {};
  return path;
}

/// Answers the next file dialog with `path` (the start page's buttons ask for a file or folder first).
void answerFileDialog(const QString &path) {
  QTimer::singleShot(0, [path] {
    auto *dialog = qobject_cast<QFileDialog *>(QApplication::activeModalWidget());
    QVERIFY(dialog);
    dialog->selectFile(path);
    QMetaObject::invokeMethod(dialog, "accept");
  });
}

QPalette darkPalette() {
  QPalette dark;
  dark.setColor(QPalette::Window, QColor(45, 45, 48));
  dark.setColor(QPalette::WindowText, QColor(220, 220, 220));
  dark.setColor(QPalette::Base, QColor(30, 30, 30));
  dark.setColor(QPalette::AlternateBase, QColor(55, 55, 58));
  dark.setColor(QPalette::Text, QColor(220, 220, 220));
  dark.setColor(QPalette::Button, QColor(60, 60, 64));
  dark.setColor(QPalette::ButtonText, QColor(220, 220, 220));
  dark.setColor(QPalette::Highlight, QColor(38, 120, 200));
  dark.setColor(QPalette::HighlightedText, Qt::white);
  dark.setColor(QPalette::PlaceholderText, QColor(150, 150, 150));
  dark.setColor(QPalette::Mid, QColor(100, 100, 105));
  dark.setColor(QPalette::ToolTipBase, QColor(60, 60, 64));
  dark.setColor(QPalette::ToolTipText, QColor(230, 230, 230));
  dark.setColor(QPalette::Disabled, QPalette::WindowText, QColor(120, 120, 120));
  dark.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(120, 120, 120));
  return dark;
}

QList<QAbstractButton *> recentButtons(MainWindow &window) {
  return window.startPage()->findChildren<QAbstractButton *>("RecentProject");
}

} // namespace

class TestStartPage : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName("TPU Studio Tests");
    // Settings of its own for the 2x run, which ctest may run beside this one.
    QApplication::setApplicationName(qEnvironmentVariableIsSet("QT_SCALE_FACTOR") ? "tst_startpage_hidpi"
                                                                                  : "tst_startpage");
  }
  void init() { QSettings().clear(); }
  void startPageListsRecentProjects();
  void startPageButtonsAndDropTarget();
  void screenshots();
  void geometryFirstRunAndRestored();
  void shortcutsDialogListsEveryShortcut();
  void tourStepsThroughCallouts();
  void forwardedFileAsksToSaveChanges();
  void secondStudioHandsItsFileOver();
};

void TestStartPage::forwardedFileAsksToSaveChanges() {
  QTemporaryDir dir;
  const QString a = writeProject(dir, "current"), b = writeProject(dir, "handed");
  StudioContext context;
  MainWindow window(&context);
  QVERIFY(window.startup(a));
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  context.addCompileConfig({0, "bm1684x-f16", "bm1684x", "F16", "{}"});
  QVERIFY(context.isModified());
  auto answer = [](QMessageBox::StandardButton button) {
    QTimer::singleShot(0, [button] {
      auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
      QVERIFY(box);
      QVERIFY(box->text().contains("unsaved changes"));
      box->button(button)->click();
    });
  };
  answer(QMessageBox::Cancel); // the changes stay, and so does the project
  QVERIFY(!window.openForwarded(b));
  QCOMPARE(context.filePath(), a);
  QVERIFY(context.isModified());
  answer(QMessageBox::Discard);
  QVERIFY(window.openForwarded(b));
  QCOMPARE(context.filePath(), b);
  QVERIFY(window.openForwarded(b));         // already open: nothing to ask
  QVERIFY(window.openForwarded(QString())); // only comes forward
}

void TestStartPage::startPageListsRecentProjects() {
  QTemporaryDir dir;
  const QString a = writeProject(dir, "alpha"), b = writeProject(dir, "beta");
  const QString missing = dir.filePath("gone.tpuproj");
  for (const QString &path : {missing, b, a})
    settings::addRecentFile(path);
  QCOMPARE(settings::recentFiles(), (QStringList{a, b, missing}));
  QVERIFY(settings::recentFileOpened(a).isValid());

  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  window.startup(QString());
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  QVERIFY(window.startPageShown());
  QList<QAbstractButton *> rows = recentButtons(window);
  QCOMPARE(rows.size(), 3);
  QCOMPARE(rows[0]->property("tpucPath").toString(), a);
  QVERIFY(rows[0]->isEnabled());
  QVERIFY(!rows[2]->isEnabled()); // the missing one is greyed, with its own Remove button
  QList<QPushButton *> removes = window.startPage()->findChildren<QPushButton *>("RemoveRecent");
  QCOMPARE(removes.size(), 1);
  removes[0]->click();
  QTRY_COMPARE(recentButtons(window).size(), 2);
  QCOMPARE(settings::recentFiles(), (QStringList{a, b}));
  // File ▸ Open Recent follows (and lists two projects, a separator and Clear List).
  QMenu *recentMenu = nullptr;
  for (QMenu *menu : window.menuBar()->findChildren<QMenu *>())
    if (menu->title() == QObject::tr("Open &Recent"))
      recentMenu = menu;
  QVERIFY(recentMenu);
  QCOMPARE(recentMenu->actions().size(), 4);

  // A click opens the project; the tabs replace the start page.
  recentButtons(window)[1]->click();
  QCOMPARE(context.filePath(), b);
  QVERIFY(!window.startPageShown());
  // Closing it comes back to the start page, with a picture of the project's window and beta first.
  const QString thumbnail = settings::recentThumbnailFile(b);
  QFile::remove(thumbnail);
  context.newProject();
  QVERIFY(window.startPageShown());
  QVERIFY(QFileInfo::exists(thumbnail));
  QVERIFY(!QImage(thumbnail).isNull());
  QCOMPARE(recentButtons(window)[0]->property("tpucPath").toString(), b);

  // File ▸ Open Recent ▸ Clear List empties both.
  recentMenu->actions().last()->trigger();
  QVERIFY(settings::recentFiles().isEmpty());
  QCOMPARE(recentButtons(window).size(), 0);
  QVERIFY(!recentMenu->isEnabled());
}

void TestStartPage::startPageButtonsAndDropTarget() {
  QTemporaryDir dir;
  const QString example = writeProject(dir, "example");
  const QString other = writeProject(dir, "other");
  const QString dropped = writeProject(dir, "dropped");
  const QString model = dir.filePath("m.mlir");
  {
    QFile f(model);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("module {}\n");
  }
  qputenv("TPUC_EXAMPLE_PROJECT", example.toUtf8());
  QCOMPARE(exampleProjectFile(), example);

  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  window.startup(QString());
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  StartPage *page = window.startPage();
  for (const char *name : {"OpenExample", "ImportModel", "ImportHfFolder", "OpenProject"}) {
    auto *button = page->findChild<QPushButton *>(name);
    QVERIFY2(button, name);
    QVERIFY2(!button->toolTip().isEmpty(), name);
  }

  page->findChild<QPushButton *>("OpenExample")->click();
  QCOMPARE(context.filePath(), example);
  context.newProject();
  QVERIFY(window.startPageShown());

  answerFileDialog(other);
  page->findChild<QPushButton *>("OpenProject")->click();
  QCOMPARE(context.filePath(), other);
  context.newProject();

  // Import Model… asks for the file, then imports it (non-interactive: without the import dialog).
  QSignalSpy imported(&window, &MainWindow::modelImported);
  answerFileDialog(model);
  page->findChild<QPushButton *>("ImportModel")->click();
  QVERIFY(imported.wait(10000));
  QCOMPARE(QString::fromStdString(context.project().model.path), model);
  QVERIFY(!window.startPageShown());
  context.newProject();
  QVERIFY(window.startPageShown());

  // Import HuggingFace Folder… asks for a folder; one without config.json is not a model: nothing recorded.
  QSignalSpy hf(page, &StartPage::importHfFolderRequested);
  QTimer::singleShot(0, [] {
    auto *dialog = qobject_cast<QFileDialog *>(QApplication::activeModalWidget());
    QVERIFY(dialog);
    QCOMPARE(dialog->fileMode(), QFileDialog::Directory);
    dialog->reject();
  });
  page->findChild<QPushButton *>("ImportHfFolder")->click();
  QCOMPARE(hf.size(), 1);
  QVERIFY(window.startPageShown());

  // The drop target takes what the window takes: a project opens.
  DropTarget *target = page->dropTarget();
  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(dropped)});
  QDragEnterEvent enter(QPoint(5, 5), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(target, &enter);
  QVERIFY(enter.isAccepted());
  QMimeData text;
  text.setUrls({QUrl::fromLocalFile(dir.filePath("notes.txt"))});
  QDragEnterEvent refused(QPoint(5, 5), Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
  refused.ignore();
  QApplication::sendEvent(target, &refused);
  QVERIFY(!refused.isAccepted());
  QDropEvent drop(QPointF(5, 5), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(target, &drop);
  QCOMPARE(context.filePath(), dropped);
  qunsetenv("TPUC_EXAMPLE_PROJECT");
}

void TestStartPage::screenshots() {
  // Run twice by ctest: as is, and with QT_SCALE_FACTOR=2 (the "@2x" pictures).
  const QString suffix = qApp->devicePixelRatio() > 1.5 ? QStringLiteral("@2x") : QString();
  QTemporaryDir dir;
  const QString a = writeProject(dir, "resnet18-int8"), b = writeProject(dir, "yolov5s");
  settings::addRecentFile(dir.filePath("old-experiment.tpuproj"));
  settings::addRecentFile(b);
  settings::addRecentFile(a);
  qputenv("TPUC_EXAMPLE_PROJECT", b.toUtf8()); // the Open Example button enabled, as in a build tree
  auto unset = qScopeGuard([] { qunsetenv("TPUC_EXAMPLE_PROJECT"); });
  const QPalette original = QApplication::palette();
  for (const bool dark : {false, true}) {
    if (dark)
      QApplication::setPalette(darkPalette());
    StudioContext context;
    MainWindow window(&context);
    window.setInteractive(false);
    window.startup(a); // a project with a picture of its window, taken when it closes
    const int unit = window.fontMetrics().height();
    window.resize(unit * 72, unit * 44);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    context.newProject();
    QVERIFY(window.startPageShown());
    const QString name = QStringLiteral("start-page%1%2.png").arg(dark ? "-dark" : "", suffix);
    saveScreenshot(window, name);
    if (dark) { // mostly dark: the start page draws with the palette
      const QImage image = window.grab().toImage();
      int darkPixels = 0, total = 0;
      for (int y = 0; y < image.height(); y += 5)
        for (int x = 0; x < image.width(); x += 5, ++total)
          darkPixels += qGray(image.pixel(x, y)) < 100;
      QVERIFY2(darkPixels > total * 8 / 10, qPrintable(QString("%1 of %2").arg(darkPixels).arg(total)));
    }
    if (!dark) {
      GuidedTour *tour = window.startTour();
      tour->next();
      saveScreenshot(window, QStringLiteral("guided-tour%1.png").arg(suffix));
      tour->close();
    }
  }
  QApplication::setPalette(original);
}

void TestStartPage::geometryFirstRunAndRestored() {
  const QRect free = QGuiApplication::primaryScreen()->availableGeometry();
  QRect saved;
  {
    StudioContext context;
    MainWindow window(&context);
    window.setInteractive(false);
    // The first start: 80 % of the free screen, centred.
    QCOMPARE(window.size(), free.size() * 4 / 5);
    QVERIFY(qAbs(window.geometry().center().x() - free.center().x()) <= 1);
    window.startup(QString());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.setGeometry(QRect(free.topLeft() + QPoint(40, 30), QSize(free.width() / 2, free.height() / 2)));
    window.findChild<QDockWidget *>("PropertiesDock")->hide();
    QApplication::processEvents();
    saved = window.geometry();
    QVERIFY(window.close());
  }
  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  QCOMPARE(window.geometry(), saved);
  QVERIFY(!window.findChild<QDockWidget *>("PropertiesDock")->isVisible());
}

void TestStartPage::shortcutsDialogListsEveryShortcut() {
  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  window.startup(QString());
  // Every action under the menu bar with a shortcut, found independently of menuShortcuts().
  QStringList expected;
  std::function<void(QMenu *)> walk = [&](QMenu *menu) {
    for (QAction *action : menu->actions()) {
      if (action->menu())
        walk(action->menu());
      else if (!action->shortcut().isEmpty())
        expected << action->shortcut().toString(QKeySequence::NativeText);
    }
  };
  for (QAction *action : window.menuBar()->actions())
    walk(action->menu());
  QVERIFY(expected.size() > 20);
  QVERIFY(expected.contains(QKeySequence(QKeySequence::Open).toString(QKeySequence::NativeText)));
  QVERIFY(expected.contains("F8"));
  QVERIFY(expected.contains("Ctrl+/"));

  // The main actions explain themselves in tool tips (their menus show them).
  QStringList withTips;
  for (QAction *action : window.menuBar()->actions())
    for (QAction *item : action->menu()->actions())
      if (item->toolTip() != QAction(item->text()).toolTip()) // not Qt's default tip (the text)
        withTips << QString(item->text()).remove('&');
  for (const QString &name : {"Open Project…", "Import Model…", "Import LLM Folder…", "Transform Model",
                              "Calibrate", "Deploy to Tpu", "Guided Tour", "Documentation"})
    QVERIFY2(withTips.contains(name), qPrintable(name));
  QVERIFY(!withTips.contains("Save") && !withTips.contains("Open MLIR Graph…")); // default tips do not count

  ShortcutsDialog dialog(window.menuBar(), &window);
  dialog.show();
  QVERIFY(QTest::qWaitForWindowExposed(&dialog));
  auto *tree = dialog.findChild<QTreeWidget *>();
  QVERIFY(tree);
  QStringList listed;
  for (int g = 0; g < tree->topLevelItemCount(); ++g)
    for (int i = 0; i < tree->topLevelItem(g)->childCount(); ++i)
      listed << tree->topLevelItem(g)->child(i)->text(1).section(", ", 0, 0);
  QCOMPARE(listed, expected);
  QStringList menus;
  for (int g = 0; g < tree->topLevelItemCount(); ++g)
    menus << tree->topLevelItem(g)->text(0);
  QVERIFY(menus.contains("File") && menus.contains("Run") && menus.contains("Help"));
  saveScreenshot(dialog, "keyboard-shortcuts.png");
}

void TestStartPage::tourStepsThroughCallouts() {
  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  window.startup(QString());
  const int unit = window.fontMetrics().height();
  window.resize(unit * 72, unit * 44);
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  QPointer<GuidedTour> tour = window.offerTourOnce();
  QVERIFY(tour);
  QVERIFY(settings::tourOffered());
  QCOMPARE(tour->stepCount(), 6);
  const char *docks[] = {"ProjectDock", nullptr, nullptr, "PropertiesDock", "JobsDock", "LogDock"};
  QStringList titles;
  for (int step = 0; step < tour->stepCount(); ++step) {
    QCOMPARE(tour->currentStep(), step);
    titles << tour->currentTitle();
    QWidget *target = docks[step] ? static_cast<QWidget *>(window.findChild<QDockWidget *>(docks[step]))
                                  : window.centralWidget();
    QVERIFY(target->isVisible()); // the jobs dock, tabbed behind the log, is brought forward
    const QRect rect(target->mapTo(&window, QPoint(0, 0)), target->size());
    QVERIFY2(tour->highlighted().contains(rect), qPrintable(titles.last()));
    auto *callout = tour->findChild<QWidget *>("TourCallout");
    QVERIFY(callout->isVisible());
    QVERIFY(window.rect().contains(callout->geometry()));
    if (step == 1) { // Back returns, Next goes on
      tour->findChild<QPushButton *>("TourBack")->click();
      QCOMPARE(tour->currentStep(), 0);
      tour->findChild<QPushButton *>("TourNext")->click();
      QCOMPARE(tour->currentStep(), 1);
    }
    tour->findChild<QPushButton *>("TourNext")->click();
  }
  QCOMPARE(titles.size(), 6);
  QCOMPARE(titles.removeDuplicates(), 0);
  QTRY_VERIFY(tour.isNull()); // Done closes it
  // Offered once: not again on the next start, but Help ▸ Guided Tour still shows it.
  QVERIFY(!window.offerTourOnce());
  QAction *help = nullptr;
  for (QAction *action : window.menuBar()->actions())
    if (action->text() == QObject::tr("&Help"))
      help = action;
  QVERIFY(help);
  QAction *tourAction = nullptr;
  for (QAction *action : help->menu()->actions())
    if (action->text() == QObject::tr("Guided &Tour"))
      tourAction = action;
  QVERIFY(tourAction);
  tourAction->trigger();
  QVERIFY(window.findChild<GuidedTour *>());
  // Help ▸ Documentation opens the documentation window on the README (the source tree's, in a build tree).
  QAction *docsAction = nullptr;
  for (QAction *action : help->menu()->actions())
    if (action->text() == QObject::tr("&Documentation"))
      docsAction = action;
  QVERIFY(docsAction);
  docsAction->trigger();
  auto *docs = window.findChild<DocumentationBrowser *>();
  QVERIFY(docs && docs->isVisible() && docs->isWindow());
  QVERIFY2(docs->currentFile().endsWith("/README.md"), qPrintable(docs->currentFile()));
}

void TestStartPage::secondStudioHandsItsFileOver() {
  QTemporaryDir dir;
  const QString project = writeProject(dir, "handed");
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("QT_QPA_PLATFORM", "offscreen");
  for (const char *var : {"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"})
    env.insert(var, dir.filePath(var));

  // The channel's name as the studios compute it, with their settings folder.
  const QString org = QApplication::organizationName(), app = QApplication::applicationName();
  const QByteArray oldConfig = qgetenv("XDG_CONFIG_HOME");
  QStandardPaths::setTestModeEnabled(false);
  QApplication::setOrganizationName("TPU Studio");
  QApplication::setApplicationName("tpu-studio");
  qputenv("XDG_CONFIG_HOME", dir.filePath("XDG_CONFIG_HOME").toUtf8());
  const QString server = SingleInstance::serverName();
  qputenv("XDG_CONFIG_HOME", oldConfig);
  QStandardPaths::setTestModeEnabled(true);
  QApplication::setOrganizationName(org);
  QApplication::setApplicationName(app);

  QProcess first;
  first.setProcessEnvironment(env);
  first.start(TPUC_STUDIO, {});
  QVERIFY(first.waitForStarted());
  auto cleanup = qScopeGuard([&] {
    first.kill();
    first.waitForFinished();
    QLocalServer::removeServer(server);
  });
  QTRY_VERIFY_WITH_TIMEOUT(
      [&] {
        QLocalSocket probe;
        probe.connectToServer(server);
        return probe.waitForConnected(200);
      }(),
      20000);

  QProcess second;
  second.setProcessEnvironment(env);
  second.start(TPUC_STUDIO, {project});
  QVERIFY(second.waitForFinished(20000));
  QCOMPARE(second.exitStatus(), QProcess::NormalExit);
  QCOMPARE(second.exitCode(), 0);
  QVERIFY(second.readAllStandardError().contains("handed"));
  QByteArray log;
  const QByteArray opened =
      "opened " + QFileInfo(project).absoluteFilePath().toUtf8() + " from another tpu-studio";
  QTRY_VERIFY_WITH_TIMEOUT((log += first.readAllStandardError()).contains(opened), 20000);
  QCOMPARE(first.state(), QProcess::Running);

  // --new-instance opts out: it stays (a studio of its own) instead of handing over.
  QProcess third;
  third.setProcessEnvironment(env);
  third.start(TPUC_STUDIO, {"--new-instance", project});
  QVERIFY(third.waitForStarted());
  QVERIFY(!third.waitForFinished(3000));
  QVERIFY(!third.readAllStandardError().contains("handed"));
  third.kill();
  third.waitForFinished();
}

QTEST_MAIN(TestStartPage)
#include "tst_startpage.moc"
