//===- DatasetGen.cpp - Generated image folders with known answers ---------===//

#include "DatasetGen.h"

#include "tpuc/Support/Npz.h"

#include <stb/stb_image_write.h>
#include <webp/encode.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>

namespace tpuc::testing {
namespace fs = std::filesystem;

RgbImage patternImage(uint64_t seed, int width, int height) {
  std::mt19937_64 rng(seed * 7919 + 17);
  std::vector<uint8_t> p(size_t(width) * height, uint8_t(rng() % 256));
  for (int r = 0; r < 12; ++r) {
    int x0 = int(rng() % width), y0 = int(rng() % height);
    int x1 = std::min(width, x0 + 4 + int(rng() % (width / 2))),
        y1 = std::min(height, y0 + 4 + int(rng() % (height / 2)));
    uint8_t v = uint8_t(rng() % 256);
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x)
        p[size_t(y) * width + x] = v;
  }
  RgbImage image{width, height, std::vector<uint8_t>(size_t(width) * height * 3)};
  for (size_t i = 0; i < p.size(); ++i) {
    image.pixels[3 * i] = uint8_t(100 + p[i] * 6 / 10);
    image.pixels[3 * i + 1] = uint8_t(40 + p[i] / 2);
    image.pixels[3 * i + 2] = uint8_t(10 + p[i] / 4);
  }
  return image;
}

RgbImage swapRedBlue(const RgbImage &image) {
  RgbImage out = image;
  for (size_t i = 0; i + 2 < out.pixels.size(); i += 3)
    std::swap(out.pixels[i], out.pixels[i + 2]);
  return out;
}

RgbImage brighten(const RgbImage &image, int delta) {
  RgbImage out = image;
  for (uint8_t &v : out.pixels)
    v = uint8_t(std::clamp(int(v) + delta, 0, 255));
  return out;
}

void writeImage(const std::string &path, const RgbImage &image) {
  fs::create_directories(fs::path(path).parent_path());
  auto endsWith = [&](const char *ext) {
    size_t n = std::strlen(ext);
    return path.size() > n && path.compare(path.size() - n, n, ext) == 0;
  };
  if (endsWith(".webp")) {
    uint8_t *encoded = nullptr;
    size_t size =
        WebPEncodeLosslessRGB(image.pixels.data(), image.width, image.height, image.width * 3, &encoded);
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char *>(encoded), std::streamsize(size));
    WebPFree(encoded);
    if (!size || !out)
      throw std::runtime_error(path + ": cannot write the image");
    return;
  }
  bool bmp = endsWith(".bmp");
  int ok =
      bmp ? stbi_write_bmp(path.c_str(), image.width, image.height, 3, image.pixels.data())
          : stbi_write_png(path.c_str(), image.width, image.height, 3, image.pixels.data(), image.width * 3);
  if (!ok)
    throw std::runtime_error(path + ": cannot write the image");
}

QualityFolder generateQualityFolder(const std::string &dirArg) {
  fs::path dir(dirArg);
  fs::create_directories(dir);
  QualityFolder q;
  auto put = [&](const std::string &rel, const RgbImage &image) {
    writeImage((dir / rel).string(), image);
    ++q.readable;
  };
  for (int i = 0; i < 12; ++i)
    put("cats/cat" + std::to_string(10 + i) + ".png", patternImage(100 + i));
  q.cats = 12;
  for (int i = 0; i < 5; ++i)
    put("dogs/dog" + std::to_string(10 + i) + (i == 4 ? ".bmp" : ".png"), patternImage(200 + i));
  // The near duplicate: dog10 a little brighter (the same dHash, other bytes).
  put("dogs/dog10_bright.png", brighten(patternImage(200), 6));
  q.nearDuplicate = {"dogs/dog10.png", "dogs/dog10_bright.png"};
  q.dogs = 6;
  put("root1.png", patternImage(300));
  // The BGR-swapped copy of cat12 and the dark outlier, at the root.
  put("root_swapped.png", swapRedBlue(patternImage(102)));
  q.swapped = "root_swapped.png";
  q.swappedOriginal = "cats/cat12.png";
  RgbImage dark = patternImage(400);
  for (uint8_t &v : dark.pixels)
    v = uint8_t(v / 40);
  put("root_dark.png", dark);
  q.darkOutlier = "root_dark.png";
  q.root = 3;
  // The exact duplicate: cat11's bytes under another name.
  fs::copy_file(dir / "cats/cat11.png", dir / "cats/cat11_copy.png");
  ++q.readable, ++q.cats;
  q.exactDuplicate = {"cats/cat11.png", "cats/cat11_copy.png"};
  // Tensors: values 0..255, one scaled to 0..1.
  for (int i = 0; i < 8; ++i) {
    std::mt19937 rng(500 + i);
    std::vector<float> values(3 * 8 * 8);
    for (float &v : values)
      v = float(rng() % 256);
    if (i == 7)
      for (float &v : values)
        v /= 255.0f;
    std::string rel = "tensors/t" + std::to_string(i) + ".npy";
    fs::create_directories(dir / "tensors");
    writeNpy((dir / rel).string(), Tensor::fromValues<float>({1, 3, 8, 8}, values));
    ++q.readable;
    if (i == 7)
      q.scaledTensor = rel;
  }
  q.tensors = 8;
  // Corrupt: garbage named .jpg, a PNG cut short.
  std::ofstream(dir / "cats/broken.jpg") << "this is not a jpeg";
  {
    std::ifstream in(dir / "cats/cat10.png", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    std::ofstream(dir / "dogs/truncated.png", std::ios::binary) << bytes.substr(0, 60);
  }
  q.corrupt = {"cats/broken.jpg", "dogs/truncated.png"};
  // Not samples: ignored by the scan.
  std::ofstream(dir / "README.txt") << "labels elsewhere";
  fs::create_directories(dir / ".hidden");
  writeImage((dir / ".hidden/skip.png").string(), patternImage(1));
  return q;
}

void generateImageFolder(const std::string &dir, size_t count, size_t folders, int width, int height) {
  for (size_t i = 0; i < count; ++i) {
    fs::path path = fs::path(dir) / ("f" + std::to_string(i % std::max<size_t>(folders, 1))) /
                    ("img" + std::to_string(i) + ".png");
    writeImage(path.string(), patternImage(i, width, height));
  }
}

} // namespace tpuc::testing
