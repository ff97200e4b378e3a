//===- TablesTest.cpp - Calibration and quantize table I/O ----------------===//

#include "tpuc/Quant/Tables.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>

using namespace tpuc::quant;

namespace {

const std::string kInputs = TPUC_QUANT_TEST_INPUTS;

/// Expects parse to throw TableError whose message starts with `prefix` and
/// contains `fragment`.
template <typename Fn>
void expectError(Fn fn, const std::string &prefix,
                 const std::string &fragment) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected " << prefix << " ... " << fragment;
  } catch (const TableError &e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind(prefix, 0), 0u) << msg;
    EXPECT_NE(msg.find(fragment), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
  }
}

std::string tempPath(const std::string &name) {
  return (std::filesystem::temp_directory_path() /
          ("tpuc_quant_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

TEST(CalibrationTableTest, ReadsTpuMlirDocumentedSample) {
  CalibrationTable t =
      readCalibrationTable(kInputs + "/tpu_mlir_sample_cali_table");
  ASSERT_EQ(t.header.size(), 6u);
  EXPECT_EQ(t.header[0], "# genetated time: 2022-08-11 10:00:59.743675");
  EXPECT_EQ(t.header[4], "###");
  ASSERT_EQ(t.int8.size(), 7u);
  EXPECT_EQ(t.int8[0], (CalibrationEntry{"images", 1.0000080, 0.0, 1.0000080}));
  const CalibrationEntry *conv = t.find("125_Conv");
  ASSERT_NE(conv, nullptr);
  EXPECT_DOUBLE_EQ(conv->threshold, 56.1447888);
  EXPECT_DOUBLE_EQ(conv->min, -143.7053833);
  EXPECT_DOUBLE_EQ(conv->max, 122.0844193);
  EXPECT_EQ(t.find("nope"), nullptr);
  EXPECT_TRUE(t.int4.empty() && t.fp8.empty() && t.weightScales.empty());
}

TEST(CalibrationTableTest, ReadsEverySectionWithCrLfAndTabs) {
  CalibrationTable t = readCalibrationTable(kInputs + "/sections_cali_table");
  ASSERT_EQ(t.header.size(), 6u);
  EXPECT_EQ(t.header[1], "# chip: bm1684x  mix_mode: 4_8");
  ASSERT_EQ(t.int8.size(), 3u);
  EXPECT_EQ(t.int8[1].name, "/conv1/Conv_output_0_Conv"); // Tab-separated.
  EXPECT_DOUBLE_EQ(t.int8[1].max, 27.5469532);
  ASSERT_EQ(t.perChannel.size(), 1u); // MQBench per-channel activation line.
  EXPECT_EQ(t.perChannel[0],
            (ScaleEntry{"/fc/Gemm_act", {0.0125, 0.025, 0.0375}, {0, 0, 1}}));
  ASSERT_EQ(t.int4.size(), 2u);
  EXPECT_DOUBLE_EQ(t.findInt4("input.1")->threshold, 2.1121931);
  ASSERT_EQ(t.fp8.size(), 1u);
  EXPECT_DOUBLE_EQ(t.findFp8("/relu/Relu_output_0_Relu")->threshold,
                   27.5469532);
  ASSERT_EQ(t.weightScales.size(), 2u);
  EXPECT_EQ(t.weightScales[0],
            (ScaleEntry{"/conv1/Conv_weight", {0.003125, 0.00625}, {}}));
  EXPECT_EQ(t.weightScales[1].zeroPoints, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(t.asymOps, (std::vector<std::string>{"/relu/Relu_output_0_Relu"}));
  EXPECT_EQ(t.int4Ops,
            (std::vector<std::string>{"/conv1/Conv_output_0_Conv"}));
}

TEST(CalibrationTableTest, RoundTripsThroughText) {
  for (const char *file : {"tpu_mlir_sample_cali_table", "sections_cali_table"}) {
    CalibrationTable t = readCalibrationTable(kInputs + "/" + file);
    std::string text = formatCalibrationTable(t);
    CalibrationTable back = parseCalibrationTable(text, "round-trip");
    EXPECT_EQ(back, t) << file << ":\n" << text;
    // Formatting is a fixed point.
    EXPECT_EQ(formatCalibrationTable(back), text);
  }
}

// Found by tests/fuzz (tables): a main-section per-channel line with zero zero points was written without its
// count and read back as a 5-field error; a name with a vertical tab read as one field, which the writer
// refuses.
TEST(CalibrationTableTest, FuzzFoundRoundTrips) {
  CalibrationTable t = parseCalibrationTable("conv1 3 0.2 2 0 0\n", "fuzz");
  ASSERT_EQ(t.perChannel.size(), 1u);
  EXPECT_TRUE(t.perChannel[0].zeroPoints.empty());
  EXPECT_EQ(parseCalibrationTable(formatCalibrationTable(t), "again").perChannel, t.perChannel);
  // The vertical tab separates fields, as Python's split() does: three fields here, not a name "relu\vx".
  EXPECT_THROW(parseQuantizeTable("relu\vx F16\n", "fuzz"), TableError);
  EXPECT_EQ(parseQuantizeTable("relu\vF16\n", "fuzz").entries.at(0).name, "relu");
}

TEST(CalibrationTableTest, WritesTpuMlirNumberFormat) {
  CalibrationTable t;
  t.set({"a", 56.4281803, -102.5830231, 97.6811752});
  t.set({"tiny", 1e-5, -1e-5, 1e-5});
  t.set({"a", 1.5, -1, 2}); // Replaces in place.
  std::string text = formatCalibrationTable(t);
  EXPECT_NE(text.find("\na 1.5000000 -1.0000000 2.0000000\n"),
            std::string::npos)
      << text;
  // Below 1e-3 the exponent form keeps precision; no '+' for TPU-MLIR's regex.
  EXPECT_NE(text.find("tiny 1.000000000e-05 -1.000000000e-05 1.000000000e-05"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find('+'), std::string::npos);
  CalibrationTable back = parseCalibrationTable(text, "x");
  EXPECT_EQ(back.int8.size(), 2u);
  EXPECT_DOUBLE_EQ(back.find("tiny")->threshold, 1e-5);
  // The default header has the column comment TPU-MLIR writes.
  EXPECT_NE(text.find("# op_name    threshold    min    max\n"),
            std::string::npos);
}

TEST(CalibrationTableTest, WriteAndReadFile) {
  CalibrationTable t;
  t.header = {"# genetated time: now", "###"};
  t.set({"x", 2.0, -1.0, 2.0});
  t.int4.push_back({"x", 1.0, -1.0, 2.0});
  t.asymOps = {"x"};
  std::string path = tempPath("cali");
  writeCalibrationTable(path, t);
  EXPECT_EQ(readCalibrationTable(path), t);
  std::remove(path.c_str());
  expectError([] { readCalibrationTable("/nonexistent/dir/table"); },
              "/nonexistent/dir/table: cannot open", "calibration table");
}

TEST(CalibrationTableTest, ErrorsNameFileAndLine) {
  expectError([] { parseCalibrationTable("# h\na 1 2\n", "t.txt"); },
              "t.txt:2: ", "expected 'op_name threshold min max', got 3 fields");
  expectError([] { parseCalibrationTable("a 1.0 x 2.0\n", "t.txt"); },
              "t.txt:1: ", "op 'a': min 'x' is not a finite number");
  expectError([] { parseCalibrationTable("\n\na nan 0 1\n", "t.txt"); },
              "t.txt:3: ", "threshold 'nan'");
  expectError([] { parseCalibrationTable("a -1 0 1\n", "t.txt"); },
              "t.txt:1: ", "threshold -1 is negative");
  expectError(
      [] { parseCalibrationTable("a 1 0 1\nb 4 0.1 0.2 0.3\n", "t.txt"); },
      "t.txt:2: ", "as a per-channel line: declares 4 scales but has 3");
  expectError(
      [] { parseCalibrationTable("b 2 0.1 0.2 3 0 0\n", "t.txt"); },
      "t.txt:1: ", "a zero-point count and that many zero points");
  expectError(
      [] { parseCalibrationTable("#weight_scale\nw x 0.1\n", "t.txt"); },
      "t.txt:2: ", "#weight_scale line for 'w'");
  expectError([] { parseCalibrationTable("#asym_op\nop1 op2\n", "t.txt"); },
              "t.txt:2: ", "one op name a line in the #asym_op section");
  // A name with whitespace cannot be written.
  CalibrationTable bad;
  bad.set({"has space", 1, 0, 1});
  EXPECT_THROW(formatCalibrationTable(bad), TableError);
  CalibrationTable inf;
  inf.set({"x", INFINITY, 0, 1});
  EXPECT_THROW(formatCalibrationTable(inf), TableError);
}

TEST(CalibrationTableTest, CommentsReturnToTheMainSection) {
  // TPU-MLIR: a plain comment after a section marker switches back to the
  // int8 thresholds.
  CalibrationTable t = parseCalibrationTable(
      "a 1 0 1\n#int4_th\na 0.5 0 1\n# back to int8\nb 2 0 2\n", "t");
  EXPECT_EQ(t.int8.size(), 2u);
  EXPECT_EQ(t.int4.size(), 1u);
  EXPECT_TRUE(t.header.empty());
}

TEST(QuantizeTableTest, ReadsTpuMlirSample) {
  QuantizeTable t = readQuantizeTable(kInputs + "/tpu_mlir_sample_qtable");
  ASSERT_EQ(t.entries.size(), 5u);
  EXPECT_EQ(t.find("convolution_output11_Conv"), QuantMode::F16);
  // Modes are case-insensitive, trailing comments allowed.
  EXPECT_EQ(t.find("model_1/leaky_re_lu_3/LeakyRelu:0_LeakyRelu"),
            QuantMode::BF16);
  EXPECT_EQ(t.find("convolution_output10_Conv"), QuantMode::F32);
  EXPECT_EQ(t.find("model_1/concatenate_1/concat:0_Concat"), QuantMode::W4BF16);
  EXPECT_EQ(t.find("output_Add"), QuantMode::INT8);
  EXPECT_FALSE(t.find("other").has_value());
}

TEST(QuantizeTableTest, RoundTripAndModes) {
  QuantizeTable t;
  t.set("a", QuantMode::F16);
  t.set("b", QuantMode::W8F16);
  t.set("a", QuantMode::F32); // Replaces in place.
  std::string text = formatQuantizeTable(t);
  EXPECT_EQ(parseQuantizeTable(text, "q"), t);
  std::string path = tempPath("qtable");
  writeQuantizeTable(path, t);
  EXPECT_EQ(readQuantizeTable(path), t);
  std::remove(path.c_str());
  for (const char *name : {"F32", "F16", "BF16", "INT8", "UINT8", "INT4",
                           "W8F16", "W8BF16", "W4F16", "W4BF16", "F8",
                           "F8E4M3", "F8E5M2"}) {
    std::optional<QuantMode> m = parseQuantMode(name);
    ASSERT_TRUE(m.has_value()) << name;
    EXPECT_EQ(quantModeName(*m), name);
  }
  EXPECT_EQ(parseQuantMode("w4bf16"), QuantMode::W4BF16);
  EXPECT_FALSE(parseQuantMode("FP32").has_value());
}

TEST(QuantizeTableTest, ErrorsNameFileAndLine) {
  expectError([] { parseQuantizeTable("# c\nconv1\n", "q.txt"); }, "q.txt:2: ",
              "expected 'op_name MODE', got 1 field");
  expectError([] { parseQuantizeTable("conv1 F16 extra\n", "q.txt"); },
              "q.txt:1: ", "got 3 fields");
  expectError([] { parseQuantizeTable("\r\nconv1 FP16\r\n", "q.txt"); },
              "q.txt:2: ", "op 'conv1': unknown mode 'FP16' (known: F32,");
  expectError([] { readQuantizeTable("/nonexistent/q"); },
              "/nonexistent/q: cannot open", "quantize table");
}

TEST(TablesRobustnessTest, GarbageNeverCrashes) {
  // Random mixes of table tokens: every input parses or throws TableError.
  const char *tokens[] = {"a", "1", "-2.5", "nan", "#int4_th", "#weight_scale",
                          "#asym_op", "# c", "3", "0", "x y", "\t", "\r",
                          "1e-5", "99999999999999999999", "-1", "F16", "#"};
  std::mt19937 rng(5);
  std::uniform_int_distribution<size_t> pick(0, std::size(tokens) - 1);
  for (int i = 0; i < 3000; ++i) {
    std::string text;
    for (int j = 0; j < 12; ++j) {
      text += tokens[pick(rng)];
      text += (rng() % 3 == 0) ? "\n" : " ";
    }
    try {
      parseCalibrationTable(text, "g");
    } catch (const TableError &) {
    }
    try {
      parseQuantizeTable(text, "g");
    } catch (const TableError &) {
    }
  }
}

} // namespace
