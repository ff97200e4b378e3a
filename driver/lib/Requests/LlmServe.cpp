//===- LlmServe.cpp - Requests and events of `tpuc llm-run --serve` -------===//

#include "tpuc/Driver/LlmServe.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace tpuc::driver {
namespace {

using nlohmann::ordered_json;

/// Times to the microsecond (ms values to 1e-6), so lines stay short and the reader sees what was meant.
double rounded(double v) { return std::isfinite(v) ? std::round(v * 1e6) / 1e6 : 0.0; }

std::string dumpLine(const ordered_json &j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// Reads `j[key]` into `out` when present; throws a message naming the key when it has the wrong type.
struct Fields {
  const nlohmann::json &j;
  bool has(const char *key) const { return j.contains(key) && !j[key].is_null(); }
  void get(const char *key, std::string &out) const {
    if (!has(key))
      return;
    if (!j[key].is_string())
      throw std::string("'") + key + "' must be a string";
    out = j[key].get<std::string>();
  }
  void get(const char *key, int64_t &out) const {
    if (!has(key))
      return;
    if (!j[key].is_number_integer())
      throw std::string("'") + key + "' must be an integer";
    out = j[key].get<int64_t>();
  }
  void get(const char *key, double &out) const {
    if (!has(key))
      return;
    if (!j[key].is_number())
      throw std::string("'") + key + "' must be a number";
    out = j[key].get<double>();
  }
  void get(const char *key, std::vector<int64_t> &out) const {
    if (!has(key))
      return;
    if (!j[key].is_array())
      throw std::string("'") + key + "' must be an array of integers";
    out.clear();
    for (const nlohmann::json &v : j[key]) {
      if (!v.is_number_integer())
        throw std::string("'") + key + "' must be an array of integers";
      out.push_back(v.get<int64_t>());
    }
  }
  template <typename T> void get(const char *key, std::optional<T> &out) const {
    if (!has(key))
      return;
    T value{};
    get(key, value);
    out = value;
  }
  void get(const char *key, bool &out) const {
    if (!has(key))
      return;
    if (!j[key].is_boolean())
      throw std::string("'") + key + "' must be true or false";
    out = j[key].get<bool>();
  }
};

const char *typeName(LlmServeRequest::Type type) {
  switch (type) {
  case LlmServeRequest::Type::Chat:
    return "chat";
  case LlmServeRequest::Type::Reset:
    return "reset";
  case LlmServeRequest::Type::Stop:
    return "stop";
  case LlmServeRequest::Type::Settings:
    return "settings";
  }
  return "chat";
}

/// Parses a JSON object line, or the one-line reason it is not one.
ReadResult<nlohmann::json> parseObject(std::string_view line) {
  ReadResult<nlohmann::json> out;
  try {
    out.result = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception &e) {
    std::string what = e.what();
    // nlohmann's messages are one line already; keep them so.
    for (char &c : what)
      if (c == '\n' || c == '\r')
        c = ' ';
    out.error = "line is not JSON: " + what;
    return out;
  }
  if (!out.result.is_object())
    out.error = "line is not a JSON object";
  return out;
}

} // namespace

std::string toJsonLine(const LlmServeRequest &r) {
  ordered_json j;
  j["type"] = typeName(r.type);
  if (!r.id.empty())
    j["id"] = r.id;
  if (r.type == LlmServeRequest::Type::Chat)
    j["message"] = r.message;
  if (!r.image.empty())
    j["image"] = r.image;
  if (r.greedy)
    j["greedy"] = *r.greedy;
  if (r.maxNewTokens)
    j["max_new_tokens"] = *r.maxNewTokens;
  if (r.topK)
    j["top_k"] = *r.topK;
  if (r.topP)
    j["top_p"] = *r.topP;
  if (r.temperature)
    j["temperature"] = *r.temperature;
  if (r.repetitionPenalty)
    j["repetition_penalty"] = *r.repetitionPenalty;
  if (r.seed)
    j["seed"] = *r.seed;
  return dumpLine(j);
}

ReadResult<LlmServeRequest> parseLlmServeRequest(std::string_view line) {
  ReadResult<LlmServeRequest> out;
  ReadResult<nlohmann::json> object = parseObject(line);
  if (!object) {
    out.error = object.error;
    return out;
  }
  const nlohmann::json &j = object.result;
  LlmServeRequest &r = out.result;
  try {
    Fields f{j};
    std::string type;
    f.get("type", type);
    if (type.empty())
      throw std::string("the request has no 'type' (chat, reset, stop or settings)");
    if (type == "chat")
      r.type = LlmServeRequest::Type::Chat;
    else if (type == "reset")
      r.type = LlmServeRequest::Type::Reset;
    else if (type == "stop")
      r.type = LlmServeRequest::Type::Stop;
    else if (type == "settings")
      r.type = LlmServeRequest::Type::Settings;
    else
      throw "unknown type '" + type + "' (chat, reset, stop or settings)";
    // An id may be a string or a number; it comes back as a string.
    if (f.has("id"))
      r.id = j["id"].is_string() ? j["id"].get<std::string>() : j["id"].dump();
    f.get("message", r.message);
    f.get("image", r.image);
    if (r.type == LlmServeRequest::Type::Chat && r.message.empty())
      throw std::string("a chat request needs a non-empty 'message'");
    f.get("greedy", r.greedy);
    f.get("max_new_tokens", r.maxNewTokens);
    f.get("top_k", r.topK);
    f.get("top_p", r.topP);
    f.get("temperature", r.temperature);
    f.get("repetition_penalty", r.repetitionPenalty);
    f.get("seed", r.seed);
    for (const auto &item : j.items()) {
      static const char *known[] = {
          "type",        "id",   "message",           "image", "greedy", "max_new_tokens", "top_k", "top_p",
          "temperature", "seed", "repetition_penalty"};
      if (std::find_if(std::begin(known), std::end(known), [&](const char *k) { return item.key() == k; }) ==
          std::end(known))
        throw "unknown key '" + item.key() + "'";
    }
  } catch (const std::string &message) {
    out.error = message;
  }
  return out;
}

std::string toJsonLine(const LlmServeEvent &e) {
  ordered_json j;
  j["event"] = e.event;
  if (!e.id.empty())
    j["id"] = e.id;
  if (e.event == "ready") {
    j["protocol"] = e.protocol;
    j["version"] = e.version;
    j["model"] = e.model;
    j["chip"] = e.chip;
    j["layers"] = e.layers;
    j["seq_length"] = e.seqLength;
    j["max_input_length"] = e.maxInputLength;
    j["chunk_length"] = e.chunkLength;
    j["buckets"] = e.buckets;
    j["image_tokens"] = e.imageTokens;
    j["sample_candidates"] = e.sampleCandidates;
    j["vocab"] = e.vocab;
  } else if (e.event == "turn") {
    j["prompt_tokens"] = e.promptTokens;
    j["cached_tokens"] = e.cachedTokens;
    j["new_tokens"] = e.newTokens;
    j["kv_used"] = e.kvUsed;
  } else if (e.event == "step") {
    j["stage"] = e.stage;
    j["position"] = e.position;
    j["tokens"] = e.tokens;
    j["stage_tokens"] = e.stageTokens;
    j["sim_ms"] = rounded(e.simMs);
    j["wall_ms"] = rounded(e.wallMs);
    j["kv_used"] = e.kvUsed;
  } else if (e.event == "token") {
    j["index"] = e.index;
    j["token"] = e.token;
    j["text"] = e.text;
    j["sim_ms"] = rounded(e.simMs);
    j["wall_ms"] = rounded(e.wallMs);
    j["kv_used"] = e.kvUsed;
  } else if (e.event == "done") {
    j["stop"] = e.stop;
    j["prompt_tokens"] = e.promptTokens;
    j["cached_tokens"] = e.cachedTokens;
    j["generated"] = e.generated;
    j["first_token_sim_ms"] = rounded(e.firstTokenSimMs);
    j["first_token_wall_ms"] = rounded(e.firstTokenWallMs);
    j["decode_tokens_per_s"] = rounded(e.decodeTokensPerS);
    j["wall_decode_tokens_per_s"] = rounded(e.wallDecodeTokensPerS);
    j["kv_used"] = e.kvUsed;
    j["text"] = e.text;
  } else if (e.event == "settings") {
    j["max_new_tokens"] = e.maxNewTokens;
    j["top_k"] = e.topK;
    j["temperature"] = e.temperature;
    j["top_p"] = e.topP;
    j["repetition_penalty"] = e.repetitionPenalty;
    j["seed"] = e.seed;
  } else if (e.event == "reset") {
    j["kv_used"] = e.kvUsed;
  } else {
    j["message"] = e.message;
  }
  return dumpLine(j);
}

ReadResult<LlmServeEvent> parseLlmServeEvent(std::string_view line) {
  ReadResult<LlmServeEvent> out;
  ReadResult<nlohmann::json> object = parseObject(line);
  if (!object) {
    out.error = object.error;
    return out;
  }
  LlmServeEvent &e = out.result;
  try {
    Fields f{object.result};
    f.get("event", e.event);
    if (e.event.empty())
      throw std::string("the line has no 'event'");
    f.get("id", e.id);
    f.get("protocol", e.protocol);
    f.get("version", e.version);
    f.get("model", e.model);
    f.get("chip", e.chip);
    f.get("layers", e.layers);
    f.get("seq_length", e.seqLength);
    f.get("max_input_length", e.maxInputLength);
    f.get("chunk_length", e.chunkLength);
    f.get("buckets", e.buckets);
    f.get("image_tokens", e.imageTokens);
    f.get("stage_tokens", e.stageTokens);
    f.get("sample_candidates", e.sampleCandidates);
    f.get("vocab", e.vocab);
    f.get("prompt_tokens", e.promptTokens);
    f.get("cached_tokens", e.cachedTokens);
    f.get("new_tokens", e.newTokens);
    f.get("generated", e.generated);
    f.get("stage", e.stage);
    f.get("position", e.position);
    f.get("tokens", e.tokens);
    f.get("index", e.index);
    f.get("token", e.token);
    f.get("sim_ms", e.simMs);
    f.get("wall_ms", e.wallMs);
    f.get("kv_used", e.kvUsed);
    f.get("text", e.text);
    f.get("stop", e.stop);
    f.get("message", e.message);
    f.get("first_token_sim_ms", e.firstTokenSimMs);
    f.get("first_token_wall_ms", e.firstTokenWallMs);
    f.get("decode_tokens_per_s", e.decodeTokensPerS);
    f.get("wall_decode_tokens_per_s", e.wallDecodeTokensPerS);
    f.get("max_new_tokens", e.maxNewTokens);
    f.get("top_k", e.topK);
    f.get("temperature", e.temperature);
    f.get("top_p", e.topP);
    f.get("repetition_penalty", e.repetitionPenalty);
    f.get("seed", e.seed);
  } catch (const std::string &message) {
    out.error = message;
  }
  return out;
}

} // namespace tpuc::driver
