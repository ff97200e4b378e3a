//===- FlagsTest.cpp - model_transform's preprocessing flags resolved per input ---===//
//
// preprocess::inputConfig is the one reading of the flags the importer records and the studio's preview
// uses: which inputs take them, how mean and scale fit the channels, the defaults under
// keep_aspect_ratio, and the one-line errors.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Preprocess/Flags.h"

#include <gtest/gtest.h>

#include <limits>

using namespace tpuc;
using namespace tpuc::preprocess;

namespace {

TEST(PreprocessFlags, OnlyFourDimensionalFloatInputsArePreprocessed) {
  PreprocessFlags flags;
  flags.mean = {1, 2, 3};
  flags.pixelFormat = "rgb";
  flags.keepAspectRatio = true;
  EXPECT_TRUE(takesPreprocessing({"x", {1, 3, 8, 8}, true}));
  EXPECT_FALSE(takesPreprocessing({"x", {1, 3, 8, 8}, false}));
  EXPECT_FALSE(takesPreprocessing({"x", {1, 3}, true}));
  EXPECT_FALSE(takesPreprocessing({"x", {3, 8, 8}, true}));
  // A non-image input keeps its name and shape and nothing of the flags, as the importer records nothing.
  auto plain = inputConfig(flags, {"ids", {1, 3}, true});
  ASSERT_TRUE(plain) << plain.error();
  EXPECT_EQ(plain->inputName, "ids");
  EXPECT_EQ(plain->inputShape, (std::vector<int64_t>{1, 3}));
  EXPECT_TRUE(plain->mean.empty());
  EXPECT_EQ(plain->pixelFormat, PixelFormat::BGR);
  EXPECT_FALSE(plain->keepAspectRatio);
  EXPECT_TRUE(plain->resizeDims.empty());
  auto ints = inputConfig(flags, {"mask", {1, 3, 8, 8}, false});
  ASSERT_TRUE(ints);
  EXPECT_TRUE(ints->mean.empty());
}

TEST(PreprocessFlags, MeanAndScaleFitTheChannels) {
  PreprocessFlags flags;
  flags.mean = {123.675, 116.28, 103.53};
  flags.scale = {0.5};
  auto c = inputConfig(flags, {"x", {1, 3, 4, 4}, true});
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->mean, flags.mean);
  EXPECT_EQ(c->scale, (std::vector<double>{0.5}));
  // A longer list of one repeated value is that value.
  flags.mean = {0, 0, 0, 0};
  c = inputConfig(flags, {"x", {1, 3, 4, 4}, true});
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->mean, (std::vector<double>{0}));
  // Channels come from the layout: NHWC's last dimension.
  flags.mean = {1, 2, 3};
  flags.channelFormat = "nhwc";
  c = inputConfig(flags, {"x", {1, 4, 4, 3}, true});
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->channelFormat, ChannelFormat::NHWC);
  EXPECT_EQ(c->mean, (std::vector<double>{1, 2, 3}));
  auto bad = inputConfig(flags, {"x", {1, 3, 4, 4}, true});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "input 'x': --mean has 3 values but the input has 4 channel(s)");
  flags.channelFormat.clear();
  flags.mean = {1, 2};
  bad = inputConfig(flags, {"x", {1, 3, 4, 4}, true});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "input 'x': --mean has 2 values but the input has 3 channel(s)");
  flags.mean = {};
  flags.scale = {1, 2};
  bad = inputConfig(flags, {"x", {1, 3, 4, 4}, true});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "input 'x': --scale has 2 values but the input has 3 channel(s)");
}

