//===- LlmSession.cpp - A converted LLM opened for generation (llm-run) ---===//
//
// Moved from app/tpuc/LlmCommands.cpp: the model file on the command-level runtime, its tokenizer, stop
// tokens and sampling, and the generation loop; tpuc llm-run prints what it returns.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Driver/LlmSession.h"
#include "tpuc/Driver/DeployStages.h"

#include "tpuc/LLM/HFConfig.h"
#include "tpuc/Preprocess/Preprocess.h"
#include "tpuc/Support/Npz.h"
#include "tpuc/Support/Progress.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

namespace tpuc::driver {
namespace {

/// The model file: the path itself, or the one .tpum inside a directory.
std::string resolveModelFile(const std::string &path, std::string &error) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec))
    return path;
  std::vector<std::string> found;
  for (const auto &entry : std::filesystem::directory_iterator(path, ec))
    if (entry.path().extension() == ".tpum")
      found.push_back(entry.path().string());
  if (found.size() != 1) {
    error = path + ": " +
            (found.empty() ? "no .tpum model file in this directory"
                           : "several .tpum files in this directory; name one with --model");
    return "";
  }
  return found[0];
}

} // namespace

llvm::Expected<std::vector<int32_t>> parsePromptIds(const std::string &text) {
  std::vector<int32_t> ids;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t used = 0;
    try {
      long long v = std::stoll(item, &used);
      while (used < item.size() && std::isspace(static_cast<unsigned char>(item[used])))
        ++used;
      if (used != item.size() || v < 0 || v > INT32_MAX)
        throw std::invalid_argument(item);
      ids.push_back(static_cast<int32_t>(v));
    } catch (const std::exception &) {
      return llvm::createStringError("'--prompt_ids': '" + item + "' is not a token id");
    }
  }
  if (ids.empty())
    return llvm::createStringError("'--prompt_ids' holds no token ids");
  return ids;
}

llvm::Expected<std::unique_ptr<LlmSession>> LlmSession::open(const LlmRunOptions &o,
                                                             std::vector<std::string> *warnings) {
  auto fail = [](const std::string &message) { return llvm::createStringError(message); };
  std::unique_ptr<LlmSession> session(new LlmSession(o));
  std::string error;
  std::string modelPath = resolveModelFile(o.model, error);
  if (modelPath.empty())
    return fail(error);
  session->modelPath_ = modelPath;
  if (llvm::Error err = cli::loadModelFile(modelPath, session->model_, session->chip_))
    return fail(llvm::toString(std::move(err)));
  auto runtime = cmdsim::LlmRuntime::create(session->chip_, session->model_);
  if (!runtime)
    return fail(modelPath + ": " + llvm::toString(runtime.takeError()));
  session->runtime_ = std::move(*runtime);
  std::filesystem::path folder = std::filesystem::path(modelPath).parent_path();
  if (folder.empty())
    folder = ".";

  // The tokenizer: --tokenizer, else tokenizer.json beside the model (llm-convert copies it there).
  std::string tokenizerPath = o.tokenizer.empty() ? (folder / "tokenizer.json").string() : o.tokenizer;
  std::error_code ec;
  if (!o.tokenizer.empty() || std::filesystem::exists(tokenizerPath, ec)) {
    auto loaded = llm::Tokenizer::fromFile(tokenizerPath);
    if (!loaded)
      return fail(llvm::toString(loaded.takeError()));
    session->tokenizer_ = std::move(*loaded);
  } else if (o.promptIds.empty()) {
    return fail(tokenizerPath + ": no tokenizer.json beside the model; pass --tokenizer or --prompt_ids");
  }

  session->rng_.seed(static_cast<uint64_t>(o.seed));
  // Stop tokens: generation_config.json's eos ids (beside the model or the tokenizer), the tokenizer's eos.
  for (const std::filesystem::path &dir : {folder, std::filesystem::path(tokenizerPath).parent_path()}) {
    if (!std::filesystem::exists(dir / "generation_config.json", ec))
      continue;
    auto generation = llm::readGenerationConfig((dir / "generation_config.json").string());
    if (!generation)
      return fail(llvm::toString(generation.takeError()));
    for (int64_t id : generation->eosTokenIds)
      session->stops_.insert(static_cast<int32_t>(id));
    break;
  }
  if (session->tokenizer_ && session->tokenizer_->eosTokenId())
    session->stops_.insert(*session->tokenizer_->eosTokenId());
  LlmGeneration generation;
  generation.maxNewTokens = o.maxNewTokens;
  generation.topK = o.topK;
  generation.temperature = o.temperature;
  generation.topP = o.topP;
  generation.repetitionPenalty = o.repetitionPenalty;
  std::string warning;
  if (llvm::Error err = session->setGeneration(generation, &warning))
    return fail(modelPath + ": " + llvm::toString(std::move(err)));
  if (!warning.empty() && warnings)
    warnings->push_back(warning);
  return session;
}

