//===- LlmRuntime.cpp - The stages of a compiled LLM combined on the simulator ------===//

#include "tpuc/Simulator/LlmRuntime.h"

#include "tpuc/Simulator/CmdExec.h"
#include "tpuc/Simulator/CmdSim.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

namespace tpuc::cmdsim {

namespace {

/// The additive mask value of LlmConvert.h: 0 attends, this does not.
constexpr float kMasked = -10000.0f;

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s;
  for (int64_t d : shape)
    s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

} // namespace

/// One net's runner with its interface.
struct Net {
  std::string name;
  std::unique_ptr<StageRunner> runner;
  const codegen::Stage *stage = nullptr;
};

/// The prefill stages of one --dynamic bucket of `tokens` (LlmConvert.h): embedding_len<b>, block_len<b>_i
/// and, with history KV and b below the chunk, block_kv_len<b>_i.
struct Bucket {
  int64_t tokens = 0;
  Net embedding;
  std::vector<Net> block, blockKv;
};

struct LlmRuntime::Impl {
  const backend::ChipProfile &chip;
  const codegen::Model &model;
  LlmShape shape;
  Net embedding, embeddingCache, lmHead, greedyHead, sampleHead, vit;
  /// The rows of the last image given (setImageRows): its k-th row is for the (imageBase + k)-th image token
  /// of the sequence (the tokens before imageBase were in the cache already, from earlier images).
  int32_t imageToken = -1;
  std::vector<float> imageRows;
  size_t imageBase = 0;
  std::vector<Net> block, blockCache, blockKv;
  /// Ascending, all shorter than maxInputLength.
  std::vector<Bucket> buckets;
  /// The length the last prefill's stages ran at.
  int64_t lastStageTokens = 0;
  /// Per layer: keys and values of seq_length positions, [S, Hkv, D] as the history inputs hold them.
  std::vector<std::vector<float>> keys, values;
  std::vector<int32_t> fed;
  RunTime time;
  std::function<void(const FeedStep &)> observer;
  /// One set of weight decodes for every net: the stages of a layer read the same blobs.
  std::shared_ptr<SharedDecodes> shared = SharedDecodes::create();

  Impl(const backend::ChipProfile &c, const codegen::Model &m) : chip(c), model(m) {}

  int64_t kvRow() const { return shape.kvHeads * shape.headDim; }

  /// Runs `net` on `inputs` (in the order of its inputs) and returns its outputs in order.
  llvm::Expected<std::vector<const Tensor *>> run(Net &net, const std::vector<Tensor> &inputs) {
    const codegen::Stage &st = *net.stage;
    for (size_t i = 0; i < st.inputs.size(); ++i)
      if (auto err = net.runner->setInput(st.inputs[i].name, inputs[i]))
        return makeError(net.name + ": " + llvm::toString(std::move(err)));
    auto start = std::chrono::steady_clock::now();
    if (auto err = net.runner->run())
      return makeError(net.name + ": " + llvm::toString(std::move(err)));
    time.wallSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    time.simulatedMs += latencyMs(chip, net.runner->stats().timing.totalCycles);
    ++time.stageRuns;
    std::vector<const Tensor *> outs;
    for (const codegen::TensorDesc &d : st.outputs)
      outs.push_back(&net.runner->outputs().get(d.name));
    return outs;
  }

  static Tensor f32(std::vector<int64_t> shape, std::vector<float> data) {
    return Tensor::fromValues<float>(std::move(shape), data);
  }
  static Tensor i32(std::vector<int64_t> shape, std::vector<int32_t> data) {
    return Tensor::fromValues<int32_t>(std::move(shape), data);
  }
  static std::vector<float> floats(const Tensor &t) {
    std::vector<double> d = t.toDoubles();
    return std::vector<float>(d.begin(), d.end());
  }

