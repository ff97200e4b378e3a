//===- LlmCommands.cpp - llm-convert and llm-run --------------------------===//
//
// Flags of LLM-TPU's llm_convert.py (short forms included) and of its
// runtime demos.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "DeployCommand.h"
#include "TopModule.h"

#include "tpuc/Backend/ChipProfile.h"
#include "tpuc/Codegen/ModelCodegen.h"
#include "tpuc/Codegen/ModelFile.h"
#include "tpuc/Dialect/Top/WeightStore.h"
#include "tpuc/LLM/DryRun.h"
#include "tpuc/LLM/HFConfig.h"
#include "tpuc/LLM/LlmConvert.h"
#include "tpuc/LLM/Tokenizer.h"
#include "tpuc/Simulator/LlmRuntime.h"
#include "tpuc/Support/Npz.h"
#include "tpuc/Support/Progress.h"

#include "mlir/IR/MLIRContext.h"

#include <cctype>
#include <chrono>
#include <climits>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace tpuc::cli {

namespace {

llm::ConvertOptions convertOptions(const LlmConvertOptions &o) {
  llm::ConvertOptions c;
  c.modelPath = o.modelPath;
  c.seqLength = o.seqLength;
  c.quantize = o.quantize;
  c.qGroupSize = o.qGroupSize;
  c.symmetric = o.symmetric;
  c.chip = o.chip;
  c.useHistoryKv = o.useHistoryKv;
  c.chunkLength = o.chunkLength;
  c.maxInputLength = o.maxInputLength;
  c.outDir = o.outDir;
  c.warn = [](const std::string &line) { std::cerr << "tpuc llm-convert: " << line << std::endl; };
  return c;
}

/// --dry_run: the plan, memory and latency per chip from config.json alone (DryRun.h). With
/// --progress json stdout carries only progress lines, so the text report goes to stderr.
int printPlan(const LlmConvertOptions &o) {
  auto fail = [](llvm::Error error) {
    std::cerr << "tpuc llm-convert: " << llvm::toString(std::move(error)) << std::endl;
    return kExitUsage;
  };
  auto config = llm::readModelConfig(o.modelPath);
  if (!config)
    return fail(config.takeError());
  auto plan = llm::planConversion(*config, convertOptions(o));
  if (!plan)
    return fail(plan.takeError());
  ProgressReporter progress = makeProgressReporter(o.progress);
  progress.report("llm-convert", 0.0, "dry run on " + o.chip);
  auto report = llm::dryRun(*config, *plan, o.chip);
  if (!report)
    return fail(report.takeError());
  bool jsonLines = progress.format() == ProgressReporter::Format::Json;
  (jsonLines ? std::cerr : std::cout) << llm::formatDryRun(*report) << std::flush;
  std::vector<std::string> artifacts;
  if (!o.dryRunJson.empty()) {
    std::ofstream out(o.dryRunJson);
    out << llm::dryRunJson(*report);
    if (!out.good()) {
      std::cerr << "tpuc llm-convert: " << o.dryRunJson << ": cannot write the dry-run report" << std::endl;
      return kExitUsage;
    }
    artifacts.push_back(o.dryRunJson);
  }
  std::string summary;
  for (const llm::ChipDryRun &chip : report->chips) {
    char line[160];
    std::snprintf(line, sizeof line, "%s%s: %s, first token %.1f ms, %.2f tokens/s", summary.empty() ? "" : "; ",
                  chip.chip.c_str(), chip.memory.fits() ? "fits" : "does not fit", chip.firstTokenMs,
                  chip.decodeTokensPerSecond());
    summary += line;
  }
  progress.report("llm-convert", 1.0, summary, artifacts);
  return kExitOk;
}

/// The file name of the combined model: LLM-TPU's `<model>_<quantize>_seq<S>_<chip>` pattern.
std::string combinedModelPath(const LlmConvertOptions &o, const llm::ConvertPlan &plan) {
  std::string model = std::filesystem::path(o.modelPath).lexically_normal().filename().string();
  if (model.empty() || model == ".")
    model = std::filesystem::absolute(o.modelPath).lexically_normal().parent_path().filename().string();
  for (char &c : model)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return (std::filesystem::path(o.outDir) / (model + "_" + plan.quantize + "_seq" + std::to_string(plan.seqLength) +
                                             "_" + o.chip + ".tpum"))
      .string();
}

/// Every stage lowered (decoder layers keep their top.a16matmul weight-only weights; everything runs in
/// the half precision of -q, F32 for f32), through the backend (layer groups, addresses, codegen), and
/// all of them combined into one model file whose nets are the stages: weights that several stages share
/// (a layer's block_i, block_cache_i and block_kv_i) are stored once. Returns the exit code.
int compileStages(mlir::MLIRContext &context, const LlmConvertOptions &o, const llm::ConvertResult &result,
                  ProgressReporter &progress) {
  auto fail = [](const std::string &message) {
    std::cerr << "tpuc llm-convert: " << message << std::endl;
    return kExitFailed;
  };
  LoweringOptions lowering;
  lowering.chip = o.chip;
  const std::string &q = result.plan.quantize;
  lowering.mode = q == "f32" ? top::Precision::F32
                  : q.ends_with("f16") && !q.ends_with("bf16") ? top::Precision::F16
                                                                : top::Precision::BF16;
  lowering.qGroupSize = result.plan.groupSize;
  std::vector<codegen::Model> parts;
  auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < result.stages.size(); ++i) {
    const llm::StageFile &stage = result.stages[i];
    progress.report("llm-convert", double(i) / double(result.stages.size()), "compiling " + stage.name);
    std::string error;
    auto top = loadTopModule(context, stage.mlirPath, error);
    if (!top)
      return fail(error);
    auto tpu = lowerCopy(*top, lowering, error);
    if (!tpu)
      return fail(stage.mlirPath + ": " + error);
    top = nullptr;
    // The backend reads the lowered weights from a file; it is scratch unless --debug keeps it.
    std::string weights = (std::filesystem::path(o.outDir) / (stage.name + "_tpu_weight.npz")).string();
    if (mlir::failed(top::saveWeights(*tpu, weights)))
      return fail(weights + ": cannot write the Tpu weights");
    BackendOptions backend;
    backend.chip = o.chip;
    backend.netName = stage.name;
    if (o.debug)
      backend.planJsonPath = (std::filesystem::path(o.outDir) / (stage.name + "_plan.json")).string();
    if (auto err = runBackend(*tpu, backend))
      return fail(stage.name + ": " + llvm::toString(std::move(err)));
    auto model = generateModel(*tpu, stage.name);
    if (!model)
      return fail(stage.name + ": " + llvm::toString(model.takeError()));
    parts.push_back(std::move(*model));
    tpu = nullptr;
    top::clearWeightCache();
    if (!o.debug) {
      std::error_code ec;
      std::filesystem::remove(weights, ec);
    }
  }
  progress.report("llm-convert", 0.99, "combining " + std::to_string(parts.size()) + " stages");
  uint64_t separate = 0;
  for (const codegen::Model &m : parts)
    separate += m.coeffData.size();
  std::string path = combinedModelPath(o, result.plan);
  try {
    codegen::Model combined = codegen::combineModels(parts);
    parts.clear();
    writeModelFile(path, combined);
    // What llm-run reads beside the model: the tokenizer, its chat template and the stop tokens.
    for (const char *name : {"config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json"}) {
      std::filesystem::path from = std::filesystem::path(o.modelPath) / name, to = std::filesystem::path(o.outDir) / name;
      std::error_code ec;
      if (std::filesystem::exists(from, ec) && !std::filesystem::equivalent(from.parent_path(), to.parent_path(), ec))
        std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing, ec);
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    char line[256];
    std::snprintf(line, sizeof line, "%s: %zu nets, weights %.2f MiB (%.2f MiB before sharing), compiled in %.1f s",
                  path.c_str(), combined.nets.size(), double(combined.coeffData.size()) / 1048576.0,
                  double(separate) / 1048576.0, seconds);
    std::cout << line << std::endl;
    progress.report("llm-convert", 1.0, line, {path});
  } catch (const codegen::ModelFileError &e) {
    return fail(e.what());
  }
  return kExitOk;
}

} // namespace

