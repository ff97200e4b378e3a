//===- LlmServeLoop.cpp - `tpuc llm-run --serve`: a chat over JSON lines --===//
//
// The session of LlmSession.h driven by the requests of tpuc/Driver/LlmServe.h. Stdin is read on a thread
// of its own so that a stop line reaches the turn that is running; everything else happens on the caller's
// thread in the order the lines came.
//
//===----------------------------------------------------------------------===//

#include "tpuc/Driver/LlmServe.h"
#include "tpuc/Driver/LlmSession.h"

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

namespace tpuc::driver {
namespace {

/// One line of stdin with its number; `end` marks the end of the input.
struct Line {
  int64_t number = 0;
  ReadResult<LlmServeRequest> request;
  bool end = false;
};

class Server {
public:
  Server(LlmSession &session, const std::function<void(const std::string &)> &out, bool useTemplate)
      : session(session), out(out), useTemplate(useTemplate) {}

  void run(std::istream &in) {
    std::thread reader([&] { read(in); });
    emitReady();
    for (;;) {
      Line line = next();
      if (line.end)
        break;
      try {
        handle(line);
      } catch (const std::exception &e) {
        error(line.request.result.id, std::string("internal error: ") + e.what());
      }
    }
    reader.join();
  }

private:
  LlmSession &session;
  const std::function<void(const std::string &)> &out;
  bool useTemplate;
  std::vector<llm::ChatMessage> conversation;

  std::mutex mutex;
  std::condition_variable ready;
  std::deque<Line> lines;
  /// Chat lines numbered below this are cancelled (set by the reader on a stop line).
  std::atomic<int64_t> stopBefore{0};

  void read(std::istream &in) {
    std::string text;
    int64_t number = 0;
    while (std::getline(in, text)) {
      if (!text.empty() && text.back() == '\r')
        text.pop_back();
      if (text.find_first_not_of(" \t") == std::string::npos)
        continue;
      Line line{++number, parseLlmServeRequest(text), false};
      if (line.request && line.request.result.type == LlmServeRequest::Type::Stop)
        stopBefore.store(line.number);
      push(std::move(line));
    }
    push({++number, {}, true});
  }

  void push(Line line) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      lines.push_back(std::move(line));
    }
    ready.notify_one();
  }

  Line next() {
    std::unique_lock<std::mutex> lock(mutex);
    ready.wait(lock, [&] { return !lines.empty(); });
    Line line = std::move(lines.front());
    lines.pop_front();
    return line;
  }

  void emit(const LlmServeEvent &event) { out(toJsonLine(event)); }

  void error(const std::string &id, const std::string &message) {
    LlmServeEvent e;
    e.event = "error";
    e.id = id;
    e.message = message;
    emit(e);
  }

  void notice(const std::string &id, const std::string &message) {
    LlmServeEvent e;
    e.event = "notice";
    e.id = id;
    e.message = message;
    emit(e);
  }

  void emitReady() {
    const cmdsim::LlmShape &shape = session.shape();
    LlmServeEvent e;
    e.event = "ready";
    e.protocol = std::string(kLlmServeProtocol);
    e.version = kLlmServeVersion;
    e.model = session.modelPath();
    e.chip = session.chipName();
    e.layers = shape.layers;
    e.seqLength = shape.seqLength;
    e.maxInputLength = shape.maxInputLength;
    e.chunkLength = shape.chunkLength;
    e.buckets = shape.buckets;
    e.imageTokens = shape.imageTokens;
    e.sampleCandidates = shape.sampleCandidates;
    e.vocab = shape.vocab;
    emit(e);
  }

  /// Applies the request's settings; false (after an error event) when they are invalid.
  bool applySettings(const LlmServeRequest &r) {
    LlmGeneration g = session.generation();
    if (r.maxNewTokens)
      g.maxNewTokens = *r.maxNewTokens;
    if (r.temperature)
      g.temperature = *r.temperature;
    if (r.topP)
      g.topP = *r.topP;
    if (r.repetitionPenalty)
      g.repetitionPenalty = *r.repetitionPenalty;
    if (r.topK)
      g.topK = *r.topK;
    if (r.greedy && *r.greedy) {
      if (r.topK && *r.topK != 1)
        return error(r.id, "'greedy' true takes top_k 1, not " + std::to_string(*r.topK)), false;
      g.topK = 1;
    } else if (r.greedy && !r.topK && g.topK == 1) {
      // Sampling without a top_k: every candidate of the sample head.
      g.topK = std::max<int64_t>(2, session.shape().sampleCandidates);
    }
    g.seed = r.seed;
    std::string warning;
    if (llvm::Error err = session.setGeneration(g, &warning))
      return error(r.id, llvm::toString(std::move(err))), false;
    if (!warning.empty())
      notice(r.id, warning);
    return true;
  }

  void emitSettings(const std::string &id) {
    LlmGeneration g = session.generation();
    LlmServeEvent e;
    e.event = "settings";
    e.id = id;
    e.maxNewTokens = g.maxNewTokens;
    e.topK = g.topK;
    e.temperature = g.temperature;
    e.topP = g.topP;
    e.repetitionPenalty = g.repetitionPenalty;
    e.seed = g.seed.value_or(0);
    emit(e);
  }

