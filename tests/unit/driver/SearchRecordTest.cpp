// The search_qtable record: written and read back equal, the INT8 step's op and out-of-order steps rejected,
// another schema and a newer version refused in one line; the chip's float mode from its profile.
#include "tpuc/Driver/SearchRecord.h"

#include <gtest/gtest.h>

using namespace tpuc::driver;

namespace {

SearchQtableRecord record() {
  SearchQtableRecord r;
  r.mlir = "cnn.mlir";
  r.chip = "bm1684x";
  r.calibrationTable = "table";
  r.quantizeTable = "q.qtable";
  r.floatMode = "F16";
  r.expectedCos = 0.999;
  r.maxFloatLayers = 3;
  r.samples = 4;
  r.scored = {"logits"};
  r.ranked = {{"relu_out", 0.0123}, {"conv", 0.001}};
  r.steps = {{0, "", 0.9981, 5200, 0.0055}, {1, "relu_out", 0.9993, 5900, 0.0062}};
  r.reached = true;
  return r;
}

TEST(SearchRecord, RoundTrips) {
  auto read = parseSearchQtable(toJson(record()));
  ASSERT_TRUE(read) << read.error;
  EXPECT_EQ(read.result, record());
}

TEST(SearchRecord, RejectsBadSteps) {
  SearchQtableRecord r = record();
  r.steps[1].step = 2;
  EXPECT_EQ(parseSearchQtable(toJson(r)).error, "steps[1]: step 2 out of order");
  r = record();
  r.steps[0].op = "conv";
  EXPECT_EQ(parseSearchQtable(toJson(r)).error, "steps[0]: the INT8 step names an op");
  r = record();
  r.steps[1].op.clear();
  EXPECT_EQ(parseSearchQtable(toJson(r)).error, "steps[1]: no op");
  r = record();
  r.steps.clear();
  EXPECT_EQ(parseSearchQtable(toJson(r)).error, "no steps (the INT8 step 0 is always recorded)");
}

TEST(SearchRecord, RejectsOtherSchemasAndNewerVersions) {
  EXPECT_EQ(parseSearchQtable(R"({"schema": "tpuc.manifest", "version": 1})").error,
            "not a tpuc.search_qtable record (schema is not \"tpuc.search_qtable\")");
  std::string text = toJson(record());
  text.replace(text.find("\"version\": 1"), 12, "\"version\": 9");
  EXPECT_EQ(parseSearchQtable(text).error,
            "tpuc.search_qtable version 9 is not supported (this build reads 1)");
}

TEST(SearchRecord, ChipFloatModeFollowsTheProfile) {
  EXPECT_EQ(chipFloatMode("bm1684x"), "F16"); // every shipped profile lists F16 throughput
  EXPECT_EQ(chipFloatMode("no-such-chip"), "BF16");
}

} // namespace
