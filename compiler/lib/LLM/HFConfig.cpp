//===- HFConfig.cpp - Typed HuggingFace config.json / generation_config ---===//

#include "tpuc/LLM/HFConfig.h"
#include "tpuc/Support/Printable.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>

using namespace tpuc::llm;
using llvm::Expected;
using llvm::StringRef;
using nlohmann::json;

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Typed field access with errors naming file and field. A missing key or a
/// JSON null leaves the output untouched (HF's defaults apply).
class FieldReader {
public:
  FieldReader(const json &object, StringRef fileName, std::string prefix = "")
      : object(object), fileName(fileName), prefix(std::move(prefix)) {}

  bool has(const char *key) const {
    auto it = object.find(key);
    return it != object.end() && !it->is_null();
  }
  llvm::Error typeError(const char *key, const char *expected) const {
    return makeError(fileName + ": field '" + prefix + key + "' must be " + expected);
  }
  llvm::Error readInt(const char *key, int64_t &out) const {
    if (!has(key))
      return llvm::Error::success();
    const json &v = object.at(key);
    if (!v.is_number_integer())
      return typeError(key, "an integer");
    out = v.get<int64_t>();
    return llvm::Error::success();
  }
  llvm::Error readInt(const char *key, std::optional<int64_t> &out) const {
    if (!has(key))
      return llvm::Error::success();
    int64_t value = 0;
    if (llvm::Error err = readInt(key, value))
      return err;
    out = value;
    return llvm::Error::success();
  }
  llvm::Error readDouble(const char *key, double &out) const {
    if (!has(key))
      return llvm::Error::success();
    const json &v = object.at(key);
    if (!v.is_number())
      return typeError(key, "a number");
    out = v.get<double>();
    return llvm::Error::success();
  }
  llvm::Error readDouble(const char *key, std::optional<double> &out) const {
    if (!has(key))
      return llvm::Error::success();
    double value = 0;
    if (llvm::Error err = readDouble(key, value))
      return err;
    out = value;
    return llvm::Error::success();
  }
  llvm::Error readBool(const char *key, bool &out) const {
    if (!has(key))
      return llvm::Error::success();
    const json &v = object.at(key);
    if (!v.is_boolean())
      return typeError(key, "true or false");
    out = v.get<bool>();
    return llvm::Error::success();
  }
  llvm::Error readBool(const char *key, std::optional<bool> &out) const {
    if (!has(key))
      return llvm::Error::success();
    bool value = false;
    if (llvm::Error err = readBool(key, value))
      return err;
    out = value;
    return llvm::Error::success();
  }
  llvm::Error readString(const char *key, std::string &out) const {
    if (!has(key))
      return llvm::Error::success();
    const json &v = object.at(key);
    if (!v.is_string())
      return typeError(key, "a string");
    out = v.get<std::string>();
    return llvm::Error::success();
  }
  /// An integer or a list of integers (eos_token_id's two spellings).
  llvm::Error readIntList(const char *key, std::vector<int64_t> &out) const {
    if (!has(key))
      return llvm::Error::success();
    const json &v = object.at(key);
    out.clear();
    if (v.is_number_integer()) {
      out.push_back(v.get<int64_t>());
      return llvm::Error::success();
    }
    if (!v.is_array())
      return typeError(key, "an integer or a list of integers");
    for (const json &item : v) {
      if (!item.is_number_integer())
        return typeError(key, "an integer or a list of integers");
      out.push_back(item.get<int64_t>());
    }
    return llvm::Error::success();
  }

private:
  const json &object;
  StringRef fileName;
  std::string prefix;
};

Expected<json> parseObject(StringRef text, StringRef fileName) {
  json value = json::parse(text.begin(), text.end(), nullptr, false);
  if (value.is_discarded())
    return makeError(fileName + ": not valid JSON");
  if (!value.is_object())
    return makeError(fileName + ": not a JSON object");
  return value;
}

Expected<std::string> readText(StringRef path, StringRef defaultName) {
  llvm::SmallString<256> file(path);
  if (llvm::sys::fs::is_directory(path))
    llvm::sys::path::append(file, defaultName);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(file, /*IsText=*/true);
  if (!buffer)
    return makeError(file + ": cannot open: " + buffer.getError().message());
  return (*buffer)->getBuffer().str();
}