int runLlmConvert(const LlmConvertOptions &o) {
  if (o.dryRun)
    return printPlan(o);
  try {
    backend::findChipProfile(o.chip);
  } catch (const backend::ProfileError &e) {
    std::cerr << "tpuc llm-convert: " << e.what() << std::endl;
    return kExitUsage;
  }
  ProgressReporter progress = makeProgressReporter(o.progress);
  llm::ConvertOptions options = convertOptions(o);
  options.progress = [&](size_t done, size_t total, const std::string &stage) {
    progress.report("llm-convert", double(done) / double(total ? total : 1), "building " + stage);
  };
  mlir::MLIRContext context;
  auto result = llm::convertToTop(context, options);
  if (!result) {
    std::cerr << "tpuc llm-convert: " << llvm::toString(result.takeError()) << std::endl;
    return kExitUsage;
  }
  std::vector<std::string> artifacts;
  for (const llm::StageFile &stage : result->stages)
    artifacts.push_back(stage.mlirPath);
  progress.report("llm-convert", o.onlyMlir ? 1.0 : 0.0,
                  "wrote " + std::to_string(result->stages.size()) + " Top stages to " + o.outDir, artifacts);
  if (o.onlyMlir)
    return kExitOk;
  return compileStages(context, o, *result, progress);
}

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
    error = path + ": " + (found.empty() ? "no .tpum model file in this directory"
                                         : "several .tpum files in this directory; name one with --model");
    return "";
  }
  return found[0];
}

