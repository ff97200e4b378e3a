//===- Preprocess.cpp - top.input preprocessing: resize, crop, normalize, layout ---===//
//
// Follows TPU-MLIR's python/utils/preprocess.py step by step (see Preprocess.h for the exact
// semantics and the documented differences).
//
//===----------------------------------------------------------------------===//

#include "tpuc/Preprocess/Preprocess.h"

#include "tpuc/Support/Npz.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace tpuc::preprocess {

namespace {

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string inputLabel(const PreprocessConfig &config) {
  return config.inputName.empty() ? std::string("input") : "input '" + config.inputName + "'";
}

/// The geometry a config implies.
struct Geometry {
  int64_t batch = 1;
  int channels = 0;
  int height = 0, width = 0;
  int resizeH = 0, resizeW = 0;
};

Geometry geometry(const PreprocessConfig &config) {
  validate(config);
  const auto &s = config.inputShape;
  size_t r = s.size();
  Geometry g;
  for (size_t i = 0; i + 3 < r; ++i)
    g.batch *= s[i];
  bool nchw = config.channelFormat == ChannelFormat::NCHW;
  g.channels = static_cast<int>(nchw ? s[r - 3] : s[r - 1]);
  g.height = static_cast<int>(nchw ? s[r - 2] : s[r - 3]);
  g.width = static_cast<int>(nchw ? s[r - 1] : s[r - 2]);
  g.resizeH = g.height;
  g.resizeW = g.width;
  if (!config.resizeDims.empty()) {
    // TPU-MLIR resizes to max(resize_dims, input dims) and centre-crops to the input.
    g.resizeH = static_cast<int>(std::max<int64_t>(config.resizeDims[0], g.height));
    g.resizeW = static_cast<int>(std::max<int64_t>(config.resizeDims[1], g.width));
  }
  return g;
}

std::vector<float> perChannel(const std::vector<double> &values, int channels, float fallback) {
  std::vector<float> out(channels, fallback);
  for (int c = 0; c < channels && !values.empty(); ++c)
    out[c] = static_cast<float>(values.size() == 1 ? values[0] : values[c]);
  return out;
}

Image letterbox(const Image &image, int h, int w, uint8_t pad, PadType padType) {
  // TPU-MLIR's ImageResizeTool.letterbox_resize, including its double arithmetic and truncation.
  double scale = std::min(static_cast<double>(w) / image.width, static_cast<double>(h) / image.height);
  int rw = std::max(1, static_cast<int>(image.width * scale));
  int rh = std::max(1, static_cast<int>(image.height * scale));
  rw = std::min(rw, w);
  rh = std::min(rh, h);
  Image resized = resizeLinear(image, rh, rw);
  Image canvas(h, w, image.channels);
  std::fill(canvas.pixels.begin(), canvas.pixels.end(), pad);
  int top = padType == PadType::Center ? (h - rh) / 2 : 0;
  int left = padType == PadType::Center ? (w - rw) / 2 : 0;
  size_t rowBytes = size_t(rw) * image.channels;
  for (int y = 0; y < rh; ++y)
    std::copy(resized.row(y), resized.row(y) + rowBytes, canvas.row(top + y) + size_t(left) * image.channels);
  return canvas;
}

void checkTensorFits(Tensor &tensor, const PreprocessConfig &config, const std::string &source) {
  if (config.inputShape.empty() || tensor.shape() == config.inputShape)
    return;
  int64_t want = shapeNumElements(config.inputShape);
  if (tensor.numElements() != want)
    throw PreprocessError(source + ": array of shape " + shapeToString(tensor.shape()) + " does not fit " +
                          inputLabel(config) + " of shape " + shapeToString(config.inputShape) + " (" +
                          std::to_string(tensor.numElements()) + " vs " + std::to_string(want) +
                          " elements)");
  tensor.reshape(config.inputShape);
}

Tensor pickFromNpz(const NpzFile &npz, const PreprocessConfig &config, const std::string &path) {
  if (!config.inputName.empty() && npz.has(config.inputName))
    return npz.get(config.inputName);
  if (npz.size() == 1)
    return npz.get(npz.names().front());
  std::string names;
  for (const auto &n : npz.names())
    names += (names.empty() ? "" : ", ") + n;
  throw PreprocessError(path + ": no array named '" + config.inputName +
                        "' (arrays: " + (names.empty() ? std::string("none") : names) + ")");
}

} // namespace

std::optional<PixelFormat> parsePixelFormat(std::string_view text) {
  for (PixelFormat f : {PixelFormat::RGB, PixelFormat::BGR, PixelFormat::Gray, PixelFormat::RGBA})
    if (equalsIgnoreCase(text, pixelFormatName(f)))
      return f;
  return std::nullopt;
}

