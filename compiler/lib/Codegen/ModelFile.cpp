//===- ModelFile.cpp - .tpum writer, bounds-checked reader, combine --------===//

#include "tpuc/Codegen/ModelFile.h"
#include "tpuc/Support/FileWrite.h"

#include "tpuc/Backend/Graph.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fcntl.h>
#include <unistd.h>

namespace tpuc::codegen {

namespace {

constexpr char kMagic[4] = {'T', 'P', 'U', 'M'};
constexpr size_t kHeaderBytes = 32;
constexpr size_t kBlobAlign = 64;

/// CRC-32 of `n` more bytes after a CRC of `crc` so far (0 to start).
uint32_t crc32Update(uint32_t crc, const uint8_t *p, size_t n) {
  static uint32_t table[256];
  static bool init = [] {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k)
        c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      table[i] = c;
    }
    return true;
  }();
  (void)init;
  uint32_t c = crc ^ 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i)
    c = table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

uint32_t crc32(const uint8_t *p, size_t n) { return crc32Update(0, p, n); }

class Writer {
public:
  template <typename T> void num(T v) {
    uint8_t b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T)); // little-endian hosts only (x86-64, aarch64)
    out.insert(out.end(), b, b + sizeof(T));
  }
  void str(const std::string &s) {
    num<uint32_t>(static_cast<uint32_t>(s.size()));
    out.insert(out.end(), s.begin(), s.end());
  }
  template <size_t N> void arr(const std::array<int64_t, N> &a) {
    for (int64_t v : a)
      num(v);
  }
  std::vector<uint8_t> out;
};

class Reader {
public:
  Reader(const uint8_t *p, size_t n, const std::string &file) : p(p), n(n), file(file) {}
  [[noreturn]] void fail(const std::string &what) const {
    throw ModelFileError(file + ": " + what + " (at byte " + std::to_string(kHeaderBytes + pos) + ")");
  }
  template <typename T> T num(const char *what) {
    if (n - pos < sizeof(T))
      fail(std::string("truncated: ") + what);
    T v;
    std::memcpy(&v, p + pos, sizeof(T));
    pos += sizeof(T);
    return v;
  }
  std::string str(const char *what) {
    uint32_t len = num<uint32_t>(what);
    if (n - pos < len)
      fail(std::string("truncated: ") + what);
    std::string s(reinterpret_cast<const char *>(p + pos), len);
    pos += len;
    return s;
  }
  /// A count of items each at least `minBytes` long that must fit in what is left.
  uint32_t count(const char *what, size_t minBytes) {
    uint32_t c = num<uint32_t>(what);
    if (static_cast<uint64_t>(c) * minBytes > n - pos)
      fail(std::string("corrupt: ") + what + " count " + std::to_string(c) + " exceeds the file");
    return c;
  }
  template <size_t N> void arr(std::array<int64_t, N> &a, const char *what) {
    for (auto &v : a)
      v = num<int64_t>(what);
  }
  uint8_t dtype(const char *what) {
    uint8_t d = num<uint8_t>(what);
    if (d > static_cast<uint8_t>(backend::DType::F32))
      fail(std::string("corrupt: ") + what + " dtype " + std::to_string(d));
    return d;
  }
  const uint8_t *p;
  size_t n, pos = 0;
  std::string file;
};

void writeTensor(Writer &w, const TensorDesc &t) {
  w.str(t.name);
  w.num(t.dtype);
  w.num<uint32_t>(static_cast<uint32_t>(t.shape.size()));
  for (int64_t d : t.shape)
    w.num(d);
  w.num(t.scale);
  w.num(t.zeroPoint);
  w.num(t.address);
  w.num(t.bytes);
}

TensorDesc readTensor(Reader &r) {
  TensorDesc t;
  t.name = r.str("tensor name");
  t.dtype = r.dtype("tensor");
  uint32_t rank = r.count("tensor rank", 8);
  for (uint32_t i = 0; i < rank; ++i)
    t.shape.push_back(r.num<int64_t>("tensor shape"));
  t.scale = r.num<double>("tensor scale");
  if (!std::isfinite(t.scale) || t.scale <= 0) // also keeps NaN out of models that must compare equal
    r.fail("corrupt: tensor '" + t.name + "' scale " + std::to_string(t.scale) + " is not a positive number");
  t.zeroPoint = r.num<int64_t>("tensor zero point");
  t.address = r.num<uint64_t>("tensor address");
  t.bytes = r.num<uint64_t>("tensor bytes");
  return t;
}

/// An operand (or a branch condition): 110 bytes.
void writeRef(Writer &w, const TensorRef &t) {
  w.num(static_cast<uint8_t>(t.space));
  w.num(t.dtype);
  w.num(t.lane);
  w.num(t.address);
  w.arr(t.origin);
  w.arr(t.shape);
  w.arr(t.stride);
}

TensorRef readRef(Reader &r) {
  TensorRef t;
  uint8_t s = r.num<uint8_t>("operand space");
  if (s > 1)
    r.fail("corrupt: operand memory space " + std::to_string(s));
  t.space = static_cast<MemSpace>(s);
  t.dtype = r.dtype("operand");
  t.lane = r.num<uint32_t>("operand lane");
  t.address = r.num<uint64_t>("operand address");
  r.arr(t.origin, "operand origin");
  r.arr(t.shape, "operand shape");
  r.arr(t.stride, "operand stride");
  return t;
}

