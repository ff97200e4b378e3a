//===- LlmPipelineTest.cpp - llm-convert's Top stages chained on the reference interpreter ===//
//
// A host-side llm-run: tiny random Llama / Qwen2 / Qwen3 checkpoints written by make_tiny_llm.py (with
// an independent plain-PyTorch reference) are converted to Top stages, which are chained through the
// float reference interpreter: embedding -> block_i per layer -> lm_head -> greedy_head for the prompt
// (or block_i then block_kv_i per chunk), then decode steps with embedding_cache and block_cache_i over
// the KV cache. Logits are compared with PyTorch's full recomputation, and decode with our own full
// recomputation.
//
//===----------------------------------------------------------------------===//

#include "LLMTestUtil.h"

#include "tpuc/Dialect/Top/TopDialect.h"
#include "tpuc/LLM/LlmConvert.h"
#include "tpuc/Simulator/Interpreter.h"
#include "tpuc/Simulator/ReferenceKernels.h"
#include "tpuc/Support/Npz.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"

#include <cmath>
#include <map>
#include <memory>

using namespace tpuc;
using namespace tpuc::llm;

namespace {

const std::string kSuite = TPUC_TINY_LLM_DIR;
constexpr float kMasked = -10000.0f;

double cosine(const float *a, const float *b, int64_t n) {
  double ab = 0, aa = 0, bb = 0;
  for (int64_t i = 0; i < n; ++i) {
    ab += double(a[i]) * b[i];
    aa += double(a[i]) * a[i];
    bb += double(b[i]) * b[i];
  }
  return ab / std::sqrt(aa * bb + 1e-30);
}

Tensor ints(std::vector<int64_t> shape, const std::vector<int32_t> &values) {
  return Tensor::fromValues<int32_t>(std::move(shape), values);
}
Tensor floats(std::vector<int64_t> shape, const std::vector<float> &values) {
  return Tensor::fromValues<float>(std::move(shape), values);
}

/// The converted stages of one checkpoint, each on its own interpreter.
class Runtime {
public:
  Runtime(const std::string &model, ConvertOptions options, std::vector<std::string> *warnings = nullptr)
      : dir("tpuc-llm") {
    mlir::DialectRegistry registry;
    registry.insert<top::TopDialect, mlir::func::FuncDialect>();
    sim::registerTopReferenceKernels(registry);
    context.appendDialectRegistry(registry);
    options.modelPath = kSuite + "/" + model;
    options.outDir = dir.path();
    options.warn = [warnings](const std::string &line) {
      if (warnings)
        warnings->push_back(line);
    };
    auto converted = convertToTop(context, options);
    if (!converted) {
      error = llvm::toString(converted.takeError());
      return;
    }
    result = std::move(*converted);
    reference = NpzFile::read(options.modelPath + "/reference.npz");
    const ModelConfig &c = result.config;
    hidden = c.hiddenSize;
    vocab = c.vocabSize;
    kvWidth = c.numKeyValueHeads * c.headDim;
    seq = result.plan.seqLength;
    resetCache();
  }

  void resetCache() {
    cacheK.assign(result.config.numHiddenLayers, std::vector<float>(seq * kvWidth, 0.0f));
    cacheV = cacheK;
  }

  /// Runs stage `name` on `inputs` (in argument order); returns its outputs in order.
  std::vector<Tensor> run(const std::string &name, const std::vector<Tensor> &inputs) {
    auto &slot = interpreters[name];
    if (!slot) {
      auto module = mlir::parseSourceFile<mlir::ModuleOp>(dir.file(name + ".mlir"), &context);
      EXPECT_TRUE(module) << name;
      if (!module)
        return {};
      modules[name] = std::move(module);
      slot = std::make_unique<sim::Interpreter>(*modules[name]);
    }
    for (size_t i = 0; i < inputs.size(); ++i)
      EXPECT_EQ(test::errorText(slot->setInput(i, inputs[i])), "") << name << " input " << i;
    EXPECT_EQ(test::errorText(slot->run()), "") << name;
    std::vector<Tensor> out;
    for (const std::string &n : slot->outputs().names())
      out.push_back(slot->outputs().get(n));
    return out;
  }

  /// Logits [V] of the hidden state at row `row` of `hiddenStates` [1, L, H].
  std::vector<float> logitsAt(const Tensor &hiddenStates, int64_t row) {
    auto h = hiddenStates.values<float>();
    std::vector<float> x(h.begin() + row * hidden, h.begin() + (row + 1) * hidden);
    auto out = run("lm_head", {floats({1, hidden}, x)});
    auto v = out.at(0).values<float>();
    return std::vector<float>(v.begin(), v.end());
  }

