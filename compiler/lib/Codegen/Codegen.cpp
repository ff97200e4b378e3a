//===- Codegen.cpp - GDMA / TIU command streams from the backend plans ----===//

#include "tpuc/Codegen/Codegen.h"

#include "tpuc/Backend/CostModel.h"
#include "tpuc/Backend/LocalMemory.h"

#include <algorithm>
#include <map>

namespace tpuc::codegen {

using namespace backend;

namespace {

class Emitter {
public:
  Emitter(const ChipProfile &chip, const Graph &g, const LayerGroupPlan &plan, const GmemPlan &gmem)
      : chip(chip), g(g), plan(plan), tiuBarrier(std::max(1, plan.cores), 0), gdmaBarrier(tiuBarrier) {
    for (const GmemBuffer &b : gmem.buffers)
      ddr[b.value] = b.address;
    for (const GmemWeight &w : gmem.weights)
      ddr[w.value] = w.address;
  }

  uint64_t ddrAddress(int v) const {
    auto it = ddr.find(v);
    if (it == ddr.end())
      throw ModelFileError("codegen: value '" + g.values[v].name + "' has no DDR address");
    return static_cast<uint64_t>(it->second);
  }

  /// The whole tensor, or box `b` of it, in DDR (NCHW, contiguous).
  TensorRef ddrRef(int v, const Box &b) const {
    const Value &val = g.values[v];
    int64_t ds = dtypeBytes(val.dtype);
    TensorRef t;
    t.space = MemSpace::DDR;
    t.dtype = static_cast<uint8_t>(val.dtype);
    t.stride = {val.dim(1) * val.dim(2) * val.dim(3) * ds, val.dim(2) * val.dim(3) * ds, val.dim(3) * ds, ds};
    t.address = ddrAddress(v);
    for (int i = 0; i < 4; ++i) {
      t.origin[i] = b.dims[i].begin;
      t.shape[i] = b.dims[i].size();
      t.address += static_cast<uint64_t>(b.dims[i].begin * t.stride[i]);
    }
    return t;
  }

  /// Box `part` of the LMEM buffer of rect `r` holding box `buf` of value v.
  /// Channels (dim 1) spread over lanes; weights are viewed as
  /// [1, oc, d1, d2 * d3] so that their output channels do.
  TensorRef lmemRef(const LmemRect &r, Box buf, Box part) const {
    const Value &val = g.values[r.value];
    int64_t ds = dtypeBytes(val.dtype);
    if (val.isWeight) {
      auto view = [](const Box &b) {
        Box v;
        v.dims[0] = {0, 1};
        v.dims[1] = b.dims[0];
        v.dims[2] = b.dims[1];
        v.dims[3] = {b.dims[2].begin * b.dims[3].size() + b.dims[3].begin,
                     b.dims[2].begin * b.dims[3].size() + b.dims[3].begin +
                         b.dims[2].size() * b.dims[3].size()};
        return v;
      };
      buf = view(buf);
      part = view(part);
    }
    TensorRef t;
    t.space = MemSpace::LMEM;
    t.dtype = static_cast<uint8_t>(val.dtype);
    int64_t lane0 = buf.dims[1].begin % chip.lanes;
    int64_t perLane = ceilDiv(lane0 + buf.dims[1].size(), chip.lanes);
    // Activations pad each channel plane to the EU width; weights pack a lane's
    // output channels back to back (activationBytesPerLane / weightBytesPerLane).
    int64_t plane = buf.dims[2].size() * buf.dims[3].size() * ds;
    if (!val.isWeight)
      plane = alignUp(plane, chip.euBytes);
    t.stride = {perLane * plane, plane, buf.dims[3].size() * ds, ds};
    int64_t addr = r.addr;
    for (int i = 0; i < 4; ++i) {
      int64_t d = part.dims[i].begin - buf.dims[i].begin;
      t.origin[i] = part.dims[i].begin;
      t.shape[i] = part.dims[i].size();
      addr += i == 1 ? (lane0 + d) / chip.lanes * t.stride[i] : d * t.stride[i];
    }
    t.lane = static_cast<uint32_t>((lane0 + part.dims[1].begin - buf.dims[1].begin) % chip.lanes);
    t.address = static_cast<uint64_t>(addr);
    return t;
  }

