//===- PreprocessBasicsTest.cpp - Hand-worked preprocessing cases, errors and the batch pool ---===//

#include "PreprocessTestUtil.h"

#include "tpuc/Support/Npz.h"

#include <atomic>
#include <fstream>

using namespace tpuc;
using namespace tpuc::preprocess;
using namespace tpuc::preprocess::test;

namespace {

/// A 24-bit BMP (bottom-up rows, BGR, rows padded to 4 bytes) written by hand, so these tests need
/// neither assets nor an encoder. `rgb` holds h*w*3 bytes in R, G, B order.
void writeBmp(const std::string &path, int h, int w, const std::vector<uint8_t> &rgb) {
  int rowBytes = (w * 3 + 3) & ~3;
  uint32_t dataSize = uint32_t(rowBytes) * h, fileSize = 54 + dataSize;
  std::vector<uint8_t> f(fileSize, 0);
  auto put32 = [&](size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i)
      f[at + i] = uint8_t(v >> (8 * i));
  };
  f[0] = 'B', f[1] = 'M';
  put32(2, fileSize);
  put32(10, 54);
  put32(14, 40);
  put32(18, uint32_t(w));
  put32(22, uint32_t(h));
  f[26] = 1, f[28] = 24;
  put32(34, dataSize);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c)
        f[54 + size_t(h - 1 - y) * rowBytes + x * 3 + c] = rgb[(size_t(y) * w + x) * 3 + (2 - c)];
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char *>(f.data()), f.size());
}

Image grayImage(int h, int w, const std::vector<uint8_t> &values) {
  Image img(h, w, 1);
  img.pixels = values;
  return img;
}

PreprocessConfig configFor(std::vector<int64_t> shape, PixelFormat fmt = PixelFormat::BGR) {
  PreprocessConfig c;
  c.inputName = "x";
  c.inputShape = std::move(shape);
  c.pixelFormat = fmt;
  return c;
}

template <typename Fn> std::string errorOf(Fn fn) {
  try {
    fn();
  } catch (const PreprocessError &e) {
    return e.what();
  }
  return "(no error)";
}

} // namespace

TEST(PreprocessBasics, ParsesAttributeNames) {
  EXPECT_EQ(parsePixelFormat("RGB"), PixelFormat::RGB);
  EXPECT_EQ(parsePixelFormat("gray"), PixelFormat::Gray);
  EXPECT_EQ(parsePixelFormat("rgba"), PixelFormat::RGBA);
  EXPECT_FALSE(parsePixelFormat("yuv"));
  EXPECT_EQ(parseChannelFormat("nhwc"), ChannelFormat::NHWC);
  EXPECT_FALSE(parseChannelFormat("chw"));
  EXPECT_EQ(parsePadType("normal"), PadType::Normal);
  EXPECT_EQ(pixelFormatName(PixelFormat::BGR), "bgr");
  EXPECT_EQ(padTypeName(PadType::Center), "center");
  EXPECT_TRUE(isImageFile("a/b.JPEG"));
  EXPECT_FALSE(isImageFile("a.jpg/b"));
  EXPECT_TRUE(isTensorFile("x.npz"));
}

TEST(PreprocessBasics, ResizeHandWorked) {
  // 1x2 [0, 255] -> 1x4: source x = (d + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25 (clamped at
  // both ends); 0.25 * 255 = 63.75 -> 64 and 0.75 * 255 = 191.25 -> 191 in 11-bit fixed point.
  Image out = resizeLinear(grayImage(1, 2, {0, 255}), 1, 4);
  EXPECT_EQ(out.pixels, (std::vector<uint8_t>{0, 64, 191, 255}));
  // 2x downscale averages 2x2 blocks with (sum + 2) >> 2, like OpenCV's INTER_AREA fast path.
  Image down = resizeLinear(grayImage(2, 4, {0, 1, 10, 20, 2, 2, 30, 41}), 1, 2);
  EXPECT_EQ(down.pixels, (std::vector<uint8_t>{1, 25}));
  // Same size is a copy.
  Image same = resizeLinear(grayImage(2, 2, {1, 2, 3, 4}), 2, 2);
  EXPECT_EQ(same.pixels, (std::vector<uint8_t>{1, 2, 3, 4}));
  EXPECT_NE(errorOf([] { resizeLinear(grayImage(1, 1, {0}), 0, 3); }).find("empty"), std::string::npos);
}