  int32_t greedy(const std::vector<float> &logits) {
    auto out = run("greedy_head", {floats({1, vocab}, logits)});
    return static_cast<int32_t>(out.at(0).valueAsDouble(0));
  }

  /// Prefill (or one chunk at `offset` with history) of `ids`, `length` wide; fills the cache rows of
  /// the valid tokens and returns the final hidden states [1, length, H].
  Tensor prefill(const std::vector<int32_t> &ids, int64_t offset, int64_t length) {
    int64_t valid = static_cast<int64_t>(ids.size());
    std::vector<int32_t> padded(ids);
    padded.resize(length, 0);
    std::vector<int32_t> positions(length);
    for (int64_t i = 0; i < length; ++i)
      positions[i] = static_cast<int32_t>(offset + i);
    int64_t history = offset ? seq : 0;
    std::vector<float> mask(length * (history + length), kMasked);
    for (int64_t r = 0; r < valid; ++r) {
      for (int64_t j = 0; j < offset; ++j)
        mask[r * (history + length) + j] = 0.0f;
      for (int64_t c = 0; c <= r; ++c)
        mask[r * (history + length) + history + c] = 0.0f;
    }
    Tensor x = run("embedding", {ints({1, length}, padded)}).at(0);
    for (int64_t l = 0; l < result.config.numHiddenLayers; ++l) {
      std::string index = std::to_string(l);
      std::vector<Tensor> in = {x, ints({1, length}, positions),
                                floats({1, 1, length, history + length}, mask)};
      if (offset) {
        in.push_back(floats({1, seq, kvWidth / result.config.headDim, result.config.headDim}, cacheK[l]));
        in.push_back(floats({1, seq, kvWidth / result.config.headDim, result.config.headDim}, cacheV[l]));
      }
      auto out = run((offset ? "block_kv_" : "block_") + index, in);
      x = out.at(0);
      store(l, out.at(1), out.at(2), offset, valid);
    }
    return x;
  }

  /// One decode step of `token` at `position`; returns the logits.
  std::vector<float> decode(int32_t token, int64_t position) {
    Tensor x = run("embedding_cache", {ints({1, 1}, {token})}).at(0);
    std::vector<float> mask(seq + 1, kMasked);
    for (int64_t j = 0; j < position; ++j)
      mask[j] = 0.0f;
    mask[seq] = 0.0f;
    int64_t heads = kvWidth / result.config.headDim;
    for (int64_t l = 0; l < result.config.numHiddenLayers; ++l) {
      auto out = run("block_cache_" + std::to_string(l),
                     {x, ints({1, 1}, {static_cast<int32_t>(position)}), floats({1, 1, 1, seq + 1}, mask),
                      floats({1, seq, heads, result.config.headDim}, cacheK[l]),
                      floats({1, seq, heads, result.config.headDim}, cacheV[l])});
      x = out.at(0);
      store(l, out.at(1), out.at(2), position, 1);
    }
    return logitsAt(x, 0);
  }

  std::vector<int32_t> prompt() const {
    auto v = reference.get("input_ids").values<int32_t>();
    return std::vector<int32_t>(v.begin(), v.end());
  }
  /// Row `row` of a [N, V] reference array.
  const float *referenceRow(const std::string &name, int64_t row) const {
    return reference.get(name).values<float>().data() + row * vocab;
  }

  test::TempDir dir;
  mlir::MLIRContext context;
  std::string error;
  ConvertResult result;
  NpzFile reference;
  int64_t hidden = 0, vocab = 0, kvWidth = 0, seq = 0;
  std::vector<std::vector<float>> cacheK, cacheV;

private:
  void store(int64_t layer, const Tensor &k, const Tensor &v, int64_t at, int64_t rows) {
    auto kv = k.values<float>(), vv = v.values<float>();
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t i = 0; i < kvWidth; ++i) {
        cacheK[layer][(at + r) * kvWidth + i] = kv[r * kvWidth + i];
        cacheV[layer][(at + r) * kvWidth + i] = vv[r * kvWidth + i];
      }
  }

  std::map<std::string, mlir::OwningOpRef<mlir::ModuleOp>> modules;
  std::map<std::string, std::unique_ptr<sim::Interpreter>> interpreters;
};

ConvertOptions options(const std::string &quantize, int64_t seq = 32) {
  ConvertOptions o;
  o.seqLength = seq;
  o.quantize = quantize;
  o.qGroupSize = 32;
  o.sampleTopK = 8;
  return o;
}