Expected<RopeScaling> parseRopeScaling(const json &object, StringRef fileName) {
  if (!object.is_object())
    return makeError(fileName + ": field 'rope_scaling' must be an object");
  RopeScaling scaling;
  FieldReader reader(object, fileName, "rope_scaling.");
  if (llvm::Error err = reader.readString("type", scaling.type))
    return std::move(err);
  if (llvm::Error err = reader.readString("rope_type", scaling.type))
    return std::move(err);
  if (scaling.type.empty())
    return makeError(fileName + ": field 'rope_scaling' has no 'rope_type' or 'type'");
  if (llvm::Error err = reader.readDouble("factor", scaling.factor))
    return std::move(err);
  if (llvm::Error err = reader.readDouble("low_freq_factor", scaling.lowFreqFactor))
    return std::move(err);
  if (llvm::Error err = reader.readDouble("high_freq_factor", scaling.highFreqFactor))
    return std::move(err);
  if (llvm::Error err =
          reader.readInt("original_max_position_embeddings", scaling.originalMaxPositionEmbeddings))
    return std::move(err);
  if (llvm::Error err = reader.readDouble("attention_factor", scaling.attentionFactor))
    return std::move(err);
  if (llvm::Error err = reader.readDouble("beta_fast", scaling.betaFast))
    return std::move(err);
  if (llvm::Error err = reader.readDouble("beta_slow", scaling.betaSlow))
    return std::move(err);
  for (auto it = object.begin(); it != object.end(); ++it)
    if (it->is_number())
      scaling.numbers[it.key()] = it->get<double>();
  if (scaling.type == "llama3" &&
      (!scaling.lowFreqFactor || !scaling.highFreqFactor || !scaling.originalMaxPositionEmbeddings))
    return makeError(fileName + ": llama3 'rope_scaling' needs "
                                "low_freq_factor, high_freq_factor and "
                                "original_max_position_embeddings");
  return scaling;
}

Expected<QuantizationConfig> parseQuantization(const json &object, StringRef fileName) {
  if (!object.is_object())
    return makeError(fileName + ": field 'quantization_config' must be an object");
  FieldReader reader(object, fileName, "quantization_config.");
  QuantizationConfig quant;
  if (llvm::Error err = reader.readString("quant_method", quant.methodName))
    return std::move(err);
  std::string method = StringRef(quant.methodName).lower();
  if (method == "gptq") {
    quant.method = QuantizationConfig::Method::GPTQ;
  } else if (method == "awq") {
    quant.method = QuantizationConfig::Method::AWQ;
  } else if (method == "auto-round" || method == "autoround" || method == "auto_round" ||
             method == "intel/auto-round") {
    quant.method = QuantizationConfig::Method::AutoRound;
  } else {
    return makeError(fileName +
                     ": unsupported quantization_config."
                     "quant_method '" +
                     tpuc::printable(quant.methodName) + "' (supported: gptq, awq, auto-round)");
  }
  // AWQ's own tools spell these w_bit / q_group_size / zero_point.
  if (llvm::Error err = reader.readInt("w_bit", quant.bits))
    return std::move(err);
  if (llvm::Error err = reader.readInt("bits", quant.bits))
    return std::move(err);
  if (llvm::Error err = reader.readInt("q_group_size", quant.groupSize))
    return std::move(err);
  if (llvm::Error err = reader.readInt("group_size", quant.groupSize))
    return std::move(err);
  if (quant.method == QuantizationConfig::Method::AWQ) {
    bool zeroPoint = true;
    if (llvm::Error err = reader.readBool("zero_point", zeroPoint))
      return std::move(err);
    quant.sym = !zeroPoint;
    if (llvm::Error err = reader.readString("version", quant.packingFormat))
      return std::move(err);
  } else {
    if (llvm::Error err = reader.readBool("sym", quant.sym))
      return std::move(err);
    if (llvm::Error err = reader.readBool("desc_act", quant.descAct))
      return std::move(err);
    if (llvm::Error err = reader.readString("checkpoint_format", quant.packingFormat))
      return std::move(err);
    if (llvm::Error err = reader.readString("packing_format", quant.packingFormat))
      return std::move(err);
  }
  if (quant.bits != 2 && quant.bits != 3 && quant.bits != 4 && quant.bits != 8)
    return makeError(fileName + ": field 'quantization_config.bits' is " + llvm::Twine(quant.bits) +
                     " (supported: 2, 3, 4, 8)");
  if (quant.groupSize == 0 || quant.groupSize < -1)
    return makeError(fileName + ": field 'quantization_config.group_size' "
                                "must be positive or -1");
  return quant;
}

} // namespace

