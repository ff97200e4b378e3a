//===- NpzTest.cpp - .npy/.npz format, container and error tests ----------===//

#include "tpuc/Support/Npz.h"

#include <gtest/gtest.h>
#include <zip.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <iterator>
#include <unistd.h>

using namespace tpuc;

namespace {

std::string asString(const std::vector<uint8_t> &bytes) {
  return std::string(bytes.begin(), bytes.end());
}

std::vector<uint8_t> readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string errorOf(const std::function<void()> &fn) {
  try {
    fn();
  } catch (const NpyError &e) {
    return e.what();
  }
  return "<no error>";
}

/// A zip whose members hold arbitrary bytes, built with libzip directly.
std::string makeZip(const std::string &path,
                    const std::vector<std::pair<std::string, std::string>> &m) {
  int code = 0;
  zip_t *archive = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
  EXPECT_NE(archive, nullptr);
  for (const auto &[name, bytes] : m) {
    zip_source_t *src =
        zip_source_buffer(archive, bytes.data(), bytes.size(), 0);
    EXPECT_GE(zip_file_add(archive, name.c_str(), src, 0), 0);
  }
  EXPECT_EQ(zip_close(archive), 0);
  return path;
}

class NpzFiles : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("tpuc-npztest-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string &name) const {
    return (dir_ / name).string();
  }
  std::filesystem::path dir_;
};

} // namespace

