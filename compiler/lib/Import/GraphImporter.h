//===- GraphImporter.h - Builds Top IR from an ONNX graph --------*- C++ -*-===//
// The state of one graph import and the helpers the per-op converters and folders use.
//===----------------------------------------------------------------------===//
#ifndef TPUC_LIB_IMPORT_GRAPHIMPORTER_H
#define TPUC_LIB_IMPORT_GRAPHIMPORTER_H

#include "HostTensor.h"
#include "OnnxModelLoader.h"

#include "tpuc/Dialect/Top/TopOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/StringMap.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tpuc::importer {

class GraphImporter;

/// Maps the current node to Top ops; reports failures through GraphImporter::fail.
using ConvertFn = mlir::LogicalResult (*)(GraphImporter &);
/// Computes the current node's outputs at import time. Returns true with `outputs` filled when it could,
/// false when an input is not known, failure after reporting an error.
using FoldFn = mlir::FailureOr<bool> (*)(GraphImporter &, std::vector<HostTensor> &outputs);

struct OpHandlers {
  ConvertFn convert = nullptr;
  FoldFn fold = nullptr;
};
using OpTable = llvm::StringMap<OpHandlers>;

/// Every ONNX op type the importer handles, with its converter and/or folder.
const OpTable &opTable();
void addNNConverters(OpTable &table);
void addElementwiseConverters(OpTable &table);
void addShapeConverters(OpTable &table);
void addLossConverters(OpTable &table);
void addCompositeConverters(OpTable &table);
void addRecurrentConverters(OpTable &table);
void addLoopConverters(OpTable &table);
void addFolders(OpTable &table);
/// Integer Div of tensors not known at import time: trunc(a / b), computed in f32 and cast back
/// (ConvertComposite.cpp).
mlir::LogicalResult convertIntegerDiv(GraphImporter &g);

/// What the importer knows about one ONNX tensor.
struct TensorInfo {
  mlir::Value value;                              ///< Its Top value (null until a constant is materialized).
  std::shared_ptr<const HostTensor> constant;     ///< Its data, when known at import time.
  const onnx::TensorProto *initializer = nullptr; ///< Not yet decoded initializer.
};

class GraphImporter {
public:
  /// `diagnostic` receives the text of MLIR errors emitted while the importer builds ops.
  GraphImporter(LoadedModel &model, mlir::func::FuncOp func, std::string &diagnostic);

  /// Selects the nodes needed for `outputs` (the graph outputs when empty). Fails if an output names no
  /// tensor of the graph.
  bool selectOutputs(const std::vector<std::string> &outputs, std::string &error);
  /// Fails on the first needed node whose op type the importer does not handle.
  bool checkSupported(std::string &error);
  /// Registers a graph input's Top value.
  void addInput(const std::string &name, mlir::Value value);
  /// Imports the needed nodes in graph order and returns the output values.
  bool run(std::vector<mlir::Value> &results, std::string &error);
  /// The ONNX names of the values run() returns, in order.
  const std::vector<std::string> &outputNames() const { return outputs_; }
  /// Imports the nodes of a subgraph (an If branch) in place, as if they were the current node's: its
  /// initializers become constants, its nodes read the outer graph's tensors by name. `outputs` receives
  /// what the subgraph's outputs hold (a value or a constant). Failure has been reported.
  mlir::LogicalResult importSubgraph(const onnx::GraphProto &subgraph, std::vector<TensorInfo> &outputs);
  /// Imports one step of a loop body (Loop, Scan): importSubgraph with the body's inputs bound, by
  /// position, to `inputs`, and the tensors it produces named `<onnx name>` + `suffix` (one suffix per step,
  /// so every step's tensors have names of their own).
  mlir::LogicalResult importBody(const onnx::GraphProto &body, const std::vector<TensorInfo> &inputs,
                                 const std::string &suffix, std::vector<TensorInfo> &outputs);
  /// Imports `subgraph` into `block`, the body of a region op (top.if's branches, top.loop's body): the
  /// block's arguments stand for the subgraph's first inputs (by position), its nodes' ops go into the
  /// block named after their tensors as anywhere else, and a top.yield of its outputs ends it (constants
  /// materialized inside). Outer tensors it reads stay outer values until isolateRegions; an outer
  /// constant it materializes belongs to the block only. Failure has been reported.
  mlir::LogicalResult importRegion(const onnx::GraphProto &subgraph, mlir::Block &block);
  /// Isolates `regions` (of one op) from above: an outer weight or none they read is copied into each
  /// region; every other outer value becomes a block argument appended to each region, one per distinct
  /// value in order of first use. Returns those values: the op's operands for them.
  llvm::SmallVector<mlir::Value> isolateRegions(llvm::ArrayRef<mlir::Region *> regions);
  /// A region op a converter built (through its ODS builder, at the insertion point) once its regions are
  /// complete: verifies it, infers its result shapes and counts it as the current node's op. Fails (the
  /// op erased) after reporting an error.
  mlir::LogicalResult finishRegionOp(mlir::Operation *op);
  /// Whether the tensor `name` of the graph being imported is known at import time (a constant, an
  /// initializer); false for data and for names not imported yet.
  bool knownAtImport(const std::string &name);
  /// What input `i` holds: its data when known at import time, else its Top value. Null value and data
  /// after reporting an error.
  TensorInfo inputInfo(size_t i);
  /// Loop-body steps imported so far in the whole model (nested loops included): the unrolling budget.
  int64_t &bodySteps() { return bodySteps_; }
  /// --loop_max_trips (0: not given).
  int64_t loopMaxTrips() const { return loopMaxTrips_; }
  void setLoopMaxTrips(int64_t trips) { loopMaxTrips_ = trips; }
  /// The nodes run() imports.
  std::unordered_set<const onnx::NodeProto *> importedNodes() const;
  /// After ONNX's shape inference: every imported tensor's Top shape must equal the static shape ONNX
  /// infers for it (when it infers one).
  bool crossCheckShapes(std::string &error);