  llvm::Error checkTokens(llvm::ArrayRef<int32_t> tokens) const {
    for (int32_t t : tokens)
      if (t < 0 || t >= shape.vocab)
        return makeError("token id " + std::to_string(t) + " is outside the vocabulary (" +
                         std::to_string(shape.vocab) + " tokens)");
    if (position() + static_cast<int64_t>(tokens.size()) > shape.seqLength)
      return makeError("the context is full: " + std::to_string(position()) + " tokens held + " +
                       std::to_string(tokens.size()) + " new exceed seq_length " + std::to_string(shape.seqLength));
    return llvm::Error::success();
  }

  int64_t position() const { return static_cast<int64_t>(fed.size()); }

  /// Tells the observer about `step`, timed since `before`.
  void notify(FeedStep step, const RunTime &before) {
    if (!observer)
      return;
    step.simulatedMs = time.simulatedMs - before.simulatedMs;
    step.wallSeconds = time.wallSeconds - before.wallSeconds;
    step.stageRuns = time.stageRuns - before.stageRuns;
    observer(step);
  }

  /// Embeds `tokens` (padded to `length` with token 0) through `net`: hidden [1, length, H].
  llvm::Expected<std::vector<float>> embed(Net &net, llvm::ArrayRef<int32_t> tokens, int64_t length) {
    std::vector<int32_t> ids(length, 0);
    std::copy(tokens.begin(), tokens.end(), ids.begin());
    auto outs = run(net, {i32({1, length}, ids)});
    if (!outs)
      return outs.takeError();
    std::vector<float> hidden = floats(*(*outs)[0]);
    if (imageToken < 0)
      return hidden;
    // Image tokens take the image's rows by their rank in the sequence: the cache's come first.
    size_t seen = static_cast<size_t>(std::count(fed.begin(), fed.end(), imageToken));
    const size_t row = static_cast<size_t>(shape.hidden), rows = imageRows.size() / std::max<size_t>(row, 1);
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (tokens[i] != imageToken)
        continue;
      size_t k = seen++;
      if (k < imageBase || k - imageBase >= rows)
        return makeError("image token " + std::to_string(k + 1) + " of the sequence (id " +
                         std::to_string(imageToken) + ") has no image row: the image gives " +
                         std::to_string(rows) + " rows for tokens " + std::to_string(imageBase + 1) + ".." +
                         std::to_string(imageBase + rows));
      std::copy(imageRows.begin() + (k - imageBase) * row, imageRows.begin() + (k - imageBase + 1) * row,
                hidden.begin() + i * row);
    }
    return hidden;
  }

  /// Stores k / v rows [n, Hkv, D] of `out` (a stage's key / value output) at positions p0.. of layer l.
  void store(size_t l, const Tensor &k, const Tensor &v, int64_t p0, int64_t n) {
    std::vector<float> kf = floats(k), vf = floats(v);
    int64_t row = kvRow();
    std::copy(kf.begin(), kf.begin() + n * row, keys[l].begin() + p0 * row);
    std::copy(vf.begin(), vf.begin() + n * row, values[l].begin() + p0 * row);
  }

  /// The positions p0, p0 + 1, ... of `length` tokens.
  static Tensor positions(int64_t p0, int64_t length) {
    std::vector<int32_t> p(length);
    for (int64_t i = 0; i < length; ++i)
      p[i] = static_cast<int32_t>(p0 + i);
    return i32({1, length}, p);
  }

