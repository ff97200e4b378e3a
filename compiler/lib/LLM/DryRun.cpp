//===- DryRun.cpp - llm-convert --dry_run: memory plan and latency per chip ===//
// Rebuilds each stage as a backend::Graph (shapes and storage types of its lowered IR), costs it with
// the backend's per-op model and DDR planner, and adds up weights, KV cache and activations.
//===----------------------------------------------------------------------===//

#include "tpuc/LLM/DryRun.h"

#include "tpuc/Backend/CostModel.h"
#include "tpuc/Backend/GlobalMemory.h"
#include "tpuc/Backend/Graph.h"
#include "tpuc/Backend/LayerGroup.h"
#include "tpuc/Backend/LocalMemory.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

using namespace tpuc;
using namespace tpuc::llm;
using backend::DType;
using backend::OpKind;
using llvm::Expected;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

WeightBytes &WeightBytes::operator+=(const WeightBytes &o) {
  values += o.values;
  scales += o.scales;
  zeroPoints += o.zeroPoints;
  other += o.other;
  return *this;
}

namespace {

/// The float type activations, norms, biases and the shared weights lower to: llm_convert compiles
/// the blocks at -q and embedding / lm_head / heads at its half precision (f32 stays f32).
DType activationType(const ConvertPlan &plan) {
  llvm::StringRef q = plan.quantize;
  if (q == "f32")
    return DType::F32;
  if (q.ends_with("bf16"))
    return DType::BF16;
  return DType::F16;
}

int64_t actBytes(const ConvertPlan &plan) { return backend::dtypeBytes(activationType(plan)); }

/// Elements per group along K (group 0 or -1: the whole row).
int64_t groupOf(const ConvertPlan &plan, int64_t k) { return plan.groupSize > 0 ? plan.groupSize : k; }

/// Builds one stage's cost graph with the types its Top IR lowers to.
class CostGraph {
public:
  CostGraph(const ModelConfig &config, const ConvertPlan &plan)
      : config(config), plan(plan), act(activationType(plan)) {}

  int input(const std::string &name, std::vector<int64_t> shape, DType dtype) {
    return g.addInput(name, std::move(shape), dtype);
  }
  int input(const std::string &name, std::vector<int64_t> shape) { return input(name, std::move(shape), act); }
  int weight(const std::string &name, std::vector<int64_t> shape, DType dtype) {
    return g.addWeight(name, std::move(shape), dtype);
  }
  int op(const std::string &name, OpKind kind, std::vector<int> inputs, std::vector<int> weights,
         std::vector<int64_t> shape, std::optional<DType> dtype = std::nullopt, int64_t axis = 1) {
    backend::Op o;
    o.name = name;
    o.kind = kind;
    o.inputs = std::move(inputs);
    o.weights = std::move(weights);
    o.axis = axis;
    backend::Value result;
    result.name = name;
    result.shape = std::move(shape);
    result.dtype = dtype.value_or(act);
    int index = g.addOp(std::move(o), {result});
    return g.ops[index].outputs.front();
  }
  /// y = x W^T (+ b): a16matmul (packed weights, f32 scales, ui8 zero points) or a float matmul.
  int linear(const std::string &name, int x, int64_t out, int64_t in, bool bias, bool quantized = true) {
    std::vector<int64_t> shape = g.values[x].shape;
    shape.back() = out;
    std::vector<int> weights;
    if (quantized && plan.weightBits) {
      int64_t groups = in / groupOf(plan, in);
      weights.push_back(weight(name + ".weight", {out, in * plan.weightBits / 8}, DType::UINT8));
      weights.push_back(weight(name + ".scale", {out, groups}, DType::F32));
      if (!plan.symmetric)
        weights.push_back(weight(name + ".zp", {out, groups}, DType::UINT8));
    } else {
      weights.push_back(weight(name + ".weight", {out, in}, act));
    }
    if (bias)
      weights.push_back(weight(name + ".bias", {out}, act));
    int y = op(name, OpKind::MatMul, {x}, weights, shape);
    // A weight-only quantized matmul (a16matmul) has no row form (backend::Op::noRowForm); a float
    // one holds W as [out, in] (right_transpose), as the lowering of the checkpoint's Linear does.
    g.ops[g.values[y].producer].noRowForm = quantized && plan.weightBits;
    g.ops[g.values[y].producer].weightColumnsFirst = true;
    return y;
  }
  /// A stage input as the converter declares it (F32 at the net boundary) cast to the activation type
  /// inside, as the lowering inserts it (`hidden_states_bf16`).
  int castInput(const std::string &name, const std::vector<int64_t> &shape) {
    int x = input(name, shape, DType::F32);
    return act == DType::F32 ? x : op(name + "_cast", OpKind::Unary, {x}, {}, shape, act);
  }
  /// A stage output cast back to F32 at the net boundary (`hidden_out_f32`).
  void castOutput(int v) {
    if (g.values[v].dtype == DType::F32) {
      g.markOutput(v);
      return;
    }
    g.markOutput(op(g.values[v].name + "_f32", OpKind::Unary, {v}, {}, g.values[v].shape, DType::F32));
  }
  int rmsNorm(const std::string &name, int x, int64_t width) {
    return op(name, OpKind::RMSNorm, {x}, {weight(name + ".weight", {width}, act)}, g.values[x].shape);
  }

