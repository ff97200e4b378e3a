//===- SafeTensorsTest.cpp - Reading valid and sharded safetensors files --===//

#include "LLMTestUtil.h"

#include "tpuc/LLM/SafeTensors.h"
#include "tpuc/Support/FloatConvert.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

using namespace tpuc;
using namespace tpuc::llm;
using namespace tpuc::llm::test;

namespace {

std::vector<uint16_t> toBits(const std::vector<float> &values, bool bf16) {
  std::vector<uint16_t> bits;
  for (float v : values)
    bits.push_back(bf16 ? f32ToBF16(v) : f32ToF16(v));
  return bits;
}

TEST(SafeTensors, ReadsFloatTypesAndConvertsToF32) {
  TempDir dir;
  std::vector<float> f32 = {1.5f, -2.0f, 3.25f, 0.0f, 1e-3f, -7.75f};
  std::vector<float> halfValues = {0.5f, -1.25f, 65504.0f, 6.1035156e-05f};
  std::vector<float> bf16Values = {1.0f, -3.0f, 256.0f, 0.15625f};
  std::vector<double> f64 = {0.1, -1e10};
  std::string path = dir.file("model.safetensors");
  writeFile(path, packSafeTensors({{"a.f32", "F32", {2, 3}, rawBytes(f32)},
                                   {"b.f16", "F16", {4}, rawBytes(toBits(halfValues, false))},
                                   {"c.bf16", "BF16", {2, 2}, rawBytes(toBits(bf16Values, true))},
                                   {"d.f64", "F64", {2}, rawBytes(f64)}},
                                  {{"format", "pt"}}));

  auto file = SafeTensorsFile::open(path);
  ASSERT_TRUE(bool(file)) << errorText(file.takeError());
  EXPECT_EQ((*file)->header().metadata.at("format"), "pt");
  ASSERT_EQ((*file)->tensors().size(), 4u);
  EXPECT_EQ((*file)->tensors()[0].name, "a.f32");

  auto a = (*file)->get("a.f32");
  ASSERT_TRUE(bool(a));
  EXPECT_EQ(a->dtype(), DType::F32);
  EXPECT_EQ(std::vector<int64_t>(a->shape().begin(), a->shape().end()), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a->toF32(), f32);

  auto b = (*file)->get("b.f16");
  ASSERT_TRUE(bool(b));
  EXPECT_EQ(b->dtype(), DType::F16);
  EXPECT_EQ(b->toF32(), halfValues); // all exactly representable

  auto c = (*file)->get("c.bf16");
  ASSERT_TRUE(bool(c));
  EXPECT_EQ(c->dtype(), DType::BF16);
  EXPECT_EQ(c->toF32(), bf16Values);

  auto d = (*file)->get("d.f64");
  ASSERT_TRUE(bool(d));
  EXPECT_EQ(d->toF32(), (std::vector<float>{0.1f, -1e10f}));

  // toTensor copies dtype, shape and bytes.
  Tensor tensor = c->toTensor();
  EXPECT_EQ(tensor.dtype(), DType::BF16);
  EXPECT_EQ(tensor.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(tensor.byteSize(), 8u);
}

TEST(SafeTensors, ViewsAreZeroCopy) {
  std::vector<float> first = {1, 2, 3};
  std::vector<float> second = {4, 5};
  std::string bytes =
      packSafeTensors({{"x", "F32", {3}, rawBytes(first)}, {"y", "F32", {2}, rawBytes(second)}});
  auto file = SafeTensorsFile::fromBuffer(llvm::MemoryBuffer::getMemBufferCopy(bytes, "mem.safetensors"));
  ASSERT_TRUE(bool(file)) << errorText(file.takeError());
  auto x = (*file)->get("x");
  auto y = (*file)->get("y");
  ASSERT_TRUE(x && y);
  // Adjacent views into the same mapping, not copies.
  EXPECT_EQ(y->bytes().data() - x->bytes().data(), 12);
  EXPECT_EQ(x->bytes().size(), 12u);
  EXPECT_EQ(std::memcmp(y->bytes().data(), second.data(), 8), 0);
}

TEST(SafeTensors, IntegerBoolScalarAndEmptyTensors) {
  std::vector<int8_t> i8 = {-128, 0, 127};
  std::vector<uint8_t> u8 = {0, 200, 255};
  std::vector<int16_t> i16 = {-300, 300};
  std::vector<int32_t> i32 = {-70000, 70000};
  std::vector<int64_t> i64 = {-5, 1ll << 40};
  std::vector<uint8_t> boolean = {1, 0, 1};
  std::vector<float> scalar = {42.0f};
  std::string bytes = packSafeTensors({{"i8", "I8", {3}, rawBytes(i8)},
                                       {"u8", "U8", {3}, rawBytes(u8)},
                                       {"i16", "I16", {2}, rawBytes(i16)},
                                       {"i32", "I32", {2}, rawBytes(i32)},
                                       {"i64", "I64", {2}, rawBytes(i64)},
                                       {"bool", "BOOL", {3}, rawBytes(boolean)},
                                       {"scalar", "F32", {}, rawBytes(scalar)},
                                       {"empty", "F32", {0, 4}, ""},
                                       {"empty2", "BF16", {3, 0}, ""}});
  auto file = SafeTensorsFile::fromBuffer(llvm::MemoryBuffer::getMemBufferCopy(bytes, "ints.safetensors"));
  ASSERT_TRUE(bool(file)) << errorText(file.takeError());
  auto get = [&](const char *name) {
    auto view = (*file)->get(name);
    EXPECT_TRUE(bool(view)) << name;
    return view ? view->toF32() : std::vector<float>{};
  };
  EXPECT_EQ(get("i8"), (std::vector<float>{-128, 0, 127}));
  EXPECT_EQ(get("u8"), (std::vector<float>{0, 200, 255}));
  EXPECT_EQ(get("i16"), (std::vector<float>{-300, 300}));
  EXPECT_EQ(get("i32"), (std::vector<float>{-70000, 70000}));
  EXPECT_EQ(get("i64"), (std::vector<float>{-5, float(1ll << 40)}));
  EXPECT_EQ(get("bool"), (std::vector<float>{1, 0, 1}));
  EXPECT_EQ(get("scalar"), (std::vector<float>{42}));
  EXPECT_TRUE(get("empty").empty());
  EXPECT_TRUE(get("empty2").empty());
  EXPECT_EQ((*file)->find("scalar")->numElements(), 1);
}

TEST(SafeTensors, MissingTensorNamesFileAndTensor) {
  TempDir dir;
  std::string path = dir.file("one.safetensors");
  writeFile(path, packSafeTensors({{"w", "F32", {1}, rawBytes<float>({1})}}));
  auto file = SafeTensorsFile::open(path);
  ASSERT_TRUE(bool(file));
  std::string message = errorText((*file)->get("model.norm.weight").takeError());
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("model.norm.weight"), std::string::npos) << message;

  std::string missing = errorText(SafeTensorsFile::open(dir.file("absent.safetensors")).takeError());
  EXPECT_NE(missing.find("absent.safetensors"), std::string::npos) << missing;
}

TEST(SafeTensors, ShardedCheckpointOpensEachShardOnce) {
  TempDir dir;
  std::vector<float> embed = {0.25f, 0.5f, 0.75f, 1.0f};
  std::vector<float> norm = {2.0f, 3.0f};
  writeFile(dir.file("model-00001-of-00002.safetensors"),
            packSafeTensors({{"model.embed_tokens.weight", "BF16", {2, 2}, rawBytes(toBits(embed, true))},
                             {"model.layers.0.input_layernorm.weight", "F32", {2}, rawBytes(norm)}}));
  writeFile(dir.file("model-00002-of-00002.safetensors"),
            packSafeTensors({{"lm_head.weight", "F16", {2, 2}, rawBytes(toBits(embed, false))}}));
  nlohmann::json index = {{"metadata", {{"total_size", 24}}},
                          {"weight_map",
                           {{"model.embed_tokens.weight", "model-00001-of-00002.safetensors"},
                            {"model.layers.0.input_layernorm.weight", "model-00001-of-00002.safetensors"},
                            {"lm_head.weight", "model-00002-of-00002.safetensors"}}}};
  writeFile(dir.file("model.safetensors.index.json"), index.dump());

  auto checkpoint = SafeTensorsCheckpoint::open(dir.path());
  ASSERT_TRUE(bool(checkpoint)) << errorText(checkpoint.takeError());
  EXPECT_EQ((*checkpoint)->files().size(), 2u);
  EXPECT_EQ((*checkpoint)->tensorNames(),
            (std::vector<std::string>{"lm_head.weight", "model.embed_tokens.weight",
                                      "model.layers.0.input_layernorm.weight"}));
  EXPECT_EQ((*checkpoint)->indexMetadata().at("total_size"), "24");
  auto head = (*checkpoint)->getF32("lm_head.weight");
  ASSERT_TRUE(bool(head));
  EXPECT_EQ(*head, embed);
  auto emb = (*checkpoint)->getF32("model.embed_tokens.weight");
  ASSERT_TRUE(bool(emb));
  EXPECT_EQ(*emb, embed);
  EXPECT_TRUE((*checkpoint)->contains("model.layers.0.input_layernorm.weight"));
  std::string message = errorText((*checkpoint)->get("model.layers.9.mlp.up_proj.weight").takeError());
  EXPECT_NE(message.find("model.layers.9.mlp.up_proj.weight"), std::string::npos);

  // The index file itself may be given.
  auto viaIndex = SafeTensorsCheckpoint::open(dir.file("model.safetensors.index.json"));
  ASSERT_TRUE(bool(viaIndex)) << errorText(viaIndex.takeError());
  EXPECT_EQ((*viaIndex)->files().size(), 2u);
}

TEST(SafeTensors, ShardedIndexErrors) {
  TempDir dir;
  writeFile(dir.file("a.safetensors"), packSafeTensors({{"x", "F32", {1}, rawBytes<float>({1})}}));
  auto openWith = [&](const nlohmann::json &index) {
    writeFile(dir.file("model.safetensors.index.json"), index.dump());
    return errorText(SafeTensorsCheckpoint::open(dir.path()).takeError());
  };
  std::string message = openWith({{"weight_map", {{"y", "a.safetensors"}}}});
  EXPECT_NE(message.find("'y'"), std::string::npos) << message;
  message = openWith({{"weight_map", {{"x", "missing.safetensors"}}}});
  EXPECT_NE(message.find("missing.safetensors"), std::string::npos) << message;
  message = openWith({{"weight_map", {{"x", "../a.safetensors"}}}});
  EXPECT_NE(message.find("invalid shard"), std::string::npos) << message;
  message = openWith({{"no_weight_map", 1}});
  EXPECT_NE(message.find("weight_map"), std::string::npos) << message;
  EXPECT_EQ(openWith({{"weight_map", {{"x", "a.safetensors"}}}}), "");
}

TEST(SafeTensors, SingleFileFolder) {
  TempDir dir;
  writeFile(dir.file("model.safetensors"), packSafeTensors({{"x", "F32", {2}, rawBytes<float>({1, 2})}}));
  auto checkpoint = SafeTensorsCheckpoint::open(dir.path());
  ASSERT_TRUE(bool(checkpoint)) << errorText(checkpoint.takeError());
  EXPECT_EQ((*checkpoint)->tensorNames(), std::vector<std::string>{"x"});

  TempDir empty;
  std::string message = errorText(SafeTensorsCheckpoint::open(empty.path()).takeError());
  EXPECT_NE(message.find("no model.safetensors"), std::string::npos);
}

/// The process's resident set in KiB (/proc/self/status VmRSS).
long residentKb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0)
      return std::atol(line.c_str() + 6);
  return -1;
}

