//===- LlmConvert.cpp - HuggingFace decoder checkpoint -> staged Top IR ---===//
// Plans the conversion (lengths, precision), loads each layer's weights (float, quantized here, or passed
// through from GPTQ/AWQ/AutoRound packing) and writes every stage's module and weight files.
//===----------------------------------------------------------------------===//

#include "tpuc/LLM/LlmConvert.h"

#include "LlmStages.h"

#include "tpuc/Dialect/Top/WeightStore.h"
#include "tpuc/LLM/SafeTensors.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tpuc;
using namespace tpuc::llm;
using llvm::Expected;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

//===----------------------------------------------------------------------===//
// Plan
//===----------------------------------------------------------------------===//

Expected<ConvertPlan> tpuc::llm::planConversion(const ModelConfig &config, const ConvertOptions &options) {
  ConvertPlan plan;
  plan.seqLength = options.seqLength;
  if (options.useHistoryKv) {
    plan.chunkLength = options.chunkLength ? options.chunkLength : options.seqLength / 4;
    plan.maxInputLength = options.maxInputLength ? options.maxInputLength : plan.chunkLength;
    if (plan.chunkLength <= 0)
      return makeError("--seq_length " + llvm::Twine(options.seqLength) + " leaves no room for a chunk");
  } else {
    plan.maxInputLength = options.maxInputLength ? options.maxInputLength : options.seqLength;
  }
  if (config.hiddenAct != "silu")
    return makeError("config.json: hidden_act '" + config.hiddenAct + "' is not supported (silu)");
  if (config.headDim % 2 != 0)
    return makeError("config.json: head_dim " + llvm::Twine(config.headDim) + " must be even for RoPE");
  if (config.useSlidingWindow && options.warn)
    options.warn("warning: config.json asks for sliding-window attention; the stages attend to the whole "
                 "context (identical while it is shorter than the window)");
  llvm::StringRef q = options.quantize;
  static const char *kModes[] = {"bf16", "f16", "f32", "w8bf16", "w4bf16", "w8f16", "w4f16"};
  if (std::find(std::begin(kModes), std::end(kModes), q) == std::end(kModes))
    return makeError("--quantize '" + q + "' is not one of bf16, f16, f32, w8bf16, w4bf16, w8f16, w4f16");
  plan.quantize = q.str();
  plan.weightBits = q.starts_with("w4") ? 4 : q.starts_with("w8") ? 8 : 0;
  plan.groupSize = options.qGroupSize;
  plan.symmetric = options.symmetric;
  if (config.quantization) {
    const QuantizationConfig &qc = *config.quantization;
    if (qc.bits != 4 && qc.bits != 8)
      return makeError("config.json: quantization_config.bits " + llvm::Twine(qc.bits) +
                       " is not supported (4 or 8)");
    std::string activation = q.ends_with("f16") && !q.ends_with("bf16") ? "f16" : "bf16";
    std::string mode = "w" + std::to_string(qc.bits) + activation;
    if (mode != plan.quantize && options.warn)
      options.warn("warning: --quantize " + plan.quantize + " disagrees with the checkpoint's " +
                   qc.methodName + " " + std::to_string(qc.bits) + "-bit quantization_config; using " + mode);
    plan.quantize = mode;
    plan.weightBits = static_cast<int>(qc.bits);
    plan.groupSize = qc.groupSize;
    plan.symmetric = qc.sym;
    plan.prequantized = true;
  }
  plan.sampleTopK = std::min(options.sampleTopK, config.vocabSize);
  // Build order: the stages sharing shared.npz, then each layer's three, then the weight-free heads.
  plan.stages = {"embedding", "embedding_cache", "lm_head"};
  for (int64_t i = 0; i < config.numHiddenLayers; ++i) {
    plan.stages.push_back("block_" + std::to_string(i));
    plan.stages.push_back("block_cache_" + std::to_string(i));
    if (options.useHistoryKv)
      plan.stages.push_back("block_kv_" + std::to_string(i));
  }
  plan.stages.push_back("greedy_head");
  plan.stages.push_back("sample_head");
  return plan;
}