TEST(NpyHeader, MatchesNumpyByteForByte) {
  // np.save of np.zeros((2, 3), np.float32) starts with exactly these bytes.
  std::string dict = "{'descr': '<f4', 'fortran_order': False, "
                     "'shape': (2, 3), }";
  std::string header = npyHeader(Tensor(DType::F32, {2, 3}));
  ASSERT_EQ(header.size(), 128u);
  EXPECT_EQ(header.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ(static_cast<uint8_t>(header[8]), 118);
  EXPECT_EQ(header[9], 0);
  EXPECT_EQ(header.substr(10, dict.size()), dict);
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ(header.find_first_not_of(' ', 10 + dict.size()), 127u);
}

TEST(NpyHeader, ShapeSpellingAndDescr) {
  EXPECT_NE(npyHeader(Tensor(DType::F32, {})).find("'shape': (), }"),
            std::string::npos);
  EXPECT_NE(npyHeader(Tensor(DType::I8, {5})).find("'descr': '|i1'"),
            std::string::npos);
  EXPECT_NE(npyHeader(Tensor(DType::I8, {5})).find("'shape': (5,), }"),
            std::string::npos);
  EXPECT_NE(npyHeader(Tensor(DType::BF16, {1})).find("'<u2'"),
            std::string::npos);
  EXPECT_NE(npyHeader(Tensor(DType::Bool, {1})).find("'|b1'"),
            std::string::npos);
}

TEST(Npy, InMemoryRoundTripOfEveryDType) {
  for (DType type : kAllDTypes) {
    for (const std::vector<int64_t> &shape :
         {std::vector<int64_t>{}, {0}, {3, 0, 2}, {7}, {2, 3, 5}}) {
      Tensor t(type, shape);
      for (size_t i = 0; i < t.byteSize(); ++i)
        t.data()[i] = static_cast<uint8_t>(i * 31 + 7);
      if (type == DType::Bool)
        for (size_t i = 0; i < t.byteSize(); ++i)
          t.data()[i] &= 1;
      std::vector<uint8_t> image = serializeNpy(t);
      EXPECT_EQ((image.size() - t.byteSize()) % 64, 0u);
      Tensor back = parseNpy(image.data(), image.size(), "mem");
      DType expectType = type == DType::BF16 ? DType::U16 : type;
      EXPECT_TRUE(back == t.reinterpret(expectType))
          << dtypeName(type) << " " << shapeToString(shape);
    }
  }
}

TEST(Npy, AcceptsHeaderVariants) {
  auto image = [](const std::string &dict, const std::string &data) {
    std::string out("\x93NUMPY\x01\x00", 8);
    out += static_cast<char>(dict.size() & 0xff);
    out += static_cast<char>(dict.size() >> 8);
    return out + dict + data;
  };
  auto parse = [](const std::string &img) {
    return parseNpy(reinterpret_cast<const uint8_t *>(img.data()), img.size(),
                    "x.npy");
  };
  // Double quotes, other key order, Python 2 longs, no trailing comma.
  Tensor t = parse(image("{\"shape\": (2L,), \"fortran_order\": False, "
                         "\"descr\": \"<i2\"}\n",
                         std::string("\x01\x00\x02\x00", 4)));
  EXPECT_EQ(t.dtype(), DType::I16);
  EXPECT_EQ(t.values<int16_t>()[1], 2);
  // Big-endian data is swapped; '=' is native.
  t = parse(image("{'descr': '>u2', 'fortran_order': False, 'shape': (1,), }",
                  std::string("\x01\x02", 2)));
  EXPECT_EQ(t.values<uint16_t>()[0], 0x0102);
  t = parse(image("{'descr': '=u2', 'fortran_order': False, 'shape': (1,), }",
                  std::string("\x01\x02", 2)));
  EXPECT_EQ(t.values<uint16_t>()[0], 0x0201);
  // Fortran order is transposed to C order.
  t = parse(image("{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3), }",
                  "ABCDEF"));
  EXPECT_EQ(asString(t.bytes()), "ACEBDF");
}

TEST(Npy, RejectsBadImagesWithClearMessages) {
  auto image = [](const std::string &dict, const std::string &data) {
    std::string out("\x93NUMPY\x01\x00", 8);
    out += static_cast<char>(dict.size() & 0xff);
    out += static_cast<char>(dict.size() >> 8);
    return out + dict + data;
  };
  auto error = [](const std::string &img) {
    return errorOf([&] {
      parseNpy(reinterpret_cast<const uint8_t *>(img.data()), img.size(),
               "x.npy");
    });
  };
  const std::string ok = "'fortran_order': False, 'shape': (2,), }";
  EXPECT_EQ(error("PK\3\4whatever"), "x.npy: not an npy array (bad magic)");
  EXPECT_EQ(error("abc"),
            "x.npy: file holds 3 bytes, too short for an npy header");
  EXPECT_EQ(error(std::string("\x93NUMPY\x04\x00\x00\x00", 10)),
            "x.npy: unsupported npy format version 4.0");
  EXPECT_EQ(error(image("{'descr': '<f4', " + ok, "12345678123")),
            "x.npy: header says 8 bytes, file holds 11");
  EXPECT_EQ(error(image("{'descr': '<c8', " + ok, "")),
            "x.npy: unsupported dtype '<c8' (supported: f2 f4 f8 i1 u1 i2 u2 "
            "i4 u4 i8 u8 b1)");
  EXPECT_NE(error(image("{'descr': [('a', '<f4')], " + ok, ""))
                .find("structured dtypes are not supported"),
            std::string::npos);
  EXPECT_NE(error(image("{'descr': '<f4', 'shape': (2,), }", "12345678"))
                .find("missing key 'fortran_order'"),
            std::string::npos);
  EXPECT_NE(error(image("{'descr': '<f4', 'fortran_order': Maybe, "
                        "'shape': (2,), }",
                        ""))
                .find("fortran_order must be True or False"),
            std::string::npos);
  EXPECT_NE(error(image("{'descr': '<f4', 'fortran_order': False, "
                        "'shape': (-2,), }",
                        ""))
                .find("shape entries must be non-negative integers"),
            std::string::npos);
  EXPECT_NE(error(image("{'descr': '<f4', 'fortran_order': False, "
                        "'shape': (4294967296, 4294967296, 4294967296), }",
                        ""))
                .find("too many elements"),
            std::string::npos);
  std::string big("\x93NUMPY\x02\x00\xff\xff\xff\x7f", 12);
  EXPECT_EQ(error(big), "x.npy: header says its dict is 2147483647 bytes, "
                        "file holds 0");
}

TEST(Npy, EveryTruncationIsRejected) {
  Tensor t(DType::F32, {3, 5});
  std::vector<uint8_t> image = serializeNpy(t);
  for (size_t len = 0; len < image.size(); ++len) {
    std::string message =
        errorOf([&] { parseNpy(image.data(), len, "cut.npy"); });
    EXPECT_EQ(message.rfind("cut.npy: ", 0), 0u) << len << ": " << message;
  }
}

TEST_F(NpzFiles, KeepsInsertionOrderAcrossWriteAndRead) {
  NpzFile npz;
  for (const char *name : {"zeta", "alpha", "mid", "Beta"})
    npz.set(name, Tensor::fromValues<int32_t>({1}, {int32_t(name[0])}));
  npz.set("alpha", Tensor::fromValues<int32_t>({2}, {1, 2})); // replace
  EXPECT_EQ(npz.names(),
            (std::vector<std::string>{"zeta", "alpha", "mid", "Beta"}));
  for (bool compressed : {false, true}) {
    npz.write(path("order.npz"), compressed); // also overwrites
    NpzFile back = NpzFile::read(path("order.npz"));
    EXPECT_EQ(back.names(), npz.names());
    EXPECT_EQ(back.get("alpha").shape(), (std::vector<int64_t>{2}));
  }
  EXPECT_TRUE(npz.remove("mid"));
  EXPECT_FALSE(npz.remove("mid"));
  EXPECT_EQ(npz.names(), (std::vector<std::string>{"zeta", "alpha", "Beta"}));
  EXPECT_FALSE(npz.has("mid"));
  EXPECT_EQ(errorOf([&] { npz.get("mid"); }), "no array named 'mid'");
}

TEST_F(NpzFiles, WritingIsDeterministic) {
  NpzFile npz;
  npz.set("w", Tensor(DType::F16, {4, 4}));
  npz.write(path("a.npz"), true);
  npz.write(path("b.npz"), true);
  EXPECT_EQ(readBytes(path("a.npz")), readBytes(path("b.npz")));
}

TEST_F(NpzFiles, DataSizeMismatchNamesFileAndArray) {
  std::vector<uint8_t> image = serializeNpy(Tensor(DType::F32, {1024}));
  std::string header = npyHeader(Tensor(DType::F32, {1024}));
  std::string cut = header + std::string(12, '\0');
  std::string file = makeZip(path("weights.npz"), {{"conv1_w.npy", cut}});
  EXPECT_EQ(errorOf([&] { NpzFile::read(file); }),
            file + ": array 'conv1_w': header says 4096 bytes, file holds 12");
}

// Issue 25: a member that would unzip outside its folder is refused on reading and never written; a leading
// '/' (TPU-MLIR's tensor names) and dots inside a name are fine.
TEST_F(NpzFiles, RejectsNamesThatClimbOut) {
  std::string header = npyHeader(Tensor(DType::F32, {1}));
  std::string bytes = header + std::string(4, '\0');
  for (const char *bad : {"../evil.npy", "a/../../evil.npy", "..\\evil.npy"}) {
    std::string file = makeZip(path("slip.npz"), {{bad, bytes}});
    EXPECT_NE(errorOf([&] { NpzFile::read(file); }).find("has a '..' component"), std::string::npos) << bad;
  }
  std::string fine = makeZip(path("fine.npz"), {{"/conv1/Conv_output_0.npy", bytes}, {"a..b.npy", bytes}});
  EXPECT_EQ(NpzFile::read(fine).names().size(), 2u);
  NpzFile out;
  out.set("../evil", Tensor(DType::F32, {1}));
  EXPECT_NE(errorOf([&] { out.write(path("out.npz")); }).find("would unzip outside its folder"),
            std::string::npos);
}

TEST_F(NpzFiles, RejectsForeignMembersAndMissingFiles) {
  std::string file = makeZip(path("foreign.npz"), {{"readme.txt", "hi"}});
  EXPECT_EQ(errorOf([&] { NpzFile::read(file); }),
            file + ": member 'readme.txt' is not an .npy array");
  EXPECT_EQ(errorOf([&] { NpzFile::read(path("nope.npz")); }),
            path("nope.npz") + ": no such file");
  std::ofstream(path("text.npz")) << "just some text, long enough to look";
  EXPECT_EQ(errorOf([&] { NpzFile::read(path("text.npz")); }),
            path("text.npz") + ": not an npz file, or truncated (no zip directory found)");
  std::ofstream(path("zero.npz")).flush();
  EXPECT_EQ(errorOf([&] { NpzFile::read(path("zero.npz")); }),
            path("zero.npz") + ": file is empty");
  EXPECT_EQ(errorOf([&] { NpzFile::read(dir_.string()); }),
            dir_.string() + ": is a directory");
  EXPECT_EQ(errorOf([&] { readNpy(path("nope.npy")); }),
            path("nope.npy") + ": cannot open: No such file or directory");
  Result<NpzFile> missing = NpzFile::tryRead(path("nope.npz"));
  EXPECT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(), path("nope.npz") + ": no such file");
  EXPECT_NE(errorOf([&] {
              NpzFile one;
              one.set("x", Tensor());
              one.write(path("no/such/dir/x.npz"));
            }).find("cannot write"),
            std::string::npos);
}