void writeCommand(Writer &w, const Command &c) {
  w.num(static_cast<uint8_t>(c.engine));
  w.num(static_cast<uint8_t>(c.kind));
  w.num(c.id);
  w.num(c.wait);
  w.num(c.op);
  w.num(c.group);
  w.num(c.slice);
  w.num(c.step);
  w.arr(c.pad);
  w.num(c.cycles);
  w.num(c.ddrCycles);
  w.num(c.numOutputs);
  w.num(c.numInputs);
  w.num<uint32_t>(static_cast<uint32_t>(c.operands.size()));
  for (const TensorRef &t : c.operands)
    writeRef(w, t);
}

Command readCommand(Reader &r, Engine engine, uint32_t version) {
  Command c;
  uint8_t e = r.num<uint8_t>("command engine");
  if (e != static_cast<uint8_t>(engine))
    r.fail("corrupt: command engine " + std::to_string(e) + " in the " + engineName(engine) + " stream");
  c.engine = engine;
  uint8_t k = r.num<uint8_t>("command kind");
  if (k > static_cast<uint8_t>(version >= 3 ? CmdKind::Sync : CmdKind::Global))
    r.fail("corrupt: command kind " + std::to_string(k));
  c.kind = static_cast<CmdKind>(k);
  c.id = r.num<uint32_t>("command id");
  c.wait = r.num<uint32_t>("command wait");
  c.op = r.num<uint32_t>("command op");
  c.group = r.num<int32_t>("command group");
  c.slice = r.num<int32_t>("command slice");
  c.step = r.num<int32_t>("command step");
  r.arr(c.pad, "command padding");
  c.cycles = r.num<int64_t>("command cycles");
  // Version 2 had one core: its transfers never met another core's, so a GDMA command's share of DDR
  // is all of it and the split does not matter.
  c.ddrCycles = version >= 3 ? r.num<int64_t>("command DDR cycles") : engine == Engine::GDMA ? c.cycles : 0;
  if (c.ddrCycles < 0 || c.ddrCycles > std::max<int64_t>(c.cycles, 0))
    r.fail("corrupt: command DDR cycles " + std::to_string(c.ddrCycles) + " outside [0, cycles]");
  c.numOutputs = r.num<uint32_t>("command outputs");
  c.numInputs = r.num<uint32_t>("command inputs");
  uint32_t nOps = r.count("command operands", 104);
  if (static_cast<uint64_t>(c.numOutputs) + c.numInputs > nOps)
    r.fail("corrupt: command has " + std::to_string(nOps) + " operands, fewer than its outputs and inputs");
  for (uint32_t i = 0; i < nOps; ++i)
    c.operands.push_back(readRef(r));
  return c;
}

} // namespace

const char *engineName(Engine e) { return e == Engine::TIU ? "TIU" : "GDMA"; }

const char *cmdKindName(CmdKind k) {
  switch (k) {
  case CmdKind::Load:
    return "load";
  case CmdKind::Store:
    return "store";
  case CmdKind::Copy:
    return "copy";
  case CmdKind::Compute:
    return "compute";
  case CmdKind::Global:
    return "global";
  case CmdKind::Sync:
    return "sync";
  }
  return "?";
}

namespace {
/// The barriers a stream takes part in: its Sync commands.
int64_t barriersIn(const std::vector<Command> &stream) {
  return std::count_if(stream.begin(), stream.end(), [](const Command &c) { return c.kind == CmdKind::Sync; });
}
} // namespace

size_t Stage::commandCount() const {
  size_t n = 0;
  for (const CoreStreams &c : cores)
    n += c.size();
  return n;
}

uint64_t contentHash(const uint8_t *data, size_t size) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= data[i];
    h *= 1099511628211ull;
  }
  return h;
}

uint32_t addBlob(Model &m, const std::string &name, const uint8_t *data, size_t size) {
  uint64_t h = contentHash(data, size);
  for (size_t i = 0; i < m.blobs.size(); ++i) {
    const BlobEntry &b = m.blobs[i];
    if (b.hash == h && b.size == size &&
        (size == 0 || std::memcmp(m.coeffData.data() + b.offset, data, size) == 0))
      return static_cast<uint32_t>(i);
  }
  BlobEntry b;
  b.name = name;
  b.offset = (m.coeffData.size() + kBlobAlign - 1) / kBlobAlign * kBlobAlign;
  b.size = size;
  b.hash = h;
  m.coeffData.resize(b.offset + size, 0);
  if (size)
    std::memcpy(m.coeffData.data() + b.offset, data, size);
  m.blobs.push_back(b);
  return static_cast<uint32_t>(m.blobs.size() - 1);
}

