// Run ▸ Run Whole Pipeline (issue 24). The runner with stand-in jobs: the order, a failed step stopping the
// rest, skipped and refused steps, cancel, a result taken before or after its job's end. Then the real
// thing on a copy of the example project: the INT8 configuration transforms, calibrates on the dataset its
// table names, deploys and runs on the simulator; the window's buttons open what it made; an F16
// configuration skips the calibration; a configuration whose test input is gone stops at deploy saying why.
#include "GuiTestSupport.h"
#include "Screenshots.h"
#include "project/Project.h"
#include "ui/MainWindow.h"
#include "ui/PipelineDialog.h"
#include "ui/PipelineRunner.h"
#include "ui/StudioContext.h"
#include "ui/jobs/JobQueue.h"
#include "ui/views/AccuracyView.h"
#include "ui/views/ChipViewsTab.h"
#include "ui/views/OverviewView.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace tpuc;
using namespace tpuc::ui;
using State = PipelineRunner::StepState;

namespace {

JobSpec fake(const QString &mode) { return {"fake " + mode, TPUC_FAKE_JOB, {mode}, {}}; }

PipelineStep jobStep(JobQueue &jobs, const QString &name, const QString &mode, QStringList *order) {
  return {name, [&jobs, name, mode, order] {
            order->append(name);
            return StepStart{jobs.enqueue(fake(mode)), {}, {}};
          }};
}

bool waitFinished(PipelineRunner &runner, int ms = 30000) {
  return QTest::qWaitFor([&] { return runner.isFinished(); }, ms);
}

#ifdef TPUC_ENGINE
/// A copy of the example project opened in a main window that runs the real engine, without message boxes;
/// `opened` is empty when it opened, else why not.
struct ExampleWindow {
  QTemporaryDir dir;
  QString file;
  bool engine = (qputenv("TPUC", TPUC_ENGINE), true);
  StudioContext context;
  MainWindow window{&context};
  QString opened = open();

  QString open() {
    if (QString copied = guitest::copyExampleProject(dir.path(), &file); !copied.isEmpty())
      return copied;
    window.setInteractive(false);
    return window.startup(file) ? QString() : "the studio did not open " + file;
  }
};
#endif

} // namespace

class TestPipeline : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void stepsRunInOrder();
  void failedStepStopsTheRest();
  void skippedAndRefusedSteps();
  void cancelKillsTheRunningJob();
  void resultTakenBeforeOrAfterTheJobEnds();
  void recipeOfATableName();
  void exampleProjectEndToEnd();
  void projectWithoutDataRunsOnARandomInput();
};

void TestPipeline::stepsRunInOrder() {
  JobQueue jobs;
  QStringList order;
  PipelineRunner runner(&jobs, {jobStep(jobs, "a", "ok", &order), jobStep(jobs, "b", "ok", &order),
                                jobStep(jobs, "c", "ok", &order)});
  QSignalSpy finished(&runner, &PipelineRunner::finished);
  runner.start();
  // One at a time: the second is not queued before the first has ended.
  QCOMPARE(order, QStringList{"a"});
  QCOMPARE(runner.currentStep(), 0);
  QVERIFY(waitFinished(runner));
  QCOMPARE(order, (QStringList{"a", "b", "c"}));
  QCOMPARE(finished.size(), 1);
  QCOMPARE(finished.front().front().toBool(), true);
  QVERIFY(runner.succeeded());
  for (int step = 0; step < 3; ++step) {
    QCOMPARE(runner.stepState(step), State::Succeeded);
    QVERIFY(runner.stepJob(step) > 0);
    QVERIFY(runner.stepMilliseconds(step) >= 0);
  }
  QVERIFY(runner.stepJob(0) < runner.stepJob(1));
}

void TestPipeline::failedStepStopsTheRest() {
  JobQueue jobs;
  QStringList order;
  PipelineRunner runner(&jobs, {jobStep(jobs, "a", "ok", &order), jobStep(jobs, "b", "fail", &order),
                                jobStep(jobs, "c", "ok", &order)});
  runner.start();
  QVERIFY(waitFinished(runner));
  QCOMPARE(order, (QStringList{"a", "b"}));
  QVERIFY(!runner.succeeded());
  QCOMPARE(runner.stepState(1), State::Failed);
  // The engine's one line, not the whole log.
  QVERIFY2(runner.stepDetail(1).contains("exit"), qPrintable(runner.stepDetail(1)));
  QVERIFY(!runner.stepDetail(1).contains('\n'));
  QCOMPARE(runner.stepState(2), State::Cancelled);
  QCOMPARE(runner.stepDetail(2), QString("not run: b failed"));
}