  Command &push(Stage &s, int core, Engine e, CmdKind k, int op, uint32_t wait) {
    auto &stream = s.cores[core].of(e);
    Command c;
    c.engine = e;
    c.kind = k;
    c.id = static_cast<uint32_t>(stream.size() + 1);
    c.wait = wait;
    c.op = static_cast<uint32_t>(op);
    stream.push_back(c);
    return stream.back();
  }

  /// A global op: one TIU command with DDR operands, or one per core on its part of the op.
  void emitGlobal(Stage &s, int gi, const LayerGroup &grp) {
    int o = grp.ops[0];
    if (g.ops[o].control != Control::None)
      return emitControl(s, gi, o);
    if (isInPlace(g, o))
      return;
    const Op &op = g.ops[o];
    syncBefore(s, gi, std::max<int>(1, static_cast<int>(grp.parts.size())));
    auto emit = [&](int core, const std::vector<Box> &boxes, const GlobalCost &cost) {
      Command &c = push(s, core, Engine::TIU, CmdKind::Global, o, gdmaBarrier[core]);
      c.group = gi;
      c.cycles = cost.cycles;
      c.ddrCycles = std::min(cost.transfer, cost.cycles);
      size_t k = 0;
      for (const auto *list : {&op.outputs, &op.inputs, &op.weights})
        for (int v : *list)
          c.operands.push_back(ddrRef(v, boxes[k++]));
      c.numOutputs = static_cast<uint32_t>(op.outputs.size());
      c.numInputs = static_cast<uint32_t>(op.inputs.size());
      barrier(s, core);
    };
    if (grp.parts.empty()) {
      std::vector<Box> whole;
      for (const auto *list : {&op.outputs, &op.inputs, &op.weights})
        for (int v : *list)
          whole.push_back(fullBox(g.values[v]));
      emit(0, whole, globalOpCost(chip, g, op, false));
      return;
    }
    for (const GlobalPart &part : grp.parts) {
      std::vector<Box> boxes = globalPartBoxes(g, op, part.axis, part.range);
      emit(part.core, boxes, globalPartCost(chip, g, op, boxes));
      // Its window's padding, as a slice's (the part spans the whole of H and W).
      s.cores[part.core].tiu.back().pad = padding(op, boxes[0]);
    }
  }

  /// One GDMA copy of value `src` into value `dst`'s storage (same type and shape) on core 0, after every
  /// command issued so far; recorded as marker `o`'s copy `entry` (StageCode::markerCopies).
  void copy(Stage &s, int gi, int o, int entry, int src, int dst) {
    if (ddrAddress(src) == ddrAddress(dst))
      return;
    markerCopies[o].push_back(entry);
    Command &c = push(s, 0, Engine::GDMA, CmdKind::Copy, o, tiuBarrier[0]);
    c.group = gi;
    c.operands = {ddrRef(src, fullBox(g.values[src])), ddrRef(dst, fullBox(g.values[dst]))};
    GlobalCost cost = ddrCopyCost(chip, g.values[src].bytes());
    c.cycles = cost.cycles;
    c.ddrCycles = std::min(cost.transfer, cost.cycles);
  }