// A converter streams a checkpoint: the mapped pages of a consumed tensor leave the resident set, and the
// tensor still reads the same afterwards (the pages come back from the file).
TEST(SafeTensors, ReleasedTensorLeavesTheResidentSet) {
  TempDir dir;
  std::vector<float> values(4 << 20); // 16 MiB
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(i % 1000) * 0.5f;
  writeFile(dir.file("model.safetensors"),
            packSafeTensors({{"big", "F32", {static_cast<int64_t>(values.size())}, rawBytes(values)}}));
  values = {};
  auto checkpoint = SafeTensorsCheckpoint::open(dir.path());
  ASSERT_TRUE(bool(checkpoint)) << errorText(checkpoint.takeError());
  auto view = (*checkpoint)->get("big");
  ASSERT_TRUE(bool(view));
  double sum = 0;
  for (uint8_t b : view->bytes()) // touch every page of the mapping
    sum += b;
  long before = residentKb();
  (*checkpoint)->releasePages("big");
  long after = residentKb();
  EXPECT_GT(before - after, 12 << 10) << "resident " << before << " KiB before, " << after << " KiB after";
  std::vector<float> again = view->toF32();
  EXPECT_EQ(again[1001], 0.5f);
  EXPECT_EQ(again.back(), static_cast<float>((again.size() - 1) % 1000) * 0.5f);
  EXPECT_GT(sum, 0);
  (*checkpoint)->releasePages("absent"); // a name not in the checkpoint: nothing happens
}

