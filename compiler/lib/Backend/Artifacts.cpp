//===- Artifacts.cpp - The backend plan as JSON for the studio ------------===//

#include "tpuc/Backend/Artifacts.h"
#include "tpuc/Support/FileWrite.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <stdexcept>

using nlohmann::ordered_json;

namespace tpuc::backend {

namespace {

ordered_json boxJson(const Box &b) {
  ordered_json j;
  const char *names[] = {"n", "c", "h", "w"};
  for (int d = 0; d < 4; ++d)
    j[names[d]] = {b.dims[d].begin, b.dims[d].end};
  return j;
}

ordered_json groupJson(const ChipProfile &chip, const Graph &g, const LayerGroup &grp, int index) {
  ordered_json j;
  j["id"] = index;
  j["kind"] = grp.global ? "global" : "group";
  ordered_json ops = ordered_json::array();
  for (int o : grp.ops)
    ops.push_back(g.ops[o].name);
  j["ops"] = ops;
  j["first_op"] = grp.ops.front();
  if (const Op &first = g.ops[grp.ops.front()]; first.control != Control::None)
    j["control"] = controlName(first.control); // a control-flow marker's group (Graph.h)
  auto names = [&](const std::vector<int> &vs) {
    ordered_json a = ordered_json::array();
    for (int v : vs)
      a.push_back(g.values[v].name);
    return a;
  };
  j["inputs"] = names(grp.values.inputs);
  j["outputs"] = names(grp.values.outputs);
  j["intermediates"] = names(grp.values.intermediates);
  j["weights"] = names(grp.values.weights);
  j["cycles"] = grp.cycles;
  j["tiu_cycles"] = grp.tiuCycles;
  j["gdma_cycles"] = grp.gdmaCycles;
  j["ddr_bytes"] = grp.ddrBytes;
  j["cores"] = grp.cores;
  j["sync_cycles"] = grp.syncCycles;
  if (grp.global) {
    ordered_json parts = ordered_json::array();
    for (const GlobalPart &p : grp.parts)
      parts.push_back({{"core", p.core}, {"axis", p.axis}, {"range", {p.range.begin, p.range.end}}});
    j["parts"] = parts;
    return j;
  }
  j["slice"] = {{"n", grp.spec.n}, {"c", grp.spec.c}, {"h", grp.spec.h}, {"w", grp.spec.w}};
  ordered_json slices = ordered_json::array();
  for (size_t si = 0; si < grp.slices.size(); ++si) {
    const SliceBoxes &s = grp.slices[si];
    ordered_json sj, vals, stores;
    sj["core"] = si < grp.sliceCore.size() ? grp.sliceCore[si] : 0;
    for (auto &[v, b] : s.value)
      vals[g.values[v].name] = boxJson(b);
    for (auto &[v, b] : s.store)
      stores[g.values[v].name] = boxJson(b);
    sj["values"] = vals;
    sj["stores"] = stores;
    slices.push_back(sj);
  }
  j["slices"] = slices;
  j["units_per_stage"] = grp.unitsPerStage;
  ordered_json steps = ordered_json::array();
  for (size_t t = 0; t < grp.steps.size(); ++t) {
    const TimeStep &st = grp.steps[t];
    steps.push_back({{"core", st.core},
                     {"stage", st.stage},
                     {"load_slice", st.loadSlice},
                     {"compute_slice", st.computeSlice},
                     {"store_slice", st.storeSlice},
                     {"loads_weights", st.loadsWeights},
                     {"tiu_cycles", st.tiuCycles},
                     {"gdma_cycles", st.gdmaCycles},
                     {"cycles", st.cycles}});
  }
  j["time_steps"] = steps;
  ordered_json lmem;
  lmem["bytes_per_lane"] = chip.lmemBytesPerLane;
  lmem["peak"] = grp.lmem.peakBytes;
  lmem["lower_bound"] = grp.lmem.lowerBound;
  lmem["bank_conflicts"] = grp.lmem.bankConflicts;
  ordered_json rects = ordered_json::array();
  for (const LmemRect &r : grp.rects)
    rects.push_back({{"value", g.values[r.value].name},
                     {"slice", r.slice},
                     {"core", r.core},
                     {"kind", bufferKindName(r.kind)},
                     {"t0", r.tStart},
                     {"t1", r.tEnd},
                     {"addr", r.addr},
                     {"size", r.size}});
  lmem["rects"] = rects;
  j["lmem"] = lmem;
  return j;
}

ordered_json sliceSpecJson(const SliceSpec &s) { return {{"n", s.n}, {"c", s.c}, {"h", s.h}, {"w", s.w}}; }

ordered_json cutJson(const ChipProfile &chip, const Graph &g, const GroupCut &cut) {
  ordered_json j;
  j["group"] = cut.group;
  j["where"] = cut.global ? "global" : "after";
  j["op"] = g.ops[cut.op].name;
  j["reason"] = cutReasonName(cut.reason);
  j["message"] = cut.message;
  const GroupDiagnosis &d = cut.memory;
  switch (cut.reason) {
  case CutReason::Lmem:
  case CutReason::Weights:
  case CutReason::Halo: {
    j["needed"] = d.needed;
    j["capacity"] = chip.lmemBytesPerLane;
    // A placement failure has a lower bound that fits: nothing is short.
    j["short_bytes"] = std::max<int64_t>(0, d.needed - chip.lmemBytesPerLane);
    if (d.timeUnit >= 0) {
      j["time_unit"] = d.timeUnit;
      j["stage"] = d.timeUnit / d.unitsPerStage;
      j["unit_op"] = g.ops[d.unitOp].name;
      j["slices"] = sliceSpecJson(d.spec);
    }
    ordered_json live = ordered_json::array();
    for (size_t i = 0; i < d.live.size() && i < 8; ++i)
      live.push_back({{"value", g.values[d.live[i].value].name},
                      {"kind", bufferKindName(d.live[i].kind)},
                      {"slice", d.live[i].slice},
                      {"size", d.live[i].size}});
    j["live"] = live;
    break;
  }
  case CutReason::Cost:
    j["cycles_split"] = cut.cyclesSplit;
    j["cycles_merged"] = cut.cyclesMerged;
    break;
  case CutReason::NoLocalForm:
    j["kind"] = opKindName(g.ops[cut.op].kind);
    break;
  case CutReason::MaxOps:
    j["max_ops"] = cut.maxOps;
    break;
  }
  return j;
}

} // namespace

std::string backendPlanJson(const ChipProfile &chip, const Graph &g, const LayerGroupPlan &lg,
                            const GmemPlan &gm, const std::vector<GroupCut> &cuts, int indent) {
  ordered_json root;
  root["schema"] = "tpuc-backend-plan";
  root["version"] = 3;
  root["chip"] = {{"name", chip.name},
                  {"lanes", chip.lanes},
                  {"eu_bytes", chip.euBytes},
                  {"lmem_bytes_per_lane", chip.lmemBytesPerLane},
                  {"lmem_banks", chip.lmemBanks},
                  {"frequency_mhz", chip.frequencyMhz}};
  root["opt"] = lg.opt;
  root["cores"] = lg.cores;
  root["sync_cycles"] = chip.syncCycles;
  root["total_cycles"] = lg.totalCycles;
  root["latency_us"] = cyclesToUs(chip, lg.totalCycles);
  ordered_json values = ordered_json::array();
  for (const Value &v : g.values)
    values.push_back({{"name", v.name},
                      {"shape", v.shape},
                      {"dtype", dtypeName(v.dtype)},
                      {"bytes", v.bytes()},
                      {"weight", v.isWeight}});
  root["values"] = values;
  ordered_json groups = ordered_json::array();
  for (size_t i = 0; i < lg.groups.size(); ++i)
    groups.push_back(groupJson(chip, g, lg.groups[i], static_cast<int>(i)));
  root["groups"] = groups;
  ordered_json cutList = ordered_json::array();
  for (const GroupCut &cut : cuts)
    cutList.push_back(cutJson(chip, g, cut));
  root["cuts"] = cutList;

  ordered_json gmem;
  gmem["coeff_bytes"] = gm.coeffBytes;
  gmem["activation_base"] = gm.activationBase;
  gmem["activation_peak"] = gm.activationPeak;
  gmem["lower_bound"] = gm.lowerBound;
  gmem["peak_over_lower_bound"] =
      gm.lowerBound ? static_cast<double>(gm.activationPeak) / static_cast<double>(gm.lowerBound) : 1.0;
  gmem["strategy"] = gm.strategy;
  ordered_json tried;
  for (auto &[name, peak] : gm.tried)
    tried[name] = peak;
  gmem["strategies"] = tried;
  gmem["shared_buffers"] = gm.sharedBuffers;
  ordered_json bufs = ordered_json::array();
  for (const GmemBuffer &b : gm.buffers)
    bufs.push_back({{"value", g.values[b.value].name},
                    {"root", g.values[b.root].name},
                    {"offset", b.offset},
                    {"address", b.address},
                    {"size", b.size},
                    {"start", b.start},
                    {"end", b.end},
                    {"io", b.io}});
  gmem["buffers"] = bufs;
  ordered_json weights = ordered_json::array();
  for (const GmemWeight &w : gm.weights)
    weights.push_back({{"value", g.values[w.value].name}, {"address", w.address}, {"size", w.size}});
  gmem["weights"] = weights;
  root["gmem"] = gmem;

  ordered_json ops = ordered_json::array();
  for (size_t o = 0; o < g.ops.size(); ++o) {
    const OpEstimate &e = lg.opCosts[o];
    ops.push_back({{"name", g.ops[o].name},
                   {"kind", opKindName(g.ops[o].kind)},
                   {"group", lg.groupOfOp[o]},
                   {"tiu_cycles", e.tiuCycles},
                   {"macs", e.macs},
                   {"lane_utilization", e.laneUtilization},
                   {"eu_utilization", e.euUtilization}});
  }
  root["ops"] = ops;
  return root.dump(indent);
}

void writeBackendPlan(const std::string &path, const ChipProfile &chip, const Graph &g,
                      const LayerGroupPlan &groups, const GmemPlan &gmem, const std::vector<GroupCut> &cuts) {
  if (Result<void> written = writeFileAtomically(path, backendPlanJson(chip, g, groups, gmem, cuts) + "\n");
      !written)
    throw std::runtime_error(written.error());
}

std::vector<std::pair<int, std::string>> readPlanCuts(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error(path + ": cannot read the backend plan");
  std::ostringstream text;
  text << in.rdbuf();
  ordered_json root = ordered_json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!root.is_object() || root.value("schema", "") != "tpuc-backend-plan")
    throw std::runtime_error(path + ": not a tpuc-backend-plan document");
  std::vector<std::pair<int, std::string>> cuts;
  const ordered_json *list = root.contains("cuts") ? &root["cuts"] : nullptr;
  if (!list)
    return cuts;
  if (!list->is_array())
    throw std::runtime_error(path + ": cuts: expected an array");
  for (const ordered_json &c : *list) {
    if (!c.is_object() || !c.contains("group") || !c["group"].is_number_integer() || !c.contains("message") ||
        !c["message"].is_string())
      throw std::runtime_error(path + ": cuts: every entry needs an integer group and a message");
    cuts.emplace_back(c["group"].get<int>(), c["message"].get<std::string>());
  }
  return cuts;
}

} // namespace tpuc::backend
