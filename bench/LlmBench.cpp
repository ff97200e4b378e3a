//===- LlmBench.cpp - LLM path figures next to their goals ----------------===//
//
// 1. --dry_run's predicted decode tokens/s of Qwen2-7B w4bf16 on bm1684x (from its public config alone)
//    next to the published ~12.4 tokens/s of LLM-TPU's Qwen-7B on BM1684X, with the ratio (goal ±30%).
// 2. `tpuc llm-convert` (Top IR, lowering, backend, one combined model file) of a random Qwen2-0.5B-shaped
//    checkpoint (24 layers, seq 512, --use_history_kv, w4bf16), written by make_tiny_llm.py: wall time
//    and peak RSS of the child (goal <= 5 min, <= 8 GB).
// 3. Wall time per decode token of a tiny model chained through the reference interpreter
//    (embedding_cache -> block_cache_i -> lm_head -> greedy_head).
// 4. `tpuc llm-run` on the command-level simulator: the tiny model compiled (bf16, seq 64; goal >= 20
//    decode tokens/s wall) and the model file of figure 2; simulated first token and decode tokens/s
//    next to the wall figures, from --output_json.
// --smoke uses tiny sizes for all (ctest label bench).
//
//===----------------------------------------------------------------------===//

#include "tpuc/Dialect/Top/TopDialect.h"
#include "tpuc/LLM/DryRun.h"
#include "tpuc/LLM/LlmConvert.h"
#include "tpuc/Simulator/Interpreter.h"
#include "tpuc/Simulator/ReferenceKernels.h"
#include "tpuc/Testing/ChildProcess.h"
#include "tpuc/Testing/TestAssets.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace tpuc;

