//===- SampleCheckTest.cpp - A dataset's robust statistics and one sample against them ===//
//
// The generated folder of DatasetGen.h (reddish images, a BGR-swapped copy, a dark frame, tensors with
// one scaled to 0..1) scanned for real: the statistics the quality report and the preview share, the
// per-channel statistics of preprocessed tensors, and which sample warnings fire on which sample and
// settings (and which stay quiet on a normal one).
//
//===----------------------------------------------------------------------===//

#include "DatasetGen.h"

#include "tpuc/Dataset/Quality.h"
#include "tpuc/Dataset/SampleCheck.h"
#include "tpuc/Dataset/Scan.h"
#include "tpuc/Dataset/Statistics.h"
#include "tpuc/Preprocess/Flags.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <set>

using namespace tpuc;
using namespace tpuc::dataset;
namespace fs = std::filesystem;

namespace {

class SampleCheckTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    // One folder per process: ctest runs each test of the suite as its own process, in parallel.
    dir = new fs::path(fs::temp_directory_path() /
                       ("tpuc_samplecheck_" + std::to_string(std::random_device()())));
    fs::remove_all(*dir);
    planted =
        new tpuc::testing::QualityFolder(tpuc::testing::generateQualityFolder((*dir / "data").string()));
    auto scanned = scanDataset((*dir / "data").string());
    ASSERT_TRUE(bool(scanned)) << llvm::toString(scanned.takeError());
    index = new DatasetIndex(std::move(scanned->index));
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir);
    delete dir;
    delete planted;
    delete index;
  }

  static std::string path(const std::string &relative) { return (*dir / "data" / relative).string(); }

  /// A sample file measured as the preview measures it: its bytes through the scan's computeMetadata.
  static SampleFacts::File fileFacts(const std::string &relative) {
    std::ifstream in(path(relative), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    auto metadata = computeMetadata(bytes.data(), bytes.size(), relative);
    EXPECT_TRUE(bool(metadata)) << llvm::toString(metadata.takeError());
    return {path(relative), metadata ? *metadata : FileMetadata{}};
  }

  /// One image input under `flags`, loaded by the engine from `relative`: [1, 3, 48, 64] for the images,
  /// [1, 3, 8, 8] for the generated tensors.
  static SampleInput imageInput(const preprocess::PreprocessFlags &flags, const std::string &relative) {
    std::vector<int64_t> shape = preprocess::isImageFile(relative) ? std::vector<int64_t>{1, 3, 48, 64}
                                                                   : std::vector<int64_t>{1, 3, 8, 8};
    auto config = preprocess::inputConfig(flags, {"x", shape, true});
    EXPECT_TRUE(bool(config)) << config.error();
    SampleInput input{*config, true, preprocess::isImageFile(relative), path(relative), {}};
    Tensor tensor = preprocess::loadSample(path(relative), *config);
    input.channels = channelStatistics(tensor, channelAxis(*config, tensor));
    return input;
  }

  static std::set<SampleWarningKind> kinds(const std::vector<SampleWarning> &warnings) {
    std::set<SampleWarningKind> out;
    for (const SampleWarning &w : warnings)
      out.insert(w.kind);
    return out;
  }

  static std::string texts(const std::vector<SampleWarning> &warnings) {
    std::string out;
    for (const SampleWarning &w : warnings)
      out += w.text + "\n";
    return out;
  }

  static fs::path *dir;
  static tpuc::testing::QualityFolder *planted;
  static DatasetIndex *index;
};

fs::path *SampleCheckTest::dir = nullptr;
tpuc::testing::QualityFolder *SampleCheckTest::planted = nullptr;
DatasetIndex *SampleCheckTest::index = nullptr;

preprocess::PreprocessFlags imagenetFlags(std::string pixelFormat) {
  preprocess::PreprocessFlags flags;
  flags.mean = {123.675, 116.28, 103.53};
  flags.scale = {0.0171, 0.0175, 0.0174};
  flags.pixelFormat = std::move(pixelFormat);
  return flags;
}

