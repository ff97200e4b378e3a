//===- LlmCommands.cpp - llm-convert and llm-run --------------------------===//
//
// Flags of LLM-TPU's llm_convert.py (short forms included) and of its
// runtime demos.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "tpuc/Driver/DeployStages.h"
#include "tpuc/Driver/LlmSession.h"
#include "tpuc/Driver/Results.h"
#include "tpuc/Driver/TopModule.h"

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
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>

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
  c.dynamic = o.dynamic || !o.buckets.empty();
  if (!o.buckets.empty())
    c.buckets = driver::parseBucketList(o.buckets).value_or(std::vector<int64_t>{});
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

/// A decoder layer's stage name split into its kind ("block_", "block_cache_", "block_kv_", or a --dynamic
/// bucket's "block_len64_", "block_kv_len64_") and layer.
std::optional<std::pair<std::string, int64_t>> layerStage(const std::string &name) {
  size_t last = name.rfind('_');
  if (name.compare(0, 6, "block_") != 0 || last == std::string::npos || last + 1 >= name.size() ||
      name.find_first_not_of("0123456789", last + 1) != std::string::npos)
    return std::nullopt;
  return std::pair{name.substr(0, last + 1), std::stoll(name.substr(last + 1))};
}

/// Every stage lowered (decoder layers keep their top.a16matmul weight-only weights; everything runs in
/// the half precision of -q, F32 for f32), through the backend (layer groups, addresses, codegen), and
/// all of them combined into one model file whose nets are the stages: weights that several stages share
/// (a layer's block_i, block_cache_i and block_kv_i) are stored once. The decoder layers all have the
/// same shapes, so only the first layer's stages go through the backend; the others reuse its plan and
/// command streams with their own weights (reuseCompiledStage). Each stage's weights go to the file as it
/// is compiled (ModelFileWriter), so memory holds one stage's weights at a time. Returns the exit code.
int compileStages(mlir::MLIRContext &context, const LlmConvertOptions &o, const llm::ConvertResult &result,
                  ProgressReporter &progress, driver::LlmConvertResult &record) {
  auto fail = [&](const std::string &message) {
    std::cerr << "tpuc llm-convert: " << message << std::endl;
    record.message = message;
    return kExitFailed;
  };
  LoweringOptions lowering;
  lowering.chip = o.chip;
  const std::string &q = result.plan.quantize;
  lowering.mode = q == "f32" ? top::Precision::F32
                  : q.ends_with("f16") && !q.ends_with("bf16") ? top::Precision::F16
                                                                : top::Precision::BF16;
  lowering.qGroupSize = result.plan.groupSize;
  // The first compiled stage of each layer kind: its model (weights dropped), weight names and layer.
  struct Template {
    codegen::Model model;
    std::vector<std::string> weightNames;
    int64_t layer = 0;
  };
  std::map<std::string, Template> templates;
  uint64_t separate = 0;
  size_t reused = 0;
  std::string path = combinedModelPath(o, result.plan);
  auto start = std::chrono::steady_clock::now();
  try {
    codegen::ModelFileWriter writer(path);
    for (size_t i = 0; i < result.stages.size(); ++i) {
      const llm::StageFile &stage = result.stages[i];
      progress.report("llm-convert", double(i) / double(result.stages.size()), "compiling " + stage.name);
      auto loaded = loadTopModule(context, stage.mlirPath);
      if (!loaded)
        return fail(llvm::toString(loaded.takeError()));
      mlir::OwningOpRef<mlir::ModuleOp> top = std::move(*loaded);
      auto lowered = lowerCopy(*top, lowering);
      if (!lowered)
        return fail(stage.mlirPath + ": " + llvm::toString(lowered.takeError()));
      mlir::OwningOpRef<mlir::ModuleOp> tpu = std::move(*lowered);
      top = nullptr;
      // The backend reads the lowered weights from a file; it is scratch unless --debug keeps it.
      std::string weights = (std::filesystem::path(o.outDir) / (stage.name + "_tpu_weight.npz")).string();
      if (mlir::failed(top::saveWeights(*tpu, weights)))
        return fail(weights + ": cannot write the Tpu weights");
      // Saved: the Top weights (a 7B's f32 embedding table is 2.2 GB) and the lowered ones leave memory;
      // codegen reads the Tpu weight file.
      top::clearWeightCache();
      std::optional<codegen::Model> model;
      auto layer = layerStage(stage.name);
      auto found = layer ? templates.find(layer->first) : templates.end();
      if (found != templates.end() && !o.noLayerReuse && !o.debug) {
        const Template &t = found->second;
        auto from = "model.layers." + std::to_string(t.layer) + ".";
        auto to = "model.layers." + std::to_string(layer->second) + ".";
        auto reuse = reuseCompiledStage(*tpu, t.model, t.weightNames, stage.name, from, to);
        if (reuse) {
          model = std::move(*reuse);
          ++reused;
        } else {
          // Not the same structure after all: this stage goes through the backend.
          std::cerr << "tpuc llm-convert: " << stage.name << ": " << llvm::toString(reuse.takeError())
                    << "; compiling it" << std::endl;
        }
      }
      if (!model) {
        BackendOptions backend;
        backend.chip = o.chip;
        backend.netName = stage.name;
        if (o.debug)
          backend.planJsonPath = (std::filesystem::path(o.outDir) / (stage.name + "_plan.json")).string();
        if (auto err = runBackend(*tpu, backend))
          return fail(stage.name + ": " + llvm::toString(std::move(err)));
        std::vector<std::string> weightNames;
        auto generated = generateModel(*tpu, stage.name, &weightNames);
        if (!generated)
          return fail(stage.name + ": " + llvm::toString(generated.takeError()));
        model = std::move(*generated);
        if (layer && !templates.count(layer->first)) {
          Template t{*model, std::move(weightNames), layer->second};
          t.model.coeffData.clear();
          t.model.coeffData.shrink_to_fit();
          templates.emplace(layer->first, std::move(t));
        }
      }
      separate += model->coeffData.size();
      writer.add(*model);
      model.reset();
      tpu = nullptr;
      top::clearWeightCache();
      if (!o.debug) {
        std::error_code ec;
        std::filesystem::remove(weights, ec);
      }
    }
    progress.report("llm-convert", 0.99, "writing " + std::to_string(writer.netCount()) + " nets");
    uint64_t coeffBytes = writer.coeffBytes();
    size_t nets = writer.netCount();
    writer.finish();
    // What llm-run reads beside the model: the tokenizer, its chat template and the stop tokens.
    for (const char *name : {"config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json"}) {
      std::filesystem::path from = std::filesystem::path(o.modelPath) / name, to = std::filesystem::path(o.outDir) / name;
      std::error_code ec;
      if (std::filesystem::exists(from, ec) && !std::filesystem::equivalent(from.parent_path(), to.parent_path(), ec))
        std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing, ec);
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    char line[320];
    std::snprintf(
        line, sizeof line,
        "%s: %zu nets, weights %.2f MiB (%.2f MiB before sharing), compiled in %.1f s (%zu layer stages "
        "reused the first layer's plan)",
        path.c_str(), nets, double(coeffBytes) / 1048576.0, double(separate) / 1048576.0, seconds, reused);
    std::cout << line << std::endl;
    record.modelFile = path;
    record.nets = static_cast<int64_t>(nets);
    record.weightBytes = static_cast<int64_t>(coeffBytes);
    record.weightBytesBeforeSharing = static_cast<int64_t>(separate);
    record.compileSeconds = seconds;
    progress.report("llm-convert", 1.0, line, {path});
  } catch (const codegen::ModelFileError &e) {
    return fail(e.what());
  }
  return kExitOk;
}

