//===- ModelFile.h - The .tpum model file: data, writer, bounds-checked reader ===//
//
// TPU Studio's own compiled-model format (docs/MODEL_FORMAT.md; never a
// bmodel): a chip name, a coefficient blob of weights stored once and shared
// by every net, and nets of stages, each with IO descriptors, the DDR plan and,
// per core, two command streams (TIU compute, GDMA data movement) whose
// commands wait on ids of the core's other engine and meet the other cores'
// streams at barriers, plus debug info (op name, type, location) per command.
// MLIR-free and Qt-free.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_CODEGEN_MODELFILE_H
#define TPUC_CODEGEN_MODELFILE_H

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace tpuc::codegen {

/// Current format version written; the reader also accepts versions 2 (one core, no DDR cycles), 3 and 4
/// (no control-flow blocks).
constexpr uint32_t kModelVersion = 5;

/// A file could not be read or written; what() is one line naming the file.
class ModelFileError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The engine a command runs on.
enum class Engine : uint8_t { TIU = 0, GDMA = 1 };
/// What a command does.
enum class CmdKind : uint8_t {
  Load = 0,    ///< GDMA DDR -> LMEM.
  Store = 1,   ///< GDMA LMEM -> DDR.
  Copy = 2,    ///< GDMA DDR -> DDR.
  Compute = 3, ///< TIU op on LMEM operands (one slice of a layer group).
  Global = 4,  ///< TIU op on DDR operands (an op outside any group).
  Sync = 5,    ///< Barrier: waits until every stream of every core has reached its barrier of that number.
};
/// Where a tensor reference points.
enum class MemSpace : uint8_t { LMEM = 0, DDR = 1 };

const char *engineName(Engine e);
const char *cmdKindName(CmdKind k);

/// A box of a tensor in one memory: the box [origin, origin + shape) of the
/// full NCHW tensor sits at `address` with byte strides `stride` (LMEM:
/// address is the per-lane offset, channel c lives in lane (lane + c) % lanes
/// and the C stride steps one channel plane inside a lane).
struct TensorRef {
  MemSpace space = MemSpace::DDR;
  uint8_t dtype = 0; ///< backend::DType.
  uint32_t lane = 0; ///< LMEM: lane of the box's first channel.
  uint64_t address = 0;
  std::array<int64_t, 4> origin{}; ///< n, c, h, w of the box in the full tensor.
  std::array<int64_t, 4> shape{};
  std::array<int64_t, 4> stride{}; ///< Bytes.
  friend bool operator==(const TensorRef &, const TensorRef &) = default;
};

/// One command. `id` counts from 1 per engine and stream (of its core); the
/// command starts only after the core's other engine has completed every
/// command with id <= `wait` (0: no wait). The k-th Sync command of every
/// stream of every core forms barrier k: each ends `cycles` after the last of
/// them has started.
struct Command {
  Engine engine = Engine::TIU;
  CmdKind kind = CmdKind::Compute;
  uint32_t id = 0;
  uint32_t wait = 0;
  uint32_t op = 0;              ///< Index into Stage::ops (debug info, TIU op kind).
  int32_t group = -1;           ///< Layer group (-1: global op).
  int32_t slice = -1;           ///< Slice of the group (-1: whole tensor / resident weight).
  int32_t step = -1;            ///< Pipeline stage (time step) of the group.
  std::array<int64_t, 4> pad{}; ///< TIU: padding top, bottom, left, right of this slice.
  int64_t cycles = 0;           ///< Cost-model estimate, with the DDR to itself.
  /// Of `cycles`, the last ones moving DDR data at the full DDR bandwidth (GDMA: all but the latency; a
  /// global op: its operands' transfers): the part that stretches while other cores' transfers share DDR.
  int64_t ddrCycles = 0;
  /// GDMA: {source, destination}. TIU: outputs, then inputs, then weights.
  std::vector<TensorRef> operands;
  uint32_t numOutputs = 0, numInputs = 0; ///< TIU operand split (rest are weights).
  friend bool operator==(const Command &, const Command &) = default;
};

/// An op of the stage: debug info, and what a TIU command of it computes.
struct OpInfo {
  std::string name; ///< Tpu op name (its NameLoc).
  std::string type; ///< e.g. "tpu.conv2d".
  std::string loc;  ///< Source location as printed by MLIR.
  /// The operation a TIU command of this op runs: the Tpu op alone in a `func.func @op` whose
  /// arguments are its operands (full tensor types, `none` included), in MLIR's generic form. A TIU
  /// command computes it on the boxes of its operands (docs/MODEL_FORMAT.md).
  std::string program;
  /// Per argument of `program`: the index among the command's non-output operands (inputs, then
  /// weights), or -1 for a `none` argument.
  std::vector<int32_t> operandMap;
  /// Tensor names of the op's operands (`none`: "") and results, for per-layer dumps. A control-flow
  /// marker (no program) names its Copy commands instead: the k-th (in stream order) reads operandNames[k]
  /// and writes resultNames[k] ("" for a buffer no dump names).
  std::vector<std::string> operandNames, resultNames;
  /// Further names of its results (a folded Identity or no-op reshape, a graph output named otherwise):
  /// (result index, name), written into dumps beside the result's own name (version 4).
  std::vector<std::pair<uint32_t, std::string>> resultAliases;
  friend bool operator==(const OpInfo &, const OpInfo &) = default;
};

/// A network input or output.
struct TensorDesc {
  std::string name;
  uint8_t dtype = 0; ///< backend::DType.
  std::vector<int64_t> shape;
  double scale = 1; ///< Quantization: real = scale * (q - zeroPoint); 1/0 for floats.
  int64_t zeroPoint = 0;
  uint64_t address = 0; ///< DDR address.
  uint64_t bytes = 0;
  friend bool operator==(const TensorDesc &, const TensorDesc &) = default;
};

/// A weight a stage uses: blob entry `blob` placed at DDR `address`.
struct WeightRef {
  uint32_t blob = 0;
  uint64_t address = 0;
  friend bool operator==(const WeightRef &, const WeightRef &) = default;
};

/// The two command streams of one core.
struct CoreStreams {
  std::vector<Command> tiu, gdma; ///< In issue order.
  std::vector<Command> &of(Engine e) { return e == Engine::TIU ? tiu : gdma; }
  const std::vector<Command> &of(Engine e) const { return e == Engine::TIU ? tiu : gdma; }
  size_t size() const { return tiu.size() + gdma.size(); }
  friend bool operator==(const CoreStreams &, const CoreStreams &) = default;
};

/// How a block of a stage hands over control once every command of it has completed (version 5).
struct Terminator {
  enum class Kind : uint8_t {
    Next = 0, ///< Go on with the next block (the stage ends after the last one).
    Jump = 1, ///< Go on with block `target`.
    /// Read element 0 of `cond` (a DDR box, in its dtype): nonzero -> `target`, zero -> `elseTarget`.
    Branch = 2,
  };
  Kind kind = Kind::Next;
  uint32_t target = 0, elseTarget = 0;
  TensorRef cond; ///< Branch only: a DDR tensor of the stage.
  friend bool operator==(const Terminator &, const Terminator &) = default;
};

/// A straight-line piece of a stage's command streams (version 5): per core, the half-open index ranges
/// [begin, end) of its TIU and GDMA streams. The blocks of a stage cover every stream in order without gaps,
/// each block's commands end with a barrier on every stream, and control starts at block 0. Control flow
/// (an If's branches, a Loop's body) is blocks and terminators: a block may run several times or not at all.
struct Block {
  struct Range {
    uint32_t tiuBegin = 0, tiuEnd = 0, gdmaBegin = 0, gdmaEnd = 0;
    friend bool operator==(const Range &, const Range &) = default;
  };
  std::vector<Range> cores; ///< One per core of the stage.
  Terminator terminator;
  friend bool operator==(const Block &, const Block &) = default;
};

/// One static shape of a net.
struct Stage {
  std::string name;
  std::vector<TensorDesc> inputs, outputs;
  std::vector<WeightRef> weights;
  uint64_t coeffBytes = 0;      ///< DDR [0, coeffBytes): this stage's weights.
  uint64_t activationBase = 0;  ///< DDR activation region start.
  uint64_t activationBytes = 0; ///< Its size.
  std::vector<OpInfo> ops;
  std::vector<CoreStreams> cores = std::vector<CoreStreams>(1); ///< Per core (at least one).
  /// Control-flow blocks; empty: one block of every command (a stage without control flow, every file
  /// before version 5).
  std::vector<Block> blocks;
  /// Core 0's streams (the only ones of a one-core stage).
  std::vector<Command> &tiu() { return cores[0].tiu; }
  std::vector<Command> &gdma() { return cores[0].gdma; }
  const std::vector<Command> &tiu() const { return cores[0].tiu; }
  const std::vector<Command> &gdma() const { return cores[0].gdma; }
  /// Commands of every core and engine.
  size_t commandCount() const;
  friend bool operator==(const Stage &, const Stage &) = default;
};

struct Net {
  std::string name;
  std::vector<Stage> stages;
  friend bool operator==(const Net &, const Net &) = default;
};

/// A weight's bytes inside the coefficient blob.
struct BlobEntry {
  std::string name;
  uint64_t offset = 0, size = 0;
  uint64_t hash = 0; ///< contentHash of the bytes.
  friend bool operator==(const BlobEntry &, const BlobEntry &) = default;
};

struct Model {
  std::string chip;
  std::vector<Net> nets;
  std::vector<BlobEntry> blobs;
  std::vector<uint8_t> coeffData; ///< Every blob entry's bytes, 64-byte aligned.
  friend bool operator==(const Model &, const Model &) = default;
};

/// 64-bit FNV-1a of the bytes.
uint64_t contentHash(const uint8_t *data, size_t size);

/// Adds bytes to the blob (or finds an entry with the same content) and
/// returns its index.
uint32_t addBlob(Model &m, const std::string &name, const uint8_t *data, size_t size);

/// The file image.
std::vector<uint8_t> serializeModel(const Model &m);
/// Parses a file image; throws ModelFileError "<file>: <what>" on a short,
/// corrupt or unsupported image. Never reads out of bounds.
Model parseModel(const uint8_t *data, size_t size, const std::string &file);

void writeModelFile(const std::string &path, const Model &m);
Model readModelFile(const std::string &path);
/// Whether the file starts with the model file's magic ("TPUM"): how tools tell a model file from MLIR
/// whatever its name (`tpuc run --model x.bmodel`). False when it cannot be read.
bool isModelFile(const std::string &path);

/// Independent checks: command ids consecutive, waits name existing ids of
/// the core's other engine, op and blob indices in range, weights inside the
/// coefficient region, every stream with the same number of barriers; with
/// blocks, that they cover every stream in order (one range per core), each
/// non-empty stream of a block ends with a barrier and all streams of a block
/// reach as many, waits stay inside their block, targets are at most the
/// block count and a branch condition lies in the stage's DDR (activations,
/// inputs, outputs). One line per problem.
std::vector<std::string> validateModel(const Model &m);

/// Merges models of one chip into one; identical weights (same content) are
/// stored once. Throws ModelFileError when chips differ or net names clash.
Model combineModels(const std::vector<Model> &models);

/// Writes a model file incrementally, for models whose weights do not fit in memory (a 7B LLM's
/// stages): each added model's blobs stream to a scratch file `<path>.coeff` beside the output
/// (identical content stored once, as combineModels does), only the nets stay in memory, and
/// finish() writes exactly the file writeModelFile(path, combineModels(added models)) writes.
/// Errors throw ModelFileError naming the file.
class ModelFileWriter {
public:
  explicit ModelFileWriter(std::string path);
  ~ModelFileWriter();
  ModelFileWriter(const ModelFileWriter &) = delete;
  ModelFileWriter &operator=(const ModelFileWriter &) = delete;

  /// Adds the nets of `m` and the blobs they use (the blobs' `hash` fields are trusted). Throws when
  /// the chip differs from the first model's or a net name was added before.
  void add(const Model &m);
  /// Coefficient bytes so far (deduplicated, aligned as in the file).
  uint64_t coeffBytes() const { return coeffSize; }
  size_t netCount() const { return nets.size(); }
  /// Writes the file and removes the scratch file.
  void finish();

private:
  uint32_t addBlob(const BlobEntry &entry, const uint8_t *data);
  bool sameBytes(uint64_t offset, const uint8_t *data, uint64_t size) const;

  std::string path, scratchPath;
  int scratch = -1;
  std::string chip;
  std::vector<BlobEntry> blobs;
  std::multimap<uint64_t, uint32_t> byHash;
  std::vector<Net> nets;
  std::set<std::string> names;
  uint64_t coeffSize = 0;
};
/// Net `index` alone, with only the blob entries it uses.
Model extractNet(const Model &m, size_t index);

/// Human-readable summary (model-tool --info) and full dump (--print).
std::string modelInfo(const Model &m);
std::string modelPrint(const Model &m);

} // namespace tpuc::codegen

#endif // TPUC_CODEGEN_MODELFILE_H