  //===--- The current node -------------------------------------------------===//
  const onnx::NodeProto &node() const { return *node_; }
  const std::string &nodeName() const { return nodeName_; }
  int64_t opset() const { return model_.opset; }
  /// Whether input `i` is present (not omitted or empty).
  bool hasInput(size_t i) const;
  /// The data of input `i` when it is known at import time, else null.
  const HostTensor *constInput(size_t i);
  /// Whether every present input is known at import time.
  bool allInputsConstant();
  /// Static shape of input `i`.
  std::vector<int64_t> inputShape(size_t i);
  /// Top element type of input `i`.
  mlir::Type inputElemType(size_t i);
  /// The Top value of input `i`, materializing a constant as a weight; null after reporting an error.
  mlir::Value input(size_t i);
  /// Like input(), but `top.none` when the input is absent.
  mlir::Value optionalInput(size_t i);
  mlir::Value none();
  /// Whether any imported node or function result reads output `i`.
  bool outputUsed(size_t i) const;
  /// Whether input `i` is present and only known at run time.
  bool runtimeInput(size_t i) { return hasInput(i) && !constInput(i); }
  /// The static shape the model declares for output `i` (graph outputs, value_info), if it declares one.
  /// A static-shape compiler takes a shape-only parameter fed at run time (Reshape's shape, Unsqueeze's
  /// axes, TopK's K, ...) from it: the input and output shapes are fixed, so they imply its value.
  std::optional<std::vector<int64_t>> declaredShape(size_t i) const;

  //===--- Attributes of the current node -----------------------------------===//
  bool hasAttr(llvm::StringRef name) const;
  int64_t attrInt(llvm::StringRef name, int64_t fallback) const;
  double attrFloat(llvm::StringRef name, double fallback) const;
  std::string attrString(llvm::StringRef name, llvm::StringRef fallback) const;
  std::vector<int64_t> attrInts(llvm::StringRef name) const;
  std::vector<float> attrFloats(llvm::StringRef name) const;
  const onnx::AttributeProto *attr(llvm::StringRef name) const;

  //===--- Building ---------------------------------------------------------===//
  mlir::OpBuilder &builder() { return builder_; }
  /// The location of an op the current node creates, named after the tensor it produces
  /// (TensorNames.h): `loc("<output 0>"("<node>"))`, or `loc("<output 0>_<suffix>"("<node>_<suffix>"("<node>")))`
  /// for a helper op. Once the node is converted, an op whose result is ONNX output k is renamed to that
  /// output's name (finishNode).
  mlir::Location loc(llvm::StringRef suffix = {});
  /// Top element type of output `i`: the declared type if the model declares one, else by ONNX's typing
  /// rules of the op (f32 for every float type).
  mlir::Type outputElemType(size_t i);
  /// Top element type for an ONNX dtype.
  mlir::Type topElemType(int32_t dtype);
  /// Creates op `OpTy` with placeholder results of the given element types, verifies it and infers its
  /// result shapes. Null after reporting an error.
  template <typename OpTy>
  OpTy create(llvm::StringRef suffix, mlir::ValueRange operands, llvm::ArrayRef<mlir::NamedAttribute> attrs,
              llvm::ArrayRef<mlir::Type> elemTypes) {
    return llvm::cast_if_present<OpTy>(
        createOp(OpTy::getOperationName(), suffix, operands, attrs, elemTypes));
  }
  /// Single-result form whose result takes the element type of output 0 (no suffix) or of operand 0.
  template <typename OpTy>
  mlir::Value build(llvm::StringRef suffix, mlir::ValueRange operands,
                    llvm::ArrayRef<mlir::NamedAttribute> attrs = {}) {
    return build<OpTy>(suffix, operands, attrs, suffix.empty() ? outputElemType(0) : elementTypeOf(operands[0]));
  }
  /// Single-result form whose result has element type `elem`.
  template <typename OpTy>
  mlir::Value build(llvm::StringRef suffix, mlir::ValueRange operands, llvm::ArrayRef<mlir::NamedAttribute> attrs,
                    mlir::Type elem) {
    mlir::Operation *op = createOp(OpTy::getOperationName(), suffix, operands, attrs, {elem});
    return op ? op->getResult(0) : mlir::Value();
  }
  mlir::Operation *createOp(llvm::StringRef name, llvm::StringRef suffix, mlir::ValueRange operands,
                            llvm::ArrayRef<mlir::NamedAttribute> attrs, llvm::ArrayRef<mlir::Type> elemTypes);
  /// Like createOp, with full result types (ops whose result extent depends on the data take the shapes
  /// the model declares).
  mlir::Operation *createTyped(llvm::StringRef name, llvm::StringRef suffix, mlir::ValueRange operands,
                               llvm::ArrayRef<mlir::NamedAttribute> attrs, llvm::ArrayRef<mlir::Type> types);
  /// top.reshape of `value` to `shape` (a no-op when the shape already matches).
  mlir::Value reshape(mlir::Value value, llvm::ArrayRef<int64_t> shape, llvm::StringRef suffix);
  /// top.slice of `value` keeping every `step`-th element of [begin, end) along `axis` (a no-op when that is
  /// the whole axis).
  mlir::Value sliceAxis(mlir::Value value, int64_t axis, int64_t begin, int64_t end, llvm::StringRef suffix,
                        int64_t step = 1);
  /// An inline constant (integers or bools) or a weight in the file, named `name`.
  mlir::Value materialize(const std::string &name, const HostTensor &tensor);
  static mlir::Type elementTypeOf(mlir::Value value);

