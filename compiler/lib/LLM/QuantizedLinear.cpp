//===- QuantizedLinear.cpp - GPTQ/AWQ unpacking and group quantization ----===//

#include "tpuc/LLM/QuantizedLinear.h"

#include "tpuc/Quant/Arith.h"

#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

using namespace tpuc::llm;
using llvm::Expected;
using llvm::StringRef;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static std::string shapeText(llvm::ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

int64_t LinearWeights::valueAt(int64_t row, int64_t col) const {
  if (bits == 8) {
    uint8_t byte = data[row * inFeatures + col];
    return symmetric ? static_cast<int8_t>(byte) : byte;
  }
  uint8_t byte = data[row * ((inFeatures + 1) / 2) + col / 2];
  int nibble = (col % 2 == 0) ? (byte & 0xf) : (byte >> 4);
  return symmetric && nibble >= 8 ? nibble - 16 : nibble;
}

std::vector<float> LinearWeights::dequantize() const {
  if (!quantized)
    return weight;
  int64_t groups = inFeatures / groupSize;
  std::vector<float> out(outFeatures * inFeatures);
  for (int64_t n = 0; n < outFeatures; ++n)
    for (int64_t j = 0; j < inFeatures; ++j) {
      int64_t g = n * groups + j / groupSize;
      float zp = symmetric ? 0.0f : zeroPoints[g];
      int64_t k = inputPermutation.empty() ? j : inputPermutation[j];
      out[n * inFeatures + k] = (static_cast<float>(valueAt(n, j)) - zp) * scales[g];
    }
  return out;
}

namespace {

/// Reads an I32 tensor of a packed layer as uint32 words; errors name the tensor.
Expected<std::vector<uint32_t>> words(const TensorView &view, StringRef name, StringRef what) {
  if (view.dtype() != tpuc::DType::I32 && view.dtype() != tpuc::DType::U32)
    return makeError(name + "." + what + ": expected int32 packed values, got dtype " +
                     safeTensorsDTypeName(view.dtype()));
  std::vector<uint32_t> out(view.numElements());
  auto bytes = view.bytes();
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = uint32_t(bytes[4 * i]) | uint32_t(bytes[4 * i + 1]) << 8 | uint32_t(bytes[4 * i + 2]) << 16 |
             uint32_t(bytes[4 * i + 3]) << 24;
  return out;
}

Expected<bool> checkShape(const TensorView &view, std::vector<int64_t> expected, StringRef name,
                          StringRef what) {
  if (view.shape() != llvm::ArrayRef<int64_t>(expected))
    return makeError(name + "." + what + ": shape " + shapeText(view.shape()) + ", expected " +
                     shapeText(expected));
  return true;
}

/// Stores unsigned value `v` at (n, j) of a16matmul's packed layout.
void store(LinearWeights &w, int64_t n, int64_t j, uint32_t v) {
  if (w.bits == 8) {
    w.data[n * w.inFeatures + j] = static_cast<uint8_t>(v);
    return;
  }
  uint8_t &byte = w.data[n * (w.inFeatures / 2) + j / 2];
  byte = (j % 2 == 0) ? uint8_t((byte & 0xf0) | (v & 0xf)) : uint8_t((byte & 0x0f) | (v & 0xf) << 4);
}

// AWQ's pack order maps nibble i of a word to column kAwqOrder[i] of its 8-column block.
constexpr int kAwqOrder[8] = {0, 2, 4, 6, 1, 3, 5, 7};

} // namespace

Expected<LinearWeights> tpuc::llm::unpackLinear(const PackedLinear &packed, PackedFormat format, int bits,
                                                int64_t groupSize, StringRef name) {
  if (bits != 4 && bits != 8)
    return makeError(name + ": " + llvm::Twine(bits) + "-bit weights are not supported (4 or 8)");
  const int64_t per = 32 / bits;
  const uint32_t mask = (1u << bits) - 1;
  bool awq = format == PackedFormat::AWQ;
  if (awq && bits != 4)
    return makeError(name + ": AWQ GEMM packing is 4-bit only, the config says " + llvm::Twine(bits));
  auto qShape = packed.qweight.shape();
  if (qShape.size() != 2)
    return makeError(name + ".qweight: expected 2-D, got " + shapeText(qShape));
  // GPTQ: [K/per, N]; AWQ: [K, N/per].
  int64_t k = awq ? qShape[0] : qShape[0] * per;
  int64_t n = awq ? qShape[1] * per : qShape[1];
  int64_t group = groupSize <= 0 ? k : groupSize;
  if (k % group != 0)
    return makeError(name + ": group size " + llvm::Twine(group) + " does not divide " + llvm::Twine(k) +
                     " input features");
  int64_t groups = k / group;
  if (awq && n % per)
    return makeError(name + ".qweight: output features not a multiple of " + llvm::Twine(per));
  auto qw = words(packed.qweight, name, "qweight");
  if (!qw)
    return qw.takeError();
  auto qz = words(packed.qzeros, name, "qzeros");
  if (!qz)
    return qz.takeError();
  if (auto ok = checkShape(packed.qzeros, {groups, n / per}, name, "qzeros"); !ok)
    return ok.takeError();
  if (auto ok = checkShape(packed.scales, {groups, n}, name, "scales"); !ok)
    return ok.takeError();
  std::vector<float> scales = packed.scales.toF32();

  // Group of every input channel: g_idx if given (GPTQ act-order), else k / group.
  std::vector<int64_t> groupOf(k);
  for (int64_t i = 0; i < k; ++i)
    groupOf[i] = i / group;
  if (packed.gIdx && !awq) {
    if (auto ok = checkShape(*packed.gIdx, {k}, name, "g_idx"); !ok)
      return ok.takeError();
    std::vector<float> g = packed.gIdx->toF32();
    for (int64_t i = 0; i < k; ++i) {
      auto value = static_cast<int64_t>(g[i]);
      if (value < 0 || value >= groups)
        return makeError(name + ".g_idx: group " + llvm::Twine(value) + " of input channel " +
                         llvm::Twine(i) + " is outside [0, " + llvm::Twine(groups) + ")");
      groupOf[i] = value;
    }
  }
  // Stored column order: channels sorted by group (stable), so groups are contiguous.
  std::vector<int64_t> order(k);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return groupOf[a] < groupOf[b]; });
  bool identity = true;
  for (int64_t j = 0; j < k; ++j) {
    if (groupOf[order[j]] != j / group)
      return makeError(name + ".g_idx: group " + llvm::Twine(groupOf[order[j]]) + " does not hold exactly " +
                       llvm::Twine(group) + " input channels");
    identity &= order[j] == j;
  }

  LinearWeights w;
  w.outFeatures = n;
  w.inFeatures = k;
  w.quantized = true;
  w.bits = bits;
  w.groupSize = group;
  w.symmetric = false;
  w.data.assign(bits == 4 ? n * k / 2 : n * k, 0);
  w.scales.resize(n * groups);
  w.zeroPoints.resize(n * groups);
  if (!identity)
    w.inputPermutation = order;
  if (bits == 4 && k % 2)
    return makeError(name + ": 4-bit weights need an even number of input features");

  auto packedAt = [&](const std::vector<uint32_t> &src, int64_t row, int64_t col, int64_t cols) {
    // Element (row, col) of a matrix packed along its columns.
    int64_t slot = col % per;
    if (awq)
      slot = std::find(kAwqOrder, kAwqOrder + 8, int(slot)) - kAwqOrder;
    return (src[row * (cols / per) + col / per] >> (bits * slot)) & mask;
  };
  uint32_t zeroOffset = format == PackedFormat::GPTQ ? 1 : 0;
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t c = 0; c < n; ++c) {
      w.scales[c * groups + g] = scales[g * n + c];
      uint32_t zero = packedAt(*qz, g, c, n);
      w.zeroPoints[c * groups + g] = static_cast<float>(zero + zeroOffset);
    }
  for (int64_t j = 0; j < k; ++j) {
    int64_t kk = order[j];
    for (int64_t c = 0; c < n; ++c) {
      uint32_t v = awq ? packedAt(*qw, kk, c, n) : ((*qw)[(kk / per) * n + c] >> (bits * (kk % per))) & mask;
      store(w, c, j, v);
    }
  }
  return w;
}

