//===- DatasetTest.cpp - TpucDataset: scan, cache, rescan, subsets, quality ===//
//
// A generated folder with known answers (DatasetGen.h): what the scan reads and what it lists as
// unreadable, the metadata of each kind of file, the content-hash cache, moved and changed files on a
// rescan, the index file round trip, every subset method, and the quality report's duplicates,
// outliers, channel swap, histograms and folder balance.
//
//===----------------------------------------------------------------------===//

#include "DatasetGen.h"

#include "tpuc/Dataset/Index.h"
#include "tpuc/Dataset/Quality.h"
#include "tpuc/Dataset/Scan.h"
#include "tpuc/Dataset/Subsets.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

using namespace tpuc;
using namespace tpuc::dataset;
namespace fs = std::filesystem;

namespace {

class DatasetTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("tpuc_dataset_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir);
    planted = tpuc::testing::generateQualityFolder((dir / "data").string());
  }
  void TearDown() override { fs::remove_all(dir); }

  ScanResult scan(const DatasetIndex *previous = nullptr, unsigned threads = 2) {
    ScanOptions options;
    options.cacheDir = (dir / "cache").string();
    options.threads = threads;
    options.previous = previous;
    auto result = scanDataset((dir / "data").string(), options);
    EXPECT_TRUE(bool(result)) << (result ? "" : llvm::toString(result.takeError()));
    return result ? std::move(*result) : ScanResult{};
  }

  fs::path dir;
  tpuc::testing::QualityFolder planted;
};

std::vector<std::string> paths(const DatasetIndex &index) {
  std::vector<std::string> out;
  for (const FileEntry &e : index.files)
    out.push_back(e.path);
  return out;
}

TEST_F(DatasetTest, ScanReadsEverySampleAndListsTheUnreadableWithTheReason) {
  ScanResult result = scan(nullptr, 1); // one thread: the exact copy is computed once, then cached
  const DatasetIndex &index = result.index;
  EXPECT_EQ(index.files.size(), planted.readable);
  EXPECT_TRUE(std::is_sorted(index.files.begin(), index.files.end(),
                             [](const FileEntry &a, const FileEntry &b) { return a.path < b.path; }));
  ASSERT_EQ(index.unreadable.size(), 2u);
  EXPECT_EQ(index.unreadable[0].path, "cats/broken.jpg");
  EXPECT_NE(index.unreadable[0].reason.find("cannot decode image"), std::string::npos)
      << index.unreadable[0].reason;
  EXPECT_EQ(index.unreadable[1].path, "dogs/truncated.png");
  // The hidden folder and the README are not samples.
  for (const FileEntry &e : index.files) {
    EXPECT_EQ(e.path.find(".hidden"), std::string::npos);
    EXPECT_NE(e.path, "README.txt");
  }
  EXPECT_EQ(result.computed, planted.readable - 1); // the exact copy's content is computed once
  EXPECT_EQ(result.cached, 1u);
  EXPECT_EQ(result.changes.added.size(), planted.readable);
}

TEST_F(DatasetTest, MetadataOfImagesAndTensors) {
  DatasetIndex index = scan().index;
  const FileEntry *png = index.find("cats/cat10.png");
  ASSERT_TRUE(png);
  EXPECT_EQ(png->metadata.format, "png");
  EXPECT_EQ(png->metadata.width, 64);
  EXPECT_EQ(png->metadata.height, 48);
  EXPECT_EQ(png->metadata.channels, 3);
  EXPECT_EQ(png->folder(), "cats");
  EXPECT_EQ(png->size, fs::file_size(dir / "data/cats/cat10.png"));
  EXPECT_EQ(png->contentHash.rfind("sha256:", 0), 0u);
  EXPECT_EQ(png->contentHash.size(), 7u + 64u);
  ASSERT_EQ(png->metadata.mean.size(), 3u);
  EXPECT_GT(png->metadata.mean[0], png->metadata.mean[1]); // reddish: R > G > B
  EXPECT_GT(png->metadata.mean[1], png->metadata.mean[2]);
  EXPECT_TRUE(png->metadata.hasDhash);
  EXPECT_EQ(png->metadata.embedding.size(), size_t(kEmbedSide * kEmbedSide));
  const FileEntry *bmp = index.find("dogs/dog14.bmp");
  ASSERT_TRUE(bmp);
  EXPECT_EQ(bmp->metadata.format, "bmp");
  const FileEntry *npy = index.find("tensors/t0.npy");
  ASSERT_TRUE(npy);
  EXPECT_EQ(npy->metadata.format, "npy");
  EXPECT_EQ(npy->metadata.dtype, "f32");
  EXPECT_EQ(npy->metadata.shape, (std::vector<int64_t>{1, 3, 8, 8}));
  EXPECT_FALSE(npy->metadata.hasDhash);
  EXPECT_EQ(npy->folder(), "tensors");
  EXPECT_EQ(index.find("root1.png")->folder(), "");
}

