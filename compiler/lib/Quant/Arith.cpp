//===- Arith.cpp - The integer arithmetic of quantization -----------------===//

#include "tpuc/Quant/Arith.h"

#include "tpuc/Support/FloatConvert.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>

namespace tpuc::quant {

using Int128 = __int128;

//===----------------------------------------------------------------------===//
// Rounding and saturation
//===----------------------------------------------------------------------===//

std::string_view roundingModeName(RoundingMode mode) {
  switch (mode) {
  case RoundingMode::HalfAwayFromZero:
    return "half_away_from_zero";
  case RoundingMode::HalfToEven:
    return "half_to_even";
  case RoundingMode::HalfUp:
    return "half_up";
  case RoundingMode::TowardZero:
    return "toward_zero";
  case RoundingMode::Down:
    return "down";
  case RoundingMode::Up:
    return "up";
  }
  return "half_away_from_zero";
}

std::optional<RoundingMode> parseRoundingMode(std::string_view name) {
  for (RoundingMode mode : kAllRoundingModes)
    if (roundingModeName(mode) == name)
      return mode;
  return std::nullopt;
}

int64_t intMin(IntType type) {
  switch (type) {
  case IntType::Int4:
    return -8;
  case IntType::Int8:
    return -128;
  case IntType::Int16:
    return -32768;
  case IntType::Int32:
    return std::numeric_limits<int32_t>::min();
  case IntType::UInt4:
  case IntType::UInt8:
  case IntType::UInt16:
    return 0;
  }
  return 0;
}

int64_t intMax(IntType type) {
  switch (type) {
  case IntType::Int4:
    return 7;
  case IntType::UInt4:
    return 15;
  case IntType::Int8:
    return 127;
  case IntType::UInt8:
    return 255;
  case IntType::Int16:
    return 32767;
  case IntType::UInt16:
    return 65535;
  case IntType::Int32:
    return std::numeric_limits<int32_t>::max();
  }
  return 0;
}

int bitWidth(IntType type) {
  switch (type) {
  case IntType::Int4:
  case IntType::UInt4:
    return 4;
  case IntType::Int8:
  case IntType::UInt8:
    return 8;
  case IntType::Int16:
  case IntType::UInt16:
    return 16;
  case IntType::Int32:
    return 32;
  }
  return 0;
}

bool isSigned(IntType type) { return intMin(type) < 0; }

int64_t saturate(int64_t value, IntType type) {
  return std::clamp(value, intMin(type), intMax(type));
}

int8_t saturateToInt8(int64_t value) {
  return static_cast<int8_t>(saturate(value, IntType::Int8));
}
uint8_t saturateToUInt8(int64_t value) {
  return static_cast<uint8_t>(saturate(value, IntType::UInt8));
}
int16_t saturateToInt16(int64_t value) {
  return static_cast<int16_t>(saturate(value, IntType::Int16));
}
int32_t saturateToInt32(int64_t value) {
  return static_cast<int32_t>(saturate(value, IntType::Int32));
}

int64_t roundToInt(double value, RoundingMode mode) {
  if (std::isnan(value))
    return 0;
  double floorValue = std::floor(value);
  // Exact: for |value| < 2^52 the fraction is representable, above it is 0.
  double fraction = value - floorValue;
  bool up = false;
  switch (mode) {
  case RoundingMode::Down:
    break;
  case RoundingMode::Up:
    up = fraction > 0;
    break;
  case RoundingMode::TowardZero:
    up = value < 0 && fraction > 0;
    break;
  case RoundingMode::HalfUp:
    up = fraction >= 0.5;
    break;
  case RoundingMode::HalfAwayFromZero:
    up = fraction > 0.5 || (fraction == 0.5 && value > 0);
    break;
  case RoundingMode::HalfToEven:
    up = fraction > 0.5 ||
         (fraction == 0.5 && std::fmod(floorValue, 2.0) != 0.0);
    break;
  }
  double rounded = up ? floorValue + 1.0 : floorValue;
  // 2^63 is exactly representable; everything at or beyond it saturates.
  constexpr double kTwo63 = 9223372036854775808.0;
  if (rounded >= kTwo63)
    return std::numeric_limits<int64_t>::max();
  if (rounded <= -kTwo63)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(rounded);
}

/// round(value / 2^shift) for a 128-bit value, shift in 0..63.
static Int128 roundShift(Int128 value, int shift, RoundingMode mode) {
  if (shift <= 0)
    return value;
  Int128 quotient = value >> shift; // Arithmetic: floor division.
  Int128 remainder = value - (quotient << shift);
  Int128 half = Int128(1) << (shift - 1);
  bool up = false;
  switch (mode) {
  case RoundingMode::Down:
    break;
  case RoundingMode::Up:
    up = remainder != 0;
    break;
  case RoundingMode::TowardZero:
    up = value < 0 && remainder != 0;
    break;
  case RoundingMode::HalfUp:
    up = remainder >= half;
    break;
  case RoundingMode::HalfAwayFromZero:
    up = remainder > half || (remainder == half && value > 0);
    break;
  case RoundingMode::HalfToEven:
    up = remainder > half || (remainder == half && (quotient & 1) != 0);
    break;
  }
  return up ? quotient + 1 : quotient;
}

static int64_t clampToInt64(Int128 value) {
  if (value > Int128(std::numeric_limits<int64_t>::max()))
    return std::numeric_limits<int64_t>::max();
  if (value < Int128(std::numeric_limits<int64_t>::min()))
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(value);
}

int64_t roundingRightShift(int64_t value, int shift, RoundingMode mode) {
  assert(shift >= 0 && shift <= 63 && "shift out of range");
  return clampToInt64(roundShift(value, shift, mode));
}

//===----------------------------------------------------------------------===//
// Float <-> integer
//===----------------------------------------------------------------------===//

int64_t quantize(double x, QuantParams params, IntType type,
                 RoundingMode mode) {
  if (std::isnan(x))
    return saturate(params.zeroPoint, type);
  int64_t q = roundToInt(x / params.scale, mode);
  // Saturate before adding the zero point so the sum cannot overflow.
  q = std::clamp<int64_t>(q, -(int64_t(1) << 40), int64_t(1) << 40);
  return saturate(q + params.zeroPoint, type);
}

double dequantize(int64_t q, QuantParams params) {
  return static_cast<double>(q - params.zeroPoint) * params.scale;
}

std::vector<int8_t> quantizeToInt8(std::span<const float> values,
                                   QuantParams params, RoundingMode mode) {
  std::vector<int8_t> out(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    out[i] =
        static_cast<int8_t>(quantize(values[i], params, IntType::Int8, mode));
  return out;
}

std::vector<float> dequantizeInt8(std::span<const int8_t> values,
                                  QuantParams params) {
  std::vector<float> out(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    out[i] = static_cast<float>(dequantize(values[i], params));
  return out;
}

QuantParams symmetricParams(double threshold, IntType type) {
  double th = threshold > kMinThreshold ? threshold : kMinThreshold;
  return {th / static_cast<double>(intMax(type)), 0};
}

QuantParams asymmetricParams(double min, double max, IntType type) {
  double lo = std::min(min, 0.0), hi = std::max(max, 0.0);
  if (!(hi - lo >= kMinThreshold)) {
    if (hi > 0 || lo == 0)
      hi = lo + kMinThreshold;
    else
      lo = hi - kMinThreshold;
  }
  double qmin = static_cast<double>(intMin(type));
  double qmax = static_cast<double>(intMax(type));
  double scale = (hi - lo) / (qmax - qmin);
  int64_t zp = saturate(
      roundToInt(qmin - lo / scale, RoundingMode::HalfAwayFromZero), type);
  return {scale, zp};
}

//===----------------------------------------------------------------------===//
// Multiplier and shift
//===----------------------------------------------------------------------===//

double MultiplierShift::value() const {
  return std::ldexp(static_cast<double>(multiplier), -static_cast<int>(rshift));
}

std::optional<MultiplierShift> chooseMultiplierShift(double scale,
                                                     int multiplierBits) {
  if (multiplierBits < 1 || multiplierBits > 31 || !std::isfinite(scale))
    return std::nullopt;
  if (scale == 0)
    return MultiplierShift{0, 0};
  double magnitude = std::fabs(scale);
  const int64_t limit = int64_t(1) << multiplierBits; // multiplier < limit
  int exponent = 0;
  std::frexp(magnitude, &exponent); // magnitude = m * 2^exponent, m in [.5,1)
  // With rshift = bits - exponent, magnitude * 2^rshift lies in [2^(bits-1),
  // 2^bits): the widest multiplier that fits.
  int shift = multiplierBits - exponent;
  if (shift < 0)
    return std::nullopt;
  shift = std::min(shift, 63);
  int64_t multiplier = std::llround(std::ldexp(magnitude, shift));
  if (multiplier >= limit) { // Rounded up to 2^bits: one bit less of shift.
    if (shift == 0)
      return std::nullopt;
    --shift;
    multiplier = std::llround(std::ldexp(magnitude, shift));
  }
  return MultiplierShift{scale < 0 ? -multiplier : multiplier, shift};
}

std::optional<SharedShift> chooseSharedShift(std::span<const double> factors, int multiplierBits) {
  double largest = 0;
  for (double f : factors) {
    if (!std::isfinite(f))
      return std::nullopt;
    largest = std::max(largest, std::fabs(f));
  }
  auto ms = chooseMultiplierShift(largest, multiplierBits);
  if (!ms)
    return std::nullopt;
  SharedShift shared;
  shared.rshift = ms->rshift;
  for (double f : factors)
    shared.multipliers.push_back(
        roundToInt(std::ldexp(f, static_cast<int>(ms->rshift)), RoundingMode::HalfAwayFromZero));
  return shared;
}

int64_t applyMultiplierShift(int64_t acc, int64_t multiplier, int64_t rshift,
                             RoundingMode mode) {
  assert(rshift >= 0 && rshift <= 63 && "rshift out of range");
  Int128 product = Int128(acc) * Int128(multiplier);
  return clampToInt64(roundShift(product, static_cast<int>(rshift), mode));
}

int64_t requantize(int64_t acc, MultiplierShift ms, int64_t zpOut,
                   IntType type, RoundingMode mode) {
  int64_t scaled = applyMultiplierShift(acc, ms, mode);
  scaled = std::clamp<int64_t>(scaled, -(int64_t(1) << 40), int64_t(1) << 40);
  return saturate(scaled + zpOut, type);
}

int64_t requantizeInt(int64_t x, int64_t zpIn, MultiplierShift ms,
                      int64_t zpOut, IntType type, RoundingMode mode) {
  return requantize(x - zpIn, ms, zpOut, type, mode);
}

namespace {

/// round(p / 2^shift) with mode M in 64-bit arithmetic: roundShift's rules, valid for |p| < 2^62.
template <RoundingMode M>
[[gnu::always_inline]] inline int64_t roundShift64(int64_t p, int shift) {
  if (shift == 0)
    return p;
  if constexpr (M == RoundingMode::HalfUp)
    return (p + (int64_t(1) << (shift - 1))) >> shift;
  int64_t quotient = p >> shift; // floor
  int64_t remainder = static_cast<int64_t>(static_cast<uint64_t>(p) & ((uint64_t(1) << shift) - 1));
  int64_t half = int64_t(1) << (shift - 1);
  bool up = false;
  if constexpr (M == RoundingMode::Up)
    up = remainder != 0;
  else if constexpr (M == RoundingMode::TowardZero)
    up = p < 0 && remainder != 0;
  else if constexpr (M == RoundingMode::HalfAwayFromZero)
    up = remainder > half || (remainder == half && p > 0);
  else if constexpr (M == RoundingMode::HalfToEven)
    up = remainder > half || (remainder == half && (quotient & 1) != 0);
  return up ? quotient + 1 : quotient;
}

/// Whether the AVX-512 builds of the 64-bit span loops below can run (they vectorize the int64
/// products; the integer operations, and so the results, are the same in both builds).
bool spanLoopsAvx512() {
  static const bool available = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                                __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
  return available;
}

/// Defines `NAME` as a dispatcher between an AVX-512 and a baseline build of the always-inline `NAME##Body`.
#define TPUC_SPAN_LOOP(NAME)                                                                                   \
  template <RoundingMode M, typename... T>                                                                     \
  __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw"))) void NAME##Avx512(T... args) {                 \
    NAME##Body<M>(args...);                                                                                    \
  }                                                                                                            \
  template <RoundingMode M, typename... T> void NAME##Baseline(T... args) { NAME##Body<M>(args...); }         \
  template <RoundingMode M, typename... T> void NAME(T... args) {                                              \
    spanLoopsAvx512() ? NAME##Avx512<M>(args...) : NAME##Baseline<M>(args...);                                \
  }

/// Calls f(std::integral_constant<RoundingMode, M>{}) for the run-time `mode`: the span loops are
/// instantiated per mode so the rounding rule is resolved at compile time.
template <typename F> void withMode(RoundingMode mode, F f) {
  switch (mode) {
  case RoundingMode::HalfUp:
    return f(std::integral_constant<RoundingMode, RoundingMode::HalfUp>{});
  case RoundingMode::HalfAwayFromZero:
    return f(std::integral_constant<RoundingMode, RoundingMode::HalfAwayFromZero>{});
  case RoundingMode::HalfToEven:
    return f(std::integral_constant<RoundingMode, RoundingMode::HalfToEven>{});
  case RoundingMode::TowardZero:
    return f(std::integral_constant<RoundingMode, RoundingMode::TowardZero>{});
  case RoundingMode::Down:
    return f(std::integral_constant<RoundingMode, RoundingMode::Down>{});
  case RoundingMode::Up:
    return f(std::integral_constant<RoundingMode, RoundingMode::Up>{});
  }
}

/// The 64-bit loop of requantizeSpan: the caller checked that every product fits.
template <RoundingMode M, typename Out>
[[gnu::always_inline]] inline void requantizeSpan64Body(const int32_t *acc, int64_t n, int64_t bias,
                                                        int64_t multiplier, int shift, int64_t zpOut, int64_t lo,
                                                        int64_t hi, Out *out) {
  constexpr int64_t kLimit = int64_t(1) << 40; // requantize()'s pre-clamp
  for (int64_t i = 0; i < n; ++i) {
    int64_t scaled = roundShift64<M>((int64_t(acc[i]) + bias) * multiplier, shift);
    scaled = std::clamp<int64_t>(scaled, -kLimit, kLimit);
    int64_t v = std::clamp<int64_t>(scaled + zpOut, lo, hi);
    if constexpr (std::is_same_v<Out, int8_t>)
      out[i] = static_cast<int8_t>(std::clamp<int64_t>(v, -128, 127));
    else
      out[i] = static_cast<Out>(v);
  }
}
TPUC_SPAN_LOOP(requantizeSpan64)

template <typename Out>
void requantizeSpanImpl(std::span<const int32_t> acc, int64_t bias, MultiplierShift ms, int64_t zpOut,
                        IntType type, RoundingMode mode, Out *out, int64_t lo, int64_t hi) {
  int64_t n = static_cast<int64_t>(acc.size());
  if (n == 0)
    return;
  // Saturation then the extra clamp is one clamp to the intersection when the intervals overlap;
  // otherwise (or lo > hi) the scalar path keeps the two steps.
  int64_t tmin = intMin(type), tmax = intMax(type);
  int64_t cl = std::max(tmin, lo), ch = std::min(tmax, hi);
  int32_t mn = acc[0], mx = acc[0];
  for (int32_t v : acc) // a plain loop: it vectorizes, minmax_element does not
    mn = std::min(mn, v), mx = std::max(mx, v);
  Int128 a = Int128(mn) + bias, b = Int128(mx) + bias;
  Int128 maxAbs = std::max(a < 0 ? -a : a, b < 0 ? -b : b);
  Int128 m = ms.multiplier < 0 ? -Int128(ms.multiplier) : Int128(ms.multiplier);
  bool fits = ms.rshift >= 0 && ms.rshift <= 63 && cl <= ch && maxAbs < (Int128(1) << 62) &&
              maxAbs * m < (Int128(1) << 62);
  if (!fits) {
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = std::clamp(requantize(int64_t(acc[i]) + bias, ms, zpOut, type, mode), lo, hi);
      if constexpr (std::is_same_v<Out, int8_t>)
        out[i] = saturateToInt8(v);
      else
        out[i] = static_cast<Out>(v);
    }
    return;
  }
  int shift = static_cast<int>(ms.rshift);
  const int32_t *p = acc.data();
  withMode(mode, [&](auto m) { requantizeSpan64<decltype(m)::value>(p, n, bias, ms.multiplier, shift, zpOut, cl, ch, out); });
}

} // namespace

void requantizeSpan(std::span<const int32_t> acc, int64_t bias, MultiplierShift ms, int64_t zpOut,
                    IntType type, RoundingMode mode, std::span<float> out, int64_t lo, int64_t hi) {
  assert(out.size() == acc.size() && "requantizeSpan: size mismatch");
  requantizeSpanImpl(acc, bias, ms, zpOut, type, mode, out.data(), lo, hi);
}

void requantizeSpan(std::span<const int32_t> acc, int64_t bias, MultiplierShift ms, int64_t zpOut,
                    IntType type, RoundingMode mode, std::span<int8_t> out, int64_t lo, int64_t hi) {
  assert(out.size() == acc.size() && "requantizeSpan: size mismatch");
  requantizeSpanImpl(acc, bias, ms, zpOut, type, mode, out.data(), lo, hi);
}

namespace {

template <RoundingMode M>
[[gnu::always_inline]] inline void addRescaledSpan64Body(const float *a, int64_t zpA, int64_t ma, const float *b,
                                                         int64_t zpB, int64_t mb, int64_t n, int shift,
                                                         int64_t zpOut, int64_t lo, int64_t hi, float *out) {
  for (int64_t i = 0; i < n; ++i) {
    int64_t sum = (static_cast<int64_t>(a[i]) - zpA) * ma + (static_cast<int64_t>(b[i]) - zpB) * mb;
    out[i] = static_cast<float>(std::clamp<int64_t>(roundShift64<M>(sum, shift) + zpOut, lo, hi));
  }
}
TPUC_SPAN_LOOP(addRescaledSpan64)

/// quantize() element for element, in double precision throughout (roundToInt's floor-and-fraction rules,
/// its +-2^40 clamp and the saturation done on exact doubles).
template <RoundingMode M>
[[gnu::always_inline]] inline void quantizeSpanLoopBody(const float *x, int64_t n, double scale, double zp,
                                                    double tmin, double tmax, float *out) {
  constexpr double kLimit = 1099511627776.0; // 2^40
  for (int64_t i = 0; i < n; ++i) {
    double value = static_cast<double>(x[i]) / scale;
    double floorValue = std::floor(value), fraction = value - floorValue;
    bool up = false;
    if constexpr (M == RoundingMode::Up)
      up = fraction > 0;
    else if constexpr (M == RoundingMode::TowardZero)
      up = value < 0 && fraction > 0;
    else if constexpr (M == RoundingMode::HalfUp)
      up = fraction >= 0.5;
    else if constexpr (M == RoundingMode::HalfAwayFromZero)
      up = fraction > 0.5 || (fraction == 0.5 && value > 0);
    else if constexpr (M == RoundingMode::HalfToEven)
      up = fraction > 0.5 || (fraction == 0.5 && floorValue - 2.0 * std::floor(0.5 * floorValue) != 0.0);
    double q = std::clamp(up ? floorValue + 1.0 : floorValue, -kLimit, kLimit);
    double v = value != value ? zp : q + zp; // NaN quantizes to the zero point
    out[i] = static_cast<float>(std::clamp(v, tmin, tmax));
  }
}
TPUC_SPAN_LOOP(quantizeSpanLoop)
#undef TPUC_SPAN_LOOP

} // namespace

void addRescaledSpan(std::span<const float> a, int64_t zpA, int64_t ma, std::span<const float> b, int64_t zpB,
                     int64_t mb, bool subtract, int rshift, int64_t zpOut, IntType type, RoundingMode mode,
                     std::span<float> out, int64_t lo, int64_t hi) {
  assert(a.size() == out.size() && b.size() == out.size() && "addRescaledSpan: size mismatch");
  int64_t n = static_cast<int64_t>(out.size());
  if (n == 0)
    return;
  if (subtract)
    mb = -mb; // |mb| stays below 2^63: multipliers come from chooseSharedShift
  int64_t tmin = intMin(type), tmax = intMax(type);
  int64_t cl = std::max(tmin, lo), ch = std::min(tmax, hi);
  // Codes are integers of at most 25 bits (exact in float32) and zero points are in their range, so
  // |a - zpA| and |b - zpB| stay below 2^25 and with multipliers below 2^35 every sum is below 2^61.
  constexpr int64_t kMultiplierLimit = int64_t(1) << 35;
  bool fits = rshift >= 0 && rshift <= 62 && cl <= ch && std::abs(ma) < kMultiplierLimit &&
              std::abs(mb) < kMultiplierLimit && std::abs(zpOut) < (int64_t(1) << 40);
  if (!fits) {
    for (int64_t i = 0; i < n; ++i) {
      int64_t va = (static_cast<int64_t>(a[i]) - zpA) * ma, vb = (static_cast<int64_t>(b[i]) - zpB) * mb;
      int64_t v = saturate(roundingRightShift(va + vb, rshift, mode) + zpOut, type);
      out[i] = static_cast<float>(std::min(std::max(v, lo), hi));
    }
    return;
  }
  // Saturation then the extra clamp is one clamp to [cl, ch] (they overlap).
  const float *pa = a.data(), *pb = b.data();
  float *po = out.data();
  withMode(mode, [&](auto m) {
    addRescaledSpan64<decltype(m)::value>(pa, zpA, ma, pb, zpB, mb, n, rshift, zpOut, cl, ch, po);
  });
}

void quantizeSpan(std::span<const float> x, QuantParams params, IntType type, RoundingMode mode,
                  std::span<float> out) {
  assert(x.size() == out.size() && "quantizeSpan: size mismatch");
  const float *px = x.data();
  float *po = out.data();
  int64_t n = static_cast<int64_t>(x.size());
  double zp = static_cast<double>(params.zeroPoint), tmin = static_cast<double>(intMin(type)),
         tmax = static_cast<double>(intMax(type));
  withMode(mode, [&](auto m) { quantizeSpanLoop<decltype(m)::value>(px, n, params.scale, zp, tmin, tmax, po); });
}

//===----------------------------------------------------------------------===//
// Weight quantization
//===----------------------------------------------------------------------===//

ChannelQuantWeights quantizeWeightsPerChannel(std::span<const float> weights,
                                              int64_t channels,
                                              RoundingMode mode) {
  if (channels <= 0 || weights.size() % static_cast<size_t>(channels) != 0)
    throw std::invalid_argument(
        "per-channel quantization: " + std::to_string(channels) +
        " channels do not divide " + std::to_string(weights.size()) +
        " weights");
  ChannelQuantWeights out;
  out.values.resize(weights.size());
  out.scales.resize(static_cast<size_t>(channels));
  size_t perChannel = weights.size() / static_cast<size_t>(channels);
  for (size_t c = 0; c < static_cast<size_t>(channels); ++c) {
    std::span<const float> block = weights.subspan(c * perChannel, perChannel);
    double absMax = 0;
    for (float w : block)
      if (std::fabs(w) > absMax)
        absMax = std::fabs(w);
    float scale = absMax > 0 ? static_cast<float>(absMax / 127.0) : 1.0f;
    out.scales[c] = scale;
    for (size_t i = 0; i < perChannel; ++i) {
      int64_t q = roundToInt(block[i] / static_cast<double>(scale), mode);
      out.values[c * perChannel + i] =
          static_cast<int8_t>(std::clamp<int64_t>(q, -127, 127));
    }
  }
  return out;
}

int64_t GroupQuantWeights::valueAt(int64_t row, int64_t col) const {
  size_t index = static_cast<size_t>(row * cols + col);
  if (bits == 8)
    return symmetric ? static_cast<int8_t>(data[index]) : data[index];
  uint8_t byte = data[index / 2];
  int64_t nibble = (index % 2 == 0) ? (byte & 0x0f) : (byte >> 4);
  return (symmetric && nibble >= 8) ? nibble - 16 : nibble;
}

std::vector<float> GroupQuantWeights::dequantize() const {
  std::vector<float> out(static_cast<size_t>(rows * cols));
  int64_t groups = cols / groupSize;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      size_t g = static_cast<size_t>(r * groups + c / groupSize);
      int64_t zp = symmetric ? 0 : zeroPoints[g];
      out[static_cast<size_t>(r * cols + c)] =
          static_cast<float>(valueAt(r, c) - zp) * scales[g];
    }
  return out;
}

GroupQuantWeights quantizeWeightsGroupWise(std::span<const float> weights,
                                           int64_t rows, int64_t cols,
                                           const GroupQuantOptions &options) {
  auto fail = [](const std::string &message) {
    throw std::invalid_argument("group-wise quantization: " + message);
  };
  if (options.bits != 4 && options.bits != 8)
    fail("bits must be 4 or 8, got " + std::to_string(options.bits));
  if (rows <= 0 || cols <= 0 ||
      static_cast<size_t>(rows * cols) != weights.size())
    fail("shape [" + std::to_string(rows) + ", " + std::to_string(cols) +
         "] does not match " + std::to_string(weights.size()) + " weights");
  int64_t groupSize = options.groupSize == 0 ? cols : options.groupSize;
  if (groupSize < 0 || cols % groupSize != 0)
    fail("group size " + std::to_string(options.groupSize) +
         " does not divide K = " + std::to_string(cols));
  if (options.bits == 4 && cols % 2 != 0)
    fail("4-bit weights need an even K, got " + std::to_string(cols));

  GroupQuantWeights out;
  out.bits = options.bits;
  out.symmetric = options.symmetric;
  out.rows = rows;
  out.cols = cols;
  out.groupSize = groupSize;
  int64_t groups = cols / groupSize;
  out.scales.resize(static_cast<size_t>(rows * groups));
  if (!options.symmetric)
    out.zeroPoints.resize(static_cast<size_t>(rows * groups));
  std::vector<int8_t> values(weights.size()); // Unpacked, for 4 bits.
  std::vector<uint8_t> bytes(options.bits == 8 ? weights.size() : 0);
  int64_t symMax = (int64_t(1) << (options.bits - 1)) - 1; // 127 or 7
  IntType unsignedType = options.bits == 8 ? IntType::UInt8 : IntType::UInt4;

  // Rows are independent: large matrices (an LLM layer's projections) are split over the cores in
  // contiguous row ranges, which gives the same bytes as one thread.
  auto quantizeRows = [&](int64_t rowBegin, int64_t rowEnd) {
    for (int64_t r = rowBegin; r < rowEnd; ++r)
      for (int64_t g = 0; g < groups; ++g) {
        size_t begin = static_cast<size_t>(r * cols + g * groupSize);
        std::span<const float> group = weights.subspan(begin, static_cast<size_t>(groupSize));
        size_t slot = static_cast<size_t>(r * groups + g);
        double lo = 0, hi = 0, absMax = 0;
        for (float w : group) {
          if (std::isnan(w))
            continue;
          lo = std::min<double>(lo, w);
          hi = std::max<double>(hi, w);
          absMax = std::max<double>(absMax, std::fabs(w));
        }
        float scale;
        int64_t zp = 0;
        if (options.symmetric) {
          scale = absMax > 0 ? static_cast<float>(absMax / double(symMax)) : 1.0f;
        } else {
          QuantParams p = asymmetricParams(lo, hi, unsignedType);
          scale = static_cast<float>(p.scale);
          zp = p.zeroPoint;
          out.zeroPoints[slot] = static_cast<int32_t>(zp);
        }
        out.scales[slot] = scale;
        for (size_t i = 0; i < group.size(); ++i) {
          int64_t q = roundToInt(group[i] / static_cast<double>(scale), options.rounding);
          q = options.symmetric ? std::clamp<int64_t>(q, -symMax, symMax)
                                : saturate(std::clamp<int64_t>(q, -1024, 1024) + zp, unsignedType);
          if (options.bits == 8)
            bytes[begin + i] = static_cast<uint8_t>(q);
          else
            values[begin + i] = static_cast<int8_t>(q);
        }
      }
  };
  int64_t threads = weights.size() < (size_t(1) << 20)
                        ? 1
                        : std::min<int64_t>(rows, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> workers;
  for (int64_t t = 1; t < threads; ++t)
    workers.emplace_back(quantizeRows, rows * t / threads, rows * (t + 1) / threads);
  quantizeRows(0, rows / threads);
  for (std::thread &w : workers)
    w.join();
  out.data = options.bits == 8 ? std::move(bytes) : packInt4(values);
  return out;
}

//===----------------------------------------------------------------------===//
// f16 / bf16
//===----------------------------------------------------------------------===//

float roundToF16(float value) { return f16ToF32(f32ToF16(value)); }
float roundToBF16(float value) { return bf16ToF32(f32ToBF16(value)); }

void roundToF16(std::span<float> values) {
  for (float &v : values)
    v = roundToF16(v);
}

void roundToBF16(std::span<float> values) {
  for (float &v : values)
    v = roundToBF16(v);
}

} // namespace tpuc::quant
