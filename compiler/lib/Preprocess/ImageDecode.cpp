//===- ImageDecode.cpp - Image files to 8-bit pixels in a given channel order ---===//
//
// Decoding is Debian's stb_image (libstb), and libwebp for WebP, which stb_image does not read. Colour is
// converted to gray with OpenCV's cvtColor integer coefficients so gray inputs match cv2 pipelines, and a
// JPEG's EXIF orientation is applied as cv2.imread does (phone photos in calibration sets carry it).
//
//===----------------------------------------------------------------------===//

#include "tpuc/Preprocess/Preprocess.h"

#include <stb/stb_image.h>
#include <webp/decode.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <memory>

namespace tpuc::preprocess {

namespace {

std::string lowerExtension(std::string_view path) {
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash))
    return {};
  std::string ext(path.substr(dot + 1));
  for (char &c : ext)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

/// The EXIF orientation (1-8) of a JPEG, 1 when absent or unreadable. Walks the marker segments
/// up to the start of scan and reads tag 0x0112 of IFD0 in an APP1 "Exif" segment.
int jpegOrientation(const uint8_t *p, size_t size) {
  if (size < 4 || p[0] != 0xFF || p[1] != 0xD8)
    return 1;
  size_t pos = 2;
  while (pos + 4 <= size && p[pos] == 0xFF) {
    uint8_t marker = p[pos + 1];
    if (marker == 0xDA || marker == 0xD9)
      break;
    size_t len = (size_t(p[pos + 2]) << 8) | p[pos + 3];
    if (len < 2 || pos + 2 + len > size)
      break;
    const uint8_t *seg = p + pos + 4;
    size_t segLen = len - 2;
    if (marker == 0xE1 && segLen >= 14 && std::memcmp(seg, "Exif\0\0", 6) == 0) {
      const uint8_t *tiff = seg + 6;
      size_t tiffLen = segLen - 6;
      bool little = tiff[0] == 'I' && tiff[1] == 'I';
      if (!little && !(tiff[0] == 'M' && tiff[1] == 'M'))
        return 1;
      auto u16 = [&](size_t at) -> uint32_t {
        return little ? tiff[at] | (tiff[at + 1] << 8) : (tiff[at] << 8) | tiff[at + 1];
      };
      auto u32 = [&](size_t at) -> uint32_t {
        return little ? u16(at) | (u16(at + 2) << 16) : (u16(at) << 16) | u16(at + 2);
      };
      uint32_t ifd = u32(4);
      if (ifd + 2 > tiffLen)
        return 1;
      uint32_t count = u16(ifd);
      for (uint32_t i = 0; i < count; ++i) {
        size_t entry = ifd + 2 + size_t(i) * 12;
        if (entry + 12 > tiffLen)
          return 1;
        if (u16(entry) == 0x0112 && u16(entry + 2) == 3) {
          uint32_t v = u16(entry + 8);
          return v >= 1 && v <= 8 ? static_cast<int>(v) : 1;
        }
      }
      return 1;
    }
    pos += 2 + len;
  }
  return 1;
}

bool isWebp(const uint8_t *p, size_t size) {
  return size >= 12 && std::memcmp(p, "RIFF", 4) == 0 && std::memcmp(p + 8, "WEBP", 4) == 0;
}

/// Decoded pixels of `want` channels (3 RGB or 4 RGBA; 1 only for a gray stb file), whichever library
/// decoded them.
struct Decoded {
  int width = 0, height = 0, fileChannels = 0, channels = 0;
  std::unique_ptr<uint8_t, void (*)(void *)> pixels{nullptr, std::free};
};

/// stb_image's reason for a failure, made one printable line: for some damaged files it is not a message at
/// all (a nested PNG signature came back as the "reason", control characters included).
std::string failureReason() {
  const char *reason = stbi_failure_reason();
  std::string line;
  int letters = 0;
  for (const char *c = reason ? reason : ""; *c; ++c) {
    if (*c < 0x20 || *c > 0x7e)
      break;
    line += *c;
    letters += std::isalpha(static_cast<unsigned char>(*c)) != 0;
  }
  return letters >= 3 ? line : std::string("corrupt or unsupported image data");
}

/// A header may claim any size: a few hundred bytes of PNG can ask for a 60000×60000 canvas (14 GB). Images
/// above this many pixels (a 11585×11585 square, 512 MiB as RGBA) are refused before anything is allocated.
constexpr int64_t kMaxImagePixels = int64_t{1} << 27;

void checkPixelCount(int width, int height, const std::string &displayName) {
  if (int64_t{width} * height > kMaxImagePixels)
    throw PreprocessError(displayName + ": cannot decode image: " + std::to_string(width) + "x" +
                          std::to_string(height) + " pixels is more than the limit of " +
                          std::to_string(kMaxImagePixels / 1000000) + " megapixels");
}

/// stb_image as Debian 12 ships it (2.27) reads a binary PNM's pixels (P5 gray, P6 RGB) without checking that
/// the file holds them, and reads past the buffer for a truncated 16-bit one (found by tests/fuzz, image).
/// The payload the header promises is checked here first, reading the header as stb does: whitespace and
/// '#' comments between the fields, and the one character after the maximum value ends the header.
void checkPnmPayload(const uint8_t *bytes, size_t size, int width, int height, int channels,
                     const std::string &displayName) {
  if (size < 2 || bytes[0] != 'P' || (bytes[1] != '5' && bytes[1] != '6'))
    return;
  size_t pos = 2;
  auto skipSpace = [&] {
    while (pos < size) {
      if (std::isspace(bytes[pos])) {
        ++pos;
      } else if (bytes[pos] == '#') {
        while (pos < size && bytes[pos] != '\n' && bytes[pos] != '\r')
          ++pos;
      } else {
        break;
      }
    }
  };
  auto number = [&] {
    uint64_t value = 0;
    for (; pos < size && std::isdigit(bytes[pos]); ++pos)
      value = std::min<uint64_t>(value * 10 + (bytes[pos] - '0'), uint64_t{1} << 32);
    return value;
  };
  for (int field = 0; field < 3; ++field) {
    skipSpace();
    uint64_t value = number();
    if (field == 2 && value > 255)
      channels *= 2;
  }
  if (pos < size)
    ++pos;
  const uint64_t needed = uint64_t(width) * uint64_t(height) * uint64_t(channels);
  if (size - pos < needed)
    throw PreprocessError(displayName + ": cannot decode image: PNM file truncated (its header promises " +
                          std::to_string(needed) + " bytes of pixels, the file holds " +
                          std::to_string(size - pos) + ")");
}

Decoded decodePixels(const uint8_t *bytes, size_t size, const std::string &displayName, PixelFormat format) {
  Decoded d;
  if (isWebp(bytes, size)) {
    WebPBitstreamFeatures features;
    if (WebPGetFeatures(bytes, size, &features) != VP8_STATUS_OK)
      throw PreprocessError(displayName + ": cannot decode image: not a valid WebP file");
    checkPixelCount(features.width, features.height, displayName);
    d.fileChannels = features.has_alpha ? 4 : 3;
    d.channels = format == PixelFormat::RGBA ? 4 : 3;
    uint8_t *pixels = d.channels == 4 ? WebPDecodeRGBA(bytes, size, &d.width, &d.height)
                                      : WebPDecodeRGB(bytes, size, &d.width, &d.height);
    if (!pixels)
      throw PreprocessError(displayName + ": cannot decode image: corrupt WebP data");
    d.pixels = std::unique_ptr<uint8_t, void (*)(void *)>(pixels, WebPFree);
    return d;
  }
  if (size > static_cast<size_t>(INT32_MAX))
    throw PreprocessError(displayName + ": cannot decode image: file larger than 2 GiB");
  int len = static_cast<int>(size);
  if (!stbi_info_from_memory(bytes, len, &d.width, &d.height, &d.fileChannels))
    throw PreprocessError(displayName + ": cannot decode image: " + failureReason());
  // stb_image accepts a PNM header that says 0 x 0 (or garbage that parses as 0): no pixels is no image.
  if (d.width <= 0 || d.height <= 0)
    throw PreprocessError(displayName + ": cannot decode image: it has no pixels (" +
                          std::to_string(d.width) + " x " + std::to_string(d.height) + ")");
  checkPixelCount(d.width, d.height, displayName);
  checkPnmPayload(bytes, size, d.width, d.height, d.fileChannels, displayName);
  // Gray files stay gray; colour goes through RGB so the gray conversion is OpenCV's.
  d.channels = 3;
  if (format == PixelFormat::RGBA)
    d.channels = 4;
  else if (format == PixelFormat::Gray && d.fileChannels <= 2)
    d.channels = 1;
  uint8_t *pixels = stbi_load_from_memory(bytes, len, &d.width, &d.height, &d.fileChannels, d.channels);
  if (!pixels)
    throw PreprocessError(displayName + ": cannot decode image: " + failureReason());
  d.pixels = std::unique_ptr<uint8_t, void (*)(void *)>(pixels, stbi_image_free);
  return d;
}

/// cv::imread's ApplyExifOrientation: transpose for 5-8, then flip (horizontal for 2 and 6, both for
/// 3 and 7, vertical for 4 and 8).
Image applyOrientation(Image src, int orientation) {
  if (orientation <= 1 || orientation > 8)
    return src;
  const int cn = src.channels;
  if (orientation >= 5) {
    Image t(src.width, src.height, cn);
    for (int y = 0; y < src.height; ++y)
      for (int x = 0; x < src.width; ++x)
        std::memcpy(t.row(x) + size_t(y) * cn, src.row(y) + size_t(x) * cn, cn);
    src = std::move(t);
  }
  bool flipH = orientation == 2 || orientation == 3 || orientation == 6 || orientation == 7;
  bool flipV = orientation == 3 || orientation == 4 || orientation == 7 || orientation == 8;
  if (flipH)
    for (int y = 0; y < src.height; ++y) {
      uint8_t *row = src.row(y);
      for (int a = 0, b = src.width - 1; a < b; ++a, --b)
        std::swap_ranges(row + size_t(a) * cn, row + size_t(a + 1) * cn, row + size_t(b) * cn);
    }
  if (flipV)
    for (int a = 0, b = src.height - 1; a < b; ++a, --b)
      std::swap_ranges(src.row(a), src.row(a) + size_t(src.width) * cn, src.row(b));
  return src;
}

// cv::cvtColor(COLOR_BGR2GRAY) on 8-bit data (RGB2Gray<uchar>): BT.601 weights scaled by 2^15.
constexpr int kR2Y = 9798, kG2Y = 19235, kB2Y = 3735, kGrayShift = 15;

} // namespace