namespace {

/// The body up to the coefficient bytes: chip, blob table, coefficient size.
void writeBodyHead(Writer &w, const std::string &chip, const std::vector<BlobEntry> &blobs,
                   uint64_t coeffBytes) {
  w.str(chip);
  w.num<uint32_t>(static_cast<uint32_t>(blobs.size()));
  for (const BlobEntry &b : blobs) {
    w.str(b.name);
    w.num(b.offset);
    w.num(b.size);
    w.num(b.hash);
  }
  w.num<uint64_t>(coeffBytes);
}

/// The 32-byte file header of a body of `bodyBytes` with CRC `crc`.
std::vector<uint8_t> fileHeader(uint64_t bodyBytes, uint32_t crc) {
  std::vector<uint8_t> file(kHeaderBytes, 0);
  std::memcpy(file.data(), kMagic, 4);
  uint32_t version = kModelVersion;
  std::memcpy(file.data() + 4, &version, 4);
  std::memcpy(file.data() + 8, &bodyBytes, 8);
  std::memcpy(file.data() + 16, &crc, 4);
  return file;
}

/// The body after the coefficient bytes: the nets.
void writeNets(Writer &w, const std::vector<Net> &nets) {
  w.num<uint32_t>(static_cast<uint32_t>(nets.size()));
  for (const Net &net : nets) {
    w.str(net.name);
    w.num<uint32_t>(static_cast<uint32_t>(net.stages.size()));
    for (const Stage &s : net.stages) {
      w.str(s.name);
      w.num(s.coeffBytes);
      w.num(s.activationBase);
      w.num(s.activationBytes);
      for (const auto *list : {&s.inputs, &s.outputs}) {
        w.num<uint32_t>(static_cast<uint32_t>(list->size()));
        for (const TensorDesc &t : *list)
          writeTensor(w, t);
      }
      w.num<uint32_t>(static_cast<uint32_t>(s.weights.size()));
      for (const WeightRef &wr : s.weights) {
        w.num(wr.blob);
        w.num(wr.address);
      }
      w.num<uint32_t>(static_cast<uint32_t>(s.ops.size()));
      for (const OpInfo &o : s.ops) {
        w.str(o.name);
        w.str(o.type);
        w.str(o.loc);
        w.str(o.program);
        w.num<uint32_t>(static_cast<uint32_t>(o.operandMap.size()));
        for (int32_t k : o.operandMap)
          w.num(k);
        for (const auto *names : {&o.operandNames, &o.resultNames}) {
          w.num<uint32_t>(static_cast<uint32_t>(names->size()));
          for (const std::string &n : *names)
            w.str(n);
        }
        w.num<uint32_t>(static_cast<uint32_t>(o.resultAliases.size()));
        for (const auto &[result, alias] : o.resultAliases) {
          w.num(result);
          w.str(alias);
        }
      }
      w.num<uint32_t>(static_cast<uint32_t>(s.cores.size()));
      for (const CoreStreams &core : s.cores)
        for (const auto *stream : {&core.tiu, &core.gdma}) {
          w.num<uint32_t>(static_cast<uint32_t>(stream->size()));
          for (const Command &c : *stream)
            writeCommand(w, c);
        }
      w.num<uint32_t>(static_cast<uint32_t>(s.blocks.size()));
      for (const Block &b : s.blocks) {
        // One range per core of the stage, whatever the block holds (validateModel reports a mismatch).
        for (size_t k = 0; k < s.cores.size(); ++k) {
          Block::Range range = k < b.cores.size() ? b.cores[k] : Block::Range();
          for (uint32_t v : {range.tiuBegin, range.tiuEnd, range.gdmaBegin, range.gdmaEnd})
            w.num(v);
        }
        w.num(static_cast<uint8_t>(b.terminator.kind));
        w.num(b.terminator.target);
        w.num(b.terminator.elseTarget);
        writeRef(w, b.terminator.cond);
      }
    }
  }
}

/// A stage's control-flow blocks (version 5). Ranges and targets are checked here so that whoever follows
/// the blocks of a parsed file never indexes past a stream; the rest (contiguity, barriers) is
/// validateModel's.
void readBlocks(Reader &r, Stage &s) {
  const size_t nCores = s.cores.size();
  uint32_t nb = r.count("blocks", 16 * nCores + 9 + 110);
  for (uint32_t b = 0; b < nb; ++b) {
    Block block;
    for (size_t k = 0; k < nCores; ++k) {
      Block::Range range;
      range.tiuBegin = r.num<uint32_t>("block range");
      range.tiuEnd = r.num<uint32_t>("block range");
      range.gdmaBegin = r.num<uint32_t>("block range");
      range.gdmaEnd = r.num<uint32_t>("block range");
      if (range.tiuBegin > range.tiuEnd || range.tiuEnd > s.cores[k].tiu.size() ||
          range.gdmaBegin > range.gdmaEnd || range.gdmaEnd > s.cores[k].gdma.size())
        r.fail("corrupt: block " + std::to_string(b) + " of core " + std::to_string(k) +
               " covers commands beyond its streams");
      block.cores.push_back(range);
    }
    uint8_t kind = r.num<uint8_t>("block terminator");
    if (kind > static_cast<uint8_t>(Terminator::Kind::Branch))
      r.fail("corrupt: block " + std::to_string(b) + " terminator kind " + std::to_string(kind));
    block.terminator.kind = static_cast<Terminator::Kind>(kind);
    block.terminator.target = r.num<uint32_t>("block target");
    block.terminator.elseTarget = r.num<uint32_t>("block else target");
    const bool jumps = kind != static_cast<uint8_t>(Terminator::Kind::Next);
    const bool branches = kind == static_cast<uint8_t>(Terminator::Kind::Branch);
    if ((jumps && block.terminator.target > nb) || (branches && block.terminator.elseTarget > nb))
      r.fail("corrupt: block " + std::to_string(b) + " jumps to a block beyond the stage's " +
             std::to_string(nb));
    block.terminator.cond = readRef(r);
    s.blocks.push_back(std::move(block));
  }
}

} // namespace

std::vector<uint8_t> serializeModel(const Model &m) {
  Writer w;
  writeBodyHead(w, m.chip, m.blobs, m.coeffData.size());
  w.out.insert(w.out.end(), m.coeffData.begin(), m.coeffData.end());
  writeNets(w, m.nets);
  std::vector<uint8_t> file = fileHeader(w.out.size(), crc32(w.out.data(), w.out.size()));
  file.insert(file.end(), w.out.begin(), w.out.end());
  return file;
}