//===----------------------------------------------------------------------===//
// Weights
//===----------------------------------------------------------------------===//

namespace {

/// Reads the checkpoint's tensors as float / linear layers, checking shapes.
class WeightLoader {
public:
  WeightLoader(const SafeTensorsCheckpoint &checkpoint, const ModelConfig &config, const ConvertPlan &plan)
      : checkpoint(checkpoint), config(config), plan(plan) {}

  Expected<std::vector<float>> tensor(const std::string &name, std::vector<int64_t> shape) {
    auto view = checkpoint.get(name);
    if (!view)
      return view.takeError();
    if (view->shape() != llvm::ArrayRef<int64_t>(shape))
      return makeError("tensor '" + name + "' has shape " + shapeText(view->shape()) +
                       ", config.json implies " + shapeText(shape));
    return view->toF32();
  }

  std::optional<Expected<std::vector<float>>> optionalTensor(const std::string &name,
                                                             std::vector<int64_t> shape) {
    if (!checkpoint.contains(name))
      return std::nullopt;
    return tensor(name, std::move(shape));
  }

  Expected<LinearWeights> linear(const std::string &prefix, int64_t out, int64_t in) {
    if (plan.prequantized && checkpoint.contains(prefix + ".qweight"))
      return packedLinear(prefix, out, in);
    auto w = tensor(prefix + ".weight", {out, in});
    if (!w)
      return w.takeError();
    if (plan.weightBits == 0 || plan.prequantized) {
      LinearWeights lw;
      lw.outFeatures = out;
      lw.inFeatures = in;
      lw.weight = std::move(*w);
      return lw;
    }
    return quantizeLinear(std::move(*w), out, in, plan.weightBits, plan.groupSize, plan.symmetric, prefix);
  }

private:
  static std::string shapeText(llvm::ArrayRef<int64_t> shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i)
      s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
  }

  Expected<LinearWeights> packedLinear(const std::string &prefix, int64_t out, int64_t in) {
    const QuantizationConfig &qc = *config.quantization;
    PackedLinear packed;
    for (auto [field, view] : {std::pair{".qweight", &packed.qweight}, std::pair{".qzeros", &packed.qzeros},
                               std::pair{".scales", &packed.scales}}) {
      auto v = checkpoint.get(prefix + field);
      if (!v)
        return v.takeError();
      *view = *v;
    }
    llvm::StringRef packing = qc.packingFormat;
    PackedFormat format = PackedFormat::GPTQ;
    if (qc.method == QuantizationConfig::Method::AWQ) {
      if (!packing.empty() && !packing.equals_insensitive("gemm"))
        return makeError("config.json: AWQ version '" + packing + "' is not supported (gemm)");
      format = PackedFormat::AWQ;
    } else if (packing.contains_insensitive("awq")) {
      format = PackedFormat::AWQ;
    } else if (packing.contains_insensitive("gptqmodel") || packing.contains_insensitive("v2")) {
      format = PackedFormat::GPTQv2;
    }
    if (format != PackedFormat::AWQ && checkpoint.contains(prefix + ".g_idx")) {
      auto g = checkpoint.get(prefix + ".g_idx");
      if (!g)
        return g.takeError();
      packed.gIdx = *g;
    }
    auto w = unpackLinear(packed, format, static_cast<int>(qc.bits), qc.groupSize, prefix);
    if (!w)
      return w.takeError();
    if (w->outFeatures != out || w->inFeatures != in)
      return makeError(prefix + ": packed weights hold [" + llvm::Twine(w->outFeatures) + ", " +
                       llvm::Twine(w->inFeatures) + "], config.json implies [" + llvm::Twine(out) + ", " +
                       llvm::Twine(in) + "]");
    return w;
  }

  const SafeTensorsCheckpoint &checkpoint;
  const ModelConfig &config;
  const ConvertPlan &plan;
};

#define TRY_ASSIGN(target, expr)                                                                             \
  do {                                                                                                       \
    auto value_ = (expr);                                                                                    \
    if (!value_)                                                                                             \
      return value_.takeError();                                                                             \
    target = std::move(*value_);                                                                             \
  } while (0)

