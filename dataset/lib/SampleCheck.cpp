//===- SampleCheck.cpp - One sample as the model receives it, against its dataset ---===//
//
// The thresholds are deliberately coarse: a warning should name a mistake that moves values by a factor
// of 255 or exchanges two channels, not second-guess a deliberate normalization.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Dataset/SampleCheck.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>

namespace tpuc::dataset {

namespace {

using preprocess::PixelFormat;

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.4g", value);
  return text;
}

std::string numbers(const std::vector<double> &values) {
  std::string out;
  for (double v : values)
    out += (out.empty() ? "" : ", ") + number(v);
  return out;
}

std::string fileName(const std::string &path) { return std::filesystem::path(path).filename().string(); }

/// A mean or scale list expanded to `channels` values (one value for all, or the first `channels`).
std::vector<double> perChannel(const std::vector<double> &values, size_t channels, double fallback) {
  std::vector<double> out(channels, fallback);
  for (size_t c = 0; c < channels && !values.empty(); ++c)
    out[c] = values.size() == 1 ? values[0] : values[std::min(c, values.size() - 1)];
  return out;
}

/// The range over every channel.
std::pair<double, double> rangeOf(const std::vector<ChannelStatistics> &channels) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const ChannelStatistics &c : channels) {
    lo = std::min(lo, c.min);
    hi = std::max(hi, c.max);
  }
  return {lo, hi};
}