TEST(PreprocessBasics, LetterboxPadsCenteredOrTopLeft) {
  Image src(2, 4, 3);
  std::fill(src.pixels.begin(), src.pixels.end(), 200);
  PreprocessConfig c = configFor({1, 3, 4, 4});
  c.keepAspectRatio = true;
  c.padValue = 7;
  Image centered = resizeAndCrop(src, c);
  for (int y = 0; y < 4; ++y)
    EXPECT_EQ(centered.row(y)[0], (y == 0 || y == 3) ? 7 : 200) << "row " << y;
  c.padType = PadType::Normal;
  Image topLeft = resizeAndCrop(src, c);
  for (int y = 0; y < 4; ++y)
    EXPECT_EQ(topLeft.row(y)[5], y < 2 ? 200 : 7) << "row " << y;
  c.padValue = 300; // saturates on the 8-bit canvas
  EXPECT_EQ(resizeAndCrop(src, c).row(3)[0], 255);
}

TEST(PreprocessBasics, CentreCropAfterLargerResize) {
  std::vector<uint8_t> v;
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 6; ++x)
      v.push_back(uint8_t(x + 10 * y));
  PreprocessConfig c = configFor({1, 1, 4, 4}, PixelFormat::Gray);
  c.resizeDims = {6, 6}; // no resize, then crop rows/cols 1..4 (6 / 2 - 4 / 2 = 1)
  Image out = resizeAndCrop(grayImage(6, 6, v), c);
  ASSERT_EQ(out.height, 4);
  EXPECT_EQ(out.row(0)[0], 11);
  EXPECT_EQ(out.row(3)[3], 44);
}

TEST(PreprocessBasics, NormalizesAndLaysOut) {
  Image img(1, 2, 3);
  img.pixels = {10, 20, 30, 40, 50, 60};
  PreprocessConfig c = configFor({2, 3, 1, 2});
  c.mean = {10, 20, 30};
  c.scale = {1, 0.5, 2};
  Tensor nchw = imageToTensor(img, c);
  std::vector<float> want = {0, 30, 0, 15, 0, 60};
  auto v = nchw.values<float>();
  ASSERT_EQ(v.size(), 12u);
  for (int b = 0; b < 2; ++b) // the batch repeats the image
    for (size_t i = 0; i < 6; ++i)
      EXPECT_EQ(v[b * 6 + i], want[i]) << b << "," << i;
  c.inputShape = {1, 1, 2, 3};
  c.channelFormat = ChannelFormat::NHWC;
  c.mean = {5};
  c.scale = {};
  Tensor nhwc = imageToTensor(img, c);
  EXPECT_EQ(std::vector<float>(nhwc.values<float>().begin(), nhwc.values<float>().end()),
            (std::vector<float>{5, 15, 25, 35, 45, 55}));
}

TEST(PreprocessBasics, DecodesHandWrittenBmpInEveryFormat) {
  TempDir tmp;
  std::string path = tmp.file("two.bmp");
  writeBmp(path, 1, 2, {255, 0, 0, 10, 20, 30}); // red, then (10, 20, 30)
  EXPECT_EQ(loadImage(path, PixelFormat::RGB).pixels, (std::vector<uint8_t>{255, 0, 0, 10, 20, 30}));
  EXPECT_EQ(loadImage(path, PixelFormat::BGR).pixels, (std::vector<uint8_t>{0, 0, 255, 30, 20, 10}));
  EXPECT_EQ(loadImage(path, PixelFormat::RGBA).pixels,
            (std::vector<uint8_t>{255, 0, 0, 255, 10, 20, 30, 255}));
  // OpenCV BGR2GRAY: (9798 R + 19235 G + 3735 B + 16384) >> 15 -> 76 and 18.
  EXPECT_EQ(loadImage(path, PixelFormat::Gray).pixels, (std::vector<uint8_t>{76, 18}));

  PreprocessConfig c = configFor({1, 3, 1, 2}, PixelFormat::RGB);
  Tensor t = loadSample(path, c);
  EXPECT_EQ(std::vector<float>(t.values<float>().begin(), t.values<float>().end()),
            (std::vector<float>{255, 10, 0, 20, 0, 30}));
}

