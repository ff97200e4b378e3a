//===- Preprocess.h - Image decoding and TPU-MLIR style input preprocessing -*- C++ -*-===//
//
// Qt-free, MLIR-free, so the compiler, calibration and the studio share one implementation.
// Turns a sample file into the tensor a network input expects, following the top.input attributes
// with TPU-MLIR's semantics (python/utils/preprocess.py):
//
//   1. decode (jpg/png/bmp/... via stb_image, webp via libwebp) to 8-bit pixels in `pixelFormat` order;
//   2. resize to `resizeDims` (default: the input's H, W; a dimension smaller than the input's is
//      raised to it) with OpenCV's cv::resize INTER_LINEAR on 8-bit data, bit-exact;
//      with `keepAspectRatio` the image is scaled by min(h/ih, w/iw) (sizes truncated) and placed
//      on a `padValue` canvas, centred (PadType::Center) or at the top left (PadType::Normal);
//   3. centre crop to the input's H, W (start = size/2 - crop/2, as TPU-MLIR);
//   4. float32 `(x - mean[c]) * scale[c]`, laid out NCHW or NHWC; every batch entry gets the image.
//
// .npy/.npz samples are taken as they are (dtype kept), reshaped to the input's shape when the
// element count matches.
//
// Reference semantics and where they differ from TPU-MLIR (which reads with cv2.imread):
//  - Resize: OpenCV 4.x INTER_LINEAR for CV_8U: source coordinate (d + 0.5) * scale - 0.5 in float,
//    clamped at the borders, 11-bit fixed-point weights (saturate_cast<short>(w * 2048)), the
//    horizontal pass exact in int32, the vertical pass as OpenCV's VResizeLinear<uchar> does it:
//    ((b0 * (s0 >> 4)) >> 16) + ((b1 * (s1 >> 4)) >> 16) + 2) >> 2. A 2x downscale in both directions
//    is OpenCV's INTER_AREA fast path, which gives the same numbers. Tested bit-exact against
//    cv2.resize on real photos.
//  - Gray: decoded colour converted with cv::cvtColor(BGR2GRAY) integer coefficients
//    (9798 R + 19235 G + 3735 B + 16384) >> 15; cv2.imread(IMREAD_GRAYSCALE) lets libjpeg/libpng convert
//    and can differ by 1-2 LSB. Gray files pass through unchanged.
//  - RGBA: channels are R, G, B, A (alpha 255 when the file has none). TPU-MLIR hands BGRA to the
//    network when the PNG has alpha and RGBA when it does not; we always honour the name.
//  - JPEG decoding is stb_image's, not libjpeg-turbo's: pixels may differ from cv2.imread by a few
//    LSB (IDCT and chroma upsampling); PNG and BMP decode bit-identically. A JPEG's EXIF orientation
//    is applied as cv2.imread(IMREAD_COLOR / IMREAD_GRAYSCALE) does, for every pixel format
//    (TPU-MLIR's rgba path reads with IMREAD_UNCHANGED, which ignores it).
//  - pad_value is rounded and saturated to 0..255 (the canvas is 8-bit, as in TPU-MLIR).
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_PREPROCESS_PREPROCESS_H
#define TPUC_PREPROCESS_PREPROCESS_H

#include "tpuc/Support/Tensor.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tpuc::preprocess {

/// A sample could not be read or does not fit the input. what() is one line naming the file.
class PreprocessError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Channel order of the network input (top.input pixel_format).
enum class PixelFormat : uint8_t { RGB, BGR, Gray, RGBA };
/// Tensor layout of the network input (top.input channel_format).
enum class ChannelFormat : uint8_t { NCHW, NHWC };
/// Where keep_aspect_ratio places the scaled image (top.input pad_type).
enum class PadType : uint8_t { Center, Normal };

/// "rgb", "bgr", "gray", "rgba" (case-insensitive); nullopt otherwise.
std::optional<PixelFormat> parsePixelFormat(std::string_view text);
/// "nchw", "nhwc" (case-insensitive).
std::optional<ChannelFormat> parseChannelFormat(std::string_view text);
/// "center", "normal" (case-insensitive).
std::optional<PadType> parsePadType(std::string_view text);
/// Lower-case names, the inverse of the parse functions.
std::string_view pixelFormatName(PixelFormat format);
std::string_view channelFormatName(ChannelFormat format);
std::string_view padTypeName(PadType type);
/// Channels an image of `format` has (gray 1, rgb/bgr 3, rgba 4).
int pixelFormatChannels(PixelFormat format);

