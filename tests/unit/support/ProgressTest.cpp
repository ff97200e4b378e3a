//===- ProgressTest.cpp - JSON-lines progress reports ---------------------===//

#include "tpuc/Support/Progress.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace tpuc;

TEST(Progress, JsonLines) {
  std::ostringstream json, text;
  ProgressReporter reporter(ProgressReporter::Format::Json, json, text);
  reporter.report("calibrate", 0.25, "image 25/100");
  reporter.report("deploy", 1.5, "say \"hi\"\n\tdone", {"a.mlir", "b\\c"});
  EXPECT_EQ(json.str(),
            "{\"stage\":\"calibrate\",\"fraction\":0.25,\"message\":\"image "
            "25/100\",\"artifacts\":[]}\n"
            "{\"stage\":\"deploy\",\"fraction\":1,\"message\":\"say "
            "\\\"hi\\\"\\n\\tdone\",\"artifacts\":[\"a.mlir\",\"b\\\\c\"]}\n");
  EXPECT_TRUE(text.str().empty());
}

TEST(Progress, TextAndNone) {
  std::ostringstream json, text;
  ProgressReporter(ProgressReporter::Format::Text, json, text)
      .report("run", 0.5, "half");
  EXPECT_EQ(text.str(), "[run 50%] half\n");
  ProgressReporter(ProgressReporter::Format::None, json, text)
      .report("run", 0.5, "x");
  EXPECT_TRUE(json.str().empty());
  EXPECT_EQ(ProgressReporter::parseFormat("json"),
            ProgressReporter::Format::Json);
  EXPECT_EQ(ProgressReporter::parseFormat(""), ProgressReporter::Format::None);
  EXPECT_EQ(ProgressReporter::parseFormat("xml"), std::nullopt);
  EXPECT_EQ(jsonEscape(std::string("\x01", 1)), "\\u0001");
}