namespace {
/// InternVL's image context token, repeated once per image token in the prompt.
constexpr const char *kImageContext = "<IMG_CONTEXT>";
} // namespace

llvm::Error LlmSession::attachImage(const std::string &path, double *simulatedMs) {
  const cmdsim::LlmShape &s = shape();
  if (!s.imageTokens)
    return llvm::createStringError(modelPath_ +
                                   ": --image needs a vision-language model (this one has no 'vit' net)");
  if (!tokenizer_)
    return llvm::createStringError(path + ": --image needs the tokenizer, for the id of " + kImageContext);
  std::optional<llm::TokenId> token = tokenizer_->tokenToId(kImageContext);
  if (!token)
    return llvm::createStringError(std::string("the tokenizer has no ") + kImageContext +
                                   " token (InternVL's image token)");
  preprocess::PreprocessConfig config;
  config.inputName = "pixel_values";
  config.inputShape = {1, 3, s.imageSize, s.imageSize};
  config.pixelFormat = preprocess::PixelFormat::RGB;
  config.mean = {0.485 * 255, 0.456 * 255, 0.406 * 255};
  config.scale = {1 / (0.229 * 255), 1 / (0.224 * 255), 1 / (0.225 * 255)};
  Tensor pixels;
  try {
    pixels = preprocess::loadSample(path, config);
  } catch (const std::exception &e) {
    return llvm::createStringError(e.what());
  }
  std::vector<double> values = pixels.toDoubles();
  runtime_->takeTime();
  auto rows = runtime_->encodeImage(std::vector<float>(values.begin(), values.end()));
  if (!rows)
    return llvm::createStringError(path + ": " + llvm::toString(rows.takeError()));
  double ms = runtime_->takeTime().simulatedMs;
  if (simulatedMs)
    *simulatedMs = ms;
  runtime_->setImageRows(static_cast<int32_t>(*token), std::move(*rows));
  return llvm::Error::success();
}

std::string LlmSession::imagePlaceholder() const {
  std::string text = "<img>";
  for (int64_t i = 0; i < shape().imageTokens; ++i)
    text += kImageContext;
  return text + "</img>\n";
}

llvm::Error LlmSession::setGeneration(const LlmGeneration &g, std::string *warning) {
  std::string invalid =
      validateLlmGeneration(g.maxNewTokens, g.temperature, g.topK, g.topP, g.repetitionPenalty);
  if (!invalid.empty())
    return llvm::createStringError(invalid);
  const cmdsim::LlmShape &shape = this->shape();
  if ((g.topK > 1 || g.repetitionPenalty != 1.0) && !shape.sampleCandidates)
    return llvm::createStringError(
        "sampling (--top_k > 1 or --repetition_penalty) needs the 'sample_head' net");
  if (g.topK > shape.sampleCandidates && shape.sampleCandidates && g.topK > 1 && warning)
    *warning = "--top_k " + std::to_string(g.topK) + " is wider than the sample head's " +
               std::to_string(shape.sampleCandidates) + " candidates; using " +
               std::to_string(shape.sampleCandidates);
  options_.maxNewTokens = g.maxNewTokens;
  options_.topK = g.topK;
  options_.temperature = g.temperature;
  options_.topP = g.topP;
  options_.repetitionPenalty = g.repetitionPenalty;
  sampling_.topK = g.topK;
  sampling_.temperature = g.temperature;
  sampling_.topP = g.topP;
  sampling_.repetitionPenalty = g.repetitionPenalty;
  if (g.seed) {
    options_.seed = *g.seed;
    rng_.seed(static_cast<uint64_t>(*g.seed));
  }
  return llvm::Error::success();
}