/// The conversion; every failure is printed and kept in `record.message`.
int convert(const LlmConvertOptions &o, driver::LlmConvertResult &record) {
  try {
    backend::findChipProfile(o.chip);
  } catch (const backend::ProfileError &e) {
    std::cerr << "tpuc llm-convert: " << e.what() << std::endl;
    record.message = e.what();
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
    record.message = llvm::toString(result.takeError());
    std::cerr << "tpuc llm-convert: " << record.message << std::endl;
    return kExitUsage;
  }
  record.quantize = result->plan.quantize;
  std::vector<std::string> artifacts;
  for (const llm::StageFile &stage : result->stages)
    artifacts.push_back(stage.mlirPath);
  record.stages = artifacts;
  progress.report("llm-convert", o.onlyMlir ? 1.0 : 0.0,
                  "wrote " + std::to_string(result->stages.size()) + " Top stages to " + o.outDir, artifacts);
  if (o.onlyMlir)
    return kExitOk;
  return compileStages(context, o, *result, progress, record);
}

} // namespace

int runLlmConvert(const LlmConvertOptions &o) {
  if (o.dryRun)
    return printPlan(o);
  driver::LlmConvertResult record;
  record.model = o.modelPath;
  record.chip = o.chip;
  record.quantize = o.quantize;
  record.exitCode = convert(o, record);
  record.status = driver::resultStatus(record.exitCode);
  // The record the studio reads (llmConvertResultPath), in the output folder when there is one.
  std::error_code ec;
  if (!std::filesystem::is_directory(o.outDir, ec))
    return record.exitCode;
  return writeResultRecord("llm-convert", driver::llmConvertResultPath(o), driver::toJson(record),
                           record.exitCode);
}

