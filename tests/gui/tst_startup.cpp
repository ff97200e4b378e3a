// Cold start of tpu-studio with the example project to a rendered window: the process exits cleanly and the
// window it painted holds the project. The time it takes is a benchmark (bench/StartupBench.cpp,
// `bench-startup`), not asserted here: a loaded machine must not fail the suite.
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

class TestStartup : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void coldStartWithExampleProject();
};

void TestStartup::coldStartWithExampleProject() {
  const QString project = qEnvironmentVariable("TPUC_EXAMPLE_PROJECT");
  QVERIFY2(QFileInfo::exists(project), qPrintable("example project missing: '" + project + "'"));
  QTemporaryDir dir;
  QProcess studio;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("QT_QPA_PLATFORM", "offscreen");
  studio.setProcessEnvironment(env);
  // --screenshot exits once the window with the project is laid out and painted.
  studio.start(TPUC_STUDIO, {"--screenshot", dir.filePath("start.png"), project});
  QVERIFY(studio.waitForFinished(60000));
  QCOMPARE(studio.exitStatus(), QProcess::NormalExit);
  QVERIFY2(studio.exitCode() == 0, studio.readAllStandardError().constData());
  QImage shot(dir.filePath("start.png"));
  QVERIFY2(!shot.isNull(), "no screenshot written");
  QVERIFY2(shot.width() >= 640 && shot.height() >= 400,
           qPrintable(QString("window %1x%2").arg(shot.width()).arg(shot.height())));
  // A painted window is not one flat colour.
  QImage small = shot.scaled(64, 40);
  QSet<QRgb> colours;
  for (int y = 0; y < small.height(); ++y)
    for (int x = 0; x < small.width(); ++x)
      colours.insert(small.pixel(x, y));
  QVERIFY2(colours.size() > 8, qPrintable(QString("%1 colours").arg(colours.size())));
}

QTEST_GUILESS_MAIN(TestStartup)
#include "tst_startup.moc"
