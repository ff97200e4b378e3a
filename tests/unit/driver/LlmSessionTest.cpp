//===- LlmSessionTest.cpp - TpucDriver: an LLM generation session ---------===//
//
// The tiny Qwen3 checkpoint of tests/unit/llm (make_tiny_llm.py, Debian's python3-torch) converted by
// tpuc llm-convert: driver::LlmSession generates the same tokens as `tpuc llm-run` and stops when the
// sink cancels.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Driver/LlmSession.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace tpuc::driver;
namespace cmdsim = tpuc::cmdsim;
namespace fs = std::filesystem;

namespace {

class LlmSessionTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    checkpoint = fs::path(TPUC_TINY_LLM_DIR) / "qwen3";
    if (!fs::exists(checkpoint / "model.safetensors"))
      return;
    // ctest runs each test in its own process, two at a time: each process converts into its own folder.
    dir = fs::temp_directory_path() / ("tpuc_driver_llm_session_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::string tpuc = TPUC_EXE;
    converted = std::system((tpuc + " llm-convert -m " + checkpoint.string() + " -s 32 -q bf16 -o " +
                             (dir / "out").string() + " > " + (dir / "convert.log").string() + " 2>&1")
                                .c_str()) == 0;
  }
  static void TearDownTestSuite() { fs::remove_all(dir); }

  void SetUp() override {
    if (!fs::exists(checkpoint / "model.safetensors"))
      GTEST_SKIP() << "no tiny checkpoint (make_tiny_llm.py needs python3-torch)";
    ASSERT_TRUE(converted) << "tpuc llm-convert failed; see " << (dir / "convert.log");
    options.model = (dir / "out").string();
    options.promptIds = "5,9,17,3";
    options.maxNewTokens = 8;
  }

  static inline fs::path checkpoint, dir;
  static inline bool converted = false;
  LlmRunOptions options;
};

TEST_F(LlmSessionTest, GeneratesTheTokensOfTpucLlmRun) {
  std::string json = (dir / "cli.json").string();
  ASSERT_EQ(std::system((std::string(TPUC_EXE) + " llm-run --model " + options.model +
                         " --prompt_ids 5,9,17,3 --max_new_tokens 8 --output_json " + json + " > " +
                         (dir / "run.log").string() + " 2>&1")
                            .c_str()),
            0);
  std::vector<int32_t> expected = nlohmann::json::parse(std::ifstream(json))["tokens"];

  auto session = LlmSession::open(options);
  ASSERT_TRUE(bool(session)) << llvm::toString(session.takeError());
  auto prompt = parsePromptIds(options.promptIds);
  ASSERT_TRUE(bool(prompt));
  std::string streamed;
  Sink sink;
  sink.print = [&](std::string_view text, bool) { streamed += text; };
  auto answer = (*session)->answer(*prompt, sink);
  ASSERT_TRUE(bool(answer)) << llvm::toString(answer.takeError());
  EXPECT_EQ(answer->tokens, expected);
  EXPECT_EQ(answer->prompt, *prompt);
  EXPECT_EQ(streamed, answer->text + "\n");
}

TEST_F(LlmSessionTest, CancelStopsGeneration) {
  auto session = LlmSession::open(options);
  ASSERT_TRUE(bool(session)) << llvm::toString(session.takeError());
  int polls = 0;
  Sink sink;
  sink.cancelled = [&] { return ++polls > 2; };
  auto answer = (*session)->answer({5, 9, 17, 3}, sink);
  ASSERT_TRUE(bool(answer)) << llvm::toString(answer.takeError());
  EXPECT_EQ(answer->stop, "cancelled");
  EXPECT_EQ(answer->tokens.size(), 2u);
}

TEST_F(LlmSessionTest, LaterTurnsReuseTheCachedPrefix) {
  auto session = LlmSession::open(options);
  ASSERT_TRUE(bool(session)) << llvm::toString(session.takeError());
  LlmSession &s = **session;
  std::vector<cmdsim::FeedStep> steps;
  std::vector<LlmTokenStep> tokens;
  LlmEvents events{[&](const cmdsim::FeedStep &step) { steps.push_back(step); },
                   [&](const LlmTokenStep &token) { tokens.push_back(token); }};
  auto first = s.answer({5, 9, 17, 3}, {}, events);
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  EXPECT_EQ(first->cachedTokens, 0);
  ASSERT_FALSE(steps.empty());
  int64_t fed = 0;
  for (const cmdsim::FeedStep &step : steps)
    fed += step.tokens;
  EXPECT_EQ(fed, 4); // the prompt, and nothing of the answer (its steps come with its tokens)
  ASSERT_EQ(tokens.size(), first->tokens.size());
  // The first token's record is lm_head and the head after the reported prefill.
  double stepsMs = 0;
  for (const cmdsim::FeedStep &step : steps)
    stepsMs += step.simulatedMs;
  EXPECT_NEAR(tokens[0].simulatedMs + stepsMs, first->firstTokenMs, 1e-9);
  EXPECT_EQ(s.cacheTokens(), 4 + static_cast<int64_t>(first->tokens.size()) - 1);

  // The next prompt extends the conversation: only its new tokens are fed.
  std::vector<int32_t> next = first->prompt;
  next.insert(next.end(), first->tokens.begin(), first->tokens.end());
  next.insert(next.end(), {11, 12});
  steps.clear();
  EXPECT_EQ(s.cachedPrefix(next), s.cacheTokens());
  auto second = s.answer(next, {}, events);
  ASSERT_TRUE(bool(second)) << llvm::toString(second.takeError());
  EXPECT_EQ(second->cachedTokens, 4 + static_cast<int64_t>(first->tokens.size()) - 1);
  fed = 0;
  for (const cmdsim::FeedStep &step : steps)
    fed += step.tokens;
  EXPECT_EQ(fed, static_cast<int64_t>(next.size()) - second->cachedTokens);

  // A prompt that departs from the cache keeps the shared part only; the answer equals a fresh session's.
  auto fresh = LlmSession::open(options);
  ASSERT_TRUE(bool(fresh));
  std::vector<int32_t> other = {5, 9, 40, 41};
  auto reused = s.answer(other);
  auto direct = (*fresh)->answer(other);
  ASSERT_TRUE(bool(reused) && bool(direct));
  EXPECT_EQ(reused->cachedTokens, 2);
  EXPECT_EQ(reused->tokens, direct->tokens);
  s.reset();
  EXPECT_EQ(s.cacheTokens(), 0);
}

