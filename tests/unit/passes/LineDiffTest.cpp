// Myers line diff: valid edit scripts, minimal (equal steps = LCS length by brute-force DP) on random
// sequences, hunks with collapsed context.
#include "tpuc/PassData/PassDiff.h"

#include <gtest/gtest.h>

#include <chrono>
#include <random>

using namespace tpuc;

namespace {

/// LCS length by the textbook O(nm) table.
std::size_t lcsLength(const std::vector<std::uint32_t> &a, const std::vector<std::uint32_t> &b) {
  std::vector<std::vector<std::size_t>> t(a.size() + 1, std::vector<std::size_t>(b.size() + 1, 0));
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j)
      t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
  return t[a.size()][b.size()];
}

/// Checks that `script` turns a into b: it walks both sequences in order, equal steps pair equal
/// elements, and every element is consumed once. Returns the number of equal steps.
std::size_t checkScript(const std::vector<std::uint32_t> &a, const std::vector<std::uint32_t> &b,
                        const std::vector<DiffLine> &script) {
  std::int64_t i = 0, j = 0;
  std::size_t equal = 0;
  for (const DiffLine &step : script) {
    switch (step.op) {
    case DiffOp::Equal:
      EXPECT_EQ(step.aLine, i);
      EXPECT_EQ(step.bLine, j);
      EXPECT_EQ(a.at(i), b.at(j));
      ++i, ++j, ++equal;
      break;
    case DiffOp::Delete:
      EXPECT_EQ(step.aLine, i);
      EXPECT_EQ(step.bLine, -1);
      ++i;
      break;
    case DiffOp::Insert:
      EXPECT_EQ(step.bLine, j);
      EXPECT_EQ(step.aLine, -1);
      ++j;
      break;
    }
  }
  EXPECT_EQ(i, static_cast<std::int64_t>(a.size()));
  EXPECT_EQ(j, static_cast<std::int64_t>(b.size()));
  return equal;
}

std::string render(const std::vector<std::string_view> &a, const std::vector<std::string_view> &b,
                   const std::vector<DiffLine> &script) {
  std::string out;
  for (const DiffLine &s : script)
    out += s.op == DiffOp::Equal    ? " " + std::string(a[s.aLine]) + "\n"
           : s.op == DiffOp::Delete ? "-" + std::string(a[s.aLine]) + "\n"
                                    : "+" + std::string(b[s.bLine]) + "\n";
  return out;
}

} // namespace

TEST(LineDiff, EmptyAndIdentical) {
  EXPECT_TRUE(diffSequences({}, {}).empty());
  auto ins = diffSequences({}, {1, 2});
  ASSERT_EQ(ins.size(), 2u);
  EXPECT_EQ(ins[0], (DiffLine{DiffOp::Insert, -1, 0}));
  auto del = diffSequences({1, 2}, {});
  EXPECT_EQ(del[1], (DiffLine{DiffOp::Delete, 1, -1}));
  auto same = diffSequences({1, 2, 3}, {1, 2, 3});
  for (const DiffLine &s : same)
    EXPECT_EQ(s.op, DiffOp::Equal);
}

TEST(LineDiff, KnownTextDiff) {
  // Myers' paper example: ABCABBA -> CBABAC has an LCS of 4 (edit distance 5).
  std::vector<std::uint32_t> a{'A', 'B', 'C', 'A', 'B', 'B', 'A'}, b{'C', 'B', 'A', 'B', 'A', 'C'};
  EXPECT_EQ(checkScript(a, b, diffSequences(a, b)), 4u);

  std::string before = "module {\n  %0 = top.conv\n  %1 = top.batchnorm %0\n  %2 = top.relu %1\n  return %2\n}\n";
  std::string after = "module {\n  %0 = top.conv {do_relu}\n  return %0\n}\n";
  auto a2 = splitLines(before), b2 = splitLines(after);
  EXPECT_EQ(render(a2, b2, diffLines(a2, b2)), " module {\n"
                                               "-  %0 = top.conv\n"
                                               "-  %1 = top.batchnorm %0\n"
                                               "-  %2 = top.relu %1\n"
                                               "-  return %2\n"
                                               "+  %0 = top.conv {do_relu}\n"
                                               "+  return %0\n"
                                               " }\n");
}