/// The ids of "1, 2,3".
bool parseIds(const std::string &text, std::vector<int32_t> &ids, std::string &error) {
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
      error = "'--prompt_ids': '" + item + "' is not a token id";
      return false;
    }
  }
  if (ids.empty())
    error = "'--prompt_ids' holds no token ids";
  return !ids.empty();
}

std::string jsonString(const std::string &s) { return "\"" + jsonEscape(s) + "\""; }

std::string jsonIds(const std::vector<int32_t> &ids) {
  std::string out = "[";
  for (size_t i = 0; i < ids.size(); ++i)
    out += (i ? "," : "") + std::to_string(ids[i]);
  return out + "]";
}

/// One answer: its tokens, why it stopped and its timing.
struct Answer {
  std::vector<int32_t> prompt, tokens;
  /// With --dump_logits: the logits each of `tokens` was chosen from, one row of vocab floats per token.
  std::vector<float> logits;
  std::string text, stop;
  double firstTokenMs = 0, firstTokenWall = 0;
  double decodeMs = 0, decodeWall = 0;
  int64_t decodeSteps = 0;
  double tokensPerSecond() const { return decodeMs > 0 ? 1000.0 * double(decodeSteps) / decodeMs : 0; }
  double wallTokensPerSecond() const { return decodeWall > 0 ? double(decodeSteps) / decodeWall : 0; }
};

/// What llm-run keeps between turns.
struct Session {
  cmdsim::LlmRuntime &runtime;
  const LlmRunOptions &options;
  const llm::Tokenizer *tokenizer = nullptr;
  std::set<int32_t> stops;
  std::mt19937_64 rng;
  cmdsim::Sampling sampling;

  /// Feeds `prompt` (reusing the cached prefix it starts with) and generates; streams text to stdout.
  llvm::Expected<Answer> answer(const std::vector<int32_t> &prompt) {
    Answer a;
    a.prompt = prompt;
    auto wallStart = std::chrono::steady_clock::now();
    auto wallSince = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    };
    const std::vector<int32_t> &held = runtime.tokens();
    bool extends = prompt.size() > held.size() && std::equal(held.begin(), held.end(), prompt.begin());
    std::vector<int32_t> sequence = prompt;
    llvm::Expected<std::vector<float>> logits = std::vector<float>();
    if (options.noKvCache) {
      logits = runtime.recompute(sequence);
    } else {
      if (!extends)
        runtime.reset();
      logits = runtime.feed(llvm::ArrayRef<int32_t>(prompt).drop_front(runtime.tokens().size()));
    }
    if (!logits)
      return logits.takeError();
    std::optional<llm::IncrementalDecoder> decoder;
    if (tokenizer)
      decoder.emplace(*tokenizer, /*skipSpecial=*/true);
    for (int64_t step = 0; step < options.maxNewTokens; ++step) {
      auto token = runtime.choose(*logits, sampling, rng);
      if (!token)
        return token.takeError();
      if (!options.dumpLogits.empty())
        a.logits.insert(a.logits.end(), logits->begin(), logits->end());
      cmdsim::RunTime t = runtime.takeTime();
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
      std::cout << piece << std::flush;
      if (stops.count(*token)) {
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
      logits = options.noKvCache ? runtime.recompute(sequence) : runtime.feed({*token}, cmdsim::FeedMode::Decode);
      if (!logits)
        return logits.takeError();
    }
    if (decoder) {
      std::string rest = decoder->finish();
      a.text += rest;
      std::cout << rest;
    }
    std::cout << std::endl;
    a.decodeWall = wallSince() - a.firstTokenWall;
    return a;
  }
};