TEST_F(NpzFiles, EveryFlippedByteFailsCleanlyOrStillParses) {
  NpzFile npz;
  npz.set("a", Tensor::fromValues<float>({2, 2}, {1, 2, 3, 4}));
  npz.set("b", Tensor::fromValues<int8_t>({3}, {-1, 0, 1}));
  for (bool compressed : {false, true}) {
    npz.write(path("flip.npz"), compressed);
    std::vector<uint8_t> bytes = readBytes(path("flip.npz"));
    int rejected = 0;
    for (size_t i = 0; i < bytes.size(); ++i) {
      std::vector<uint8_t> copy = bytes;
      copy[i] ^= 0x5a;
      try {
        NpzFile back = NpzFile::parse(copy.data(), copy.size(), "flip.npz");
        // Accepted corruption may only touch bytes nothing verifies
        // (timestamps, attributes); the data must then be intact.
        if (back.has("a") && back.has("b"))
          EXPECT_TRUE(back.get("a") == npz.get("a")) << "byte " << i;
      } catch (const NpyError &e) {
        ++rejected;
        EXPECT_EQ(std::string(e.what()).rfind("flip.npz: ", 0), 0u)
            << e.what();
      }
    }
    EXPECT_GT(rejected, static_cast<int>(bytes.size() / 2));
  }
}

TEST_F(NpzFiles, SingleNpyFileRoundTrip) {
  Tensor t = Tensor::fromValues<double>({2}, {1.5, -2.25});
  writeNpy(path("x.npy"), t);
  EXPECT_TRUE(readNpy(path("x.npy")) == t);
  EXPECT_EQ(readBytes(path("x.npy")).size(), 128u + 16u);
}