StringRef tpuc::llm::modelFamilyName(ModelFamily family) {
  switch (family) {
  case ModelFamily::Llama:
    return "llama";
  case ModelFamily::Qwen2:
    return "qwen2";
  case ModelFamily::Qwen3:
    return "qwen3";
  }
  return "?";
}

namespace {

/// A field that must be present, an integer and positive.
struct RequiredInt {
  const char *key;
  int64_t *out;
};

llvm::Error readRequired(const FieldReader &reader, StringRef fileName,
                         std::initializer_list<RequiredInt> fields) {
  for (const RequiredInt &field : fields) {
    if (!reader.has(field.key))
      return makeError(fileName + ": missing field '" + field.key + "'");
    if (llvm::Error err = reader.readInt(field.key, *field.out))
      return err;
    if (*field.out <= 0)
      return makeError(fileName + ": field '" + field.key + "' must be positive");
  }
  return llvm::Error::success();
}

Expected<ModelConfig> parseTextConfig(const json &root, StringRef fileName);

/// InternVL's config.json: the language model under "llm_config", the InternViT tower under
/// "vision_config", the projector's pixel shuffle in the root.
Expected<ModelConfig> parseInternVL(const json &root, StringRef fileName) {
  auto llm = root.find("llm_config");
  auto vision = root.find("vision_config");
  if (llm == root.end() || !llm->is_object())
    return makeError(fileName + ": InternVLChatModel without an 'llm_config' object");
  if (vision == root.end() || !vision->is_object())
    return makeError(fileName + ": InternVLChatModel without a 'vision_config' object");
  std::string llmName = (fileName + " llm_config").str();
  Expected<ModelConfig> config = parseTextConfig(*llm, llmName);
  if (!config)
    return config.takeError();
  config->weightPrefix = "language_model.";
  VisionConfig v;
  v.architecture = "InternVLChatModel";
  std::string visionName = (fileName + " vision_config").str();
  FieldReader reader(*vision, visionName);
  if (llvm::Error err = readRequired(reader, visionName,
                                     {{"image_size", &v.imageSize},
                                      {"patch_size", &v.patchSize},
                                      {"hidden_size", &v.hiddenSize},
                                      {"num_hidden_layers", &v.numLayers},
                                      {"num_attention_heads", &v.numHeads},
                                      {"intermediate_size", &v.intermediateSize}}))
    return std::move(err);
  if (llvm::Error err = reader.readDouble("layer_norm_eps", v.layerNormEps))
    return std::move(err);
  if (llvm::Error err = reader.readBool("qkv_bias", v.qkvBias))
    return std::move(err);
  std::string norm = "layer_norm", act = "gelu";
  bool qkNorm = false;
  if (llvm::Error err = reader.readString("norm_type", norm))
    return std::move(err);
  if (llvm::Error err = reader.readString("hidden_act", act))
    return std::move(err);
  if (llvm::Error err = reader.readBool("qk_normalization", qkNorm))
    return std::move(err);
  if (norm != "layer_norm")
    return makeError(visionName + ": norm_type '" + tpuc::printable(norm) +
                     "' is not supported (layer_norm: InternViT-300M; the 6B tower's rms_norm is not)");
  if (act != "gelu")
    return makeError(visionName + ": hidden_act '" + tpuc::printable(act) + "' is not supported (gelu)");
  if (qkNorm)
    return makeError(visionName + ": qk_normalization is not supported");
  if (v.hiddenSize % v.numHeads != 0)
    return makeError(visionName + ": hidden_size " + llvm::Twine(v.hiddenSize) +
                     " is not a multiple of num_attention_heads " + llvm::Twine(v.numHeads));
  FieldReader top(root, fileName);
  int64_t forced = 0;
  if (llvm::Error err = top.readInt("force_image_size", forced))
    return std::move(err);
  if (forced > 0)
    v.imageSize = forced;
  if (llvm::Error err = top.readDouble("downsample_ratio", v.downsampleRatio))
    return std::move(err);
  int64_t selectLayer = -1;
  if (llvm::Error err = top.readInt("select_layer", selectLayer))
    return std::move(err);
  std::string shuffle = "v2";
  if (llvm::Error err = top.readString("ps_version", shuffle))
    return std::move(err);
  if (selectLayer != -1)
    return makeError(fileName + ": select_layer " + llvm::Twine(selectLayer) +
                     " is not supported (-1: the tower's last layer)");
  if (shuffle != "v2")
    return makeError(fileName + ": ps_version '" + tpuc::printable(shuffle) + "' is not supported (v2)");
  // Bounded so that the pixel and token counts below stay far from overflowing.
  if (v.imageSize > 16384)
    return makeError(visionName + ": image_size " + llvm::Twine(v.imageSize) + " is beyond 16384 pixels");
  if (v.imageSize % v.patchSize != 0)
    return makeError(visionName + ": image_size " + llvm::Twine(v.imageSize) +
                     " is not a multiple of patch_size " + llvm::Twine(v.patchSize));
  double cells = static_cast<double>(v.grid()) * v.downsampleRatio;
  if (v.downsampleRatio <= 0 || v.downsampleRatio > 1 || cells != std::floor(cells) ||
      static_cast<double>(v.tokenGrid()) / v.downsampleRatio != static_cast<double>(v.grid()) ||
      v.grid() % v.tokenGrid() != 0) {
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%g", v.downsampleRatio);
    return makeError(fileName + ": downsample_ratio " + ratio + " does not divide the " +
                     llvm::Twine(v.grid()) + " x " + llvm::Twine(v.grid()) + " patch grid into whole tokens");
  }
  config->vision = v;
  config->architecture = "InternVLChatModel";
  return config;
}

} // namespace

