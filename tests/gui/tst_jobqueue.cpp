// Tests of the out-of-process job queue against a fake child: progress, failures, crashes, cancel, queueing.
#include "ui/jobs/JobQueue.h"

#include <QSignalSpy>
#include <QTest>

using namespace tpuc::ui;

namespace {
JobSpec fake(const QString &mode) { return {"fake " + mode, TPUC_FAKE_JOB, {mode}, {}}; }
} // namespace

class TestJobQueue : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void silentChildIsStoppedAsHung();
  void parsesProgressLines();
  void successReportsProgressAndArtifacts();
  void unterminatedLastLineIsKept();
  void failureCarriesExitCodeAndLogTail();
  void crashesAreReported_data();
  void crashesAreReported();
  void cancelKillsTheChild();
  void queueRunsOneAtATimeAndCancelsQueued();
  void missingProgramFailsCleanly();
};

// Issue 25: a child that writes nothing for the stall timeout is killed and its job fails saying so; one that
// keeps talking outlives the same timeout; 0 turns the watchdog off.
void TestJobQueue::silentChildIsStoppedAsHung() {
  JobQueue queue;
  queue.setStallTimeout(1);
  QSignalSpy finished(&queue, &JobQueue::jobFinished);
  const int hung = queue.enqueue(fake("hang"));
  const int talker = queue.enqueue(fake("slow-talker"));
  QVERIFY(QTest::qWaitFor([&] { return finished.size() == 2; }, 20000));
  const JobInfo stopped = *queue.job(hung);
  QCOMPARE(stopped.state, JobState::Failed);
  QVERIFY2(stopped.error.startsWith("fake hang wrote nothing for 1 s and was stopped as hung"),
           qPrintable(stopped.error));
  QCOMPARE(queue.job(talker)->state, JobState::Succeeded);
  QVERIFY(stopped.finished.isValid() && stopped.started.msecsTo(stopped.finished) < 10000);
}

void TestJobQueue::parsesProgressLines() {
  JobInfo info;
  QVERIFY(JobQueue::parseProgressLine(R"({"stage":"calibrate","fraction":0.5,"message":"batch 3/6"})", info));
  QCOMPARE(info.stage, QString("calibrate"));
  QCOMPARE(info.fraction, 0.5);
  QCOMPARE(info.message, QString("batch 3/6"));
  QVERIFY(JobQueue::parseProgressLine(R"({"fraction": 7, "artifacts": ["a.npz", "b.mlir", "a.npz"]})", info));
  QCOMPARE(info.fraction, 1.0); // clamped
  QCOMPARE(info.stage, QString("calibrate")); // absent keys keep their values
  QCOMPARE(info.artifacts, (QStringList{"a.npz", "b.mlir"}));
  QVERIFY(!JobQueue::parseProgressLine("plain log line", info));
  QVERIFY(!JobQueue::parseProgressLine(R"({"unrelated": 1})", info));
  QVERIFY(!JobQueue::parseProgressLine(R"({"stage": "x", )", info));
  QVERIFY(JobQueue::parseProgressLine(R"({"stage": "x", "fraction": null})", info));
  QCOMPARE(info.fraction, -1.0);
}

void TestJobQueue::successReportsProgressAndArtifacts() {
  JobQueue queue;
  QSignalSpy finished(&queue, &JobQueue::jobFinished);
  QList<double> fractions;
  connect(&queue, &JobQueue::jobChanged, this, [&](int id) { fractions << queue.job(id)->fraction; });
  int id = queue.enqueue(fake("ok"));
  QVERIFY(finished.wait(20000));
  JobInfo job = *queue.job(id);
  QCOMPARE(job.state, JobState::Succeeded);
  QCOMPARE(job.stage, QString("done"));
  QCOMPARE(job.message, QString("finished"));
  QCOMPARE(job.artifacts, (QStringList{"out/top.mlir", "out/weights.npz"}));
  QVERIFY(job.log.contains("fake_job starting (ok)"));
  QVERIFY(job.log.contains("a line on stderr"));
  QVERIFY2(fractions.contains(0.25) || fractions.contains(0.5), "intermediate progress was reported");
  QCOMPARE(fractions.last(), 1.0);
}

