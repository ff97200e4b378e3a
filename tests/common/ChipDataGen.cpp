// Synthetic plan and trace writer (schema versions 2, docs/BACKEND.md and docs/MODEL_FORMAT.md).
#include "tpuc/ChipDataGen.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace tpuc::bench {

namespace {

constexpr int64_t kLanes = 64, kLmem = 256 * 1024, kBanks = 16;
constexpr double kMhz = 950;

std::string opName(int g, int k) { return "/blocks/" + std::to_string(g) + "/op" + std::to_string(k) + "/Conv"; }

void writePlan(const std::string &path, const GenSizes &s) {
  std::ofstream out(path);
  if (!out)
    throw std::runtime_error(path + ": cannot write");
  const int G = s.groups, K = s.opsPerGroup, S = s.slices;
  const int64_t H = 64, W = 64, C = 64, L = K;
  auto box = [&](int64_t h0, int64_t h1) {
    return "{\"n\": [0, 1], \"c\": [0, " + std::to_string(C) + "], \"h\": [" + std::to_string(h0) + ", " +
           std::to_string(h1) + "], \"w\": [0, " + std::to_string(W) + "]}";
  };
  out << "{\"schema\": \"tpuc-backend-plan\", \"version\": 2,\n \"chip\": {\"name\": \"bm1684x\", \"lanes\": " << kLanes
      << ", \"eu_bytes\": 64, \"lmem_bytes_per_lane\": " << kLmem << ", \"lmem_banks\": " << kBanks
      << ", \"frequency_mhz\": " << kMhz << "},\n \"opt\": 2, \"total_cycles\": 0, \"latency_us\": 0,\n \"values\": [\n";
  out << "  {\"name\": \"input\", \"shape\": [1, 64, 64, 64], \"dtype\": \"INT8\", \"bytes\": 262144, \"weight\": false}";
  for (int g = 0; g < G; ++g)
    for (int k = 0; k < K; ++k) {
      out << ",\n  {\"name\": \"" << opName(g, k) << "\", \"shape\": [1, 64, 64, 64], \"dtype\": \"INT8\", \"bytes\": 262144, "
          << "\"weight\": false}";
      out << ",\n  {\"name\": \"" << opName(g, k) << ".w\", \"shape\": [64, 64, 3, 3], \"dtype\": \"INT8\", \"bytes\": 36864, "
          << "\"weight\": true}";
    }
  out << "\n ],\n \"groups\": [\n";
  for (int g = 0; g < G; ++g) {
    std::string in = g == 0 ? "input" : opName(g - 1, K - 1);
    out << (g ? ",\n" : "") << "  {\"id\": " << g << ", \"kind\": \"group\", \"first_op\": " << g * K << ", \"ops\": [";
    for (int k = 0; k < K; ++k)
      out << (k ? ", " : "") << "\"" << opName(g, k) << "\"";
    out << "], \"inputs\": [\"" << in << "\"], \"outputs\": [\"" << opName(g, K - 1) << "\"], \"intermediates\": [";
    for (int k = 0; k + 1 < K; ++k)
      out << (k ? ", " : "") << "\"" << opName(g, k) << "\"";
    out << "], \"weights\": [";
    for (int k = 0; k < K; ++k)
      out << (k ? ", " : "") << "\"" << opName(g, k) << ".w\"";
    out << "], \"cycles\": 40000, \"tiu_cycles\": 30000, \"gdma_cycles\": " << (g % 3 ? 20000 : 45000)
        << ", \"ddr_bytes\": 600000,\n   \"slice\": {\"n\": 1, \"c\": 1, \"h\": " << S << ", \"w\": 1},\n   \"slices\": [";
    for (int i = 0; i < S; ++i) {
      int64_t h0 = H * i / S, h1 = H * (i + 1) / S;
      out << (i ? ", " : "") << "{\"values\": {\"" << in << "\": " << box(std::max<int64_t>(0, h0 - K), std::min(H, h1 + K));
      for (int k = 0; k < K; ++k)
        out << ", \"" << opName(g, k) << "\": " << box(std::max<int64_t>(0, h0 - (K - 1 - k)), std::min(H, h1 + (K - 1 - k)));
      out << "}, \"stores\": {\"" << opName(g, K - 1) << "\": " << box(h0, h1) << "}}";
    }
    out << "],\n   \"units_per_stage\": " << L << ", \"time_steps\": [";
    for (int t = 0; t < S + 2; ++t)
      out << (t ? ", " : "") << "{\"stage\": " << t << ", \"load_slice\": " << (t < S ? t : -1)
          << ", \"compute_slice\": " << (t >= 1 && t <= S ? t - 1 : -1) << ", \"store_slice\": " << (t >= 2 ? t - 2 : -1)
          << ", \"loads_weights\": " << (t < 2 ? "true" : "false") << ", \"tiu_cycles\": " << (t >= 1 && t <= S ? 7000 : 0)
          << ", \"gdma_cycles\": " << 5000 + 1000 * (t % 2) << ", \"cycles\": 7000}";
    out << "],\n   \"lmem\": {\"bytes_per_lane\": " << kLmem << ", \"peak\": 180000, \"lower_bound\": 170000, "
        << "\"bank_conflicts\": 0, \"rects\": [";
    bool first = true;
    auto rect = [&](const std::string &v, int slice, const char *kind, int64_t t0, int64_t t1, int64_t addr,
                    int64_t size) {
      out << (first ? "" : ", ") << "{\"value\": \"" << v << "\", \"slice\": " << slice << ", \"kind\": \"" << kind
          << "\", \"t0\": " << t0 << ", \"t1\": " << t1 << ", \"addr\": " << addr << ", \"size\": " << size << "}";
      first = false;
    };
    for (int k = 0; k < K; ++k)
      rect(opName(g, k) + ".w", -1, "weight", k == 0 ? 0 : L + k - 1, S * L + k + 1, k * 4096, 4096);
    for (int i = 0; i < S; ++i) {
      int64_t base = 32768 + (i % 3) * 65536;
      rect(in, i, "input", i * L, (i + 1) * L + 1, base, 16384);
      for (int k = 0; k + 1 < K; ++k)
        rect(opName(g, k), i, "intermediate", (i + 1) * L + k, (i + 1) * L + k + 2, base + 16384 + (k % 2) * 16384,
             16384);
      rect(opName(g, K - 1), i, "output", (i + 1) * L + K - 1, (i + 3) * L, base + 49152, 16384);
    }
    out << "]}}";
  }
  out << "\n ],\n \"cuts\": [";
  for (int g = 0; g + 1 < G; ++g)
    out << (g ? ",\n  " : "\n  ") << "{\"group\": " << g << ", \"where\": \"after\", \"op\": \"" << opName(g + 1, 0)
        << "\", \"reason\": \"lmem\", \"message\": \"group " << g << " ends before '" << opName(g + 1, 0)
        << "': LMEM short by 4,096 B/lane at time step 7\", \"needed\": " << kLmem + 4096 << ", \"capacity\": " << kLmem
        << ", \"short_bytes\": 4096, \"time_unit\": 7, \"stage\": 1, \"unit_op\": \"" << opName(g, 2)
        << "\", \"live\": [{\"value\": \"" << opName(g, 1) << "\", \"kind\": \"intermediate\", \"slice\": 1, \"size\": 16384}]}";
  out << "],\n \"gmem\": {\"coeff_bytes\": " << int64_t(G) * K * 36864 << ", \"activation_base\": " << int64_t(G) * K * 36864
      << ", \"activation_peak\": 524288, \"lower_bound\": 524288, \"peak_over_lower_bound\": 1.0, \"strategy\": \"by_size\", "
      << "\"strategies\": {}, \"shared_buffers\": 0,\n  \"buffers\": [";
  for (int g = 0; g <= G; ++g) {
    std::string v = g == 0 ? "input" : opName(g - 1, K - 1);
    out << (g ? ",\n   " : "\n   ") << "{\"value\": \"" << v << "\", \"root\": \"" << v << "\", \"offset\": 0, \"address\": "
        << int64_t(G) * K * 36864 + (g % 2) * 262144 << ", \"size\": 262144, \"start\": " << std::max(0, g - 1)
        << ", \"end\": " << std::min(g, G - 1) << ", \"io\": " << (g == 0 || g == G ? "true" : "false") << "}";
  }
  out << "],\n  \"weights\": [";
  for (int g = 0; g < G; ++g)
    for (int k = 0; k < K; ++k)
      out << (g || k ? ", " : "") << "{\"value\": \"" << opName(g, k) << ".w\", \"address\": " << (int64_t(g) * K + k) * 36864
          << ", \"size\": 36864}";
  out << "]},\n \"ops\": [";
  for (int g = 0; g < G; ++g)
    for (int k = 0; k < K; ++k)
      out << (g || k ? ",\n  " : "\n  ") << "{\"name\": \"" << opName(g, k) << "\", \"kind\": \"conv\", \"group\": " << g
          << ", \"tiu_cycles\": 6000, \"macs\": 150994944, \"lane_utilization\": 1, \"eu_utilization\": 1}";
  out << "]}\n";
}

int64_t writeTrace(const std::string &path, const GenSizes &s) {
  std::FILE *f = std::fopen(path.c_str(), "w");
  if (!f)
    throw std::runtime_error(path + ": cannot write");
  const int G = s.groups, K = s.opsPerGroup, S = s.slices;
  const int64_t perGroup = std::max<int64_t>(1, s.commands / G);
  // TIU commands per op and slice so the group holds about perGroup commands.
  const int64_t tiuPerOp = std::max<int64_t>(1, (perGroup - 2 * S - K) / (S * K));
  std::mt19937 rng(42);
  int64_t freeAt[2] = {0, 0};
  uint32_t ids[2] = {0, 0};
  int64_t commands = 0;
  std::fprintf(f, "{\"schema\": \"tpuc-cmd-trace\", \"version\": 2, \"chip\": \"bm1684x\", \"frequency_mhz\": %g, "
                  "\"stage\": \"main\", \"total_cycles\": 0, \"latency_us\": 0, \"tiu_busy\": 0, \"gdma_busy\": 0, "
                  "\"lmem_peak\": 0, \"ddr_activation_peak\": 0, \"coeff_bytes\": %lld, \"activation_base\": %lld, "
                  "\"activation_bytes\": 524288, \"displayTimeUnit\": \"ns\", \"errors\": [],\n \"ops\": [\n",
               kMhz, static_cast<long long>(int64_t(G) * K * 36864), static_cast<long long>(int64_t(G) * K * 36864));
  for (int g = 0; g < G; ++g)
    for (int k = 0; k < K; ++k)
      std::fprintf(f, "  {\"name\": \"%s\", \"type\": \"tpu.conv2d\", \"tiu_cycles\": 0, \"gdma_cycles\": 0, \"commands\": 0}%s\n",
                   opName(g, k).c_str(), g + 1 == G && k + 1 == K ? "" : ",");
  std::fprintf(f, " ],\n \"traceEvents\": [\n");
  std::fprintf(f, "  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": 0, \"args\": {\"name\": \"TIU\"}},\n");
  std::fprintf(f, "  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": 1, \"args\": {\"name\": \"GDMA\"}}");
  auto emit = [&](int engine, int op, const char *cat, int g, int slice, int step, int64_t cycles, uint32_t wait,
                  int64_t waitEnd, bool weight) {
    int64_t start = std::max(freeAt[engine], waitEnd), end = start + cycles;
    freeAt[engine] = end;
    uint32_t id = ++ids[engine];
    std::fprintf(f,
                 ",\n  {\"name\": \"%s\", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": 0, \"tid\": %d, \"ts\": %.6f, "
                 "\"dur\": %.6f, \"args\": {\"id\": %u, \"wait\": %u, \"op\": %d, \"group\": %d, \"slice\": %d, "
                 "\"step\": %d, \"start\": %lld, \"end\": %lld, \"cycles\": %lld",
                 opName(op / K, op % K).c_str(), cat, engine, start / kMhz, cycles / kMhz, id, wait, op, g, slice, step,
                 static_cast<long long>(start), static_cast<long long>(end), static_cast<long long>(cycles));
    if (engine == 1)
      std::fprintf(f, ", \"ddr\": %lld, \"bytes\": %lld, \"weight\": %s", static_cast<long long>(weight ? op * 36864 : 0),
                   static_cast<long long>(cycles * 16), weight ? "true" : "false");
    std::fprintf(f, "}}");
    ++commands;
    return std::make_pair(id, end);
  };
  std::pair<uint32_t, int64_t> lastTiu{0, 0}, lastGdma{0, 0};
  for (int g = 0; g < G; ++g)
    for (int t = 0; t < S + 2; ++t) {
      // GDMA of stage t waits for the TIU of stage t-1; TIU of stage t for the GDMA of stage t-1.
      auto tiuBarrier = lastTiu, gdmaBarrier = lastGdma;
      if (t < 2)
        for (int k = t == 0 ? 0 : 1; k < (t == 0 ? 1 : K); ++k)
          lastGdma = emit(1, g * K + k, "load", g, -1, t, 2000 + rng() % 2000, tiuBarrier.first, tiuBarrier.second, true);
      if (t < S)
        lastGdma = emit(1, g * K, "load", g, t, t, 800 + rng() % 800, tiuBarrier.first, tiuBarrier.second, false);
      if (t >= 2)
        lastGdma = emit(1, g * K + K - 1, "store", g, t - 2, t, 700 + rng() % 600, tiuBarrier.first, tiuBarrier.second, false);
      if (t >= 1 && t <= S)
        for (int k = 0; k < K; ++k)
          for (int64_t m = 0; m < tiuPerOp; ++m)
            lastTiu = emit(0, g * K + k, "compute", g, t - 1, t, 20 + rng() % 180, m == 0 && k == 0 ? gdmaBarrier.first : 0,
                           m == 0 && k == 0 ? gdmaBarrier.second : 0, false);
      // Occupancy as the simulator records it: a sample per stage.
      std::fprintf(f, ",\n  {\"name\": \"LMEM\", \"ph\": \"C\", \"pid\": 0, \"ts\": %.6f, \"cycle\": %lld, \"args\": "
                      "{\"bytes_per_lane\": %d}}",
                   freeAt[1] / kMhz, static_cast<long long>(freeAt[1]), 60000 + (t % 3) * 30000);
    }
  std::fprintf(f, "\n]}\n");
  std::fclose(f);
  return commands;
}

} // namespace

int64_t writeSyntheticRun(const std::string &dir, const GenSizes &sizes) {
  writePlan(dir + "/gen_plan.json", sizes);
  return writeTrace(dir + "/gen_trace.json", sizes);
}

} // namespace tpuc::bench
