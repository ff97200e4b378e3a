//===- Results.cpp - Result records to and from JSON ----------------------===//

#include "tpuc/Driver/Results.h"

#include "tpuc/Driver/Requests.h"

#include "JsonNumbers.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

namespace tpuc::driver {
namespace {

using json_numbers::number;
using json_numbers::numberOf;
using json_numbers::tensorsJson;
using json_numbers::tensorsOf;
using nlohmann::json;

json header(const char *job, const std::string &status, int exitCode, const std::string &message) {
  return {{"schema", kResultSchema}, {"version", kResultVersion}, {"job", job},
          {"status", status},        {"exit_code", exitCode},     {"message", message}};
}

/// Parses `text` and checks the header; throws json exceptions (caught by the callers).
json record(const std::string &text, const char *job) {
  json j = json::parse(text);
  if (j.value("schema", std::string()) != kResultSchema)
    throw std::runtime_error("not a tpuc result record (schema is not \"" + std::string(kResultSchema) +
                             "\")");
  int version = j.at("version").get<int>();
  if (version < 1 || version > kResultVersion)
    throw std::runtime_error("result record version " + std::to_string(version) +
                             " is not supported (this build reads " + std::to_string(kResultVersion) + ")");
  if (j.at("job").get<std::string>() != job)
    throw std::runtime_error("result record of job '" + j.at("job").get<std::string>() + "', expected '" +
                             job + "'");
  return j;
}

template <typename Result, typename Fill>
ReadResult<Result> read(const std::string &text, const char *job, Fill fill) {
  ReadResult<Result> out;
  try {
    json j = record(text, job);
    out.result.status = j.at("status").get<std::string>();
    out.result.exitCode = j.at("exit_code").get<int>();
    out.result.message = j.at("message").get<std::string>();
    fill(j, out.result);
  } catch (const std::exception &e) {
    out.error = e.what();
  }
  return out;
}

} // namespace

std::string resultStatus(int exitCode) {
  return exitCode == kExitOk ? "passed" : exitCode == kExitFailed ? "failed" : "error";
}

std::string toJson(const CompareResult &r) {
  json j = header("compare", r.status, r.exitCode, r.message);
  j["target"] = r.target;
  j["reference"] = r.reference;
  j["tolerance"] = {{"cosine", r.toleranceCosine}, {"euclidean", r.toleranceEuclidean}};
  j["tensors"] = tensorsJson(r.tensors);
  return j.dump(2) + "\n";
}

std::string toJson(const DeployResult &r) {
  json j = header("deploy", r.status, r.exitCode, r.message);
  j["chip"] = r.chip;
  j["quantize"] = r.quantize;
  j["artifacts"] = r.artifacts;
  j["outputs"] = tensorsJson(r.outputs);
  j["first_failing"] = r.firstFailing;
  return j.dump(2) + "\n";
}

std::string toJson(const TransformResult &r) {
  json j = header("transform", r.status, r.exitCode, r.message);
  j["model"] = r.model;
  j["mlir"] = r.mlir;
  j["artifacts"] = r.artifacts;
  j["framework"] = r.framework;
  j["framework_skipped"] = r.frameworkSkipped;
  j["outputs"] = tensorsJson(r.outputs);
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string toJson(const ModelRunResult &r) {
  json j = header("run", r.status, r.exitCode, r.message);
  j["model"] = r.model;
  j["input"] = r.input;
  j["output"] = r.output;
  j["runner"] = r.runner;
  j["artifacts"] = r.artifacts;
  j["chip"] = r.chip;
  j["net"] = r.net;
  j["cycles"] = r.cycles;
  j["latency_ms"] = number(r.latencyMs);
  j["tiu_busy"] = r.tiuBusy;
  j["gdma_busy"] = r.gdmaBusy;
  j["tiu_commands"] = r.tiuCommands;
  j["gdma_commands"] = r.gdmaCommands;
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string toJson(const CalibrateResult &r) {
  json j = header("calibrate", r.status, r.exitCode, r.message);
  j["mlir"] = r.mlir;
  j["table"] = r.table;
  j["artifacts"] = r.artifacts;
  j["samples"] = r.samples;
  j["tensors"] = r.tensors;
  j["summary"] = r.summary;
  j["seconds"] = number(r.seconds);
  j["stable_after"] = r.stableAfter;
  j["enough_data"] = r.enoughData;
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string toJson(const LlmConvertResult &r) {
  json j = header("llm-convert", r.status, r.exitCode, r.message);
  j["model"] = r.model;
  j["chip"] = r.chip;
  j["quantize"] = r.quantize;
  j["stages"] = r.stages;
  j["model_file"] = r.modelFile;
  j["nets"] = r.nets;
  j["weight_bytes"] = r.weightBytes;
  j["weight_bytes_before_sharing"] = r.weightBytesBeforeSharing;
  j["compile_seconds"] = number(r.compileSeconds);
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

ReadResult<CompareResult> parseCompareResult(const std::string &text) {
  return read<CompareResult>(text, "compare", [](const json &j, CompareResult &r) {
    r.target = j.at("target").get<std::string>();
    r.reference = j.at("reference").get<std::string>();
    r.toleranceCosine = j.at("tolerance").at("cosine").get<double>();
    r.toleranceEuclidean = j.at("tolerance").at("euclidean").get<double>();
    r.tensors = tensorsOf(j.at("tensors"));
  });
}

ReadResult<DeployResult> parseDeployResult(const std::string &text) {
  return read<DeployResult>(text, "deploy", [](const json &j, DeployResult &r) {
    r.chip = j.at("chip").get<std::string>();
    r.quantize = j.at("quantize").get<std::string>();
    r.artifacts = j.at("artifacts").get<std::vector<std::string>>();
    r.outputs = tensorsOf(j.at("outputs"));
    r.firstFailing = j.at("first_failing").get<std::string>();
  });
}

ReadResult<ModelRunResult> parseModelRunResult(const std::string &text) {
  return read<ModelRunResult>(text, "run", [](const json &j, ModelRunResult &r) {
    r.model = j.at("model").get<std::string>();
    r.input = j.at("input").get<std::string>();
    r.output = j.at("output").get<std::string>();
    r.runner = j.at("runner").get<std::string>();
    r.artifacts = j.at("artifacts").get<std::vector<std::string>>();
    r.chip = j.at("chip").get<std::string>();
    r.net = j.at("net").get<std::string>();
    r.cycles = j.at("cycles").get<int64_t>();
    r.latencyMs = numberOf(j.at("latency_ms"));
    r.tiuBusy = j.at("tiu_busy").get<int64_t>();
    r.gdmaBusy = j.at("gdma_busy").get<int64_t>();
    r.tiuCommands = j.at("tiu_commands").get<int64_t>();
    r.gdmaCommands = j.at("gdma_commands").get<int64_t>();
  });
}

ReadResult<CalibrateResult> parseCalibrateResult(const std::string &text) {
  return read<CalibrateResult>(text, "calibrate", [](const json &j, CalibrateResult &r) {
    r.mlir = j.at("mlir").get<std::string>();
    r.table = j.at("table").get<std::string>();
    r.artifacts = j.at("artifacts").get<std::vector<std::string>>();
    r.samples = j.at("samples").get<int64_t>();
    r.tensors = j.at("tensors").get<int64_t>();
    r.summary = j.at("summary").get<std::string>();
    r.seconds = numberOf(j.at("seconds"));
    r.stableAfter = j.at("stable_after").get<int64_t>();
    r.enoughData = j.at("enough_data").get<bool>();
  });
}

ReadResult<LlmConvertResult> parseLlmConvertResult(const std::string &text) {
  return read<LlmConvertResult>(text, "llm-convert", [](const json &j, LlmConvertResult &r) {
    r.model = j.at("model").get<std::string>();
    r.chip = j.at("chip").get<std::string>();
    r.quantize = j.at("quantize").get<std::string>();
    r.stages = j.at("stages").get<std::vector<std::string>>();
    r.modelFile = j.at("model_file").get<std::string>();
    r.nets = j.at("nets").get<int64_t>();
    r.weightBytes = j.at("weight_bytes").get<int64_t>();
    r.weightBytesBeforeSharing = j.at("weight_bytes_before_sharing").get<int64_t>();
    r.compileSeconds = numberOf(j.at("compile_seconds"));
  });
}

ReadResult<TransformResult> parseTransformResult(const std::string &text) {
  return read<TransformResult>(text, "transform", [](const json &j, TransformResult &r) {
    r.model = j.at("model").get<std::string>();
    r.mlir = j.at("mlir").get<std::string>();
    r.artifacts = j.at("artifacts").get<std::vector<std::string>>();
    r.framework = j.at("framework").get<std::string>();
    r.frameworkSkipped = j.at("framework_skipped").get<std::string>();
    r.outputs = tensorsOf(j.at("outputs"));
  });
}

} // namespace tpuc::driver
