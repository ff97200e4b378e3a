//===- Compare.cpp - Per-tensor comparison metrics ------------------------===//

#include "tpuc/Simulator/Compare.h"

#include "tpuc/Support/ArgParser.h"
#include "tpuc/Support/FloatConvert.h"

#include <cmath>
#include <cstring>

namespace tpuc {
namespace {

using Getter = double (*)(const uint8_t *, int64_t);

template <typename T>
double get(const uint8_t *data, int64_t i) {
  T value;
  std::memcpy(&value, data + i * sizeof(T), sizeof(T));
  return static_cast<double>(value);
}
double getF16(const uint8_t *data, int64_t i) {
  return f16ToF32(static_cast<uint16_t>(get<uint16_t>(data, i)));
}
double getBF16(const uint8_t *data, int64_t i) {
  return bf16ToF32(static_cast<uint16_t>(get<uint16_t>(data, i)));
}
double getBool(const uint8_t *data, int64_t i) { return data[i] ? 1.0 : 0.0; }

Getter getterFor(DType type, bool u16AsBF16) {
  switch (type) {
  case DType::F32:
    return get<float>;
  case DType::F64:
    return get<double>;
  case DType::F16:
    return getF16;
  case DType::BF16:
    return getBF16;
  case DType::U16:
    return u16AsBF16 ? getBF16 : get<uint16_t>;
  case DType::I8:
    return get<int8_t>;
  case DType::U8:
    return get<uint8_t>;
  case DType::I16:
    return get<int16_t>;
  case DType::I32:
    return get<int32_t>;
  case DType::U32:
    return get<uint32_t>;
  case DType::I64:
    return get<int64_t>;
  case DType::U64:
    return get<uint64_t>;
  case DType::Bool:
    return getBool;
  }
  return get<float>;
}

bool sameNonFinite(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || (std::isinf(a) && a == b);
}

} // namespace

std::string_view compareStatusName(CompareStatus status) {
  switch (status) {
  case CompareStatus::Equal:
    return "EQUAL";
  case CompareStatus::Close:
    return "CLOSE";
  case CompareStatus::Similar:
    return "SIMILAR";
  case CompareStatus::NotSimilar:
    return "NOT_SIMILAR";
  case CompareStatus::Mismatch:
    return "MISMATCH";
  }
  return "?";
}

bool compareStatusPassed(CompareStatus status) {
  return status == CompareStatus::Equal || status == CompareStatus::Close ||
         status == CompareStatus::Similar;
}

std::optional<CompareTolerance>
CompareTolerance::parse(const std::string &text) {
  std::vector<std::string> items = splitList(text);
  if (items.size() != 2)
    return std::nullopt;
  CompareTolerance tolerance;
  double *fields[] = {&tolerance.cosine, &tolerance.euclidean};
  for (int i = 0; i < 2; ++i) {
    char *end = nullptr;
    *fields[i] = std::strtod(items[i].c_str(), &end);
    if (end != items[i].c_str() + items[i].size() || !std::isfinite(*fields[i]))
      return std::nullopt;
  }
  return tolerance;
}

TensorComparison compareTensors(const Tensor &target, const Tensor &reference,
                                const CompareTolerance &tolerance,
                                std::string name) {
  TensorComparison result;
  result.name = std::move(name);
  result.targetShape = target.shape();
  result.referenceShape = reference.shape();
  result.targetType = target.dtype();
  result.referenceType = reference.dtype();
  CompareMetrics &m = result.metrics;

  const int64_t n = target.numElements();
  if (n != reference.numElements()) {
    result.status = CompareStatus::Mismatch;
    result.note = "shapes " + shapeToString(target.shape()) + " and " +
                  shapeToString(reference.shape()) +
                  " differ in element count";
    return result;
  }
  if (target.shape() != reference.shape())
    result.note = "shapes " + shapeToString(target.shape()) + " and " +
                  shapeToString(reference.shape()) +
                  " differ; compared as flat arrays";
  m.count = n;

  Getter getT = getterFor(target.dtype(), tolerance.u16AsBF16);
  Getter getR = getterFor(reference.dtype(), tolerance.u16AsBF16);
  const uint8_t *pt = target.data();
  const uint8_t *pr = reference.data();

  // Pass 1: equality, non-finite bookkeeping, means and the close order.
  constexpr int kMaxOrder = 5, kMinOrder = 2;
  constexpr double kRtol[kMaxOrder + 1] = {1, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5};
  bool equal = true;
  bool closeAt[kMaxOrder + 1];
  for (bool &c : closeAt)
    c = true;
  int64_t finite = 0;
  double sumR = 0, sumNoise = 0;
  for (int64_t i = 0; i < n; ++i) {
    double t = getT(pt, i), r = getR(pr, i);
    bool tFinite = std::isfinite(t), rFinite = std::isfinite(r);
    m.targetNonFinite += !tFinite;
    m.referenceNonFinite += !rFinite;
    if (!tFinite || !rFinite) {
      if (!sameNonFinite(t, r)) {
        ++m.nonFiniteMismatches;
        equal = false;
      }
      continue;
    }
    ++finite;
    if (t != r)
      equal = false;
    double diff = std::abs(t - r);
    for (int order = kMinOrder; order <= kMaxOrder; ++order)
      if (closeAt[order] && diff > 1e-8 + kRtol[order] * std::abs(r))
        closeAt[order] = false;
    sumR += r;
    sumNoise += t - r;
  }
  for (int order = kMaxOrder; order >= kMinOrder; --order) {
    if (closeAt[order]) {
      m.closeOrder = order;
      break;
    }
  }

  // Pass 2: norms and variances over finite pairs.
  double meanR = finite ? sumR / finite : 0.0;
  double meanNoise = finite ? sumNoise / finite : 0.0;
  double dot = 0, normT = 0, normR = 0, normDiff = 0, normMid = 0;
  double varR = 0, varNoise = 0, sumAbs = 0;
  for (int64_t i = 0; i < n; ++i) {
    double t = getT(pt, i), r = getR(pr, i);
    if (!std::isfinite(t) || !std::isfinite(r))
      continue;
    double diff = t - r, mid = (t + r) / 2;
    dot += t * r;
    normT += t * t;
    normR += r * r;
    normDiff += diff * diff;
    normMid += mid * mid;
    varR += (r - meanR) * (r - meanR);
    varNoise += (diff - meanNoise) * (diff - meanNoise);
    double absDiff = std::abs(diff);
    sumAbs += absDiff;
    if (absDiff > m.maxAbsDiff || m.maxDiffIndex < 0) {
      m.maxAbsDiff = absDiff;
      m.maxDiffIndex = i;
    }
  }
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (normT == 0 || normR == 0)
    m.cosine = (normT == 0 && normR == 0) ? 1.0 : 0.0;
  else
    m.cosine = dot / (std::sqrt(normT) * std::sqrt(normR));
  if (normMid == 0)
    m.euclidean = normDiff == 0 ? 1.0 : -kInf;
  else
    m.euclidean = 1.0 - std::sqrt(normDiff) / std::sqrt(normMid);
  if (varNoise == 0)
    m.sqnr = kInf;
  else if (varR == 0)
    m.sqnr = -kInf;
  else
    m.sqnr = 10.0 * std::log10(varR / varNoise);
  m.meanAbsDiff = finite ? sumAbs / finite : 0.0;

  if (equal) {
    result.status = CompareStatus::Equal;
  } else if (m.nonFiniteMismatches > 0) {
    result.status = CompareStatus::NotSimilar;
    std::string where = std::to_string(m.nonFiniteMismatches) +
                        " position(s) where NaN/Inf values differ";
    result.note = result.note.empty() ? where : result.note + "; " + where;
  } else if (m.closeOrder >= tolerance.closeOrder) {
    result.status = CompareStatus::Close;
  } else if (m.cosine >= tolerance.cosine &&
             m.euclidean >= tolerance.euclidean &&
             m.sqnr >= tolerance.minSqnr) {
    result.status = CompareStatus::Similar;
  } else {
    result.status = CompareStatus::NotSimilar;
  }
  return result;
}

} // namespace tpuc
