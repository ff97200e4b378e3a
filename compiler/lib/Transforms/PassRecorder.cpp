//===- PassRecorder.cpp - Pass instrumentation writing per-pass snapshots -===//
//===----------------------------------------------------------------------===//
#include "tpuc/Transforms/PassRecorder.h"

#include "tpuc/Graph/GraphExtract.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>

using namespace mlir;

namespace tpuc {
namespace fs = std::filesystem;

namespace {

/// Stored attribute text is shortened (the hash covers the whole text); the IR file keeps everything.
constexpr std::size_t kMaxAttributeText = 400;

void collectNames(Location loc, std::vector<std::string> &out) {
  if (auto name = dyn_cast<NameLoc>(loc)) {
    std::string text = name.getName().str();
    if (std::find(out.begin(), out.end(), text) == out.end())
      out.push_back(std::move(text));
    collectNames(name.getChildLoc(), out);
  } else if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location part : fused.getLocations())
      collectNames(part, out);
  } else if (auto call = dyn_cast<CallSiteLoc>(loc)) {
    collectNames(call.getCallee(), out);
    collectNames(call.getCaller(), out);
  }
}

template <typename T> std::string printed(T &&value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  value.print(os);
  return text;
}

Operation *topLevel(Operation *op) {
  while (Operation *parent = op->getParentOp())
    op = parent;
  return op;
}

std::string printIR(Operation *root) {
  std::string text;
  llvm::raw_string_ostream os(text);
  // Local scope prints locations inline (not as #loc aliases at the end), so each line of a diff shows
  // an op with its location. An op that fails to verify (after a failed pass) is printed in generic form.
  OpPrintingFlags flags;
  flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false).elideLargeElementsAttrs(64).useLocalScope();
  root->print(os, flags);
  os << "\n";
  return text;
}

/// "NNN-label" with characters that are safe in a file name.
std::string fileStem(std::size_t index, const std::string &label) {
  char number[16];
  std::snprintf(number, sizeof number, "%03zu-", index);
  std::string stem = number;
  for (char c : label)
    stem += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  return stem;
}

} // namespace

OpRecords collectOpRecords(Operation *root) {
  OpRecords records;
  llvm::DenseMap<Operation *, std::int64_t> index;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == root)
      return;
    OpRecord r;
    r.kind = op->getName().getStringRef().str();
    collectNames(op->getLoc(), r.locNames);
    if (!r.locNames.empty())
      r.name = r.locNames.front();
    else if (auto sym = op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
      r.name = "@" + sym.getValue().str();
    r.location = printed(op->getLoc());
    r.attributes = printed(op->getAttrDictionary());
    std::string types;
    for (Type t : op->getResultTypes())
      types += (types.empty() ? "" : ", ") + printed(t);
    r.types = std::move(types);
    for (Value v : op->getOperands()) {
      if (auto result = dyn_cast<OpResult>(v)) {
        auto it = index.find(result.getOwner());
        r.operands.push_back({it == index.end() ? -1 : it->second, result.getResultNumber()});
      } else {
        r.operands.push_back({-1, cast<BlockArgument>(v).getArgNumber()});
      }
    }
    if (auto it = index.find(op->getParentOp()); it != index.end())
      r.parent = it->second;
    index[op] = static_cast<std::int64_t>(records.size());
    records.push_back(std::move(r));
  });
  // A use before its definition (graph regions) was recorded as an argument: resolve it now.
  std::size_t i = 0;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == root)
      return;
    OpRecord &r = records[i++];
    for (auto [k, v] : llvm::enumerate(op->getOperands()))
      if (auto result = dyn_cast<OpResult>(v); result && r.operands[k].op < 0)
        if (auto it = index.find(result.getOwner()); it != index.end())
          r.operands[k].op = it->second;
  });
  hashOpRecords(records);
  for (OpRecord &r : records)
    if (r.attributes.size() > kMaxAttributeText)
      r.attributes = r.attributes.substr(0, kMaxAttributeText) + "…";
  return records;
}

struct PassRecorder::State {
  std::mutex mutex;
  std::string dir;
  std::string error;
  PassRun run;
  std::string previousIR;
  OpRecords previousOps;

  void fail(const std::string &message) {
    if (error.empty())
      error = message;
  }