bool isImageFile(std::string_view path) {
  static const char *const kExtensions[] = {"jpg", "jpeg", "png", "bmp", "tga", "gif",
                                            "pnm", "ppm",  "pgm", "psd", "jpe", "webp"};
  std::string ext = lowerExtension(path);
  return std::find(std::begin(kExtensions), std::end(kExtensions), ext) != std::end(kExtensions);
}

bool isTensorFile(std::string_view path) {
  std::string ext = lowerExtension(path);
  return ext == "npy" || ext == "npz";
}

ImageInfo imageInfo(const void *data, size_t size, const std::string &displayName) {
  auto *bytes = static_cast<const uint8_t *>(data);
  ImageInfo info;
  if (isWebp(bytes, size)) {
    WebPBitstreamFeatures features;
    if (WebPGetFeatures(bytes, size, &features) != VP8_STATUS_OK)
      throw PreprocessError(displayName + ": cannot decode image: not a valid WebP file");
    return {features.width, features.height, features.has_alpha ? 4 : 3};
  }
  if (size > static_cast<size_t>(INT32_MAX) ||
      !stbi_info_from_memory(bytes, static_cast<int>(size), &info.width, &info.height, &info.channels))
    throw PreprocessError(
        displayName + ": cannot decode image: " +
        (size > static_cast<size_t>(INT32_MAX) ? std::string("file larger than 2 GiB") : failureReason()));
  if (info.width <= 0 || info.height <= 0)
    throw PreprocessError(displayName + ": cannot decode image: it has no pixels (" +
                          std::to_string(info.width) + " x " + std::to_string(info.height) + ")");
  return info;
}

