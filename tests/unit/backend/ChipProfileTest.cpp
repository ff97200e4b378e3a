//===- ChipProfileTest.cpp - Chip profiles: shipped files and bad input ---===//

#include "tpuc/Backend/ChipProfile.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

using namespace tpuc::backend;
namespace fs = std::filesystem;

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string goodText() { return readFile(std::string(TPUC_CHIP_TEST_DIR) + "/bm1684x.json"); }

/// The error message of parsing `j`, or "" when it parses.
std::string errorOf(const nlohmann::json &j) {
  try {
    parseChipProfile(j.dump(), "x.json");
  } catch (const ProfileError &e) {
    return e.what();
  }
  return "";
}

TEST(ChipProfile, ShippedProfilesCarryTheDesignFigures) {
  ChipProfile a = findChipProfile("bm1684x", {TPUC_CHIP_TEST_DIR});
  EXPECT_EQ(a.name, "bm1684x");
  EXPECT_EQ(a.lanes, 64);
  EXPECT_EQ(a.euBytes, 64);
  EXPECT_EQ(a.lmemBytesPerLane, 256 * 1024);
  EXPECT_EQ(a.lmemBanks, 16);
  EXPECT_EQ(a.bankBytes(), 16 * 1024);
  // ~32 TOPS INT8, FP16 half of it, FP32 a sixteenth.
  double int8Tops = 2 * a.peakMacsPerCycle(Precision::INT8) * a.frequencyMhz * 1e6 / 1e12;
  EXPECT_NEAR(int8Tops, 32, 2);
  EXPECT_DOUBLE_EQ(a.macsPerLanePerCycle.at(Precision::F16) * 2, a.macsPerLanePerCycle.at(Precision::INT8));
  EXPECT_DOUBLE_EQ(a.macsPerLanePerCycle.at(Precision::F32) * 16, a.macsPerLanePerCycle.at(Precision::INT8));
  EXPECT_NEAR(a.gdmaBytesPerSecond, 61e9, 1e9);

  ChipProfile b = findChipProfile("BM1688", {TPUC_CHIP_TEST_DIR});
  EXPECT_EQ(b.name, "bm1688");
  EXPECT_EQ(b.lanes, 32);
  EXPECT_EQ(b.euBytes, 16);
  EXPECT_EQ(b.lmemBytesPerLane, 128 * 1024);
  EXPECT_EQ(b.cores, 2);
  EXPECT_GT(b.syncCycles, 0); // two cores need the price of a barrier between them
  EXPECT_EQ(a.cores, 1);

  ChipProfile c = findChipProfile("cv186ah", {TPUC_CHIP_TEST_DIR});
  EXPECT_EQ(c.lanes, 32);
  EXPECT_EQ(c.lmemBytesPerLane, 128 * 1024);
  double cvTops = 2 * c.peakMacsPerCycle(Precision::INT8) * c.frequencyMhz * 1e6 / 1e12;
  EXPECT_NEAR(cvTops, 7.2, 0.1);
  EXPECT_NEAR(c.gdmaBytesPerSecond, 18e9, 1e9);
}