TEST_F(LlmSessionTest, GenerationSettingsAreChecked) {
  auto session = LlmSession::open(options);
  ASSERT_TRUE(bool(session)) << llvm::toString(session.takeError());
  LlmSession &s = **session;
  LlmGeneration g = s.generation();
  g.topP = 0;
  EXPECT_EQ(llvm::toString(s.setGeneration(g)), "'--top_p' must be in (0, 1]");
  g = s.generation();
  g.temperature = -1;
  EXPECT_EQ(llvm::toString(s.setGeneration(g)), "'--temperature' must be positive");
  g = s.generation();
  g.maxNewTokens = 0;
  EXPECT_EQ(llvm::toString(s.setGeneration(g)), "'--max_new_tokens' must be positive");
  EXPECT_EQ(s.generation().maxNewTokens, 8); // a refused setting changes nothing
  // Sampling with a seed: the same seed draws the same answer.
  g = s.generation();
  g.topK = 5;
  g.temperature = 1.5;
  g.seed = 11;
  std::string warning;
  ASSERT_FALSE(bool(s.setGeneration(g, &warning)));
  auto a = s.answer({5, 9, 17, 3});
  ASSERT_FALSE(bool(s.setGeneration(g)));
  s.reset();
  auto b = s.answer({5, 9, 17, 3});
  ASSERT_TRUE(bool(a) && bool(b));
  EXPECT_EQ(a->tokens, b->tokens);
  g.topK = 100000;
  ASSERT_FALSE(bool(s.setGeneration(g, &warning)));
  EXPECT_NE(warning.find("wider than the sample head"), std::string::npos) << warning;
}

TEST_F(LlmSessionTest, ServeAnswersBadLinesWithOneErrorEach) {
  // This model has no tokenizer: every chat is an error line, and the session still answers the rest.
  auto session = LlmSession::open(options);
  ASSERT_TRUE(bool(session)) << llvm::toString(session.takeError());
  std::istringstream in("not json\n\n{\"type\":\"chat\",\"id\":\"1\",\"message\":\"hi\"}\n"
                        "{\"type\":\"settings\",\"id\":\"2\",\"top_p\":2}\n"
                        "{\"type\":\"settings\",\"id\":\"3\",\"max_new_tokens\":3}\n{\"type\":\"reset\"}\n{"
                        "\"type\":\"stop\"}\n");
  std::vector<nlohmann::json> events;
  serveLlm(
      **session, in,
      [&](const std::string &line) {
        EXPECT_EQ(line.find('\n'), std::string::npos);
        events.push_back(nlohmann::json::parse(line));
      },
      true);
  ASSERT_EQ(events.size(), 6u);
  EXPECT_EQ(events[0]["event"], "ready");
  EXPECT_EQ(events[0]["seq_length"], 32);
  EXPECT_EQ(events[1]["event"], "error");
  EXPECT_EQ(events[2]["event"], "error");
  EXPECT_EQ(events[2]["id"], "1");
  EXPECT_NE(events[2]["message"].get<std::string>().find("tokenizer"), std::string::npos);
  EXPECT_EQ(events[3]["message"], "'--top_p' must be in (0, 1]");
  EXPECT_EQ(events[4]["event"], "settings");
  EXPECT_EQ(events[4]["max_new_tokens"], 3);
  EXPECT_EQ(events[5]["event"], "reset");
}

TEST_F(LlmSessionTest, OpenErrorsAreOneLine) {
  options.model = (dir / "nothere").string();
  auto session = LlmSession::open(options);
  ASSERT_FALSE(bool(session));
  std::string message = llvm::toString(session.takeError());
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_NE(message.find("nothere"), std::string::npos) << message;
  auto bad = parsePromptIds("5,x");
  ASSERT_FALSE(bool(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()), "'--prompt_ids': 'x' is not a token id");
}

} // namespace
