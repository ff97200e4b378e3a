//===- NpzInteropTest.cpp - npz round trips through real NumPy ------------===//
//
// Writes every dtype (stored and deflated, 0-d, empty, > 4 MiB) and lets
// numpy check it, then reads numpy's own files (savez, savez_compressed,
// Fortran order, big-endian, format 2.0/3.0). The value generator mirrors
// npz_interop.py.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Support/FloatConvert.h"
#include "tpuc/Support/Npz.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

using namespace tpuc;

namespace {

const std::vector<int64_t> kShape = {2, 3, 4};
const std::vector<int64_t> kBigShape = {1536, 1024};

std::vector<double> floatValues(int64_t n, bool specials) {
  std::vector<double> values(n);
  for (int64_t i = 0; i < n; ++i)
    values[i] = static_cast<double>((i * 7) % 251 - 125) * 0.5;
  if (specials && n >= 8) {
    values[0] = std::numeric_limits<double>::quiet_NaN();
    values[1] = std::numeric_limits<double>::infinity();
    values[2] = -std::numeric_limits<double>::infinity();
    values[3] = -0.0;
  }
  return values;
}

template <typename T>
Tensor integers(const std::vector<int64_t> &shape, uint64_t mult) {
  Tensor t(DTypeTraits<T>::kType, shape);
  auto out = t.values<T>();
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<T>(static_cast<uint64_t>(i) * mult + 1);
  return t;
}

Tensor expected(DType type, const std::vector<int64_t> &shape,
                bool specials = true) {
  int64_t n = shapeNumElements(shape);
  std::vector<double> f = floatValues(n, specials);
  Tensor t(type, shape);
  switch (type) {
  case DType::F32:
    for (int64_t i = 0; i < n; ++i)
      t.values<float>()[i] = static_cast<float>(f[i]);
    return t;
  case DType::F64:
    for (int64_t i = 0; i < n; ++i)
      t.values<double>()[i] = f[i];
    return t;
  case DType::F16:
  case DType::BF16:
    for (int64_t i = 0; i < n; ++i)
      t.values<uint16_t>()[i] = type == DType::F16
                                    ? f32ToF16(static_cast<float>(f[i]))
                                    : f32ToBF16(static_cast<float>(f[i]));
    return t;
  case DType::Bool:
    for (int64_t i = 0; i < n; ++i)
      t.values<bool>()[i] = i % 3 == 0;
    return t;
  case DType::I8:
    return integers<int8_t>(shape, 37);
  case DType::U8:
    return integers<uint8_t>(shape, 37);
  case DType::I16:
    return integers<int16_t>(shape, 1237);
  case DType::U16:
    return integers<uint16_t>(shape, 1237);
  case DType::I32:
    return integers<int32_t>(shape, 2654435761u);
  case DType::U32:
    return integers<uint32_t>(shape, 2654435761u);
  case DType::I64:
    return integers<int64_t>(shape, 0x9E3779B97F4A7C15ull);
  case DType::U64:
    return integers<uint64_t>(shape, 0x9E3779B97F4A7C15ull);
  }
  return t;
}

std::vector<std::pair<std::string, Tensor>> expectedMembers() {
  std::vector<std::pair<std::string, Tensor>> members;
  for (DType type : kAllDTypes)
    members.emplace_back(std::string(dtypeName(type)),
                         expected(type, kShape));
  members.emplace_back("scalar", Tensor::fromValues<float>({}, {3.5f}));
  members.emplace_back("empty_f32", Tensor(DType::F32, {0, 3}));
  members.emplace_back("empty_i8", Tensor(DType::I8, {2, 0}));
  std::vector<int8_t> int4(7);
  for (int i = 0; i < 7; ++i)
    int4[i] = static_cast<int8_t>(i % 16 - 8);
  members.emplace_back("int4_packed",
                       Tensor::fromValues<uint8_t>({4}, packInt4(int4)));
  members.emplace_back("big", expected(DType::F32, kBigShape, false));
  members.emplace_back("layer/with.dots", expected(DType::I32, {5}));
  return members;
}

std::string makeTempDir() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "tpuc-npz-XXXXXX").string();
  char *dir = mkdtemp(pattern.data());
  EXPECT_NE(dir, nullptr);
  return pattern;
}

