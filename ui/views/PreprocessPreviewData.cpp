// What the preprocessing preview shows of one sample. Every step is the engine's: the import settings become
// the transform request (transformRequest, as Run ▸ Transform Model builds it), its preprocessing flags are
// resolved per input by preprocess::inputConfigs (what the importer records on top.input) and the sample is
// loaded by preprocess::loadTestInputs (what `tpuc transform --test_input` calls), so the tensors here are
// the CLI's <name>_in_f32.npz. Nothing is preprocessed again in the studio.
#include "ui/views/PreprocessPreviewData.h"

#include "tpuc/Dataset/Scan.h"
#include "tpuc/Preprocess/Preprocess.h"
#include "ui/jobs/TransformJob.h"

#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <map>
#include <set>

namespace tpuc::ui {

namespace {

using preprocess::PixelFormat;

/// onnx::TensorProto's floating-point element types (float, float16, double, bfloat16); the importer makes
/// them all f32 inputs.
bool isFloatElemType(int elemType) {
  return elemType == 1 || elemType == 10 || elemType == 11 || elemType == 16;
}

std::string dimsText(const ModelInput &input) {
  std::string text = "[";
  for (size_t i = 0; i < input.dims.size(); ++i) {
    if (i)
      text += ", ";
    if (input.dims[i] >= 0)
      text += std::to_string(input.dims[i]);
    else
      text += i < input.dimParams.size() && !input.dimParams[i].empty() ? input.dimParams[i] : "?";
  }
  return text + "]";
}

std::string shapeText(const std::vector<std::int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

QStringList channelNames(const preprocess::PreprocessConfig &config, bool imageInput, int channels) {
  QStringList names;
  if (imageInput && channels == preprocess::pixelFormatChannels(config.pixelFormat)) {
    switch (config.pixelFormat) {
    case PixelFormat::RGB:
      return {"R", "G", "B"};
    case PixelFormat::BGR:
      return {"B", "G", "R"};
    case PixelFormat::Gray:
      return {"Y"};
    case PixelFormat::RGBA:
      return {"R", "G", "B", "A"};
    }
  }
  for (int c = 0; c < channels; ++c)
    names << QStringLiteral("c%1").arg(c);
  return names;
}

/// An 8-bit engine image as a QImage in display order (a BGR image shows its colours as they are).
QImage toQImage(const preprocess::Image &image, PixelFormat order) {
  QImage::Format format = QImage::Format_Invalid;
  switch (image.channels) {
  case 1:
    format = QImage::Format_Grayscale8;
    break;
  case 3:
    format = order == PixelFormat::BGR ? QImage::Format_BGR888 : QImage::Format_RGB888;
    break;
  case 4:
    format = QImage::Format_RGBA8888;
    break;
  default:
    return {};
  }
  // copy(): the QImage must own its pixels, the engine's image goes away.
  return QImage(image.pixels.data(), image.width, image.height, image.width * image.channels, format)
      .copy()
      .convertToFormat(image.channels == 4 ? QImage::Format_RGBA8888 : QImage::Format_RGB888);
}

/// The planes of the first batch entry, as indices into a 256-colour table over [low, high].
void makePlanes(const Tensor &tensor, int axis, PreviewInput &input) {
  const auto &shape = tensor.shape();
  const int rank = static_cast<int>(shape.size());
  if (axis < 0 || rank < 3)
    return;
  const bool nhwc = axis == rank - 1;
  const std::int64_t channels = shape[axis];
  const std::int64_t height = nhwc ? shape[rank - 3] : shape[rank - 2];
  const std::int64_t width = nhwc ? shape[rank - 2] : shape[rank - 1];
  if (height <= 0 || width <= 0)
    return;
  const std::int64_t step =
      std::max<std::int64_t>(1, (std::max(height, width) + kMaxPlaneSide - 1) / kMaxPlaneSide);
  const int outH = static_cast<int>((height + step - 1) / step),
            outW = static_cast<int>((width + step - 1) / step);
  const std::vector<double> values = tensor.toDoubles();
  const double span = input.high - input.low;
  for (PreviewChannel &channel : input.channels) {
    const std::int64_t c = &channel - input.channels.data();
    if (c >= channels)
      break;
    QImage plane(outW, outH, QImage::Format_Indexed8);
    for (int y = 0; y < outH; ++y) {
      uchar *row = plane.scanLine(y);
      for (int x = 0; x < outW; ++x) {
        std::int64_t sy = y * step, sx = x * step;
        double v = nhwc ? values[(sy * width + sx) * channels + c] : values[(c * height + sy) * width + sx];
        int index = span > 0 && std::isfinite(v) ? static_cast<int>(std::lround((v - input.low) / span * 255))
                                                 : (span > 0 ? 0 : 128);
        row[x] = static_cast<uchar>(std::clamp(index, 0, 255));
      }
    }
    channel.plane = std::move(plane);
  }
}

/// The image as decoded for `config` (shown in RGB) and what resize, padding and crop make of it.
void decodeForDisplay(const std::string &file, const preprocess::PreprocessConfig &config,
                      PreviewInput &input) {
  preprocess::Image decoded = preprocess::loadImage(file, config.pixelFormat);
  input.sourceSize = QSize(decoded.width, decoded.height);
  input.source = toQImage(decoded, config.pixelFormat);
  if (std::max(decoded.width, decoded.height) > kMaxSourceSide)
    input.source =
        input.source.scaled(kMaxSourceSide, kMaxSourceSide, Qt::KeepAspectRatio, Qt::SmoothTransformation);
  input.resized = toQImage(preprocess::resizeAndCrop(decoded, config), config.pixelFormat);
}

/// The sample's files measured as the dataset scan measures its own (Scan.h's computeMetadata).
std::vector<dataset::SampleFacts::File> fileFacts(const std::vector<std::string> &files) {
  std::vector<dataset::SampleFacts::File> out;
  std::set<std::string> seen;
  for (const std::string &path : files) {
    if (!seen.insert(path).second)
      continue;
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly))
      continue;
    QByteArray bytes = file.readAll();
    auto metadata = dataset::computeMetadata(bytes.constData(), static_cast<size_t>(bytes.size()), path);
    if (!metadata) {
      llvm::consumeError(metadata.takeError()); // the preprocessing has said what is wrong with the file
      continue;
    }
    out.push_back({path, std::move(*metadata)});
  }
  return out;
}

} // namespace

