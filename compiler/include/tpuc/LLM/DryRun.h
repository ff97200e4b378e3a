//===- DryRun.h - llm-convert --dry_run: memory plan and latency per chip ===//
//
// Qt-free, MLIR-free. What `tpuc llm-convert --dry_run` predicts from
// config.json alone (no weights): for each chip profile, the DDR plan of the
// compiled model (weights of each decoder layer and the shared ones, with the
// group scales / zero points of weight-only modes; the KV cache of
// seq_length; the largest stage's activations and IO) against the profile's
// DDR size, and the first-token latency and decode tokens/s. Each stage is
// rebuilt as a backend::Graph with the shapes and storage types its Top IR
// lowers to, and costed op by op with the backend's cost model (CostModel.h)
// and DDR planner (GlobalMemory.h). docs/LLM.md gives the formulas.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_LLM_DRYRUN_H
#define TPUC_LLM_DRYRUN_H

#include "tpuc/Backend/ChipProfile.h"
#include "tpuc/LLM/HFConfig.h"
#include "tpuc/LLM/LlmConvert.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tpuc::llm {

/// Bytes of a set of weights, split by what they are. Each tensor is rounded
/// up to the chip's coefficient alignment.
struct WeightBytes {
  int64_t values = 0;     ///< Matmul weights: float, or packed int4 / int8.
  int64_t scales = 0;     ///< Group scales (f32, tpu.a16matmul's scale operand).
  int64_t zeroPoints = 0; ///< Group zero points (ui8); 0 when symmetric.
  int64_t other = 0;      ///< Norm weights, biases, embedding table.
  int64_t total() const { return values + scales + zeroPoints + other; }
  WeightBytes &operator+=(const WeightBytes &o);
};

/// The DDR the compiled model needs on one chip.
struct MemoryPlan {
  WeightBytes layer;  ///< One decoder layer (its block_, block_cache_, block_kv_ share them).
  int64_t layers = 0; ///< num_hidden_layers.
  WeightBytes shared; ///< Embedding table, final norm, lm_head (the table once when tied).
  /// The runtime's KV cache: k and v of every layer, [seq_length, kv heads, head_dim].
  int64_t kvCacheBytes = 0;
  /// The largest stage's activation region (DDR planner peak, its IO included).
  int64_t activationBytes = 0;
  std::string activationStage; ///< The stage that sets activationBytes.
  int64_t weightBytes() const { return layer.total() * layers + shared.total(); }
  int64_t totalBytes() const { return weightBytes() + kvCacheBytes + activationBytes; }
  int64_t ddrBytes = 0; ///< The profile's DDR size.
  bool fits() const { return totalBytes() <= ddrBytes; }
  /// When it does not fit: what is left out, placing shared weights, layer
  /// 0.. weights, KV cache and activations in that order ("weights of
  /// layers 19-27 (1.23 GiB)", ...). Empty when it fits.
  std::vector<std::string> overflow;
};

/// The predicted time of one stage run.
struct StageEstimate {
  std::string name;       ///< "block_i" stands for every layer's block_<i>.
  int64_t tokens = 0;     ///< Rows it processes (max_input_length, 1, chunk_length).
  int64_t runs = 0;       ///< Runs per first token / per decode step (layers for blocks).
  int64_t ops = 0;        ///< Ops of its cost graph.
  int64_t cycles = 0;     ///< One run, sum of its ops' estimates.
  int64_t tiuCycles = 0;  ///< Engine busy totals of one run.
  int64_t gdmaCycles = 0;
  int64_t weightBytes = 0; ///< Weight bytes streamed from DDR in one run.
  double us = 0;           ///< One run, launch overhead included.
};

/// The dry run on one chip.
struct ChipDryRun {
  std::string chip;
  double frequencyMhz = 0;
  double ddrBandwidthGBps = 0;
  /// The profile's optional runtime.stage_launch_us (0 when absent).
  double stageLaunchUs = 0;
  bool launchFromProfile = false;
  MemoryPlan memory;
  std::vector<StageEstimate> stages;
  /// embedding(max_input_length) + layers x block_ + lm_head + greedy_head.
  double firstTokenMs = 0;
  /// embedding_cache + layers x block_cache_ + lm_head + greedy_head.
  double decodeMsPerToken = 0;
  double decodeTokensPerSecond() const { return decodeMsPerToken > 0 ? 1000.0 / decodeMsPerToken : 0; }
  /// With --use_history_kv: one block_kv_ pass of chunk_length over all layers.
  double chunkMs = 0;
  /// The first token of a prompt that fills each prefill bucket, ascending: with --dynamic one entry per
  /// bucket (embedding_len<b> + layers x block_len<b>_ + lm_head + greedy_head), then max_input_length.
  struct BucketLatency {
    int64_t tokens = 0;
    double firstTokenMs = 0;
  };
  std::vector<BucketLatency> firstTokenByBucket;
};

/// The whole report.
struct DryRunReport {
  ModelConfig config;
  ConvertPlan plan;
  std::vector<ChipDryRun> chips;
};

/// Bytes of one linear layer's weights stored the way `plan` lowers them:
/// N x K at the float precision's width, or packed bits with f32 scales and
/// (asymmetric) ui8 zero points per group (group 0 or -1: one per row).
WeightBytes linearWeightBytes(const ConvertPlan &plan, int64_t outFeatures, int64_t inFeatures,
                              int64_t alignment = 1);

/// Plans one chip. Errors are one line (a stage graph the backend rejects).
llvm::Expected<ChipDryRun> dryRunOnChip(const ModelConfig &config, const ConvertPlan &plan,
                        const backend::ChipProfile &chip);

/// Resolves `chips` ("all", a name or a comma list of names; see
/// backend::findChipProfile) and plans each. Errors are one line (an
/// unknown chip names it and lists the known ones).
llvm::Expected<DryRunReport> dryRun(const ModelConfig &config, const ConvertPlan &plan,
                                    const std::string &chips);

/// The human-readable report.
std::string formatDryRun(const DryRunReport &report);
/// The report as JSON (schema "tpuc-llm-dry-run", version 1; docs/LLM.md).
std::string dryRunJson(const DryRunReport &report);

} // namespace tpuc::llm

#endif // TPUC_LLM_DRYRUN_H
