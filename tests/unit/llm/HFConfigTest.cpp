//===- HFConfigTest.cpp - config.json and generation_config.json parsing --===//

#include "LLMTestUtil.h"

#include "tpuc/LLM/HFConfig.h"

using namespace tpuc::llm;
using namespace tpuc::llm::test;

namespace {

// Public configs of the three families (trimmed to the fields that matter).
const char *kLlama32Config = R"({
  "architectures": ["LlamaForCausalLM"],
  "attention_bias": false, "bos_token_id": 128000,
  "eos_token_id": [128001, 128008, 128009],
  "head_dim": 64, "hidden_act": "silu", "hidden_size": 2048,
  "intermediate_size": 8192, "max_position_embeddings": 131072,
  "mlp_bias": false, "model_type": "llama", "num_attention_heads": 32,
  "num_hidden_layers": 16, "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
  "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0,
    "low_freq_factor": 1.0, "original_max_position_embeddings": 8192,
    "rope_type": "llama3"},
  "rope_theta": 500000.0, "tie_word_embeddings": true,
  "torch_dtype": "bfloat16", "vocab_size": 128256})";

const char *kQwen25Config = R"({
  "architectures": ["Qwen2ForCausalLM"], "bos_token_id": 151643,
  "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 896,
  "intermediate_size": 4864, "max_position_embeddings": 32768,
  "max_window_layers": 21, "model_type": "qwen2", "num_attention_heads": 14,
  "num_hidden_layers": 24, "num_key_value_heads": 2, "rms_norm_eps": 1e-06,
  "rope_theta": 1000000.0, "sliding_window": 32768,
  "tie_word_embeddings": true, "torch_dtype": "bfloat16",
  "use_sliding_window": false, "vocab_size": 151936, "rope_scaling": null})";

const char *kQwen3Config = R"({
  "architectures": ["Qwen3ForCausalLM"], "attention_bias": false,
  "bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128,
  "hidden_act": "silu", "hidden_size": 1024, "intermediate_size": 3072,
  "max_position_embeddings": 40960, "num_attention_heads": 16,
  "num_hidden_layers": 28, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
  "rope_scaling": null, "rope_theta": 1000000, "tie_word_embeddings": true,
  "torch_dtype": "bfloat16", "vocab_size": 151936})";

ModelConfig parseOk(const std::string &text) {
  auto config = parseModelConfig(text, "config.json");
  EXPECT_TRUE(bool(config)) << errorText(config.takeError());
  return config ? *config : ModelConfig();
}

std::string parseFail(const std::string &text) {
  auto config = parseModelConfig(text, "config.json");
  EXPECT_FALSE(bool(config));
  return config ? "" : errorText(config.takeError());
}

/// kQwen3Config with `field` replaced or added.
std::string qwen3With(const std::string &field, const nlohmann::json &value) {
  nlohmann::json config = nlohmann::json::parse(kQwen3Config);
  if (value.is_discarded())
    config.erase(field);
  else
    config[field] = value;
  return config.dump();
}

TEST(HFConfig, Llama32WithLlama3RopeScaling) {
  ModelConfig c = parseOk(kLlama32Config);
  EXPECT_EQ(c.family, ModelFamily::Llama);
  EXPECT_EQ(c.architecture, "LlamaForCausalLM");
  EXPECT_EQ(c.hiddenSize, 2048);
  EXPECT_EQ(c.intermediateSize, 8192);
  EXPECT_EQ(c.numHiddenLayers, 16);
  EXPECT_EQ(c.numAttentionHeads, 32);
  EXPECT_EQ(c.numKeyValueHeads, 8);
  EXPECT_EQ(c.headDim, 64);
  EXPECT_DOUBLE_EQ(c.rmsNormEps, 1e-5);
  EXPECT_DOUBLE_EQ(c.ropeTheta, 500000.0);
  ASSERT_TRUE(c.ropeScaling.has_value());
  EXPECT_EQ(c.ropeScaling->type, "llama3");
  EXPECT_DOUBLE_EQ(c.ropeScaling->factor, 32.0);
  EXPECT_EQ(c.ropeScaling->lowFreqFactor, 1.0);
  EXPECT_EQ(c.ropeScaling->highFreqFactor, 4.0);
  EXPECT_EQ(c.ropeScaling->originalMaxPositionEmbeddings, 8192);
  EXPECT_EQ(c.ropeScaling->numbers.at("factor"), 32.0);
  EXPECT_TRUE(c.tieWordEmbeddings);
  EXPECT_FALSE(c.attentionBias);
  EXPECT_FALSE(c.qkNorm);
  EXPECT_EQ(c.torchDType, "bfloat16");
  EXPECT_EQ(c.vocabSize, 128256);
  EXPECT_EQ(c.maxPositionEmbeddings, 131072);
  EXPECT_EQ(c.bosTokenId, 128000);
  EXPECT_EQ(c.eosTokenIds, (std::vector<int64_t>{128001, 128008, 128009}));
  EXPECT_FALSE(c.quantization.has_value());
}