bool isModelFile(const std::string &path) {
  char head[4] = {};
  std::ifstream in(path, std::ios::binary);
  return in.read(head, 4) && std::memcmp(head, kMagic, 4) == 0;
}

Model parseModel(const uint8_t *data, size_t size, const std::string &file) {
  if (size < kHeaderBytes)
    throw ModelFileError(file + ": truncated: " + std::to_string(size) + " bytes, shorter than the " +
                         std::to_string(kHeaderBytes) + "-byte header");
  if (std::memcmp(data, kMagic, 4) != 0)
    throw ModelFileError(file + ": not a TPU Studio model file (bad magic)");
  uint32_t version, crc;
  uint64_t bodyBytes;
  std::memcpy(&version, data + 4, 4);
  std::memcpy(&bodyBytes, data + 8, 8);
  std::memcpy(&crc, data + 16, 4);
  if (version < 2 || version > kModelVersion)
    throw ModelFileError(file + ": unsupported model file version " + std::to_string(version) +
                         " (this build reads 2 to " + std::to_string(kModelVersion) + ")");
  if (bodyBytes != size - kHeaderBytes)
    throw ModelFileError(file + ": truncated: header says " + std::to_string(bodyBytes) +
                         " body bytes, file has " + std::to_string(size - kHeaderBytes));
  const uint8_t *body = data + kHeaderBytes;
  if (crc32(body, bodyBytes) != crc)
    throw ModelFileError(file + ": corrupt: checksum mismatch");
  Reader r(body, bodyBytes, file);
  Model m;
  m.chip = r.str("chip");
  uint32_t nBlobs = r.count("blob entries", 28);
  for (uint32_t i = 0; i < nBlobs; ++i) {
    BlobEntry b;
    b.name = r.str("blob name");
    b.offset = r.num<uint64_t>("blob offset");
    b.size = r.num<uint64_t>("blob size");
    b.hash = r.num<uint64_t>("blob hash");
    m.blobs.push_back(b);
  }
  uint64_t coeff = r.num<uint64_t>("coefficient size");
  if (coeff > r.n - r.pos)
    r.fail("truncated: coefficient blob");
  m.coeffData.assign(r.p + r.pos, r.p + r.pos + coeff);
  r.pos += coeff;
  for (size_t i = 0; i < m.blobs.size(); ++i)
    if (m.blobs[i].offset > coeff || m.blobs[i].size > coeff - m.blobs[i].offset)
      r.fail("corrupt: blob entry " + std::to_string(i) + " '" + m.blobs[i].name +
             "' lies outside the coefficients");
  uint32_t nNets = r.count("nets", 8);
  for (uint32_t i = 0; i < nNets; ++i) {
    Net net;
    net.name = r.str("net name");
    uint32_t nStages = r.count("stages", 8);
    for (uint32_t j = 0; j < nStages; ++j) {
      Stage s;
      s.name = r.str("stage name");
      s.coeffBytes = r.num<uint64_t>("stage coefficient bytes");
      s.activationBase = r.num<uint64_t>("stage activation base");
      s.activationBytes = r.num<uint64_t>("stage activation bytes");
      for (auto *list : {&s.inputs, &s.outputs}) {
        uint32_t nt = r.count("tensors", 45);
        for (uint32_t t = 0; t < nt; ++t)
          list->push_back(readTensor(r));
      }
      uint32_t nw = r.count("weights", 12);
      for (uint32_t t = 0; t < nw; ++t) {
        WeightRef wr;
        wr.blob = r.num<uint32_t>("weight blob");
        wr.address = r.num<uint64_t>("weight address");
        if (wr.blob >= m.blobs.size())
          r.fail("corrupt: weight refers to blob entry " + std::to_string(wr.blob) + " of " +
                 std::to_string(m.blobs.size()));
        s.weights.push_back(wr);
      }
      uint32_t no = r.count("ops", 28);
      for (uint32_t t = 0; t < no; ++t) {
        OpInfo o;
        o.name = r.str("op name");
        o.type = r.str("op type");
        o.loc = r.str("op location");
        o.program = r.str("op program");
        uint32_t nm = r.count("op operands", 4);
        for (uint32_t k = 0; k < nm; ++k)
          o.operandMap.push_back(r.num<int32_t>("op operand index"));
        for (auto *names : {&o.operandNames, &o.resultNames}) {
          uint32_t nn = r.count("op tensor names", 4);
          for (uint32_t k = 0; k < nn; ++k)
            names->push_back(r.str("op tensor name"));
        }
        uint32_t na = version >= 4 ? r.count("op result aliases", 8) : 0;
        for (uint32_t k = 0; k < na; ++k) {
          uint32_t result = r.num<uint32_t>("op alias result");
          if (result >= o.resultNames.size())
            r.fail("op '" + o.name + "' has an alias of result " + std::to_string(result) + " but " +
                   std::to_string(o.resultNames.size()) + " results");
          o.resultAliases.emplace_back(result, r.str("op alias"));
        }
        s.ops.push_back(std::move(o));
      }
      uint32_t nCores = version >= 3 ? r.count("cores", 8) : 1;
      if (nCores == 0 || nCores > 64)
        r.fail("corrupt: " + std::to_string(nCores) + " cores (1 to 64)");
      s.cores.assign(nCores, CoreStreams());
      for (CoreStreams &core : s.cores)
        for (Engine e : {Engine::TIU, Engine::GDMA}) {
          auto &stream = core.of(e);
          uint32_t nc = r.count("commands", 78);
          for (uint32_t t = 0; t < nc; ++t) {
            stream.push_back(readCommand(r, e, version));
            if (stream.back().op >= s.ops.size())
              r.fail("corrupt: command refers to op " + std::to_string(stream.back().op) + " of " +
                     std::to_string(s.ops.size()));
          }
        }
      if (version >= 5)
        readBlocks(r, s);
      net.stages.push_back(std::move(s));
    }
    m.nets.push_back(std::move(net));
  }
  if (r.pos != r.n)
    r.fail("corrupt: " + std::to_string(r.n - r.pos) + " trailing bytes");
  return m;
}