LlmGeneration LlmSession::generation() const {
  return {options_.maxNewTokens,      options_.topK, options_.temperature, options_.topP,
          options_.repetitionPenalty, options_.seed};
}

void LlmSession::reset() { runtime_->reset(); }

int64_t LlmSession::cacheTokens() const { return runtime_->position(); }

int64_t LlmSession::cachedPrefix(const std::vector<int32_t> &prompt) const {
  if (options_.noKvCache)
    return 0;
  const std::vector<int32_t> &held = runtime_->tokens();
  size_t shared = 0;
  while (shared < held.size() && shared + 1 < prompt.size() && held[shared] == prompt[shared])
    ++shared;
  return static_cast<int64_t>(shared);
}

llvm::Expected<LlmAnswer> LlmSession::answer(const std::vector<int32_t> &prompt, const Sink &sink,
                                             const LlmEvents &events) {
  cmdsim::LlmRuntime &runtime = *runtime_;
  const LlmRunOptions &options = options_;
  const llm::Tokenizer *tokenizer = tokenizer_.get();
  LlmAnswer a;
  a.prompt = prompt;
  runtime.takeTime(); // a cancelled answer's last feed is not this answer's time
  auto wallStart = std::chrono::steady_clock::now();
  auto wallSince = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
  };
  // The prompt's feed steps go to the observer; the decode steps of the answer are reported with the
  // token each produces. The observer is removed on every way out.
  struct Observe {
    cmdsim::LlmRuntime &runtime;
    ~Observe() { runtime.setStepObserver({}); }
  } observe{runtime};
  double stepsMs = 0; // simulated time of the reported steps, not part of the first token's record
  runtime.setStepObserver([&](const cmdsim::FeedStep &step) {
    stepsMs += step.simulatedMs;
    if (events.step)
      events.step(step);
  });
  std::vector<int32_t> sequence = prompt;
  llvm::Expected<std::vector<float>> logits = std::vector<float>();
  if (options.noKvCache) {
    logits = runtime.recompute(sequence);
  } else {
    // The longest prefix shared with the cache stays; at least the prompt's last token is fed again, so
    // there are logits to choose from.
    size_t shared = static_cast<size_t>(cachedPrefix(prompt));
    runtime.truncate(static_cast<int64_t>(shared));
    a.cachedTokens = static_cast<int64_t>(shared);
    logits = runtime.feed(llvm::ArrayRef<int32_t>(prompt).drop_front(shared));
  }
  runtime.setStepObserver({});
  double lastWall = wallSince();
  if (!logits)
    return logits.takeError();
  std::optional<llm::IncrementalDecoder> decoder;
  if (tokenizer)
    decoder.emplace(*tokenizer, /*skipSpecial=*/true);
  for (int64_t step = 0; step < options.maxNewTokens; ++step) {
    if (sink.isCancelled()) {
      a.stop = "cancelled";
      break;
    }
    auto token = runtime.choose(*logits, sampling_, rng_);
    if (!token)
      return token.takeError();
    if (!options.dumpLogits.empty())
      a.logits.insert(a.logits.end(), logits->begin(), logits->end());
    cmdsim::RunTime t = runtime.takeTime();
    double stepWall = wallSince() - lastWall;
    lastWall += stepWall;
    if (step == 0) {
      a.firstTokenMs = t.simulatedMs;
      a.firstTokenWall = wallSince();
    } else {
      a.decodeMs += t.simulatedMs;
      ++a.decodeSteps;
    }
    a.tokens.push_back(*token);
    sequence.push_back(*token);
    std::string piece = decoder ? decoder->push(*token) : std::to_string(*token) + " ";
    a.text += piece;
    sink.write(piece, /*flush=*/true);
    if (events.token)
      events.token({step, *token, piece, t.simulatedMs - stepsMs, stepWall, runtime.position()});
    stepsMs = 0;
    if (stops_.count(*token)) {
      a.stop = "eos";
      break;
    }
    if (step + 1 == options.maxNewTokens) {
      a.stop = "max_new_tokens";
      break;
    }
    if (static_cast<int64_t>(sequence.size()) >= runtime.shape().seqLength ||
        (options.noKvCache && static_cast<int64_t>(sequence.size()) > runtime.shape().maxInputLength)) {
      a.stop = "context_full";
      break;
    }
    logits =
        options.noKvCache ? runtime.recompute(sequence) : runtime.feed({*token}, cmdsim::FeedMode::Decode);
    if (!logits)
      return logits.takeError();
  }
  if (decoder) {
    std::string rest = decoder->finish();
    a.text += rest;
    sink.write(rest);
  }
  sink.write("\n", /*flush=*/true);
  a.decodeWall = wallSince() - a.firstTokenWall;
  return a;
}