  /// Prefill of `tokens` (at most maxInputLength, cache empty or not) through block_i when the cache is
  /// empty, else through block_kv_i: the hidden state of the last token [H].
  llvm::Expected<std::vector<float>> prefill(llvm::ArrayRef<int32_t> tokens, bool withHistory) {
    int64_t n = static_cast<int64_t>(tokens.size()), p0 = position(), S = shape.seqLength;
    int64_t L = withHistory ? shape.chunkLength : shape.maxInputLength;
    Net *embeddingNet = &embedding;
    std::vector<Net> *blocks = withHistory ? &blockKv : &block;
    for (Bucket &b : buckets)
      if (b.tokens >= n && b.tokens < L && (!withHistory || !b.blockKv.empty())) {
        L = b.tokens;
        embeddingNet = &b.embedding;
        blocks = withHistory ? &b.blockKv : &b.block;
        break;
      }
    lastStageTokens = L;
    auto hidden = embed(*embeddingNet, tokens, L);
    if (!hidden)
      return hidden.takeError();
    std::vector<float> x = std::move(*hidden);
    // Own columns: causal; with history, columns [0, S) are the cache, attended below position p0.
    int64_t columns = withHistory ? S + L : L, own = withHistory ? S : 0;
    std::vector<float> mask(L * columns, kMasked);
    for (int64_t i = 0; i < L; ++i) {
      if (withHistory)
        std::fill(mask.begin() + i * columns, mask.begin() + i * columns + p0, 0.0f);
      for (int64_t j = 0; j <= i; ++j)
        mask[i * columns + own + j] = 0.0f;
    }
    Tensor maskT = f32({1, 1, L, columns}, mask), pos = positions(p0, L);
    for (size_t l = 0; l < static_cast<size_t>(shape.layers); ++l) {
      std::vector<Tensor> inputs = {f32({1, L, shape.hidden}, x), pos, maskT};
      if (withHistory) {
        inputs.push_back(f32({1, S, shape.kvHeads, shape.headDim}, keys[l]));
        inputs.push_back(f32({1, S, shape.kvHeads, shape.headDim}, values[l]));
      }
      auto outs = run((*blocks)[l], inputs);
      if (!outs)
        return outs.takeError();
      x = floats(*(*outs)[0]);
      store(l, *(*outs)[1], *(*outs)[2], p0, n);
    }
    fed.insert(fed.end(), tokens.begin(), tokens.end());
    return std::vector<float>(x.begin() + (n - 1) * shape.hidden, x.begin() + n * shape.hidden);
  }

  /// One token through block_cache_i: its hidden state [H].
  llvm::Expected<std::vector<float>> decode(int32_t token) {
    int64_t p = position(), S = shape.seqLength;
    auto hidden = embed(embeddingCache, {token}, 1);
    if (!hidden)
      return hidden.takeError();
    std::vector<float> x = std::move(*hidden);
    std::vector<float> mask(S + 1, kMasked);
    std::fill(mask.begin(), mask.begin() + p, 0.0f);
    mask[S] = 0.0f;
    Tensor maskT = f32({1, 1, 1, S + 1}, mask), pos = positions(p, 1);
    for (size_t l = 0; l < static_cast<size_t>(shape.layers); ++l) {
      auto outs = run(blockCache[l], {f32({1, 1, shape.hidden}, x), pos, maskT,
                                      f32({1, S, shape.kvHeads, shape.headDim}, keys[l]),
                                      f32({1, S, shape.kvHeads, shape.headDim}, values[l])});
      if (!outs)
        return outs.takeError();
      x = floats(*(*outs)[0]);
      store(l, *(*outs)[1], *(*outs)[2], p, 1);
    }
    fed.push_back(token);
    return x;
  }

  llvm::Expected<std::vector<float>> logits(const std::vector<float> &hidden) {
    auto outs = run(lmHead, {f32({1, shape.hidden}, hidden)});
    if (!outs)
      return outs.takeError();
    return floats(*(*outs)[0]);
  }

  llvm::Error discover();
};

namespace {

/// Index of the net called `name`, or -1.
int findNet(const codegen::Model &model, const std::string &name) {
  for (size_t i = 0; i < model.nets.size(); ++i)
    if (model.nets[i].name == name)
      return static_cast<int>(i);
  return -1;
}

} // namespace

