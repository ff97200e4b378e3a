//===- DatasetGen.h - Generated image folders for the dataset tests and bench ===//
//
// Synthetic calibration folders with known answers: reddish images (R > G > B, each channel an increasing
// function of one random pattern, so a BGR-swapped copy keeps the same dHash and exchanges the red and
// blue means exactly), plus planted exact and near duplicates, a swapped copy, a dark outlier, corrupt
// files and tensors with a 0-1 scaled copy. The bench makes large folders of the same images.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_TESTS_COMMON_DATASETGEN_H
#define TPUC_TESTS_COMMON_DATASETGEN_H

#include <cstdint>
#include <string>
#include <vector>

namespace tpuc::testing {

/// An RGB image (interleaved, rows packed).
struct RgbImage {
  int width = 0, height = 0;
  std::vector<uint8_t> pixels;
};

/// The image of `seed`: a random pattern of rectangles p(x, y) in 0..255, R = 100 + 0.6p,
/// G = 40 + 0.5p, B = 10 + 0.25p.
RgbImage patternImage(uint64_t seed, int width = 64, int height = 48);
/// R and B exchanged.
RgbImage swapRedBlue(const RgbImage &image);
/// Every channel plus `delta`, saturated.
RgbImage brighten(const RgbImage &image, int delta);
/// Writes a PNG (a BMP when the name ends in .bmp, a lossless WebP for .webp); throws std::runtime_error on
/// failure.
void writeImage(const std::string &path, const RgbImage &image);

/// What generateQualityFolder planted, as paths relative to the folder.
struct QualityFolder {
  std::vector<std::string> exactDuplicate;          ///< two files with the same bytes
  std::vector<std::string> nearDuplicate;           ///< an image and its brightened copy
  std::string swapped, swappedOriginal;             ///< a BGR-swapped copy and its original
  std::string darkOutlier;                          ///< a nearly black image
  std::string scaledTensor;                         ///< a .npy scaled to 0..1 among 0..255 ones
  std::vector<std::string> corrupt;                 ///< unreadable files
  size_t readable = 0;                              ///< files the scan can read
  size_t cats = 0, dogs = 0, tensors = 0, root = 0; ///< readable files per folder
};

/// Fills `dir` (created) with cats/ (12 images), dogs/ (6 images, one the near duplicate), tensors/ (8 .npy,
/// one scaled to 0..1), two images at the root, and the planted files above.
QualityFolder generateQualityFolder(const std::string &dir);

/// `count` distinct pattern images spread over `folders` subfolders of `dir` (PNG, `width` x `height`).
void generateImageFolder(const std::string &dir, size_t count, size_t folders, int width = 64,
                         int height = 48);

} // namespace tpuc::testing

#endif // TPUC_TESTS_COMMON_DATASETGEN_H