TEST(HFConfig, Qwen25DefaultsBiasAndHeadDim) {
  ModelConfig c = parseOk(kQwen25Config);
  EXPECT_EQ(c.family, ModelFamily::Qwen2);
  EXPECT_TRUE(c.attentionBias); // Qwen2 always has q/k/v bias
  EXPECT_FALSE(c.qkNorm);
  EXPECT_EQ(c.headDim, 64); // 896 / 14
  EXPECT_EQ(c.numKeyValueHeads, 2);
  EXPECT_FALSE(c.ropeScaling.has_value()); // null
  EXPECT_EQ(c.eosTokenIds, std::vector<int64_t>{151645});
  EXPECT_DOUBLE_EQ(c.ropeTheta, 1e6);
  EXPECT_FALSE(c.useSlidingWindow);
  EXPECT_EQ(c.slidingWindow, 32768);
  EXPECT_EQ(c.maxWindowLayers, 21);
}

TEST(HFConfig, Qwen3ExplicitHeadDimAndQkNorm) {
  ModelConfig c = parseOk(kQwen3Config);
  EXPECT_EQ(c.family, ModelFamily::Qwen3);
  EXPECT_EQ(c.headDim, 128); // not 1024 / 16
  EXPECT_TRUE(c.qkNorm);
  EXPECT_FALSE(c.attentionBias);
  EXPECT_DOUBLE_EQ(c.ropeTheta, 1e6); // an integer in the file
  EXPECT_EQ(modelFamilyName(c.family), "qwen3");
}

TEST(HFConfig, DefaultsWhenFieldsAbsent) {
  ModelConfig c = parseOk(qwen3With("num_key_value_heads", nlohmann::json::value_t::discarded));
  EXPECT_EQ(c.numKeyValueHeads, 16);
  c = parseOk(qwen3With("head_dim", nlohmann::json::value_t::discarded));
  EXPECT_EQ(c.headDim, 64);
  c = parseOk(qwen3With("torch_dtype", nlohmann::json::value_t::discarded));
  EXPECT_EQ(c.torchDType, "");
  c = parseOk(qwen3With("tie_word_embeddings", nlohmann::json::value_t::discarded));
  EXPECT_FALSE(c.tieWordEmbeddings);
}

TEST(HFConfig, RopeScalingStyles) {
  ModelConfig c = parseOk(qwen3With("rope_scaling", {{"type", "linear"}, {"factor", 2.0}}));
  EXPECT_EQ(c.ropeScaling->type, "linear");
  EXPECT_DOUBLE_EQ(c.ropeScaling->factor, 2.0);
  c = parseOk(qwen3With("rope_scaling", {{"rope_type", "yarn"},
                                         {"factor", 4.0},
                                         {"original_max_position_embeddings", 32768},
                                         {"beta_fast", 32},
                                         {"beta_slow", 1}}));
  EXPECT_EQ(c.ropeScaling->type, "yarn");
  EXPECT_EQ(c.ropeScaling->originalMaxPositionEmbeddings, 32768);
  EXPECT_EQ(c.ropeScaling->betaFast, 32.0);
  std::string message = parseFail(qwen3With("rope_scaling", {{"factor", 2.0}}));
  EXPECT_NE(message.find("rope_scaling"), std::string::npos) << message;
  message = parseFail(qwen3With("rope_scaling", {{"rope_type", "llama3"}, {"factor", 8.0}}));
  EXPECT_NE(message.find("low_freq_factor"), std::string::npos) << message;
}