void TestJobQueue::unterminatedLastLineIsKept() {
  JobQueue queue;
  QSignalSpy finished(&queue, &JobQueue::jobFinished);
  int id = queue.enqueue(fake("partial"));
  QVERIFY(finished.wait(20000));
  QCOMPARE(queue.job(id)->state, JobState::Succeeded);
  QCOMPARE(queue.job(id)->log.last(), QString("last words without newline"));
}

void TestJobQueue::failureCarriesExitCodeAndLogTail() {
  JobQueue queue;
  QSignalSpy finished(&queue, &JobQueue::jobFinished);
  int id = queue.enqueue(fake("fail"));
  QVERIFY(finished.wait(20000));
  JobInfo job = *queue.job(id);
  QCOMPARE(job.state, JobState::Failed);
  QVERIFY2(job.error.startsWith("fake fail failed with exit code 3: "), qPrintable(job.error));
  // The engine's one-line reason is in the headline (the first line), not only in the log tail.
  QVERIFY2(job.error.section('\n', 0, 0).contains("node 'conv1' has an unsupported attribute"), qPrintable(job.error));
}

void TestJobQueue::crashesAreReported_data() {
  QTest::addColumn<QString>("mode");
  QTest::addColumn<QString>("expected");
  QTest::newRow("segfault") << "segfault" << "crashed (segmentation fault)";
  QTest::newRow("abort") << "abort" << "aborted";
}

void TestJobQueue::crashesAreReported() {
  QFETCH(QString, mode);
  QFETCH(QString, expected);
  JobQueue queue;
  QSignalSpy finished(&queue, &JobQueue::jobFinished);
  int id = queue.enqueue(fake(mode));
  QVERIFY(finished.wait(20000));
  JobInfo job = *queue.job(id);
  QCOMPARE(job.state, JobState::Failed);
  QVERIFY2(job.error.contains(expected), qPrintable(job.error));
  QVERIFY2(job.error.contains("Last output:"), qPrintable(job.error));
  QCOMPARE(queue.runningJob(), -1);
}

void TestJobQueue::cancelKillsTheChild() {
  JobQueue queue;
  QSignalSpy changed(&queue, &JobQueue::jobChanged);
  QSignalSpy finished(&queue, &JobQueue::jobFinished);
  int id = queue.enqueue(fake("hang"));
  // Wait until the child has reported progress, so it is really running.
  QTRY_VERIFY_WITH_TIMEOUT(queue.job(id)->fraction >= 0.5, 20000);
  QCOMPARE(queue.job(id)->state, JobState::Running);
  queue.cancel(id);
  QVERIFY(finished.wait(5000));
  QCOMPARE(queue.job(id)->state, JobState::Cancelled);
  QCOMPARE(queue.runningJob(), -1);
}

void TestJobQueue::queueRunsOneAtATimeAndCancelsQueued() {
  JobQueue queue;
  QSignalSpy finished(&queue, &JobQueue::jobFinished);
  int a = queue.enqueue(fake("ok"));
  int b = queue.enqueue(fake("ok"));
  int c = queue.enqueue(fake("ok"));
  QCOMPARE(queue.runningJob(), a);
  QCOMPARE(queue.job(b)->state, JobState::Queued);
  queue.cancel(b);
  QCOMPARE(queue.job(b)->state, JobState::Cancelled);
  QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 3, 20000);
  QCOMPARE(queue.job(a)->state, JobState::Succeeded);
  QCOMPARE(queue.job(c)->state, JobState::Succeeded);
  // Finish order: b (cancelled while queued), a, then c.
  QCOMPARE(finished.at(0).at(0).toInt(), b);
  QCOMPARE(finished.at(1).at(0).toInt(), a);
  QCOMPARE(finished.at(2).at(0).toInt(), c);
}

void TestJobQueue::missingProgramFailsCleanly() {
  JobQueue queue;
  QSignalSpy finished(&queue, &JobQueue::jobFinished);
  int id = queue.enqueue({"ghost", "/nonexistent/tpuc", {}, {}});
  QVERIFY(finished.count() == 1 || finished.wait(5000));
  QCOMPARE(queue.job(id)->state, JobState::Failed);
  QVERIFY2(queue.job(id)->error.contains("could not start '/nonexistent/tpuc'"), qPrintable(queue.job(id)->error));
  int next = queue.enqueue(fake("ok"));
  QVERIFY(finished.wait(20000));
  QCOMPARE(queue.job(next)->state, JobState::Succeeded);
}

QTEST_GUILESS_MAIN(TestJobQueue)
#include "tst_jobqueue.moc"
