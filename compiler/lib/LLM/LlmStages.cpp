//===- LlmStages.cpp - The Top IR of each LLM stage -----------------------===//

#include "LlmStages.h"

#include "StageBuilder.h"

#include <cmath>

using namespace mlir;
using namespace tpuc::llm;
using llvm::Expected;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

//===----------------------------------------------------------------------===//
// RoPE frequencies (HuggingFace's modeling_rope_utils, in float32 like it)
//===----------------------------------------------------------------------===//

Expected<RopeParams> tpuc::llm::computeRope(const ModelConfig &config, int64_t seqLength) {
  int64_t dim = config.headDim;
  double base = config.ropeTheta;
  RopeParams rope;
  std::string type = config.ropeScaling ? config.ropeScaling->type : "default";
  const RopeScaling *rs = config.ropeScaling ? &*config.ropeScaling : nullptr;
  if (type == "dynamic") {
    // Dynamic NTK with a static context: the base grows once seq_length passes the trained length.
    int64_t original = rs->originalMaxPositionEmbeddings.value_or(config.maxPositionEmbeddings);
    if (seqLength > original)
      base *= std::pow(rs->factor * seqLength / original - (rs->factor - 1), double(dim) / (dim - 2));
  }
  auto baseFreq = [&](int64_t i) {
    float exponent = static_cast<float>(2 * i) / static_cast<float>(dim);
    return 1.0f / std::pow(static_cast<float>(base), exponent);
  };
  int64_t half = dim / 2;
  rope.invFreq.resize(half);
  for (int64_t i = 0; i < half; ++i)
    rope.invFreq[i] = baseFreq(i);
  if (type == "default" || type == "dynamic")
    return rope;
  if (type == "linear") {
    for (float &f : rope.invFreq)
      f = static_cast<float>(f / rs->factor);
    return rope;
  }
  if (type == "llama3") {
    double factor = rs->factor, low = rs->lowFreqFactor.value_or(1.0),
           high = rs->highFreqFactor.value_or(4.0);
    double original = static_cast<double>(rs->originalMaxPositionEmbeddings.value_or(8192));
    double lowWavelen = original / low, highWavelen = original / high;
    for (float &f : rope.invFreq) {
      double wavelen = 2 * M_PI / f;
      double scaled = wavelen > lowWavelen ? f / factor : f;
      if (wavelen >= highWavelen && wavelen <= lowWavelen) {
        double smooth = (original / wavelen - low) / (high - low);
        scaled = (1 - smooth) * scaled / factor + smooth * scaled;
      }
      f = static_cast<float>(scaled);
    }
    return rope;
  }
  if (type == "yarn") {
    double factor = rs->factor;
    double original =
        static_cast<double>(rs->originalMaxPositionEmbeddings.value_or(config.maxPositionEmbeddings));
    double betaFast = rs->betaFast.value_or(32.0), betaSlow = rs->betaSlow.value_or(1.0);
    rope.attentionFactor = rs->attentionFactor.value_or(factor <= 1 ? 1.0 : 0.1 * std::log(factor) + 1.0);
    auto correctionDim = [&](double rotations) {
      return (dim * std::log(original / (rotations * 2 * M_PI))) / (2 * std::log(base));
    };
    double lowDim = std::max(0.0, std::floor(correctionDim(betaFast)));
    double highDim = std::min(double(dim - 1), std::ceil(correctionDim(betaSlow)));
    if (lowDim == highDim)
      highDim += 0.001;
    for (int64_t i = 0; i < half; ++i) {
      float ramp = std::clamp(static_cast<float>((i - lowDim) / (highDim - lowDim)), 0.0f, 1.0f);
      float extrapolationFactor = 1.0f - ramp;
      float extrapolation = rope.invFreq[i];
      float interpolation = static_cast<float>(extrapolation / factor);
      rope.invFreq[i] = interpolation * (1 - extrapolationFactor) + extrapolation * extrapolationFactor;
    }
    return rope;
  }
  return makeError("config.json: rope_scaling type '" + type +
                   "' is not supported (default, linear, dynamic, llama3, yarn)");
}