void TestPipeline::skippedAndRefusedSteps() {
  JobQueue jobs;
  QStringList order;
  PipelineRunner runner(&jobs, {{"skip",
                                 [] {
                                   return StepStart{-1, "nothing to do", {}};
                                 }},
                                jobStep(jobs, "a", "ok", &order),
                                {"refuse",
                                 [] {
                                   return StepStart{-1, {}, "the model is gone"};
                                 }},
                                jobStep(jobs, "never", "ok", &order)});
  runner.start();
  QVERIFY(waitFinished(runner));
  QCOMPARE(order, QStringList{"a"});
  QCOMPARE(runner.stepState(0), State::Skipped);
  QCOMPARE(runner.stepDetail(0), QString("nothing to do"));
  QCOMPARE(runner.stepState(1), State::Succeeded);
  QCOMPARE(runner.stepState(2), State::Failed);
  QCOMPARE(runner.stepDetail(2), QString("the model is gone"));
  QCOMPARE(runner.stepState(3), State::Cancelled);
  QVERIFY(!runner.succeeded());

  // Only skipped steps: a success.
  PipelineRunner skipping(&jobs, {{"skip", [] { return StepStart{-1, "no", {}}; }}});
  skipping.start();
  QVERIFY(skipping.isFinished());
  QVERIFY(skipping.succeeded());
}

void TestPipeline::cancelKillsTheRunningJob() {
  JobQueue jobs;
  QStringList order;
  PipelineRunner runner(&jobs, {jobStep(jobs, "slow", "hang", &order), jobStep(jobs, "after", "ok", &order)});
  runner.start();
  QVERIFY(QTest::qWaitFor([&] { return jobs.runningJob() == runner.stepJob(0); }, 10000));
  runner.cancel();
  QVERIFY(waitFinished(runner));
  QCOMPARE(runner.stepState(0), State::Cancelled);
  QCOMPARE(runner.stepState(1), State::Cancelled);
  QCOMPARE(order, QStringList{"slow"});
  QCOMPARE(jobs.job(runner.stepJob(0))->state, JobState::Cancelled);
}

void TestPipeline::resultTakenBeforeOrAfterTheJobEnds() {
  for (const bool early : {false, true}) {
    JobQueue jobs;
    QStringList order;
    PipelineStep step = jobStep(jobs, "deploy", "ok", &order);
    step.waitsForResult = true;
    PipelineRunner runner(&jobs, {step, jobStep(jobs, "next", "ok", &order)});
    // The studio records the run in its own handler of the job's end, which runs before the runner's
    // (queued) one when `early`, else some time after it.
    connect(&jobs, &JobQueue::jobFinished, &runner, [&](int job, JobState) {
      if (early)
        runner.resultTaken(job, 41);
      else
        QTimer::singleShot(300, &runner, [&runner, job] { runner.resultTaken(job, 42); });
    });
    runner.start();
    if (!early) {
      // Ended but not taken in: the next step waits.
      QVERIFY(
          QTest::qWaitFor([&] { return jobs.job(runner.stepJob(0))->state == JobState::Succeeded; }, 10000));
      QTest::qWait(50);
      QCOMPARE(runner.stepState(0), State::Running);
      QCOMPARE(order, QStringList{"deploy"});
    }
    QVERIFY(waitFinished(runner));
    QVERIFY(runner.succeeded());
    QCOMPARE(runner.stepRun(0), early ? 41 : 42);
    QCOMPARE(runner.stepRun(1), -1); // does not wait for one
  }
}

void TestPipeline::recipeOfATableName() {
  project::Project p;
  p.datasets.push_back({1, "lines", {}});
  p.datasets.push_back({2, "lines/extra", {}});
  p.datasets.push_back({3, "photos", {}});
  auto recipe = [&](const QString &name) { return calibrationRecipe(p, "net", name); };
  QCOMPARE(recipe("net photos kl")->datasetId, 3);
  QCOMPARE(recipe("net photos kl")->method, QString("kl"));
  QVERIFY(recipe("net photos kl")->subset.isEmpty());
  // The longest dataset name wins over a subset of a shorter one.
  QCOMPARE(recipe("net lines/extra max")->datasetId, 2);
  QCOMPARE(recipe("net lines/hard mse")->datasetId, 1);
  QCOMPARE(recipe("net lines/hard mse")->subset, QString("hard"));
  QVERIFY(!recipe("net nowhere kl"));
  QVERIFY(!recipe("other photos kl"));
  QVERIFY(!recipe("net photos"));
  QVERIFY(!recipe("net"));
}