  /// Ends the current block: a Sync on every stream of every core (so every command of the block has
  /// completed when `t` hands over control), then the block's ranges. Returns its index.
  int endBlock(Stage &s, int gi, int o, Terminator t) {
    if (blockStart.empty())
      blockStart.assign(s.cores.size(), Block::Range{});
    for (size_t k = 0; k < s.cores.size(); ++k)
      for (Engine e : {Engine::TIU, Engine::GDMA}) {
        Command &c = push(s, static_cast<int>(k), e, CmdKind::Sync, o, 0);
        c.group = gi;
        c.cycles = chip.syncCycles;
      }
    Block b;
    for (size_t k = 0; k < s.cores.size(); ++k) {
      barrier(s, static_cast<int>(k));
      Block::Range r = blockStart[k];
      r.tiuEnd = static_cast<uint32_t>(s.cores[k].tiu.size());
      r.gdmaEnd = static_cast<uint32_t>(s.cores[k].gdma.size());
      b.cores.push_back(r);
      blockStart[k] = {r.tiuEnd, r.tiuEnd, r.gdmaEnd, r.gdmaEnd};
    }
    b.terminator = t;
    blocks.push_back(std::move(b));
    lastUsed = 0;
    return static_cast<int>(blocks.size()) - 1;
  }

  Terminator branchOn(int v, uint32_t target) const {
    Terminator t;
    t.kind = Terminator::Kind::Branch;
    t.cond = ddrRef(v, fullBox(g.values[v]));
    t.target = target;
    return t;
  }

  /// A control-flow marker (Graph.h): its copies and the end of its block. Targets not known yet (an
  /// If's else and join blocks, a loop's exit) are filled in when the later marker ends its block.
  void emitControl(Stage &s, int gi, int o) {
    const Op &op = g.ops[o];
    syncBefore(s, gi, 1);
    auto next = [&] { return static_cast<uint32_t>(blocks.size() + 1); }; // the block after the one ending
    switch (op.control) {
    case Control::IfBranch:
      endedBy[o] = endBlock(s, gi, o, branchOn(op.sources[0], next()));
      break;
    case Control::IfElse: {
      const Op &join = g.ops[op.peer];
      for (size_t k = 0; k < op.sources.size(); ++k)
        copy(s, gi, o, static_cast<int>(k), op.sources[k], join.outputs[k]);
      Terminator jump;
      jump.kind = Terminator::Kind::Jump;
      int b = endedBy[o] = endBlock(s, gi, o, jump);
      blocks[endedBy.at(peerOf.at(o))].terminator.elseTarget = static_cast<uint32_t>(b + 1);
      break;
    }
    case Control::IfJoin: {
      for (size_t k = 0; k < op.sources.size(); ++k)
        copy(s, gi, o, static_cast<int>(k), op.sources[k], op.outputs[k]);
      int b = endBlock(s, gi, o, Terminator{});
      blocks[endedBy.at(peerOf.at(o))].terminator.target = static_cast<uint32_t>(b + 1);
      break;
    }
    case Control::LoopInit:
      for (size_t k = 0; k < op.sources.size(); ++k)
        copy(s, gi, o, static_cast<int>(k), op.sources[k], op.outputs[k]);
      endedBy[o] = endBlock(s, gi, o, branchOn(op.outputs[0], next()));
      break;
    case Control::LoopBack: {
      const std::vector<int> &slots = g.ops[op.peer].outputs;
      std::vector<bool> holds = g.loopHolds(o);
      std::vector<int> source(op.sources.begin(), op.sources.end());
      size_t hold = 1; // outputs[0] is the marker's own byte
      for (size_t k = 0; k < holds.size(); ++k)
        if (holds[k]) {
          copy(s, gi, o, static_cast<int>(hold - 1), op.sources[k], op.outputs.at(hold));
          source[k] = op.outputs[hold++];
        }
      for (size_t k = 0; k < source.size() && k < slots.size(); ++k)
        copy(s, gi, o, static_cast<int>(hold - 1 + k), source[k], slots[k]);
      int body = endedBy.at(op.peer) + 1;
      int b = endBlock(s, gi, o, branchOn(slots[0], static_cast<uint32_t>(body)));
      blocks[b].terminator.elseTarget = static_cast<uint32_t>(b + 1);
      blocks[endedBy.at(op.peer)].terminator.elseTarget = static_cast<uint32_t>(b + 1);
      break;
    }
    case Control::None:
      break;
    }
  }