/// The top.input attributes plus the input's name and shape, as plain values.
struct PreprocessConfig {
  /// Graph input name; picks the array out of a multi-array .npz.
  std::string inputName;
  /// Shape of the network input: [..., C, H, W] for NCHW or [..., H, W, C] for NHWC (rank >= 3);
  /// the leading dimensions are batch entries, each filled with the same image.
  std::vector<int64_t> inputShape;
  /// One value for all channels or one per channel (extra values are ignored, as TPU-MLIR does for
  /// gray inputs); empty means 0.
  std::vector<double> mean;
  /// Same rules as mean; empty means 1.
  std::vector<double> scale;
  /// TPU-MLIR's default is bgr.
  PixelFormat pixelFormat = PixelFormat::BGR;
  ChannelFormat channelFormat = ChannelFormat::NCHW;
  /// [h, w]; empty means the input's H, W.
  std::vector<int64_t> resizeDims;
  bool keepAspectRatio = false;
  double padValue = 0.0;
  PadType padType = PadType::Center;
};

/// Checks a config (rank, channel count vs pixel format, mean/scale sizes, resize dims); throws
/// PreprocessError with a one-line reason.
void validate(const PreprocessConfig &config);

/// An 8-bit image, pixels interleaved (HWC), rows packed.
struct Image {
  int height = 0;
  int width = 0;
  int channels = 0;
  std::vector<uint8_t> pixels;

  Image() = default;
  Image(int h, int w, int c) : height(h), width(w), channels(c), pixels(size_t(h) * w * c) {}
  uint8_t *row(int y) { return pixels.data() + size_t(y) * width * channels; }
  const uint8_t *row(int y) const { return pixels.data() + size_t(y) * width * channels; }
};

/// Whether `path` names an image by its extension: jpg, jpeg, jpe, png, bmp, tga, gif (first frame),
/// pnm, ppm, pgm, psd, webp (case-insensitive).
bool isImageFile(std::string_view path);

/// An image's size and the channels its file stores (1 gray, 2 gray + alpha, 3 colour, 4 colour + alpha),
/// read from the header without decoding the pixels.
struct ImageInfo {
  int width = 0, height = 0, channels = 0;
};
/// Throws PreprocessError ("cat.jpg: cannot decode image: <reason>").
ImageInfo imageInfo(const void *data, size_t size, const std::string &displayName);
/// Whether `path` is a .npy or .npz file.
bool isTensorFile(std::string_view path);

/// Decodes an image file into `format`'s channel order. Throws PreprocessError
/// ("cat.jpg: cannot decode image: <reason>").
Image loadImage(const std::string &path, PixelFormat format);
/// Same from bytes in memory; `displayName` prefixes messages.
Image decodeImage(const void *data, size_t size, const std::string &displayName, PixelFormat format);

/// cv::resize(src, dst, Size(width, height), 0, 0, INTER_LINEAR) for 8-bit images, bit-exact
/// (see the file comment). Any channel count.
Image resizeLinear(const Image &src, int height, int width);

/// Steps 2 and 3 on a decoded image: the 8-bit image of the input's H, W that gets normalized (the
/// studio can show it).
Image resizeAndCrop(const Image &image, const PreprocessConfig &config);

/// Step 4: normalizes and lays out one image of the input's H, W into a float32 tensor of the input's
/// shape (the image is repeated over the batch entries).
Tensor imageToTensor(const Image &image, const PreprocessConfig &config);
/// Same, one image per batch entry (images.size() must equal the batch count).
Tensor imagesToTensor(const std::vector<Image> &images, const PreprocessConfig &config);

/// A sample file to the input tensor: an image is decoded and preprocessed (float32); a .npy is taken
/// as is, an .npz contributes the array named `config.inputName` (or its only array); both are
/// reshaped to the input shape when the element count matches, else PreprocessError.
Tensor loadSample(const std::string &path, const PreprocessConfig &config);

/// One result of a batch: the tensor, or the one-line error.
struct SampleResult {
  std::string path;
  std::optional<Tensor> tensor;
  std::string error;
};

/// Preprocesses many files on `threads` worker threads (0: hardware concurrency) and hands each
/// result to `sink` on the calling thread, in the order of `paths`. At most about 2 * threads
/// results are held at once, so memory stays bounded however many files there are. Returning false
/// from `sink` stops early.
void forEachSample(const std::vector<std::string> &paths, const PreprocessConfig &config, unsigned threads,
                   const std::function<bool(size_t, SampleResult &)> &sink);
/// All results at once (for small sets).
std::vector<SampleResult> loadSamples(const std::vector<std::string> &paths, const PreprocessConfig &config,
                                      unsigned threads);

/// TPU-MLIR's --test_input for a whole model: one .npz holding every input by name, or one file per
/// input in input order (images, .npy or .npz). Returns input name -> tensor.
std::map<std::string, Tensor> loadTestInputs(const std::vector<std::string> &files,
                                             const std::vector<PreprocessConfig> &inputs);

} // namespace tpuc::preprocess

#endif // TPUC_PREPROCESS_PREPROCESS_H
