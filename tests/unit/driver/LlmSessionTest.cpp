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
#include <unistd.h>

using namespace tpuc::driver;
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
  ASSERT_FALSE(bool(answer));
  EXPECT_EQ(llvm::toString(answer.takeError()), "generation cancelled after 2 tokens");
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