//===----------------------------------------------------------------------===//
// Decoder layer
//===----------------------------------------------------------------------===//

namespace {

/// cos and sin [1, L, D] of `positions` [1, L] (i32), gathered from tables of every position below
/// `seqLength` (weights shared by all block stages). The angles and their cos/sin are computed here in
/// float32 like HuggingFace's rotary embedding (which disables autocast for them), so a BF16 or F16 stage
/// only rounds the final cos/sin values: computing position × inv_freq in BF16 in the graph would be off
/// by whole radians at positions in the hundreds.
std::pair<Value, Value> ropeTables(StageBuilder &s, Value positions, const RopeParams &rope, int64_t seqLength) {
  const int64_t half = static_cast<int64_t>(rope.invFreq.size()), dim = 2 * half;
  std::vector<float> cosTable(static_cast<size_t>(seqLength * dim)), sinTable(cosTable.size());
  const float factor = static_cast<float>(rope.attentionFactor);
  for (int64_t p = 0; p < seqLength; ++p)
    for (int64_t i = 0; i < half; ++i) {
      float angle = static_cast<float>(p) * rope.invFreq[i];
      float c = std::cos(angle) * factor, sn = std::sin(angle) * factor;
      for (int64_t j : {i, i + half}) {
        cosTable[p * dim + j] = c;
        sinTable[p * dim + j] = sn;
      }
    }
  auto axis0 = s.attr("axis", s.b().getI64IntegerAttr(0));
  Value cosWeight = s.weight("rope.cos_table", {seqLength, dim}, cosTable);
  Value sinWeight = s.weight("rope.sin_table", {seqLength, dim}, sinTable);
  Value cos = s.op("top.gather", "rope.cos", {cosWeight, positions}, {axis0});
  Value sin = s.op("top.gather", "rope.sin", {sinWeight, positions}, {axis0});
  return {cos, sin};
}

Value rmsNorm(StageBuilder &s, Value x, llvm::StringRef weightName, const std::vector<float> &gamma,
              double eps, llvm::StringRef name) {
  Value g = s.weight(weightName, {static_cast<int64_t>(gamma.size())}, gamma);
  return s.op("top.rmsnorm", name, {x, g}, {s.attr("eps", s.b().getF64FloatAttr(eps))});
}

} // namespace

