// What the preprocessing preview shows of one sample, computed off the UI thread through the engine's own
// preprocessing (TpucPreprocess) and the dataset checks (TpucDataset): plain values and images, no widgets.
#ifndef TPUC_UI_VIEWS_PREPROCESSPREVIEWDATA_H
#define TPUC_UI_VIEWS_PREPROCESSPREVIEWDATA_H

#include "project/Project.h"
#include "tpuc/Dataset/SampleCheck.h"
#include "tpuc/Dataset/Statistics.h"
#include "tpuc/Preprocess/Flags.h"
#include "tpuc/Support/Npz.h"
#include "tpuc/Support/Result.h"
#include "ui/ModelInputs.h"

#include <QImage>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <memory>
#include <vector>

namespace tpuc::ui {

/// Everything one preview depends on (a value: the worker thread gets its own copy).
struct PreviewRequest {
  /// One file per model input in input order, or one .npz holding every input.
  QStringList files;
  project::ImportSettings settings;
  /// The model's graph inputs as the ONNX file declares them; the settings' input shapes replace their
  /// shapes as `tpuc transform --input_shapes` does.
  std::vector<ModelInput> inputs;
  /// The sample's dataset, for the warnings that compare with it; null or empty: none.
  std::shared_ptr<const dataset::DatasetStatistics> statistics;
};

/// One channel of an input's tensor (of its first batch entry).
struct PreviewChannel {
  QString name; ///< "R", "G", "B", "A", "Y" for image inputs, "c0", "c1", ... otherwise
  dataset::ChannelStatistics statistics; ///< over every batch entry
  /// H x W, Format_Indexed8: index 0 is the input's lowest value and 255 its highest (the colour table is
  /// the view's); null for a tensor without spatial dimensions. At most kMaxPlaneSide a side (sampled).
  QImage plane;
};

/// One graph input of the sample.
struct PreviewInput {
  QString name;
  QString file;            ///< the sample file it came from
  bool fromImage = false;  ///< decoded and preprocessed, else a tensor file taken as it is
  bool imageInput = false; ///< the import settings apply to this input
  std::vector<std::int64_t> shape;
  QString dtype;  ///< "f32", ... (tpuc's dtype names)
  QString layout; ///< "NCHW · rgb", "NHWC · gray", or "" for inputs that are not images
  /// The file as the engine decodes it (in RGB for display, at most kMaxSourceSide a side), and the
  /// 8-bit image it becomes after resize, keep_aspect_ratio padding and crop, before mean and scale.
  QImage source, resized;
  QSize sourceSize;         ///< the decoded size before the display scaling
  double low = 0, high = 0; ///< the value range every channel plane maps onto 0..255
  std::vector<PreviewChannel> channels;
  int channelCount = 0; ///< all channels; `channels` holds at most kMaxChannels of them
  int batch = 1;        ///< batch entries (the planes show the first)
};

/// The preview of one request.
struct PreviewResult {
  /// One line when the sample cannot be preprocessed for the model (unreadable file, wrong channel
  /// count, settings that do not parse); empty on success.
  QString error;
  std::vector<PreviewInput> inputs;
  /// The tensors the model receives, by input name in input order: what `tpuc transform --test_input`
  /// writes to <name>_in_f32.npz.
  NpzFile tensors;
  std::vector<dataset::SampleWarning> warnings;
};

inline constexpr int kMaxPlaneSide = 1024;
inline constexpr int kMaxSourceSide = 1024;
inline constexpr int kMaxChannels = 16;

/// The graph inputs the engine sees for these settings: the model's inputs with the settings' input shapes
/// (same count and ranks, positive sizes) and whether each is a floating-point input. The error names the
/// input ("input 'x' has a dynamic shape [N, 3, 224, 224]; set the input shapes").
Result<std::vector<preprocess::GraphInput>> graphInputs(const std::vector<ModelInput> &inputs,
                                                        const std::vector<std::vector<std::int64_t>> &shapes);

/// Computes a preview; never throws (every failure becomes `error`). Slow: run it off the UI thread.
PreviewResult computePreview(const PreviewRequest &request);

} // namespace tpuc::ui

#endif