TEST(PreprocessBasics, TensorSamplesAreTakenAsIs) {
  TempDir tmp;
  PreprocessConfig c = configFor({1, 2, 2, 2});
  std::vector<int64_t> ids = {1, 2, 3, 4, 5, 6, 7, 8};
  writeNpy(tmp.file("same.npy"), Tensor::fromValues<int64_t>({1, 2, 2, 2}, ids));
  writeNpy(tmp.file("flat.npy"), Tensor::fromValues<int64_t>({8}, ids));
  writeNpy(tmp.file("bad.npy"), Tensor::fromValues<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6}));
  Tensor same = loadSample(tmp.file("same.npy"), c);
  EXPECT_EQ(same.dtype(), DType::I64); // dtype kept
  Tensor flat = loadSample(tmp.file("flat.npy"), c);
  EXPECT_EQ(flat.shape(), c.inputShape); // reshaped
  std::string err = errorOf([&] { loadSample(tmp.file("bad.npy"), c); });
  EXPECT_NE(err.find("bad.npy: array of shape (2, 3) does not fit input 'x' of shape (1, 2, 2, 2)"),
            std::string::npos)
      << err;

  NpzFile npz;
  npz.set("y", Tensor::fromValues<float>({2}, {1, 2}));
  npz.set("x", Tensor::fromValues<int64_t>({8}, ids));
  npz.write(tmp.file("both.npz"));
  EXPECT_EQ(loadSample(tmp.file("both.npz"), c).shape(), c.inputShape);
  PreprocessConfig other = c;
  other.inputName = "z";
  err = errorOf([&] { loadSample(tmp.file("both.npz"), other); });
  EXPECT_NE(err.find("no array named 'z' (arrays: y, x)"), std::string::npos) << err;

  // --test_input: one npz for several inputs, or one file per input.
  PreprocessConfig y = configFor({2});
  y.inputName = "y";
  auto inputs = loadTestInputs({tmp.file("both.npz")}, {c, y});
  EXPECT_EQ(inputs.at("y").values<float>()[1], 2.f);
  EXPECT_EQ(inputs.at("x").shape(), c.inputShape);
  err = errorOf([&] { loadTestInputs({tmp.file("same.npy")}, {c, y}); });
  EXPECT_NE(err.find("one file for 2 inputs"), std::string::npos) << err;
}