Expected<LinearWeights> tpuc::llm::quantizeLinear(std::vector<float> weight, int64_t outFeatures,
                                                  int64_t inFeatures, int bits, int64_t groupSize,
                                                  bool symmetric, StringRef name) {
  int64_t group = groupSize <= 0 ? inFeatures : groupSize;
  if (inFeatures % group != 0)
    return makeError(name + ": --q_group_size " + llvm::Twine(group) + " does not divide its " +
                     llvm::Twine(inFeatures) + " input features");
  quant::GroupQuantOptions options;
  options.bits = bits;
  options.groupSize = group;
  options.symmetric = symmetric;
  quant::GroupQuantWeights q;
  try {
    q = quant::quantizeWeightsGroupWise(weight, outFeatures, inFeatures, options);
  } catch (const std::invalid_argument &e) {
    return makeError(name + ": " + e.what());
  }
  LinearWeights w;
  w.outFeatures = outFeatures;
  w.inFeatures = inFeatures;
  w.quantized = true;
  w.bits = bits;
  w.groupSize = group;
  w.symmetric = symmetric;
  w.data = std::move(q.data);
  w.scales = std::move(q.scales);
  if (!symmetric)
    w.zeroPoints.assign(q.zeroPoints.begin(), q.zeroPoints.end());
  return w;
}
