//===- Run.cpp - Loading a plan and a trace, deriving the analyses once ---===//

#include "tpuc/ChipData/Run.h"

#include <algorithm>
#include <future>
#include <sstream>

namespace tpuc::chip {

llvm::Expected<std::shared_ptr<const ChipRun>> ChipRun::load(const std::string &planPath,
                                                             const std::string &tracePath, int core) {
  if (planPath.empty() && tracePath.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "neither a plan nor a trace was given");
  std::optional<Plan> plan;
  std::optional<Trace> trace;
  // The plan is read on a thread of its own while the trace streams.
  std::future<llvm::Expected<Plan>> planned;
  if (!planPath.empty())
    planned = std::async(std::launch::async, [&] { return readPlanFile(planPath); });
  if (!tracePath.empty()) {
    auto t = readTraceFile(tracePath, core);
    if (!t) {
      if (planned.valid())
        llvm::consumeError(planned.get().takeError());
      return t.takeError();
    }
    trace = std::move(*t);
  }
  if (planned.valid()) {
    auto p = planned.get();
    if (!p)
      return p.takeError();
    plan = std::move(*p);
  }
  std::shared_ptr<ChipRun> run(new ChipRun());
  run->m_plan = std::move(plan);
  run->m_trace = std::move(trace);
  run->planPath = planPath;
  run->tracePath = tracePath;
  run->derive();
  return std::shared_ptr<const ChipRun>(std::move(run));
}

std::shared_ptr<const ChipRun> ChipRun::make(std::optional<Plan> plan, std::optional<Trace> trace) {
  std::shared_ptr<ChipRun> run(new ChipRun());
  run->m_plan = std::move(plan);
  run->m_trace = std::move(trace);
  run->derive();
  return run;
}

void ChipRun::derive() {
  if (m_trace) {
    for (int e = 0; e < kEngines; ++e)
      m_busy[e] = BusyIndex(m_trace->commands[e]);
    m_critical = criticalPath(*m_trace);
    m_idle = attributeIdle(*m_trace);
    m_groupSpans = chip::groupSpans(*m_trace);
    m_opRuns = chip::opRuns(*m_trace);
    m_stepSpans = chip::stepSpans(*m_trace);
    const size_t ops = m_trace->ops.size();
    for (int e = 0; e < kEngines; ++e) {
      const auto &cmds = m_trace->commands[e];
      std::vector<uint32_t> &start = m_opStart[e], &list = m_opCommands[e];
      start.assign(ops + 2, 0);
      for (const Command &c : cmds)
        if (c.op >= 0)
          ++start[c.op + 2];
      for (size_t o = 2; o < start.size(); ++o)
        start[o] += start[o - 1];
      list.resize(start.back());
      for (size_t i = 0; i < cmds.size(); ++i)
        if (cmds[i].op >= 0)
          list[start[cmds[i].op + 1]++] = static_cast<uint32_t>(i);
      start.pop_back(); // now start[o] .. start[o + 1] are op o's
    }
  }
  if (m_plan)
    m_ddr = ddrOccupancy(*m_plan);
  if (m_plan && m_trace) {
    m_plannedLmem = plannedLmemOverTime(*m_plan, *m_trace);
    m_divergences = lmemDivergences(m_plannedLmem, m_trace->lmem, *m_trace);
    m_planToTrace.assign(m_plan->ops.size(), -1);
    m_traceToPlan.assign(m_trace->ops.size(), -1);
    for (size_t i = 0; i < m_plan->ops.size(); ++i)
      if (int t = m_trace->opIndex(m_plan->ops[i].name); t >= 0) {
        m_planToTrace[i] = t;
        m_traceToPlan[t] = static_cast<int>(i);
      }
  }
  if (m_plan) {
    m_groupSpanIndex.assign(m_plan->groups.size(), -1);
    for (size_t i = 0; i < m_groupSpans.size(); ++i) {
      int g = m_groupSpans[i].id;
      if (g >= 0 && g < static_cast<int>(m_groupSpanIndex.size()))
        m_groupSpanIndex[g] = static_cast<int>(i);
    }
  }
}

std::span<const uint32_t> ChipRun::commandsOf(Engine e, int op) const {
  const auto &start = m_opStart[static_cast<int>(e)];
  if (op < 0 || static_cast<size_t>(op) + 1 >= start.size())
    return {};
  const auto &list = m_opCommands[static_cast<int>(e)];
  return std::span<const uint32_t>(list.data() + start[op], start[op + 1] - start[op]);
}

int ChipRun::traceOpOf(int planOp) const {
  return planOp >= 0 && planOp < static_cast<int>(m_planToTrace.size()) ? m_planToTrace[planOp] : -1;
}

int ChipRun::planOpOf(int traceOp) const {
  return traceOp >= 0 && traceOp < static_cast<int>(m_traceToPlan.size()) ? m_traceToPlan[traceOp] : -1;
}

std::string ChipRun::planOpName(int op) const {
  return m_plan && op >= 0 && op < static_cast<int>(m_plan->ops.size()) ? m_plan->ops[op].name : std::string();
}

std::string ChipRun::traceOpName(int op) const {
  return m_trace && op >= 0 && op < static_cast<int>(m_trace->ops.size()) ? m_trace->ops[op].name : std::string();
}

std::pair<int64_t, int64_t> ChipRun::groupTime(int group) const {
  if (group < 0 || group >= static_cast<int>(m_groupSpanIndex.size()) || m_groupSpanIndex[group] < 0)
    return {-1, -1};
  const Interval &s = m_groupSpans[m_groupSpanIndex[group]];
  return {s.start, s.end};
}

int ChipRun::groupAt(int64_t cycle) const {
  auto it = std::upper_bound(m_groupSpans.begin(), m_groupSpans.end(), cycle,
                             [](int64_t c, const Interval &s) { return c < s.start; });
  while (it != m_groupSpans.begin()) {
    --it;
    if (it->end > cycle)
      return it->id;
    if (it->end <= cycle)
      break;
  }
  return -1;
}

namespace {

/// A CSV field: quoted when it holds a comma, quote or line break (RFC 4180).
std::string csvField(const std::string &s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos)
    return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"')
      out += '"';
    out += c;
  }
  return out + "\"";
}

} // namespace