TEST_F(SampleCheckTest, StatisticsPerClassAreTheQualityReportsRule) {
  DatasetStatistics stats = datasetStatistics(*index);
  ASSERT_EQ(stats.classes.size(), 2u);
  const FileClass *images = stats.find(kImageClass);
  ASSERT_NE(images, nullptr);
  EXPECT_EQ(images->files, planted->readable - planted->tensors);
  ASSERT_EQ(images->statistics.size(), 4u);
  EXPECT_EQ(images->statistics[0].name, "mean R");
  // The generated images are reddish: R = 100 + 0.6p > G = 40 + 0.5p > B = 10 + 0.25p.
  EXPECT_GT(images->statistics[0].median, images->statistics[1].median);
  EXPECT_GT(images->statistics[1].median, images->statistics[2].median);
  EXPECT_GE(images->statistics[0].spread, 1.0);
  const FileClass *tensors = stats.find("f32[1,3,8,8,]");
  ASSERT_NE(tensors, nullptr);
  EXPECT_EQ(tensors->files, planted->tensors);
  EXPECT_NEAR(tensors->statistics[0].median, 127.5, 10); // uniform 0..255
  // The report's outliers are exactly the files whose deviation passes its threshold.
  QualityOptions options;
  std::set<std::string> outliers, deviating;
  for (const Outlier &o : analyzeQuality(*index, options).outliers)
    outliers.insert(o.path);
  for (const FileEntry &e : index->files)
    if (auto d = deviation(e.metadata, stats); d && d->z > options.outlierZ)
      deviating.insert(e.path);
  EXPECT_EQ(outliers, deviating);
  EXPECT_EQ(outliers, (std::set<std::string>{planted->darkOutlier, planted->swapped, planted->scaledTensor}));
  // A class of fewer than kMinClassFiles files says nothing.
  DatasetIndex few = *index;
  few.files.erase(std::remove_if(few.files.begin(), few.files.end(),
                                 [](const FileEntry &e) { return e.path.rfind("tensors/", 0) != 0; }),
                  few.files.end());
  few.files.resize(kMinClassFiles - 1);
  EXPECT_TRUE(datasetStatistics(few).empty());
  EXPECT_FALSE(deviation(few.files[0].metadata, datasetStatistics(few)));
}

TEST(SampleCheck, ChannelStatisticsFollowTheLayout) {
  // [1, 2, 2, 2] NCHW: channel 0 holds 0..3, channel 1 holds 10, 10, 20, 20.
  Tensor nchw = Tensor::fromValues<float>({1, 2, 2, 2}, std::vector<float>{0, 1, 2, 3, 10, 10, 20, 20});
  preprocess::PreprocessConfig config;
  config.inputShape = {1, 2, 2, 2};
  ASSERT_EQ(channelAxis(config, nchw), 1);
  auto stats = channelStatistics(nchw, 1);
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[0].min, 0);
  EXPECT_EQ(stats[0].max, 3);
  EXPECT_DOUBLE_EQ(stats[0].mean, 1.5);
  EXPECT_DOUBLE_EQ(stats[0].std, std::sqrt(1.25));
  EXPECT_DOUBLE_EQ(stats[1].mean, 15);
  EXPECT_DOUBLE_EQ(stats[1].std, 5);
  // The same values read NHWC: channels alternate.
  config.channelFormat = preprocess::ChannelFormat::NHWC;
  ASSERT_EQ(channelAxis(config, nchw), 3);
  stats = channelStatistics(nchw, 3);
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_DOUBLE_EQ(stats[0].mean, (0 + 2 + 10 + 20) / 4.0);
  EXPECT_DOUBLE_EQ(stats[1].mean, (1 + 3 + 10 + 20) / 4.0);
  // Rank below 3: one channel; NaNs are left out; integer tensors too.
  Tensor flat =
      Tensor::fromValues<float>({4}, std::vector<float>{1, std::numeric_limits<float>::quiet_NaN(), 3, 5});
  EXPECT_EQ(channelAxis(config, flat), -1);
  stats = channelStatistics(flat, -1);
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_DOUBLE_EQ(stats[0].mean, 3);
  EXPECT_EQ(stats[0].max, 5);
  stats =
      channelStatistics(Tensor::fromValues<int64_t>({2, 3, 1}, std::vector<int64_t>{1, 2, 3, 4, 5, 6}), 0);
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_DOUBLE_EQ(stats[1].mean, 5);
}