void writeModelFile(const std::string &path, const Model &m) {
  std::vector<uint8_t> bytes = serializeModel(m);
  if (Result<void> written = writeFileAtomically(
          path, std::string_view(reinterpret_cast<const char *>(bytes.data()), bytes.size()));
      !written)
    throw ModelFileError(written.error());
}

Model readModelFile(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    throw ModelFileError(path + ": cannot open");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return parseModel(bytes.data(), bytes.size(), path);
}

namespace {

/// Whether DDR bytes [address, address + bytes) lie inside the stage's activation region or one of its
/// inputs or outputs: where a branch condition may be read from.
bool inStageDdr(const Stage &s, uint64_t address, uint64_t bytes) {
  auto inside = [&](uint64_t begin, uint64_t size) {
    return address >= begin && address - begin <= size && bytes <= size - (address - begin);
  };
  if (inside(s.activationBase, s.activationBytes))
    return true;
  for (const auto *list : {&s.inputs, &s.outputs})
    for (const TensorDesc &t : *list)
      if (inside(t.address, t.bytes))
        return true;
  return false;
}

/// The checks of a stage's control-flow blocks (version 5), one line per problem.
void validateBlocks(const Stage &s, const std::string &where, std::vector<std::string> &errs) {
  const size_t nb = s.blocks.size();
  if (nb == 0)
    return;
  for (size_t core = 0; core < s.cores.size(); ++core)
    for (Engine e : {Engine::TIU, Engine::GDMA}) {
      const auto &stream = s.cores[core].of(e);
      std::string streamName =
          std::string(engineName(e)) + (s.cores.size() > 1 ? " of core " + std::to_string(core) : "");
      uint32_t at = 0; // where the next block must begin
      bool covered = true;
      for (size_t b = 0; covered && b < nb; ++b) {
        if (core >= s.blocks[b].cores.size()) {
          covered = false; // reported with the block
          break;
        }
        const Block::Range &r = s.blocks[b].cores[core];
        uint32_t begin = e == Engine::TIU ? r.tiuBegin : r.gdmaBegin,
                 end = e == Engine::TIU ? r.tiuEnd : r.gdmaEnd;
        if (begin != at || end < begin || end > stream.size()) {
          errs.push_back(where + "block " + std::to_string(b) + " covers " + streamName + " commands [" +
                         std::to_string(begin) + ", " + std::to_string(end) + "), expected to begin at " +
                         std::to_string(at) + " and end by " + std::to_string(stream.size()));
          covered = false;
        }
        at = end;
      }
      if (covered && at != stream.size())
        errs.push_back(where + "the blocks cover " + streamName + " commands up to " + std::to_string(at) +
                       " of " + std::to_string(stream.size()));
    }
  for (size_t b = 0; b < nb; ++b) {
    const Block &block = s.blocks[b];
    std::string here = where + "block " + std::to_string(b) + ": ";
    if (block.cores.size() != s.cores.size()) {
      errs.push_back(here + std::to_string(block.cores.size()) + " core ranges for " +
                     std::to_string(s.cores.size()) + " cores");
      continue;
    }
    const Terminator &t = block.terminator;
    if (t.kind != Terminator::Kind::Next && t.target > nb)
      errs.push_back(here + "target " + std::to_string(t.target) + " beyond the " + std::to_string(nb) +
                     " blocks");
    if (t.kind == Terminator::Kind::Branch) {
      if (t.elseTarget > nb)
        errs.push_back(here + "else target " + std::to_string(t.elseTarget) + " beyond the " +
                       std::to_string(nb) + " blocks");
      uint64_t bytes = static_cast<uint64_t>(backend::dtypeBytes(static_cast<backend::DType>(t.cond.dtype)));
      if (t.cond.space != MemSpace::DDR)
        errs.push_back(here + "branch condition is not in DDR");
      else if (!inStageDdr(s, t.cond.address, bytes))
        errs.push_back(here + "branch condition at DDR " + std::to_string(t.cond.address) +
                       " lies outside the stage's activations, inputs and outputs");
    }
    int64_t syncs = -1;
    for (size_t core = 0; core < s.cores.size(); ++core)
      for (Engine e : {Engine::TIU, Engine::GDMA}) {
        const auto &stream = s.cores[core].of(e);
        const auto &other = s.cores[core].of(e == Engine::TIU ? Engine::GDMA : Engine::TIU);
        const Block::Range &r = block.cores[core];
        bool tiu = e == Engine::TIU;
        uint32_t begin = tiu ? r.tiuBegin : r.gdmaBegin, end = tiu ? r.tiuEnd : r.gdmaEnd;
        uint32_t otherEnd = tiu ? r.gdmaEnd : r.tiuEnd;
        if (begin > end || end > stream.size())
          continue; // reported with the coverage
        std::string streamName =
            std::string(engineName(e)) + (s.cores.size() > 1 ? " of core " + std::to_string(core) : "");
        if (end > begin && stream[end - 1].kind != CmdKind::Sync)
          errs.push_back(here + streamName + " does not end with a barrier");
        int64_t n = std::count_if(stream.begin() + begin, stream.begin() + end,
                                  [](const Command &c) { return c.kind == CmdKind::Sync; });
        if (syncs < 0)
          syncs = n;
        else if (n != syncs)
          errs.push_back(here + streamName + " reaches " + std::to_string(n) +
                         " barriers, the block's first stream " + std::to_string(syncs));
        for (uint32_t i = begin; i < end; ++i)
          if (stream[i].wait > otherEnd && otherEnd <= other.size())
            errs.push_back(here + streamName + " command " + std::to_string(i) + " waits on id " +
                           std::to_string(stream[i].wait) + " after the block's last " +
                           engineName(tiu ? Engine::GDMA : Engine::TIU) + " command (" +
                           std::to_string(otherEnd) + ")");
      }
  }
}

} // namespace

