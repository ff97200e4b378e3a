//===- PassSnapshots.cpp - index.json and ops.json of recorded pass runs --===//
//===----------------------------------------------------------------------===//
#include "tpuc/PassData/PassSnapshots.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace tpuc {
namespace fs = std::filesystem;
using nlohmann::json;

std::optional<std::string> readTextFile(const std::string &path, std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path + ": cannot be read";
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool writeTextFile(const std::string &path, const std::string &text, std::string &error) {
  std::string temp = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out || !out.write(text.data(), static_cast<std::streamsize>(text.size())) || !out.flush()) {
      error = path + ": cannot be written";
      std::remove(temp.c_str());
      return false;
    }
  }
  std::error_code ec;
  fs::rename(temp, path, ec);
  if (ec) {
    error = path + ": cannot be written: " + ec.message();
    std::remove(temp.c_str());
    return false;
  }
  return true;
}

bool writePassRunIndex(const PassRun &run, const std::string &dir, std::string &error) {
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
  return writeTextFile((fs::path(dir) / "index.json").string(), index.dump(1) + "\n", error);
}

namespace {

/// Reads `key` of `object` as T, or fails with a message naming the entry and the key.
template <typename T>
bool field(const json &object, const char *key, T &out, const std::string &where, std::string &error) {
  auto it = object.find(key);
  if (it == object.end()) {
    error = where + ": missing \"" + key + "\"";
    return false;
  }
  try {
    out = it->get<T>();
  } catch (const json::exception &) {
    error = where + ": \"" + key + "\" has the wrong type";
    return false;
  }
  return true;
}

} // namespace

std::optional<PassRun> readPassRun(const std::string &dir, std::string &error) {
  std::string path = (fs::path(dir) / "index.json").string();
  auto text = readTextFile(path, error);
  if (!text)
    return std::nullopt;
  json index = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (index.is_discarded() || !index.is_object()) {
    error = path + ": not JSON";
    return std::nullopt;
  }
  if (index.value("format", "") != "tpuc-pass-snapshots") {
    error = path + ": not a pass snapshot index (\"format\" is not \"tpuc-pass-snapshots\")";
    return std::nullopt;
  }
  if (!index.contains("version") || !index["version"].is_number_integer() ||
      index["version"].get<int>() > PassRun::kFormatVersion) {
    error = path + ": unsupported \"version\"";
    return std::nullopt;
  }
  if (!index.contains("passes") || !index["passes"].is_array()) {
    error = path + ": missing \"passes\"";
    return std::nullopt;
  }
  PassRun run;
  for (std::size_t i = 0; i < index["passes"].size(); ++i) {
    const json &p = index["passes"][i];
    std::string where = path + ": passes[" + std::to_string(i) + "]";
    if (!p.is_object()) {
      error = where + ": not an object";
      return std::nullopt;
    }
    PassSnapshot s;
    if (!field(p, "index", s.index, where, error) || !field(p, "pass", s.pass, where, error) ||
        !field(p, "argument", s.argument, where, error) || !field(p, "anchor", s.anchor, where, error) ||
        !field(p, "pipeline", s.pipeline, where, error) || !field(p, "wallMs", s.wallMs, where, error) ||
        !field(p, "opCount", s.opCount, where, error) || !field(p, "added", s.added, where, error) ||
        !field(p, "removed", s.removed, where, error) || !field(p, "changed", s.changed, where, error) ||
        !field(p, "failed", s.failed, where, error) || !field(p, "irChanged", s.irChanged, where, error) ||
        !field(p, "irFile", s.irFile, where, error) || !field(p, "opsFile", s.opsFile, where, error))
      return std::nullopt;
    if (p.contains("graphFile") && !field(p, "graphFile", s.graphFile, where, error))
      return std::nullopt;
    // File names come from the index: never let one point outside the run directory.
    for (const std::string *file : {&s.irFile, &s.opsFile, &s.graphFile})
      if ((file->empty() && file != &s.graphFile) || file->find('/') != std::string::npos ||
          file->find("..") != std::string::npos) {
        error = where + ": bad file name \"" + *file + "\"";
        return std::nullopt;
      }
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

std::optional<OpRecords> opRecordsFromJson(const std::string &text, const std::string &source,
                                           std::string &error) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("ops") || !doc["ops"].is_array()) {
    error = source + ": not an ops file (no \"ops\" array)";
    return std::nullopt;
  }
  OpRecords records;
  const json &ops = doc["ops"];
  records.reserve(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const json &o = ops[i];
    std::string where = source + ": ops[" + std::to_string(i) + "]";
    if (!o.is_object()) {
      error = where + ": not an object";
      return std::nullopt;
    }
    OpRecord r;
    std::string hash;
    json operands;
    if (!field(o, "kind", r.kind, where, error) || !field(o, "name", r.name, where, error) ||
        !field(o, "names", r.locNames, where, error) || !field(o, "loc", r.location, where, error) ||
        !field(o, "attrs", r.attributes, where, error) || !field(o, "types", r.types, where, error) ||
        !field(o, "operands", operands, where, error) || !field(o, "parent", r.parent, where, error) ||
        !field(o, "hash", hash, where, error))
      return std::nullopt;
    if (r.parent < -1 || r.parent >= static_cast<std::int64_t>(i)) {
      error = where + ": \"parent\" out of range";
      return std::nullopt;
    }
    if (!operands.is_array()) {
      error = where + ": \"operands\" is not an array";
      return std::nullopt;
    }
    for (const json &pair : operands) {
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer() ||
          !pair[1].is_number_integer()) {
        error = where + ": an operand is not [op, result]";
        return std::nullopt;
      }
      OpOperand operand{pair[0].get<std::int64_t>(), pair[1].get<std::int64_t>()};
      if (operand.op < -1 || operand.op >= static_cast<std::int64_t>(ops.size())) {
        error = where + ": operand op index out of range";
        return std::nullopt;
      }
      r.operands.push_back(operand);
    }
    char *end = nullptr;
    r.contentHash = std::strtoull(hash.c_str(), &end, 16);
    if (hash.size() != 16 || !end || *end) {
      error = where + ": \"hash\" is not 16 hex digits";
      return std::nullopt;
    }
    records.push_back(std::move(r));
  }
  return records;
}

std::optional<LoadedSnapshot> loadSnapshot(const std::string &dir, const PassSnapshot &snapshot,
                                           std::string &error) {
  LoadedSnapshot loaded;
  auto ir = readTextFile((fs::path(dir) / snapshot.irFile).string(), error);
  if (!ir)
    return std::nullopt;
  std::string opsPath = (fs::path(dir) / snapshot.opsFile).string();
  auto opsText = readTextFile(opsPath, error);
  if (!opsText)
    return std::nullopt;
  auto ops = opRecordsFromJson(*opsText, opsPath, error);
  if (!ops)
    return std::nullopt;
  loaded.ir = std::move(*ir);
  loaded.ops = std::move(*ops);
  if (!snapshot.graphFile.empty()) {
    auto graph = readTextFile((fs::path(dir) / snapshot.graphFile).string(), error);
    if (!graph)
      return std::nullopt;
    loaded.graphJson = std::move(*graph);
  }
  return loaded;
}

} // namespace tpuc
