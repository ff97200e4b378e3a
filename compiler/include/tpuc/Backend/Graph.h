//===- Graph.h - Plain-data operator graph the backend plans on -----------===//
//
// A Tpu-level graph reduced to what layer grouping, memory planning and the
// cost model need: ops in topological order with their kind, windows
// (kernel/stride/pad/dilation) and activation / weight values with shapes and
// dtypes. MLIR-free, so planners are testable on hand-built graphs; the MLIR
// passes build one from Tpu IR.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_BACKEND_GRAPH_H
#define TPUC_BACKEND_GRAPH_H

#include "tpuc/Backend/ChipProfile.h"
#include "tpuc/Support/Window2D.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpuc::backend {

/// Storage types of values.
enum class DType { INT8, UINT8, INT16, INT32, F16, BF16, F32 };

/// Bytes of one element.
int64_t dtypeBytes(DType t);
/// "INT8", "F32", ...
const char *dtypeName(DType t);
/// Inverse of dtypeName; nullopt for an unknown name.
std::optional<DType> parseDType(std::string_view name);
/// The TIU precision that computes on `t` (integers wider than 8 bits and
/// F32 map to F32).
Precision computePrecision(DType t);

/// What an op does, as far as the planners care.
enum class OpKind {
  Conv,       ///< 2-D convolution (groups, dilation); depthwise when groups==C.
  Pool,       ///< Max / average pooling with a window.
  Eltwise,    ///< Binary elementwise (add, mul, ...) with broadcasting.
  Unary,      ///< Activation / elementwise with one input.
  Reshape,    ///< Reshape / flatten / squeeze: in place in DDR.
  Concat,     ///< Concatenation along `axis`: in place in DDR when possible.
  MatMul,     ///< Fully connected / matrix multiply.
  GlobalPool, ///< Reduction over H and W.
  LayerNorm,  ///< Layer normalization over the last axis (mean, variance; gamma, beta as weights).
  RMSNorm,    ///< Root-mean-square normalization over the last axis (gamma as a weight).
  Softmax,    ///< Softmax or log-softmax along the last axis.
  Other,      ///< Anything else; never grouped.
};

/// "conv", "pool", ...
const char *opKindName(OpKind k);
/// Whether ops of the kind normalize each row along the last axis (LayerNorm, RMSNorm, Softmax): their
/// local form computes whole rows, like a matmul's.
bool isRowNorm(OpKind k);

/// Control flow (tpu.if, tpu.loop) laid out in program order as marker ops between the regions' ops. Each
/// marker ends a block of the model file's command streams (docs/MODEL_FORMAT.md):
///
///   ... IfBranch(cond)  then-ops  IfElse(then yields)  else-ops  IfJoin(else yields) -> results ...
///   ... LoopInit(inits) -> slots  body-ops  LoopBack(yields) ...
///
/// IfBranch ends its block with a branch on `cond` (then: the next op, else: after IfElse); IfElse copies
/// the then-branch's yields into the If's results and jumps past IfJoin; IfJoin copies the else-branch's.
/// LoopInit copies the initial values into the loop's slots (its results, which the body reads as its
/// carried arguments), then an empty block branches on slot 0 (the go flag): into the body, or past
/// LoopBack. LoopBack copies the yields into the slots and jumps back to that branch. Markers never join a
/// layer group; IfBranch, IfElse and LoopBack have a one-byte result nobody reads.
enum class Control { None, IfBranch, IfElse, IfJoin, LoopInit, LoopBack };
/// "if_branch", "if_else", ...
const char *controlName(Control c);

/// Sliding window of Conv and Pool.
using Window = Window2D;

/// A tensor: an activation (op result or graph input) or a weight.
struct Value {
  std::string name;
  std::vector<int64_t> shape; ///< NCHW for grouped ops; any rank otherwise.
  DType dtype = DType::F32;
  bool isWeight = false;
  int producer = -1;      ///< Op index; -1 for graph inputs and weights.
  std::vector<int> users; ///< Op indices, ascending (set by Graph::addOp).

  int64_t elements() const;
  int64_t bytes() const { return elements() * dtypeBytes(dtype); }
  /// Dimension `i` of the NCHW view: shapes of rank < 4 are padded with
  /// trailing 1s ([N, C] -> [N, C, 1, 1]), higher ranks fold into W
  /// ([N, A, H, W, K] -> [N, A, H, W * K]).
  int64_t dim(int i) const;
};

/// One operation. Activation operands and weights are value indices.
struct Op {
  std::string name;
  OpKind kind = OpKind::Other;
  std::vector<int> inputs;  ///< Activations.
  std::vector<int> weights; ///< Filter, bias, ...
  std::vector<int> outputs;
  Window window;      ///< Conv / Pool.
  int64_t groups = 1; ///< Conv.
  int64_t axis = 1;   ///< Concat; Gather (of its data operand).
  /// A gather (an index lookup): it reads from its data operand (first weight, else first input) only
  /// the slices it returns, not the whole tensor (an embedding table of 150k rows for one token).
  bool gathers = false;
  /// Scaled dot-product attention (inputs query [B, Lq, Hq, D], key and value [B, Lk, Hkv, D], an
  /// optional mask): both products on the cube and the softmax on the EU, the scores kept in LMEM.
  bool attention = false;
  /// Deformable convolution (inputs: the image [N, C, H, W], then offset and mask; weights: the OIHW
  /// filter, then the bias): four taps per sample gathered and weighted on the EU into columns in LMEM,
  /// then a matmul of the filter with them on the cube.
  bool deformConv = false;
  /// A matmul without a local (row-sliced) form: it reads its activation transposed or has its weight
  /// on the left (its result rows are not the activation's rows), or it is a weight-only quantized
  /// matmul (a16matmul: its packed weights stream once per token, which grouping does not save).
  bool noRowForm = false;
  /// A matmul whose weight holds its output columns in dim 0 ([N, K], `right_transpose`); else [K, N].
  bool weightColumnsFirst = false;
  /// An INT8 activation by lookup table (tpu.active): its weight is the 256-entry table every element
  /// indexes, read whole by every slice (not a per-channel or per-column parameter).
  bool lookupTable = false;
  /// A control-flow marker (Control); `peer` links IfBranch -> IfElse -> IfJoin and LoopInit <-> LoopBack.
  Control control = Control::None;
  int peer = -1;
  /// A marker's operands in order (the condition; the values it copies), weights included (a loop's
  /// initial step is a constant); `inputs` and `weights` hold them split as for every op.
  std::vector<int> sources;
  std::string loc;    ///< Source location, for debug info.
};

