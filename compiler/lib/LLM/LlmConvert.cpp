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

#include <algorithm>

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

namespace {

/// One stage of decoder layer `i`: its name, kind and the tokens it takes.
struct BlockStage {
  std::string name;
  BlockKind kind;
  int64_t length;
};

/// The stages of decoder layer `layer` in build order: block_i, block_cache_i, block_kv_i (with history
/// KV), then each bucket's block_len<b>_i and block_kv_len<b>_i (b below the chunk).
std::vector<BlockStage> blockStages(const ConvertPlan &plan, int64_t layer) {
  std::string index = std::to_string(layer);
  std::vector<BlockStage> stages = {{"block_" + index, BlockKind::Prefill, plan.maxInputLength},
                                    {"block_cache_" + index, BlockKind::Cache, 1}};
  if (plan.chunkLength)
    stages.push_back({"block_kv_" + index, BlockKind::History, plan.chunkLength});
  for (int64_t b : plan.buckets) {
    stages.push_back({bucketStageName("block_", b, layer), BlockKind::Prefill, b});
    if (plan.chunkLength && b < plan.chunkLength)
      stages.push_back({bucketStageName("block_kv_", b, layer), BlockKind::History, b});
  }
  return stages;
}

} // namespace

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
  if (!options.buckets.empty()) {
    plan.buckets = options.buckets;
    std::sort(plan.buckets.begin(), plan.buckets.end());
    plan.buckets.erase(std::unique(plan.buckets.begin(), plan.buckets.end()), plan.buckets.end());
    for (int64_t b : plan.buckets)
      if (b <= 0 || b >= plan.maxInputLength)
        return makeError("--buckets: " + llvm::Twine(b) + " is not between 1 and max_input_length - 1 (" +
                         llvm::Twine(plan.maxInputLength - 1) + ")");
  } else if (options.dynamic) {
    plan.buckets = defaultPrefillBuckets(plan.maxInputLength);
  }
  // Build order: the embedding stages (embedding.npz), lm_head, then each layer's stages, then the
  // weight-free heads.
  plan.stages = {"embedding", "embedding_cache"};
  if (config.vision)
    plan.stages.insert(plan.stages.begin(), "vit");
  for (int64_t b : plan.buckets)
    plan.stages.push_back(bucketStageName("embedding", b));
  plan.stages.push_back("lm_head");
  for (int64_t i = 0; i < config.numHiddenLayers; ++i)
    for (const BlockStage &stage : blockStages(plan, i))
      plan.stages.push_back(stage.name);
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
  /// `prefix` goes before every tensor name looked up (a VLM's "language_model."; "" for its vision tower).
  WeightLoader(const SafeTensorsCheckpoint &checkpoint, const ModelConfig &config, const ConvertPlan &plan,
               std::string prefix)
      : checkpoint(checkpoint), config(config), plan(plan), namePrefix(std::move(prefix)) {}

  /// The checkpoint's tensor `name`, which must have the shape config.json implies.
  Expected<TensorView> checkedView(const std::string &name, const std::vector<int64_t> &shape) {
    auto view = checkpoint.get(namePrefix + name);
    if (view && view->shape() != llvm::ArrayRef<int64_t>(shape))
      return makeError("tensor '" + name + "' has shape " + shapeText(view->shape()) +
                       ", config.json implies " + shapeText(shape));
    return view;
  }

  Expected<std::vector<float>> tensor(const std::string &name, std::vector<int64_t> shape) {
    auto view = checkedView(name, shape);
    if (!view)
      return view.takeError();
    std::vector<float> values = view->toF32();
    // Streamed: the mapped pages of a consumed tensor leave the resident set (a 7B checkpoint is 15 GB).
    checkpoint.releasePages(namePrefix + name);
    return values;
  }

  /// The tensor as an f32 Tensor, converted straight into it (no second copy of an embedding table).
  Expected<Tensor> tensorF32(const std::string &name, std::vector<int64_t> shape) {
    auto view = checkedView(name, shape);
    if (!view)
      return view.takeError();
    Tensor t(DType::F32, std::move(shape));
    std::span<float> out = t.values<float>();
    view->toF32(llvm::MutableArrayRef<float>(out.data(), out.size()));
    checkpoint.releasePages(namePrefix + name);
    return t;
  }

  std::optional<Expected<std::vector<float>>> optionalTensor(const std::string &name,
                                                             std::vector<int64_t> shape) {
    if (!checkpoint.contains(namePrefix + name))
      return std::nullopt;
    return tensor(name, std::move(shape));
  }

  Expected<LinearWeights> linear(const std::string &prefix, int64_t out, int64_t in) {
    if (plan.prequantized && checkpoint.contains(namePrefix + prefix + ".qweight"))
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
      auto v = checkpoint.get(namePrefix + prefix + field);
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
    if (format != PackedFormat::AWQ && checkpoint.contains(namePrefix + prefix + ".g_idx")) {
      auto g = checkpoint.get(namePrefix + prefix + ".g_idx");
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
  /// Before every tensor name looked up.
  std::string namePrefix;
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

/// A float linear layer [out, in] (the vision tower and projector stay at the activation precision).
Expected<LinearWeights> floatLinear(WeightLoader &loader, const std::string &name, int64_t out, int64_t in) {
  LinearWeights w;
  w.outFeatures = out;
  w.inFeatures = in;
  TRY_ASSIGN(w.weight, loader.tensor(name + ".weight", {out, in}));
  return w;
}

/// Rows [begin, begin + count) of a float linear layer.
LinearWeights rowsOf(const LinearWeights &w, int64_t begin, int64_t count) {
  LinearWeights part;
  part.outFeatures = count;
  part.inFeatures = w.inFeatures;
  part.weight.assign(w.weight.begin() + begin * w.inFeatures,
                     w.weight.begin() + (begin + count) * w.inFeatures);
  return part;
}

/// InternVL's vision tower and mlp1 projector (names as modeling_internvl_chat.py / modeling_intern_vit.py
/// store them).
Expected<VisionWeights> loadVision(WeightLoader &loader, const ModelConfig &config) {
  const VisionConfig &v = *config.vision;
  const int64_t c = v.hiddenSize, p = v.patchSize, n = v.grid() * v.grid(), inter = v.intermediateSize;
  const int64_t r = v.grid() / v.tokenGrid(), wide = c * r * r, h = config.hiddenSize;
  VisionWeights w;
  const std::string e = "vision_model.embeddings.";
  TRY_ASSIGN(w.patchWeight, loader.tensor(e + "patch_embedding.weight", {c, 3, p, p}));
  TRY_ASSIGN(w.patchBias, loader.tensor(e + "patch_embedding.bias", {c}));
  TRY_ASSIGN(w.classEmbedding, loader.tensor(e + "class_embedding", {1, 1, c}));
  TRY_ASSIGN(w.positionEmbedding, loader.tensor(e + "position_embedding", {1, n + 1, c}));
  for (int64_t i = 0; i < v.numLayers; ++i) {
    VisionLayerWeights l;
    const std::string pre = "vision_model.encoder.layers." + std::to_string(i) + ".";
    TRY_ASSIGN(l.norm1Weight, loader.tensor(pre + "norm1.weight", {c}));
    TRY_ASSIGN(l.norm1Bias, loader.tensor(pre + "norm1.bias", {c}));
    TRY_ASSIGN(l.norm2Weight, loader.tensor(pre + "norm2.weight", {c}));
    TRY_ASSIGN(l.norm2Bias, loader.tensor(pre + "norm2.bias", {c}));
    TRY_ASSIGN(l.ls1, loader.tensor(pre + "ls1", {c}));
    TRY_ASSIGN(l.ls2, loader.tensor(pre + "ls2", {c}));
    LinearWeights qkv;
    TRY_ASSIGN(qkv, floatLinear(loader, pre + "attn.qkv", 3 * c, c));
    l.q = rowsOf(qkv, 0, c);
    l.k = rowsOf(qkv, c, c);
    l.v = rowsOf(qkv, 2 * c, c);
    if (v.qkvBias) {
      std::vector<float> bias;
      TRY_ASSIGN(bias, loader.tensor(pre + "attn.qkv.bias", {3 * c}));
      l.qBias = std::vector<float>(bias.begin(), bias.begin() + c);
      l.kBias = std::vector<float>(bias.begin() + c, bias.begin() + 2 * c);
      l.vBias = std::vector<float>(bias.begin() + 2 * c, bias.end());
    }
    TRY_ASSIGN(l.proj, floatLinear(loader, pre + "attn.proj", c, c));
    TRY_ASSIGN(l.projBias, loader.tensor(pre + "attn.proj.bias", {c}));
    TRY_ASSIGN(l.fc1, floatLinear(loader, pre + "mlp.fc1", inter, c));
    TRY_ASSIGN(l.fc1Bias, loader.tensor(pre + "mlp.fc1.bias", {inter}));
    TRY_ASSIGN(l.fc2, floatLinear(loader, pre + "mlp.fc2", c, inter));
    TRY_ASSIGN(l.fc2Bias, loader.tensor(pre + "mlp.fc2.bias", {c}));
    w.layers.push_back(std::move(l));
  }
  TRY_ASSIGN(w.projectorNormWeight, loader.tensor("mlp1.0.weight", {wide}));
  TRY_ASSIGN(w.projectorNormBias, loader.tensor("mlp1.0.bias", {wide}));
  TRY_ASSIGN(w.projector1, floatLinear(loader, "mlp1.1", h, wide));
  TRY_ASSIGN(w.projector1Bias, loader.tensor("mlp1.1.bias", {h}));
  TRY_ASSIGN(w.projector2, floatLinear(loader, "mlp1.3", h, h));
  TRY_ASSIGN(w.projector2Bias, loader.tensor("mlp1.3.bias", {h}));
  return w;
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
  WeightLoader loader(*checkpoint, config, plan, config.weightPrefix);

  // A vision-language checkpoint: the tower and projector first, as the `vit` stage (vision.npz).
  if (config.vision) {
    report("vit");
    WeightLoader visionLoader(*checkpoint, config, plan, "");
    VisionWeights vision;
    TRY_ASSIGN(vision, loadVision(visionLoader, config));
    std::string visionPath = path("vision.npz");
    NpzFile visionFile;
    if (auto err = emit(buildVisionStage(context, config, vision, visionFile, visionPath), "vit", visionPath))
      return std::move(err);
    if (auto ok = writeWeights(visionFile, visionPath); !ok)
      return ok.takeError();
  }

  // Shared weights: embedding.npz holds the embedding table (both embedding stages), lm_head.npz the
  // final norm and lm_head (the table itself when tied). One file at a time, so a 7B model's two
  // 152064 x 3584 tables are never both in memory.
  // The two tables go into their weight files as the only copy in memory (a stage finds its weight
  // already in the file and adds none).
  const char *tableName = "model.embed_tokens.weight";
  bool tied = config.tieWordEmbeddings;
  std::vector<int64_t> tableShape = {config.vocabSize, config.hiddenSize};
  {
    std::string embeddingPath = path("embedding.npz");
    NpzFile embedding;
    Tensor table;
    TRY_ASSIGN(table, loader.tensorF32(tableName, tableShape));
    embedding.set(tableName, std::move(table));
    std::vector<std::pair<std::string, int64_t>> embeddings = {{"embedding", plan.maxInputLength},
                                                               {"embedding_cache", 1}};
    for (int64_t b : plan.buckets)
      embeddings.push_back({bucketStageName("embedding", b), b});
    for (const auto &[name, length] : embeddings) {
      report(name);
      if (auto err = emit(
              buildEmbeddingStage(context, name, config, tableName, {}, length, embedding, embeddingPath),
              name, embeddingPath))
        return std::move(err);
    }
    if (auto ok = writeWeights(embedding, embeddingPath); !ok)
      return ok.takeError();
    std::string headPath = path("lm_head.npz");
    NpzFile head;
    std::vector<float> norm;
    TRY_ASSIGN(norm, loader.tensor("model.norm.weight", {config.hiddenSize}));
    if (tied) {
      head.set(tableName, embedding.get(tableName));
    } else {
      embedding = NpzFile();
      Tensor headWeights;
      TRY_ASSIGN(headWeights, loader.tensorF32("lm_head.weight", tableShape));
      head.set("lm_head.weight", std::move(headWeights));
    }
    embedding = NpzFile();
    report("lm_head");
    if (auto err = emit(
            buildLmHeadStage(context, config, norm, tied ? tableName : "lm_head.weight", {}, head, headPath),
            "lm_head", headPath))
      return std::move(err);
    if (auto ok = writeWeights(head, headPath); !ok)
      return ok.takeError();
  }

  for (int64_t i = 0; i < config.numHiddenLayers; ++i) {
    LayerWeights layer;
    TRY_ASSIGN(layer, loadLayer(loader, config, i));
    std::string weightPath = path("layer_" + std::to_string(i) + ".npz");
    NpzFile weights;
    for (const BlockStage &k : blockStages(plan, i)) {
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