  /// After the last group of a stage with control flow: the commands after the last marker form the last
  /// block, and the stage gets its blocks.
  void finishBlocks(Stage &s, int gi) {
    if (blocks.empty())
      return;
    bool rest = false;
    for (size_t k = 0; k < s.cores.size(); ++k)
      rest |= s.cores[k].tiu.size() > blockStart[k].tiuBegin || s.cores[k].gdma.size() > blockStart[k].gdmaBegin;
    if (rest)
      endBlock(s, gi, plan.groups[gi].ops.front(), Terminator{});
    s.blocks = std::move(blocks);
  }

  /// Forward links of the markers reversed: IfElse -> its IfBranch, IfJoin -> its IfElse.
  std::map<int, int> peerOf;

  /// Cores meet at a barrier between two groups unless both run on the same single core: the k-th Sync
  /// of every stream of every core. `used` are the cores (0..used-1) the next group runs on.
  void syncBefore(Stage &s, int gi, int used) {
    if (lastUsed > 0 && !(lastUsed == 1 && used == 1)) {
      for (size_t k = 0; k < s.cores.size(); ++k)
        for (Engine e : {Engine::TIU, Engine::GDMA}) {
          Command &c = push(s, static_cast<int>(k), e, CmdKind::Sync, plan.groups[lastGroup].ops.front(), 0);
          c.group = lastGroup;
          c.cycles = chip.syncCycles;
        }
      for (size_t k = 0; k < s.cores.size(); ++k)
        barrier(s, static_cast<int>(k));
    }
    lastUsed = used;
    lastGroup = gi;
  }

  void emitGroup(Stage &s, int gi, const LayerGroup &grp) {
    syncBefore(s, gi, std::max(1, grp.cores));
    for (int core = 0; core < std::max(1, grp.cores); ++core)
      emitCore(s, gi, grp, core);
  }