std::string memoryCsv(const ChipRun &run) {
  std::ostringstream os;
  os << "record,group,value,kind,slice,address,size,start,end,cycle,bytes\n";
  auto name = [&](int v) {
    const Plan *p = run.plan();
    return p && v >= 0 && v < static_cast<int>(p->values.size()) ? csvField(p->values[v].name) : std::string();
  };
  if (const Plan *p = run.plan()) {
    for (const DdrBuffer &b : p->gmem.buffers)
      os << "ddr_buffer,," << name(b.value) << "," << (b.io ? "io" : (b.root != b.value && b.root >= 0 ? "view" : "activation"))
         << ",," << b.address << "," << b.size << "," << b.start << "," << b.end << ",,\n";
    for (const DdrWeight &w : p->gmem.weights)
      os << "weight,," << name(w.value) << ",weight,," << w.address << "," << w.size << ",,,,\n";
    for (const Group &g : p->groups)
      for (const LmemRect &r : g.rects)
        os << "lmem_rect," << g.id << "," << name(r.value) << "," << bufferKindName(r.kind) << "," << r.slice << "," << r.addr
           << "," << r.size << "," << r.t0 << "," << r.t1 << ",,\n";
  }
  if (run.trace()) {
    for (const CounterSample &c : run.plannedLmem())
      os << "lmem_planned,,,,,,,,," << c.cycle << "," << c.bytes << "\n";
    for (const CounterSample &c : run.trace()->lmem)
      os << "lmem_simulated,,,,,,,,," << c.cycle << "," << c.bytes << "\n";
    for (const CounterSample &c : run.trace()->ddr)
      os << "ddr_simulated,,,,,,,,," << c.cycle << "," << c.bytes << "\n";
  }
  return os.str();
}

} // namespace tpuc::chip