TEST(PreprocessBasics, ErrorsAreOneLineAndNameTheCulprit) {
  TempDir tmp;
  PreprocessConfig c = configFor({1, 3, 8, 8});
  auto oneLine = [](const std::string &s) { return s.find('\n') == std::string::npos; };

  std::string err = errorOf([&] { loadSample(tmp.file("missing.png"), c); });
  EXPECT_NE(err.find("missing.png: cannot open file"), std::string::npos) << err;

  std::ofstream(tmp.file("junk.jpg")) << "not a jpeg at all";
  err = errorOf([&] { loadSample(tmp.file("junk.jpg"), c); });
  EXPECT_NE(err.find("junk.jpg: cannot decode image"), std::string::npos) << err;
  EXPECT_TRUE(oneLine(err));

  // A truncated real image.
  auto files = photos();
  ASSERT_FALSE(files.empty());
  std::ifstream in(files.front(), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::ofstream(tmp.file("cut.png"), std::ios::binary).write(bytes.data(), 100);
  err = errorOf([&] { loadSample(tmp.file("cut.png"), c); });
  EXPECT_NE(err.find("cut.png: cannot decode image"), std::string::npos) << err;

  // Found by tests/fuzz (image): a header asking for a huge canvas (stb's own bound is 1 GiB) is refused
  // before anything is allocated, and stb's "reason" for a nested PNG signature (control characters) is not
  // passed on.
  const unsigned char bomb[] = {0x89, 'P',  'N', 'G', '\r', '\n', 0x1a, '\n', 0,    0, 0,
                                13,   'I',  'H', 'D', 'R',  0,    0,    0x2e, 0xe0, 0, 0,
                                0x2e, 0xe0, 8,   2,   0,    0,    0,    0,    0,    0, 0};
  err = errorOf([&] { decodeImage(bomb, sizeof bomb, "bomb.png", PixelFormat::RGB); });
  EXPECT_NE(err.find("bomb.png: cannot decode image: 12000x12000 pixels is more than the limit"),
            std::string::npos)
      << err;
  // Found by tests/fuzz (image): a binary PGM with 16-bit samples cut short made stb_image read past the
  // buffer; the promised payload is checked first, and a whole file still decodes.
  std::string pgm = "P5 4 3\n# comment\n65535\n";
  pgm.resize(pgm.size() + 23, '\x7f');
  err = errorOf([&] { decodeImage(pgm.data(), pgm.size(), "cut.pgm", PixelFormat::Gray); });
  EXPECT_NE(err.find("cut.pgm: cannot decode image: PNM file truncated (its header promises 24 bytes of "
                     "pixels, the file holds 23)"),
            std::string::npos)
      << err;
  pgm.push_back('\x7f');
  Image whole = decodeImage(pgm.data(), pgm.size(), "whole.pgm", PixelFormat::Gray);
  EXPECT_EQ(whole.width, 4);
  EXPECT_EQ(whole.height, 3);
  EXPECT_EQ(whole.pixels[0], 0x7f);
  std::string nested(bytes.data(), 40);
  nested += bytes.substr(0, 200);
  err = errorOf([&] { decodeImage(nested.data(), nested.size(), "nested.png", PixelFormat::RGB); });
  EXPECT_NE(err.find("nested.png: cannot decode image"), std::string::npos) << err;
  for (char ch : err)
    EXPECT_TRUE(ch >= 0x20 && ch <= 0x7e) << err;

  std::ofstream(tmp.file("notes.txt")) << "x";
  err = errorOf([&] { loadSample(tmp.file("notes.txt"), c); });
  EXPECT_NE(err.find("not an image"), std::string::npos) << err;

  err = errorOf([&] { validate(configFor({1, 1, 8, 8}, PixelFormat::RGB)); });
  EXPECT_NE(err.find("input 'x': pixel_format rgb needs 3 channels but shape (1, 1, 8, 8) (nchw) has 1"),
            std::string::npos)
      << err;
  err = errorOf([&] { validate(configFor({1, 3, -1, 8})); });
  EXPECT_NE(err.find("dynamic"), std::string::npos) << err;
  err = errorOf([&] { validate(configFor({3, 8})); });
  EXPECT_NE(err.find("rank >= 3"), std::string::npos) << err;
  PreprocessConfig two = c;
  two.mean = {1, 2};
  err = errorOf([&] { validate(two); });
  EXPECT_NE(err.find("mean has 2 values for 3 channels"), std::string::npos) << err;
  PreprocessConfig dims = c;
  dims.resizeDims = {4};
  err = errorOf([&] { validate(dims); });
  EXPECT_NE(err.find("resize_dims must be two positive values"), std::string::npos) << err;
}

TEST(PreprocessBatch, ThreadPoolMatchesSerialInOrder) {
  auto files = photos();
  ASSERT_FALSE(files.empty());
  PreprocessConfig c = configFor({1, 3, 64, 64}, PixelFormat::RGB);
  c.mean = {100};
  std::vector<std::string> paths = files;
  paths.insert(paths.begin() + 3, "does-not-exist.jpg");
  auto results = loadSamples(paths, c, 3);
  ASSERT_EQ(results.size(), paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    EXPECT_EQ(results[i].path, paths[i]);
    if (i == 3) {
      EXPECT_FALSE(results[i].tensor);
      EXPECT_NE(results[i].error.find("does-not-exist.jpg"), std::string::npos);
      continue;
    }
    ASSERT_TRUE(results[i].tensor) << results[i].error;
    EXPECT_EQ(*results[i].tensor, loadSample(paths[i], c)) << paths[i];
  }
  // Early stop: the sink sees exactly the first three, in order.
  std::vector<size_t> seen;
  forEachSample(paths, c, 2, [&](size_t i, SampleResult &) {
    seen.push_back(i);
    return seen.size() < 3;
  });
  EXPECT_EQ(seen, (std::vector<size_t>{0, 1, 2}));
}