  /// Core `core`'s pipeline of group `gi`: its stages over its slices in its LMEM.
  void emitCore(Stage &s, int gi, const LayerGroup &grp, int core) {
    std::map<std::pair<int, int>, const LmemRect *> rect;
    for (const LmemRect &r : grp.rects)
      if (r.core == core)
        rect[{r.value, r.slice}] = &r;
    auto rectOf = [&](int v, int slice) -> const LmemRect & {
      auto it = rect.find({v, slice});
      if (it == rect.end())
        it = rect.find({v, -1});
      if (it == rect.end())
        throw ModelFileError("codegen: value '" + g.values[v].name + "' has no LMEM buffer in group " +
                             std::to_string(gi) + " slice " + std::to_string(slice));
      return *it->second;
    };
    std::map<int, int> local;
    for (size_t k = 0; k < grp.ops.size(); ++k)
      local[grp.ops[k]] = static_cast<int>(k);
    auto firstUse = [&](int w) {
      int first = static_cast<int>(grp.ops.size());
      for (int u : g.values[w].users)
        if (auto it = local.find(u); it != local.end())
          first = std::min(first, it->second);
      return first;
    };
    auto producerOrFirstUser = [&](int v) {
      int p = g.values[v].producer;
      if (local.count(p))
        return p;
      for (int u : g.values[v].users)
        if (local.count(u))
          return u;
      return grp.ops[0];
    };
    const bool cCut = weightsPerSlice(g, grp.ops, grp.spec);
    const bool streamed = !cCut && cutRule(g, grp.ops).rowsOnly;
    CoreStreams &streams = s.cores[core];
    uint32_t &tiuBarrier = this->tiuBarrier[core], &gdmaBarrier = this->gdmaBarrier[core];
    for (const TimeStep &st : grp.steps) {
      if (st.core != core)
        continue;
      const size_t t = static_cast<size_t>(st.stage);
      uint32_t tiuBase = static_cast<uint32_t>(streams.tiu.size());
      std::map<std::pair<int, int>, uint32_t> weightLoadId; // (weight, column tile) -> GDMA id, this stage
      auto load = [&](int v, int slice, const Box &box) {
        Command &c = push(s, core, Engine::GDMA, CmdKind::Load, producerOrFirstUser(v), tiuBarrier);
        const LmemRect &r = rectOf(v, slice);
        c.group = gi;
        c.slice = slice;
        c.step = static_cast<int>(t);
        const Value &val = g.values[v];
        // A weight box (a range of output channels, a column tile) in its resident buffer's view.
        c.operands = {ddrRef(v, box),
                      lmemRef(r, val.isWeight && slice < 0 ? grp.slices[0].weight.at(v) : box, box)};
        // As the planner prices it (GroupSchedule): a weight box in its contiguous runs of the
        // coefficient region.
        c.cycles = val.isWeight ? weightBoxDmaCycles(chip, val, box) : dmaBoxCycles(chip, val, box);
        c.ddrCycles = dmaDdr(c.cycles);
        return c.id;
      };
      // Loads of slice t's inputs (and its C-cut weights).
      if (st.loadSlice >= 0) {
        const SliceBoxes &sb = grp.slices[st.loadSlice];
        for (int v : grp.values.inputs)
          load(v, st.loadSlice, sb.value.at(v));
        if (cCut)
          for (int w : grp.values.weights)
            load(w, st.loadSlice, sb.weight.at(w)); // used next stage: the barrier covers it
      }
      // Stores of slice t-2.
      if (st.storeSlice >= 0) {
        const SliceBoxes &sb = grp.slices[st.storeSlice];
        for (int v : grp.values.outputs) {
          const Box &box = sb.store.at(v);
          Command &c = push(s, core, Engine::GDMA, CmdKind::Store, g.values[v].producer, tiuBarrier);
          c.group = gi;
          c.slice = st.storeSlice;
          c.step = static_cast<int>(t);
          c.operands = {lmemRef(rectOf(v, st.storeSlice), sb.value.at(v), box), ddrRef(v, box)};
          c.cycles = dmaBoxCycles(chip, g.values[v], box);
          c.ddrCycles = dmaDdr(c.cycles);
        }
      }
      // The column tiles each op computes this stage's slice in: a row group (streamed weights) splits
      // its matmuls on the first slice of the core (stage 1), as the planner does for slice 0 (a row
      // group never cuts the columns); one tile (the whole box) otherwise.
      const bool tiled = streamed && t == 1 && st.computeSlice >= 0;
      std::vector<std::vector<Range>> tiles(grp.ops.size(), std::vector<Range>(1));
      if (tiled)
        for (size_t k = 0; k < grp.ops.size(); ++k) {
          const Op &op = g.ops[grp.ops[k]];
          tiles[k] = columnTiles(chip, g, op, grp.slices[0].value.at(op.outputs[0]));
        }
      // Resident weights: the first op's in stage 0 (a streamed matmul's in stage 1), the others in stage 1
      // (residentWeightStage), op by op; a streamed matmul's tile by tile, each of its weights' tile with
      // it (a weight that does not run along the columns with the first). In a row group they load from
      // the stage's start (their rects start there); otherwise op k's once op k-2 of the slice has run
      // (its rect starts at unit L + k - 1).
      if (!cCut && st.loadsWeights) {
        uint32_t tiuId = tiuBase; // the last TIU command of op k-1 of this stage
        std::vector<uint32_t> lastTiu(grp.ops.size(), tiuBase);
        for (size_t k = 0; k < grp.ops.size(); ++k)
          lastTiu[k] = tiuId += st.computeSlice >= 0 ? static_cast<uint32_t>(tiles[k].size()) : 0;
        for (size_t k = 0; k < grp.ops.size(); ++k) {
          if (residentWeightStage(g, grp.ops, streamed, static_cast<int64_t>(k)) != static_cast<int>(t))
            continue;
          const Op &op = g.ops[grp.ops[k]];
          uint32_t wait = !streamed && k >= 2 ? lastTiu[k - 2] : tiuBarrier;
          std::vector<int> mine;
          for (int w : op.weights)
            if (firstUse(w) == static_cast<int>(k) &&
                std::find(grp.values.weights.begin(), grp.values.weights.end(), w) !=
                    grp.values.weights.end())
              mine.push_back(w);
          const auto perTile = residentWeightLoads(g, op, tiles[k], mine, grp.slices[0].weight);
          for (size_t j = 0; j < perTile.size(); ++j)
            for (const auto &[w, box] : perTile[j]) {
              uint32_t id = load(w, -1, box);
              streams.gdma.back().wait = std::max(wait, tiuBarrier);
              // A tile of the weight is awaited by that tile's command, a whole weight by every one.
              weightLoadId[{w, box != grp.slices[0].weight.at(w) ? static_cast<int>(j) : -1}] = id;
            }
        }
      }
      // Compute slice t-1.
      if (st.computeSlice >= 0) {
        const SliceBoxes &sb = grp.slices[st.computeSlice];
        for (size_t k = 0; k < grp.ops.size(); ++k) {
          const int o = grp.ops[k];
          const Op &op = g.ops[o];
          const Box &out = sb.value.at(op.outputs[0]);
          for (size_t j = 0; j < tiles[k].size(); ++j) {
            const bool part = tiles[k].size() > 1;
            uint32_t wait = gdmaBarrier;
            for (int w : op.weights)
              for (int tile : {-1, static_cast<int>(j)})
                if (auto it = weightLoadId.find({w, tile}); it != weightLoadId.end())
                  wait = std::max(wait, it->second);
            Command &c = push(s, core, Engine::TIU, CmdKind::Compute, o, wait);
            c.group = gi;
            c.slice = st.computeSlice;
            c.step = static_cast<int>(t);
            const Box box = part ? columnTileOutput(g, op, out, tiles[k][j]) : out;
            c.cycles = tiuCost(chip, g, op, box).cycles;
            for (int v : op.outputs)
              c.operands.push_back(lmemRef(rectOf(v, st.computeSlice), sb.value.at(v),
                                           v == op.outputs[0] ? box : sb.value.at(v)));
            for (size_t i = 0; i < op.inputs.size(); ++i) {
              int v = op.inputs[i];
              const Box &buf = sb.value.at(v);
              c.operands.push_back(lmemRef(rectOf(v, st.computeSlice), buf, buf));
            }
            for (int w : op.weights) {
              const Box &wb = part ? columnTileWeight(g, op, w, tiles[k][j]) : sb.weight.at(w);
              c.operands.push_back(lmemRef(rectOf(w, st.computeSlice),
                                           cCut ? sb.weight.at(w) : grp.slices[0].weight.at(w), wb));
            }
            c.numOutputs = static_cast<uint32_t>(op.outputs.size());
            c.numInputs = static_cast<uint32_t>(op.inputs.size());
            c.pad = padding(op, box);
          }
        }
      }
      barrier(s, core);
    }
  }

