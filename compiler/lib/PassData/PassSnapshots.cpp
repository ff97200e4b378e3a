//===- PassSnapshots.cpp - index.json and ops.json of recorded pass runs --===//
//===----------------------------------------------------------------------===//
#include "tpuc/PassData/PassSnapshots.h"
#include "tpuc/Support/FileWrite.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <type_traits>
#include <utility>

namespace tpuc {
namespace fs = std::filesystem;
using nlohmann::json;

Result<std::string> readTextFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Failure{path + ": cannot be read"};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Result<void> writeTextFile(const std::string &path, const std::string &text) {
  return writeFileAtomically(path, text);
}

Result<void> writePassRunIndex(const PassRun &run, const std::string &dir) {
  json passes = json::array();
  for (const PassSnapshot &s : run.snapshots)
    passes.push_back({{"index", s.index},
                      {"pass", s.pass},
                      {"argument", s.argument},
                      {"anchor", s.anchor},
                      {"pipeline", s.pipeline},
                      {"wallMs", s.wallMs},
                      {"opCount", s.opCount},
                      {"added", s.added},
                      {"removed", s.removed},
                      {"changed", s.changed},
                      {"failed", s.failed},
                      {"irChanged", s.irChanged},
                      {"irFile", s.irFile},
                      {"opsFile", s.opsFile},
                      {"graphFile", s.graphFile}});
  json index = {{"format", "tpuc-pass-snapshots"}, {"version", PassRun::kFormatVersion}, {"passes", passes}};
  return writeTextFile((fs::path(dir) / "index.json").string(), index.dump(1) + "\n");
}

namespace {

/// Reads keys of one JSON object (`where` names it in messages). The first key that is missing or has
/// the wrong type becomes the failure; reads after it do nothing.
class Fields {
public:
  Fields(const json &object, const std::string &where) : object(object), where(where) {}

  template <typename T> Fields &read(const char *key, T &out) {
    if (failure)
      return *this;
    auto it = object.find(key);
    if (it == object.end()) {
      failure = Failure{where + ": missing \"" + key + "\""};
      return *this;
    }
    // An integer field takes only an integer in its type's range: nlohmann's own conversion of a float
    // such as 8.9e113 to an integer is undefined behaviour (found by tests/fuzz, pass-index).
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      bool fits = it->is_number_unsigned()  ? std::in_range<T>(it->template get<std::uint64_t>())
                  : it->is_number_integer() ? std::in_range<T>(it->template get<std::int64_t>())
                                            : false;
      if (!fits) {
        failure = Failure{where + ": \"" + key + "\" is not an integer in range"};
        return *this;
      }
    }
    try {
      out = it->get<T>();
    } catch (const json::exception &) {
      failure = Failure{where + ": \"" + key + "\" has the wrong type"};
    }
    return *this;
  }

  /// The first failed read, if any.
  std::optional<Failure> failure;

private:
  const json &object;
  const std::string &where;
};

} // namespace

Result<PassRun> readPassRun(const std::string &dir) {
  std::string path = (fs::path(dir) / "index.json").string();
  Result<std::string> text = readTextFile(path);
  if (!text)
    return Failure{text.error()};
  json index = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (index.is_discarded() || !index.is_object())
    return Failure{path + ": not JSON"};
  if (!index.contains("format") || index["format"] != "tpuc-pass-snapshots")
    return Failure{path + ": not a pass snapshot index (\"format\" is not \"tpuc-pass-snapshots\")"};
  if (!index.contains("version") || !index["version"].is_number_integer() ||
      index["version"].get<int>() > PassRun::kFormatVersion)
    return Failure{path + ": unsupported \"version\""};
  if (!index.contains("passes") || !index["passes"].is_array())
    return Failure{path + ": missing \"passes\""};
  PassRun run;
  for (std::size_t i = 0; i < index["passes"].size(); ++i) {
    const json &p = index["passes"][i];
    std::string where = path + ": passes[" + std::to_string(i) + "]";
    if (!p.is_object())
      return Failure{where + ": not an object"};
    PassSnapshot s;
    Fields fields(p, where);
    fields.read("index", s.index)
        .read("pass", s.pass)
        .read("argument", s.argument)
        .read("anchor", s.anchor)
        .read("pipeline", s.pipeline)
        .read("wallMs", s.wallMs)
        .read("opCount", s.opCount)
        .read("added", s.added)
        .read("removed", s.removed)
        .read("changed", s.changed)
        .read("failed", s.failed)
        .read("irChanged", s.irChanged)
        .read("irFile", s.irFile)
        .read("opsFile", s.opsFile);
    if (p.contains("graphFile"))
      fields.read("graphFile", s.graphFile);
    if (fields.failure)
      return *fields.failure;
    // File names come from the index: never let one point outside the run directory.
    for (const std::string *file : {&s.irFile, &s.opsFile, &s.graphFile})
      if ((file->empty() && file != &s.graphFile) || file->find('/') != std::string::npos ||
          file->find("..") != std::string::npos)
        return Failure{where + ": bad file name \"" + *file + "\""};
    run.snapshots.push_back(std::move(s));
  }
  return run;
}

