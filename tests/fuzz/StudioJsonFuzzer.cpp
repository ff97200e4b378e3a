//===- StudioJsonFuzzer.cpp - libFuzzer target for the job protocol's JSON -===//
//
// The JSON the studio reads from its engine children and from its project's columns (the first byte picks
// which; the rest is the text):
//  0 a job's progress line (`{"stage", "fraction", "message", "artifacts"}`, JobQueue::parseProgressLine);
//  1 `tpuc llm-run --serve`'s request and event lines;
//  2 the result records of every job (Results.h);
//  3 a deploy's per-layer comparison and a run's stored layer metrics and summary (AccuracyReport);
//  4 a compile configuration's options column (DeployJob).
// None may crash or hang; the readers that give reasons give one line naming the record or field.
//
//===----------------------------------------------------------------------===//

#include "FuzzCheck.h"
#include "tpuc/Driver/LlmServe.h"
#include "tpuc/Driver/Results.h"
#include "ui/jobs/DeployJob.h"
#include "ui/jobs/JobQueue.h"
#include "ui/views/AccuracyReport.h"

#include <cstddef>
#include <cstdint>

using namespace tpuc;

namespace {

template <typename Read> void oneLineOrNothing(const Read &read) {
  if (!read && read.error.find('\n') != std::string::npos)
    __builtin_trap();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  const std::string text(reinterpret_cast<const char *>(data + 1), size - 1);
  const QByteArray bytes = QByteArray::fromStdString(text);
  switch (data[0] % 5) {
  case 0: {
    ui::JobInfo info;
    if (ui::JobQueue::parseProgressLine(bytes, info) && info.fraction != -1 &&
        (info.fraction < 0 || info.fraction > 1))
      __builtin_trap();
    break;
  }
  case 1:
    oneLineOrNothing(driver::parseLlmServeRequest(text));
    oneLineOrNothing(driver::parseLlmServeEvent(text));
    break;
  case 2:
    oneLineOrNothing(driver::parseCompareResult(text));
    oneLineOrNothing(driver::parseDeployResult(text));
    oneLineOrNothing(driver::parseTransformResult(text));
    oneLineOrNothing(driver::parseModelRunResult(text));
    oneLineOrNothing(driver::parseCalibrateResult(text));
    oneLineOrNothing(driver::parseLlmConvertResult(text));
    break;
  case 3: {
    QString error;
    if (!ui::parseAccuracyJson(bytes, &error) && (error.isEmpty() || error.contains(QLatin1Char('\n'))))
      __builtin_trap();
    project::RunRecord run;
    run.layerMetricsJson = text;
    run.summaryJson = text;
    (void)ui::accuracyOfRun(run);
    break;
  }
  case 4: {
    const QString options = QString::fromStdString(text);
    const QString error = ui::checkDeployOptions(options);
    if (error.contains(QLatin1Char('\n')))
      __builtin_trap();
    project::CompileConfig config{1, "fuzz", "bm1684x", "INT8", text};
    (void)ui::deploySettingsOf(config);
    break;
  }
  }
  return 0;
}