  /// The DDR part of a GDMA command of `cycles`: all but its fixed latency.
  int64_t dmaDdr(int64_t cycles) const { return cycles > 0 ? std::max<int64_t>(0, cycles - chip.gdmaLatencyCycles) : 0; }

  /// Padding of the conv / pool window producing `out`: the part of the
  /// unclipped input range outside the tensor.
  std::array<int64_t, 4> padding(const Op &op, const Box &out) const {
    if (op.kind != OpKind::Conv && op.kind != OpKind::Pool)
      return {};
    const Value &in = g.values[op.inputs[0]];
    const Window &w = op.window;
    auto pads = [](const Range &o, int64_t s, int64_t p, int64_t d, int64_t k, int64_t extent) {
      int64_t b = o.begin * s - p, e = (o.end - 1) * s - p + d * (k - 1) + 1;
      return std::pair<int64_t, int64_t>{std::max<int64_t>(0, -b), std::max<int64_t>(0, e - extent)};
    };
    auto [pt, pb] = pads(out.h(), w.sh, w.padTop, w.dh, w.kh, in.dim(2));
    auto [pl, pr] = pads(out.w(), w.sw, w.padLeft, w.dw, w.kw, in.dim(3));
    return {pt, pb, pl, pr};
  }

  /// What core `core` has issued so far: every later command of the core waits for it.
  void barrier(const Stage &s, int core) {
    tiuBarrier[core] = static_cast<uint32_t>(s.cores[core].tiu.size());
    gdmaBarrier[core] = static_cast<uint32_t>(s.cores[core].gdma.size());
  }