Image decodeImage(const void *data, size_t size, const std::string &displayName, PixelFormat format) {
  auto *bytes = static_cast<const uint8_t *>(data);
  Decoded decoded = decodePixels(bytes, size, displayName, format);
  int width = decoded.width, height = decoded.height, want = decoded.channels;
  size_t count = size_t(width) * height;
  const uint8_t *src = decoded.pixels.get();
  Image image(height, width, pixelFormatChannels(format));
  uint8_t *dst = image.pixels.data();
  switch (format) {
  case PixelFormat::RGB:
  case PixelFormat::RGBA:
    std::copy(src, src + count * want, dst);
    break;
  case PixelFormat::BGR:
    for (size_t i = 0; i < count; ++i, src += 3, dst += 3) {
      dst[0] = src[2];
      dst[1] = src[1];
      dst[2] = src[0];
    }
    break;
  case PixelFormat::Gray:
    if (want == 1) {
      std::copy(src, src + count, dst);
      break;
    }
    for (size_t i = 0; i < count; ++i, src += 3)
      dst[i] = static_cast<uint8_t>(
          (src[0] * kR2Y + src[1] * kG2Y + src[2] * kB2Y + (1 << (kGrayShift - 1))) >> kGrayShift);
    break;
  }
  return applyOrientation(std::move(image), jpegOrientation(bytes, size));
}

Image loadImage(const std::string &path, PixelFormat format) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw PreprocessError(path + ": cannot open file");
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad())
    throw PreprocessError(path + ": read error");
  if (bytes.empty())
    throw PreprocessError(path + ": cannot decode image: file is empty");
  return decodeImage(bytes.data(), bytes.size(), path, format);
}

} // namespace tpuc::preprocess
