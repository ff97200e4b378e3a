// Run history entries from finished jobs: their result records (tpuc/Driver/Results.h), artifacts, traces
// and plans.
#include "ui/jobs/RunHistory.h"

#include "project/ProjectStore.h"
#include "tpuc/ChipData/Plan.h"
#include "tpuc/ChipData/Trace.h"
#include "tpuc/Driver/AccuracyRecords.h"
#include "tpuc/Driver/Results.h"
#include "ui/views/AccuracyReport.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

namespace tpuc::ui {

namespace {

QJsonValue number(double v) {
  // JSON has no NaN or infinity: store them as the text tpuc prints.
  if (std::isnan(v))
    return QJsonValue::Null;
  if (std::isinf(v))
    return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
  return v;
}

std::string artifactKind(const QString &path) {
  const QString name = QFileInfo(path).fileName().toLower();
  if (name.endsWith(QLatin1String(".mlir")))
    return name.contains(QLatin1String("top")) ? "top_mlir" : name.contains(QLatin1String("tpu")) ? "tpu_mlir" : "mlir";
  if (name.endsWith(QLatin1String(".npz")))
    return "npz";
  if (name.endsWith(QLatin1String(".tpum")))
    return "model";
  if (name.endsWith(QLatin1String("_plan.json")))
    return "plan";
  if (name.endsWith(QLatin1String(".json")))
    return name.contains(QLatin1String("trace")) ? "trace" : "json";
  const QString suffix = QFileInfo(name).suffix();
  return suffix.isEmpty() ? "file" : suffix.toStdString();
}

/// Sets `key` of the layer row named `name` (appending a row when there is none).
void setLayerValue(QJsonArray &layers, QHash<QString, int> &row, const QString &name, const QString &key, double value) {
  if (auto it = row.find(name); it != row.end()) {
    QJsonObject existing = layers[*it].toObject();
    existing.insert(key, value);
    layers[*it] = existing;
  } else {
    row.insert(name, static_cast<int>(layers.size()));
    layers.append(QJsonObject{{QStringLiteral("name"), name}, {key, value}});
  }
}

QHash<QString, int> layerRows(const QJsonArray &layers) {
  QHash<QString, int> row;
  for (int i = 0; i < layers.size(); ++i)
    row.insert(layers[i].toObject().value(QStringLiteral("name")).toString(), i);
  return row;
}

/// Adds a command-level simulation's trace (`tpuc run --profile`, deploy's <stem>_trace.json) to a run:
/// simulated latency, cycles and engine busy time in the summary, and each op's TIU cycles as the
/// "cycles" of its layer row (the graph view's cycles overlay), next to any accuracy metrics. Only the
/// trace's header is read (a version-2 trace of any size in milliseconds).
void addTrace(const QString &path, QJsonObject &summary, project::RunRecord &run) {
  auto trace = chip::readTraceSummary(path.toStdString());
  if (!trace) {
    llvm::consumeError(trace.takeError());
    return;
  }
  summary.insert(QStringLiteral("simulatedLatencyMs"), trace->cyclesToUs(trace->totalCycles) / 1000.0);
  summary.insert(QStringLiteral("simulatedCycles"), static_cast<double>(trace->totalCycles));
  summary.insert(QStringLiteral("tiuBusyCycles"), static_cast<double>(trace->tiuBusy));
  summary.insert(QStringLiteral("gdmaBusyCycles"), static_cast<double>(trace->gdmaBusy));
  QJsonArray layers = QJsonDocument::fromJson(QByteArray::fromStdString(run.layerMetricsJson)).array();
  QHash<QString, int> row = layerRows(layers);
  for (const chip::TraceOp &op : trace->ops)
    if (!op.name.empty() && op.tiuCycles > 0)
      setLayerValue(layers, row, QString::fromStdString(op.name), QStringLiteral("cycles"),
                    static_cast<double>(op.tiuCycles));
  run.layerMetricsJson = QJsonDocument(layers).toJson(QJsonDocument::Compact).toStdString();
}

/// Adds the backend plan's layer group of every op as the "group" of its layer row (the graph view's
/// layer-group overlay, which then agrees with the layer-group view) and the group count to the summary.
void addPlan(const QString &path, QJsonObject &summary, project::RunRecord &run) {
  auto plan = chip::readPlanFile(path.toStdString());
  if (!plan) {
    llvm::consumeError(plan.takeError());
    return;
  }
  summary.insert(QStringLiteral("layerGroups"), static_cast<int>(plan->groups.size()));
  summary.insert(QStringLiteral("plannedCycles"), static_cast<double>(plan->totalCycles));
  QJsonArray layers = QJsonDocument::fromJson(QByteArray::fromStdString(run.layerMetricsJson)).array();
  QHash<QString, int> row = layerRows(layers);
  for (const chip::PlanOp &op : plan->ops)
    if (op.group >= 0)
      setLayerValue(layers, row, QString::fromStdString(op.name), QStringLiteral("group"), op.group);
  run.layerMetricsJson = QJsonDocument(layers).toJson(QJsonDocument::Compact).toStdString();
}

/// Reads a whole small record file; empty when it cannot be read.
std::string readText(const QString &path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll().toStdString() : std::string();
}

void setFinite(QJsonArray &layers, QHash<QString, int> &row, const QString &name, const QString &key,
               double value) {
  if (std::isfinite(value))
    setLayerValue(layers, row, name, key, value);
}

/// Adds `tpuc deploy --compare_all`'s statistics over many samples (<stem>_compare_samples.json) to a run:
/// the sample count, failing samples and the worst sample in the summary, and per layer the accumulated
/// mean / min / p5 cosine, the isolated p5 cosine and the failing samples in its row (the graph view's
/// error overlays read them). A record that cannot be read is named in the summary.
void addCompareSamples(const QString &path, QJsonObject &summary, project::RunRecord &run) {
  driver::ReadResult<driver::CompareSamplesRecord> record = driver::parseCompareSamples(readText(path));
  if (!record) {
    summary.insert(QStringLiteral("samplesError"),
                   QStringLiteral("%1: %2").arg(path, QString::fromStdString(record.error)));
    return;
  }
  summary.insert(QStringLiteral("samples"), static_cast<double>(record.result.samples.size()));
  summary.insert(QStringLiteral("failingSamples"), static_cast<double>(record.result.failingSamples));
  if (record.result.worstSample >= 0 &&
      record.result.worstSample < static_cast<int64_t>(record.result.samples.size()))
    summary.insert(QStringLiteral("worstSample"),
                   QString::fromStdString(
                       record.result.samples[static_cast<std::size_t>(record.result.worstSample)].name));
  QJsonArray layers = QJsonDocument::fromJson(QByteArray::fromStdString(run.layerMetricsJson)).array();
  QHash<QString, int> row = layerRows(layers);
  for (const driver::LayerStats &l : record.result.layers) {
    const QString name = QString::fromStdString(l.name);
    setFinite(layers, row, name, QStringLiteral("meanCosine"), l.accumulated.meanCosine);
    setFinite(layers, row, name, QStringLiteral("minCosine"), l.accumulated.minCosine);
    setFinite(layers, row, name, QStringLiteral("p5Cosine"), l.accumulated.p5Cosine);
    setFinite(layers, row, name, QStringLiteral("failingSamples"),
              static_cast<double>(l.accumulated.failingSamples));
    if (l.isolated)
      setFinite(layers, row, name, QStringLiteral("isoP5Cosine"), l.isolated->p5Cosine);
  }
  run.layerMetricsJson = QJsonDocument(layers).toJson(QJsonDocument::Compact).toStdString();
}

/// Adds `--find_divergent`'s report (<stem>_first_divergent.json): its summary line and candidate count, and
/// each measured candidate's score (the larger gain in float) as the "floatGain" of its layer row.
void addFirstDivergent(const QString &path, QJsonObject &summary, project::RunRecord &run) {
  driver::ReadResult<driver::FirstDivergentRecord> record = driver::parseFirstDivergent(readText(path));
  if (!record) {
    summary.insert(QStringLiteral("divergentError"),
                   QStringLiteral("%1: %2").arg(path, QString::fromStdString(record.error)));
    return;
  }
  summary.insert(QStringLiteral("divergentSummary"), QString::fromStdString(record.result.summary));
  summary.insert(QStringLiteral("divergentCandidates"), static_cast<double>(record.result.candidates.size()));
  QJsonArray layers = QJsonDocument::fromJson(QByteArray::fromStdString(run.layerMetricsJson)).array();
  QHash<QString, int> row = layerRows(layers);
  for (const driver::DivergentCandidate &c : record.result.candidates)
    if (c.measured)
      setFinite(layers, row, QString::fromStdString(c.name), QStringLiteral("floatGain"), c.score);
  run.layerMetricsJson = QJsonDocument(layers).toJson(QJsonDocument::Compact).toStdString();
}

CompareRow rowOf(const driver::TensorResult &t) {
  return {QString::fromStdString(t.name),
          QString::fromStdString(t.status),
          t.pass,
          t.cosine,
          t.euclidean,
          t.sqnr,
          t.maxAbsDiff};
}

/// The compared tensors of a job's result record: compare's tensors, deploy's and transform's outputs.
/// `error` when the job names a record it did not write or one this build cannot read.
struct RecordRows {
  std::vector<CompareRow> rows;
  QString status;       ///< passed, failed or error, as the job saw its own outcome
  QString firstFailing; ///< deploy: the first tensor out of tolerance
  QString error;
};

RecordRows recordRows(const JobInfo &job) {
  RecordRows out;
  QFile file(job.spec.resultFile);
  if (!file.open(QIODevice::ReadOnly)) {
    out.error = QStringLiteral("%1: %2").arg(job.spec.resultFile, file.errorString());
    return out;
  }
  const std::string text = file.readAll().toStdString();
  std::vector<driver::TensorResult> tensors;
  // The record says which job wrote it (its "job" field); the parser of that job checks the rest.
  const QString command = QJsonDocument::fromJson(QByteArray::fromStdString(text))
                              .object()
                              .value(QStringLiteral("job"))
                              .toString(job.spec.arguments.value(0));
  if (command == QLatin1String("deploy")) {
    auto record = driver::parseDeployResult(text);
    out.error = QString::fromStdString(record.error);
    out.status = QString::fromStdString(record.result.status);
    out.firstFailing = QString::fromStdString(record.result.firstFailing);
    tensors = record.result.outputs;
  } else if (command == QLatin1String("run")) { // a verdict, no compared tensors
    auto record = driver::parseModelRunResult(text);
    out.error = QString::fromStdString(record.error);
    out.status = QString::fromStdString(record.result.status);
  } else if (command == QLatin1String("calibrate")) {
    auto record = driver::parseCalibrateResult(text);
    out.error = QString::fromStdString(record.error);
    out.status = QString::fromStdString(record.result.status);
  } else if (command == QLatin1String("llm-convert")) {
    auto record = driver::parseLlmConvertResult(text);
    out.error = QString::fromStdString(record.error);
    out.status = QString::fromStdString(record.result.status);
  } else if (command == QLatin1String("transform")) {
    auto record = driver::parseTransformResult(text);
    out.error = QString::fromStdString(record.error);
    out.status = QString::fromStdString(record.result.status);
    tensors = record.result.outputs;
  } else {
    auto record = driver::parseCompareResult(text);
    out.error = QString::fromStdString(record.error);
    out.status = QString::fromStdString(record.result.status);
    tensors = record.result.tensors;
  }
  if (!out.error.isEmpty())
    out.error = job.spec.resultFile + QStringLiteral(": ") + out.error;
  for (const driver::TensorResult &t : tensors)
    out.rows.push_back(rowOf(t));
  return out;
}

} // namespace

QJsonArray compareRowsJson(const std::vector<CompareRow> &rows) {
  QJsonArray out;
  for (const CompareRow &r : rows)
    out.append(QJsonObject{{QStringLiteral("name"), r.name},
                           {QStringLiteral("status"), r.status},
                           {QStringLiteral("pass"), r.passed},
                           {QStringLiteral("cosine"), number(r.cosine)},
                           {QStringLiteral("euclidean"), number(r.euclidean)},
                           {QStringLiteral("sqnr"), number(r.sqnr)},
                           {QStringLiteral("maxAbsDiff"), number(r.maxAbsDiff)}});
  return out;
}

project::RunRecord makeRunRecord(const JobInfo &job) {
  project::RunRecord run;
  run.configName = job.spec.title.toStdString();
  run.started = job.started.toString(Qt::ISODate).toStdString();
  run.finished = job.finished.toString(Qt::ISODate).toStdString();
  switch (job.state) {
  case JobState::Succeeded: run.status = "ok"; break;
  case JobState::Cancelled: run.status = "cancelled"; break;
  case JobState::NotImplemented: run.status = "not implemented"; break;
  default: run.status = "failed"; break;
  }

  QJsonObject summary;
  // `tpuc <subcommand> ...`: the subcommand names the step; any other program is named by its file.
  const bool isTpuc = !job.spec.arguments.isEmpty() && !job.spec.arguments.first().startsWith(QLatin1Char('-'));
  summary.insert(QStringLiteral("command"),
                 isTpuc ? job.spec.arguments.first() : QFileInfo(job.spec.program).fileName());
  summary.insert(QStringLiteral("program"), job.spec.program);
  summary.insert(QStringLiteral("arguments"), QJsonArray::fromStringList(job.spec.arguments));
  if (job.exitCode >= 0)
    summary.insert(QStringLiteral("exitCode"), job.exitCode);
  if (job.started.isValid() && job.finished.isValid())
    summary.insert(QStringLiteral("durationMs"), static_cast<double>(job.started.msecsTo(job.finished)));
  if (!job.error.isEmpty())
    summary.insert(QStringLiteral("message"), job.error.section(QLatin1Char('\n'), 0, 0));
  else if (!job.message.isEmpty())
    summary.insert(QStringLiteral("message"), job.message);
  // The compared tensors: from the job's result record (never scraped from the printed text).
  std::vector<CompareRow> rows;
  if (!job.spec.resultFile.isEmpty()) {
    RecordRows record = recordRows(job);
    rows = std::move(record.rows);
    if (record.error.isEmpty()) {
      summary.insert(QStringLiteral("resultStatus"), record.status);
      if (!record.firstFailing.isEmpty())
        summary.insert(QStringLiteral("firstFailing"), record.firstFailing); // _compare.json may refine it
    }
    // A job that ran to its end (passed or failed) writes its record: say so when it is missing.
    if (!record.error.isEmpty() && (job.exitCode == driver::kExitOk || job.exitCode == driver::kExitFailed))
      summary.insert(QStringLiteral("resultError"), record.error);
  }
  if (!rows.empty()) {
    summary.insert(QStringLiteral("compare"), compareRowsJson(rows));
    // The per-output metrics double as the run's layer metrics (outputs are layers too).
    run.layerMetricsJson = QJsonDocument(compareRowsJson(rows)).toJson(QJsonDocument::Compact).toStdString();
  }
  run.summaryJson = QJsonDocument(summary).toJson(QJsonDocument::Compact).toStdString();

  const QDir base(job.spec.workingDirectory.isEmpty() ? QDir::currentPath() : job.spec.workingDirectory);
  QString tracePath, planPath, samplesPath, divergentPath;
  for (const QString &artifact : job.artifacts) {
    const QString path = base.absoluteFilePath(artifact);
    std::string hash;
    if (QFileInfo(path).isFile())
      hash = project::hashFile(path.toStdString()).value_or(std::string());
    run.artifacts.push_back({artifactKind(artifact), path.toStdString(), hash});
    if (run.artifacts.back().kind == "trace" && !hash.empty())
      tracePath = path;
    if (run.artifacts.back().kind == "plan" && !hash.empty())
      planPath = path;
    if (path.endsWith(QLatin1String("_compare_samples.json")) && !hash.empty())
      samplesPath = path;
    if (path.endsWith(QLatin1String("_first_divergent.json")) && !hash.empty())
      divergentPath = path;
    // `tpuc deploy --compare_all` reports its side-by-side comparison (accumulated and isolated per layer)
    // as <stem>_compare.json: that, not the outputs-only text table, becomes the run's layer metrics.
    if (path.endsWith(QLatin1String("_compare.json")) && !hash.empty()) {
      QFile file(path);
      QString error;
      std::optional<AccuracyReport> report;
      if (file.open(QIODevice::ReadOnly))
        report = parseAccuracyJson(file.readAll(), &error);
      if (report && !report->layers.empty()) {
        run.layerMetricsJson = QJsonDocument(layerMetricsJson(*report)).toJson(QJsonDocument::Compact).toStdString();
        QJsonObject withLayers = QJsonDocument::fromJson(QByteArray::fromStdString(run.summaryJson)).object();
        withLayers.insert(QStringLiteral("tolerance"),
                          QJsonObject{{QStringLiteral("cosine"), report->toleranceCosine},
                                      {QStringLiteral("euclidean"), report->toleranceEuclidean}});
        withLayers.insert(QStringLiteral("layers"), static_cast<int>(report->layers.size()));
        if (!report->firstFailing.isEmpty())
          withLayers.insert(QStringLiteral("firstFailing"), report->firstFailing);
        run.summaryJson = QJsonDocument(withLayers).toJson(QJsonDocument::Compact).toStdString();
      }
    }
  }
  // After the worst sample's layers: the statistics over the samples and the first divergent layers.
  if (!samplesPath.isEmpty() || !divergentPath.isEmpty()) {
    QJsonObject withSamples = QJsonDocument::fromJson(QByteArray::fromStdString(run.summaryJson)).object();
    if (!samplesPath.isEmpty())
      addCompareSamples(samplesPath, withSamples, run);
    if (!divergentPath.isEmpty())
      addFirstDivergent(divergentPath, withSamples, run);
    run.summaryJson = QJsonDocument(withSamples).toJson(QJsonDocument::Compact).toStdString();
  }
  // After the accuracy metrics: cycles and groups join their rows.
  if (!tracePath.isEmpty() || !planPath.isEmpty()) {
    QJsonObject withChip = QJsonDocument::fromJson(QByteArray::fromStdString(run.summaryJson)).object();
    if (!tracePath.isEmpty())
      addTrace(tracePath, withChip, run);
    if (!planPath.isEmpty())
      addPlan(planPath, withChip, run);
    run.summaryJson = QJsonDocument(withChip).toJson(QJsonDocument::Compact).toStdString();
  }
  return run;
}

} // namespace tpuc::ui
