//===- OnnxModelLoader.h - Reading and checking ONNX models -----*- C++ -*-===//
// Parses an .onnx file (bounds-checked), inlines external data, fixes the input shapes, and runs
// onnx::checker and onnx::shape_inference. Every failure is one line naming the file.
//===----------------------------------------------------------------------===//
#ifndef TPUC_LIB_IMPORT_ONNXMODELLOADER_H
#define TPUC_LIB_IMPORT_ONNXMODELLOADER_H

#include "tpuc/Import/OnnxImporter.h"

#include "onnx/onnx_pb.h"

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tpuc::importer {

/// Oldest and newest default-domain opset the importer maps. Below opset 7 the forms whose semantics
/// differ from later versions (limited `broadcast` with `axis`, training `is_test = 0`, attribute forms of
/// Reshape, Pad, Cast and Tile) are refused by name; everything else means what it means at opset 7.
/// Opsets 18 and 19 are newer than the onnx library Debian ships (1.12: opset 17): for them the checker
/// and shape inference leave out the nodes whose form changed after the library's newest opset
/// (libraryOpset()), and the Top shape rules alone check those.
constexpr int64_t kMinOpset = 1;
constexpr int64_t kMaxOpset = 19;

/// Newest default-domain opset the linked onnx library has schemas for.
int64_t libraryOpset();

/// A parsed model and what the importer needs to know about it.
struct LoadedModel {
  onnx::ModelProto proto;
  /// The model path as the user gave it; prefixes every message.
  std::string path;
  /// Version of the default ("" / "ai.onnx") domain.
  int64_t opset = 0;
  /// Graph inputs that are not initializers, in graph order.
  std::vector<std::string> inputs;
  /// ONNX's declared (after checkModel) or inferred (after inferShapes) type of every tensor.
  std::unordered_map<std::string, const onnx::TypeProto *> types;
};

/// Reads and parses `options.modelDef` from a file, checks the opset, inlines external data and applies
/// --input_shapes / --input_types. Fails with a one-line `error`.
bool loadModel(const TransformOptions &options, LoadedModel &model, std::string &error);

/// Same, from a model image held in memory (the fuzzer's entry); external data is looked up relative to
/// `baseDir`.
bool loadModelFromMemory(const void *data, size_t size, const std::string &displayName,
                         const std::string &baseDir, const TransformOptions &options, LoadedModel &model,
                         std::string &error);

/// Runs onnx::checker on the whole model and indexes the declared types.
bool checkModel(LoadedModel &model, std::string &error);

/// Runs onnx::shape_inference (strict, with data propagation) on the graph reduced to the nodes in
/// `keep` (this deletes the other nodes from `model.proto`, invalidating pointers to nodes) and indexes
/// the inferred types. The importer runs it after the Top import, as an independent check of its shapes.
bool inferShapes(LoadedModel &model, const std::unordered_set<const onnx::NodeProto *> &keep,
                 std::string &error);

/// An exception text of the onnx library as one line: without its context dump, whitespace collapsed.
std::string oneLine(const std::string &text);

} // namespace tpuc::importer

#endif // TPUC_LIB_IMPORT_ONNXMODELLOADER_H
