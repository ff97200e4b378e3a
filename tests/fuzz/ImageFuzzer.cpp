//===- ImageFuzzer.cpp - libFuzzer target for images through preprocessing -===//
//
// A calibration or test sample as the engine and the studio read it: the bytes are decoded (stb_image's
// formats, WebP) and preprocessed into a small input (resize with the aspect kept, pad, mean/scale, NCHW).
// Either a one-line PreprocessError naming the file, or an image whose header size is the decoded size
// and a tensor of the input's shape. The first byte picks the pixel format.
//
//===----------------------------------------------------------------------===//

#include "FuzzCheck.h"
#include "tpuc/Preprocess/Preprocess.h"

#include <cstddef>
#include <cstdint>

using namespace tpuc::preprocess;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2)
    return 0;
  const PixelFormat format = static_cast<PixelFormat>(data[0] % 4);
  const uint8_t *bytes = data + 1;
  const size_t length = size - 1;
  ImageInfo info;
  try {
    info = imageInfo(bytes, length, "fuzz/sample.img");
  } catch (const PreprocessError &e) {
    tpuc::fuzz::rejectionIsOneLine(e.what(), "fuzz/sample.img");
  }
  Image image;
  try {
    image = decodeImage(bytes, length, "fuzz/sample.img", format);
  } catch (const PreprocessError &e) {
    tpuc::fuzz::rejectionIsOneLine(e.what(), "fuzz/sample.img");
    return 0;
  }
  if (image.width != info.width || image.height != info.height || image.width <= 0 || image.height <= 0 ||
      image.pixels.size() != size_t(image.width) * image.height * image.channels)
    __builtin_trap();
  PreprocessConfig config;
  config.inputName = "x";
  const int64_t channels = format == PixelFormat::Gray ? 1 : format == PixelFormat::RGBA ? 4 : 3;
  config.inputShape = {1, channels, 24, 32};
  config.mean = {127.5};
  config.scale = {1 / 127.5};
  config.pixelFormat = format;
  config.keepAspectRatio = data[0] & 4;
  Image fitted = resizeAndCrop(image, config);
  tpuc::Tensor tensor = imageToTensor(fitted, config);
  if (tensor.numElements() != channels * 24 * 32)
    __builtin_trap();
  return 0;
}