Result<std::vector<preprocess::GraphInput>>
graphInputs(const std::vector<ModelInput> &inputs, const std::vector<std::vector<std::int64_t>> &shapes) {
  if (!shapes.empty() && shapes.size() != inputs.size())
    return Failure{"The input shapes give " + std::to_string(shapes.size()) + " shape(s) but the model has " +
                   std::to_string(inputs.size()) + " input(s)."};
  std::vector<preprocess::GraphInput> out;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const ModelInput &input = inputs[k];
    std::vector<std::int64_t> shape = input.dims;
    if (!shapes.empty()) {
      if (shapes[k].size() != input.dims.size())
        return Failure{"input '" + input.name + "': the input shapes give " + shapeText(shapes[k]) +
                       " (rank " + std::to_string(shapes[k].size()) + ") but the model's input has rank " +
                       std::to_string(input.dims.size()) + " " + dimsText(input)};
      if (std::any_of(shapes[k].begin(), shapes[k].end(), [](std::int64_t d) { return d <= 0; }))
        return Failure{"input '" + input.name + "': the input shapes give " + shapeText(shapes[k]) +
                       "; every dimension must be positive"};
      shape = shapes[k];
    } else if (std::any_of(shape.begin(), shape.end(), [](std::int64_t d) { return d < 0; })) {
      return Failure{"input '" + input.name + "' has a dynamic shape " + dimsText(input) +
                     "; set the input shapes"};
    }
    out.push_back({input.name, std::move(shape), isFloatElemType(input.elemType)});
  }
  return out;
}