struct GenerationCheck {
  double minPromptCos = 1, minStepCos = 1, maxRecomputeDiff = 0;
  int tokensMatched = 0, tokens = 0;
};

/// Prefill + greedy decode against the PyTorch reference, and decode against our full recompute.
/// With `teacherForcing` each decode step is fed the reference token (so the logits of a quantized model
/// stay comparable after its greedy choice first differs).
GenerationCheck generate(Runtime &rt, int64_t chunk = 0, bool teacherForcing = false) {
  GenerationCheck check;
  std::vector<int32_t> ids = rt.prompt();
  int64_t promptLen = static_cast<int64_t>(ids.size());
  int64_t width = rt.result.plan.maxInputLength;
  Tensor last;
  int64_t lastRow = 0;
  if (!chunk) {
    last = rt.prefill(ids, 0, width);
    for (int64_t p = 0; p < promptLen; ++p) {
      auto logits = rt.logitsAt(last, p);
      check.minPromptCos =
          std::min(check.minPromptCos, cosine(logits.data(), rt.referenceRow("prompt_logits", p), rt.vocab));
    }
    lastRow = promptLen - 1;
  } else {
    for (int64_t offset = 0; offset < promptLen; offset += chunk) {
      std::vector<int32_t> part(ids.begin() + offset, ids.begin() + std::min(promptLen, offset + chunk));
      last = rt.prefill(part, offset, chunk);
      for (int64_t r = 0; r < (int64_t)part.size(); ++r) {
        auto logits = rt.logitsAt(last, r);
        check.minPromptCos =
            std::min(check.minPromptCos,
                     cosine(logits.data(), rt.referenceRow("prompt_logits", offset + r), rt.vocab));
      }
      lastRow = static_cast<int64_t>(part.size()) - 1;
    }
  }
  auto refTokens = rt.reference.get("tokens").values<int32_t>();
  std::vector<float> logits = rt.logitsAt(last, lastRow);
  std::vector<int32_t> generated;
  for (size_t step = 0; step < refTokens.size(); ++step) {
    check.minStepCos =
        std::min(check.minStepCos, cosine(logits.data(), rt.referenceRow("step_logits", step), rt.vocab));
    int32_t token = rt.greedy(logits);
    ++check.tokens;
    check.tokensMatched += token == refTokens[step];
    if (teacherForcing)
      token = refTokens[step];
    generated.push_back(token);
    if (step + 1 == refTokens.size())
      break;
    logits = rt.decode(token, promptLen + static_cast<int64_t>(step));
    // The KV-cache step against a full recompute of prompt + generated tokens (when it fits one prefill).
    std::vector<int32_t> all(ids);
    all.insert(all.end(), generated.begin(), generated.end());
    if (!chunk && (int64_t)all.size() <= width) {
      auto saveK = rt.cacheK, saveV = rt.cacheV;
      Tensor full = rt.prefill(all, 0, width);
      auto recomputed = rt.logitsAt(full, static_cast<int64_t>(all.size()) - 1);
      rt.cacheK = saveK;
      rt.cacheV = saveV;
      for (int64_t i = 0; i < rt.vocab; ++i)
        check.maxRecomputeDiff =
            std::max(check.maxRecomputeDiff, (double)std::fabs(recomputed[i] - logits[i]));
    }
  }
  return check;
}

class FloatPipeline : public ::testing::TestWithParam<std::string> {};

TEST_P(FloatPipeline, MatchesPyTorchAndKvCacheEqualsRecompute) {
  Runtime rt(GetParam(), options("bf16", 64));
  ASSERT_EQ(rt.error, "");
  GenerationCheck check = generate(rt);
  std::printf("%s float: prompt cos %.7f, step cos %.7f, tokens %d/%d, |cache - recompute| %.2e\n",
              GetParam().c_str(), check.minPromptCos, check.minStepCos, check.tokensMatched, check.tokens,
              check.maxRecomputeDiff);
  EXPECT_GE(check.minPromptCos, 0.9999);
  EXPECT_GE(check.minStepCos, 0.9999);
  EXPECT_EQ(check.tokensMatched, check.tokens);
  EXPECT_LT(check.maxRecomputeDiff, 1e-3);
}

INSTANTIATE_TEST_SUITE_P(Tiny, FloatPipeline,
                         ::testing::Values("llama", "llama3_rope", "qwen2_yarn", "llama_linear",
                                           "llama_sharded", "qwen2", "qwen3", "qwen3_bias", "qwen2_long"));

/// Pre-quantized checkpoints pass through exactly: PyTorch ran on their dequantized weights.
class PackedPipeline : public ::testing::TestWithParam<std::string> {};