void TestPipeline::exampleProjectEndToEnd() {
#ifndef TPUC_ENGINE
  QSKIP("this build has no tpuc");
#else
  ExampleWindow example;
  QVERIFY2(example.opened.isEmpty(), qPrintable(example.opened));
  QTemporaryDir &dir = example.dir;
  StudioContext &context = example.context;
  MainWindow &window = example.window;
  connect(&context, &StudioContext::logMessage, this,
          [](LogLevel, const QString &text) { qInfo("studio: %s", qPrintable(text)); });
  window.resize(1400, 900);
  window.show();

  // The overview of a project with nothing run yet points at the pipeline.
  auto *overview = window.centralTabs()->widget(0)->findChild<QPushButton *>("runWholePipeline");
  QVERIFY(overview && overview->isVisible());
  auto *nextStep = window.centralTabs()->widget(0)->findChild<QLabel *>("nextStep");
  QVERIFY(nextStep && nextStep->isVisible() && nextStep->text().contains("Run Whole Pipeline"));

  auto configId = [&](const std::string &name) {
    for (const project::CompileConfig &c : context.project().compileConfigs)
      if (c.name == name)
        return c.id;
    return std::int64_t{-1};
  };
  QVERIFY(context.project().caliTables.empty());
  PipelineDialog *dialog = window.runWholePipeline(configId("bm1684x-int8"));
  QVERIFY(dialog);
  PipelineRunner *runner = dialog->runner();
  QVERIFY(runner);
  QCOMPARE(runner->stepCount(), 4);
  // A second pipeline while one runs is refused.
  QVERIFY(!window.runWholePipeline(configId("bm1684x-f16")));
  QVERIFY(QTest::qWaitFor([&] { return runner->stepState(1) == State::Running && runner->stepJob(1) > 0; },
                          120000));
  dialog->resize(760, dialog->sizeHint().height());
  guitest::saveScreenshot(*dialog, "pipeline-running.png");
  QVERIFY(QTest::qWaitFor([&] { return runner->isFinished(); }, 540000));
  for (int step = 0; step < 4; ++step)
    QVERIFY2(runner->stepState(step) == State::Succeeded,
             qPrintable(runner->stepName(step) + ": " + PipelineRunner::stateName(runner->stepState(step)) +
                        " " + runner->stepDetail(step)));
  // The calibration made the table the configuration names, on the dataset the name gives.
  QCOMPARE(context.project().caliTables.size(), std::size_t{1});
  QCOMPARE(QString::fromStdString(context.project().caliTables.front().name),
           QString("ch_ppocr_mobile_v2.0_cls_infer text lines kl"));
  // The deploy and the simulator run are in the run history, with accuracy and a simulated latency.
  const auto runById = [&](qint64 id) -> const project::RunRecord * {
    for (const project::RunRecord &run : context.project().runs)
      if (run.id == id)
        return &run;
    return nullptr;
  };
  const project::RunRecord *deployed = runById(runner->stepRun(2));
  const project::RunRecord *simulated = runById(runner->stepRun(3));
  QVERIFY(deployed && simulated);
  QVERIFY2(deployed->status == "ok", deployed->status.c_str());
  QVERIFY(deployed->layerMetricsJson.size() > 100);
  const QJsonObject summary =
      QJsonDocument::fromJson(QByteArray::fromStdString(simulated->summaryJson)).object();
  QVERIFY2(summary.value("simulatedLatencyMs").toDouble() > 0, simulated->summaryJson.c_str());
  QVERIFY2(dialog->summary().startsWith("Done in"), qPrintable(dialog->summary()));
  QCOMPARE(dialog->outcomeButtons().size(), std::size_t{3});
  for (QPushButton *button : dialog->outcomeButtons())
    QVERIFY(button->isEnabled());
  guitest::saveScreenshot(*dialog, "pipeline-done.png");
  // Accuracy, layer groups and the engine timeline open on the pipeline's own runs.
  dialog->outcomeButtons()[0]->click();
  QVERIFY(qobject_cast<AccuracyView *>(window.centralTabs()->currentWidget()));
  dialog->outcomeButtons()[2]->click();
  // The window steps aside, off the middle of the view it opened.
  QVERIFY2(!dialog->frameGeometry().contains(window.frameGeometry().center()),
           qPrintable(QStringLiteral("dialog at %1,%2").arg(dialog->x()).arg(dialog->y())));
  auto *chip = qobject_cast<ChipViewsTab *>(window.centralTabs()->currentWidget());
  QVERIFY(chip);
  QVERIFY(QTest::qWaitFor([&] { return chip->chipRun() != nullptr; }, 30000));
  QCOMPARE(chip->runId(), runner->stepRun(3));
  QCOMPARE(chip->currentPage(), ChipViewsTab::Timeline);
  QVERIFY(!nextStep->isVisible()); // runs exist now
  guitest::saveScreenshot(window, "pipeline-timeline.png");

  // F16: nothing to calibrate; the same table is reused by INT8 next time.
  dialog = window.runWholePipeline(configId("bm1684x-f16"));
  QVERIFY(dialog);
  runner = dialog->runner();
  QVERIFY(QTest::qWaitFor([&] { return runner->isFinished(); }, 300000));
  QVERIFY2(runner->succeeded(), qPrintable(dialog->summary()));
  QCOMPARE(runner->stepState(1), State::Skipped);
  QVERIFY(runner->stepDetail(1).contains("F16 needs no calibration table"));

  // A configuration whose test input is gone: the pipeline stops at deploy and says why, once, in its row.
  context.applyChange(Section::CompileConfigs, [&](project::Project &p) {
    for (project::CompileConfig &c : p.compileConfigs)
      if (c.name == "bm1684x-f16") {
        QJsonObject options = QJsonDocument::fromJson(QByteArray::fromStdString(c.optionsJson)).object();
        options.insert("test_input", dir.filePath("gone.png"));
        c.optionsJson = QJsonDocument(options).toJson(QJsonDocument::Compact).toStdString();
      }
  });
  dialog = window.runWholePipeline(configId("bm1684x-f16"));
  QVERIFY(dialog);
  runner = dialog->runner();
  QVERIFY(QTest::qWaitFor([&] { return runner->isFinished(); }, 300000));
  QCOMPARE(runner->stepState(0), State::Succeeded);
  QCOMPARE(runner->stepState(2), State::Failed);
  QVERIFY2(runner->stepDetail(2).contains("gone.png"), qPrintable(runner->stepDetail(2)));
  QCOMPARE(runner->stepState(3), State::Cancelled);
  QVERIFY2(dialog->summary().startsWith("Deploy failed"), qPrintable(dialog->summary()));
  for (QPushButton *button : dialog->outcomeButtons())
    QVERIFY(!button->isEnabled());
#endif
}