  mlir::NamedAttribute named(llvm::StringRef name, mlir::Attribute value) {
    return builder_.getNamedAttr(name, value);
  }
  mlir::NamedAttribute i64s(llvm::StringRef name, llvm::ArrayRef<int64_t> values) {
    return named(name, builder_.getDenseI64ArrayAttr(values));
  }
  mlir::NamedAttribute i64(llvm::StringRef name, int64_t value) {
    return named(name, builder_.getI64IntegerAttr(value));
  }
  mlir::NamedAttribute f64(llvm::StringRef name, double value) {
    return named(name, builder_.getF64FloatAttr(value));
  }
  mlir::NamedAttribute boolean(llvm::StringRef name, bool value) {
    return named(name, builder_.getBoolAttr(value));
  }

  void setOutput(size_t i, mlir::Value value);
  /// Sets output 0 to `value`; a null value (whose conversion already reported why) fails.
  mlir::LogicalResult finish(mlir::Value value) {
    if (!value)
      return mlir::failure();
    setOutput(0, value);
    return mlir::success();
  }
  void setConstOutput(size_t i, HostTensor tensor);

  /// Reports `<file>: node '<name>' (<OpType>): <reason>` and returns failure.
  mlir::LogicalResult fail(const llvm::Twine &reason);
  /// Normalizes an axis into [0, rank), reporting an error when out of range.
  mlir::FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank, llvm::StringRef what);

private:
  TensorInfo *lookup(const std::string &name);
  const HostTensor *constantOf(TensorInfo &info);
  bool importNode(const onnx::NodeProto &node);
  bool checkOutputs();
  /// Names the ops the current node created after the ONNX outputs they produce, and records each
  /// output the node forwarded from elsewhere as an alias of that value (TensorNames.h).
  void nameOutputs();
  /// `name`, or `name_<n>` when an ONNX tensor or an earlier op already has it.
  std::string uniqueName(const std::string &name);

  LoadedModel &model_;
  mlir::func::FuncOp func_;
  mlir::OpBuilder builder_;
  std::string &diagnostic_;
  std::string error_;
  std::unordered_map<std::string, TensorInfo> tensors_;
  std::vector<const onnx::NodeProto *> nodes_; ///< Needed nodes, in graph order.
  std::vector<std::string> outputs_;
  std::unordered_set<std::string> usedNames_;
  std::unordered_set<std::string> nodeNames_;
  /// Producing node (location name, op type) of every tensor the import produced.
  std::unordered_map<std::string, std::pair<std::string, std::string>> producers_;
  const onnx::NodeProto *node_ = nullptr;
  std::string nodeName_;
  /// The name the current node's ops start from: its first output (TPU-MLIR's op name), else nodeName_.
  std::string baseName_;
  /// Appended to the tensor names a loop body's step produces (importBody).
  std::string nameSuffix_;
  int64_t bodySteps_ = 0;
  int64_t loopMaxTrips_ = 0;
  /// Ops the current node created (weights and none excepted), in creation order.
  std::vector<mlir::Operation *> created_;
  /// Every ONNX tensor name of the graph and every name given to an op so far.
  std::unordered_set<std::string> takenNames_;
  mlir::Value none_;
  int constantCount_ = 0;
};

} // namespace tpuc::importer

#endif // TPUC_LIB_IMPORT_GRAPHIMPORTER_H