std::string answerJson(const Answer &a, const cmdsim::LlmShape &shape, const std::string &chip,
                       const std::string &model) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "\"first_token_ms\":%.6f,\"decode_tokens_per_s\":%.3f,\"wall_first_token_s\":%.6f,"
                "\"wall_decode_tokens_per_s\":%.3f,\"decode_steps\":%lld,\"seq_length\":%lld,\"layers\":%lld",
                a.firstTokenMs, a.tokensPerSecond(), a.firstTokenWall, a.wallTokensPerSecond(),
                static_cast<long long>(a.decodeSteps), static_cast<long long>(shape.seqLength),
                static_cast<long long>(shape.layers));
  return "{\"model\":" + jsonString(model) + ",\"chip\":" + jsonString(chip) + ",\"prompt_ids\":" +
         jsonIds(a.prompt) + ",\"tokens\":" + jsonIds(a.tokens) + ",\"text\":" + jsonString(a.text) +
         ",\"stop\":" + jsonString(a.stop) + "," + buf + "}\n";
}

void printTiming(const Answer &a, const std::string &chip) {
  std::fprintf(stderr,
               "tpuc llm-run: %zu prompt tokens, %zu generated (%s); first token %.3f ms simulated on %s "
               "(%.3f s wall); decode %.2f tokens/s simulated (%.1f tokens/s wall)\n",
               a.prompt.size(), a.tokens.size(), a.stop.c_str(), a.firstTokenMs, chip.c_str(), a.firstTokenWall,
               a.tokensPerSecond(), a.wallTokensPerSecond());
}

/// The prompt of one user turn: the chat template over the conversation when the tokenizer has one.
llvm::Expected<std::vector<int32_t>> encodeTurn(const llm::Tokenizer &tokenizer,
                                                const std::vector<llm::ChatMessage> &conversation,
                                                bool useTemplate) {
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
  if (auto bos = tokenizer.bosTokenId(); bos && !(useTemplate && tokenizer.chatFormat() != llm::ChatFormat::None))
    ids.push_back(*bos);
  for (llm::TokenId id : tokenizer.encode(text))
    ids.push_back(id);
  return ids;
}

} // namespace

