// Tests of the engine client: command lines rendered from requests, requests that have none refused before
// anything runs, one-off engine calls, and the run history reading result records rather than the log.
#include "tpuc/Driver/Results.h"
#include "ui/jobs/EngineClient.h"
#include "ui/jobs/RunHistory.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <limits>

using namespace tpuc;
using namespace tpuc::ui;

namespace {

/// What `tpuc transform --test_input` prints: a table whose rows the record must win over.
const QStringList kLogTable = {
    "name                              status       result     cosine     euclid       sqnr  max_abs_diff",
    "logits                            close        PASSED   1.000000   0.999990    98.1234      1.2e-06",
};

QJsonObject summaryOf(const project::RunRecord &run) {
  return QJsonDocument::fromJson(QByteArray::fromStdString(run.summaryJson)).object();
}

bool writeFile(const QString &path, const std::string &text) {
  QFile file(path);
  return file.open(QIODevice::WriteOnly) &&
         file.write(text.data(), qint64(text.size())) == qint64(text.size());
}

} // namespace

class TestEngineClient : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void submitRendersTheRequest();
  void requestWithoutCommandLineIsRefused();
  void runHistoryReadsCompareRecord();
  void runHistoryReadsDeployRecord();
  void missingRecordIsNamed();
  void engineCallReportsExitAndStderr();
  void engineCallThatCannotStart();
  void storedCommandLineReadsBack();
};

void TestEngineClient::submitRendersTheRequest() {
  QTemporaryDir dir;
  EngineClient client;
  driver::CompareOptions request;
  request.targetFile = "tpu outputs.npz";
  request.referenceFile = "top.npz";
  request.tolerance = "0.9,0.8";
  request.resultJson = dir.filePath("r.json").toStdString();
  qputenv("TPUC", TPUC_FAKE_JOB); // stands in for tpuc: its "compare" mode prints a table and fails
  QSignalSpy finished(client.queue(), &JobQueue::jobFinished);
  const Submitted job = client.submit("Compare", request, dir.path(), dir.filePath("r.json"));
  qunsetenv("TPUC");
  QVERIFY2(job.id > 0, qPrintable(job.error));
  const JobInfo info = *client.queue()->job(job.id);
  QCOMPARE(info.spec.program, QString(TPUC_FAKE_JOB));
  QCOMPARE(info.spec.arguments, QStringList({"compare", "--tolerance", "0.9,0.8", "--result_json",
                                             dir.filePath("r.json"), "tpu outputs.npz", "top.npz"}));
  QCOMPARE(info.spec.resultFile, dir.filePath("r.json"));
  QCOMPARE(info.spec.workingDirectory, dir.path());
  QVERIFY(finished.wait(10000));
  QCOMPARE(client.queue()->job(job.id)->exitCode, 1);
}

void TestEngineClient::requestWithoutCommandLineIsRefused() {
  EngineClient client;
  driver::DeployOptions request;
  request.mlir = "m.mlir";
  request.quantize = "F32";
  request.chip = std::string(driver::kDefaultChip);
  request.excepts = {"relu_0,pool1"}; // one name holding a comma would reach tpuc as two
  const Submitted job = client.submit("Deploy", request, QString());
  QCOMPARE(job.id, -1);
  QCOMPARE(job.error,
           QString("tpuc deploy: '--excepts' cannot pass the list item 'relu_0,pool1' (empty, holds a "
                   "comma or blank ends)"));
  QVERIFY(client.queue()->jobs().isEmpty());
}

void TestEngineClient::runHistoryReadsCompareRecord() {
  QTemporaryDir dir;
  driver::CompareResult record;
  record.status = "failed";
  record.exitCode = 1;
  record.tensors = {
      {"aux out", "NOT_SIMILAR", false, 0.5, 0.1, std::numeric_limits<double>::infinity(), 0.5}};
  QVERIFY(writeFile(dir.filePath("r.json"), driver::toJson(record)));
  JobInfo job;
  job.spec = {"Compare",
              "tpuc",
              {"compare", "a.npz", "b.npz", "--result_json", dir.filePath("r.json")},
              dir.path(),
              dir.filePath("r.json")};
  job.state = JobState::Failed;
  job.exitCode = 1;
  job.log = kLogTable;
  const project::RunRecord run = makeRunRecord(job);
  const QJsonArray compare = summaryOf(run).value("compare").toArray();
  QCOMPARE(compare.size(), 1);
  QCOMPARE(compare[0].toObject().value("name").toString(), QString("aux out"));
  QCOMPARE(compare[0].toObject().value("pass").toBool(), false);
  QCOMPARE(compare[0].toObject().value("sqnr").toString(), QString("inf"));
  QVERIFY(QString::fromStdString(run.layerMetricsJson).contains("aux out"));
  QCOMPARE(summaryOf(run).value("resultStatus").toString(), QString("failed"));
  QVERIFY(!summaryOf(run).contains("resultError"));
}