std::vector<std::string> validateModel(const Model &m) {
  std::vector<std::string> errs;
  for (const Net &net : m.nets)
    for (const Stage &s : net.stages) {
      std::string where = net.name + "/" + s.name + ": ";
      if (s.cores.empty())
        errs.push_back(where + "no core");
      int64_t barriers = -1;
      for (size_t core = 0; core < s.cores.size(); ++core)
      for (Engine e : {Engine::TIU, Engine::GDMA}) {
        const auto &stream = s.cores[core].of(e);
        const auto &other = s.cores[core].of(e == Engine::TIU ? Engine::GDMA : Engine::TIU);
        std::string streamName =
            std::string(engineName(e)) + (s.cores.size() > 1 ? " of core " + std::to_string(core) : "");
        int64_t syncs = barriersIn(stream);
        if (barriers < 0)
          barriers = syncs;
        else if (syncs != barriers)
          errs.push_back(where + streamName + " reaches " + std::to_string(syncs) + " barriers, the first stream " +
                         std::to_string(barriers));
        for (size_t i = 0; i < stream.size(); ++i) {
          const Command &c = stream[i];
          std::string cmd = where + streamName + " command " + std::to_string(i) + ": ";
          if ((c.kind == CmdKind::Load || c.kind == CmdKind::Store || c.kind == CmdKind::Copy) != (e == Engine::GDMA) &&
              c.kind != CmdKind::Sync)
            errs.push_back(cmd + cmdKindName(c.kind) + " on the wrong engine");
          if (c.id != i + 1)
            errs.push_back(cmd + "id " + std::to_string(c.id) + ", expected " + std::to_string(i + 1));
          if (c.wait > other.size())
            errs.push_back(cmd + "waits on id " + std::to_string(c.wait) + " beyond the other stream");
          if (c.op >= s.ops.size())
            errs.push_back(cmd + "op index out of range");
          else if (e == Engine::TIU && c.kind != CmdKind::Sync)
            for (int32_t k : s.ops[c.op].operandMap)
              if (k >= 0 && static_cast<size_t>(k) + c.numOutputs >= c.operands.size())
                errs.push_back(cmd + "op '" + s.ops[c.op].name + "' reads operand " + std::to_string(k) +
                               " of " + std::to_string(c.operands.size() - c.numOutputs));
          for (const TensorRef &t : c.operands)
            if (t.space == MemSpace::DDR && t.address < s.activationBase && t.address >= s.coeffBytes)
              errs.push_back(cmd + "DDR operand between the coefficient and activation regions");
        }
      }
      for (const WeightRef &w : s.weights)
        if (w.blob >= m.blobs.size())
          errs.push_back(where + "weight blob index out of range");
        else if (w.address + m.blobs[w.blob].size > s.coeffBytes)
          errs.push_back(where + "weight '" + m.blobs[w.blob].name + "' outside the coefficient region");
      validateBlocks(s, where, errs);
    }
  return errs;
}

Model combineModels(const std::vector<Model> &models) {
  Model out;
  std::set<std::string> names;
  for (const Model &m : models) {
    if (out.chip.empty())
      out.chip = m.chip;
    else if (m.chip != out.chip)
      throw ModelFileError("cannot combine models of chips '" + out.chip + "' and '" + m.chip + "'");
    std::vector<uint32_t> remap;
    for (const BlobEntry &b : m.blobs)
      remap.push_back(addBlob(out, b.name, m.coeffData.data() + b.offset, b.size));
    for (Net net : m.nets) {
      if (!names.insert(net.name).second)
        throw ModelFileError("cannot combine: two nets named '" + net.name + "'");
      for (Stage &s : net.stages)
        for (WeightRef &w : s.weights)
          w.blob = remap.at(w.blob);
      out.nets.push_back(std::move(net));
    }
  }
  return out;
}

Model extractNet(const Model &m, size_t index) {
  Model out;
  out.chip = m.chip;
  Net net = m.nets.at(index);
  std::map<uint32_t, uint32_t> remap;
  for (Stage &s : net.stages)
    for (WeightRef &w : s.weights) {
      auto it = remap.find(w.blob);
      if (it == remap.end()) {
        const BlobEntry &b = m.blobs.at(w.blob);
        it = remap.emplace(w.blob, addBlob(out, b.name, m.coeffData.data() + b.offset, b.size)).first;
      }
      w.blob = it->second;
    }
  out.nets.push_back(std::move(net));
  return out;
}