TEST_F(DatasetTest, WebPDecodesLikeThePngOfTheSamePixels) {
  fs::path folder = dir / "webp";
  tpuc::testing::writeImage((folder / "a.png").string(), tpuc::testing::patternImage(42));
  tpuc::testing::writeImage((folder / "a.webp").string(), tpuc::testing::patternImage(42));
  auto scanned = scanDataset(folder.string());
  ASSERT_TRUE(bool(scanned)) << llvm::toString(scanned.takeError());
  ASSERT_EQ(scanned->index.files.size(), 2u);
  EXPECT_TRUE(scanned->index.unreadable.empty());
  const FileMetadata &png = scanned->index.find("a.png")->metadata,
                     &webp = scanned->index.find("a.webp")->metadata;
  EXPECT_EQ(webp.format, "webp");
  EXPECT_EQ(webp.width, 64);
  EXPECT_EQ(webp.height, 48);
  EXPECT_EQ(webp.channels, 3);
  // Lossless: the same pixels, so the same statistics, hash and thumbnail.
  EXPECT_EQ(webp.mean, png.mean);
  EXPECT_EQ(webp.dhash, png.dhash);
  EXPECT_EQ(webp.embedding, png.embedding);
  // A file named .webp that is not one is unreadable with the reason.
  std::ofstream(folder / "bad.webp") << "RIFF0000WEBPVP8 garbage";
  auto again = scanDataset(folder.string());
  ASSERT_TRUE(bool(again));
  ASSERT_EQ(again->index.unreadable.size(), 1u);
  EXPECT_NE(again->index.unreadable[0].reason.find("not a valid WebP file"), std::string::npos)
      << again->index.unreadable[0].reason;
}

TEST_F(DatasetTest, DifferenceHashOfAGradientAndItsMirror) {
  std::vector<uint8_t> rising(90 * 80), falling(90 * 80);
  for (int y = 0; y < 80; ++y)
    for (int x = 0; x < 90; ++x)
      rising[y * 90 + x] = uint8_t(x * 2), falling[y * 90 + x] = uint8_t(255 - x * 2);
  EXPECT_EQ(differenceHash(rising.data(), 90, 80), 0u);            // never brighter than the right neighbour
  EXPECT_EQ(differenceHash(falling.data(), 90, 80), ~uint64_t(0)); // always brighter
  EXPECT_EQ(hammingDistance(0, ~uint64_t(0)), 64);
}

TEST_F(DatasetTest, SecondScanHitsTheCacheAndAnUnchangedRescanReadsNothing) {
  ScanResult first = scan();
  ScanResult fromCache = scan();
  EXPECT_EQ(fromCache.computed, 0u);
  EXPECT_EQ(fromCache.cached, planted.readable);
  EXPECT_EQ(fromCache.index, first.index);
  ScanResult rescan = scan(&first.index);
  EXPECT_EQ(rescan.reused, planted.readable);
  EXPECT_EQ(rescan.computed + rescan.cached, 0u);
  EXPECT_TRUE(rescan.changes.empty());
  EXPECT_EQ(rescan.changes.unchanged, planted.readable);
  // The thread count does not change the index.
  EXPECT_EQ(scan(nullptr, 1).index, first.index);
}

TEST_F(DatasetTest, RescanFindsMovedChangedAddedAndRemovedFilesAndKeepsSubsetsOnMovedFiles) {
  ScanResult first = scan();
  first.index.putSubset({"pick", "manual", 2, 0, {"cats/cat13.png", "dogs/dog12.png"}});
  fs::rename(dir / "data/cats/cat13.png", dir / "data/dogs/cat13_moved.png");
  tpuc::testing::writeImage((dir / "data/dogs/dog11.png").string(), tpuc::testing::patternImage(999));
  tpuc::testing::writeImage((dir / "data/new.png").string(), tpuc::testing::patternImage(998));
  fs::remove(dir / "data/dogs/dog12.png");
  ScanResult rescan = scan(&first.index);
  const IndexChanges &c = rescan.changes;
  ASSERT_EQ(c.moved.size(), 1u);
  EXPECT_EQ(c.moved[0], (std::pair<std::string, std::string>{"cats/cat13.png", "dogs/cat13_moved.png"}));
  EXPECT_EQ(c.changed, std::vector<std::string>{"dogs/dog11.png"});
  EXPECT_EQ(c.added, std::vector<std::string>{"new.png"});
  EXPECT_EQ(c.removed, std::vector<std::string>{"dogs/dog12.png"});
  const Subset *pick = rescan.index.findSubset("pick");
  ASSERT_TRUE(pick);
  EXPECT_EQ(pick->paths, std::vector<std::string>{"dogs/cat13_moved.png"});
}

