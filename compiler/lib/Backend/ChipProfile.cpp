//===- ChipProfile.cpp - Chip profile loader and search -------------------===//

#include "tpuc/Backend/ChipProfile.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using nlohmann::json;

namespace tpuc::backend {

const char *precisionName(Precision p) {
  switch (p) {
  case Precision::INT8:
    return "INT8";
  case Precision::F16:
    return "F16";
  case Precision::BF16:
    return "BF16";
  case Precision::F32:
    return "F32";
  }
  return "?";
}

namespace {

/// Reads typed fields of one JSON object, naming file and dotted path in
/// every error.
class FieldReader {
public:
  FieldReader(const std::string &file, const json &root) : file(file), root(root) {}

  [[noreturn]] void fail(const std::string &field, const std::string &msg) const {
    throw ProfileError(file + ": " + field + ": " + msg);
  }

  const json &get(const std::string &path) const { return *walk(path, /*required=*/true); }

  /// Whether the field is there (an optional one).
  bool has(const std::string &path) const { return walk(path, /*required=*/false) != nullptr; }

  /// The precision a key of a per-precision object names; fails naming `field.key` otherwise.
  Precision precisionKey(const std::string &field, const std::string &key) const {
    for (Precision q : {Precision::INT8, Precision::F16, Precision::BF16, Precision::F32})
      if (key == precisionName(q))
        return q;
    fail(field + "." + key, "unknown precision (expected INT8, F16, BF16, F32)");
  }

  std::string str(const std::string &path) const {
    const json &v = get(path);
    if (!v.is_string())
      fail(path, "expected a string");
    return v.get<std::string>();
  }

  /// A positive integer; `powerOfTwo` also requires a power of two.
  int64_t positiveInt(const std::string &path, bool powerOfTwo = false) const {
    const json &v = get(path);
    if (!v.is_number_integer() || v.get<int64_t>() <= 0)
      fail(path, "expected a positive integer, got " + v.dump());
    int64_t x = v.get<int64_t>();
    if (powerOfTwo && (x & (x - 1)) != 0)
      fail(path, "expected a power of two, got " + std::to_string(x));
    return x;
  }

  double positiveNumber(const std::string &path) const {
    const json &v = get(path);
    if (!v.is_number() || v.get<double>() <= 0)
      fail(path, "expected a positive number, got " + v.dump());
    return v.get<double>();
  }

  double nonNegativeNumber(const std::string &path) const {
    const json &v = get(path);
    if (!v.is_number() || v.get<double>() < 0)
      fail(path, "expected a non-negative number, got " + v.dump());
    return v.get<double>();
  }

  /// A fraction in (0, 1].
  double fraction(const std::string &path) const {
    const json &v = get(path);
    if (!v.is_number() || v.get<double>() <= 0 || v.get<double>() > 1)
      fail(path, "expected a fraction in (0, 1], got " + v.dump());
    return v.get<double>();
  }

  int64_t nonNegativeInt(const std::string &path) const {
    const json &v = get(path);
    if (!v.is_number_integer() || v.get<int64_t>() < 0)
      fail(path, "expected a non-negative integer, got " + v.dump());
    return v.get<int64_t>();
  }

private:
  /// The field at the dotted `path`; when it (or an object on the way) is missing, nullptr or, if
  /// `required`, a failure naming the first part that is.
  const json *walk(const std::string &path, bool required) const {
    const json *cur = &root;
    std::string prefix;
    std::stringstream ss(path);
    std::string part;
    while (std::getline(ss, part, '.')) {
      if (!cur->is_object()) {
        if (!required)
          return nullptr;
        fail(prefix, "expected an object");
      }
      prefix += prefix.empty() ? part : "." + part;
      auto it = cur->find(part);
      if (it == cur->end()) {
        if (!required)
          return nullptr;
        fail(prefix, "missing");
      }
      cur = &*it;
    }
    return cur;
  }

  const std::string &file;
  const json &root;
};

std::string lower(std::string s) {
  for (char &c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

} // namespace

ChipProfile parseChipProfile(const std::string &text, const std::string &file) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error &e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line L,
    // column C: ..."; keep the part after the bracket.
    std::string what = e.what();
    auto pos = what.find("] ");
    throw ProfileError(file + ": invalid JSON: " + (pos == std::string::npos ? what : what.substr(pos + 2)));
  }
  if (!root.is_object())
    throw ProfileError(file + ": expected a JSON object at the top level");
  FieldReader r(file, root);
  if (r.str("schema") != "tpuc-chip-profile")
    r.fail("schema", "expected \"tpuc-chip-profile\"");
  if (r.positiveInt("version") != 1)
    r.fail("version", "unsupported version " + r.get("version").dump() + " (this build reads 1)");

  ChipProfile p;
  p.sourceFile = file;
  p.name = r.str("name");
  if (p.name.empty() || lower(p.name) != p.name)
    r.fail("name", "expected a non-empty lower-case name");
  if (root.contains("description"))
    p.description = r.str("description");
  p.cores = r.positiveInt("cores");
  if (p.cores > 1 && !root.contains("sync_cycles"))
    r.fail("sync_cycles", "missing (a profile of " + std::to_string(p.cores) +
                              " cores needs the cycles of a barrier across them)");
  if (root.contains("sync_cycles"))
    p.syncCycles = r.nonNegativeInt("sync_cycles");
  p.frequencyMhz = r.positiveNumber("frequency_mhz");