int runLlmRun(const LlmRunOptions &o) {
  auto fail = [](int code, const std::string &message) {
    std::cerr << "tpuc llm-run: " << message << std::endl;
    return code;
  };
  std::string error;
  std::string modelPath = resolveModelFile(o.model, error);
  if (modelPath.empty())
    return fail(kExitUsage, error);
  codegen::Model model;
  backend::ChipProfile chip;
  if (!loadModelFile(modelPath, model, chip, error))
    return fail(kExitUsage, error);
  auto runtime = cmdsim::LlmRuntime::create(chip, model);
  if (!runtime)
    return fail(kExitUsage, modelPath + ": " + llvm::toString(runtime.takeError()));
  std::filesystem::path folder = std::filesystem::path(modelPath).parent_path();
  if (folder.empty())
    folder = ".";

  // The tokenizer: --tokenizer, else tokenizer.json beside the model (llm-convert copies it there).
  std::unique_ptr<llm::Tokenizer> tokenizer;
  std::string tokenizerPath = o.tokenizer.empty() ? (folder / "tokenizer.json").string() : o.tokenizer;
  std::error_code ec;
  if (!o.tokenizer.empty() || std::filesystem::exists(tokenizerPath, ec)) {
    auto loaded = llm::Tokenizer::fromFile(tokenizerPath);
    if (!loaded)
      return fail(kExitUsage, llvm::toString(loaded.takeError()));
    tokenizer = std::move(*loaded);
  } else if (o.promptIds.empty()) {
    return fail(kExitUsage, tokenizerPath + ": no tokenizer.json beside the model; pass --tokenizer or --prompt_ids");
  }

  Session session{**runtime, o};
  session.tokenizer = tokenizer.get();
  session.rng.seed(static_cast<uint64_t>(o.seed));
  session.sampling.topK = o.topK;
  session.sampling.temperature = o.temperature;
  session.sampling.topP = o.topP;
  session.sampling.repetitionPenalty = o.repetitionPenalty;
  // Stop tokens: generation_config.json's eos ids (beside the model or the tokenizer), the tokenizer's eos.
  for (const std::filesystem::path &dir :
       {folder, std::filesystem::path(tokenizerPath).parent_path()}) {
    if (!std::filesystem::exists(dir / "generation_config.json", ec))
      continue;
    auto generation = llm::readGenerationConfig((dir / "generation_config.json").string());
    if (!generation)
      return fail(kExitUsage, llvm::toString(generation.takeError()));
    for (int64_t id : generation->eosTokenIds)
      session.stops.insert(static_cast<int32_t>(id));
    break;
  }
  if (tokenizer && tokenizer->eosTokenId())
    session.stops.insert(*tokenizer->eosTokenId());
  const cmdsim::LlmShape &shape = (*runtime)->shape();
  if (o.topK > 1 || o.repetitionPenalty != 1.0) {
    if (!shape.sampleCandidates)
      return fail(kExitUsage, modelPath + ": sampling (--top_k > 1 or --repetition_penalty) needs the 'sample_head' net");
    if (o.topK > shape.sampleCandidates)
      std::cerr << "tpuc llm-run: --top_k " << o.topK << " is wider than the sample head's " << shape.sampleCandidates
                << " candidates; using " << shape.sampleCandidates << std::endl;
  }

  // --output_json and --dump_logits of an answer: "" or the one-line error.
  auto writeAnswer = [&](const Answer &a) -> std::string {
    if (!o.outputJson.empty()) {
      std::ofstream out(o.outputJson);
      out << answerJson(a, shape, chip.name, modelPath);
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
    npz.set("logits", Tensor::fromValues({static_cast<int64_t>(a.tokens.size()), shape.vocab}, a.logits));
    try {
      npz.write(o.dumpLogits);
    } catch (const NpyError &e) {
      return e.what();
    }
    return "";
  };

  if (!o.interactive) {
    std::vector<int32_t> prompt;
    if (!o.promptIds.empty()) {
      if (!parseIds(o.promptIds, prompt, error))
        return fail(kExitUsage, error);
    } else {
      auto encoded = encodeTurn(*tokenizer, {{"user", o.prompt}}, !o.noChatTemplate);
      if (!encoded)
        return fail(kExitUsage, llvm::toString(encoded.takeError()));
      prompt = std::move(*encoded);
    }
    auto a = session.answer(prompt);
    if (!a)
      return fail(kExitFailed, modelPath + ": " + llvm::toString(a.takeError()));
    printTiming(*a, chip.name);
    if (std::string failure = writeAnswer(*a); !failure.empty())
      return fail(kExitUsage, failure);
    return kExitOk;
  }

  // Interactive: one user turn per line until EOF; the conversation stays in the KV cache.
  std::vector<llm::ChatMessage> conversation;
  std::string line;
  std::cerr << "tpuc llm-run: " << shape.layers << " layers, context " << shape.seqLength
            << " tokens; one message per line, end with Ctrl-D" << std::endl;
  while (std::cerr << "> " << std::flush, std::getline(std::cin, line)) {
    if (line.empty())
      continue;
    conversation.push_back({"user", line});
    auto prompt = encodeTurn(*tokenizer, conversation, !o.noChatTemplate);
    if (!prompt)
      return fail(kExitUsage, llvm::toString(prompt.takeError()));
    if (static_cast<int64_t>(prompt->size()) >= shape.seqLength) {
      // The context is full: start over from this turn alone.
      std::cerr << "tpuc llm-run: the conversation exceeds seq_length " << shape.seqLength
                << "; starting over from this message" << std::endl;
      conversation = {conversation.back()};
      prompt = encodeTurn(*tokenizer, conversation, !o.noChatTemplate);
      if (!prompt)
        return fail(kExitUsage, llvm::toString(prompt.takeError()));
    }
    auto a = session.answer(*prompt);
    if (!a)
      return fail(kExitFailed, modelPath + ": " + llvm::toString(a.takeError()));
    printTiming(*a, chip.name);
    conversation.push_back({"assistant", a->text});
    if (std::string failure = writeAnswer(*a); !failure.empty())
      return fail(kExitUsage, failure);
  }
  return kExitOk;
}

} // namespace tpuc::cli