Expected<OwningOpRef<ModuleOp>> tpuc::llm::buildBlockStage(MLIRContext &context, llvm::StringRef stageName,
                                                           const ModelConfig &config,
                                                           const LayerWeights &layer, const RopeParams &rope,
                                                           BlockKind kind, int64_t length, int64_t seqLength,
                                                           NpzFile &weights, llvm::StringRef weightPath) {
  StageBuilder s(context, stageName, &weights, weightPath);
  const int64_t hidden = config.hiddenSize, heads = config.numAttentionHeads,
                kvHeads = config.numKeyValueHeads, dim = config.headDim;
  const double eps = config.rmsNormEps;
  const std::string &p = layer.prefix;
  if (kind == BlockKind::Cache)
    length = 1;
  int64_t history = kind == BlockKind::Prefill ? 0 : seqLength;

  Value x = s.input("hidden_states", {1, length, hidden}, s.f32());
  Value positions = s.input("position_ids", {1, length}, s.i32());
  Value mask = s.input("attention_mask", {1, 1, length, history + length}, s.f32());
  Value historyK, historyV;
  if (history) {
    historyK = s.input("history_k", {1, history, kvHeads, dim}, s.f32());
    historyV = s.input("history_v", {1, history, kvHeads, dim}, s.f32());
  }
  auto [cos, sin] = ropeTables(s, positions, rope, seqLength);

  // Attention.
  Value h = rmsNorm(s, x, p + ".input_layernorm.weight", layer.inputNorm, eps, p + ".input_layernorm");
  auto bias = [](const std::optional<std::vector<float>> &b) { return b ? &*b : nullptr; };
  Value q = s.linear(h, layer.q, bias(layer.qBias), p + ".self_attn.q_proj");
  Value k = s.linear(h, layer.k, bias(layer.kBias), p + ".self_attn.k_proj");
  Value v = s.linear(h, layer.v, bias(layer.vBias), p + ".self_attn.v_proj");
  q = s.reshape(q, {1, length, heads, dim}, p + ".self_attn.q_heads");
  k = s.reshape(k, {1, length, kvHeads, dim}, p + ".self_attn.k_heads");
  v = s.reshape(v, {1, length, kvHeads, dim}, p + ".self_attn.v_out");
  if (config.qkNorm) {
    q = rmsNorm(s, q, p + ".self_attn.q_norm.weight", layer.qNorm, eps, p + ".self_attn.q_norm");
    k = rmsNorm(s, k, p + ".self_attn.k_norm.weight", layer.kNorm, eps, p + ".self_attn.k_norm");
  }
  auto half = s.attr("rope_mode", top::RopeModeAttr::get(&context, top::RopeMode::half));
  q = s.op("top.rope", p + ".self_attn.q_rope", {q, cos, sin}, {half});
  k = s.op("top.rope", p + ".self_attn.k_out", {k, cos, sin}, {half});
  Value keys = k, values = v;
  if (history) {
    auto axis1 = s.attr("axis", s.b().getI64IntegerAttr(1));
    keys = s.op("top.concat", p + ".self_attn.keys", {historyK, k}, {axis1});
    values = s.op("top.concat", p + ".self_attn.values", {historyV, v}, {axis1});
  }
  Value att = s.op("top.attention", p + ".self_attn.attention", {q, keys, values, mask},
                   {s.attr("scale", s.b().getF64FloatAttr(1.0 / std::sqrt(static_cast<double>(dim))))});
  att = s.reshape(att, {1, length, heads * dim}, p + ".self_attn.merge_heads");
  Value o = s.linear(att, layer.o, bias(layer.oBias), p + ".self_attn.o_proj");
  x = s.op("top.add", p + ".attn_residual", {x, o});

  // MLP.
  h = rmsNorm(s, x, p + ".post_attention_layernorm.weight", layer.postNorm, eps,
              p + ".post_attention_layernorm");
  Value gate = s.linear(h, layer.gate, bias(layer.gateBias), p + ".mlp.gate_proj");
  Value up = s.linear(h, layer.up, bias(layer.upBias), p + ".mlp.up_proj");
  gate = s.op("top.silu", p + ".mlp.act", {gate});
  Value inner = s.op("top.mul", p + ".mlp.gated", {gate, up});
  Value down = s.linear(inner, layer.down, bias(layer.downBias), p + ".mlp.down_proj");
  x = s.op("top.add", p + ".hidden_out", {x, down});
  return s.finish({x, k, v});
}

//===----------------------------------------------------------------------===//
// Embedding and heads
//===----------------------------------------------------------------------===//

Expected<OwningOpRef<ModuleOp>>
tpuc::llm::buildEmbeddingStage(MLIRContext &context, llvm::StringRef stageName, const ModelConfig &config,
                               llvm::StringRef tableName, const std::vector<float> &table, int64_t length,
                               NpzFile &weights, llvm::StringRef weightPath) {
  StageBuilder s(context, stageName, &weights, weightPath);
  Value ids = s.input("input_ids", {1, length}, s.i32());
  Value t = s.weight(tableName, {config.vocabSize, config.hiddenSize}, table);
  Value x = s.op("top.gather", "hidden_states", {t, ids}, {s.attr("axis", s.b().getI64IntegerAttr(0))});
  return s.finish({x});
}