TEST(PreprocessFlags, FormatsAndDefaults) {
  PreprocessFlags flags;
  auto c = inputConfig(flags, {"x", {1, 3, 4, 4}, true});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->pixelFormat, PixelFormat::BGR); // TPU-MLIR's default
  EXPECT_EQ(c->channelFormat, ChannelFormat::NCHW);
  flags.pixelFormat = "RGB";
  flags.channelFormat = "none";
  c = inputConfig(flags, {"x", {1, 3, 4, 4}, true});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->pixelFormat, PixelFormat::RGB);
  EXPECT_EQ(c->channelFormat, ChannelFormat::NCHW);
  flags.pixelFormat = "gray";
  c = inputConfig(flags, {"x", {1, 1, 4, 4}, true});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->pixelFormat, PixelFormat::Gray);
  // The pixel format against the channels is the sample loading's check, not the flags'.
  c = inputConfig(flags, {"x", {1, 3, 4, 4}, true});
  ASSERT_TRUE(c);
  EXPECT_THROW(validate(*c), PreprocessError);
}

TEST(PreprocessFlags, KeepAspectRatioBringsResizePadValueAndType) {
  PreprocessFlags flags;
  flags.padValue = 114;
  flags.padType = "normal";
  auto c = inputConfig(flags, {"x", {1, 3, 6, 8}, true});
  ASSERT_TRUE(c);
  // Without keep_aspect_ratio the pad settings mean nothing and are not taken.
  EXPECT_FALSE(c->keepAspectRatio);
  EXPECT_EQ(c->padValue, 0);
  EXPECT_EQ(c->padType, PadType::Center);
  EXPECT_TRUE(c->resizeDims.empty());
  flags.keepAspectRatio = true;
  c = inputConfig(flags, {"x", {1, 3, 6, 8}, true});
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->keepAspectRatio);
  EXPECT_EQ(c->padValue, 114);
  EXPECT_EQ(c->padType, PadType::Normal);
  EXPECT_EQ(c->resizeDims, (std::vector<int64_t>{6, 8}));
  flags.channelFormat = "nhwc";
  c = inputConfig(flags, {"x", {1, 6, 8, 3}, true});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->resizeDims, (std::vector<int64_t>{6, 8}));
  flags.resizeDims = {10, 12};
  c = inputConfig(flags, {"x", {1, 6, 8, 3}, true});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->resizeDims, (std::vector<int64_t>{10, 12}));
}

TEST(PreprocessFlags, BadFlagsNameTheFlag) {
  auto errorOf = [](PreprocessFlags flags) {
    auto c = inputConfig(flags, {"x", {1, 3, 4, 4}, true});
    return c ? std::string() : c.error();
  };
  PreprocessFlags flags;
  flags.pixelFormat = "gbrg";
  EXPECT_EQ(errorOf(flags), "--pixel_format 'gbrg' is not supported (rgb, bgr, gray, rgba)");
  EXPECT_FALSE(checkFlags(flags));
  flags = {};
  flags.channelFormat = "chw";
  EXPECT_EQ(errorOf(flags), "--channel_format 'chw' is not supported (nchw, nhwc, none)");
  flags = {};
  flags.padType = "edge";
  EXPECT_EQ(errorOf(flags), "--pad_type 'edge' is not supported (center, normal)");
  flags = {};
  flags.resizeDims = {224};
  EXPECT_EQ(errorOf(flags), "--resize_dims needs two positive sizes H,W");
  flags.resizeDims = {0, 224};
  EXPECT_EQ(errorOf(flags), "--resize_dims needs two positive sizes H,W");
  flags = {};
  flags.scale = {1, std::numeric_limits<double>::quiet_NaN(), 1};
  EXPECT_EQ(errorOf(flags), "--scale holds a value that is not a finite number");
  // The flags are checked even for an input they do not apply to.
  auto plain = inputConfig(flags, {"ids", {1, 3}, true});
  EXPECT_FALSE(plain);
  auto all = inputConfigs(PreprocessFlags{}, {{"a", {1, 3, 2, 2}, true}, {"b", {4}, false}});
  ASSERT_TRUE(all) << all.error();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[1].inputName, "b");
}

} // namespace