Expected<ModelConfig> tpuc::llm::parseModelConfig(StringRef jsonText, StringRef fileName) {
  Expected<json> parsed = parseObject(jsonText, fileName);
  if (!parsed)
    return parsed.takeError();
  const json &root = *parsed;
  auto archIt = root.find("architectures");
  if (archIt != root.end() && archIt->is_array() && !archIt->empty() && (*archIt)[0] == "InternVLChatModel")
    return parseInternVL(root, fileName);
  return parseTextConfig(root, fileName);
}

namespace {

Expected<ModelConfig> parseTextConfig(const json &root, StringRef fileName) {
  FieldReader reader(root, fileName);
  ModelConfig config;

  auto archIt = root.find("architectures");
  if (archIt == root.end() || !archIt->is_array() || archIt->empty() || !(*archIt)[0].is_string())
    return makeError(fileName + ": field 'architectures' must be a non-empty "
                                "list of strings");
  config.architecture = (*archIt)[0].get<std::string>();
  if (config.architecture == "LlamaForCausalLM")
    config.family = ModelFamily::Llama;
  else if (config.architecture == "Qwen2ForCausalLM")
    config.family = ModelFamily::Qwen2;
  else if (config.architecture == "Qwen3ForCausalLM")
    config.family = ModelFamily::Qwen3;
  else
    return makeError(fileName + ": unsupported architecture '" + tpuc::printable(config.architecture) +
                     "' (supported: LlamaForCausalLM, Qwen2ForCausalLM, "
                     "Qwen3ForCausalLM, and InternVLChatModel around one of them)");

  // HuggingFace's per-family defaults, overridden by what the file says.
  config.attentionBias = config.family == ModelFamily::Qwen2;
  config.qkNorm = config.family == ModelFamily::Qwen3;

  if (llvm::Error err = readRequired(reader, fileName,
                                     {{"hidden_size", &config.hiddenSize},
                                      {"intermediate_size", &config.intermediateSize},
                                      {"num_hidden_layers", &config.numHiddenLayers},
                                      {"num_attention_heads", &config.numAttentionHeads},
                                      {"vocab_size", &config.vocabSize}}))
    return std::move(err);
  config.numKeyValueHeads = config.numAttentionHeads;
  if (llvm::Error err = reader.readInt("num_key_value_heads", config.numKeyValueHeads))
    return std::move(err);
  if (config.numKeyValueHeads <= 0 || config.numAttentionHeads % config.numKeyValueHeads != 0)
    return makeError(fileName + ": field 'num_key_value_heads' (" + llvm::Twine(config.numKeyValueHeads) +
                     ") must divide num_attention_heads (" + llvm::Twine(config.numAttentionHeads) + ")");
  if (reader.has("head_dim")) {
    if (llvm::Error err = reader.readInt("head_dim", config.headDim))
      return std::move(err);
    if (config.headDim <= 0)
      return makeError(fileName + ": field 'head_dim' must be positive");
  } else {
    if (config.hiddenSize % config.numAttentionHeads != 0)
      return makeError(fileName + ": hidden_size (" + llvm::Twine(config.hiddenSize) +
                       ") is not a multiple of num_attention_heads (" +
                       llvm::Twine(config.numAttentionHeads) + ") and no 'head_dim' is given");
    config.headDim = config.hiddenSize / config.numAttentionHeads;
  }
  config.maxPositionEmbeddings = 2048;
  if (llvm::Error err = reader.readInt("max_position_embeddings", config.maxPositionEmbeddings))
    return std::move(err);
  if (llvm::Error err = reader.readDouble("rms_norm_eps", config.rmsNormEps))
    return std::move(err);
  if (llvm::Error err = reader.readDouble("rope_theta", config.ropeTheta))
    return std::move(err);
  if (config.rmsNormEps <= 0 || config.ropeTheta <= 0)
    return makeError(fileName + ": fields 'rms_norm_eps' and 'rope_theta' must be "
                                "positive");
  if (reader.has("rope_scaling")) {
    Expected<RopeScaling> scaling = parseRopeScaling(root.at("rope_scaling"), fileName);
    if (!scaling)
      return scaling.takeError();
    config.ropeScaling = std::move(*scaling);
  }
  if (llvm::Error err = reader.readBool("tie_word_embeddings", config.tieWordEmbeddings))
    return std::move(err);
  if (llvm::Error err = reader.readBool("attention_bias", config.attentionBias))
    return std::move(err);
  if (llvm::Error err = reader.readBool("mlp_bias", config.mlpBias))
    return std::move(err);
  if (llvm::Error err = reader.readString("hidden_act", config.hiddenAct))
    return std::move(err);
  if (llvm::Error err = reader.readBool("use_sliding_window", config.useSlidingWindow))
    return std::move(err);
  if (llvm::Error err = reader.readInt("sliding_window", config.slidingWindow))
    return std::move(err);
  if (llvm::Error err = reader.readInt("max_window_layers", config.maxWindowLayers))
    return std::move(err);
  if (llvm::Error err = reader.readString("torch_dtype", config.torchDType))
    return std::move(err);
  if (config.torchDType.empty())
    if (llvm::Error err = reader.readString("dtype", config.torchDType))
      return std::move(err);
  if (llvm::Error err = reader.readInt("bos_token_id", config.bosTokenId))
    return std::move(err);
  if (llvm::Error err = reader.readIntList("eos_token_id", config.eosTokenIds))
    return std::move(err);
  if (reader.has("quantization_config")) {
    Expected<QuantizationConfig> quant = parseQuantization(root.at("quantization_config"), fileName);
    if (!quant)
      return quant.takeError();
    config.quantization = std::move(*quant);
  }
  return config;
}

} // namespace

