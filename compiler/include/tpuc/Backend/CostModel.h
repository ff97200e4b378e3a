//===- CostModel.h - Cycle estimates of TIU and GDMA commands -------------===//
//
// Cycles per command from the chip profile (formulas in docs/BACKEND.md, "Cost model"). TIU: work per
// lane (output channels spread over lanes, so ceil(C / lanes) of them per lane: lane utilization), with
// the H x W plane padded to the EU width and input channels to the cube's step (alignment waste),
// divided by the precision's throughput and the profile's sustained efficiency, plus a startup per
// pass (one output channel of a lane, one tap, one input step) and a fixed issue cost. GDMA: bytes
// moved in contiguous runs each rounded up to the burst size, at the profile's bandwidth times its
// efficiency, plus a cost per run switch and a fixed latency. Layer grouping uses it to choose
// boundaries; codegen stamps it on every command the command-level simulator schedules.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_BACKEND_COSTMODEL_H
#define TPUC_BACKEND_COSTMODEL_H

#include "tpuc/Backend/ChipProfile.h"
#include "tpuc/Backend/Graph.h"
#include "tpuc/Backend/Slicing.h"

#include <cstdint>
#include <vector>

namespace tpuc::backend {

/// The estimate of one TIU command (one op on one slice).
struct TiuCost {
  int64_t cycles = 0;
  int64_t macs = 0;           ///< Useful multiply-accumulates (or element ops).
  double laneUtilization = 1; ///< Channels / (lanes * ceil(channels / lanes)).
  double euUtilization = 1;   ///< H*W / H*W padded to the EU width.
};

/// TIU cycles of `op` producing box `out` of its result.
TiuCost tiuCost(const ChipProfile &chip, const Graph &g, const Op &op, const Box &out);

/// GDMA cycles of moving `bytes` in contiguous runs of `runBytes`.
int64_t dmaCycles(const ChipProfile &chip, int64_t bytes, int64_t runBytes);

/// The part of dmaCycles spent in DDR (the bytes and the run switches, without
/// the fixed latency): what shares the DDR bandwidth with other cores' transfers.
int64_t dmaTransferCycles(const ChipProfile &chip, int64_t bytes, int64_t runBytes);

/// Bytes of the longest contiguous run of box `b` of value `v` in DDR (dense
/// NCHW): the trailing dimensions the box holds whole, times the first it cuts.
int64_t ddrRunBytes(const Value &v, const Box &b);

/// GDMA cycles of moving box `b` of activation `v` between DDR and LMEM
/// (NCHW in DDR: runs are whole rows, or whole planes when W is not cut).
int64_t dmaBoxCycles(const ChipProfile &chip, const Value &v, const Box &b);

/// The estimate of an op run outside any layer group (a global op: its
/// operands and result stream through DDR, its own tiling overlapping
/// transfers and compute).
struct GlobalCost {
  int64_t tiu = 0, dma = 0, cycles = 0;
  int64_t transfer = 0; ///< Of `dma`, the cycles moving bytes at the full DDR bandwidth (no latencies).
};
GlobalCost globalOpCost(const ChipProfile &chip, const Graph &g, const Op &op, bool inPlace);
/// One GDMA DDR-to-DDR copy of `bytes` contiguous bytes: read and write each at the DMA rate.
GlobalCost ddrCopyCost(const ChipProfile &chip, int64_t bytes);
/// A control-flow marker (Graph.h): the DDR copies it makes (an If's yields into its results, a loop's
/// values into its slots); the branch itself costs the barrier that ends the block.
GlobalCost controlCost(const ChipProfile &chip, const Graph &g, const Op &op);
/// The estimate of one core's part of a global op: `boxes` are the boxes it reads and writes, one per
/// output, input and weight in that order (globalPartBoxes).
GlobalCost globalPartCost(const ChipProfile &chip, const Graph &g, const Op &op, const std::vector<Box> &boxes);

/// Cycles of `tiu` TIU and `gdma` GDMA cycles of one core run side by side: the longer plus
/// `npu.engine_contention` times the shorter (while both run, each slows by the LMEM banks they
/// share), rounded up.
int64_t overlappedCycles(const ChipProfile &chip, int64_t tiu, int64_t gdma);

/// Cycles to microseconds at the profile's clock.
double cyclesToUs(const ChipProfile &chip, int64_t cycles);

} // namespace tpuc::backend

#endif // TPUC_BACKEND_COSTMODEL_H
