//===- ConvertLoss.cpp - ONNX NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss -===//
// Both losses are composed from Top ops the way ONNX's own function bodies define them: the target
// class of every sample is picked with gather_elements, weighted by a gather of the class weights, and
// samples whose target is `ignore_index` get weight 0 (their target is replaced by class 0 first, so the
// gathers stay in range).
//===----------------------------------------------------------------------===//
#include "GraphImporter.h"

using namespace mlir;
using namespace tpuc::top;

namespace tpuc::importer {
namespace {

Value compare(GraphImporter &g, StringRef suffix, Value lhs, Value rhs, CompareMode mode) {
  return g.build<CompareOp>(suffix, {lhs, rhs},
                         {g.named("mode", CompareModeAttr::get(g.builder().getContext(), mode))},
                         g.builder().getI1Type());
}

Value reduceAll(GraphImporter &g, StringRef suffix, Value x, ReduceMode mode) {
  std::vector<int64_t> axes;
  for (size_t k = 0; k < getShape(x).size(); ++k)
    axes.push_back(k);
  return g.build<ReduceOp>(suffix, {x},
                           {g.i64s("axes", axes), g.boolean("keepdims", false),
                            g.named("mode", ReduceModeAttr::get(g.builder().getContext(), mode))});
}

/// The loss of `logProb` [N, C, d1..dk] (log-probabilities) against `target` [N, d1..dk] with the node's
/// `reduction` and `ignore_index`; `weight` [C] is null when absent. `prefix` starts the helper op names.
Value nllLoss(GraphImporter &g, Value logProb, Value target, Value weight, StringRef prefix) {
  std::string reduction = g.attrString("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    (void)g.fail("unknown reduction '" + reduction + "'");
    return {};
  }
  auto in = getShape(logProb), tshape = getShape(target);
  if (in.size() < 2 || tshape.size() + 1 != in.size()) {
    (void)g.fail("expects scores of rank >= 2 and a target of one rank less, got " +
                 std::to_string(in.size()) + " and " + std::to_string(tshape.size()));
    return {};
  }
  Type targetElem = GraphImporter::elementTypeOf(target);
  Type f32 = g.builder().getF32Type();
  std::string p = prefix.str();
  bool ignore = g.hasAttr("ignore_index");
  Value keep; // i1 [N, d..]: target != ignore_index
  Value safe = target;
  if (ignore) {
    int64_t ii = g.attrInt("ignore_index", 0);
    int32_t dtype = isa<IntegerType>(targetElem) && cast<IntegerType>(targetElem).getWidth() == 32
                        ? onnx::TensorProto::INT32
                        : onnx::TensorProto::INT64;
    Value iiValue = g.materialize(g.nodeName() + "_" + p + "ignore_index", HostTensor::ints({}, {ii}, dtype));
    Value zero = g.materialize(g.nodeName() + "_" + p + "class0", HostTensor::ints({}, {0}, dtype));
    keep = iiValue ? compare(g, p + "keep", target, iiValue, CompareMode::ne) : Value();
    safe = keep && zero ? g.build<WhereOp>(p + "safe_target", {keep, target, zero}, {}, targetElem) : Value();
    if (!safe)
      return {};
  }
  std::vector<int64_t> idxShape(tshape.begin(), tshape.end());
  idxShape.insert(idxShape.begin() + 1, 1);
  Value idx = g.reshape(safe, idxShape, p + "target_index");
  Value picked = idx ? g.build<GatherElementsOp>(p + "pick", {logProb, idx}, {g.i64("axis", 1)}, f32) : Value();
  Value flat = picked ? g.reshape(picked, std::vector<int64_t>(tshape.begin(), tshape.end()), p + "picked")
                      : Value();
  // The op that computes the node's result takes the node's name; the others are helpers.
  bool negIsLast = reduction == "none" && !weight && !ignore;
  Value loss = flat ? g.build<MulConstOp>(negIsLast ? "" : p + "neg", {flat}, {g.f64("const_val", -1.0)})
                    : Value();
  if (!loss)
    return {};
  // Per-sample weights: the class weight of the target, zero where the target is ignored.
  Value w;
  if (weight)
    w = g.build<GatherOp>(p + "sample_weight", {weight, safe}, {g.i64("axis", 0)}, f32);
  if (ignore) {
    Value keepF = g.build<CastOp>(p + "keep_weight", {keep}, {}, f32);
    w = w && keepF ? g.build<MulOp>(p + "masked_weight", {w, keepF}) : keepF;
  }
  if ((weight || ignore) && !w)
    return {};
  if (w)
    loss = g.build<MulOp>(reduction == "none" ? "" : p + "weighted", {loss, w});
  if (!loss || reduction == "none")
    return loss;
  if (reduction == "sum")
    return reduceAll(g, "", loss, ReduceMode::sum);
  if (!w)
    return reduceAll(g, "", loss, ReduceMode::mean);
  Value total = reduceAll(g, p + "loss_sum", loss, ReduceMode::sum);
  Value norm = reduceAll(g, p + "weight_sum", w, ReduceMode::sum);
  return total && norm ? g.build<DivOp>("", {total, norm}) : Value();
}

LogicalResult convertNLLLoss(GraphImporter &g) {
  Value x = g.input(0), t = g.input(1);
  Value w = g.hasInput(2) ? g.input(2) : Value();
  if (!x || !t || (g.hasInput(2) && !w))
    return failure();
  Value loss = nllLoss(g, x, t, w, "");
  if (!loss)
    return failure();
  g.setOutput(0, loss);
  return success();
}

/// SoftmaxCrossEntropyLoss: log-softmax over the class axis, then the NLL loss; output 1 is the
/// log-probabilities.
LogicalResult convertSCELoss(GraphImporter &g) {
  Value x = g.input(0), t = g.input(1);
  Value w = g.hasInput(2) ? g.input(2) : Value();
  if (!x || !t || (g.hasInput(2) && !w))
    return failure();
  Value logProb = g.build<SoftmaxOp>("log_prob", {x}, {g.i64("axis", 1), g.boolean("log", true)},
                                  g.builder().getF32Type());
  Value loss = logProb ? nllLoss(g, logProb, t, w, "nll_") : Value();
  if (!loss)
    return failure();
  g.setOutput(0, loss);
  if (g.node().output_size() > 1)
    g.setOutput(1, logProb);
  return success();
}

} // namespace

void addLossConverters(OpTable &table) {
  table["NegativeLogLikelihoodLoss"].convert = convertNLLLoss;
  table["SoftmaxCrossEntropyLoss"].convert = convertSCELoss;
}

} // namespace tpuc::importer