  const ModelConfig &config;
  const ConvertPlan &plan;
  DType act;
  backend::Graph g;
};

/// block_i (history 0), block_cache_i (1 token) and block_kv_i: LlmStages.cpp's decoder layer.
backend::Graph blockGraph(const ModelConfig &c, const ConvertPlan &plan, int64_t length, int64_t history) {
  CostGraph s(c, plan);
  const int64_t h = c.hiddenSize, heads = c.numAttentionHeads, kvHeads = c.numKeyValueHeads, d = c.headDim;
  bool qkvBias = c.attentionBias || c.family == ModelFamily::Qwen2;
  bool oBias = c.attentionBias && c.family != ModelFamily::Qwen2;
  int x = s.castInput("hidden_states", {1, length, h});
  int pos = s.input("position_ids", {1, length}, DType::INT32);
  int mask = s.castInput("attention_mask", {1, 1, length, history + length});
  int hk = -1, hv = -1;
  if (history) {
    hk = s.castInput("history_k", {1, history, kvHeads, d});
    hv = s.castInput("history_v", {1, history, kvHeads, d});
  }
  int cos = s.op("rope.cos", OpKind::Other, {pos}, {}, {1, length, d});
  int sin = s.op("rope.sin", OpKind::Other, {pos}, {}, {1, length, d});
  int n = s.rmsNorm("input_layernorm", x, h);
  int q = s.linear("q_proj", n, heads * d, h, qkvBias);
  int k = s.linear("k_proj", n, kvHeads * d, h, qkvBias);
  int v = s.linear("v_proj", n, kvHeads * d, h, qkvBias);
  q = s.op("q_heads", OpKind::Reshape, {q}, {}, {1, length, heads, d});
  k = s.op("k_heads", OpKind::Reshape, {k}, {}, {1, length, kvHeads, d});
  v = s.op("v_out", OpKind::Reshape, {v}, {}, {1, length, kvHeads, d});
  if (c.qkNorm) {
    q = s.rmsNorm("q_norm", q, d);
    k = s.rmsNorm("k_norm", k, d);
  }
  q = s.op("q_rope", OpKind::Other, {q, cos, sin}, {}, {1, length, heads, d});
  k = s.op("k_out", OpKind::Other, {k, cos, sin}, {}, {1, length, kvHeads, d});
  int keys = k, values = v;
  if (history) {
    keys = s.op("keys", OpKind::Concat, {hk, k}, {}, {1, history + length, kvHeads, d}, std::nullopt, 1);
    values = s.op("values", OpKind::Concat, {hv, v}, {}, {1, history + length, kvHeads, d}, std::nullopt, 1);
  }
  // Attention as the converter lowers it: one tpu.attention (both products and the softmax, the scores
  // in LMEM), costed by the backend's attention rule.
  int att = s.op("attention", OpKind::Other, {q, keys, values, mask}, {}, {1, length, heads, d});
  s.g.ops[s.g.values[att].producer].attention = true;
  att = s.op("merge_heads", OpKind::Reshape, {att}, {}, {1, length, heads * d});
  int o = s.linear("o_proj", att, h, heads * d, oBias);
  x = s.op("attn_residual", OpKind::Eltwise, {x, o}, {}, {1, length, h});
  n = s.rmsNorm("post_attention_layernorm", x, h);
  int gate = s.linear("gate_proj", n, c.intermediateSize, h, c.mlpBias);
  int up = s.linear("up_proj", n, c.intermediateSize, h, c.mlpBias);
  gate = s.op("act", OpKind::Unary, {gate}, {}, {1, length, c.intermediateSize});
  int inner = s.op("gated", OpKind::Eltwise, {gate, up}, {}, {1, length, c.intermediateSize});
  int down = s.linear("down_proj", inner, h, c.intermediateSize, c.mlpBias);
  x = s.op("hidden_out", OpKind::Eltwise, {x, down}, {}, {1, length, h});
  s.castOutput(x);
  s.castOutput(k);
  s.castOutput(v);
  return std::move(s.g);
}

/// embedding / embedding_cache: a gather reads only the `length` rows it returns, so the table is not a
/// streamed weight here (it is in the memory plan).
backend::Graph embeddingGraph(const ModelConfig &c, const ConvertPlan &plan, int64_t length) {
  CostGraph s(c, plan);
  int ids = s.input("input_ids", {1, length}, DType::INT32);
  int rows = s.input("table_rows", {length, c.hiddenSize});
  s.castOutput(s.op("gather", OpKind::Other, {ids, rows}, {}, {1, length, c.hiddenSize}));
  return std::move(s.g);
}

backend::Graph lmHeadGraph(const ModelConfig &c, const ConvertPlan &plan) {
  CostGraph s(c, plan);
  int x = s.castInput("hidden_states", {1, c.hiddenSize});
  x = s.rmsNorm("model.norm", x, c.hiddenSize);
  s.castOutput(s.linear("lm_head", x, c.vocabSize, c.hiddenSize, false, /*quantized=*/false));
  return std::move(s.g);
}

backend::Graph greedyHeadGraph(const ModelConfig &c, const ConvertPlan &plan) {
  CostGraph s(c, plan);
  int logits = s.castInput("logits", {1, c.vocabSize});
  s.g.markOutput(s.op("token", OpKind::Other, {logits}, {}, {1, 1}, DType::INT32));
  return std::move(s.g);
}

/// LlmStages.cpp's sample head: repetition penalty, top-k, temperature, softmax, top-p mask, softmax.
backend::Graph sampleHeadGraph(const ModelConfig &c, const ConvertPlan &plan) {
  CostGraph s(c, plan);
  int64_t k = std::min<int64_t>(std::max<int64_t>(1, plan.sampleTopK), c.vocabSize);
  int logits = s.castInput("logits", {1, c.vocabSize});
  int ids = s.input("input_ids", {1, plan.seqLength}, DType::INT32);
  int topP = s.castInput("top_p", {1});
  int temperature = s.castInput("temperature", {1});
  int penalty = s.castInput("penalty", {1});
  int penalized = s.op("penalized", OpKind::Other, {logits, ids, penalty}, {}, {1, c.vocabSize});
  int top = s.op("tokens", OpKind::Other, {penalized}, {}, {1, k});
  int scaled = s.op("scaled", OpKind::Other, {top, temperature}, {}, {1, k});
  int probs = s.op("candidate_probs", OpKind::Softmax, {scaled}, {}, {1, k});
  int cumulative = s.op("cumulative", OpKind::Other, {probs}, {}, {1, k});
  int keep = s.op("below_top_p", OpKind::Other, {cumulative, topP}, {}, {1, k});
  if (k > 1) {
    int shifted = s.op("below_top_p_shifted", OpKind::Other, {keep}, {}, {1, k - 1});
    keep = s.op("keep", OpKind::Concat, {shifted}, {s.weight("keep_first", {1, 1}, s.act)}, {1, k});
  }
  int masked = s.op("masked", OpKind::Other, {keep, scaled}, {s.weight("dropped_logit", {1}, s.act)}, {1, k});
  s.castOutput(s.op("probs", OpKind::Softmax, {masked}, {}, {1, k}));
  s.g.markOutput(top);
  return std::move(s.g);
}

/// The optional runtime.stage_launch_us of the profile file (the loader ignores keys it does not know).
std::optional<double> stageLaunchUs(const backend::ChipProfile &chip) {
  if (chip.sourceFile.empty())
    return std::nullopt;
  std::ifstream in(chip.sourceFile);
  nlohmann::json root = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!root.is_object() || !root.contains("runtime") || !root["runtime"].is_object())
    return std::nullopt;
  const nlohmann::json &r = root["runtime"];
  if (!r.contains("stage_launch_us") || !r["stage_launch_us"].is_number() || r["stage_launch_us"] < 0)
    return std::nullopt;
  return r["stage_launch_us"].get<double>();
}

