//===- DryRunFormat.cpp - The dry-run report as text and as JSON ----------===//

#include "tpuc/LLM/DryRun.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>

using namespace tpuc;
using namespace tpuc::llm;

namespace {

std::string fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

std::string size(int64_t bytes) {
  constexpr double kMiB = 1 << 20, kGiB = double(int64_t(1) << 30);
  if (bytes >= int64_t(1) << 30)
    return fixed(double(bytes) / kGiB, 2) + " GiB";
  return fixed(double(bytes) / kMiB, 2) + " MiB";
}

std::string parts(const WeightBytes &w) {
  std::string s = "values " + size(w.values);
  if (w.scales)
    s += ", scales " + size(w.scales);
  if (w.zeroPoints)
    s += ", zero points " + size(w.zeroPoints);
  return s + ", other " + size(w.other);
}

std::string pad(std::string s, size_t width, bool left = false) {
  if (s.size() >= width)
    return s;
  return left ? s + std::string(width - s.size(), ' ') : std::string(width - s.size(), ' ') + s;
}

nlohmann::json weightJson(const WeightBytes &w) {
  return {{"values", w.values},
          {"scales", w.scales},
          {"zero_points", w.zeroPoints},
          {"other", w.other},
          {"total", w.total()}};
}

} // namespace

std::string tpuc::llm::formatDryRun(const DryRunReport &report) {
  const ModelConfig &c = report.config;
  const ConvertPlan &p = report.plan;
  std::ostringstream os;
  os << c.architecture << ": " << c.numHiddenLayers << " layers, hidden " << c.hiddenSize << ", heads "
     << c.numAttentionHeads << "/" << c.numKeyValueHeads << " x " << c.headDim << ", vocab " << c.vocabSize
     << "\n"
     << "quantize " << p.quantize << (p.prequantized ? " (from the checkpoint)" : "");
  os << ", seq_length " << p.seqLength << ", max_input_length " << p.maxInputLength;
  if (p.chunkLength)
    os << ", chunk_length " << p.chunkLength;
  if (p.weightBits)
    os << "; " << p.weightBits << "-bit weights, group "
       << (p.groupSize > 0 ? std::to_string(p.groupSize) : std::string("per row")) << ", "
       << (p.symmetric ? "symmetric" : "asymmetric");
  os << "\nstages:";
  for (const std::string &stage : p.stages)
    os << " " << stage;
  os << "\n";
  for (const ChipDryRun &r : report.chips) {
    const MemoryPlan &m = r.memory;
    os << "\nchip " << r.chip << ": " << fixed(r.frequencyMhz, 0) << " MHz, DDR " << size(m.ddrBytes) << " at "
       << fixed(r.ddrBandwidthGBps, 1) << " GB/s, stage launch "
       << (r.launchFromProfile ? fixed(r.stageLaunchUs, 1) + " us" : std::string("0 us (not in the profile)"))
       << "\n";
    os << "  weights per layer  " << m.layer.total() << " B (" << size(m.layer.total()) << ": "
       << parts(m.layer) << ") x " << m.layers << " = " << size(m.layer.total() * m.layers) << "\n";
    os << "  shared weights     " << m.shared.total() << " B (" << size(m.shared.total()) << ": "
       << parts(m.shared) << ")\n";
    os << "  KV cache           " << m.kvCacheBytes << " B (" << size(m.kvCacheBytes) << ", seq_length "
       << p.seqLength << ")\n";
    os << "  activations/IO     " << m.activationBytes << " B (" << size(m.activationBytes) << ", largest stage "
       << m.activationStage << ")\n";
    os << "  total              " << m.totalBytes() << " B (" << size(m.totalBytes()) << ") of "
       << size(m.ddrBytes) << " DDR: " << (m.fits() ? "fits" : "does not fit") << "\n";
    for (const std::string &item : m.overflow)
      os << "  does not fit: " << item << "\n";
    os << "  " << pad("stage", 20, true) << pad("tokens", 7) << pad("runs", 6) << pad("ms/run", 10)
       << pad("TIU ms", 10) << pad("GDMA ms", 10) << pad("weights MiB", 13) << "\n";
    for (const StageEstimate &e : r.stages) {
      double toMs = 1.0 / (r.frequencyMhz * 1000.0);
      os << "  " << pad(e.name, 20, true) << pad(std::to_string(e.tokens), 7)
         << pad(std::to_string(e.runs), 6) << pad(fixed(e.us / 1000.0, 3), 10)
         << pad(fixed(double(e.tiuCycles) * toMs, 3), 10) << pad(fixed(double(e.gdmaCycles) * toMs, 3), 10)
         << pad(fixed(double(e.weightBytes) / double(1 << 20), 2), 13) << "\n";
    }
    if (const auto &v = report.config.vision)
      os << "  vision tower: the vit stage (" << v->numLayers << " layers, " << v->imageTokens()
         << " image tokens) is compiled but not planned here; its weights are not in the totals above\n";
    os << "  first token (prefill of " << p.maxInputLength << " tokens): " << fixed(r.firstTokenMs, 1)
       << " ms\n";
    if (!r.firstTokenByBucket.empty()) {
      os << "  first token by prompt length (--dynamic):";
      for (const ChipDryRun::BucketLatency &b : r.firstTokenByBucket)
        os << (&b == &r.firstTokenByBucket.front() ? " " : ", ") << "<= " << b.tokens << ": "
           << fixed(b.firstTokenMs, b.firstTokenMs < 10 ? 3 : 1) << " ms";
      os << "\n";
    }
    if (p.chunkLength)
      os << "  chunk of " << p.chunkLength << " tokens with history: " << fixed(r.chunkMs, 1) << " ms\n";
    os << "  decode: " << fixed(r.decodeMsPerToken, 2) << " ms/token, " << fixed(r.decodeTokensPerSecond(), 2)
       << " tokens/s\n";
  }
  return os.str();
}