TEST(HFConfig, QuantizationConfigs) {
  ModelConfig c = parseOk(qwen3With("quantization_config", {{"quant_method", "gptq"},
                                                            {"bits", 4},
                                                            {"group_size", 128},
                                                            {"sym", true},
                                                            {"desc_act", false},
                                                            {"checkpoint_format", "gptq"}}));
  ASSERT_TRUE(c.quantization.has_value());
  EXPECT_EQ(c.quantization->method, QuantizationConfig::Method::GPTQ);
  EXPECT_EQ(c.quantization->bits, 4);
  EXPECT_EQ(c.quantization->groupSize, 128);
  EXPECT_TRUE(c.quantization->sym);
  EXPECT_EQ(c.quantization->packingFormat, "gptq");

  c = parseOk(qwen3With(
      "quantization_config",
      {{"quant_method", "awq"}, {"bits", 4}, {"group_size", 64}, {"zero_point", true}, {"version", "gemm"}}));
  EXPECT_EQ(c.quantization->method, QuantizationConfig::Method::AWQ);
  EXPECT_FALSE(c.quantization->sym);
  EXPECT_EQ(c.quantization->groupSize, 64);
  EXPECT_EQ(c.quantization->packingFormat, "gemm");

  c = parseOk(qwen3With("quantization_config", {{"quant_method", "auto-round"},
                                                {"bits", 8},
                                                {"group_size", -1},
                                                {"sym", false},
                                                {"packing_format", "auto_round:auto_gptq"}}));
  EXPECT_EQ(c.quantization->method, QuantizationConfig::Method::AutoRound);
  EXPECT_EQ(c.quantization->bits, 8);
  EXPECT_EQ(c.quantization->groupSize, -1);
  EXPECT_FALSE(c.quantization->sym);
  EXPECT_EQ(c.quantization->packingFormat, "auto_round:auto_gptq");

  std::string message = parseFail(qwen3With("quantization_config", {{"quant_method", "bitsandbytes"}}));
  EXPECT_NE(message.find("bitsandbytes"), std::string::npos) << message;
  message = parseFail(qwen3With("quantization_config", {{"quant_method", "gptq"}, {"bits", 5}}));
  EXPECT_NE(message.find("quantization_config.bits"), std::string::npos) << message;
}

TEST(HFConfig, ErrorsNameFileAndField) {
  std::string message = parseFail(qwen3With("architectures", {"MistralForCausalLM"}));
  EXPECT_NE(message.find("config.json"), std::string::npos);
  EXPECT_NE(message.find("unsupported architecture 'MistralForCausalLM'"), std::string::npos) << message;
  message = parseFail(qwen3With("hidden_size", nlohmann::json::value_t::discarded));
  EXPECT_NE(message.find("missing field 'hidden_size'"), std::string::npos) << message;
  message = parseFail(qwen3With("num_hidden_layers", "28"));
  EXPECT_NE(message.find("'num_hidden_layers' must be an integer"), std::string::npos) << message;
  message = parseFail(qwen3With("num_key_value_heads", 5));
  EXPECT_NE(message.find("num_key_value_heads"), std::string::npos) << message;
  message = parseFail(qwen3With("rms_norm_eps", "small"));
  EXPECT_NE(message.find("'rms_norm_eps' must be a number"), std::string::npos) << message;
  message = parseFail(qwen3With("tie_word_embeddings", 1));
  EXPECT_NE(message.find("tie_word_embeddings"), std::string::npos) << message;
  message = parseFail(qwen3With("vocab_size", 0));
  EXPECT_NE(message.find("'vocab_size' must be positive"), std::string::npos) << message;
  message = parseFail("{not json");
  EXPECT_NE(message.find("not valid JSON"), std::string::npos) << message;
  message = parseFail(R"({"hidden_size": 8})");
  EXPECT_NE(message.find("architectures"), std::string::npos) << message;
}

// InternVL2-1B's config.json, abridged to the fields the converter reads (vision: InternViT-300M).
std::string internVL(const nlohmann::json &visionChanges = nlohmann::json::object(),
                     const nlohmann::json &rootChanges = nlohmann::json::object()) {
  nlohmann::json vision = {
      {"image_size", 448},       {"patch_size", 14},          {"hidden_size", 1024},
      {"num_hidden_layers", 24}, {"num_attention_heads", 16}, {"intermediate_size", 4096},
      {"layer_norm_eps", 1e-6},  {"qkv_bias", true},          {"norm_type", "layer_norm"},
      {"hidden_act", "gelu"},    {"qk_normalization", false}};
  if (visionChanges.is_object())
    vision.update(visionChanges);
  nlohmann::json root = {{"architectures", {"InternVLChatModel"}},
                         {"llm_config", nlohmann::json::parse(kQwen25Config)},
                         {"vision_config", vision},
                         {"downsample_ratio", 0.5},
                         {"select_layer", -1},
                         {"ps_version", "v2"},
                         {"force_image_size", 448}};
  if (rootChanges.is_object())
    root.update(rootChanges);
  return root.dump();
}

