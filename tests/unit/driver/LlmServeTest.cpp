//===- LlmServeTest.cpp - The JSON lines of `tpuc llm-run --serve` --------===//
//
// Requests and events round-trip through their lines; every malformed request is one line saying why.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Driver/LlmServe.h"

#include <gtest/gtest.h>

using namespace tpuc::driver;

namespace {

TEST(LlmServe, RequestsRoundTrip) {
  LlmServeRequest chat;
  chat.type = LlmServeRequest::Type::Chat;
  chat.id = "7";
  chat.message = "hi \"there\"\n";
  chat.greedy = false;
  chat.topK = 40;
  chat.topP = 0.9;
  chat.temperature = 0.7;
  chat.seed = 5;
  chat.maxNewTokens = 12;
  chat.repetitionPenalty = 1.1;
  chat.image = "/photos/cat.jpg";
  std::string line = toJsonLine(chat);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  auto back = parseLlmServeRequest(line);
  ASSERT_TRUE(bool(back)) << back.error;
  EXPECT_EQ(back.result, chat);
  EXPECT_EQ(toJsonLine(LlmServeRequest{LlmServeRequest::Type::Stop}), R"({"type":"stop"})");
  auto reset = parseLlmServeRequest(R"({"type":"reset","id":3})");
  ASSERT_TRUE(bool(reset)) << reset.error;
  EXPECT_EQ(reset.result.type, LlmServeRequest::Type::Reset);
  EXPECT_EQ(reset.result.id, "3");
}

TEST(LlmServe, BadRequestsAreOneLine) {
  const std::pair<const char *, const char *> cases[] = {
      {"", "line is not JSON"},
      {"not json", "line is not JSON"},
      {"{\"type\":\"chat\",", "line is not JSON"},
      {"[1,2]", "line is not a JSON object"},
      {"{}", "the request has no 'type' (chat, reset, stop or settings)"},
      {R"({"type":"dance"})", "unknown type 'dance' (chat, reset, stop or settings)"},
      {R"({"type":"chat"})", "a chat request needs a non-empty 'message'"},
      {R"({"type":"chat","message":"x","top_k":"many"})", "'top_k' must be an integer"},
      {R"({"type":"chat","message":"x","top_k":1.5})", "'top_k' must be an integer"},
      {R"({"type":"chat","message":"x","top_p":"high"})", "'top_p' must be a number"},
      {R"({"type":"chat","message":"x","greedy":1})", "'greedy' must be true or false"},
      {R"({"type":"chat","message":5})", "'message' must be a string"},
      {R"({"type":"chat","message":"x","tempreature":1})", "unknown key 'tempreature'"},
  };
  for (const auto &[line, error] : cases) {
    auto parsed = parseLlmServeRequest(line);
    ASSERT_FALSE(bool(parsed)) << line;
    EXPECT_EQ(parsed.error.find('\n'), std::string::npos) << parsed.error;
    EXPECT_EQ(parsed.error.rfind(error, 0), 0u) << line << " -> " << parsed.error;
  }
}

TEST(LlmServe, EventsRoundTrip) {
  LlmServeEvent token;
  token.event = "token";
  token.id = "1";
  token.index = 3;
  token.token = 77;
  token.text = "\xE4\xBD"; // half a UTF-8 sequence: replaced, the line still parses
  token.simMs = 0.0123456789;
  token.wallMs = 2.5;
  token.kvUsed = 40;
  std::string line = toJsonLine(token);
  EXPECT_NE(line.find("\"sim_ms\":0.012346,"), std::string::npos) << line;
  auto back = parseLlmServeEvent(line);
  ASSERT_TRUE(bool(back)) << back.error;
  EXPECT_EQ(back.result.event, "token");
  EXPECT_EQ(back.result.index, 3);
  EXPECT_EQ(back.result.token, 77);
  EXPECT_NEAR(back.result.simMs, 0.012346, 1e-9);
  EXPECT_EQ(back.result.kvUsed, 40);
  EXPECT_FALSE(back.result.text.empty());

  LlmServeEvent done;
  done.event = "done";
  done.stop = "eos";
  done.promptTokens = 30;
  done.cachedTokens = 20;
  done.generated = 4;
  done.firstTokenSimMs = 1.5;
  auto d = parseLlmServeEvent(toJsonLine(done));
  ASSERT_TRUE(bool(d)) << d.error;
  EXPECT_EQ(d.result.stop, "eos");
  EXPECT_EQ(d.result.cachedTokens, 20);
  EXPECT_EQ(d.result.generated, 4);
  EXPECT_DOUBLE_EQ(d.result.firstTokenSimMs, 1.5);
  // Only the fields of its kind are written.
  EXPECT_EQ(toJsonLine(done).find("\"sim_ms\""), std::string::npos);

  LlmServeEvent ready;
  ready.event = "ready";
  ready.maxInputLength = 512;
  ready.buckets = {16, 32, 64, 128, 256};
  ready.imageTokens = 256;
  auto r = parseLlmServeEvent(toJsonLine(ready));
  ASSERT_TRUE(bool(r)) << r.error;
  EXPECT_EQ(r.result.buckets, ready.buckets);
  EXPECT_EQ(r.result.imageTokens, 256);
  LlmServeEvent step;
  step.event = "step";
  step.stage = "prefill";
  step.tokens = 20;
  step.stageTokens = 32;
  auto s = parseLlmServeEvent(toJsonLine(step));
  ASSERT_TRUE(bool(s)) << s.error;
  EXPECT_EQ(s.result.stageTokens, 32);
  EXPECT_EQ(parseLlmServeEvent(R"({"event":"ready","buckets":[16,"x"]})").error,
            "'buckets' must be an array of integers");

  EXPECT_FALSE(bool(parseLlmServeEvent("garbage")));
  EXPECT_EQ(parseLlmServeEvent(R"({"id":"1"})").error, "the line has no 'event'");
  EXPECT_EQ(parseLlmServeEvent(R"({"event":"token","index":"x"})").error, "'index' must be an integer");
}

} // namespace
