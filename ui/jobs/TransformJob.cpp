// The transform job's settings: the project's import settings as the model-independent part of the request.
#include "ui/jobs/TransformJob.h"

#include "tpuc/Support/ArgParser.h"

#include <cmath>
#include <sstream>

namespace tpuc::ui {

Result<driver::TransformOptions> transformRequest(const project::ImportSettings &settings) {
  driver::TransformOptions request;
  if (!settings.inputShapes.empty()) {
    auto shapes = parseShapeList(settings.inputShapes);
    if (!shapes)
      return Failure{"The input shapes '" + settings.inputShapes + "' are not shapes like [[1,3,224,224]]."};
    request.inputShapes = *shapes;
  }
  request.mean = settings.mean;
  request.scale = settings.scale;
  request.resizeDims = settings.resizeDims;
  if (settings.keepAspectRatio) {
    request.keepAspectRatio = true;
    // tpuc's --pad_value is an integer (the canvas is 8-bit).
    if (settings.padValue != std::floor(settings.padValue)) {
      std::ostringstream text;
      text << "The pad value " << settings.padValue << " is not an integer.";
      return Failure{text.str()};
    }
    request.padValue = static_cast<std::int64_t>(settings.padValue);
  }
  request.outputNames = splitList(settings.outputNames);
  request.pixelFormat = settings.pixelFormat;
  request.channelFormat = settings.channelFormat;
  return request;
}

} // namespace tpuc::ui