namespace {
std::string shapeText(const std::vector<int64_t> &s) {
  std::string t;
  for (size_t i = 0; i < s.size(); ++i)
    t += (i ? "x" : "") + std::to_string(s[i]);
  return t.empty() ? "scalar" : t;
}
std::string dtypeText(uint8_t d) { return backend::dtypeName(static_cast<backend::DType>(d)); }
std::string boxText(const TensorRef &t) {
  std::ostringstream os;
  os << (t.space == MemSpace::LMEM ? "L" : "D") << ":0x" << std::hex << t.address << std::dec;
  if (t.space == MemSpace::LMEM)
    os << "@" << t.lane;
  os << "[";
  for (int i = 0; i < 4; ++i)
    os << (i ? "," : "") << t.origin[i] << "+" << t.shape[i];
  os << "]" << dtypeText(t.dtype);
  return os.str();
}
} // namespace

std::string modelInfo(const Model &m) {
  std::ostringstream os;
  os << "chip: " << m.chip << "\nversion: " << kModelVersion << "\ncoefficients: " << m.coeffData.size()
     << " bytes in " << m.blobs.size() << " weights\nnets: " << m.nets.size() << "\n";
  for (const Net &net : m.nets) {
    os << "net " << net.name << ": " << net.stages.size() << " stage(s)\n";
    for (const Stage &s : net.stages) {
      size_t tiu = 0, gdma = 0;
      for (const CoreStreams &c : s.cores) {
        tiu += c.tiu.size();
        gdma += c.gdma.size();
      }
      os << "  stage " << s.name << ": " << tiu << " TIU + " << gdma << " GDMA commands";
      if (s.cores.size() > 1)
        os << " on " << s.cores.size() << " cores";
      if (!s.blocks.empty())
        os << " in " << s.blocks.size() << " blocks";
      os << ", coeff " << s.coeffBytes << " B, activations " << s.activationBytes << " B at 0x" << std::hex
         << s.activationBase << std::dec << "\n";
      if (s.cores.size() > 1)
        for (size_t k = 0; k < s.cores.size(); ++k) {
          const CoreStreams &c = s.cores[k];
          int64_t syncs = barriersIn(c.tiu);
          os << "    core " << k << ": " << c.tiu.size() << " TIU + " << c.gdma.size() << " GDMA commands, " << syncs
             << " barriers\n";
        }
      for (const auto *list : {&s.inputs, &s.outputs})
        for (const TensorDesc &t : *list)
          os << "    " << (list == &s.inputs ? "input  " : "output ") << t.name << " " << shapeText(t.shape)
             << " " << dtypeText(t.dtype) << " scale " << t.scale << " zp " << t.zeroPoint << " @0x"
             << std::hex << t.address << std::dec << "\n";
    }
  }
  return os.str();
}

std::string modelPrint(const Model &m) {
  std::ostringstream os;
  os << modelInfo(m);
  for (size_t i = 0; i < m.blobs.size(); ++i)
    os << "blob " << i << " " << m.blobs[i].name << " offset " << m.blobs[i].offset << " size "
       << m.blobs[i].size << " hash " << std::hex << m.blobs[i].hash << std::dec << "\n";
  for (const Net &net : m.nets)
    for (const Stage &s : net.stages) {
      os << "== " << net.name << "/" << s.name << "\n";
      for (const WeightRef &w : s.weights)
        os << "weight blob " << w.blob << " @0x" << std::hex << w.address << std::dec << "\n";
      for (size_t k = 0; k < s.cores.size(); ++k)
      for (const auto *stream : {&s.cores[k].tiu, &s.cores[k].gdma})
        for (const Command &c : *stream) {
          const OpInfo &op = s.ops.at(c.op);
          if (s.cores.size() > 1)
            os << "core " << k << " ";
          os << engineName(c.engine) << " #" << c.id << " wait " << c.wait << " " << cmdKindName(c.kind)
             << " " << op.type << " '" << op.name << "' g" << c.group << " s" << c.slice << " t" << c.step;
          if (c.pad != std::array<int64_t, 4>{})
            os << " pad " << c.pad[0] << "," << c.pad[1] << "," << c.pad[2] << "," << c.pad[3];
          os << " cycles " << c.cycles << " :";
          for (const TensorRef &t : c.operands)
            os << " " << boxText(t);
          os << "  // " << op.loc << "\n";
        }
      for (size_t b = 0; b < s.blocks.size(); ++b) {
        const Block &block = s.blocks[b];
        os << "block " << b << ":";
        for (size_t k = 0; k < block.cores.size(); ++k)
          os << (block.cores.size() > 1 ? " core " + std::to_string(k) : std::string()) << " TIU ["
             << block.cores[k].tiuBegin << ", " << block.cores[k].tiuEnd << ") GDMA ["
             << block.cores[k].gdmaBegin << ", " << block.cores[k].gdmaEnd << ")";
        const Terminator &t = block.terminator;
        switch (t.kind) {
        case Terminator::Kind::Next:
          os << " -> next\n";
          break;
        case Terminator::Kind::Jump:
          os << " -> jump " << t.target << "\n";
          break;
        case Terminator::Kind::Branch:
          os << " -> branch " << boxText(t.cond) << " ? " << t.target << " : " << t.elseTarget << "\n";
          break;
        }
      }
    }
  return os.str();
}

//===----------------------------------------------------------------------===//
// Incremental writer
//===----------------------------------------------------------------------===//