std::string opRecordsToJson(const OpRecords &records) {
  json ops = json::array();
  for (const OpRecord &r : records) {
    json operands = json::array();
    for (const OpOperand &o : r.operands)
      operands.push_back({o.op, o.result});
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(r.contentHash));
    ops.push_back({{"kind", r.kind},
                   {"name", r.name},
                   {"names", r.locNames},
                   {"loc", r.location},
                   {"attrs", r.attributes},
                   {"types", r.types},
                   {"operands", operands},
                   {"parent", r.parent},
                   {"hash", hash}});
  }
  return json{{"ops", ops}}.dump() + "\n";
}

Result<OpRecords> opRecordsFromJson(const std::string &text, const std::string &source) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("ops") || !doc["ops"].is_array())
    return Failure{source + ": not an ops file (no \"ops\" array)"};
  OpRecords records;
  const json &ops = doc["ops"];
  records.reserve(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const json &o = ops[i];
    std::string where = source + ": ops[" + std::to_string(i) + "]";
    if (!o.is_object())
      return Failure{where + ": not an object"};
    OpRecord r;
    std::string hash;
    json operands;
    Fields fields(o, where);
    fields.read("kind", r.kind)
        .read("name", r.name)
        .read("names", r.locNames)
        .read("loc", r.location)
        .read("attrs", r.attributes)
        .read("types", r.types)
        .read("operands", operands)
        .read("parent", r.parent)
        .read("hash", hash);
    if (fields.failure)
      return *fields.failure;
    if (r.parent < -1 || r.parent >= static_cast<std::int64_t>(i))
      return Failure{where + ": \"parent\" out of range"};
    if (!operands.is_array())
      return Failure{where + ": \"operands\" is not an array"};
    for (const json &pair : operands) {
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer() ||
          !pair[1].is_number_integer())
        return Failure{where + ": an operand is not [op, result]"};
      OpOperand operand{pair[0].get<std::int64_t>(), pair[1].get<std::int64_t>()};
      if (operand.op < -1 || operand.op >= static_cast<std::int64_t>(ops.size()))
        return Failure{where + ": operand op index out of range"};
      r.operands.push_back(operand);
    }
    char *end = nullptr;
    r.contentHash = std::strtoull(hash.c_str(), &end, 16);
    if (hash.size() != 16 || !end || *end)
      return Failure{where + ": \"hash\" is not 16 hex digits"};
    records.push_back(std::move(r));
  }
  return records;
}

Result<LoadedSnapshot> loadSnapshot(const std::string &dir, const PassSnapshot &snapshot) {
  LoadedSnapshot loaded;
  Result<std::string> ir = readTextFile((fs::path(dir) / snapshot.irFile).string());
  if (!ir)
    return Failure{ir.error()};
  std::string opsPath = (fs::path(dir) / snapshot.opsFile).string();
  Result<std::string> opsText = readTextFile(opsPath);
  if (!opsText)
    return Failure{opsText.error()};
  Result<OpRecords> ops = opRecordsFromJson(*opsText, opsPath);
  if (!ops)
    return Failure{ops.error()};
  loaded.ir = std::move(*ir);
  loaded.ops = std::move(*ops);
  if (!snapshot.graphFile.empty()) {
    Result<std::string> graph = readTextFile((fs::path(dir) / snapshot.graphFile).string());
    if (!graph)
      return Failure{graph.error()};
    loaded.graphJson = std::move(*graph);
  }
  return loaded;
}

} // namespace tpuc