  p.lanes = r.positiveInt("npu.lanes");
  p.euBytes = r.positiveInt("npu.eu_bytes", /*powerOfTwo=*/true);
  p.lmemBytesPerLane = r.positiveInt("npu.lmem_bytes_per_lane");
  p.lmemBanks = r.positiveInt("npu.lmem_banks", true);
  p.lmemAlignment = r.positiveInt("npu.lmem_alignment", true);
  if (p.lmemBytesPerLane % p.lmemBanks != 0)
    r.fail("npu.lmem_banks", "must divide npu.lmem_bytes_per_lane");
  if ((p.lmemBytesPerLane / p.lmemBanks) % p.lmemAlignment != 0)
    r.fail("npu.lmem_alignment", "must divide the bank size");
  if (r.has("npu.engine_contention")) {
    p.engineContention = r.nonNegativeNumber("npu.engine_contention");
    if (p.engineContention > 1)
      r.fail("npu.engine_contention",
             "expected a number in [0, 1], got " + r.get("npu.engine_contention").dump());
  }

  const json &macs = r.get("tiu.macs_per_lane_per_cycle");
  if (!macs.is_object())
    r.fail("tiu.macs_per_lane_per_cycle", "expected an object");
  for (Precision prec : {Precision::INT8, Precision::F16, Precision::BF16, Precision::F32})
    p.macsPerLanePerCycle[prec] =
        r.positiveNumber(std::string("tiu.macs_per_lane_per_cycle.") + precisionName(prec));
  for (auto it = macs.begin(); it != macs.end(); ++it)
    r.precisionKey("tiu.macs_per_lane_per_cycle", it.key());
  p.tiuCommandCycles = r.nonNegativeInt("tiu.command_cycles");
  if (r.has("tiu.pass_cycles"))
    p.tiuPassCycles = r.nonNegativeNumber("tiu.pass_cycles");
  for (auto [field, into] : {std::pair{"tiu.conv_efficiency", &p.convEfficiency},
                             std::pair{"tiu.matmul_efficiency", &p.matmulEfficiency}}) {
    if (!r.has(field))
      continue;
    const json &eff = r.get(field);
    if (!eff.is_object())
      r.fail(field, "expected an object");
    for (auto it = eff.begin(); it != eff.end(); ++it)
      (*into)[r.precisionKey(field, it.key())] = r.fraction(std::string(field) + "." + it.key());
  }
  if (r.has("tiu.conv_stride_efficiency"))
    p.convStrideEfficiency = r.fraction("tiu.conv_stride_efficiency");

  p.gdmaBytesPerSecond = r.positiveNumber("gdma.bandwidth_gbps") * 1e9;
  p.gdmaLatencyCycles = r.nonNegativeInt("gdma.latency_cycles");
  p.gdmaBurstBytes = r.positiveInt("gdma.burst_bytes", true);
  if (r.has("gdma.efficiency"))
    p.gdmaEfficiency = r.fraction("gdma.efficiency");
  if (r.has("gdma.run_cycles"))
    p.gdmaRunCycles = r.nonNegativeNumber("gdma.run_cycles");
  if (root.contains("calibration"))
    p.calibration = r.str("calibration");

  p.ddrBytes = r.positiveInt("ddr.size_bytes");
  p.gmemAlignment = r.positiveInt("ddr.alignment", true);
  p.coeffAlignment = r.positiveInt("ddr.coeff_alignment", true);
  return p;
}

ChipProfile loadChipProfile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw ProfileError(path + ": cannot open chip profile");
  std::stringstream ss;
  ss << in.rdbuf();
  return parseChipProfile(ss.str(), path);
}

std::vector<std::string> chipSearchDirs(const std::vector<std::string> &extraDirs) {
  std::vector<std::string> dirs(extraDirs);
  if (const char *env = std::getenv("TPUC_CHIP_DIR"); env && *env)
    dirs.emplace_back(env);
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  // Beside the executable only: the build copies the profiles to <build>/share/tpu-studio/chips as the
  // package installs them to /usr/share/tpu-studio/chips, so no source or build path is baked in.
  if (!ec)
    dirs.push_back((exe.parent_path().parent_path() / "share/tpu-studio/chips").string());
  return dirs;
}

std::vector<std::string> knownChips(const std::vector<std::string> &extraDirs) {
  std::set<std::string> names;
  for (const std::string &dir : chipSearchDirs(extraDirs)) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".json")
        names.insert(it->path().stem().string());
  }
  return {names.begin(), names.end()};
}

ChipProfile findChipProfile(const std::string &name, const std::vector<std::string> &extraDirs) {
  std::string want = lower(name);
  bool plain = !want.empty();
  for (char c : want)
    plain &= std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  if (!plain)
    throw ProfileError("invalid chip name '" + name + "' (letters, digits, '_' and '-' only)");
  for (const std::string &dir : chipSearchDirs(extraDirs)) {
    fs::path file = fs::path(dir) / (want + ".json");
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
      continue;
    ChipProfile p = loadChipProfile(file.string());
    if (p.name != want)
      throw ProfileError(file.string() + ": name: \"" + p.name + "\" does not match the file name");
    return p;
  }
  std::string known;
  for (const std::string &k : knownChips(extraDirs))
    known += (known.empty() ? "" : ", ") + k;
  throw ProfileError("unknown chip '" + name + "' (known: " + (known.empty() ? "none found" : known) + ")");
}

} // namespace tpuc::backend