TEST_F(SampleCheckTest, ANormalSampleWithRightSettingsIsQuiet) {
  DatasetStatistics stats = datasetStatistics(*index);
  for (const char *format : {"rgb", "bgr"}) {
    preprocess::PreprocessFlags flags = imagenetFlags(format);
    if (std::string(format) == "bgr")
      flags.mean = {103.53, 116.28, 123.675}, flags.scale = {0.0174, 0.0175, 0.0171};
    SampleFacts sample{{imageInput(flags, planted->swappedOriginal)}, {fileFacts(planted->swappedOriginal)}};
    auto warnings = checkSample(sample, stats);
    EXPECT_TRUE(warnings.empty()) << format << ": " << texts(warnings);
  }
  // A tensor of the dataset's kind against settings that make images 0..255 (the defaults).
  preprocess::PreprocessFlags raw;
  SampleFacts tensor{{imageInput(raw, "tensors/t0.npy")}, {fileFacts("tensors/t0.npy")}};
  EXPECT_FALSE(tensor.inputs[0].fromImage);
  auto warnings = checkSample(tensor, stats);
  EXPECT_TRUE(warnings.empty()) << texts(warnings);
}

TEST_F(SampleCheckTest, BgrSwappedFileIsNamed) {
  DatasetStatistics stats = datasetStatistics(*index);
  preprocess::PreprocessFlags flags = imagenetFlags("rgb");
  SampleFacts sample{{imageInput(flags, planted->swapped)}, {fileFacts(planted->swapped)}};
  auto warnings = checkSample(sample, stats);
  ASSERT_EQ(kinds(warnings), std::set<SampleWarningKind>{SampleWarningKind::SwappedFile}) << texts(warnings);
  EXPECT_NE(warnings[0].text.find("Red and blue are exchanged in root_swapped.png"), std::string::npos)
      << warnings[0].text;
  // The dark frame is far too, for no cause the checks know.
  SampleFacts dark{{}, {fileFacts(planted->darkOutlier)}};
  warnings = checkSample(dark, stats);
  ASSERT_EQ(kinds(warnings), std::set<SampleWarningKind>{SampleWarningKind::Outlier}) << texts(warnings);
  EXPECT_NE(warnings[0].text.find("is far from the dataset's"), std::string::npos) << warnings[0].text;
  // Without a dataset nothing is compared.
  EXPECT_TRUE(checkSample(sample, DatasetStatistics{}).empty());
}

TEST_F(SampleCheckTest, MeanInTheOtherOrderThanPixelFormat) {
  DatasetStatistics stats = datasetStatistics(*index);
  // ImageNet's mean is R first; with pixel_format bgr the first channel is blue, which this reddish
  // dataset has far less of.
  preprocess::PreprocessFlags flags = imagenetFlags("bgr");
  SampleFacts sample{{imageInput(flags, planted->swappedOriginal)}, {fileFacts(planted->swappedOriginal)}};
  auto warnings = checkSample(sample, stats);
  ASSERT_EQ(kinds(warnings), std::set<SampleWarningKind>{SampleWarningKind::ChannelOrder}) << texts(warnings);
  EXPECT_NE(
      warnings[0].text.find("set pixel_format to rgb, or reverse mean to 103.5, 116.3, 123.7 and scale to "
                            "0.0174, 0.0175, 0.0171"),
      std::string::npos)
      << warnings[0].text;
  // rgba has no swapped twin: only the reversal is offered.
  flags.pixelFormat = "rgba";
  flags.mean = {103.53, 116.28, 123.675, 0};
  flags.scale = {};
  auto config = preprocess::inputConfig(flags, {"x", {1, 4, 48, 64}, true});
  ASSERT_TRUE(config) << config.error();
  SampleInput rgba{*config, true, true, path(planted->swappedOriginal), {}};
  Tensor tensor = preprocess::loadSample(rgba.file, *config);
  rgba.channels = channelStatistics(tensor, channelAxis(*config, tensor));
  warnings = checkSample(SampleFacts{{rgba}, {}}, stats);
  ASSERT_EQ(kinds(warnings), std::set<SampleWarningKind>{SampleWarningKind::ChannelOrder}) << texts(warnings);
  EXPECT_NE(warnings[0].text.find("so reverse mean to 123.7, 116.3, 103.5, 0."), std::string::npos)
      << warnings[0].text;
}