void TestEngineClient::runHistoryReadsDeployRecord() {
  QTemporaryDir dir;
  driver::DeployResult record;
  record.chip = std::string(driver::kDefaultChip);
  record.quantize = "F16";
  record.status = "failed";
  record.exitCode = 1;
  record.firstFailing = "prob";
  record.outputs = {{"prob", "NOT_SIMILAR", false, 0.999, 0.98, 31.5, 0.01}};
  QVERIFY(writeFile(dir.filePath("m_result.json"), driver::toJson(record)));
  JobInfo job;
  job.spec = {"Deploy", "tpuc", {"deploy", "--mlir", "m.mlir"}, dir.path(), dir.filePath("m_result.json")};
  job.state = JobState::Failed;
  job.exitCode = 1;
  job.log = kLogTable;
  const QJsonObject summary = summaryOf(makeRunRecord(job));
  const QJsonArray compare = summary.value("compare").toArray();
  QCOMPARE(compare.size(), 1);
  QCOMPARE(compare[0].toObject().value("name").toString(), QString("prob"));
  QCOMPARE(compare[0].toObject().value("cosine").toDouble(), 0.999);
  // The outcome as deploy saw it.
  QCOMPARE(summary.value("resultStatus").toString(), QString("failed"));
  QCOMPARE(summary.value("firstFailing").toString(), QString("prob"));
}

void TestEngineClient::missingRecordIsNamed() {
  QTemporaryDir dir;
  JobInfo job;
  job.spec = {"Compare", "tpuc", {"compare", "a.npz", "b.npz"}, dir.path(), dir.filePath("none.json")};
  job.state = JobState::Failed;
  job.exitCode = 1;
  job.log = kLogTable;
  const QJsonObject summary = summaryOf(makeRunRecord(job));
  QVERIFY(!summary.contains("compare")); // never the text table instead
  QVERIFY2(summary.value("resultError").toString().startsWith(dir.filePath("none.json")),
           qPrintable(summary.value("resultError").toString()));
  // A record of another schema is refused with the reason.
  QVERIFY(
      writeFile(dir.filePath("none.json"), R"({"schema": "tpuc.result", "version": 9, "job": "compare"})"));
  QVERIFY(
      summaryOf(makeRunRecord(job)).value("resultError").toString().contains("version 9 is not supported"));
  // A crash writes no record, and that is no news.
  QVERIFY(QFile::remove(dir.filePath("none.json")));
  job.exitCode = -1;
  job.state = JobState::Failed;
  const QJsonObject crashed = summaryOf(makeRunRecord(job));
  QVERIFY(!crashed.contains("resultError") && !crashed.contains("compare"));
}

void TestEngineClient::engineCallReportsExitAndStderr() {
  QObject owner;
  driver::GraphOptions request;
  request.mlir = "model.mlir";
  request.format = "json";
  request.output = "graph.json";
  qputenv("TPUC", TPUC_FAKE_JOB); // has no "graph" mode: says so on stderr, exit code 2
  EngineClient::Called called = EngineClient::call(request, &owner);
  qunsetenv("TPUC");
  QVERIFY(called.call && called.error.isEmpty());
  QCOMPARE(called.call->parent(), &owner);
  QSignalSpy finished(called.call, &EngineCall::finished);
  QVERIFY(finished.wait(10000));
  QCOMPARE(finished.front().at(0).toInt(), 2);
  QCOMPARE(finished.front().at(1).toString(), QString("a line on stderr\nfake_job: unknown mode 'graph'"));
}

void TestEngineClient::engineCallThatCannotStart() {
  QObject owner;
  driver::GraphOptions request;
  request.mlir = "model.mlir";
  request.output = "graph.svg";
  qputenv("TPUC", "/nonexistent/tpuc");
  EngineClient::Called called = EngineClient::call(request, &owner);
  qunsetenv("TPUC");
  QVERIFY(called.call);
  QSignalSpy failed(called.call, &EngineCall::failedToStart);
  QVERIFY(failed.count() == 1 || failed.wait(10000));
}

void TestEngineClient::storedCommandLineReadsBack() {
  driver::RunOptions run;
  run.model = "/c/m.tpum";
  run.input = "/c/in.npz";
  run.dumpAllTensors = true;
  const QStringList stored = engineArguments(run).args;
  QCOMPARE(requestOf<driver::RunOptions>(stored), std::optional(run));
  QVERIFY(!requestOf<driver::DeployOptions>(stored)); // another command
  // Recorded in part (no --input): still read, the missing field empty.
  const auto partial = requestOf<driver::RunOptions>({"run", "--model", "/c/m.tpum"});
  QVERIFY(partial);
  QCOMPARE(partial->model, std::string("/c/m.tpum"));
  QVERIFY(!requestOf<driver::RunOptions>({"run", "--no_such_flag"}));
}

QTEST_MAIN(TestEngineClient)
#include "tst_engineclient.moc"
