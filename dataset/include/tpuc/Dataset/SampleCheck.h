//===- SampleCheck.h - One sample as the model receives it, against its dataset ===//
//
// What the studio's preprocessing preview says about a sample beside its tensors: each tensor's value
// statistics per channel, and warnings that name the likely mistake in the import settings or the file:
//  - the mean and scale are in 0-1 units while pixels are 0-255 (torchvision's numbers typed in as they
//    are), or a scale that is a standard deviation (TPU-MLIR multiplies by scale);
//  - a tensor file (.npy/.npz, taken as it is) whose range disagrees with what the settings make of images;
//  - the mean lists the channels in the other order than pixel_format, judged by the dataset's red and
//    blue means (a BGR/RGB mix-up);
//  - the sample itself far from the dataset by the quality report's robust z (Statistics.h), with the
//    cause when one fits: red and blue exchanged, or values 255 times smaller or larger.
// Qt-free and MLIR-free (TpucDataset); the studio renders the sentences.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DATASET_SAMPLECHECK_H
#define TPUC_DATASET_SAMPLECHECK_H

#include "tpuc/Dataset/Index.h"
#include "tpuc/Dataset/Statistics.h"
#include "tpuc/Preprocess/Preprocess.h"
#include "tpuc/Support/Tensor.h"

#include <string>
#include <vector>

namespace tpuc::dataset {

/// Value statistics of one channel of a tensor.
struct ChannelStatistics {
  double min = 0, max = 0, mean = 0, std = 0;
};

/// The axis the channels of an input's tensor lie along: the layout's C (NCHW: rank - 3, NHWC: rank - 1)
/// for a tensor of rank >= 3, else -1 (one channel over every element).
int channelAxis(const preprocess::PreprocessConfig &config, const Tensor &tensor);
/// Statistics per index of `axis` (over every other dimension), or one entry over every element when
/// `axis` is -1. Any dtype; NaNs are left out of the statistics.
std::vector<ChannelStatistics> channelStatistics(const Tensor &tensor, int axis);

/// One input of a sample as the preview computed it.
struct SampleInput {
  preprocess::PreprocessConfig config;
  /// The import flags apply to this input (preprocess::takesPreprocessing: a 4-D float input).
  bool imageInput = false;
  /// The file it came from: true for an image (decoded and preprocessed), false for a tensor file
  /// (taken as it is).
  bool fromImage = false;
  std::string file;
  /// The statistics of the tensor the model receives, per channel.
  std::vector<ChannelStatistics> channels;
};

/// A sample's inputs and its files with the metadata a dataset scan records for them (computeMetadata),
/// so a file is measured exactly as the dataset's were.
struct SampleFacts {
  std::vector<SampleInput> inputs;
  struct File {
    std::string path;
    FileMetadata metadata;
  };
  std::vector<File> files;
};

/// What a warning is about; its text is one sentence ending in what to change.
enum class SampleWarningKind {
  UnitMeanScale,  ///< mean/scale in 0-1 units applied to 0-255 pixels
  ScaleIsDivisor, ///< a scale above 1 makes the tensor span more than the pixels do
  TensorRange,    ///< a tensor file's range against what the settings make of images
  ChannelOrder,   ///< the mean's channel order against pixel_format, by the dataset's R and B
  SwappedFile,    ///< this file's red and blue are exchanged compared with the dataset
  RescaledFile,   ///< this file's values are 255 times off the dataset's
  Outlier,        ///< this file is far from the dataset, no known cause
};

struct SampleWarning {
  SampleWarningKind kind;
  std::string text;
};

/// The warnings for a sample; `statistics` may be empty (no dataset to compare with: only the settings'
/// own checks run). `outlierZ` is the quality report's threshold.
std::vector<SampleWarning> checkSample(const SampleFacts &sample, const DatasetStatistics &statistics,
                                       double outlierZ = 5.0);

} // namespace tpuc::dataset

#endif // TPUC_DATASET_SAMPLECHECK_H