  const ChipProfile &chip;
  const Graph &g;
  const LayerGroupPlan &plan;
  std::map<int, int64_t> ddr;
  std::vector<uint32_t> tiuBarrier, gdmaBarrier; ///< Per core.
  std::vector<Block> blocks;             ///< Control-flow blocks ended so far.
  std::vector<Block::Range> blockStart;  ///< Per core: where the current block starts.
  std::map<int, int> endedBy;            ///< Marker op -> the block it ended.
  std::map<int, std::vector<int>> markerCopies; ///< StageCode::markerCopies.
  int lastUsed = 0;  ///< Cores the last group with commands ran on (0: none yet).
  int lastGroup = -1;
};

TensorDesc ioDesc(const Graph &g, int v, uint64_t address) {
  TensorDesc t;
  const Value &val = g.values[v];
  t.name = val.name;
  t.dtype = static_cast<uint8_t>(val.dtype);
  t.shape = val.shape;
  t.address = address;
  t.bytes = static_cast<uint64_t>(val.bytes());
  return t;
}

} // namespace

StageCode generateStage(const ChipProfile &chip, const Graph &g, const LayerGroupPlan &plan,
                        const GmemPlan &gmem, const std::string &name,
                        const std::vector<std::string> &opTypes) {
  StageCode code;
  Stage &s = code.stage;
  s.name = name;
  s.coeffBytes = static_cast<uint64_t>(gmem.coeffBytes);
  s.activationBase = static_cast<uint64_t>(gmem.activationBase);
  s.activationBytes = static_cast<uint64_t>(gmem.activationPeak);
  s.cores.assign(static_cast<size_t>(std::max(1, plan.cores)), CoreStreams());
  for (size_t i = 0; i < g.ops.size(); ++i) {
    OpInfo info;
    info.name = g.ops[i].name;
    info.type = i < opTypes.size() ? opTypes[i] : std::string(opKindName(g.ops[i].kind));
    info.loc = g.ops[i].loc;
    s.ops.push_back(std::move(info));
  }
  Emitter e(chip, g, plan, gmem);
  for (size_t i = 0; i < g.ops.size(); ++i)
    if (g.ops[i].control == Control::IfBranch || g.ops[i].control == Control::IfElse)
      e.peerOf[g.ops[i].peer] = static_cast<int>(i);
  for (int v : g.inputs)
    s.inputs.push_back(ioDesc(g, v, e.ddrAddress(v)));
  for (int v : g.outputs)
    s.outputs.push_back(ioDesc(g, v, e.ddrAddress(v)));
  for (const GmemWeight &w : gmem.weights) {
    s.weights.push_back({static_cast<uint32_t>(code.weightValues.size()), static_cast<uint64_t>(w.address)});
    code.weightValues.push_back(w.value);
  }
  for (size_t gi = 0; gi < plan.groups.size(); ++gi) {
    const LayerGroup &grp = plan.groups[gi];
    if (grp.global)
      e.emitGlobal(s, static_cast<int>(gi), grp);
    else
      e.emitGroup(s, static_cast<int>(gi), grp);
  }
  if (!plan.groups.empty())
    e.finishBlocks(s, static_cast<int>(plan.groups.size()) - 1);
  code.markerCopies = std::move(e.markerCopies);
  return code;
}

} // namespace tpuc::codegen
