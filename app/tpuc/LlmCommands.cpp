//===- LlmCommands.cpp - llm-convert and llm-run --------------------------===//
//
// Flags of LLM-TPU's llm_convert.py (short forms included) and of its
// runtime demos.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "tpuc/Backend/ChipProfile.h"
#include "tpuc/LLM/DryRun.h"
#include "tpuc/LLM/LlmConvert.h"

#include "mlir/IR/MLIRContext.h"

#include <cstdio>
#include <fstream>
#include <iostream>

namespace tpuc::cli {

void addLlmConvertOptions(ArgParser &p, LlmConvertOptions &o) {
  p.addOption({{"-m", "--model_path"}, "DIR",
               "HuggingFace checkpoint directory (config.json, safetensors)",
               true},
              &o.modelPath);
  p.addOption({{"-s", "--seq_length"}, "N",
               "maximum sequence length (KV cache size)", true},
              &o.seqLength);
  p.addOption({{"-q", "--quantize"},
               "MODE",
               "precision of the weights and activations",
               true,
               {"bf16", "f16", "f32", "w8bf16", "w4bf16", "w8f16", "w4f16"}},
              &o.quantize);
  p.addOption({{"-g", "--q_group_size"}, "N",
               "weight-only quantization group size (0 = per channel)", false,
               {}, "64"},
              &o.qGroupSize);
  p.addFlag({{"--symmetric"}, "", "symmetric weight quantization"},
            &o.symmetric);
  // Any profile in resources/chips (or $TPUC_CHIP_DIR) is a chip: the name is checked when it is loaded.
  p.addOption({{"-c", "--chip"}, "CHIP",
               "target chip profile (with --dry_run also 'all' or a comma list)", false, {}, "bm1684x"},
              &o.chip);
  p.addFlag({{"--use_history_kv"}, "",
             "also compile block_kv stages (chunked prefill with history)"},
            &o.useHistoryKv);
  p.addOption({{"--chunk_length"}, "N",
               "prefill chunk length with --use_history_kv (0 = "
               "max_input_length)",
               false, {}, "0"},
              &o.chunkLength);
  p.addOption({{"--max_input_length"}, "N",
               "longest prompt one prefill takes (0 = seq_length)", false, {},
               "0"},
              &o.maxInputLength);
  p.addOption({{"-o", "--out_dir"}, "DIR", "output directory", true},
              &o.outDir);
  p.addFlag({{"--only_mlir"}, "", "stop after writing the MLIR files"},
            &o.onlyMlir);
  p.addFlag({{"--dry_run"}, "",
             "from config.json alone: stages, memory per chip, predicted latency; then exit"},
            &o.dryRun);
  p.addOption({{"--dry_run_json"}, "FILE", "with --dry_run: also write the report as JSON"},
              &o.dryRunJson);
  p.addFlag({{"--debug"}, "", "keep intermediate files"}, &o.debug);
  p.addOption({{"--progress"}, "FMT", "progress reports", false,
               {"none", "json", "text"}, "none"},
              &o.progress);
}

std::string validateLlmConvertOptions(const LlmConvertOptions &o) {
  if (o.seqLength <= 0)
    return "'--seq_length' must be positive";
  if (o.qGroupSize < 0)
    return "'--q_group_size' must not be negative";
  if (o.maxInputLength < 0 || o.maxInputLength > o.seqLength)
    return "'--max_input_length' must be between 0 and --seq_length (" +
           std::to_string(o.seqLength) + ")";
  if (o.chunkLength < 0)
    return "'--chunk_length' must not be negative";
  if (o.chunkLength > 0 && !o.useHistoryKv)
    return "'--chunk_length' needs '--use_history_kv'";
  // llm_convert's rule: a chunk is at most half the context, so history and chunk both fit.
  if (o.chunkLength > o.seqLength / 2)
    return "'--chunk_length' (" + std::to_string(o.chunkLength) +
           ") must not exceed half of --seq_length (" + std::to_string(o.seqLength / 2) + ")";
  if (!o.dryRunJson.empty() && !o.dryRun)
    return "'--dry_run_json' needs '--dry_run'";
  int64_t maxInput = o.maxInputLength ? o.maxInputLength : o.seqLength;
  if (o.chunkLength > maxInput)
    return "'--chunk_length' must not exceed the max input length (" +
           std::to_string(maxInput) + ")";
  return "";
}

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
  progress.report("llm-convert", 1.0,
                  "wrote " + std::to_string(result->stages.size()) + " Top stages to " + o.outDir, artifacts);
  if (o.onlyMlir)
    return kExitOk;
  // Lowering the stages and compiling them into one model file is the backend's job.
  return notImplemented("llm-convert (compiling the Top stages into a model file)");
}

void addLlmRunOptions(ArgParser &p, LlmRunOptions &o) {
  p.addOption({{"--model"}, "PATH", "compiled LLM (model file or directory)",
               true},
              &o.model);
  p.addOption({{"--tokenizer"}, "DIR",
               "tokenizer directory (default: next to the model)"},
              &o.tokenizer);
  p.addOption({{"--prompt"}, "TEXT", "prompt to complete"}, &o.prompt);
  p.addOption({{"--max_new_tokens"}, "N", "most tokens to generate", false, {},
               "128"},
              &o.maxNewTokens);
  p.addOption({{"--temperature"}, "T", "sampling temperature", false, {},
               "1.0"},
              &o.temperature);
  p.addOption({{"--top_k"}, "K", "sample from the K most likely tokens (1 = "
               "greedy)", false, {}, "1"},
              &o.topK);
  p.addOption({{"--top_p"}, "P", "nucleus sampling probability mass", false,
               {}, "1.0"},
              &o.topP);
  p.addOption({{"--repetition_penalty"}, "R",
               "penalty for tokens already generated", false, {}, "1.0"},
              &o.repetitionPenalty);
  p.addFlag({{"--interactive"}, "", "chat on stdin until EOF"},
            &o.interactive);
}

std::string validateLlmRunOptions(const LlmRunOptions &o) {
  if (o.prompt.empty() && !o.interactive)
    return "one of '--prompt' or '--interactive' is required";
  if (o.maxNewTokens <= 0)
    return "'--max_new_tokens' must be positive";
  if (!(o.temperature > 0))
    return "'--temperature' must be positive";
  if (o.topK < 1)
    return "'--top_k' must be at least 1";
  if (!(o.topP > 0 && o.topP <= 1))
    return "'--top_p' must be in (0, 1]";
  if (!(o.repetitionPenalty > 0))
    return "'--repetition_penalty' must be positive";
  return "";
}

int runLlmRun(const LlmRunOptions &) { return notImplemented("llm-run"); }

} // namespace tpuc::cli