std::optional<ChannelFormat> parseChannelFormat(std::string_view text) {
  for (ChannelFormat f : {ChannelFormat::NCHW, ChannelFormat::NHWC})
    if (equalsIgnoreCase(text, channelFormatName(f)))
      return f;
  return std::nullopt;
}

std::optional<PadType> parsePadType(std::string_view text) {
  for (PadType t : {PadType::Center, PadType::Normal})
    if (equalsIgnoreCase(text, padTypeName(t)))
      return t;
  return std::nullopt;
}

std::string_view pixelFormatName(PixelFormat format) {
  switch (format) {
  case PixelFormat::RGB:
    return "rgb";
  case PixelFormat::BGR:
    return "bgr";
  case PixelFormat::Gray:
    return "gray";
  case PixelFormat::RGBA:
    return "rgba";
  }
  return "?";
}

std::string_view channelFormatName(ChannelFormat format) {
  return format == ChannelFormat::NCHW ? "nchw" : "nhwc";
}

std::string_view padTypeName(PadType type) { return type == PadType::Center ? "center" : "normal"; }

int pixelFormatChannels(PixelFormat format) {
  switch (format) {
  case PixelFormat::Gray:
    return 1;
  case PixelFormat::RGBA:
    return 4;
  default:
    return 3;
  }
}

void validate(const PreprocessConfig &config) {
  const std::string who = inputLabel(config);
  const auto &s = config.inputShape;
  if (s.size() < 3)
    throw PreprocessError(who + ": an image input needs rank >= 3 ([N,C,H,W] or [N,H,W,C]), shape is " +
                          shapeToString(s));
  for (int64_t d : s)
    if (d <= 0)
      throw PreprocessError(who + ": shape " + shapeToString(s) +
                            " has a dynamic or empty dimension; fix it with --input_shapes");
  size_t r = s.size();
  int64_t c = config.channelFormat == ChannelFormat::NCHW ? s[r - 3] : s[r - 1];
  int want = pixelFormatChannels(config.pixelFormat);
  if (c != want)
    throw PreprocessError(who + ": pixel_format " + std::string(pixelFormatName(config.pixelFormat)) +
                          " needs " + std::to_string(want) + " channels but shape " + shapeToString(s) +
                          " (" + std::string(channelFormatName(config.channelFormat)) + ") has " +
                          std::to_string(c));
  auto checkList = [&](const std::vector<double> &v, const char *name) {
    if (v.size() > 1 && static_cast<int64_t>(v.size()) < c)
      throw PreprocessError(who + ": " + name + " has " + std::to_string(v.size()) + " values for " +
                            std::to_string(c) + " channels");
    for (double x : v)
      if (!std::isfinite(x))
        throw PreprocessError(who + ": " + name + " holds a non-finite value");
  };
  checkList(config.mean, "mean");
  checkList(config.scale, "scale");
  if (!config.resizeDims.empty()) {
    if (config.resizeDims.size() != 2 || config.resizeDims[0] <= 0 || config.resizeDims[1] <= 0)
      throw PreprocessError(who + ": resize_dims must be two positive values [h, w], got " +
                            shapeToString(config.resizeDims));
    if (config.resizeDims[0] > 65536 || config.resizeDims[1] > 65536)
      throw PreprocessError(who + ": resize_dims " + shapeToString(config.resizeDims) + " is too large");
  }
  if (!std::isfinite(config.padValue))
    throw PreprocessError(who + ": pad_value is not finite");
}

Image resizeAndCrop(const Image &image, const PreprocessConfig &config) {
  Geometry g = geometry(config);
  if (image.channels != g.channels)
    throw PreprocessError(inputLabel(config) + ": image has " + std::to_string(image.channels) +
                          " channels, the input takes " + std::to_string(g.channels));
  Image resized;
  if (config.keepAspectRatio) {
    auto pad = static_cast<uint8_t>(std::clamp(std::nearbyint(config.padValue), 0.0, 255.0));
    resized = letterbox(image, g.resizeH, g.resizeW, pad, config.padType);
  } else {
    resized = resizeLinear(image, g.resizeH, g.resizeW);
  }
  if (g.resizeH == g.height && g.resizeW == g.width)
    return resized;
  // Centre crop, TPU-MLIR's start = size // 2 - crop // 2.
  int top = g.resizeH / 2 - g.height / 2;
  int left = g.resizeW / 2 - g.width / 2;
  Image out(g.height, g.width, g.channels);
  size_t rowBytes = size_t(g.width) * g.channels;
  for (int y = 0; y < g.height; ++y) {
    const uint8_t *src = resized.row(top + y) + size_t(left) * g.channels;
    std::copy(src, src + rowBytes, out.row(y));
  }
  return out;
}