// A checkpoint cut short after it was opened (issue 25: a model file truncated while a run reads it):
// the tensors past the new end are refused in one line naming the file, not read through the mapping
// (which would kill the converter with SIGBUS).
TEST(SafeTensors, FileCutShortAfterOpeningIsRefusedNotMapped) {
  TempDir dir;
  std::vector<float> first(64 << 10, 1.0f), second(64 << 10, 2.0f); // 256 KiB each: mapped, not read
  const std::string file = dir.file("model.safetensors");
  writeFile(file, packSafeTensors({{"a", "F32", {static_cast<int64_t>(first.size())}, rawBytes(first)},
                                   {"b", "F32", {static_cast<int64_t>(second.size())}, rawBytes(second)}}));
  auto checkpoint = SafeTensorsCheckpoint::open(dir.path());
  ASSERT_TRUE(bool(checkpoint)) << errorText(checkpoint.takeError());
  // The data is packed in the order given: cutting 100 kB off the end cuts into "b" only.
  std::filesystem::resize_file(file, std::filesystem::file_size(file) - 100000);
  auto b = (*checkpoint)->get("b");
  ASSERT_FALSE(bool(b));
  const std::string error = errorText(b.takeError());
  EXPECT_NE(error.find(file), std::string::npos) << error;
  EXPECT_NE(error.find("ended early"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  auto again = (*checkpoint)->get("a"); // still whole: still readable
  ASSERT_TRUE(bool(again)) << errorText(again.takeError());
  EXPECT_EQ(again->toF32().back(), 1.0f);
}

// A file written by an independent writer: NumPy bytes packed by Python.
TEST(SafeTensors, ReadsFileWrittenByPython) {
  TempDir dir;
  std::string path = dir.file("py.safetensors");
  std::string command =
      std::string(TPUC_PYTHON) + " " + TPUC_LLM_TEST_INPUTS + "/make_safetensors.py " + path;
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  auto file = SafeTensorsFile::open(path);
  ASSERT_TRUE(bool(file)) << errorText(file.takeError());
  // make_safetensors.py stores arange(n) * 0.5 - 3 in each dtype.
  for (const char *name : {"f32", "f16", "bf16"}) {
    auto view = (*file)->get(name);
    ASSERT_TRUE(bool(view)) << name;
    std::vector<float> values = view->toF32();
    ASSERT_EQ(values.size(), 24u) << name;
    for (size_t i = 0; i < values.size(); ++i)
      EXPECT_EQ(values[i], static_cast<float>(i) * 0.5f - 3.0f) << name;
  }
  auto ints = (*file)->get("i64");
  ASSERT_TRUE(bool(ints));
  EXPECT_EQ(ints->toF32(), (std::vector<float>{-1, 0, 1, 1e12f}));
  EXPECT_EQ((*file)->header().metadata.at("format"), "pt");
}

} // namespace