Expected<ModelConfig> tpuc::llm::readModelConfig(StringRef path) {
  Expected<std::string> text = readText(path, "config.json");
  if (!text)
    return text.takeError();
  llvm::SmallString<256> name(path);
  if (llvm::sys::fs::is_directory(path))
    llvm::sys::path::append(name, "config.json");
  return parseModelConfig(*text, name);
}

Expected<GenerationConfig> tpuc::llm::parseGenerationConfig(StringRef jsonText, StringRef fileName) {
  Expected<json> parsed = parseObject(jsonText, fileName);
  if (!parsed)
    return parsed.takeError();
  FieldReader reader(*parsed, fileName);
  GenerationConfig config;
  if (llvm::Error err = reader.readIntList("eos_token_id", config.eosTokenIds))
    return std::move(err);
  if (llvm::Error err = reader.readInt("bos_token_id", config.bosTokenId))
    return std::move(err);
  if (llvm::Error err = reader.readInt("pad_token_id", config.padTokenId))
    return std::move(err);
  if (llvm::Error err = reader.readBool("do_sample", config.doSample))
    return std::move(err);
  if (llvm::Error err = reader.readDouble("temperature", config.temperature))
    return std::move(err);
  if (llvm::Error err = reader.readInt("top_k", config.topK))
    return std::move(err);
  if (llvm::Error err = reader.readDouble("top_p", config.topP))
    return std::move(err);
  if (llvm::Error err = reader.readDouble("repetition_penalty", config.repetitionPenalty))
    return std::move(err);
  if (llvm::Error err = reader.readInt("max_new_tokens", config.maxNewTokens))
    return std::move(err);
  if (llvm::Error err = reader.readInt("max_length", config.maxLength))
    return std::move(err);
  return config;
}

Expected<GenerationConfig> tpuc::llm::readGenerationConfig(StringRef path) {
  Expected<std::string> text = readText(path, "generation_config.json");
  if (!text)
    return text.takeError();
  llvm::SmallString<256> name(path);
  if (llvm::sys::fs::is_directory(path))
    llvm::sys::path::append(name, "generation_config.json");
  return parseGenerationConfig(*text, name);
}