Expected<LayerWeights> loadLayer(WeightLoader &loader, const ModelConfig &config, int64_t index) {
  LayerWeights layer;
  layer.prefix = "model.layers." + std::to_string(index);
  const std::string &p = layer.prefix;
  int64_t h = config.hiddenSize, d = config.headDim, qOut = config.numAttentionHeads * d,
          kvOut = config.numKeyValueHeads * d, inter = config.intermediateSize;
  TRY_ASSIGN(layer.inputNorm, loader.tensor(p + ".input_layernorm.weight", {h}));
  TRY_ASSIGN(layer.postNorm, loader.tensor(p + ".post_attention_layernorm.weight", {h}));
  if (config.qkNorm) {
    TRY_ASSIGN(layer.qNorm, loader.tensor(p + ".self_attn.q_norm.weight", {d}));
    TRY_ASSIGN(layer.kNorm, loader.tensor(p + ".self_attn.k_norm.weight", {d}));
  }
  struct Linear {
    const char *name;
    LinearWeights *weights;
    std::optional<std::vector<float>> *bias;
    int64_t out, in;
    bool hasBias;
  };
  bool qkvBias = config.attentionBias || config.family == ModelFamily::Qwen2;
  // Llama and Qwen3 put attention_bias on all four projections; Qwen2 has q/k/v bias only.
  bool oBias = config.attentionBias && config.family != ModelFamily::Qwen2;
  Linear linears[] = {
      {".self_attn.q_proj", &layer.q, &layer.qBias, qOut, h, qkvBias},
      {".self_attn.k_proj", &layer.k, &layer.kBias, kvOut, h, qkvBias},
      {".self_attn.v_proj", &layer.v, &layer.vBias, kvOut, h, qkvBias},
      {".self_attn.o_proj", &layer.o, &layer.oBias, h, qOut, oBias},
      {".mlp.gate_proj", &layer.gate, &layer.gateBias, inter, h, config.mlpBias},
      {".mlp.up_proj", &layer.up, &layer.upBias, inter, h, config.mlpBias},
      {".mlp.down_proj", &layer.down, &layer.downBias, h, inter, config.mlpBias},
  };
  for (Linear &l : linears) {
    TRY_ASSIGN(*l.weights, loader.linear(p + l.name, l.out, l.in));
    if (l.hasBias) {
      std::vector<float> bias;
      TRY_ASSIGN(bias, loader.tensor(p + l.name + ".bias", {l.out}));
      *l.bias = std::move(bias);
    }
  }
  return layer;
}

Expected<bool> writeModule(ModuleOp module, const std::string &path) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return makeError(path + ": cannot write the MLIR file (" + ec.message() + ")");
  OpPrintingFlags flags;
  flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  module->print(os, flags);
  os << "\n";
  os.close();
  if (os.has_error()) {
    std::string message = os.error().message();
    os.clear_error();
    return makeError(path + ": cannot write the MLIR file (" + message + ")");
  }
  return true;
}