std::string gib(int64_t bytes) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(2);
  if (bytes >= (int64_t(1) << 30))
    os << double(bytes) / double(int64_t(1) << 30) << " GiB";
  else
    os << double(bytes) / double(1 << 20) << " MiB";
  return os.str();
}

} // namespace

WeightBytes tpuc::llm::linearWeightBytes(const ConvertPlan &plan, int64_t out, int64_t in, int64_t alignment) {
  auto al = [&](int64_t b) { return backend::alignUp(b, std::max<int64_t>(alignment, 1)); };
  WeightBytes w;
  if (!plan.weightBits) {
    w.values = al(out * in * actBytes(plan));
    return w;
  }
  int64_t groups = in / groupOf(plan, in);
  w.values = al(out * in * plan.weightBits / 8);
  w.scales = al(out * groups * 4);
  if (!plan.symmetric)
    w.zeroPoints = al(out * groups);
  return w;
}

Expected<ChipDryRun> tpuc::llm::dryRunOnChip(const ModelConfig &c, const ConvertPlan &plan,
                                             const backend::ChipProfile &chip) {
  ChipDryRun r;
  r.chip = chip.name;
  r.frequencyMhz = chip.frequencyMhz;
  r.ddrBandwidthGBps = chip.gdmaBytesPerSecond / 1e9;
  if (auto launch = stageLaunchUs(chip)) {
    r.stageLaunchUs = *launch;
    r.launchFromProfile = true;
  }

  // Memory: weights as the coefficient region stores them (each tensor aligned).
  MemoryPlan &m = r.memory;
  const int64_t align = chip.coeffAlignment, act = actBytes(plan);
  const int64_t h = c.hiddenSize, d = c.headDim, qOut = c.numAttentionHeads * d,
                kvOut = c.numKeyValueHeads * d, inter = c.intermediateSize;
  auto small = [&](int64_t elements) { return backend::alignUp(elements * act, align); };
  bool qkvBias = c.attentionBias || c.family == ModelFamily::Qwen2;
  bool oBias = c.attentionBias && c.family != ModelFamily::Qwen2;
  struct Linear {
    int64_t out, in;
    bool bias;
  } linears[] = {{qOut, h, qkvBias},  {kvOut, h, qkvBias}, {kvOut, h, qkvBias},    {h, qOut, oBias},
                 {inter, h, c.mlpBias}, {inter, h, c.mlpBias}, {h, inter, c.mlpBias}};
  for (const Linear &l : linears) {
    m.layer += linearWeightBytes(plan, l.out, l.in, align);
    if (l.bias)
      m.layer.other += small(l.out);
  }
  m.layer.other += 2 * small(h) + (c.qkNorm ? 2 * small(d) : 0);
  m.layers = c.numHiddenLayers;
  ConvertPlan half = plan; // embedding and lm_head stay at the float precision
  half.weightBits = 0;
  m.shared.other += small(c.vocabSize * h) + small(h);
  if (!c.tieWordEmbeddings)
    m.shared += linearWeightBytes(half, c.vocabSize, h, align);
  m.kvCacheBytes =
      2 * c.numHiddenLayers * backend::alignUp(plan.seqLength * kvOut * act, chip.gmemAlignment);
  m.ddrBytes = chip.ddrBytes;

  // Stages: cost graphs through the backend's partition (every op global here) and DDR planner.
  struct Stage {
    std::string name;
    int64_t tokens, runs;
    backend::Graph graph;
  };
  std::vector<Stage> stages;
  int64_t layers = c.numHiddenLayers;
  stages.push_back({"embedding", plan.maxInputLength, 1, embeddingGraph(c, plan, plan.maxInputLength)});
  stages.push_back({"block_i", plan.maxInputLength, layers, blockGraph(c, plan, plan.maxInputLength, 0)});
  stages.push_back({"lm_head", 1, 1, lmHeadGraph(c, plan)});
  stages.push_back({"greedy_head", 1, 1, greedyHeadGraph(c, plan)});
  stages.push_back({"embedding_cache", 1, 1, embeddingGraph(c, plan, 1)});
  stages.push_back({"block_cache_i", 1, layers, blockGraph(c, plan, 1, plan.seqLength)});
  if (plan.chunkLength)
    stages.push_back(
        {"block_kv_i", plan.chunkLength, layers, blockGraph(c, plan, plan.chunkLength, plan.seqLength)});
  stages.push_back({"sample_head", 1, 1, sampleHeadGraph(c, plan)});
  for (int64_t b : plan.buckets) {
    stages.push_back({bucketStageName("embedding", b), b, 1, embeddingGraph(c, plan, b)});
    stages.push_back({bucketStageName("block_", b) + "_i", b, layers, blockGraph(c, plan, b, 0)});
    if (plan.chunkLength && b < plan.chunkLength)
      stages.push_back(
          {bucketStageName("block_kv_", b) + "_i", b, layers, blockGraph(c, plan, b, plan.seqLength)});
  }

  backend::GroupOptions options;
  options.opt = 2; // as llm-convert compiles the stages (the DP: matmuls grouped with their neighbours)
  for (Stage &stage : stages) {
    if (std::string problem = stage.graph.verify(); !problem.empty())
      return makeError("dry run: the cost graph of " + stage.name + " is invalid: " + problem);
    backend::LayerGroupPlan groups = backend::planLayerGroups(chip, stage.graph, options);
    StageEstimate e;
    e.name = stage.name;
    e.tokens = stage.tokens;
    e.runs = stage.runs;
    e.ops = static_cast<int64_t>(stage.graph.ops.size());
    e.cycles = groups.totalCycles;
    for (const backend::LayerGroup &group : groups.groups) {
      e.tiuCycles += group.tiuCycles;
      e.gdmaCycles += group.gdmaCycles;
    }
    for (const backend::Value &v : stage.graph.values)
      if (v.isWeight)
        e.weightBytes += v.bytes();
    e.us = backend::cyclesToUs(chip, e.cycles) + r.stageLaunchUs;
    try {
      backend::GmemPlan gmem = backend::planGlobalMemory(chip, stage.graph, groups);
      if (gmem.activationPeak > m.activationBytes) {
        m.activationBytes = gmem.activationPeak;
        m.activationStage = stage.name;
      }
    } catch (const std::exception &err) {
      return makeError("dry run: " + stage.name + ": " + err.what());
    }
    r.stages.push_back(std::move(e));
  }
  auto ms = [&](const std::string &name) {
    for (const StageEstimate &e : r.stages)
      if (e.name == name)
        return e.us * static_cast<double>(e.runs) / 1000.0;
    return 0.0;
  };
  r.firstTokenMs = ms("embedding") + ms("block_i") + ms("lm_head") + ms("greedy_head");
  r.decodeMsPerToken = ms("embedding_cache") + ms("block_cache_i") + ms("lm_head") + ms("greedy_head");
  if (plan.chunkLength)
    r.chunkMs = ms("embedding") + ms("block_kv_i") + ms("lm_head") + ms("greedy_head");
  for (int64_t b : plan.buckets)
    r.firstTokenByBucket.push_back({b, ms(bucketStageName("embedding", b)) +
                                           ms(bucketStageName("block_", b) + "_i") + ms("lm_head") +
                                           ms("greedy_head")});
  if (!plan.buckets.empty())
    r.firstTokenByBucket.push_back({plan.maxInputLength, r.firstTokenMs});

  // What does not fit, placing shared weights, layer weights, KV cache and activations in that order.
  if (!m.fits()) {
    int64_t left = m.ddrBytes;
    auto place = [&](int64_t bytes, const std::string &what) {
      if (bytes <= left) {
        left -= bytes;
        return;
      }
      left = 0;
      m.overflow.push_back(what + " (" + gib(bytes) + ")");
    };
    place(m.shared.total(), "shared weights (embedding table, final norm, lm_head)");
    int64_t perLayer = std::max<int64_t>(m.layer.total(), 1);
    int64_t fitting = std::min<int64_t>(left / perLayer, m.layers);
    left -= fitting * m.layer.total();
    if (fitting < m.layers) {
      m.overflow.push_back("weights of layers " + std::to_string(fitting) + "-" + std::to_string(m.layers - 1) +
                           " (" + std::to_string(m.layers - fitting) + " of " + std::to_string(m.layers) +
                           ", " + gib((m.layers - fitting) * m.layer.total()) + ")");
      left = 0;
    }
    place(m.kvCacheBytes, "KV cache of seq_length " + std::to_string(plan.seqLength));
    place(m.activationBytes, "activations/IO of " + m.activationStage);
  }
  return r;
}

Expected<DryRunReport> tpuc::llm::dryRun(const ModelConfig &config, const ConvertPlan &plan,
                                         const std::string &chips) {
  DryRunReport report;
  report.config = config;
  report.plan = plan;
  std::vector<std::string> names;
  if (chips == "all") {
    names = backend::knownChips();
  } else {
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(chips).split(parts, ',', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef part : parts)
      names.push_back(part.trim().str());
  }
  if (names.empty())
    return makeError("--chip: no chip named");
  for (const std::string &name : names) {
    backend::ChipProfile profile;
    try {
      profile = backend::findChipProfile(name);
    } catch (const backend::ProfileError &e) {
      return makeError(e.what());
    }
    auto chip = dryRunOnChip(config, plan, profile);
    if (!chip)
      return chip.takeError();
    report.chips.push_back(std::move(*chip));
  }
  return report;
}