  void resetConversation() {
    conversation.clear();
    session.reset();
  }

  void handle(const Line &line) {
    if (!line.request) {
      error("", line.request.error);
      return;
    }
    const LlmServeRequest &r = line.request.result;
    switch (r.type) {
    case LlmServeRequest::Type::Stop:
      return; // took effect when it was read
    case LlmServeRequest::Type::Reset: {
      resetConversation();
      LlmServeEvent e;
      e.event = "reset";
      e.id = r.id;
      e.kvUsed = session.cacheTokens();
      emit(e);
      return;
    }
    case LlmServeRequest::Type::Settings:
      if (applySettings(r))
        emitSettings(r.id);
      return;
    case LlmServeRequest::Type::Chat:
      if (applySettings(r))
        chat(line.number, r);
      return;
    }
  }

  void chat(int64_t number, const LlmServeRequest &r) {
    if (!session.hasTokenizer()) {
      error(r.id, "the model has no tokenizer.json beside it; chatting needs one");
      return;
    }
    const int64_t seqLength = session.shape().seqLength;
    std::string message = r.message;
    if (!r.image.empty()) {
      double visionMs = 0;
      if (llvm::Error err = session.attachImage(r.image, &visionMs)) {
        error(r.id, llvm::toString(std::move(err)));
        return;
      }
      char line[160];
      std::snprintf(line, sizeof line, "image: %lld image tokens from the vit net, %.3f ms simulated",
                    static_cast<long long>(session.shape().imageTokens), visionMs);
      notice(r.id, line);
      message = session.imagePlaceholder() + message;
    }
    conversation.push_back({"user", message});
    auto prompt = session.encodeTurn(conversation, useTemplate);
    if (prompt && static_cast<int64_t>(prompt->size()) >= seqLength && conversation.size() > 1) {
      notice(r.id, "the conversation exceeds seq_length " + std::to_string(seqLength) +
                       "; starting over from this message");
      conversation = {conversation.back()};
      prompt = session.encodeTurn(conversation, useTemplate);
    }
    if (!prompt) {
      conversation.pop_back();
      error(r.id, llvm::toString(prompt.takeError()));
      return;
    }
    if (static_cast<int64_t>(prompt->size()) >= seqLength) {
      conversation.pop_back();
      error(r.id, "the message is " + std::to_string(prompt->size()) +
                      " tokens with the chat template; seq_length " + std::to_string(seqLength) +
                      " leaves no room for an answer");
      return;
    }
    LlmServeEvent turn;
    turn.event = "turn";
    turn.id = r.id;
    turn.promptTokens = static_cast<int64_t>(prompt->size());
    turn.cachedTokens = session.cachedPrefix(*prompt);
    turn.newTokens = turn.promptTokens - turn.cachedTokens;
    turn.kvUsed = turn.cachedTokens;
    emit(turn);

    Sink sink;
    sink.cancelled = [this, number] { return number < stopBefore.load(); };
    LlmEvents events;
    events.step = [&](const cmdsim::FeedStep &step) {
      LlmServeEvent e;
      e.event = "step";
      e.id = r.id;
      e.stage = cmdsim::stepKindName(step.kind);
      e.position = step.position;
      e.tokens = step.tokens;
      e.stageTokens = step.stageTokens;
      e.simMs = step.simulatedMs;
      e.wallMs = step.wallSeconds * 1000.0;
      e.kvUsed = step.position + step.tokens;
      emit(e);
    };
    events.token = [&](const LlmTokenStep &step) {
      LlmServeEvent e;
      e.event = "token";
      e.id = r.id;
      e.index = step.index;
      e.token = step.token;
      e.text = step.piece;
      e.simMs = step.simulatedMs;
      e.wallMs = step.wallSeconds * 1000.0;
      e.kvUsed = step.cacheTokens;
      emit(e);
    };
    auto answer = session.answer(*prompt, sink, events);
    if (!answer) {
      resetConversation();
      error(r.id, llvm::toString(answer.takeError()) + " (the conversation starts over)");
      return;
    }
    conversation.push_back({"assistant", answer->text});
    LlmServeEvent done;
    done.event = "done";
    done.id = r.id;
    done.stop = answer->stop;
    done.promptTokens = static_cast<int64_t>(answer->prompt.size());
    done.cachedTokens = answer->cachedTokens;
    done.generated = static_cast<int64_t>(answer->tokens.size());
    done.firstTokenSimMs = answer->firstTokenMs;
    done.firstTokenWallMs = answer->firstTokenWall * 1000.0;
    done.decodeTokensPerS = answer->tokensPerSecond();
    done.wallDecodeTokensPerS = answer->wallTokensPerSecond();
    done.kvUsed = session.cacheTokens();
    done.text = answer->text;
    emit(done);
  }
};

} // namespace

void serveLlm(LlmSession &session, std::istream &in, const std::function<void(const std::string &)> &out,
              bool useChatTemplate) {
  Server(session, out, useChatTemplate).run(in);
}

} // namespace tpuc::driver