llvm::Error LlmRuntime::Impl::discover() {
  auto bind = [&](Net &net, const std::string &name, size_t inputs, size_t outputs, bool required) -> llvm::Error {
    int index = findNet(model, name);
    if (index < 0)
      return required ? makeError("the model has no net '" + name + "' (is it an LLM compiled by llm-convert?)")
                      : llvm::Error::success();
    const codegen::Net &n = model.nets[index];
    if (n.stages.size() != 1)
      return makeError("net '" + name + "' has " + std::to_string(n.stages.size()) + " stages, expected 1");
    net.name = name;
    net.stage = &n.stages[0];
    if (net.stage->inputs.size() != inputs || net.stage->outputs.size() != outputs)
      return makeError("net '" + name + "' has " + std::to_string(net.stage->inputs.size()) + " inputs and " +
                       std::to_string(net.stage->outputs.size()) + " outputs, expected " + std::to_string(inputs) +
                       " and " + std::to_string(outputs));
    net.runner = std::make_unique<StageRunner>(chip, model, static_cast<size_t>(index), 0, shared);
    return llvm::Error::success();
  };
  auto dims = [](const Net &net, bool input, size_t i) -> const std::vector<int64_t> & {
    return (input ? net.stage->inputs : net.stage->outputs)[i].shape;
  };
  auto expect = [](const Net &net, bool input, size_t i, const std::vector<int64_t> &want) -> llvm::Error {
    const codegen::TensorDesc &d = (input ? net.stage->inputs : net.stage->outputs)[i];
    if (d.shape != want)
      return makeError("net '" + net.name + "': " + (input ? "input" : "output") + " '" + d.name + "' has shape " +
                       shapeText(d.shape) + ", expected " + shapeText(want));
    return llvm::Error::success();
  };
  if (auto err = bind(embeddingCache, "embedding_cache", 1, 1, true))
    return err;
  if (auto err = bind(lmHead, "lm_head", 1, 1, true))
    return err;
  if (auto err = bind(greedyHead, "greedy_head", 1, 1, false))
    return err;
  if (auto err = bind(sampleHead, "sample_head", 5, 2, false))
    return err;
  if (auto err = bind(vit, "vit", 1, 1, false))
    return err;
  if (!greedyHead.runner && !sampleHead.runner)
    return makeError("the model has neither 'greedy_head' nor 'sample_head'");
  while (findNet(model, "block_cache_" + std::to_string(shape.layers)) >= 0)
    ++shape.layers;
  if (shape.layers == 0)
    return makeError("the model has no net 'block_cache_0' (is it an LLM compiled by llm-convert?)");
  const auto &out = dims(embeddingCache, false, 0);
  if (out.size() != 3)
    return makeError("net 'embedding_cache': output has shape " + shapeText(out) + ", expected 1x1xH");
  shape.hidden = out[2];
  shape.vocab = dims(lmHead, false, 0).back();
  block.resize(shape.layers);
  blockCache.resize(shape.layers);
  blockKv.resize(shape.layers);
  for (int64_t l = 0; l < shape.layers; ++l) {
    std::string i = std::to_string(l);
    if (auto err = bind(blockCache[l], "block_cache_" + i, 5, 3, true))
      return err;
    if (l == 0) {
      const auto &h = dims(blockCache[0], true, 3);
      if (h.size() != 4)
        return makeError("net 'block_cache_0': history_k has shape " + shapeText(h) + ", expected 1xSxHkvxD");
      shape.seqLength = h[1];
      shape.kvHeads = h[2];
      shape.headDim = h[3];
    }
    int64_t S = shape.seqLength, H = shape.hidden;
    for (auto [idx, want] : {std::pair<size_t, std::vector<int64_t>>{0, {1, 1, H}}, {1, {1, 1}},
                             {2, {1, 1, 1, S + 1}}, {3, {1, S, shape.kvHeads, shape.headDim}},
                             {4, {1, S, shape.kvHeads, shape.headDim}}})
      if (auto err = expect(blockCache[l], true, idx, want))
        return err;
    if (auto err = bind(block[l], "block_" + i, 3, 3, l > 0 && block[0].runner))
      return err;
    if (auto err = bind(blockKv[l], "block_kv_" + i, 5, 3, l > 0 && blockKv[0].runner))
      return err;
  }
  if (block[0].runner) {
    if (auto err = bind(embedding, "embedding", 1, 1, true))
      return err;
    shape.maxInputLength = dims(embedding, true, 0).back();
    for (int64_t l = 0; l < shape.layers; ++l)
      if (auto err = expect(block[l], true, 2, {1, 1, shape.maxInputLength, shape.maxInputLength}))
        return err;
  }
  if (blockKv[0].runner) {
    shape.chunkLength = dims(blockKv[0], true, 0)[1];
    if (!block[0].runner || shape.chunkLength != shape.maxInputLength)
      return makeError("net 'block_kv_0' takes chunks of " + std::to_string(shape.chunkLength) +
                       " tokens but the embedding takes " + std::to_string(shape.maxInputLength));
    for (int64_t l = 0; l < shape.layers; ++l)
      if (auto err = expect(blockKv[l], true, 2,
                            {1, 1, shape.chunkLength, shape.seqLength + shape.chunkLength}))
        return err;
  }
  // --dynamic buckets: every embedding_len<b> with its blocks for each layer.
  for (const codegen::Net &n : model.nets) {
    llvm::StringRef rest(n.name);
    int64_t tokens = 0;
    if (!rest.consume_front("embedding_len") || rest.getAsInteger(10, tokens) || tokens <= 0)
      continue;
    if (!block[0].runner || tokens >= shape.maxInputLength)
      return makeError("net '" + n.name + "' is a prefill bucket of " + std::to_string(tokens) +
                       " tokens, but the model's prefill takes " + std::to_string(shape.maxInputLength));
    Bucket &b = buckets.emplace_back();
    b.tokens = tokens;
    if (auto err = bind(b.embedding, n.name, 1, 1, true))
      return err;
    if (auto err = expect(b.embedding, true, 0, {1, tokens}))
      return err;
    bool history = blockKv[0].runner && tokens < shape.chunkLength;
    b.block.resize(shape.layers);
    if (history)
      b.blockKv.resize(shape.layers);
    for (int64_t l = 0; l < shape.layers; ++l) {
      std::string i = std::to_string(l), len = std::to_string(tokens);
      if (auto err = bind(b.block[l], "block_len" + len + "_" + i, 3, 3, true))
        return err;
      if (auto err = expect(b.block[l], true, 2, {1, 1, tokens, tokens}))
        return err;
      if (!history)
        continue;
      if (auto err = bind(b.blockKv[l], "block_kv_len" + len + "_" + i, 5, 3, true))
        return err;
      if (auto err = expect(b.blockKv[l], true, 2, {1, 1, tokens, shape.seqLength + tokens}))
        return err;
    }
  }
  std::sort(buckets.begin(), buckets.end(),
            [](const Bucket &a, const Bucket &b) { return a.tokens < b.tokens; });
  if (vit.runner) {
    const auto &in = dims(vit, true, 0), &out = dims(vit, false, 0);
    if (in.size() != 4 || in[0] != 1 || in[1] != 3 || in[2] != in[3] || out.size() != 3 ||
        out[2] != shape.hidden)
      return makeError("net 'vit': takes " + shapeText(in) + " and gives " + shapeText(out) +
                       ", expected 1x3xSxS pixels and 1xTx" + std::to_string(shape.hidden) + " image rows");
    shape.imageSize = in[2];
    shape.imageTokens = out[1];
  }
  for (const Bucket &b : buckets)
    shape.buckets.push_back(b.tokens);
  if (sampleHead.runner) {
    shape.sampleCandidates = dims(sampleHead, false, 1).back();
    if (auto err = expect(sampleHead, true, 1, {1, shape.seqLength}))
      return err;
  }
  keys.assign(shape.layers, std::vector<float>(shape.seqLength * kvRow(), 0.0f));
  values = keys;
  return llvm::Error::success();
}

