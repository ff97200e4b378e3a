//===- SafeTensorsCorruptTest.cpp - Corrupt and hostile safetensors files -===//

#include "LLMTestUtil.h"

#include "tpuc/LLM/SafeTensors.h"

#include <random>

using namespace tpuc;
using namespace tpuc::llm;
using namespace tpuc::llm::test;

namespace {

/// The error for parsing `file`, or "" if it parsed.
std::string parseError(const std::string &file) {
  llvm::ArrayRef<uint8_t> bytes(reinterpret_cast<const uint8_t *>(file.data()), file.size());
  return errorText(parseSafeTensorsHeader(bytes, "bad.safetensors").takeError());
}

/// A header with one tensor entry `entry` over `dataSize` zero bytes.
std::string withEntry(const std::string &entry, size_t dataSize) {
  return rawSafeTensors("{\"t\":" + entry + "}", std::string(dataSize, '\0'));
}

void expectErrorMentions(const std::string &message, std::initializer_list<const char *> parts) {
  ASSERT_FALSE(message.empty()) << "expected an error";
  EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
  EXPECT_NE(message.find("bad.safetensors"), std::string::npos) << message;
  for (const char *part : parts)
    EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' missing in: " << message;
}

TEST(SafeTensorsCorrupt, TooShortForHeaderSize) {
  expectErrorMentions(parseError(""), {"shorter than the 8-byte"});
  expectErrorMentions(parseError("abc"), {"shorter than the 8-byte"});
}

TEST(SafeTensorsCorrupt, HeaderSizeTooBig) {
  std::string header = "{}";
  expectErrorMentions(parseError(rawSafeTensors(header, "", 3)), {"past the end of the file"});
  expectErrorMentions(parseError(rawSafeTensors(header, "", UINT64_MAX)), {"exceeds the limit"});
  expectErrorMentions(parseError(rawSafeTensors(header, "", kMaxSafeTensorsHeaderSize + 1)),
                      {"exceeds the limit"});
}

TEST(SafeTensorsCorrupt, HeaderNotJsonObject) {
  expectErrorMentions(parseError(rawSafeTensors("{\"t\": [", "")), {"not valid JSON"});
  expectErrorMentions(parseError(rawSafeTensors("[1, 2]", "")), {"not a JSON object"});
  expectErrorMentions(parseError(rawSafeTensors("{\"t\": 5}", "")), {"'t'", "not an object"});
  expectErrorMentions(parseError(rawSafeTensors("{\"__metadata__\": {\"a\": 1}}", "")),
                      {"__metadata__", "'a'"});
}

TEST(SafeTensorsCorrupt, BadDType) {
  expectErrorMentions(parseError(withEntry(R"({"dtype":"F8_E4M3","shape":[1],"data_offsets":[0,1]})", 1)),
                      {"'t'", "F8_E4M3"});
  expectErrorMentions(parseError(withEntry(R"({"dtype":"f32","shape":[1],"data_offsets":[0,4]})", 4)),
                      {"'t'", "unknown or unsupported dtype"});
  expectErrorMentions(parseError(withEntry(R"({"dtype":7,"shape":[1],"data_offsets":[0,4]})", 4)),
                      {"'t'", "dtype"});
}

TEST(SafeTensorsCorrupt, BadShape) {
  expectErrorMentions(parseError(withEntry(R"({"dtype":"F32","shape":[-1],"data_offsets":[0,4]})", 4)),
                      {"'t'", "negative"});
  expectErrorMentions(parseError(withEntry(R"({"dtype":"F32","shape":[1.5],"data_offsets":[0,4]})", 4)),
                      {"'t'", "shape"});
  expectErrorMentions(parseError(withEntry(R"({"dtype":"F32","data_offsets":[0,4]})", 4)), {"'t'", "shape"});
  // Element count overflows 64 bits.
  expectErrorMentions(parseError(withEntry(R"({"dtype":"F32","shape":[4294967296,4294967296,16],)"
                                           R"("data_offsets":[0,4]})",
                                           4)),
                      {"'t'", "too large"});
}

TEST(SafeTensorsCorrupt, OffsetsOutOfRange) {
  expectErrorMentions(parseError(withEntry(R"({"dtype":"F32","shape":[4],"data_offsets":[0,16]})", 8)),
                      {"'t'", "past the data region"});
  expectErrorMentions(
      parseError(withEntry(R"({"dtype":"F32","shape":[1],"data_offsets":[18446744073709551612,)"
                           R"(18446744073709551615]})",
                           8)),
      {"'t'", "past the data region"});
  expectErrorMentions(parseError(withEntry(R"({"dtype":"F32","shape":[1],"data_offsets":[8,4]})", 8)),
                      {"'t'", "begin 8 > end 4"});
  expectErrorMentions(parseError(withEntry(R"({"dtype":"F32","shape":[1],"data_offsets":[-4,0]})", 8)),
                      {"'t'", "non-negative"});
  expectErrorMentions(parseError(withEntry(R"({"dtype":"F32","shape":[1],"data_offsets":[0]})", 8)),
                      {"'t'", "data_offsets"});
}

TEST(SafeTensorsCorrupt, OffsetsInconsistentWithShape) {
  expectErrorMentions(parseError(withEntry(R"({"dtype":"BF16","shape":[3],"data_offsets":[0,8]})", 8)),
                      {"'t'", "span 8 bytes", "needs 6"});
}

TEST(SafeTensorsCorrupt, OverlappingTensors) {
  std::string header = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                       R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})";
  expectErrorMentions(parseError(rawSafeTensors(header, std::string(12, 0))), {"overlaps", "'a'", "'b'"});
  // Empty tensors at the same offset do not overlap anything.
  std::string empties = R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[4,4]},)"
                        R"("b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  EXPECT_EQ(parseError(rawSafeTensors(empties, std::string(8, 0))), "");
}