TEST(HFConfig, InternVLVisionTowerAndLanguageModel) {
  ModelConfig c = parseOk(internVL());
  EXPECT_EQ(c.architecture, "InternVLChatModel");
  EXPECT_EQ(c.family, ModelFamily::Qwen2);
  EXPECT_EQ(c.hiddenSize, 896);
  EXPECT_EQ(c.weightPrefix, "language_model.");
  ASSERT_TRUE(c.vision);
  EXPECT_EQ(c.vision->grid(), 32);
  EXPECT_EQ(c.vision->tokenGrid(), 16);
  EXPECT_EQ(c.vision->imageTokens(), 256); // InternVL2's 256 tokens per 448-pixel tile
  EXPECT_EQ(c.vision->numLayers, 24);

  // What the converter does not build is refused with the file and field.
  EXPECT_NE(parseFail(internVL({{"norm_type", "rms_norm"}}))
                .find("config.json vision_config: norm_type 'rms_norm'"),
            std::string::npos);
  EXPECT_NE(parseFail(internVL({{"qk_normalization", true}})).find("qk_normalization is not supported"),
            std::string::npos);
  EXPECT_NE(parseFail(internVL({}, {{"ps_version", "v1"}})).find("ps_version 'v1' is not supported"),
            std::string::npos);
  EXPECT_NE(parseFail(internVL({}, {{"select_layer", -4}})).find("select_layer -4 is not supported"),
            std::string::npos);
  EXPECT_NE(parseFail(internVL({}, {{"downsample_ratio", 0.3}})).find("downsample_ratio 0.3 does not divide"),
            std::string::npos);
  EXPECT_NE(parseFail(internVL({{"patch_size", 15}}, {{"force_image_size", 0}}))
                .find("not a multiple of patch_size"),
            std::string::npos);
  EXPECT_NE(parseFail(internVL({}, {{"llm_config", nullptr}})).find("without an 'llm_config' object"),
            std::string::npos);
  nlohmann::json mistral = nlohmann::json::parse(kQwen25Config);
  mistral["architectures"] = {"MistralForCausalLM"};
  EXPECT_NE(parseFail(internVL({}, {{"llm_config", mistral}}))
                .find("config.json llm_config: unsupported architecture"),
            std::string::npos);
}

TEST(HFConfig, ReadsFilesFromFolder) {
  TempDir dir;
  writeFile(dir.file("config.json"), kQwen25Config);
  writeFile(dir.file("generation_config.json"), R"({
    "bos_token_id": 151643, "do_sample": true, "eos_token_id": [151645, 151643],
    "pad_token_id": 151643, "repetition_penalty": 1.1, "temperature": 0.7,
    "top_k": 20, "top_p": 0.8, "transformers_version": "4.37.0"})");
  auto config = readModelConfig(dir.path());
  ASSERT_TRUE(bool(config)) << errorText(config.takeError());
  EXPECT_EQ(config->family, ModelFamily::Qwen2);
  auto gen = readGenerationConfig(dir.path());
  ASSERT_TRUE(bool(gen)) << errorText(gen.takeError());
  EXPECT_EQ(gen->eosTokenIds, (std::vector<int64_t>{151645, 151643}));
  EXPECT_EQ(gen->bosTokenId, 151643);
  EXPECT_EQ(gen->padTokenId, 151643);
  EXPECT_EQ(gen->doSample, true);
  EXPECT_EQ(gen->temperature, 0.7);
  EXPECT_EQ(gen->topK, 20);
  EXPECT_EQ(gen->topP, 0.8);
  EXPECT_EQ(gen->repetitionPenalty, 1.1);
  EXPECT_FALSE(gen->maxNewTokens.has_value());

  writeFile(dir.file("generation_config.json"), R"({"eos_token_id": "x"})");
  std::string message = errorText(readGenerationConfig(dir.path()).takeError());
  EXPECT_NE(message.find("generation_config.json"), std::string::npos) << message;
  EXPECT_NE(message.find("eos_token_id"), std::string::npos) << message;

  TempDir empty;
  message = errorText(readModelConfig(empty.path()).takeError());
  EXPECT_NE(message.find("config.json"), std::string::npos) << message;
}

} // namespace
