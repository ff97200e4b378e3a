//===- Flags.cpp - model_transform's preprocessing flags to a PreprocessConfig ---===//

#include "tpuc/Preprocess/Flags.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace tpuc::preprocess {

bool takesPreprocessing(const GraphInput &input) { return input.shape.size() == 4 && input.isFloat; }

Result<void> checkFlags(const PreprocessFlags &flags) {
  if (!flags.pixelFormat.empty() && !parsePixelFormat(flags.pixelFormat))
    return Failure{"--pixel_format '" + flags.pixelFormat + "' is not supported (rgb, bgr, gray, rgba)"};
  if (!flags.channelFormat.empty() && flags.channelFormat != "none" &&
      !parseChannelFormat(flags.channelFormat))
    return Failure{"--channel_format '" + flags.channelFormat + "' is not supported (nchw, nhwc, none)"};
  if (!flags.padType.empty() && !parsePadType(flags.padType))
    return Failure{"--pad_type '" + flags.padType + "' is not supported (center, normal)"};
  if (!flags.resizeDims.empty() &&
      (flags.resizeDims.size() != 2 || flags.resizeDims[0] <= 0 || flags.resizeDims[1] <= 0))
    return Failure{"--resize_dims needs two positive sizes H,W"};
  for (const auto &[flag, values] :
       {std::pair<const char *, const std::vector<double> *>{"mean", &flags.mean}, {"scale", &flags.scale}})
    for (double v : *values)
      if (!std::isfinite(v))
        return Failure{std::string("--") + flag + " holds a value that is not a finite number"};
  if (!std::isfinite(flags.padValue))
    return Failure{"--pad_value is not a finite number"};
  return {};
}

Result<PreprocessConfig> inputConfig(const PreprocessFlags &flags, const GraphInput &input) {
  if (auto checked = checkFlags(flags); !checked)
    return Failure{checked.error()};
  PreprocessConfig config;
  config.inputName = input.name;
  config.inputShape = input.shape;
  if (!takesPreprocessing(input))
    return config;
  const auto &shape = input.shape;
  if (!flags.channelFormat.empty() && flags.channelFormat != "none")
    config.channelFormat = *parseChannelFormat(flags.channelFormat);
  bool nhwc = config.channelFormat == ChannelFormat::NHWC;
  int64_t channels = nhwc ? shape[3] : shape[1];
  for (const auto &[flag, values, out] :
       {std::tuple<const char *, const std::vector<double> *, std::vector<double> *>{"mean", &flags.mean,
                                                                                     &config.mean},
        {"scale", &flags.scale, &config.scale}}) {
    if (values->empty())
      continue;
    std::vector<double> v = *values;
    if (static_cast<int64_t>(v.size()) != channels && v.size() != 1) {
      // A list of one repeated value means that value for every channel, however long it is.
      bool uniform = std::all_of(v.begin(), v.end(), [&](double x) { return x == v[0]; });
      if (!uniform)
        return Failure{"input '" + input.name + "': --" + flag + " has " + std::to_string(v.size()) +
                       " values but the input has " + std::to_string(channels) + " channel(s)"};
      v.resize(1);
    }
    *out = std::move(v);
  }
  if (!flags.pixelFormat.empty())
    config.pixelFormat = *parsePixelFormat(flags.pixelFormat);
  config.resizeDims = flags.resizeDims;
  if (config.resizeDims.empty() && flags.keepAspectRatio)
    config.resizeDims =
        nhwc ? std::vector<int64_t>{shape[1], shape[2]} : std::vector<int64_t>{shape[2], shape[3]};
  if (flags.keepAspectRatio) {
    config.keepAspectRatio = true;
    config.padValue = flags.padValue;
    if (!flags.padType.empty())
      config.padType = *parsePadType(flags.padType);
  }
  return config;
}

Result<std::vector<PreprocessConfig>> inputConfigs(const PreprocessFlags &flags,
                                                   const std::vector<GraphInput> &inputs) {
  std::vector<PreprocessConfig> configs;
  configs.reserve(inputs.size());
  for (const GraphInput &input : inputs) {
    auto config = inputConfig(flags, input);
    if (!config)
      return Failure{config.error()};
    configs.push_back(std::move(*config));
  }
  return configs;
}

} // namespace tpuc::preprocess
