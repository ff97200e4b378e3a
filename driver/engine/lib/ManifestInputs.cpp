//===- ManifestInputs.cpp - Hashing what a run read, for its manifest -----===//

#include "tpuc/Driver/ManifestInputs.h"

#include "tpuc/Backend/ChipProfile.h"
#include "tpuc/Dataset/Scan.h"
#include "tpuc/Dialect/Top/TopDialect.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace tpuc::driver {
namespace {

bool readBytes(const std::string &path, std::string &bytes, std::string &why) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    why = std::strerror(errno);
    return false;
  }
  bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) {
    why = "read error";
    return false;
  }
  return true;
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

} // namespace

ManifestInput hashInput(const std::string &role, const std::string &path) {
  ManifestInput input{role, path, "", 0, 1};
  std::string bytes, why;
  if (!readBytes(path, bytes, why)) {
    input.sha256 = "unreadable: " + why;
    input.bytes = -1;
    return input;
  }
  input.sha256 = dataset::contentHash(bytes.data(), bytes.size());
  input.bytes = static_cast<int64_t>(bytes.size());
  return input;
}

ManifestInput hashSampleSet(const std::string &role, const std::string &path,
                            const std::vector<CalibrationSample> &samples) {
  ManifestInput input{role, path, "", 0, 0};
  std::string lines;
  for (const CalibrationSample &sample : samples)
    for (const std::string &file : sample.files) {
      ManifestInput one = hashInput(role, file);
      lines += file + "\t" + one.sha256 + "\n";
      input.bytes += std::max<int64_t>(0, one.bytes);
      ++input.files;
    }
  input.sha256 = dataset::contentHash(lines.data(), lines.size());
  return input;
}

std::vector<ManifestInput> modelInputs(const std::string &mlirPath, mlir::ModuleOp module) {
  std::vector<ManifestInput> inputs = {hashInput("model", mlirPath)};
  if (auto weights = module->getAttrOfType<mlir::StringAttr>(top::TopDialect::kWeightFileAttr))
    if (!weights.getValue().empty())
      inputs.push_back(hashInput("weights", weights.str()));
  return inputs;
}

std::string chipProfileFile(const std::string &chip) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const std::string &dir : backend::chipSearchDirs())
    for (const auto &entry : fs::directory_iterator(dir, ec))
      if (entry.path().extension() == ".json" && lower(entry.path().stem().string()) == lower(chip))
        return entry.path().string();
  return "";
}

} // namespace tpuc::driver