namespace {

nlohmann::json bucketsJson(const ChipDryRun &r) {
  nlohmann::json list = nlohmann::json::array();
  for (const ChipDryRun::BucketLatency &b : r.firstTokenByBucket)
    list.push_back({{"tokens", b.tokens}, {"first_token_ms", b.firstTokenMs}});
  return list;
}

} // namespace

std::string tpuc::llm::dryRunJson(const DryRunReport &report) {
  const ModelConfig &c = report.config;
  const ConvertPlan &p = report.plan;
  nlohmann::json root;
  root["schema"] = "tpuc-llm-dry-run";
  root["version"] = 1;
  root["model"] = {{"architecture", c.architecture},
                   {"layers", c.numHiddenLayers},
                   {"hidden_size", c.hiddenSize},
                   {"intermediate_size", c.intermediateSize},
                   {"heads", c.numAttentionHeads},
                   {"kv_heads", c.numKeyValueHeads},
                   {"head_dim", c.headDim},
                   {"vocab_size", c.vocabSize},
                   {"tie_word_embeddings", c.tieWordEmbeddings}};
  root["plan"] = {{"quantize", p.quantize},
                  {"weight_bits", p.weightBits},
                  {"group_size", p.groupSize},
                  {"symmetric", p.symmetric},
                  {"prequantized", p.prequantized},
                  {"seq_length", p.seqLength},
                  {"max_input_length", p.maxInputLength},
                  {"chunk_length", p.chunkLength},
                  {"buckets", p.buckets},
                  {"stages", p.stages}};
  nlohmann::json chips = nlohmann::json::array();
  for (const ChipDryRun &r : report.chips) {
    const MemoryPlan &m = r.memory;
    nlohmann::json stages = nlohmann::json::array();
    for (const StageEstimate &e : r.stages)
      stages.push_back({{"name", e.name},
                        {"tokens", e.tokens},
                        {"runs", e.runs},
                        {"ops", e.ops},
                        {"cycles", e.cycles},
                        {"tiu_cycles", e.tiuCycles},
                        {"gdma_cycles", e.gdmaCycles},
                        {"weight_bytes", e.weightBytes},
                        {"us", e.us}});
    chips.push_back({{"chip", r.chip},
                     {"frequency_mhz", r.frequencyMhz},
                     {"ddr_bandwidth_gbps", r.ddrBandwidthGBps},
                     {"stage_launch_us", r.stageLaunchUs},
                     {"stage_launch_from_profile", r.launchFromProfile},
                     {"memory",
                      {{"layer", weightJson(m.layer)},
                       {"layers", m.layers},
                       {"shared", weightJson(m.shared)},
                       {"weights", m.weightBytes()},
                       {"kv_cache", m.kvCacheBytes},
                       {"activations", m.activationBytes},
                       {"activation_stage", m.activationStage},
                       {"total", m.totalBytes()},
                       {"ddr", m.ddrBytes},
                       {"fits", m.fits()},
                       {"does_not_fit", m.overflow}}},
                     {"stages", stages},
                     {"first_token_ms", r.firstTokenMs},
                     {"first_token_by_bucket", bucketsJson(r)},
                     {"chunk_ms", r.chunkMs},
                     {"decode_ms_per_token", r.decodeMsPerToken},
                     {"decode_tokens_per_s", r.decodeTokensPerSecond()}});
  }
  root["chips"] = chips;
  return root.dump(2) + "\n";
}