TEST_P(PackedPipeline, PassThroughMatchesDequantizedReference) {
  std::vector<std::string> warnings;
  Runtime rt(GetParam(), options("w4bf16"), &warnings);
  ASSERT_EQ(rt.error, "");
  EXPECT_TRUE(rt.result.plan.prequantized);
  if (GetParam() == "gptq8") {
    EXPECT_EQ(rt.result.plan.quantize, "w8bf16");
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("using w8bf16"), std::string::npos) << warnings[0];
  } else {
    EXPECT_TRUE(warnings.empty());
  }
  GenerationCheck check = generate(rt);
  std::printf("%s pass-through: prompt cos %.7f, step cos %.7f, tokens %d/%d\n", GetParam().c_str(),
              check.minPromptCos, check.minStepCos, check.tokensMatched, check.tokens);
  EXPECT_GE(check.minPromptCos, 0.9999);
  EXPECT_GE(check.minStepCos, 0.9999);
  EXPECT_EQ(check.tokensMatched, check.tokens);
  EXPECT_LT(check.maxRecomputeDiff, 1e-3);
}

INSTANTIATE_TEST_SUITE_P(Tiny, PackedPipeline,
                         ::testing::Values("gptq", "gptq_actorder", "gptq8", "awq", "autoround"));

TEST(LlmPipeline, ChunkedPrefillWithHistoryMatches) {
  // 20 prompt tokens in chunks of 8: block_ once, then block_kv_ twice.
  ConvertOptions o = options("bf16", 64);
  o.useHistoryKv = true;
  o.chunkLength = 8;
  Runtime rt("qwen2_long", o);
  ASSERT_EQ(rt.error, "");
  EXPECT_EQ(rt.result.plan.maxInputLength, 8);
  GenerationCheck check = generate(rt, 8);
  std::printf("chunked: prompt cos %.7f, step cos %.7f, tokens %d/%d\n", check.minPromptCos, check.minStepCos,
              check.tokensMatched, check.tokens);
  EXPECT_GE(check.minPromptCos, 0.9999);
  EXPECT_GE(check.minStepCos, 0.9999);
  EXPECT_EQ(check.tokensMatched, check.tokens);
}

TEST(LlmPipeline, WeightOnlyQuantizationStaysClose) {
  for (const char *mode : {"w8bf16", "w4bf16"}) {
    for (bool symmetric : {false, true}) {
      ConvertOptions o = options(mode);
      o.symmetric = symmetric;
      Runtime rt("llama", o);
      ASSERT_EQ(rt.error, "");
      GenerationCheck check = generate(rt, 0, /*teacherForcing=*/true);
      std::printf("llama %s%s: cos vs float: prompt %.5f, decode steps %.5f; greedy tokens equal %d/%d\n",
                  mode, symmetric ? " symmetric" : "", check.minPromptCos, check.minStepCos,
                  check.tokensMatched, check.tokens);
      EXPECT_GE(check.minPromptCos, mode[1] == '8' ? 0.999 : 0.95) << mode;
      EXPECT_GE(check.minStepCos, mode[1] == '8' ? 0.999 : 0.95) << mode;
      EXPECT_LT(check.maxRecomputeDiff, 1e-3);
    }
  }
}

TEST(LlmPipeline, SampleHeadFollowsLlmTpu) {
  Runtime rt("qwen2", options("bf16", 16));
  ASSERT_EQ(rt.error, "");
  std::vector<float> logits(rt.vocab);
  for (int64_t i = 0; i < rt.vocab; ++i)
    logits[i] = std::sin(0.37f * i) * 4.0f;
  std::vector<int32_t> seen(16, -1);
  seen[0] = 3;
  seen[1] = 9;
  seen[2] = 3;
  float topP = 0.8f, temperature = 0.7f, penalty = 1.3f;
  auto out = rt.run("sample_head", {floats({1, rt.vocab}, logits), ints({1, 16}, seen), floats({1}, {topP}),
                                    floats({1}, {temperature}), floats({1}, {penalty})});
  ASSERT_EQ(out.size(), 2u);
  // Independent: penalty, top-8, temperature, top-p mask (first always kept), softmax.
  std::vector<float> penalized(logits);
  for (int id : {3, 9})
    penalized[id] = logits[id] < 0 ? logits[id] * penalty : logits[id] / penalty;
  std::vector<int> order(rt.vocab);
  for (int i = 0; i < rt.vocab; ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return penalized[a] > penalized[b]; });
  std::vector<double> scaled(8), probs(8);
  double sum = 0;
  for (int i = 0; i < 8; ++i) {
    scaled[i] = penalized[order[i]] / temperature;
    sum += std::exp(scaled[i] - scaled[0]);
  }
  double cumulative = 0, prev = 0;
  std::vector<double> masked(8);
  for (int i = 0; i < 8; ++i) {
    cumulative += std::exp(scaled[i] - scaled[0]) / sum;
    masked[i] = (i == 0 || prev < topP) ? scaled[i] : -1000.0;
    prev = cumulative;
  }
  double total = 0;
  for (int i = 0; i < 8; ++i)
    total += std::exp(masked[i] - masked[0]);
  auto gotProbs = out[0].values<float>();
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(static_cast<int>(out[1].valueAsDouble(i)), order[i]) << i;
    EXPECT_NEAR(gotProbs[i], std::exp(masked[i] - masked[0]) / total, 1e-5) << i;
  }
}