TEST(ChipProfile, KnownChipsListsTheShippedOnes) {
  auto names = knownChips({TPUC_CHIP_TEST_DIR});
  for (const char *n : {"bm1684x", "bm1688", "cv186ah"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
}

TEST(ChipProfile, ANewChipNeedsOnlyAFile) {
  fs::path dir = fs::temp_directory_path() / "tpuc_chip_test_new";
  fs::create_directories(dir);
  nlohmann::json j = nlohmann::json::parse(goodText());
  j["name"] = "mychip";
  j["npu"]["lanes"] = 8;
  std::ofstream(dir / "mychip.json") << j.dump();
  ChipProfile p = findChipProfile("mychip", {dir.string()});
  EXPECT_EQ(p.lanes, 8);
  EXPECT_EQ(p.sourceFile, (dir / "mychip.json").string());
  fs::remove_all(dir);
}

TEST(ChipProfile, UnknownChipListsTheKnownOnes) {
  try {
    findChipProfile("bm9999", {TPUC_CHIP_TEST_DIR});
    FAIL() << "no error";
  } catch (const ProfileError &e) {
    std::string m = e.what();
    EXPECT_NE(m.find("unknown chip 'bm9999'"), std::string::npos) << m;
    EXPECT_NE(m.find("bm1684x"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos);
  }
}

TEST(ChipProfile, ChipNamesAreNotPaths) {
  try {
    findChipProfile("../chips/bm1684x", {TPUC_CHIP_TEST_DIR});
    FAIL();
  } catch (const ProfileError &e) {
    EXPECT_STREQ(e.what(), "invalid chip name '../chips/bm1684x' (letters, digits, '_' and '-' only)");
  }
}

TEST(ChipProfile, NameMustMatchTheFile) {
  fs::path dir = fs::temp_directory_path() / "tpuc_chip_test_name";
  fs::create_directories(dir);
  std::ofstream(dir / "other.json") << goodText();
  try {
    findChipProfile("other", {dir.string()});
    FAIL() << "no error";
  } catch (const ProfileError &e) {
    EXPECT_NE(std::string(e.what()).find("other.json: name:"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

TEST(ChipProfile, MissingFileNamesIt) {
  try {
    loadChipProfile("/nonexistent/dir/x.json");
    FAIL();
  } catch (const ProfileError &e) {
    EXPECT_STREQ(e.what(), "/nonexistent/dir/x.json: cannot open chip profile");
  }
}

TEST(ChipProfile, InvalidJsonNamesFileAndLine) {
  try {
    parseChipProfile("{\n \"schema\": \"tpuc-chip-profile\",\n oops }", "bad.json");
    FAIL();
  } catch (const ProfileError &e) {
    std::string m = e.what();
    EXPECT_EQ(m.rfind("bad.json: invalid JSON: ", 0), 0u) << m;
    EXPECT_NE(m.find("line 3"), std::string::npos) << m;
  }
}

TEST(ChipProfile, BadFieldsNameTheField) {
  nlohmann::json good = nlohmann::json::parse(goodText());
  EXPECT_EQ(errorOf(good), "");
  struct Case {
    std::function<void(nlohmann::json &)> edit;
    std::string expected;
  };
  std::vector<Case> cases = {
      {[](auto &j) { j["npu"].erase("lanes"); }, "x.json: npu.lanes: missing"},
      {[](auto &j) { j["npu"]["lanes"] = 0; }, "x.json: npu.lanes: expected a positive integer, got 0"},
      {[](auto &j) { j["npu"]["lanes"] = "64"; },
       "x.json: npu.lanes: expected a positive integer, got \"64\""},
      {[](auto &j) { j["npu"]["eu_bytes"] = 48; }, "x.json: npu.eu_bytes: expected a power of two, got 48"},
      {[](auto &j) { j["npu"]["lmem_banks"] = 3; }, "x.json: npu.lmem_banks: expected a power of two, got 3"},
      {[](auto &j) { j["npu"] = 5; }, "x.json: npu: expected an object"},
      {[](auto &j) { j["tiu"]["macs_per_lane_per_cycle"].erase("BF16"); },
       "x.json: tiu.macs_per_lane_per_cycle.BF16: missing"},
      {[](auto &j) { j["tiu"]["macs_per_lane_per_cycle"]["INT4"] = 4; },
       "x.json: tiu.macs_per_lane_per_cycle.INT4: unknown precision "
       "(expected INT8, F16, BF16, F32)"},
      {[](auto &j) { j["gdma"]["bandwidth_gbps"] = -1; },
       "x.json: gdma.bandwidth_gbps: expected a positive number, got -1"},
      {[](auto &j) { j["schema"] = "bmodel"; }, "x.json: schema: expected \"tpuc-chip-profile\""},
      {[](auto &j) { j["version"] = 2; }, "x.json: version: unsupported version 2 (this build reads 1)"},
      {[](auto &j) { j["name"] = "BM1684X"; }, "x.json: name: expected a non-empty lower-case name"},
      {[](auto &j) { j["ddr"].erase("alignment"); }, "x.json: ddr.alignment: missing"},
      {[](auto &j) { j["cores"] = 2; },
       "x.json: sync_cycles: missing (a profile of 2 cores needs the cycles of a barrier across them)"},
      {[](auto &j) {
         j["cores"] = 2;
         j["sync_cycles"] = -5;
       },
       "x.json: sync_cycles: expected a non-negative integer, got -5"},
  };
  for (auto &c : cases) {
    nlohmann::json j = good;
    c.edit(j);
    EXPECT_EQ(errorOf(j), c.expected);
  }
  EXPECT_EQ(errorOf(nlohmann::json::array()), "x.json: expected a JSON object at the top level");
}

} // namespace
