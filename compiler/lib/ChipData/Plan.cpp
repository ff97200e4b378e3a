//===- Plan.cpp - Reader of the backend plan JSON -------------------------===//

#include "tpuc/ChipData/Plan.h"

#include "JsonFields.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <tuple>

namespace tpuc::chip {

int64_t PlanValue::dim(int i) const {
  if (shape.empty())
    return 0;
  return i < static_cast<int>(shape.size()) ? shape[i] : 1;
}

const Box *SliceBoxes::valueBox(int value) const {
  for (const auto &[v, b] : values)
    if (v == value)
      return &b;
  return nullptr;
}

int64_t Group::timeUnits(int core) const {
  int64_t t = 0;
  for (const LmemRect &r : rects)
    if (core < 0 || r.core == core)
      t = std::max(t, r.t1);
  return t;
}

int64_t Group::stagesOn(int core) const {
  return std::count_if(steps.begin(), steps.end(), [&](const TimeStep &s) { return s.core == core; });
}

int Plan::valueIndex(std::string_view name) const {
  auto it = valueByName.find(std::string(name));
  return it == valueByName.end() ? -1 : it->second;
}

int Plan::opIndex(std::string_view name) const {
  auto it = opByName.find(std::string(name));
  return it == opByName.end() ? -1 : it->second;
}

int Plan::opOfValue(int value, int group) const {
  if (value < 0 || value >= static_cast<int>(values.size()))
    return -1;
  if (int op = opIndex(values[value].name); op >= 0)
    return op;
  if (group >= 0 && group < static_cast<int>(groups.size())) {
    // A weight or a group input: the first op of the group that names it among its operands is not
    // recorded, so take the group's first op (the consumer of its inputs and the first weight user).
    const Group &g = groups[group];
    if (!g.ops.empty())
      return g.ops.front();
  }
  return -1;
}

namespace {

using detail::Fields;
using detail::JsonError;

/// Interns value names: plan v2 lists every value first; v1 names appear as they are used.
struct Interner {
  Plan &plan;
  int value(const std::string &name) {
    auto [it, inserted] = plan.valueByName.emplace(name, static_cast<int>(plan.values.size()));
    if (inserted) {
      PlanValue v;
      v.name = name;
      plan.values.push_back(std::move(v));
    }
    return it->second;
  }
  std::vector<int> values(const Fields &f, const char *key) {
    std::vector<int> out;
    if (!f.has(key))
      return out;
    for (const Fields &item : f.array(key).items())
      out.push_back(value(item.asString()));
    return out;
  }
};

BufferKind parseKind(const Fields &f, const char *key) {
  std::string k = f.string(key);
  for (BufferKind kind : {BufferKind::Input, BufferKind::Weight, BufferKind::Intermediate, BufferKind::Output})
    if (k == bufferKindName(kind))
      return kind;
  f.fail(key, "unknown buffer kind '" + k + "'");
}

Box parseBox(const Fields &f) {
  Box b;
  const char *names[] = {"n", "c", "h", "w"};
  for (int d = 0; d < 4; ++d) {
    auto [begin, end] = f.intPair(names[d]);
    if (end < begin)
      f.fail(names[d], "range ends before it begins");
    b[d] = {begin, end};
  }
  return b;
}

std::vector<std::pair<int, Box>> parseBoxes(const Fields &f, const char *key, Interner &names) {
  std::vector<std::pair<int, Box>> out;
  Fields obj = f.object(key);
  for (auto &[name, sub] : obj.members())
    out.emplace_back(names.value(name), parseBox(sub));
  return out;
}

void parseGroup(const Fields &f, Plan &plan, Interner &names) {
  Group g;
  g.id = static_cast<int>(f.integer("id"));
  std::string kind = f.string("kind");
  if (kind != "group" && kind != "global")
    f.fail("kind", "expected \"group\" or \"global\"");
  g.global = kind == "global";
  g.control = f.string("control", "");
  if (!g.control.empty() && g.control != "if_branch" && g.control != "if_else" && g.control != "if_join" &&
      g.control != "loop_init" && g.control != "loop_back")
    f.fail("control", "unknown control-flow step '" + g.control + "'");
  for (const Fields &item : f.array("ops").items()) {
    std::string name = item.asString();
    int op = plan.opIndex(name);
    if (op < 0)
      item.fail("", "unknown op '" + name + "'");
    g.ops.push_back(op);
  }
  g.inputs = names.values(f, "inputs");
  g.outputs = names.values(f, "outputs");
  g.intermediates = names.values(f, "intermediates");
  g.weights = names.values(f, "weights");
  g.cycles = f.integer("cycles");
  g.tiuCycles = f.integer("tiu_cycles", 0);
  g.gdmaCycles = f.integer("gdma_cycles", 0);
  g.ddrBytes = f.integer("ddr_bytes", 0);
  g.cores = static_cast<int>(f.integer("cores", 1));
  if (g.cores < 1 || g.cores > plan.cores)
    f.fail("cores", "a group on " + std::to_string(g.cores) + " cores of a plan for " + std::to_string(plan.cores));
  g.syncCycles = f.integer("sync_cycles", 0);
  auto coreRef = [&](const Fields &x, const char *key) {
    int64_t c = x.integer(key, 0);
    if (c < 0 || c >= g.cores)
      x.fail(key, "core " + std::to_string(c) + " of a group on " + std::to_string(g.cores));
    return static_cast<int>(c);
  };
  if (g.global && f.has("parts")) {
    for (const Fields &pj : f.array("parts").objects()) {
      GlobalPart p;
      p.core = coreRef(pj, "core");
      p.axis = static_cast<int>(pj.integer("axis"));
      if (p.axis < 0 || p.axis > 3)
        pj.fail("axis", "expected 0 to 3");
      std::tie(p.begin, p.end) = pj.intPair("range");
      if (p.end <= p.begin || p.begin < 0)
        pj.fail("range", "empty or negative");
      g.parts.push_back(p);
    }
  }
  if (!g.global) {
    Fields s = f.object("slice");
    const char *dims[] = {"n", "c", "h", "w"};
    for (int d = 0; d < 4; ++d) {
      g.cuts[d] = s.integer(dims[d]);
      if (g.cuts[d] < 1)
        s.fail(dims[d], "a dimension is cut into at least one slice");
    }
    for (const Fields &sj : f.array("slices").objects()) {
      SliceBoxes sb;
      sb.values = parseBoxes(sj, "values", names);
      sb.stores = parseBoxes(sj, "stores", names);
      g.slices.push_back(std::move(sb));
      g.sliceCore.push_back(coreRef(sj, "core"));
    }
    g.unitsPerStage = f.integer("units_per_stage", 1);
    if (g.unitsPerStage < 1)
      f.fail("units_per_stage", "must be at least 1");
    if (g.unitsPerStage > (int64_t(1) << 20))
      f.fail("units_per_stage", "more than 2^20 units per stage");
    auto sliceRef = [&](const Fields &st, const char *key) {
      int64_t s = st.integer(key);
      if (s < -1 || s >= static_cast<int64_t>(g.slices.size()))
        st.fail(key, "slice " + std::to_string(s) + " out of range");
      return static_cast<int>(s);
    };
    for (const Fields &st : f.array("time_steps").objects()) {
      TimeStep t;
      t.core = coreRef(st, "core");
      t.stage = static_cast<int>(st.integer("stage", g.stagesOn(t.core)));
      if (t.stage != g.stagesOn(t.core))
        st.fail("stage", "stage " + std::to_string(t.stage) + " out of order on core " + std::to_string(t.core));
      t.loadSlice = sliceRef(st, "load_slice");
      t.computeSlice = sliceRef(st, "compute_slice");
      t.storeSlice = sliceRef(st, "store_slice");
      t.loadsWeights = st.boolean("loads_weights", false);
      t.tiuCycles = st.integer("tiu_cycles", 0);
      t.gdmaCycles = st.integer("gdma_cycles", 0);
      t.cycles = st.integer("cycles", std::max(t.tiuCycles, t.gdmaCycles));
      g.steps.push_back(t);
    }
    Fields lmem = f.object("lmem");
    g.lmemPeak = lmem.integer("peak", 0);
    g.lmemLowerBound = lmem.integer("lower_bound", 0);
    g.bankConflicts = static_cast<int>(lmem.integer("bank_conflicts", 0));
    for (const Fields &rj : lmem.array("rects").objects()) {
      LmemRect r;
      r.value = names.value(rj.string("value"));
      r.slice = static_cast<int>(rj.integer("slice"));
      if (r.slice < -1 || r.slice >= static_cast<int>(g.slices.size()))
        rj.fail("slice", "out of range");
      r.kind = parseKind(rj, "kind");
      r.t0 = rj.integer("t0");
      r.t1 = rj.integer("t1");
      r.addr = rj.integer("addr");
      r.size = rj.integer("size");
      r.core = coreRef(rj, "core");
      if (r.t0 < 0)
        rj.fail("t0", "negative time unit " + std::to_string(r.t0));
      if (r.t1 <= r.t0 || r.size < 0 || r.addr < 0)
        rj.fail("", "empty time range or negative address/size");
      // Time units run over the core's stages (units_per_stage each); none lives past the last one.
      int64_t stages = std::max<int64_t>(g.stagesOn(r.core), 1);
      if (r.t1 > stages * g.unitsPerStage)
        rj.fail("t1", "time unit " + std::to_string(r.t1) + " is beyond the " + std::to_string(stages) +
                          " stages of " + std::to_string(g.unitsPerStage) + " units" +
                          (g.cores > 1 ? " of core " + std::to_string(r.core) : std::string()) + "");
      g.rects.push_back(r);
    }
  }
  plan.groups.push_back(std::move(g));
}

void parseCut(const Fields &f, Plan &plan, Interner &names) {
  Cut c;
  c.group = static_cast<int>(f.integer("group"));
  if (c.group < 0 || c.group >= static_cast<int>(plan.groups.size()))
    f.fail("group", "no group " + std::to_string(c.group));
  std::string where = f.string("where");
  if (where != "after" && where != "global")
    f.fail("where", "expected \"after\" or \"global\"");
  c.global = where == "global";
  c.op = f.has("op") ? plan.opIndex(f.string("op")) : -1;
  c.reason = f.string("reason");
  c.message = f.string("message");
  c.needed = f.integer("needed", 0);
  c.capacity = f.integer("capacity", 0);
  c.shortBytes = f.integer("short_bytes", 0);
  c.timeUnit = f.integer("time_unit", -1);
  c.stage = f.integer("stage", -1);
  c.unitOp = f.has("unit_op") ? plan.opIndex(f.string("unit_op")) : -1;
  if (f.has("live")) {
    for (const Fields &lj : f.array("live").objects()) {
      LiveBuffer b;
      b.value = names.value(lj.string("value"));
      b.kind = parseKind(lj, "kind");
      b.slice = static_cast<int>(lj.integer("slice", -1));
      b.size = lj.integer("size", 0);
      c.live.push_back(b);
    }
  }
  c.cyclesSplit = f.integer("cycles_split", 0);
  c.cyclesMerged = f.integer("cycles_merged", 0);
  plan.cuts.push_back(std::move(c));
}

Plan parse(simdjson::dom::element root, const std::string &source) {
  Fields top(root, source);
  if (!top.isObject())
    top.fail("", "not a JSON object");
  if (top.string("schema") != "tpuc-backend-plan")
    top.fail("schema", "not a tpuc-backend-plan document");
  Plan plan;
  plan.version = static_cast<int>(top.integer("version"));
  if (plan.version < 1 || plan.version > 3)
    top.fail("version", "version " + std::to_string(plan.version) + " is not supported (1 to 3 are)");
  plan.cores = static_cast<int>(top.integer("cores", 1));
  if (plan.cores < 1 || plan.cores > 64)
    top.fail("cores", "expected 1 to 64 cores");
  plan.syncCycles = top.integer("sync_cycles", 0);
  Fields chip = top.object("chip");
  plan.chip.name = chip.string("name");
  plan.chip.lanes = chip.integer("lanes");
  plan.chip.euBytes = chip.integer("eu_bytes", 0);
  plan.chip.lmemBytesPerLane = chip.integer("lmem_bytes_per_lane");
  plan.chip.lmemBanks = chip.integer("lmem_banks", 0);
  plan.chip.frequencyMhz = chip.number("frequency_mhz");
  if (plan.chip.lanes <= 0 || plan.chip.lmemBytesPerLane <= 0 || plan.chip.frequencyMhz <= 0)
    chip.fail("", "lanes, lmem_bytes_per_lane and frequency_mhz must be positive");
  plan.opt = static_cast<int>(top.integer("opt", 0));
  plan.totalCycles = top.integer("total_cycles");
  plan.latencyUs = top.number("latency_us", 0);
  Interner names{plan};
  if (top.has("values")) {
    for (const Fields &vj : top.array("values").objects()) {
      int v = names.value(vj.string("name"));
      PlanValue &pv = plan.values[v];
      if (vj.has("shape")) {
        for (const Fields &d : vj.array("shape").items())
          pv.shape.push_back(d.asInt());
      }
      pv.dtype = vj.string("dtype", "");
      pv.bytes = vj.integer("bytes", 0);
      pv.weight = vj.boolean("weight", false);
    }
  }
  // Ops first: groups name them.
  for (const Fields &oj : top.array("ops").objects()) {
    PlanOp op;
    op.name = oj.string("name");
    op.kind = oj.string("kind", "");
    op.group = static_cast<int>(oj.integer("group", -1));
    op.tiuCycles = oj.integer("tiu_cycles", 0);
    op.macs = oj.integer("macs", 0);
    op.laneUtilization = oj.number("lane_utilization", 1);
    op.euUtilization = oj.number("eu_utilization", 1);
    plan.opByName.emplace(op.name, static_cast<int>(plan.ops.size()));
    plan.ops.push_back(std::move(op));
  }
  for (const Fields &gj : top.array("groups").objects())
    parseGroup(gj, plan, names);
  for (PlanOp &op : plan.ops)
    if (op.group < -1 || op.group >= static_cast<int>(plan.groups.size()))
      top.fail("ops", "op '" + op.name + "' names group " + std::to_string(op.group) + " of " +
                          std::to_string(plan.groups.size()));
  if (top.has("cuts")) {
    for (const Fields &cj : top.array("cuts").objects())
      parseCut(cj, plan, names);
  }
  Fields gm = top.object("gmem");
  plan.gmem.coeffBytes = gm.integer("coeff_bytes", 0);
  plan.gmem.activationBase = gm.integer("activation_base", 0);
  plan.gmem.activationPeak = gm.integer("activation_peak", 0);
  plan.gmem.lowerBound = gm.integer("lower_bound", 0);
  plan.gmem.strategy = gm.string("strategy", "");
  for (const Fields &bj : gm.array("buffers").objects()) {
    DdrBuffer b;
    b.value = names.value(bj.string("value"));
    b.root = bj.has("root") ? names.value(bj.string("root")) : b.value;
    b.offset = bj.integer("offset", 0);
    b.address = bj.integer("address");
    b.size = bj.integer("size");
    b.start = bj.integer("start");
    b.end = bj.integer("end");
    b.io = bj.boolean("io", false);
    if (b.end < b.start || b.size < 0 || b.start < 0)
      bj.fail("", "lifetime ends before it starts or negative size");
    // Lifetimes are group steps: at most one past the last group (graph outputs).
    if (b.end > static_cast<int64_t>(plan.groups.size()))
      bj.fail("end", "group step " + std::to_string(b.end) + " of a plan with " + std::to_string(plan.groups.size()) +
                         " groups");
    plan.gmem.buffers.push_back(b);
  }
  for (const Fields &wj : gm.array("weights").objects()) {
    plan.gmem.weights.push_back({names.value(wj.string("value")), wj.integer("address"), wj.integer("size")});
  }
  return plan;
}

} // namespace

llvm::Expected<Plan> parsePlan(std::string_view text, std::string_view source) {
  std::string src(source);
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto e = parser.parse(text.data(), text.size()).get(root))
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: not valid JSON (%s)", src.c_str(),
                                   simdjson::error_message(e));
  try {
    return parse(root, src);
  } catch (const JsonError &e) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s", e.what());
  } catch (const std::bad_alloc &) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: out of memory", src.c_str());
  }
}

llvm::Expected<Plan> readPlanFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: cannot open the plan", path.c_str());
  std::ostringstream ss;
  ss << in.rdbuf();
  return parsePlan(ss.str(), path);
}

} // namespace tpuc::chip