LlmRuntime::LlmRuntime(std::unique_ptr<Impl> i) : impl(std::move(i)) {}
LlmRuntime::~LlmRuntime() = default;

llvm::Expected<std::unique_ptr<LlmRuntime>> LlmRuntime::create(const backend::ChipProfile &chip,
                                                               const codegen::Model &model) {
  auto impl = std::make_unique<Impl>(chip, model);
  if (auto err = impl->discover())
    return std::move(err);
  return std::unique_ptr<LlmRuntime>(new LlmRuntime(std::move(impl)));
}

const LlmShape &LlmRuntime::shape() const { return impl->shape; }
int64_t LlmRuntime::position() const { return impl->position(); }
const std::vector<int32_t> &LlmRuntime::tokens() const { return impl->fed; }

void LlmRuntime::reset() {
  impl->fed.clear();
  for (auto *cache : {&impl->keys, &impl->values})
    for (auto &layer : *cache)
      std::fill(layer.begin(), layer.end(), 0.0f);
}

void LlmRuntime::truncate(int64_t count) {
  if (count >= 0 && count < impl->position())
    impl->fed.resize(static_cast<size_t>(count));
}

void LlmRuntime::setStepObserver(std::function<void(const FeedStep &)> observer) {
  impl->observer = std::move(observer);
}