/// What `(x - mean) * scale` makes of the pixels 0..255 over every channel of an image input.
std::pair<double, double> imageRange(const SampleInput &input) {
  size_t channels = std::max<size_t>(1, input.channels.size());
  std::vector<double> mean = perChannel(input.config.mean, channels, 0.0);
  std::vector<double> scale = perChannel(input.config.scale, channels, 1.0);
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (size_t c = 0; c < channels; ++c)
    for (double pixel : {0.0, 255.0}) {
      double v = (pixel - mean[c]) * scale[c];
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  return {lo, hi};
}

std::string rangeText(std::pair<double, double> range) {
  return number(range.first) + " … " + number(range.second);
}

/// Mean and scale typed in torchvision's 0-1 units, or a scale that divides.
void checkMeanScale(const SampleInput &input, std::vector<SampleWarning> &out) {
  if (!input.imageInput || !input.fromImage || input.channels.empty())
    return;
  const std::vector<double> &mean = input.config.mean, &scale = input.config.scale;
  auto range = rangeOf(input.channels);
  double largest = std::max(std::abs(range.first), std::abs(range.second));
  bool unitMean = !mean.empty() &&
                  std::all_of(mean.begin(), mean.end(), [](double m) { return m >= 0 && m <= 1; }) &&
                  std::any_of(mean.begin(), mean.end(), [](double m) { return m > 0; });
  if (unitMean && largest > 20) {
    std::vector<double> newMean, newScale;
    for (double m : mean)
      newMean.push_back(m * 255);
    for (double s : scale.empty() ? std::vector<double>{1.0} : scale)
      newScale.push_back(s / 255);
    out.push_back({SampleWarningKind::UnitMeanScale,
                   "Mean " + numbers(mean) +
                       (scale.empty() ? " is" : " and scale " + numbers(scale) + " are") +
                       " in 0–1 units but pixels are 0–255, so the tensor spans " + rangeText(range) +
                       ": set mean to " + numbers(newMean) + " and scale to " + numbers(newScale) +
                       " (mean × 255, scale ÷ 255)."});
    return;
  }
  bool scaleAboveOne = std::any_of(scale.begin(), scale.end(), [](double s) { return std::abs(s) > 1; });
  if (scaleAboveOne && largest > 255) {
    std::vector<double> inverse;
    for (double s : scale)
      inverse.push_back(s == 0 ? 0 : 1 / s);
    out.push_back({SampleWarningKind::ScaleIsDivisor,
                   "Scale " + numbers(scale) + " multiplies ((x − mean) × scale), so the tensor spans " +
                       rangeText(range) + ": if " +
                       (scale.size() == 1 ? "it is a standard deviation" : "those are standard deviations") +
                       ", set scale to " + numbers(inverse) + "."});
  }
}

/// A tensor file is taken as it is: its range should be what the settings make of images.
void checkTensorRange(const SampleInput &input, bool datasetHasImages, std::vector<SampleWarning> &out) {
  if (!input.imageInput || input.fromImage || input.channels.empty())
    return;
  // Without any mean or scale and without images to compare with, nothing says what the range should be.
  if (input.config.mean.empty() && input.config.scale.empty() && !datasetHasImages)
    return;
  auto range = rangeOf(input.channels);
  auto images = imageRange(input);
  if (!std::isfinite(range.first) || !std::isfinite(range.second))
    return;
  double width = range.second - range.first, imageWidth = images.second - images.first;
  std::string head = "This tensor file holds values in " + rangeText(range) + " but images become " +
                     rangeText(images) +
                     " under these import settings (tensor files are taken as they are): ";
  if (range.first >= -1.0001 && range.second <= 1.0001 && width > 0 && imageWidth >= 50) {
    std::vector<double> newScale;
    for (double s : input.config.scale.empty() ? std::vector<double>{1.0} : input.config.scale)
      newScale.push_back(s / 255);
    out.push_back({SampleWarningKind::TensorRange,
                   head + "if the model expects the tensor's 0–1 range, set scale to " + numbers(newScale) +
                       ", else save the tensor in the images' range."});
  } else if (width >= 50 && imageWidth <= 10) {
    out.push_back(
        {SampleWarningKind::TensorRange,
         head + "save the tensor after (x − mean) × scale, or, if the model takes raw pixels, set mean "
                "to 0 and scale to 1."});
  }
}

/// The mean's channel order against pixel_format, judged by the dataset's red and blue means.
void checkChannelOrder(const SampleInput &input, const FileClass *images, std::vector<SampleWarning> &out) {
  PixelFormat format = input.config.pixelFormat;
  const std::vector<double> &mean = input.config.mean;
  if (!input.imageInput || !images || images->statistics.size() < 3 || mean.size() < 3 ||
      (format != PixelFormat::RGB && format != PixelFormat::BGR && format != PixelFormat::RGBA))
    return;
  // A mean in 0-1 units is compared in pixels (UnitMeanScale says the rest).
  bool unit = std::all_of(mean.begin(), mean.end(), [](double m) { return m <= 1; });
  double m0 = mean[0] * (unit ? 255 : 1), m2 = mean[2] * (unit ? 255 : 1);
  bool bgr = format == PixelFormat::BGR;
  double red = images->statistics[0].median, blue = images->statistics[2].median;
  double first = bgr ? blue : red, third = bgr ? red : blue;
  double asGiven = std::abs(m0 - first) + std::abs(m2 - third);
  double swapped = std::abs(m0 - third) + std::abs(m2 - first);
  if (std::abs(m0 - m2) < 3 || std::abs(first - third) < 8 || (m0 - m2) * (first - third) >= 0 ||
      swapped >= asGiven)
    return;
  std::vector<double> reversedMean = mean, reversedScale = input.config.scale;
  std::swap(reversedMean[0], reversedMean[2]);
  if (reversedScale.size() >= 3)
    std::swap(reversedScale[0], reversedScale[2]);
  std::string firstName = bgr ? "blue" : "red", thirdName = bgr ? "red" : "blue";
  std::string fix = format == PixelFormat::RGBA ? "reverse mean to " + numbers(reversedMean)
                                                : "set pixel_format to " + std::string(bgr ? "rgb" : "bgr") +
                                                      ", or reverse mean to " + numbers(reversedMean);
  if (reversedScale.size() >= 3 && reversedScale != input.config.scale)
    fix += " and scale to " + numbers(reversedScale);
  out.push_back({SampleWarningKind::ChannelOrder,
                 "Mean " + numbers(mean) + " has its channels in the other order than pixel_format " +
                     std::string(preprocess::pixelFormatName(format)) + " (" + firstName +
                     " first): the dataset's " + firstName + " averages " + number(first) + " and its " +
                     thirdName + " " + number(third) + ", so " + fix + "."});
}

/// The sample's own files against the dataset, with the cause when one fits.
void checkFile(const SampleFacts::File &file, const DatasetStatistics &statistics, double outlierZ,
               std::vector<SampleWarning> &out) {
  std::optional<Deviation> d = deviation(file.metadata, statistics);
  if (!d || d->z <= outlierZ)
    return;
  const FileClass &c = *statistics.find(classKey(file.metadata));
  std::vector<double> features = classFeatures(file.metadata);
  std::string name = fileName(file.path);
  if (c.key == kImageClass) {
    std::vector<double> swapped = features;
    std::swap(swapped[0], swapped[2]);
    if (deviation(swapped, c).z <= outlierZ) {
      out.push_back(
          {SampleWarningKind::SwappedFile,
           "Red and blue are exchanged in " + name + " compared with the dataset (its red and blue means " +
               number(features[0]) + " and " + number(features[2]) + ", the dataset's " +
               number(c.statistics[0].median) + " and " + number(c.statistics[2].median) +
               "): the file is stored BGR, so convert it or leave it out; pixel_format would swap every "
               "other sample too."});
      return;
    }
  } else {
    for (double factor : {255.0, 1 / 255.0}) {
      std::vector<double> rescaled = features;
      for (double &v : rescaled)
        v *= factor;
      if (deviation(rescaled, c).z > outlierZ)
        continue;
      bool smaller = factor > 1;
      out.push_back({SampleWarningKind::RescaledFile,
                     name + " holds values about 255 times " + (smaller ? "smaller" : "larger") +
                         " than the dataset's other tensors of its shape (mean " + number(features[0]) +
                         ", typical " + number(c.statistics[0].median) + "): it was saved in " +
                         (smaller ? "0–1 while they are 0–255" : "0–255 while they are 0–1") +
                         ", so rescale it or leave it out; no import setting applies to tensor files."});
      return;
    }
  }
  out.push_back(
      {SampleWarningKind::Outlier, name + ": " + d->reason + ", so look at it before calibrating with it."});
}

} // namespace