// A newcomer's first pipeline: a model and no data at all. F32 needs no calibration; the deploy tests on a
// seeded random input (and says so in the log) and the simulator runs the model file on it.
void TestPipeline::projectWithoutDataRunsOnARandomInput() {
#ifndef TPUC_ENGINE
  QSKIP("this build has no tpuc");
#else
  ExampleWindow example;
  QVERIFY2(example.opened.isEmpty(), qPrintable(example.opened));
  StudioContext &context = example.context;
  MainWindow &window = example.window;
  QStringList log;
  connect(&context, &StudioContext::logMessage, this, [&log](LogLevel, const QString &text) { log << text; });
  context.applyChange(Section::CompileConfigs, [&](project::Project &p) {
    p.datasets.clear();
    p.caliTables.clear();
    for (project::CompileConfig &c : p.compileConfigs) {
      QJsonObject options = QJsonDocument::fromJson(QByteArray::fromStdString(c.optionsJson)).object();
      for (const char *key : {"test_input", "test_dataset", "test_folder", "calibration_table"})
        options.remove(key);
      c.optionsJson = QJsonDocument(options).toJson(QJsonDocument::Compact).toStdString();
      c.precision = "F32";
    }
  });
  PipelineDialog *dialog = window.runWholePipeline(context.project().compileConfigs.front().id);
  QVERIFY(dialog);
  PipelineRunner *runner = dialog->runner();
  QVERIFY(QTest::qWaitFor([&] { return runner->isFinished(); }, 300000));
  for (int step = 0; step < 4; ++step)
    QVERIFY2(runner->stepState(step) == (step == 1 ? State::Skipped : State::Succeeded),
             qPrintable(runner->stepName(step) + ": " + PipelineRunner::stateName(runner->stepState(step)) +
                        " " + runner->stepDetail(step)));
  QVERIFY2(log.filter("deploying with a random input").size() == 1, qPrintable(log.join('\n')));
  const QString input = QFileInfo(example.file).absolutePath() +
                        "/example.tpuproj.cache/ch_ppocr_mobile_v2.0_cls_infer_random_input.npz";
  QVERIFY2(QFileInfo(input).isFile(), qPrintable(input));
  for (QPushButton *button : dialog->outcomeButtons())
    QVERIFY(button->isEnabled());
#endif
}

QTEST_MAIN(TestPipeline)
#include "tst_pipeline.moc"