double seconds(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

using testsupport::ChildResult;
using testsupport::runChild;

/// 1: the dry run's decode speed next to the published figure.
bool dryRunFigure(const std::string &configDir) {
  constexpr double kPublished = 12.4; // tokens/s, LLM-TPU Qwen-7B on BM1684X
  auto config = llm::readModelConfig(configDir);
  if (!config) {
    std::fprintf(stderr, "bench-llm: %s\n", llvm::toString(config.takeError()).c_str());
    return false;
  }
  llm::ConvertOptions options;
  options.seqLength = 512;
  options.quantize = "w4bf16";
  options.qGroupSize = 64;
  auto plan = llm::planConversion(*config, options);
  if (!plan) {
    std::fprintf(stderr, "bench-llm: %s\n", llvm::toString(plan.takeError()).c_str());
    return false;
  }
  auto start = Clock::now();
  auto report = llm::dryRun(*config, *plan, "bm1684x");
  if (!report) {
    std::fprintf(stderr, "bench-llm: %s\n", llvm::toString(report.takeError()).c_str());
    return false;
  }
  const llm::ChipDryRun &chip = report->chips.front();
  double predicted = chip.decodeTokensPerSecond(), ratio = predicted / kPublished;
  std::printf("1. dry run, %s w4bf16 g64 on bm1684x, seq 512 (%.2f s)\n", config->architecture.c_str(),
              seconds(start));
  std::printf("   %-28s %12s %12s %8s %s\n", "", "predicted", "published", "ratio", "goal");
  std::printf("   %-28s %12.2f %12.2f %8.2f %s\n", "decode tokens/s", predicted, kPublished, ratio,
              ratio >= 0.7 && ratio <= 1.3 ? "within ±30%" : "outside ±30% (docs/LLM.md)");
  std::printf("   %-28s %12.1f %12.1f %8.2f\n", "first token ms (512 tokens)", chip.firstTokenMs, 680.0,
              chip.firstTokenMs / 680.0);
  std::printf("   memory %.2f GiB of %.2f GiB DDR: %s\n", double(chip.memory.totalBytes()) / (1 << 30),
              double(chip.memory.ddrBytes) / (1 << 30), chip.memory.fits() ? "fits" : "does not fit");
  return true;
}

/// Writes a random checkpoint with make_tiny_llm.py.
bool makeCheckpoint(const std::string &script, const std::string &out, const std::vector<std::string> &shape) {
  std::vector<std::string> argv = {"/usr/bin/python3", script, "--family", "qwen2", "--out", out,
                                   "--new_tokens", "1", "--prompt_len", "4"};
  argv.insert(argv.end(), shape.begin(), shape.end());
  ChildResult r = runChild(argv, out + ".log");
  if (r.status != 0)
    std::fprintf(stderr, "bench-llm: make_tiny_llm.py failed (see %s.log)\n", out.c_str());
  return r.status == 0;
}

/// 2: llm-convert of a Qwen2-0.5B-shaped checkpoint.
bool convertFigure(const std::string &tpuc, const std::string &script, const std::string &work, bool smoke) {
  std::vector<std::string> shape = {"--layers", "24",   "--hidden", "896",    "--heads", "14",
                                    "--kv_heads", "2",  "--inter",  "4864",   "--vocab", "151936", "--tie"};
  std::string seq = "512";
  if (smoke) {
    shape = {"--layers", "2", "--hidden", "64", "--heads", "4", "--kv_heads", "2", "--inter", "128"};
    seq = "32";
  }
  std::string model = work + "/qwen2";
  auto start = Clock::now();
  if (!makeCheckpoint(script, model, shape))
    return false;
  double generate = seconds(start);
  ChildResult r = runChild({tpuc, "llm-convert", "-m", model, "-s", seq, "-q", "w4bf16", "--use_history_kv", "-o",
                            work + "/converted"},
                           work + "/convert.log");
  double gb = double(r.peakRssKb) / (1024.0 * 1024.0);
  std::printf("2. llm-convert (compiled to one model file), Qwen2%s (%s layers), seq %s, --use_history_kv, w4bf16 "
              "(checkpoint written in %.1f s)\n",
              smoke ? " tiny" : "-0.5B-shaped", shape[1].c_str(), seq.c_str(), generate);
  std::printf("   %-28s %12.1f %12s %s\n", "wall time s", r.seconds, "<= 300",
              r.seconds <= 300 ? "ok" : "over");
  std::printf("   %-28s %12.2f %12s %s\n", "peak RSS GB", gb, "<= 8", gb <= 8 ? "ok" : "over");
  if (r.status != 0)
    std::fprintf(stderr, "bench-llm: tpuc llm-convert exited %d (see %s/convert.log)\n", r.status, work.c_str());
  return r.status == 0;
}

/// 3: decode steps of a tiny model chained on the reference interpreter.
bool decodeFigure(const std::string &script, const std::string &work, int tokens) {
  std::string model = work + "/tiny";
  if (!makeCheckpoint(script, model, {"--layers", "2", "--hidden", "64", "--heads", "4", "--kv_heads", "2"}))
    return false;
  mlir::DialectRegistry registry;
  registry.insert<top::TopDialect, mlir::func::FuncDialect>();
  sim::registerTopReferenceKernels(registry);
  mlir::MLIRContext context(registry);
  llm::ConvertOptions options;
  options.modelPath = model;
  options.outDir = work + "/tiny_out";
  options.seqLength = 64;
  options.quantize = "w4bf16";
  options.qGroupSize = 32;
  auto converted = llm::convertToTop(context, options);
  if (!converted) {
    std::fprintf(stderr, "bench-llm: %s\n", llvm::toString(converted.takeError()).c_str());
    return false;
  }
  const llm::ModelConfig &c = converted->config;
  int64_t seq = converted->plan.seqLength, kvWidth = c.numKeyValueHeads * c.headDim;
  std::map<std::string, mlir::OwningOpRef<mlir::ModuleOp>> modules;
  std::map<std::string, std::unique_ptr<sim::Interpreter>> interpreters;
  auto run = [&](const std::string &name, const std::vector<Tensor> &inputs) -> std::vector<Tensor> {
    auto &slot = interpreters[name];
    if (!slot) {
      modules[name] = mlir::parseSourceFile<mlir::ModuleOp>(options.outDir + "/" + name + ".mlir", &context);
      slot = std::make_unique<sim::Interpreter>(*modules[name]);
    }
    for (size_t i = 0; i < inputs.size(); ++i)
      if (auto err = slot->setInput(i, inputs[i]))
        llvm::consumeError(std::move(err));
    if (auto err = slot->run()) {
      std::fprintf(stderr, "bench-llm: %s: %s\n", name.c_str(), llvm::toString(std::move(err)).c_str());
      return {};
    }
    std::vector<Tensor> out;
    for (const std::string &n : slot->outputs().names())
      out.push_back(slot->outputs().get(n));
    return out;
  };
  std::vector<std::vector<float>> cacheK(c.numHiddenLayers, std::vector<float>(seq * kvWidth, 0.0f)), cacheV = cacheK;
  int32_t token = 1;
  auto step = [&](int64_t position) -> bool {
    auto x = run("embedding_cache", {Tensor::fromValues<int32_t>({1, 1}, {token})});
    if (x.empty())
      return false;
    std::vector<float> mask(seq + 1, -10000.0f);
    for (int64_t j = 0; j < position; ++j)
      mask[j] = 0.0f;
    mask[seq] = 0.0f;
    Tensor hidden = x[0];
    for (int64_t l = 0; l < c.numHiddenLayers; ++l) {
      auto out = run("block_cache_" + std::to_string(l),
                     {hidden, Tensor::fromValues<int32_t>({1, 1}, {static_cast<int32_t>(position)}),
                      Tensor::fromValues<float>({1, 1, 1, seq + 1}, mask),
                      Tensor::fromValues<float>({1, seq, c.numKeyValueHeads, c.headDim}, cacheK[l]),
                      Tensor::fromValues<float>({1, seq, c.numKeyValueHeads, c.headDim}, cacheV[l])});
      if (out.size() != 3)
        return false;
      hidden = out[0];
      auto k = out[1].values<float>(), v = out[2].values<float>();
      std::copy(k.begin(), k.end(), cacheK[l].begin() + position * kvWidth);
      std::copy(v.begin(), v.end(), cacheV[l].begin() + position * kvWidth);
    }
    auto logits = run("lm_head", {Tensor::fromValues<float>({1, c.hiddenSize},
                                                            std::vector<float>(hidden.values<float>().begin(),
                                                                               hidden.values<float>().end()))});
    if (logits.empty())
      return false;
    auto next = run("greedy_head", {logits[0]});
    if (next.empty())
      return false;
    token = static_cast<int32_t>(next[0].valueAsDouble(0));
    return true;
  };
  if (!step(0)) // first step parses the stages and fills the op caches
    return false;
  tokens = static_cast<int>(std::min<int64_t>(tokens, seq - 1));
  auto start = Clock::now();
  for (int t = 1; t <= tokens; ++t)
    if (!step(t))
      return false;
  double perToken = seconds(start) / tokens;
  std::printf("3. decode on the reference interpreter, tiny Qwen2 (%lld layers, hidden %lld, w4bf16), %d tokens\n",
              static_cast<long long>(c.numHiddenLayers), static_cast<long long>(c.hiddenSize), tokens);
  std::printf("   %-28s %12.2f %12s\n", "ms per token", perToken * 1e3, "");
  std::printf("   %-28s %12.1f %12s %s\n", "tokens/s", 1.0 / perToken, ">= 20", 1.0 / perToken >= 20 ? "ok" : "under");
  return true;
}

/// The one .tpum file in `dir` ("" when there is none).
std::string modelFileIn(const std::string &dir) {
  std::error_code ec;
  for (const auto &entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".tpum")
      return entry.path().string();
  return "";
}

/// A number field of a flat JSON object (llm-run's --output_json); NaN when absent.
double jsonNumber(const std::string &text, const std::string &key) {
  size_t at = text.find("\"" + key + "\":");
  if (at == std::string::npos)
    return std::nan("");
  return std::strtod(text.c_str() + at + key.size() + 3, nullptr);
}

/// 4: llm-run of a compiled model; false when it fails.
bool runFigure(const std::string &tpuc, const std::string &label, const std::string &modelDir, int tokens,
               const std::string &work, bool goal) {
  std::string model = modelFileIn(modelDir);
  if (model.empty()) {
    std::fprintf(stderr, "bench-llm: no model file in %s\n", modelDir.c_str());
    return false;
  }
  std::string json = work + "/" + label + "_run.json";
  ChildResult r = runChild({tpuc, "llm-run", "--model", model, "--prompt_ids", "1,2,3,4,5,6,7,8",
                            "--max_new_tokens", std::to_string(tokens), "--output_json", json},
                           work + "/" + label + "_run.log");
  if (r.status != 0) {
    std::fprintf(stderr, "bench-llm: tpuc llm-run exited %d (see %s/%s_run.log)\n", r.status, work.c_str(),
                 label.c_str());
    return false;
  }
  std::ifstream in(json);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  double wall = jsonNumber(text, "wall_decode_tokens_per_s");
  std::printf("   %-28s %9.3f ms %10.3f s\n", (label + " first token").c_str(),
              jsonNumber(text, "first_token_ms"), jsonNumber(text, "wall_first_token_s"));
  std::printf("   %-28s %12.1f %12.1f %s\n", (label + " decode tokens/s").c_str(),
              jsonNumber(text, "decode_tokens_per_s"), wall,
              goal ? (wall >= 20 ? ">= 20 wall: ok" : ">= 20 wall: under") : "");
  std::printf("   %-28s %12s %10.2f GB\n", (label + " peak RSS").c_str(), "", double(r.peakRssKb) / (1024.0 * 1024.0));
  return true;
}

bool llmRunFigures(const std::string &tpuc, const std::string &script, const std::string &work, int tokens,
                   bool smoke) {
  std::string tiny = work + "/run_tiny";
  if (!makeCheckpoint(script, tiny, {"--layers", "2", "--hidden", "64", "--heads", "4", "--kv_heads", "2"}))
    return false;
  ChildResult r = runChild({tpuc, "llm-convert", "-m", tiny, "-s", "64", "-q", "bf16", "-o", work + "/run_tiny_out"},
                           work + "/run_tiny_convert.log");
  if (r.status != 0) {
    std::fprintf(stderr, "bench-llm: tpuc llm-convert exited %d (see %s/run_tiny_convert.log)\n", r.status,
                 work.c_str());
    return false;
  }
  std::printf("4. llm-run on the command-level simulator (8-token prompt; bm1684x)\n");
  std::printf("   %-28s %12s %12s %s\n", "", "simulated", "wall", "goal");
  bool ok = runFigure(tpuc, "tiny bf16", work + "/run_tiny_out", std::max(tokens, 8), work, true);
  // The 0.5B-shaped model file of figure 2 (tiny in --smoke): a few tokens.
  ok = runFigure(tpuc, smoke ? "fig.2 w4bf16" : "0.5B w4bf16", work + "/converted", smoke ? 4 : 8, work,
                 false) && ok;
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  bool smoke = false;
  int tokens = 32;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--smoke")
      smoke = true, tokens = 4;
    else if (arg == "--tokens" && i + 1 < argc)
      tokens = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: bench-llm [--smoke] [--tokens N]\n");
      return 2;
    }
  }
  fs::path self = fs::read_symlink("/proc/self/exe");
  std::string tpuc = (self.parent_path() / "tpuc").string();
  std::string source = TPUC_SOURCE_DIR;
  std::string script = source + "/tests/unit/llm/make_tiny_llm.py";
  testsupport::TempDir work("tpuc-bench-llm");
  bool ok = dryRunFigure(source + "/tests/unit/llm/Inputs/DryRun/qwen2-7b");
  ok = convertFigure(tpuc, script, work.path(), smoke) && ok;
  ok = decodeFigure(script, work.path(), tokens) && ok;
  ok = llmRunFigures(tpuc, script, work.path(), tokens, smoke) && ok;
  return ok ? 0 : 1;
}