const char *stepKindName(StepKind kind) {
  switch (kind) {
  case StepKind::Prefill:
    return "prefill";
  case StepKind::PrefillKv:
    return "prefill_kv";
  case StepKind::Decode:
    return "decode";
  }
  return "decode";
}

llvm::Expected<std::vector<float>> LlmRuntime::feed(llvm::ArrayRef<int32_t> tokens, FeedMode mode) {
  Impl &m = *impl;
  if (tokens.empty())
    return makeError("no tokens to feed");
  if (auto err = m.checkTokens(tokens))
    return std::move(err);
  std::vector<float> hidden;
  size_t i = 0;
  while (i < tokens.size()) {
    size_t left = tokens.size() - i;
    llvm::Expected<std::vector<float>> h = std::vector<float>();
    FeedStep step;
    step.position = m.position();
    RunTime before = m.time;
    if (mode == FeedMode::Auto && m.position() == 0 && m.block[0].runner) {
      size_t n = std::min<size_t>(left, m.shape.maxInputLength);
      step.kind = StepKind::Prefill;
      step.tokens = static_cast<int64_t>(n);
      h = m.prefill(tokens.slice(i, n), /*withHistory=*/false);
      i += n;
      step.stageTokens = m.lastStageTokens;
    } else if (mode == FeedMode::Auto && m.blockKv[0].runner && left > 1) {
      size_t n = std::min<size_t>(left, m.shape.chunkLength);
      step.kind = StepKind::PrefillKv;
      step.tokens = static_cast<int64_t>(n);
      h = m.prefill(tokens.slice(i, n), /*withHistory=*/true);
      i += n;
      step.stageTokens = m.lastStageTokens;
    } else {
      step.kind = StepKind::Decode;
      step.tokens = 1;
      step.stageTokens = 1;
      h = m.decode(tokens[i]);
      i += 1;
    }
    if (!h)
      return h.takeError();
    hidden = std::move(*h);
    m.notify(step, before);
  }
  return m.logits(hidden);
}

llvm::Expected<std::vector<float>> LlmRuntime::recompute(llvm::ArrayRef<int32_t> tokens) {
  Impl &m = *impl;
  if (!m.block[0].runner)
    return makeError("recomputing needs the block_ prefill stages");
  if (tokens.empty() || static_cast<int64_t>(tokens.size()) > m.shape.maxInputLength)
    return makeError("recomputing takes 1 to " + std::to_string(m.shape.maxInputLength) + " tokens (max_input_length), got " +
                     std::to_string(tokens.size()));
  reset();
  if (auto err = m.checkTokens(tokens))
    return std::move(err);
  RunTime before = m.time;
  auto h = m.prefill(tokens, false);
  if (!h)
    return h.takeError();
  m.notify({StepKind::Prefill, 0, static_cast<int64_t>(tokens.size()), m.lastStageTokens}, before);
  return m.logits(*h);
}