TEST(SafeTensorsCorrupt, TruncatedFile) {
  std::string file =
      packSafeTensors({{"w", "F32", {16}, std::string(64, '\1')}, {"v", "F32", {16}, std::string(64, '\2')}});
  ASSERT_EQ(parseError(file), "");
  // Cutting the data shows as the last tensor running past the data region.
  expectErrorMentions(parseError(file.substr(0, file.size() - 1)), {"'v'", "past the data region"});
  // Cutting into the header shows as a header size past the end.
  expectErrorMentions(parseError(file.substr(0, 20)), {"past the end of the file"});
}

// Random mutations of a valid file must give a clean error or a header
// whose every tensor lies inside the data region; never a crash.
TEST(SafeTensorsCorrupt, RandomMutationsNeverCrash) {
  std::string valid = packSafeTensors({{"model.embed_tokens.weight", "BF16", {4, 8}, std::string(64, '\3')},
                                       {"model.norm.weight", "F32", {8}, std::string(32, '\4')},
                                       {"lm_head.bias", "F16", {}, std::string(2, '\5')}},
                                      {{"format", "pt"}});
  std::mt19937 rng(12345);
  int accepted = 0, rejected = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string file = valid;
    int edits = 1 + rng() % 4;
    for (int e = 0; e < edits && file.size() > 8; ++e) {
      switch (rng() % 4) {
      case 0: // flip a byte
        file[rng() % file.size()] = static_cast<char>(rng());
        break;
      case 1: { // change a digit inside the header
        size_t pos = 8 + rng() % (file.size() - 8);
        if (file[pos] >= '0' && file[pos] <= '9')
          file[pos] = static_cast<char>('0' + rng() % 10);
        break;
      }
      case 2: // truncate
        file.resize(rng() % file.size());
        break;
      default: // corrupt the size field
        file[rng() % 8] = static_cast<char>(rng());
        break;
      }
    }
    llvm::ArrayRef<uint8_t> bytes(reinterpret_cast<const uint8_t *>(file.data()), file.size());
    auto header = parseSafeTensorsHeader(bytes, "fuzz.safetensors");
    if (!header) {
      std::string message = errorText(header.takeError());
      EXPECT_NE(message.find("fuzz.safetensors"), std::string::npos);
      ++rejected;
      continue;
    }
    ++accepted;
    EXPECT_EQ(header->dataOffset + header->dataSize, file.size());
    for (const SafeTensorInfo &info : header->tensors)
      EXPECT_LE(info.dataEnd, header->dataSize);
  }
  EXPECT_GT(rejected, 0);
  EXPECT_GT(accepted, 0);
}

} // namespace