int channelAxis(const preprocess::PreprocessConfig &config, const Tensor &tensor) {
  int rank = static_cast<int>(tensor.rank());
  if (rank < 3)
    return -1;
  return config.channelFormat == preprocess::ChannelFormat::NHWC ? rank - 1 : rank - 3;
}

std::vector<ChannelStatistics> channelStatistics(const Tensor &tensor, int axis) {
  const auto &shape = tensor.shape();
  size_t channels = 1, inner = static_cast<size_t>(tensor.numElements()), outer = 1;
  if (axis >= 0 && axis < static_cast<int>(shape.size())) {
    channels = static_cast<size_t>(shape[axis]);
    inner = 1;
    for (size_t d = axis + 1; d < shape.size(); ++d)
      inner *= static_cast<size_t>(shape[d]);
    for (int d = 0; d < axis; ++d)
      outer *= static_cast<size_t>(shape[d]);
  }
  std::vector<double> values = tensor.toDoubles();
  struct Sums {
    double min = std::numeric_limits<double>::infinity(), max = -std::numeric_limits<double>::infinity();
    double sum = 0, sumSq = 0;
    size_t count = 0;
  };
  std::vector<Sums> sums(channels);
  for (size_t o = 0; o < outer; ++o)
    for (size_t c = 0; c < channels; ++c) {
      Sums &s = sums[c];
      const double *v = values.data() + (o * channels + c) * inner;
      for (size_t i = 0; i < inner; ++i) {
        double x = v[i];
        if (std::isnan(x))
          continue;
        s.min = std::min(s.min, x);
        s.max = std::max(s.max, x);
        s.sum += x;
        s.sumSq += x * x;
        ++s.count;
      }
    }
  std::vector<ChannelStatistics> out;
  out.reserve(channels);
  for (const Sums &s : sums) {
    if (s.count == 0) {
      double nan = std::numeric_limits<double>::quiet_NaN();
      out.push_back({nan, nan, nan, nan});
      continue;
    }
    double mean = s.sum / double(s.count);
    double variance = std::max(0.0, s.sumSq / double(s.count) - mean * mean);
    out.push_back({s.min, s.max, mean, std::sqrt(variance)});
  }
  return out;
}

std::vector<SampleWarning> checkSample(const SampleFacts &sample, const DatasetStatistics &statistics,
                                       double outlierZ) {
  std::vector<SampleWarning> out;
  const FileClass *images = statistics.find(kImageClass);
  for (const SampleInput &input : sample.inputs) {
    checkMeanScale(input, out);
    checkTensorRange(input, images != nullptr, out);
    checkChannelOrder(input, images, out);
  }
  for (const SampleFacts::File &file : sample.files)
    checkFile(file, statistics, outlierZ, out);
  return out;
}

} // namespace tpuc::dataset