TEST(LlmPipeline, RepetitionPenaltyRejectsIdsOutsideTheVocabulary) {
  mlir::MLIRContext context;
  mlir::DialectRegistry registry;
  registry.insert<top::TopDialect, mlir::func::FuncDialect>();
  sim::registerTopReferenceKernels(registry);
  context.appendDialectRegistry(registry);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(R"mlir(
    func.func @main(%l: tensor<1x16xf32>, %i: tensor<1x3xi32>, %p: tensor<1xf32>) -> tensor<1x16xf32> {
      %0 = top.repetition_penalty %l, %i, %p : (tensor<1x16xf32>, tensor<1x3xi32>, tensor<1xf32>) -> tensor<1x16xf32>
      return %0 : tensor<1x16xf32>
    })mlir",
                                                        &context);
  ASSERT_TRUE(module);
  sim::Interpreter interp(*module);
  std::vector<float> logits(16, -2.0f);
  logits[5] = 3.0f;
  ASSERT_EQ(test::errorText(interp.setInput(0, floats({1, 16}, logits))), "");
  ASSERT_EQ(test::errorText(interp.setInput(2, floats({1}, {2.0f}))), "");
  // Padding (-1) is skipped, a repeated id penalized once, negative logits multiplied.
  ASSERT_EQ(test::errorText(interp.setInput(1, ints({1, 3}, {5, -1, 5}))), "");
  ASSERT_EQ(test::errorText(interp.run()), "");
  auto out = interp.outputs().get(interp.outputs().names()[0]).values<float>();
  EXPECT_EQ(out[5], 1.5f);
  EXPECT_EQ(out[0], -2.0f);
  ASSERT_EQ(test::errorText(interp.setInput(1, ints({1, 3}, {0, 99, 1}))), "");
  ASSERT_EQ(test::errorText(interp.run()).find("token id 99 is outside the vocabulary of 16") !=
                std::string::npos,
            true);
}

TEST(LlmPipeline, ErrorsNameTheProblem) {
  test::TempDir dir("tpuc-llm-bad");
  std::string config = test::readFile(kSuite + "/qwen2/config.json");
  // An extra layer the checkpoint does not hold: the missing tensor is named.
  auto json = nlohmann::json::parse(config);
  json["num_hidden_layers"] = 3;
  test::writeFile(dir.file("config.json"), json.dump());
  test::writeFile(dir.file("model.safetensors"), test::readFile(kSuite + "/qwen2/model.safetensors"));
  mlir::MLIRContext context;
  ConvertOptions o = options("bf16");
  o.modelPath = dir.path();
  o.outDir = dir.file("out");
  std::string error = test::errorText(convertToTop(context, o).takeError());
  EXPECT_NE(error.find("model.layers.2.input_layernorm.weight"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);
  // An architecture outside the three families is named.
  json["architectures"] = {"MistralForCausalLM"};
  test::writeFile(dir.file("config.json"), json.dump());
  error = test::errorText(convertToTop(context, o).takeError());
  EXPECT_NE(error.find("MistralForCausalLM"), std::string::npos) << error;
  // Unsupported rope scaling.
  json["architectures"] = {"Qwen2ForCausalLM"};
  json["rope_scaling"] = {{"rope_type", "longrope"}, {"factor", 2.0}};
  test::writeFile(dir.file("config.json"), json.dump());
  error = test::errorText(convertToTop(context, o).takeError());
  EXPECT_NE(error.find("'longrope'"), std::string::npos) << error;
  // Another activation.
  json.erase("rope_scaling");
  json["hidden_act"] = "gelu";
  test::writeFile(dir.file("config.json"), json.dump());
  error = test::errorText(convertToTop(context, o).takeError());
  EXPECT_NE(error.find("hidden_act 'gelu' is not supported"), std::string::npos) << error;
}

} // namespace