PreviewResult computePreview(const PreviewRequest &request) {
  PreviewResult result;
  if (request.inputs.empty()) {
    result.error = QStringLiteral("The model has no inputs to preview.");
    return result;
  }
  if (request.files.isEmpty()) {
    result.error = QStringLiteral("No sample selected.");
    return result;
  }
  try {
    auto transform = transformRequest(request.settings);
    if (!transform)
      throw preprocess::PreprocessError(transform.error());
    auto inputs = graphInputs(request.inputs, transform->inputShapes);
    if (!inputs)
      throw preprocess::PreprocessError(inputs.error());
    auto configs = preprocess::inputConfigs(driver::preprocessFlags(*transform), *inputs);
    if (!configs)
      throw preprocess::PreprocessError(configs.error());
    std::vector<std::string> files;
    for (const QString &f : request.files)
      files.push_back(f.toStdString());
    std::map<std::string, Tensor> tensors = preprocess::loadTestInputs(files, *configs);

    dataset::SampleFacts facts;
    const bool oneNpz = files.size() == 1 && configs->size() > 1;
    for (size_t i = 0; i < configs->size(); ++i) {
      const preprocess::PreprocessConfig &config = (*configs)[i];
      const Tensor &tensor = tensors.at(config.inputName);
      result.tensors.set(config.inputName, tensor);
      PreviewInput input;
      input.name = QString::fromStdString(config.inputName);
      const std::string &file = oneNpz ? files.front() : files[i];
      input.file = QString::fromStdString(file);
      input.fromImage = !oneNpz && preprocess::isImageFile(file);
      input.imageInput = preprocess::takesPreprocessing((*inputs)[i]);
      input.shape = tensor.shape();
      input.dtype =
          QString::fromLatin1(dtypeName(tensor.dtype()).data(), int(dtypeName(tensor.dtype()).size()));
      if (input.imageInput)
        input.layout = QStringLiteral("%1 · %2").arg(
            QString::fromStdString(std::string(preprocess::channelFormatName(config.channelFormat)))
                .toUpper(),
            QString::fromStdString(std::string(preprocess::pixelFormatName(config.pixelFormat))));
      const int axis = dataset::channelAxis(config, tensor);
      std::vector<dataset::ChannelStatistics> stats = dataset::channelStatistics(tensor, axis);
      input.channelCount = static_cast<int>(stats.size());
      // The dimensions before C, H, W are batch entries (each filled with the same image).
      for (int d = 0; axis >= 0 && d + 3 < static_cast<int>(tensor.rank()); ++d)
        input.batch *= static_cast<int>(tensor.shape()[d]);
      input.low = std::numeric_limits<double>::infinity();
      input.high = -input.low;
      for (const auto &s : stats)
        if (std::isfinite(s.min) && std::isfinite(s.max)) {
          input.low = std::min(input.low, s.min);
          input.high = std::max(input.high, s.max);
        }
      if (input.low > input.high)
        input.low = input.high = 0;
      QStringList names = channelNames(config, input.imageInput, input.channelCount);
      for (int c = 0; c < std::min(input.channelCount, kMaxChannels); ++c)
        input.channels.push_back({names.value(c), stats[c], {}});
      makePlanes(tensor, axis, input);
      if (input.fromImage)
        decodeForDisplay(file, config, input);
      facts.inputs.push_back({config, input.imageInput, input.fromImage, file, std::move(stats)});
      result.inputs.push_back(std::move(input));
    }
    facts.files = fileFacts(files);
    result.warnings =
        dataset::checkSample(facts, request.statistics ? *request.statistics : dataset::DatasetStatistics{});
  } catch (const std::exception &e) {
    result = PreviewResult{};
    result.error = QString::fromStdString(e.what());
  }
  return result;
}

} // namespace tpuc::ui