  /// Appends a snapshot of `root` (the IR after `snapshot`'s pass) and rewrites the index.
  void record(PassSnapshot snapshot, Operation *root) {
    std::string ir = printIR(root);
    OpRecords ops = collectOpRecords(root);
    snapshot.index = run.snapshots.size();
    snapshot.opCount = ops.size();
    bool first = run.snapshots.empty();
    snapshot.irChanged = first || ir != previousIR;
    if (!first) {
      OpDiff diff = diffOps(previousOps, ops);
      snapshot.added = diff.added.size();
      snapshot.removed = diff.removed.size();
      snapshot.changed = diff.changed.size();
    }
    if (snapshot.irChanged) {
      std::string stem = fileStem(snapshot.index, snapshot.label());
      snapshot.irFile = stem + ".mlir";
      snapshot.opsFile = stem + ".ops.json";
      Result<void> written = writeTextFile((fs::path(dir) / snapshot.irFile).string(), ir);
      if (written)
        written = writeTextFile((fs::path(dir) / snapshot.opsFile).string(), opRecordsToJson(ops));
      if (!written)
        fail(written.error());
      // The graph the studio draws, extracted here where the IR is live (the studio never parses MLIR).
      if (auto module = dyn_cast<ModuleOp>(root); module && !snapshot.failed) {
        snapshot.graphFile = stem + ".graph.json";
        if (Result<void> graphWritten = writeTextFile((fs::path(dir) / snapshot.graphFile).string(),
                                                      graph::toJson(graph::extractGraph(module)));
            !graphWritten)
          fail(graphWritten.error());
      }
      previousIR = std::move(ir);
    } else {
      snapshot.irFile = run.snapshots.back().irFile;
      snapshot.opsFile = run.snapshots.back().opsFile;
      snapshot.graphFile = run.snapshots.back().graphFile;
    }
    previousOps = std::move(ops);
    run.snapshots.push_back(std::move(snapshot));
    if (Result<void> written = writePassRunIndex(run, dir); !written)
      fail(written.error());
  }
};

namespace {

/// One per instrumented pass manager; the state it writes into is shared.
class Instrumentation : public PassInstrumentation {
public:
  Instrumentation(std::shared_ptr<PassRecorder::State> state, std::string pipeline)
      : m_state(std::move(state)), m_pipeline(std::move(pipeline)) {}

  void runBeforePass(Pass *pass, Operation *op) override {
    if (isAdaptor(pass))
      return;
    std::lock_guard<std::mutex> lock(m_state->mutex);
    if (!m_started) {
      m_started = true;
      Operation *root = topLevel(op);
      // The pipeline's input, unless it is exactly what the previous pipeline left.
      if (m_state->run.snapshots.empty() || printIR(root) != m_state->previousIR) {
        PassSnapshot input;
        input.pass = "input";
        input.anchor = root->getName().getStringRef().str();
        input.pipeline = m_pipeline;
        m_state->record(std::move(input), root);
      }
    }
    m_start[pass] = std::chrono::steady_clock::now();
  }

  void runAfterPass(Pass *pass, Operation *op) override { after(pass, op, /*failed=*/false); }
  void runAfterPassFailed(Pass *pass, Operation *op) override { after(pass, op, /*failed=*/true); }

private:
  /// The pass managers' own nesting adaptors are not passes a user added.
  static bool isAdaptor(Pass *pass) { return pass->getName().starts_with("Pipeline Collection"); }

  void after(Pass *pass, Operation *op, bool failed) {
    if (isAdaptor(pass))
      return;
    auto end = std::chrono::steady_clock::now();
    std::lock_guard<std::mutex> lock(m_state->mutex);
    PassSnapshot s;
    s.pass = pass->getName().str();
    s.argument = pass->getArgument().str();
    s.anchor = op->getName().getStringRef().str();
    if (auto sym = op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
      s.anchor += " @" + sym.getValue().str();
    s.pipeline = m_pipeline;
    s.failed = failed;
    if (auto it = m_start.find(pass); it != m_start.end())
      s.wallMs = std::chrono::duration<double, std::milli>(end - it->second).count();
    m_state->record(std::move(s), topLevel(op));
  }

  std::shared_ptr<PassRecorder::State> m_state;
  std::string m_pipeline;
  bool m_started = false;
  std::map<Pass *, std::chrono::steady_clock::time_point> m_start;
};

} // namespace

PassRecorder::PassRecorder(std::string dir) : m_dir(std::move(dir)), m_state(std::make_shared<State>()) {
  m_state->dir = m_dir;
  std::error_code ec;
  fs::create_directories(m_dir, ec);
  if (ec) {
    m_state->fail(m_dir + ": cannot create the snapshot directory: " + ec.message());
    return;
  }
  // Files of an earlier run would mix with this one's: remove what this recorder writes.
  for (const auto &entry : fs::directory_iterator(m_dir, ec)) {
    std::string name = entry.path().filename().string();
    auto endsWith = [&](const char *suffix) {
      std::string s = suffix;
      return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
    };
    if (name == "index.json" || endsWith(".mlir") || endsWith(".ops.json") || endsWith(".graph.json"))
      fs::remove(entry.path(), ec);
  }
}

PassRecorder::~PassRecorder() = default;

void PassRecorder::attach(PassManager &pm, const std::string &pipeline) {
  pm.getContext()->disableMultithreading();
  pm.addInstrumentation(std::make_unique<Instrumentation>(m_state, pipeline));
}

std::string PassRecorder::error() const {
  std::lock_guard<std::mutex> lock(m_state->mutex);
  return m_state->error;
}

PassRun PassRecorder::run() const {
  std::lock_guard<std::mutex> lock(m_state->mutex);
  return m_state->run;
}

std::string PassRecorder::indexPath() const { return (fs::path(m_dir) / "index.json").string(); }

} // namespace tpuc