Expected<OwningOpRef<ModuleOp>> tpuc::llm::buildLmHeadStage(MLIRContext &context, const ModelConfig &config,
                                                            const std::vector<float> &norm,
                                                            llvm::StringRef headName,
                                                            const std::vector<float> &head, NpzFile &weights,
                                                            llvm::StringRef weightPath) {
  StageBuilder s(context, "lm_head", &weights, weightPath);
  Value x = s.input("hidden_states", {1, config.hiddenSize}, s.f32());
  x = rmsNorm(s, x, "model.norm.weight", norm, config.rmsNormEps, "model.norm");
  Value w = s.weight(headName, {config.vocabSize, config.hiddenSize}, head);
  Value logits =
      s.op("top.matmul", "logits", {x, w, s.none()}, {s.attr("right_transpose", s.b().getBoolAttr(true))});
  return s.finish({logits});
}

Expected<OwningOpRef<ModuleOp>> tpuc::llm::buildGreedyHeadStage(MLIRContext &context, int64_t vocab) {
  StageBuilder s(context, "greedy_head", nullptr, "");
  Value logits = s.input("logits", {1, vocab}, s.f32());
  auto results =
      s.create("top.topk", "token", {logits},
               {s.attr("axis", s.b().getI64IntegerAttr(1)), s.attr("k", s.b().getI64IntegerAttr(1))},
               {s.f32(), s.i32()});
  return s.finish({results[1]});
}

Expected<OwningOpRef<ModuleOp>> tpuc::llm::buildSampleHeadStage(MLIRContext &context, int64_t vocab,
                                                                int64_t seqLength, int64_t topK) {
  StageBuilder s(context, "sample_head", nullptr, "");
  int64_t k = std::min(topK, vocab);
  Value logits = s.input("logits", {1, vocab}, s.f32());
  Value ids = s.input("input_ids", {1, seqLength}, s.i32());
  Value topP = s.input("top_p", {1}, s.f32());
  Value temperature = s.input("temperature", {1}, s.f32());
  Value penalty = s.input("penalty", {1}, s.f32());
  auto axis1 = s.attr("axis", s.b().getI64IntegerAttr(1));
  Value penalized = s.op("top.repetition_penalty", "penalized", {logits, ids, penalty});
  auto top = s.create("top.topk", "tokens", {penalized}, {axis1, s.attr("k", s.b().getI64IntegerAttr(k))},
                      {s.f32(), s.i32()});
  Value scaled = s.op("top.div", "scaled", {top[0], temperature});
  // Keep the candidates whose preceding cumulative probability is below top_p (always the first).
  Value probs = s.op("top.softmax", "candidate_probs", {scaled}, {axis1});
  Value cumulative = s.op("top.cumsum", "cumulative", {probs}, {axis1});
  Value keep = s.create("top.compare", "below_top_p", {cumulative, topP},
                        {s.attr("mode", top::CompareModeAttr::get(&context, top::CompareMode::lt))},
                        {s.b().getI1Type()})
                   .front();
  keep = s.op("top.cast", "below_top_p_f32", {keep});
  Value first = s.constant("keep_first", {1, 1}, {1.0f});
  if (k > 1) {
    Value shifted = s.op("top.slice", "below_top_p_shifted", {keep},
                         {s.attr("offset", s.b().getDenseI64ArrayAttr({0, 0})),
                          s.attr("steps", s.b().getDenseI64ArrayAttr({1, 1})),
                          s.attr("ends", s.b().getDenseI64ArrayAttr({1, k - 1}))});
    keep = s.op("top.concat", "keep", {first, shifted}, {axis1});
  } else {
    keep = first;
  }
  Value dropped = s.constant("dropped_logit", {1}, {-1000.0f});
  Value masked = s.op("top.where", "masked", {keep, scaled, dropped});
  Value result = s.op("top.softmax", "probs", {masked}, {axis1});
  return s.finish({result, top[1]});
}