/// A value the memory plan keeps in place from op `from` to op `to` (both included) whatever its uses: a
/// loop's slots and captured values (read again by the next step), an If's results (written by either
/// branch before the join).
struct KeepAlive {
  int value = -1, from = -1, to = -1;
};

/// Ops in topological order and their values.
class Graph {
public:
  /// Adds a graph input and returns its index.
  int addInput(std::string name, std::vector<int64_t> shape, DType dtype);
  /// Adds a weight and returns its index.
  int addWeight(std::string name, std::vector<int64_t> shape, DType dtype);
  /// Adds an op producing new values of the given names, shapes and dtypes;
  /// returns the op index. Operands must already exist.
  int addOp(Op op, const std::vector<Value> &results);
  /// Marks a value as a graph output.
  void markOutput(int value) { outputs.push_back(value); }

  /// Checks topological order, ranks and the shapes of conv/pool/eltwise
  /// ops. Returns "" or one line naming the op at fault.
  std::string verify() const;

  /// True if the op can run inside a layer group: conv and pool on 4-D NCHW activations (H/W
  /// sliceable with a halo rule); element-wise ops on activations of one rank from 2 to 4 (below 4,
  /// their weights broadcast along the rows: only the last axis may vary); a matmul with a weight as
  /// its right operand, computed row by row (its activation and result of one rank from 2 to 4, the
  /// same rows, the input's last axis reduced); a row normalization (isRowNorm) on an activation of
  /// rank 2 to 4 and a result of its shape, its weights varying along the last axis only.
  bool isGroupable(int op) const;
  /// Whether a group holding the op may cut its tensors along rows only (every axis but the last):
  /// a matmul (it reduces over its input's last axis), a row normalization (it reduces each row) and
  /// any groupable op on tensors of rank 2 or 3 (their last axis is a feature axis, and their weights
  /// run along it).
  bool cutsRowsOnly(int op) const;
  /// Whether the value is a graph output.
  bool isOutput(int value) const;

  /// Whether the graph has control-flow markers.
  bool hasControl() const;
  /// The value whose DDR storage `v` shares through in-place reshapes (v itself if none).
  int reshapeRoot(int v) const;
  /// For each value a LoopBack marker copies into a slot: whether it reads a slot's storage (a slot
  /// passed through, or a reshape of one), so another copy could overwrite it first; such values go
  /// through a hold buffer of their own (the marker's results after the first).
  std::vector<bool> loopHolds(int loopBack) const;
  /// The same for a LoopBack not in the graph yet: the values it copies and its LoopInit marker.
  std::vector<bool> loopHolds(const std::vector<int> &sources, int loopInit) const;
  std::vector<Value> values;
  std::vector<Op> ops;
  std::vector<int> inputs;
  std::vector<int> outputs;
  std::vector<KeepAlive> keepAlive;
};

/// Builds graphs with shapes inferred the way the Top shape rules do, for
/// tests, benchmarks and hand-written examples.
class GraphBuilder {
public:
  /// Activations (and weights) take `dtype`; conv biases are INT32 when
  /// `dtype` is an 8-bit integer type.
  explicit GraphBuilder(DType dtype = DType::INT8) : dtype(dtype) {}

  int input(const std::string &name, std::vector<int64_t> shape);
  /// Conv with a square kernel, symmetric padding; `relu` is fused.
  int conv(const std::string &name, int in, int64_t oc, int64_t k, int64_t stride = 1, int64_t pad = 0,
           int64_t groups = 1, int64_t dilation = 1);
  /// Conv with a general window.
  int conv(const std::string &name, int in, int64_t oc, const Window &w, int64_t groups = 1);
  int maxPool(const std::string &name, int in, int64_t k, int64_t stride, int64_t pad = 0);
  int avgPool(const std::string &name, int in, int64_t k, int64_t stride, int64_t pad = 0);
  int add(const std::string &name, int a, int b);
  int unary(const std::string &name, int in);
  int globalPool(const std::string &name, int in);
  int reshape(const std::string &name, int in, std::vector<int64_t> shape);
  int concat(const std::string &name, const std::vector<int> &ins, int64_t axis);
  /// [N, K] x [K, outFeatures] + bias.
  int matmul(const std::string &name, int in, int64_t outFeatures);
  /// [..., K] x [K, outFeatures], keeping the leading axes (a transformer's linear layer; no bias).
  int linear(const std::string &name, int in, int64_t outFeatures);
  /// Adds a bias along the last axis: an element-wise op with a weight of that extent.
  int bias(const std::string &name, int in);
  void output(int v) { graph.markOutput(v); }

  const Graph &get() const { return graph; }
  Graph take() { return std::move(graph); }

private:
  int single(Op op, std::vector<int64_t> shape);
  Graph graph;
  DType dtype;
};

} // namespace tpuc::backend

#endif // TPUC_BACKEND_GRAPH_H