llvm::Expected<int32_t> LlmRuntime::choose(const std::vector<float> &logits, const Sampling &s,
                                           std::mt19937_64 &rng) {
  Impl &m = *impl;
  if (static_cast<int64_t>(logits.size()) != m.shape.vocab)
    return makeError("logits have " + std::to_string(logits.size()) + " values, expected " +
                     std::to_string(m.shape.vocab));
  Tensor l = Impl::f32({1, m.shape.vocab}, logits);
  bool greedy = s.topK == 1 && s.repetitionPenalty == 1.0;
  if (greedy && m.greedyHead.runner) {
    auto outs = m.run(m.greedyHead, {l});
    if (!outs)
      return outs.takeError();
    return static_cast<int32_t>(std::lround((*outs)[0]->valueAsDouble(0)));
  }
  if (!m.sampleHead.runner)
    return makeError("sampling needs the 'sample_head' net");
  // The ids so far, padded with -1 (ignored by the penalty), the most recent seq_length of them.
  std::vector<int32_t> ids(m.shape.seqLength, -1);
  size_t n = std::min<size_t>(m.fed.size(), ids.size());
  std::copy(m.fed.end() - n, m.fed.end(), ids.begin());
  auto outs = m.run(m.sampleHead, {l, Impl::i32({1, m.shape.seqLength}, ids), Impl::f32({1}, {float(s.topP)}),
                                   Impl::f32({1}, {float(s.temperature)}),
                                   Impl::f32({1}, {float(s.repetitionPenalty)})});
  if (!outs)
    return outs.takeError();
  std::vector<float> probs = Impl::floats(*(*outs)[0]), candidates = Impl::floats(*(*outs)[1]);
  size_t k = std::min<size_t>(std::max<int64_t>(s.topK, 1), probs.size());
  if (k == 1)
    return static_cast<int32_t>(std::lround(candidates[0]));
  std::vector<double> weights(probs.begin(), probs.begin() + k);
  double total = 0;
  for (double w : weights)
    total += w;
  if (!(total > 0))
    return static_cast<int32_t>(std::lround(candidates[0]));
  std::discrete_distribution<size_t> draw(weights.begin(), weights.end());
  return static_cast<int32_t>(std::lround(candidates[draw(rng)]));
}

llvm::Expected<std::vector<float>> LlmRuntime::encodeImage(llvm::ArrayRef<float> pixels) {
  Impl &m = *impl;
  if (!m.vit.runner)
    return makeError("the model has no 'vit' net (it is not a vision-language model)");
  int64_t side = m.shape.imageSize;
  if (static_cast<int64_t>(pixels.size()) != 3 * side * side)
    return makeError("the image has " + std::to_string(pixels.size()) + " values, the vit net takes 1x3x" +
                     std::to_string(side) + "x" + std::to_string(side));
  auto outs = m.run(m.vit, {Impl::f32({1, 3, side, side}, std::vector<float>(pixels.begin(), pixels.end()))});
  if (!outs)
    return outs.takeError();
  return Impl::floats(*(*outs)[0]);
}

void LlmRuntime::setImageRows(int32_t imageToken, std::vector<float> rows) {
  impl->imageToken = imageToken;
  impl->imageRows = std::move(rows);
  impl->imageBase = static_cast<size_t>(std::count(impl->fed.begin(), impl->fed.end(), imageToken));
}

RunTime LlmRuntime::takeTime() {
  RunTime t = impl->time;
  impl->time = RunTime();
  return t;
}

} // namespace tpuc::cmdsim