Expected<bool> writeWeights(const NpzFile &weights, const std::string &path) {
  try {
    weights.write(path);
  } catch (const std::exception &e) {
    return makeError(e.what());
  }
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// Conversion
//===----------------------------------------------------------------------===//

Expected<ConvertResult> tpuc::llm::convertToTop(MLIRContext &context, const ConvertOptions &options) {
  context.loadDialect<top::TopDialect, func::FuncDialect>();
  ConvertResult result;
  TRY_ASSIGN(result.config, readModelConfig(options.modelPath));
  const ModelConfig &config = result.config;
  TRY_ASSIGN(result.plan, planConversion(config, options));
  const ConvertPlan &plan = result.plan;
  RopeParams rope;
  TRY_ASSIGN(rope, computeRope(config, plan.seqLength));
  std::unique_ptr<SafeTensorsCheckpoint> checkpoint;
  TRY_ASSIGN(checkpoint, SafeTensorsCheckpoint::open(options.modelPath));
  if (std::error_code ec = llvm::sys::fs::create_directories(options.outDir))
    return makeError(options.outDir + ": cannot create the output directory (" + ec.message() + ")");

  auto path = [&](const std::string &file) {
    llvm::SmallString<256> p(options.outDir);
    llvm::sys::path::append(p, file);
    return std::string(p);
  };
  size_t done = 0;
  auto emit = [&](Expected<OwningOpRef<ModuleOp>> module, const std::string &name,
                  const std::string &weightPath) -> llvm::Error {
    if (!module)
      return module.takeError();
    StageFile file{name, path(name + ".mlir"), weightPath};
    if (auto ok = writeModule(**module, file.mlirPath); !ok)
      return ok.takeError();
    result.stages.push_back(std::move(file));
    return llvm::Error::success();
  };
  auto report = [&](const std::string &name) {
    if (options.progress)
      options.progress(done++, plan.stages.size(), name);
  };
  // A file of the same name from an earlier run must not be served from the weight cache.
  top::clearWeightCache();
  WeightLoader loader(*checkpoint, config, plan);

  // Shared weights: the embedding table, the final norm and lm_head (the table itself when tied).
  {
    std::string sharedPath = path("shared.npz");
    NpzFile shared;
    std::vector<float> table, norm, head;
    TRY_ASSIGN(table, loader.tensor("model.embed_tokens.weight", {config.vocabSize, config.hiddenSize}));
    TRY_ASSIGN(norm, loader.tensor("model.norm.weight", {config.hiddenSize}));
    bool tied = config.tieWordEmbeddings;
    if (!tied)
      TRY_ASSIGN(head, loader.tensor("lm_head.weight", {config.vocabSize, config.hiddenSize}));
    const char *tableName = "model.embed_tokens.weight";
    report("embedding");
    if (auto err = emit(buildEmbeddingStage(context, "embedding", config, tableName, table,
                                            plan.maxInputLength, shared, sharedPath),
                        "embedding", sharedPath))
      return std::move(err);
    report("embedding_cache");
    if (auto err = emit(
            buildEmbeddingStage(context, "embedding_cache", config, tableName, table, 1, shared, sharedPath),
            "embedding_cache", sharedPath))
      return std::move(err);
    report("lm_head");
    if (auto err = emit(buildLmHeadStage(context, config, norm, tied ? tableName : "lm_head.weight",
                                         tied ? table : head, shared, sharedPath),
                        "lm_head", sharedPath))
      return std::move(err);
    if (auto ok = writeWeights(shared, sharedPath); !ok)
      return ok.takeError();
  }

  for (int64_t i = 0; i < config.numHiddenLayers; ++i) {
    LayerWeights layer;
    TRY_ASSIGN(layer, loadLayer(loader, config, i));
    std::string weightPath = path("layer_" + std::to_string(i) + ".npz");
    NpzFile weights;
    std::string index = std::to_string(i);
    struct Kind {
      std::string name;
      BlockKind kind;
      int64_t length;
    };
    std::vector<Kind> kinds = {{"block_" + index, BlockKind::Prefill, plan.maxInputLength},
                               {"block_cache_" + index, BlockKind::Cache, 1}};
    if (options.useHistoryKv)
      kinds.push_back({"block_kv_" + index, BlockKind::History, plan.chunkLength});
    for (const Kind &k : kinds) {
      report(k.name);
      if (auto err = emit(buildBlockStage(context, k.name, config, layer, rope, k.kind, k.length,
                                          plan.seqLength, weights, weightPath),
                          k.name, weightPath))
        return std::move(err);
    }
    if (auto ok = writeWeights(weights, weightPath); !ok)
      return ok.takeError();
  }

  report("greedy_head");
  if (auto err = emit(buildGreedyHeadStage(context, config.vocabSize), "greedy_head", ""))
    return std::move(err);
  report("sample_head");
  if (auto err = emit(buildSampleHeadStage(context, config.vocabSize, plan.seqLength, plan.sampleTopK),
                      "sample_head", ""))
    return std::move(err);
  top::clearWeightCache();
  return result;
}