TEST_F(SampleCheckTest, ZeroToOneAgainstZeroTo255) {
  DatasetStatistics stats = datasetStatistics(*index);
  // torchvision's numbers typed in as they are: the tensor spans hundreds.
  preprocess::PreprocessFlags flags;
  flags.mean = {0.485, 0.456, 0.406};
  flags.scale = {1 / 0.229, 1 / 0.224, 1 / 0.225};
  flags.pixelFormat = "rgb";
  SampleFacts sample{{imageInput(flags, planted->swappedOriginal)}, {fileFacts(planted->swappedOriginal)}};
  auto warnings = checkSample(sample, stats);
  ASSERT_EQ(kinds(warnings), std::set<SampleWarningKind>{SampleWarningKind::UnitMeanScale})
      << texts(warnings);
  EXPECT_NE(warnings[0].text.find("set mean to 123.7, 116.3, 103.5 and scale to 0.01712, 0.01751, 0.01743"),
            std::string::npos)
      << warnings[0].text;
  // A standard deviation typed in as the scale.
  flags.mean = {123.675, 116.28, 103.53};
  flags.scale = {58.395, 57.12, 57.375};
  sample.inputs = {imageInput(flags, planted->swappedOriginal)};
  warnings = checkSample(sample, stats);
  ASSERT_EQ(kinds(warnings), std::set<SampleWarningKind>{SampleWarningKind::ScaleIsDivisor})
      << texts(warnings);
  EXPECT_NE(warnings[0].text.find("set scale to 0.01712, 0.01751, 0.01743"), std::string::npos)
      << warnings[0].text;
  // The dataset's tensor saved in 0..1 among 0..255 ones: far from its class, and out of the range the
  // settings make of images.
  preprocess::PreprocessFlags raw;
  SampleFacts scaled{{imageInput(raw, planted->scaledTensor)}, {fileFacts(planted->scaledTensor)}};
  warnings = checkSample(scaled, stats);
  EXPECT_EQ(kinds(warnings),
            (std::set<SampleWarningKind>{SampleWarningKind::TensorRange, SampleWarningKind::RescaledFile}))
      << texts(warnings);
  for (const SampleWarning &w : warnings)
    if (w.kind == SampleWarningKind::TensorRange)
      EXPECT_NE(w.text.find("set scale to 0.003922"), std::string::npos) << w.text;
    else
      EXPECT_NE(w.text.find("255 times smaller"), std::string::npos) << w.text;
  // A 0..255 tensor against settings that normalize images to about -2..2.
  SampleFacts unnormalized{{imageInput(imagenetFlags("rgb"), "tensors/t1.npy")},
                           {fileFacts("tensors/t1.npy")}};
  warnings = checkSample(unnormalized, stats);
  ASSERT_EQ(kinds(warnings), std::set<SampleWarningKind>{SampleWarningKind::TensorRange}) << texts(warnings);
  EXPECT_NE(warnings[0].text.find("save the tensor after (x − mean) × scale"), std::string::npos)
      << warnings[0].text;
}

} // namespace