Tensor imagesToTensor(const std::vector<Image> &images, const PreprocessConfig &config) {
  Geometry g = geometry(config);
  if (static_cast<int64_t>(images.size()) != g.batch)
    throw PreprocessError(inputLabel(config) + ": " + std::to_string(images.size()) +
                          " images for a batch of " + std::to_string(g.batch));
  std::vector<float> mean = perChannel(config.mean, g.channels, 0.f);
  std::vector<float> scale = perChannel(config.scale, g.channels, 1.f);
  Tensor tensor(DType::F32, config.inputShape);
  float *out = tensor.values<float>().data();
  const size_t plane = size_t(g.height) * g.width;
  const int cn = g.channels;
  for (size_t b = 0; b < images.size(); ++b) {
    const Image &img = images[b];
    if (img.height != g.height || img.width != g.width || img.channels != cn)
      throw PreprocessError(inputLabel(config) + ": image " + std::to_string(b) + " is " +
                            std::to_string(img.height) + "x" + std::to_string(img.width) + "x" +
                            std::to_string(img.channels) + ", expected " + std::to_string(g.height) + "x" +
                            std::to_string(g.width) + "x" + std::to_string(cn));
    float *dst = out + b * plane * cn;
    const uint8_t *src = img.pixels.data();
    // float32 arithmetic in TPU-MLIR's order: (float(x) - mean) * scale.
    if (config.channelFormat == ChannelFormat::NHWC) {
      for (size_t i = 0; i < plane; ++i)
        for (int c = 0; c < cn; ++c)
          dst[i * cn + c] = (static_cast<float>(src[i * cn + c]) - mean[c]) * scale[c];
    } else {
      for (int c = 0; c < cn; ++c) {
        float *d = dst + c * plane;
        for (size_t i = 0; i < plane; ++i)
          d[i] = (static_cast<float>(src[i * cn + c]) - mean[c]) * scale[c];
      }
    }
  }
  return tensor;
}

Tensor imageToTensor(const Image &image, const PreprocessConfig &config) {
  Geometry g = geometry(config);
  if (g.batch == 1)
    return imagesToTensor({image}, config);
  PreprocessConfig one = config;
  one.inputShape.assign(config.inputShape.end() - 3, config.inputShape.end());
  Tensor single = imagesToTensor({image}, one);
  Tensor tensor(DType::F32, config.inputShape);
  for (int64_t b = 0; b < g.batch; ++b)
    std::copy(single.data(), single.data() + single.byteSize(),
              tensor.data() + size_t(b) * single.byteSize());
  return tensor;
}

Tensor loadSample(const std::string &path, const PreprocessConfig &config) {
  if (isTensorFile(path)) {
    Tensor tensor;
    try {
      bool npz = path.size() >= 4 && equalsIgnoreCase(std::string_view(path).substr(path.size() - 4), ".npz");
      tensor = npz ? pickFromNpz(NpzFile::read(path), config, path) : readNpy(path);
    } catch (const NpyError &e) {
      throw PreprocessError(e.what());
    }
    checkTensorFits(tensor, config, path);
    return tensor;
  }
  if (!isImageFile(path))
    throw PreprocessError(path + ": not an image (jpg, png, bmp, ...) or a .npy/.npz file");
  validate(config);
  Image image = loadImage(path, config.pixelFormat);
  try {
    return imageToTensor(resizeAndCrop(image, config), config);
  } catch (const PreprocessError &e) {
    throw PreprocessError(path + ": " + e.what());
  }
}

std::map<std::string, Tensor> loadTestInputs(const std::vector<std::string> &files,
                                             const std::vector<PreprocessConfig> &inputs) {
  std::map<std::string, Tensor> result;
  if (inputs.empty())
    throw PreprocessError("--test_input: the model has no inputs");
  if (files.size() == 1 && inputs.size() > 1) {
    const std::string &path = files.front();
    std::string_view p(path);
    if (!(p.size() >= 4 && equalsIgnoreCase(p.substr(p.size() - 4), ".npz")))
      throw PreprocessError("--test_input: " + path + " is one file for " + std::to_string(inputs.size()) +
                            " inputs; give an .npz holding every input or one file per input");
    NpzFile npz;
    try {
      npz = NpzFile::read(path);
    } catch (const NpyError &e) {
      throw PreprocessError(e.what());
    }
    for (const auto &cfg : inputs) {
      if (!npz.has(cfg.inputName))
        throw PreprocessError(path + ": no array named '" + cfg.inputName + "' for input '" + cfg.inputName +
                              "'");
      Tensor t = npz.get(cfg.inputName);
      checkTensorFits(t, cfg, path + ": array '" + cfg.inputName + "'");
      result[cfg.inputName] = std::move(t);
    }
    return result;
  }
  if (files.size() != inputs.size())
    throw PreprocessError("--test_input: " + std::to_string(files.size()) + " files for " +
                          std::to_string(inputs.size()) + " inputs");
  for (size_t i = 0; i < files.size(); ++i)
    result[inputs[i].inputName] = loadSample(files[i], inputs[i]);
  return result;
}

} // namespace tpuc::preprocess