std::string LlmSession::answerJson(const LlmAnswer &a) const {
  const cmdsim::LlmShape &shape = this->shape();
  // Times to the microsecond, rates to 1e-3, as the text summary prints them.
  auto rounded = [](double v, double unit) { return std::isfinite(v) ? std::round(v / unit) * unit : 0.0; };
  nlohmann::ordered_json j;
  j["model"] = modelPath_;
  j["chip"] = chip_.name;
  j["prompt_ids"] = a.prompt;
  j["tokens"] = a.tokens;
  j["text"] = a.text;
  j["stop"] = a.stop;
  j["first_token_ms"] = rounded(a.firstTokenMs, 1e-6);
  j["decode_tokens_per_s"] = rounded(a.tokensPerSecond(), 1e-3);
  j["wall_first_token_s"] = rounded(a.firstTokenWall, 1e-6);
  j["wall_decode_tokens_per_s"] = rounded(a.wallTokensPerSecond(), 1e-3);
  j["decode_steps"] = a.decodeSteps;
  j["seq_length"] = shape.seqLength;
  j["layers"] = shape.layers;
  // Generated text may cut a UTF-8 sequence at the token limit: replaced, so the record always parses.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string LlmSession::writeAnswer(const LlmAnswer &a) const {
  const LlmRunOptions &o = options_;
  if (!o.outputJson.empty()) {
    std::ofstream out(o.outputJson);
    out << answerJson(a);
    if (!out.good())
      return o.outputJson + ": cannot write the answer";
  }
  if (o.dumpLogits.empty())
    return "";
  auto ids = [](const std::vector<int32_t> &v) {
    return Tensor::fromValues<int32_t>({static_cast<int64_t>(v.size())}, v);
  };
  NpzFile npz;
  npz.set("prompt_ids", ids(a.prompt));
  npz.set("tokens", ids(a.tokens));
  npz.set("logits", Tensor::fromValues({static_cast<int64_t>(a.tokens.size()), shape().vocab}, a.logits));
  try {
    npz.write(o.dumpLogits);
  } catch (const NpyError &e) {
    return e.what();
  }
  return "";
}

llvm::Expected<std::vector<int32_t>> LlmSession::encodeTurn(const std::vector<llm::ChatMessage> &conversation,
                                                            bool useTemplate) const {
  const llm::Tokenizer &tokenizer = *tokenizer_;
  std::string text;
  if (useTemplate && tokenizer.chatFormat() != llm::ChatFormat::None) {
    auto rendered = tokenizer.applyChatTemplate(conversation);
    if (!rendered)
      return rendered.takeError();
    text = *rendered;
  } else {
    for (const llm::ChatMessage &m : conversation)
      text += m.content;
  }
  std::vector<int32_t> ids;
  if (auto bos = tokenizer.bosTokenId();
      bos && !(useTemplate && tokenizer.chatFormat() != llm::ChatFormat::None))
    ids.push_back(*bos);
  for (llm::TokenId id : tokenizer.encode(text))
    ids.push_back(id);
  return ids;
}

} // namespace tpuc::driver