ModelFileWriter::ModelFileWriter(std::string p) : path(std::move(p)), scratchPath(path + ".coeff") {
  scratch = ::open(scratchPath.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (scratch < 0)
    throw ModelFileError(scratchPath + ": cannot open for writing (" + std::strerror(errno) + ")");
}

ModelFileWriter::~ModelFileWriter() {
  if (scratch >= 0) {
    ::close(scratch);
    ::unlink(scratchPath.c_str());
  }
}

namespace {
void writeAll(int fd, const uint8_t *data, uint64_t size, uint64_t offset, const std::string &file) {
  while (size) {
    ssize_t n = ::pwrite(fd, data, std::min<uint64_t>(size, 1u << 30), static_cast<off_t>(offset));
    if (n <= 0)
      throw ModelFileError(file + ": write failed (" + std::strerror(errno) + ")");
    data += n, size -= n, offset += n;
  }
}
void readAll(int fd, uint8_t *data, uint64_t size, uint64_t offset, const std::string &file) {
  while (size) {
    ssize_t n = ::pread(fd, data, std::min<uint64_t>(size, 1u << 30), static_cast<off_t>(offset));
    if (n <= 0)
      throw ModelFileError(file + ": read failed (" + std::strerror(errno) + ")");
    data += n, size -= n, offset += n;
  }
}
} // namespace

bool ModelFileWriter::sameBytes(uint64_t offset, const uint8_t *data, uint64_t size) const {
  std::vector<uint8_t> chunk(std::min<uint64_t>(size, 16u << 20));
  for (uint64_t done = 0; done < size;) {
    uint64_t n = std::min<uint64_t>(chunk.size(), size - done);
    readAll(scratch, chunk.data(), n, offset + done, scratchPath);
    if (std::memcmp(chunk.data(), data + done, n) != 0)
      return false;
    done += n;
  }
  return true;
}

uint32_t ModelFileWriter::addBlob(const BlobEntry &entry, const uint8_t *data) {
  auto [first, last] = byHash.equal_range(entry.hash);
  for (auto it = first; it != last; ++it) {
    const BlobEntry &b = blobs[it->second];
    if (b.size == entry.size && (entry.size == 0 || sameBytes(b.offset, data, entry.size)))
      return it->second;
  }
  BlobEntry b = entry;
  b.offset = (coeffSize + kBlobAlign - 1) / kBlobAlign * kBlobAlign;
  // The alignment gap is zeros, as in Model::coeffData.
  if (b.offset > coeffSize) {
    uint8_t zeros[kBlobAlign] = {};
    writeAll(scratch, zeros, b.offset - coeffSize, coeffSize, scratchPath);
  }
  writeAll(scratch, data, b.size, b.offset, scratchPath);
  coeffSize = b.offset + b.size;
  blobs.push_back(b);
  byHash.emplace(b.hash, static_cast<uint32_t>(blobs.size() - 1));
  return static_cast<uint32_t>(blobs.size() - 1);
}

void ModelFileWriter::add(const Model &m) {
  if (chip.empty())
    chip = m.chip;
  else if (m.chip != chip)
    throw ModelFileError("cannot combine models of chips '" + chip + "' and '" + m.chip + "'");
  for (const Net &net : m.nets)
    if (names.count(net.name))
      throw ModelFileError("cannot combine: two nets named '" + net.name + "'");
  std::vector<uint32_t> remap;
  for (const BlobEntry &b : m.blobs) {
    if (b.offset + b.size > m.coeffData.size())
      throw ModelFileError("cannot combine: blob '" + b.name + "' lies outside its model's coefficients");
    remap.push_back(addBlob(b, m.coeffData.data() + b.offset));
  }
  for (Net net : m.nets) {
    names.insert(net.name);
    for (Stage &s : net.stages)
      for (WeightRef &w : s.weights)
        w.blob = remap.at(w.blob);
    nets.push_back(std::move(net));
  }
}

void ModelFileWriter::finish() {
  Writer head, tail;
  writeBodyHead(head, chip, blobs, coeffSize);
  writeNets(tail, nets);
  uint64_t body = head.out.size() + coeffSize + tail.out.size();
  int out = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0)
    throw ModelFileError(path + ": cannot open for writing (" + std::strerror(errno) + ")");
  try {
    uint64_t at = kHeaderBytes;
    uint32_t crc = crc32Update(0, head.out.data(), head.out.size());
    writeAll(out, head.out.data(), head.out.size(), at, path);
    at += head.out.size();
    std::vector<uint8_t> chunk(64u << 20);
    for (uint64_t done = 0; done < coeffSize;) {
      uint64_t n = std::min<uint64_t>(chunk.size(), coeffSize - done);
      readAll(scratch, chunk.data(), n, done, scratchPath);
      crc = crc32Update(crc, chunk.data(), n);
      writeAll(out, chunk.data(), n, at, path);
      // The copied part of the scratch file leaves the disk, so a 5 GB model never needs twice its size
      // there (a no-op where the file system cannot punch holes).
      ::fallocate(scratch, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(done),
                  static_cast<off_t>(n));
      done += n, at += n;
    }
    crc = crc32Update(crc, tail.out.data(), tail.out.size());
    writeAll(out, tail.out.data(), tail.out.size(), at, path);
    std::vector<uint8_t> header = fileHeader(body, crc);
    writeAll(out, header.data(), header.size(), 0, path);
  } catch (...) {
    ::close(out);
    ::unlink(path.c_str()); // a model file without its header is no model file: leave none
    throw;
  }
  if (::close(out) != 0) {
    int error = errno;
    ::unlink(path.c_str());
    throw ModelFileError(path + ": write failed (" + std::strerror(error) + ")");
  }
  ::close(scratch);
  scratch = -1;
  ::unlink(scratchPath.c_str());
}

} // namespace tpuc::codegen