namespace {

void printTiming(const driver::LlmAnswer &a, const std::string &chip) {
  std::fprintf(stderr,
               "tpuc llm-run: %zu prompt tokens, %zu generated (%s); first token %.3f ms simulated on %s "
               "(%.3f s wall); decode %.2f tokens/s simulated (%.1f tokens/s wall)\n",
               a.prompt.size(), a.tokens.size(), a.stop.c_str(), a.firstTokenMs, chip.c_str(), a.firstTokenWall,
               a.tokensPerSecond(), a.wallTokensPerSecond());
}

} // namespace

// The session is TpucDriver's (tpuc/Driver/LlmSession.h); here the prompt is read, the answer streamed to
// stdout and timed on stderr, and errors become one line and the exit code.
int runLlmRun(const LlmRunOptions &o) {
  auto fail = [](int code, const std::string &message) {
    std::cerr << "tpuc llm-run: " << message << std::endl;
    return code;
  };
  std::vector<std::string> warnings;
  auto opened = driver::LlmSession::open(o, &warnings);
  if (!opened)
    return fail(kExitUsage, llvm::toString(opened.takeError()));
  driver::LlmSession &session = **opened;
  for (const std::string &warning : warnings)
    std::cerr << "tpuc llm-run: " << warning << std::endl;
  driver::Sink sink = consoleSink();
  const std::string &modelPath = session.modelPath();

  if (!o.image.empty()) {
    double visionMs = 0;
    if (llvm::Error err = session.attachImage(o.image, &visionMs))
      return fail(kExitUsage, llvm::toString(std::move(err)));
    std::fprintf(stderr, "tpuc llm-run: image %s: %lld image tokens from the vit net, %.3f ms simulated\n",
                 o.image.c_str(), static_cast<long long>(session.shape().imageTokens), visionMs);
  }
  const std::string imageText = o.image.empty() ? std::string() : session.imagePlaceholder();

  if (!o.interactive && !o.serve) {
    std::vector<int32_t> prompt;
    if (!o.promptIds.empty()) {
      auto ids = driver::parsePromptIds(o.promptIds);
      if (!ids)
        return fail(kExitUsage, llvm::toString(ids.takeError()));
      prompt = std::move(*ids);
    } else {
      auto encoded = session.encodeTurn({{"user", imageText + o.prompt}}, !o.noChatTemplate);
      if (!encoded)
        return fail(kExitUsage, llvm::toString(encoded.takeError()));
      prompt = std::move(*encoded);
    }
    auto a = session.answer(prompt, sink);
    if (!a)
      return fail(kExitFailed, modelPath + ": " + llvm::toString(a.takeError()));
    printTiming(*a, session.chipName());
    if (std::string failure = session.writeAnswer(*a); !failure.empty())
      return fail(kExitUsage, failure);
    return kExitOk;
  }

  if (o.serve) {
    // JSON lines both ways; each event is flushed as it happens so the studio streams the tokens.
    driver::serveLlm(
        session, std::cin, [](const std::string &line) { std::cout << line << '\n'
                                                                   << std::flush; },
        !o.noChatTemplate);
    return kExitOk;
  }

  // Interactive: one user turn per line until EOF; the conversation stays in the KV cache.
  const cmdsim::LlmShape &shape = session.shape();
  std::vector<llm::ChatMessage> conversation;
  std::string line;
  std::cerr << "tpuc llm-run: " << shape.layers << " layers, context " << shape.seqLength
            << " tokens; one message per line, end with Ctrl-D" << std::endl;
  while (std::cerr << "> " << std::flush, std::getline(std::cin, line)) {
    if (line.empty())
      continue;
    // The image goes with the first message.
    conversation.push_back({"user", (conversation.empty() ? imageText : std::string()) + line});
    auto prompt = session.encodeTurn(conversation, !o.noChatTemplate);
    if (!prompt)
      return fail(kExitUsage, llvm::toString(prompt.takeError()));
    if (static_cast<int64_t>(prompt->size()) >= shape.seqLength) {
      // The context is full: start over from this turn alone.
      std::cerr << "tpuc llm-run: the conversation exceeds seq_length " << shape.seqLength
                << "; starting over from this message" << std::endl;
      conversation = {conversation.back()};
      prompt = session.encodeTurn(conversation, !o.noChatTemplate);
      if (!prompt)
        return fail(kExitUsage, llvm::toString(prompt.takeError()));
    }
    auto a = session.answer(*prompt, sink);
    if (!a)
      return fail(kExitFailed, modelPath + ": " + llvm::toString(a.takeError()));
    printTiming(*a, session.chipName());
    conversation.push_back({"assistant", a->text});
    if (std::string failure = session.writeAnswer(*a); !failure.empty())
      return fail(kExitUsage, failure);
  }
  return kExitOk;
}

} // namespace tpuc::cli