TEST_F(DatasetTest, IndexFileRoundTripsWithItsRootRelative) {
  DatasetIndex index = scan().index;
  index.putSubset({"five", "first", 5, 0, {"cats/cat10.png"}});
  std::string file = (dir / "data.index.json").string();
  ASSERT_FALSE(bool(writeIndex(index, file)));
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(text.find("\"root\": \"data\""), std::string::npos);
  auto back = readIndex(file);
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(*back, index);
  // The folder moves with its index.
  fs::path moved = dir.string() + "_moved";
  fs::remove_all(moved);
  fs::rename(dir, moved);
  auto relocated = readIndex((moved / "data.index.json").string());
  fs::rename(moved, dir);
  ASSERT_TRUE(bool(relocated));
  EXPECT_EQ(relocated->root, (moved / "data").string());
}

TEST_F(DatasetTest, BadIndexFilesNameTheFileAndTheField) {
  std::string file = (dir / "bad.json").string();
  std::ofstream(file)
      << R"({"schema": "tpuc.dataset_index", "version": 1, "root": ".", "files": [{"path": "a.png"}]})";
  auto bad = readIndex(file);
  ASSERT_FALSE(bool(bad));
  std::string message = llvm::toString(bad.takeError());
  EXPECT_NE(message.find(file + ": 'files[0]'"), std::string::npos) << message;
  std::ofstream(file) << R"({"schema": "tpuc.dataset_index", "version": 9, "root": "."})";
  auto newer = readIndex(file);
  ASSERT_FALSE(bool(newer));
  EXPECT_NE(llvm::toString(newer.takeError()).find("'version'"), std::string::npos);
  auto missing = readIndex((dir / "none.json").string());
  ASSERT_FALSE(bool(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("none.json: cannot read"), std::string::npos);
  auto notDir = scanDataset((dir / "nothere").string());
  ASSERT_FALSE(bool(notDir));
  EXPECT_NE(llvm::toString(notDir.takeError()).find("nothere: not a directory"), std::string::npos);
}

TEST_F(DatasetTest, ScanCanBeCancelled) {
  ScanOptions options;
  options.threads = 2;
  options.cancelled = [] { return true; };
  auto result = scanDataset((dir / "data").string(), options);
  ASSERT_FALSE(bool(result));
  EXPECT_NE(llvm::toString(result.takeError()).find("cancelled"), std::string::npos);
}

TEST_F(DatasetTest, SubsetsAreDeterministicAndFollowTheirMethod) {
  DatasetIndex index = scan().index;
  auto make = [&](SubsetRequest r) {
    auto s = makeSubset(index, r);
    EXPECT_TRUE(bool(s)) << (s ? "" : llvm::toString(s.takeError()));
    return s ? *s : Subset{};
  };
  Subset first = make({"f", "first", 3, 0, {}});
  EXPECT_EQ(first.paths,
            (std::vector<std::string>{index.files[0].path, index.files[1].path, index.files[2].path}));
  Subset r1 = make({"r", "random", 10, 42, {}}), r2 = make({"r", "random", 10, 42, {}}),
         r3 = make({"r", "random", 10, 43, {}});
  EXPECT_EQ(r1.paths.size(), 10u);
  EXPECT_EQ(r1.paths, r2.paths);
  EXPECT_NE(r1.paths, r3.paths);
  EXPECT_EQ(std::set<std::string>(r1.paths.begin(), r1.paths.end()).size(), 10u);
  EXPECT_EQ(make({"all", "random", 1000, 1, {}}).paths, paths(index));
  // Stratified: 33 files in cats 13, dogs 6, tensors 8, root 3 (+ none): 11 picks split 13:6:8:3 by
  // largest remainder -> cats 5 (4.77), dogs 2 (2.2), tensors 3 (2.93), root 1 (1.1).
  ASSERT_EQ(index.files.size(), 30u);
  Subset strat = make({"s", "stratified", 11, 7, {}});
  std::map<std::string, int> perFolder;
  for (const std::string &p : strat.paths)
    ++perFolder[index.find(p)->folder()];
  EXPECT_EQ(perFolder["cats"], 5);
  EXPECT_EQ(perFolder["dogs"], 2);
  EXPECT_EQ(perFolder["tensors"], 3);
  EXPECT_EQ(perFolder[""], 1);
  Subset manual = make({"m", "manual", 0, 0, {"dogs/dog10.png", (dir / "data/root1.png").string()}});
  EXPECT_EQ(manual.paths, (std::vector<std::string>{"dogs/dog10.png", "root1.png"}));
  EXPECT_EQ(manual.count, 2);
}

TEST_F(DatasetTest, SubsetErrorsNameTheField) {
  DatasetIndex index = scan().index;
  auto error = [&](SubsetRequest r) {
    auto s = makeSubset(index, r);
    return s ? std::string() : llvm::toString(s.takeError());
  };
  EXPECT_NE(error({"x", "best", 3, 0, {}}).find("'method' best is not one of"), std::string::npos);
  EXPECT_NE(error({"x", "random", 0, 0, {}}).find("'count' must be at least 1"), std::string::npos);
  EXPECT_NE(error({"x", "manual", 0, 0, {"cats/broken.jpg"}}).find("cats/broken.jpg is not a readable file"),
            std::string::npos);
  EXPECT_NE(error({"", "first", 1, 0, {}}).find("'name' is empty"), std::string::npos);
}

TEST_F(DatasetTest, DiverseSubsetTakesOneOfEachCluster) {
  // Three clusters of near-identical images (a pattern with small brightness changes) of sizes 5, 3, 2:
  // the 3 most diverse are one of each.
  fs::path clusters = dir / "clusters";
  int sizes[] = {5, 3, 2};
  for (int c = 0; c < 3; ++c)
    for (int k = 0; k < sizes[c]; ++k)
      tpuc::testing::writeImage(
          (clusters / ("c" + std::to_string(c) + "_" + std::to_string(k) + ".png")).string(),
          tpuc::testing::brighten(tpuc::testing::patternImage(700 + c), 2 * k));
  auto scanned = scanDataset(clusters.string());
  ASSERT_TRUE(bool(scanned));
  auto diverse = makeSubset(scanned->index, {"d", "diverse", 3, 0, {}});
  ASSERT_TRUE(bool(diverse)) << llvm::toString(diverse.takeError());
  std::set<char> seen;
  for (const std::string &p : diverse->paths)
    seen.insert(p[1]);
  EXPECT_EQ(seen, (std::set<char>{'0', '1', '2'}));
  // The first choice is the one nearest the mean, which lies in the largest cluster.
  EXPECT_EQ(diverse->paths[0][1], '0');
  // Tensors alone have no thumbnails.
  DatasetIndex tensorsOnly = scan().index;
  std::erase_if(tensorsOnly.files, [](const FileEntry &e) { return !e.metadata.dtype.size(); });
  auto none = makeSubset(tensorsOnly, {"d", "diverse", 3, 0, {}});
  ASSERT_FALSE(bool(none));
  EXPECT_NE(llvm::toString(none.takeError()).find("'diverse' needs images"), std::string::npos);
}

TEST_F(DatasetTest, DataListHasOneAbsolutePathALine) {
  DatasetIndex index = scan().index;
  std::string list = (dir / "list.txt").string();
  ASSERT_FALSE(bool(writeDataList(index, {"cats/cat10.png", "root1.png"}, list)));
  std::ifstream in(list);
  std::string a, b, c;
  std::getline(in, a), std::getline(in, b);
  EXPECT_EQ(a, (dir / "data/cats/cat10.png").string());
  EXPECT_EQ(b, (dir / "data/root1.png").string());
  EXPECT_FALSE(std::getline(in, c));
}

TEST_F(DatasetTest, QualityReportFindsWhatWasPlanted) {
  QualityOptions options;
  QualityReport report = analyzeQuality(scan().index, options);
  EXPECT_EQ(report.files, planted.readable);
  ASSERT_EQ(report.exactDuplicates.size(), 1u);
  EXPECT_EQ(report.exactDuplicates[0], planted.exactDuplicate);
  // Near duplicates: the brightened dog and the swapped copy with its original (the exact copies are
  // one content, not a near-duplicate group).
  std::vector<std::vector<std::string>> expectedNear = {planted.nearDuplicate,
                                                        {planted.swappedOriginal, planted.swapped}};
  std::sort(expectedNear.begin(), expectedNear.end());
  EXPECT_EQ(report.nearDuplicates, expectedNear);
  ASSERT_EQ(report.channelSwaps.size(), 1u);
  EXPECT_EQ(report.channelSwaps[0].swapped, planted.swapped);
  EXPECT_EQ(report.channelSwaps[0].original, planted.swappedOriginal);
  std::set<std::string> outliers;
  for (const Outlier &o : report.outliers)
    outliers.insert(o.path);
  EXPECT_EQ(outliers, (std::set<std::string>{planted.darkOutlier, planted.swapped, planted.scaledTensor}));
  for (const Outlier &o : report.outliers)
    EXPECT_NE(o.reason.find("is far from the dataset's"), std::string::npos) << o.reason;
  ASSERT_EQ(report.corrupt.size(), 2u);
  EXPECT_EQ(report.resolutions.size(), 1u);
  EXPECT_EQ(report.resolutions["64x48"], planted.readable - planted.tensors);
  EXPECT_EQ(report.aspects.size(), 1u);
  EXPECT_EQ(report.aspects.begin()->first, 1.35); // 64/48 = 1.333 -> 1.35 in steps of 0.05
  ASSERT_EQ(report.folders.size(), 4u);
  EXPECT_EQ(report.folders[0].folder, "");
  EXPECT_EQ(report.folders[0].files, planted.root);
  EXPECT_EQ(report.folders[1].files, planted.cats);
  EXPECT_DOUBLE_EQ(report.balance, double(planted.root) / double(planted.cats));
  std::string json = toJson(report, options);
  EXPECT_NE(json.find("\"schema\": \"tpuc.dataset_report\""), std::string::npos);
  EXPECT_NE(json.find("\"channel_swaps\""), std::string::npos);
}

TEST_F(DatasetTest, NearDuplicateThresholdZeroStillGroupsIdenticalHashes) {
  QualityOptions strict;
  strict.nearThreshold = 0;
  QualityReport report = analyzeQuality(scan().index, strict);
  for (const auto &group : report.nearDuplicates)
    EXPECT_EQ(group.size(), 2u);
}

} // namespace