TEST(LineDiff, RandomSequencesAreMinimal) {
  std::mt19937 random(12345);
  for (int round = 0; round < 3000; ++round) {
    // Small alphabets make many matches (hard cases for the middle snake); larger ones few.
    std::uint32_t alphabet = 1 + random() % (round % 3 == 0 ? 3 : 12);
    std::size_t n = random() % 40, m = random() % 40;
    std::vector<std::uint32_t> a(n), b(m);
    for (auto &x : a)
      x = random() % alphabet;
    if (round % 2 == 0) {
      // b as an edit of a: the realistic case for IR before/after a pass.
      b = a;
      for (int e = random() % 6; e > 0 && !b.empty(); --e) {
        std::size_t at = random() % b.size();
        if (random() % 2)
          b.erase(b.begin() + static_cast<std::ptrdiff_t>(at));
        else
          b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), random() % alphabet);
      }
    } else {
      for (auto &x : b)
        x = random() % alphabet;
    }
    auto script = diffSequences(a, b);
    ASSERT_EQ(checkScript(a, b, script), lcsLength(a, b)) << "round " << round;
    // Within a changed run, deletions come first.
    for (std::size_t k = 1; k < script.size(); ++k)
      ASSERT_FALSE(script[k - 1].op == DiffOp::Insert && script[k].op == DiffOp::Delete) << "round " << round;
  }
}

TEST(LineDiff, LargeInputWithFewChanges) {
  std::vector<std::uint32_t> a(200000);
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<std::uint32_t>(i);
  std::vector<std::uint32_t> b = a;
  b.erase(b.begin() + 5000);
  b.insert(b.begin() + 150000, 999999999u);
  b[100000] = 888888888u;
  auto script = diffSequences(a, b);
  EXPECT_EQ(checkScript(a, b, script), a.size() - 2);
}

TEST(LineDiff, NearlyEveryLineChangedStaysLinear) {
  // Shape inference rewrites every op line; only the braces and a few lines survive. 300,000 lines would
  // take Myers alone O(N·D) ~ 10^11 steps; dropping lines unique to one side makes it instant.
  std::vector<std::uint32_t> a(300000), b(300000);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<std::uint32_t>(2 * i);
    b[i] = i % 1000 == 0 ? a[i] : static_cast<std::uint32_t>(2 * i + 1);
  }
  auto start = std::chrono::steady_clock::now();
  auto script = diffSequences(a, b);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(checkScript(a, b, script), 300u);
  EXPECT_LT(seconds, 2.0);
}

TEST(LineDiff, HunksCollapseLongEqualRuns) {
  std::vector<std::uint32_t> a(100);
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<std::uint32_t>(i);
  std::vector<std::uint32_t> b = a;
  b[10] = 1000;
  b[14] = 1001; // within 2*context of the first change: same hunk
  b[80] = 1002;
  auto script = diffSequences(a, b);
  auto hunks = diffHunks(script, 3);
  ASSERT_EQ(hunks.size(), 2u);
  // First hunk: 3 context lines before a[10], through 3 after a[14].
  EXPECT_EQ(script[hunks[0].begin].aLine, 7);
  EXPECT_EQ(script[hunks[0].end - 1].aLine, 17);
  EXPECT_EQ(script[hunks[1].begin].aLine, 77);
  EXPECT_EQ(script[hunks[1].end - 1].aLine, 83);
  EXPECT_TRUE(diffHunks(diffSequences(a, a), 3).empty());
}

TEST(LineDiff, MaskSsaNumbers) {
  EXPECT_EQ(maskSsaNumbers("%12 = top.add %3, %arg0 : (tensor<2xf32>)"), "%_ = top.add %_, %arg0 : (tensor<2xf32>)");
  EXPECT_EQ(maskSsaNumbers("%4:2 = top.split %1#1 loc(\"a%1\")"), "%_:2 = top.split %_ loc(\"a%_\")");
  EXPECT_EQ(maskSsaNumbers("100% %"), "100% %");
}
