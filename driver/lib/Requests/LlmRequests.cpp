//===- LlmRequests.cpp - Flags of llm-convert and llm-run -----------------===//
//
// Flags of LLM-TPU's llm_convert.py (short forms included) and of its
// runtime demos.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Driver/Requests.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace tpuc::driver {

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
               "target chip profile (with --dry_run also 'all' or a comma list)", false, {}, std::string(kDefaultChip)},
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
  p.addFlag({{"--no_layer_reuse"},
             "",
             "compile every decoder layer through the backend (default: layers 1.. reuse layer 0's plan)"},
            &o.noLayerReuse);
  p.addFlag(
      {{"--dynamic"},
       "",
       "also compile the prefill for shorter prompts (buckets of max_input_length/2, /4, ... down to 16 "
       "tokens); a prompt runs in the smallest bucket that holds it"},
      &o.dynamic);
  p.addOption({{"--buckets"}, "N,N,...", "the --dynamic bucket lengths, each below max_input_length"},
              &o.buckets);
  p.addOption({{"--progress"}, "FMT", "progress reports", false,
               {"none", "json", "text"}, "none"},
              &o.progress);
}

std::optional<std::vector<int64_t>> parseBucketList(const std::string &text) {
  std::vector<int64_t> lengths;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = std::min(text.find(',', start), text.size());
    std::string part = text.substr(start, comma - start);
    if (part.empty() || part.size() > 9 || part.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    lengths.push_back(std::stoll(part));
    if (lengths.back() <= 0)
      return std::nullopt;
    start = comma + 1;
  }
  return lengths;
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
  if (!o.buckets.empty()) {
    auto lengths = parseBucketList(o.buckets);
    if (!lengths)
      return "'--buckets' expects prompt lengths separated by commas (e.g. 32,128), got '" + o.buckets + "'";
    // max_input_length after llm_convert's defaulting (a chunk with --use_history_kv).
    int64_t prefill = o.maxInputLength  ? o.maxInputLength
                      : !o.useHistoryKv ? o.seqLength
                      : o.chunkLength   ? o.chunkLength
                                        : o.seqLength / 4;
    for (int64_t b : *lengths)
      if (b >= prefill)
        return "'--buckets': " + std::to_string(b) + " is not below the max input length (" +
               std::to_string(prefill) + ")";
  }
  return "";
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
  p.addFlag({{"--serve"},
             "",
             "chat over JSON lines: requests on stdin, token and timing events on stdout (docs/LLM.md)"},
            &o.serve);
  p.addOption(
      {{"--image"},
       "FILE",
       "a vision-language model's image: a picture (resized to the vit's size, ImageNet mean and std) or "
       "a .npy/.npz pixel tensor; --prompt gets the image tokens before its text"},
      &o.image);
  p.addOption({{"--prompt_ids"}, "IDS", "the prompt as comma-separated token ids (no tokenizer needed)"},
              &o.promptIds);
  p.addOption({{"--seed"}, "N", "seed of the sampling draws", false, {}, "42"}, &o.seed);
  p.addFlag({{"--no_chat_template"}, "", "feed the prompt as it is (no chat template)"}, &o.noChatTemplate);
  p.addFlag({{"--no_kv_cache"}, "",
             "recompute the whole sequence through the prefill stages at every step (checks the KV cache)"},
            &o.noKvCache);
  p.addOption({{"--output_json"}, "FILE", "write prompt and answer token ids, text and timing as JSON"},
              &o.outputJson);
  p.addOption({{"--dump_logits"}, "FILE",
               "write the answer's prompt_ids, tokens and logits [tokens, vocab] (what each token was chosen from) as npz"},
              &o.dumpLogits);
}

std::string validateLlmRunOptions(const LlmRunOptions &o) {
  int sources = !o.prompt.empty() + !o.promptIds.empty() + o.interactive + o.serve;
  if (sources != 1)
    return "exactly one of '--prompt', '--prompt_ids', '--interactive' or '--serve' is required";
  if ((o.interactive || o.serve) && o.noKvCache)
    return "'--no_kv_cache' works with one prompt only";
  if (!o.image.empty() && o.serve)
    return "'--image' works with --prompt, --prompt_ids or --interactive";
  return validateLlmGeneration(o.maxNewTokens, o.temperature, o.topK, o.topP, o.repetitionPenalty);
}

std::string validateLlmGeneration(int64_t maxNewTokens, double temperature, int64_t topK, double topP,
                                  double repetitionPenalty) {
  if (maxNewTokens <= 0)
    return "'--max_new_tokens' must be positive";
  if (!(temperature > 0) || !std::isfinite(temperature))
    return "'--temperature' must be positive";
  if (topK < 1)
    return "'--top_k' must be at least 1";
  if (!(topP > 0 && topP <= 1))
    return "'--top_p' must be in (0, 1]";
  if (!(repetitionPenalty > 0) || !std::isfinite(repetitionPenalty))
    return "'--repetition_penalty' must be positive";
  return "";
}

} // namespace tpuc::driver