TEST(DatasetGroups, MultiInputFoldersPairFilesByPathAndSubsetsTakePartners) {
  const std::vector<std::string> paths = {
      "attention_mask/a.npy", "attention_mask/b.npy", "attention_mask/sub/c.npy", "input_ids/a.npy",
      "input_ids/b.npz",      "input_ids/d.npy",      "input_ids/sub/c.npy",      "both.npz",
      "notes/x.npy"};
  const std::vector<std::string> inputs = {"input_ids", "attention_mask"};
  dataset::InputGroups g = dataset::groupByInputs(paths, inputs);
  ASSERT_TRUE(g.grouped);
  // Pairs in input order (the extension may differ), files outside the input folders alone, the unpaired
  // named.
  std::vector<std::vector<std::string>> expected = {{"input_ids/a.npy", "attention_mask/a.npy"},
                                                    {"input_ids/b.npz", "attention_mask/b.npy"},
                                                    {"input_ids/sub/c.npy", "attention_mask/sub/c.npy"},
                                                    {"both.npz"},
                                                    {"notes/x.npy"}};
  EXPECT_EQ(g.samples, expected);
  EXPECT_EQ(g.unmatched, std::vector<std::string>{"input_ids/d.npy"});
  // A subset: one file of a sample takes its partner, once, in the order first chosen.
  const std::vector<std::string> chosen = {"input_ids/sub/c.npy", "attention_mask/sub/c.npy",
                                           "attention_mask/a.npy", "elsewhere.npy"};
  g = dataset::groupByInputs(paths, inputs, &chosen);
  expected = {{"input_ids/sub/c.npy", "attention_mask/sub/c.npy"},
              {"input_ids/a.npy", "attention_mask/a.npy"}};
  EXPECT_EQ(std::vector(g.samples.begin(), g.samples.begin() + 2), expected);
  // A single-input model, or a folder without every input's folder: every file is a sample.
  g = dataset::groupByInputs(paths, {"input_ids"});
  EXPECT_FALSE(g.grouped);
  EXPECT_EQ(g.samples.size(), paths.size());
  g = dataset::groupByInputs(paths, {"input_ids", "token_type_ids"});
  EXPECT_FALSE(g.grouped);
  EXPECT_EQ(g.samples.size(), paths.size());
}