int runPython(const std::string &mode, const std::string &dir) {
  std::string command = std::string(TPUC_PYTHON) + " " + TPUC_INTEROP_SCRIPT +
                        " " + mode + " '" + dir + "'";
  return std::system(command.c_str());
}

/// What a file holds after a trip through disk: bf16 comes back as u16.
Tensor onDisk(const Tensor &tensor) {
  return tensor.dtype() == DType::BF16 ? tensor.reinterpret(DType::U16)
                                       : tensor;
}

class NpzInterop : public ::testing::Test {
protected:
  void SetUp() override { dir_ = makeTempDir(); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string &name) const { return dir_ + "/" + name; }
  std::string dir_;
};

} // namespace

TEST_F(NpzInterop, NumpyReadsWhatWeWrite) {
  NpzFile npz;
  for (auto &[name, tensor] : expectedMembers())
    npz.set(name, tensor);
  npz.write(path("ours_stored.npz"), /*compressed=*/false);
  npz.write(path("ours_compressed.npz"), /*compressed=*/true);
  for (DType type : kAllDTypes)
    writeNpy(path("ours_" + std::string(dtypeName(type)) + ".npy"),
             expected(type, kShape));
  NpzFile().write(path("ours_empty.npz"));
  EXPECT_EQ(runPython("check", dir_), 0);
  // Deflate actually compressed the big, repetitive array.
  EXPECT_LT(std::filesystem::file_size(path("ours_compressed.npz")),
            std::filesystem::file_size(path("ours_stored.npz")) / 4);
}

TEST_F(NpzInterop, WeReadWhatNumpyWrites) {
  ASSERT_EQ(runPython("write", dir_), 0);
  auto members = expectedMembers();
  for (const char *file : {"np_stored.npz", "np_compressed.npz"}) {
    SCOPED_TRACE(file);
    NpzFile npz = NpzFile::read(path(file));
    ASSERT_EQ(npz.size(), members.size());
    for (size_t i = 0; i < members.size(); ++i) {
      EXPECT_EQ(npz.names()[i], members[i].first);
      EXPECT_TRUE(npz.get(members[i].first) == onDisk(members[i].second))
          << members[i].first;
    }
    // The caller restores bf16 from its u16 storage.
    EXPECT_TRUE(npz.get("bf16").reinterpret(DType::BF16) ==
                expected(DType::BF16, kShape));
    auto unpacked = unpackInt4(npz.get("int4_packed").values<uint8_t>(), 7);
    EXPECT_EQ(unpacked[0], -8);
    EXPECT_EQ(unpacked[6], -2);
  }
  for (DType type : kAllDTypes) {
    std::string name = "np_" + std::string(dtypeName(type)) + ".npy";
    EXPECT_TRUE(readNpy(path(name)) == onDisk(expected(type, kShape))) << name;
  }
  EXPECT_TRUE(readNpy(path("np_fortran.npy")) == expected(DType::F32, kShape));
  EXPECT_TRUE(readNpy(path("np_bigendian.npy")) ==
              expected(DType::I32, kShape));
  EXPECT_TRUE(readNpy(path("np_v2.npy")) == expected(DType::F32, kShape));
  EXPECT_TRUE(readNpy(path("np_v3.npy")) == expected(DType::F32, kShape));
  NpzFile variants = NpzFile::read(path("np_variants.npz"));
  EXPECT_TRUE(variants.get("fortran") == expected(DType::I16, kShape));
  EXPECT_TRUE(variants.get("bigendian") == expected(DType::F32, kShape));
  EXPECT_TRUE(NpzFile::read(path("np_empty.npz")).empty());
}

TEST_F(NpzInterop, EveryTruncationOfANumpyFileFailsCleanly) {
  ASSERT_EQ(runPython("write", dir_), 0);
  for (const char *file : {"np_variants.npz", "np_compressed.npz"}) {
    std::ifstream in(path(file), std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                            std::istreambuf_iterator<char>());
    ASSERT_FALSE(bytes.empty());
    size_t step = std::max<size_t>(1, bytes.size() / 400);
    for (size_t len = 0; len < bytes.size(); len += step) {
      try {
        NpzFile::parse(bytes.data(), len, "cut.npz");
        ADD_FAILURE() << file << " cut to " << len << " bytes was accepted";
      } catch (const NpyError &e) {
        EXPECT_EQ(std::string(e.what()).rfind("cut.npz: ", 0), 0u) << e.what();
      }
    }
  }
}
