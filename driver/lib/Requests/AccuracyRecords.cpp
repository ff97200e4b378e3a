//===- AccuracyRecords.cpp - compare_samples / first_divergent JSON --------===//

#include "tpuc/Driver/AccuracyRecords.h"

#include "tpuc/Driver/Requests.h"

#include "JsonNumbers.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace tpuc::driver {
namespace {

using json_numbers::number;
using json_numbers::numberOf;
using nlohmann::ordered_json;

std::string dump(const ordered_json &j) {
  // Names come from models: bytes that are not UTF-8 are replaced so that the record always parses.
  return j.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

ordered_json header(const char *schema) { return {{"schema", schema}, {"version", kAccuracyRecordVersion}}; }

/// Parses `text` and checks its schema and version; throws (the callers turn it into one line).
ordered_json parseRecord(const std::string &text, const char *schema) {
  ordered_json j = ordered_json::parse(text);
  if (!j.is_object() || j.value("schema", std::string()) != schema)
    throw std::runtime_error(std::string("not a ") + schema + " record (schema is not \"" + schema + "\")");
  int version = j.at("version").get<int>();
  if (version < 1 || version > kAccuracyRecordVersion)
    throw std::runtime_error(std::string(schema) + " version " + std::to_string(version) +
                             " is not supported (this build reads " + std::to_string(kAccuracyRecordVersion) +
                             ")");
  return j;
}

template <typename Record, typename Fill>
ReadResult<Record> read(const std::string &text, const char *schema, Fill fill) {
  ReadResult<Record> out;
  try {
    fill(parseRecord(text, schema), out.result);
  } catch (const std::exception &e) {
    out.error = e.what();
  }
  return out;
}

ordered_json toleranceJson(double cosine, double euclidean) {
  return {{"cosine", number(cosine)}, {"euclidean", number(euclidean)}};
}

ordered_json statsJson(const MetricStats &s) {
  ordered_json j;
  j["samples"] = s.samples;
  j["mean_cosine"] = number(s.meanCosine);
  j["min_cosine"] = number(s.minCosine);
  j["p5_cosine"] = number(s.p5Cosine);
  j["mean_euclidean"] = number(s.meanEuclidean);
  j["min_euclidean"] = number(s.minEuclidean);
  j["p5_euclidean"] = number(s.p5Euclidean);
  j["failing_samples"] = s.failingSamples;
  j["worst_sample"] = s.worstSample < 0 ? ordered_json(nullptr)
                                        : ordered_json{{"index", s.worstSample}, {"name", s.worstSampleName}};
  return j;
}

MetricStats statsOf(const ordered_json &j) {
  MetricStats s;
  s.samples = j.at("samples").get<int64_t>();
  s.meanCosine = numberOf(j.at("mean_cosine"));
  s.minCosine = numberOf(j.at("min_cosine"));
  s.p5Cosine = numberOf(j.at("p5_cosine"));
  s.meanEuclidean = numberOf(j.at("mean_euclidean"));
  s.minEuclidean = numberOf(j.at("min_euclidean"));
  s.p5Euclidean = numberOf(j.at("p5_euclidean"));
  s.failingSamples = j.at("failing_samples").get<int64_t>();
  if (const ordered_json &w = j.at("worst_sample"); !w.is_null()) {
    s.worstSample = w.at("index").get<int64_t>();
    s.worstSampleName = w.at("name").get<std::string>();
  }
  return s;
}

ordered_json deployedJson(const std::string &mlir, const std::string &chip, const std::string &quantize) {
  return {{"mlir", mlir}, {"chip", chip}, {"quantize", quantize}};
}

} // namespace

std::string toJson(const CompareSamplesRecord &r) {
  ordered_json j = header(kCompareSamplesSchema);
  j["target"] = r.target;
  j["reference"] = r.reference;
  j["deployed"] = deployedJson(r.mlir, r.chip, r.quantize);
  j["test_input"] = r.testInput;
  j["test_subset"] = r.testSubset;
  j["tolerance"] = toleranceJson(r.toleranceCosine, r.toleranceEuclidean);
  j["percentile"] = r.percentile;
  j["sample_count"] = r.samples.size();
  j["failing_samples"] = r.failingSamples;
  j["worst_sample"] = r.worstSample < 0 || r.worstSample >= static_cast<int64_t>(r.samples.size())
                          ? ordered_json(nullptr)
                          : ordered_json{{"index", r.worstSample}, {"name", r.samples[r.worstSample].name}};
  ordered_json layers = ordered_json::array();
  for (const LayerStats &l : r.layers) {
    ordered_json layer;
    layer["name"] = l.name;
    layer["accumulated"] = statsJson(l.accumulated);
    layer["isolated"] = l.isolated ? statsJson(*l.isolated) : ordered_json(nullptr);
    layers.push_back(std::move(layer));
  }
  j["layers"] = std::move(layers);
  ordered_json samples = ordered_json::array();
  for (const SampleResult &s : r.samples) {
    ordered_json sample;
    sample["index"] = s.index;
    sample["name"] = s.name;
    sample["files"] = s.files;
    sample["pass"] = s.pass;
    sample["first_failing"] = s.firstFailing.empty() ? ordered_json(nullptr) : ordered_json(s.firstFailing);
    sample["output_cosine"] = number(s.outputCosine);
    ordered_json outputs = ordered_json::array();
    for (const SampleOutput &o : s.outputs)
      outputs.push_back({{"name", o.name},
                         {"cosine", number(o.cosine)},
                         {"euclidean", number(o.euclidean)},
                         {"pass", o.pass}});
    sample["outputs"] = std::move(outputs);
    samples.push_back(std::move(sample));
  }
  j["samples"] = std::move(samples);
  return dump(j);
}

ReadResult<CompareSamplesRecord> parseCompareSamples(const std::string &text) {
  return read<CompareSamplesRecord>(
      text, kCompareSamplesSchema, [](const ordered_json &j, CompareSamplesRecord &r) {
        r.target = j.at("target").get<std::string>();
        r.reference = j.at("reference").get<std::string>();
        const ordered_json &deployed = j.at("deployed");
        r.mlir = deployed.at("mlir").get<std::string>();
        r.chip = deployed.at("chip").get<std::string>();
        r.quantize = deployed.at("quantize").get<std::string>();
        r.testInput = j.at("test_input").get<std::string>();
        r.testSubset = j.at("test_subset").get<std::string>();
        r.toleranceCosine = numberOf(j.at("tolerance").at("cosine"));
        r.toleranceEuclidean = numberOf(j.at("tolerance").at("euclidean"));
        r.percentile = j.at("percentile").get<double>();
        r.failingSamples = j.at("failing_samples").get<int64_t>();
        if (const ordered_json &w = j.at("worst_sample"); !w.is_null())
          r.worstSample = w.at("index").get<int64_t>();
        for (const ordered_json &l : j.at("layers")) {
          LayerStats layer;
          layer.name = l.at("name").get<std::string>();
          layer.accumulated = statsOf(l.at("accumulated"));
          if (!l.at("isolated").is_null())
            layer.isolated = statsOf(l.at("isolated"));
          r.layers.push_back(std::move(layer));
        }
        for (const ordered_json &s : j.at("samples")) {
          SampleResult sample;
          sample.index = s.at("index").get<int64_t>();
          sample.name = s.at("name").get<std::string>();
          sample.files = s.at("files").get<std::vector<std::string>>();
          sample.pass = s.at("pass").get<bool>();
          if (!s.at("first_failing").is_null())
            sample.firstFailing = s.at("first_failing").get<std::string>();
          sample.outputCosine = numberOf(s.at("output_cosine"));
          for (const ordered_json &o : s.at("outputs"))
            sample.outputs.push_back({o.at("name").get<std::string>(), numberOf(o.at("cosine")),
                                      numberOf(o.at("euclidean")), o.at("pass").get<bool>()});
          r.samples.push_back(std::move(sample));
        }
        if (j.at("sample_count").get<size_t>() != r.samples.size())
          throw std::runtime_error("sample_count " + std::to_string(j.at("sample_count").get<size_t>()) +
                                   " but " + std::to_string(r.samples.size()) + " samples listed");
      });
}

std::string toJson(const FirstDivergentRecord &r) {
  ordered_json j = header(kFirstDivergentSchema);
  j["deployed"] = deployedJson(r.mlir, r.chip, r.quantize);
  j["tolerance"] = toleranceJson(r.toleranceCosine, r.toleranceEuclidean);
  j["samples"] = r.samples;
  j["rule"] = r.rule.empty() ? ordered_json(nullptr) : ordered_json(r.rule);
  j["float_mode"] = r.floatMode;
  j["gain_samples"] = r.gainSamples;
  j["baseline_output_cosine"] = number(r.baselineOutputCosine);
  j["summary"] = r.summary;
  ordered_json candidates = ordered_json::array();
  for (size_t i = 0; i < r.candidates.size(); ++i) {
    const DivergentCandidate &c = r.candidates[i];
    ordered_json candidate;
    candidate["rank"] = i + 1;
    candidate["name"] = c.name;
    candidate["isolated"] = statsJson(c.isolated);
    candidate["accumulated"] = statsJson(c.accumulated);
    ordered_json inputs = ordered_json::array();
    for (const DivergentInput &in : c.inputs)
      inputs.push_back(
          {{"name", in.name},
           {"accumulated", in.accumulated ? statsJson(*in.accumulated) : ordered_json(nullptr)}});
    candidate["inputs"] = std::move(inputs);
    candidate["consumers"] = c.consumers;
    candidate["headroom"] = number(c.headroom);
    candidate["measured"] = c.measured;
    if (c.measured) {
      candidate["float_output_cosine"] = number(c.floatOutputCosine);
      candidate["gain"] = number(c.gain);
      candidate["output_float_ops"] = c.outputFloatOps;
      candidate["output_float_cosine"] = number(c.outputFloatCosine);
      candidate["output_gain"] = number(c.outputGain);
      candidate["score"] = number(c.score);
    }
    candidates.push_back(std::move(candidate));
  }
  j["candidates"] = std::move(candidates);
  return dump(j);
}

ReadResult<FirstDivergentRecord> parseFirstDivergent(const std::string &text) {
  return read<FirstDivergentRecord>(
      text, kFirstDivergentSchema, [](const ordered_json &j, FirstDivergentRecord &r) {
        const ordered_json &deployed = j.at("deployed");
        r.mlir = deployed.at("mlir").get<std::string>();
        r.chip = deployed.at("chip").get<std::string>();
        r.quantize = deployed.at("quantize").get<std::string>();
        r.toleranceCosine = numberOf(j.at("tolerance").at("cosine"));
        r.toleranceEuclidean = numberOf(j.at("tolerance").at("euclidean"));
        r.samples = j.at("samples").get<int64_t>();
        if (!j.at("rule").is_null())
          r.rule = j.at("rule").get<std::string>();
        r.floatMode = j.at("float_mode").get<std::string>();
        r.gainSamples = j.at("gain_samples").get<std::vector<std::string>>();
        r.baselineOutputCosine = numberOf(j.at("baseline_output_cosine"));
        r.summary = j.at("summary").get<std::string>();
        for (const ordered_json &c : j.at("candidates")) {
          DivergentCandidate candidate;
          candidate.name = c.at("name").get<std::string>();
          candidate.isolated = statsOf(c.at("isolated"));
          candidate.accumulated = statsOf(c.at("accumulated"));
          for (const ordered_json &in : c.at("inputs")) {
            DivergentInput input{in.at("name").get<std::string>(), std::nullopt};
            if (!in.at("accumulated").is_null())
              input.accumulated = statsOf(in.at("accumulated"));
            candidate.inputs.push_back(std::move(input));
          }
          candidate.consumers = c.at("consumers").get<std::vector<std::string>>();
          candidate.headroom = numberOf(c.at("headroom"));
          candidate.measured = c.at("measured").get<bool>();
          if (candidate.measured) {
            candidate.floatOutputCosine = numberOf(c.at("float_output_cosine"));
            candidate.gain = numberOf(c.at("gain"));
            candidate.outputFloatOps = c.at("output_float_ops").get<std::vector<std::string>>();
            candidate.outputFloatCosine = numberOf(c.at("output_float_cosine"));
            candidate.outputGain = numberOf(c.at("output_gain"));
            candidate.score = numberOf(c.at("score"));
          }
          r.candidates.push_back(std::move(candidate));
        }
      });
}

std::string compareSamplesPath(const DeployOptions &o) {
  return deployArtifactStem(o) + "_compare_samples.json";
}

std::string firstDivergentPath(const DeployOptions &o) {
  return deployArtifactStem(o) + "_first_divergent.json";
}

} // namespace tpuc::driver
