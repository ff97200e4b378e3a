//===- ResultTest.cpp - tpuc::Result: a value or a one-line Failure -------===//
//===----------------------------------------------------------------------===//
#include "tpuc/Support/Result.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

using namespace tpuc;

namespace {

Result<int> parsePositive(const std::string &text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    return Failure{"'" + text + "' is not a positive number"};
  return std::stoi(text);
}

Result<void> requireEven(int value) {
  if (value % 2)
    return Failure{std::to_string(value) + " is odd"};
  return {};
}

TEST(Result, HoldsTheValueOrTheFailure) {
  Result<int> ok = parsePositive("42");
  ASSERT_TRUE(ok);
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 42);
  EXPECT_EQ(ok.error(), ""); // no message on success

  Result<int> bad = parsePositive("4x2");
  EXPECT_FALSE(bad);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "'4x2' is not a positive number");
}

TEST(Result, ValueAccessAndValueOr) {
  Result<std::vector<int>> values = std::vector<int>{1, 2, 3};
  ASSERT_TRUE(values);
  EXPECT_EQ(values->size(), 3u);
  values->push_back(4);
  EXPECT_EQ((*values)[3], 4);
  EXPECT_EQ(values.value_or(std::vector<int>{}).size(), 4u);

  Result<std::string> missing = Failure{"x.txt: cannot be read"};
  EXPECT_EQ(missing.value_or("fallback"), "fallback");
  EXPECT_EQ(Result<std::string>(std::string("kept")).value_or("fallback"), "kept");
}

TEST(Result, MoveOnlyValues) {
  Result<std::unique_ptr<int>> owned = std::make_unique<int>(7);
  ASSERT_TRUE(owned);
  std::unique_ptr<int> taken = *std::move(owned);
  ASSERT_TRUE(taken);
  EXPECT_EQ(*taken, 7);
}

TEST(Result, VoidIsSuccessOrFailure) {
  Result<void> even = requireEven(4);
  EXPECT_TRUE(even);
  EXPECT_EQ(even.error(), "");
  Result<void> odd = requireEven(3);
  EXPECT_FALSE(odd);
  EXPECT_EQ(odd.error(), "3 is odd");
  // Reassigning keeps one outcome: the latest.
  odd = requireEven(2);
  EXPECT_TRUE(odd);
  EXPECT_EQ(odd.error(), "");
}

TEST(Result, PassesAFailureOnUnchanged) {
  // A caller adding its own context keeps the callee's line intact.
  auto evenNumber = [](const std::string &text) -> Result<int> {
    Result<int> value = parsePositive(text);
    if (!value)
      return Failure{"input: " + value.error()};
    if (Result<void> check = requireEven(*value); !check)
      return Failure{check.error()};
    return *value;
  };
  EXPECT_EQ(*evenNumber("8"), 8);
  EXPECT_EQ(evenNumber("-1").error(), "input: '-1' is not a positive number");
  EXPECT_EQ(evenNumber("9").error(), "9 is odd");
}

} // namespace
