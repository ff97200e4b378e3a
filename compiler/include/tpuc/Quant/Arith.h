//===- Arith.h - The integer arithmetic of quantization, in one place -----===//
//
// Every consumer (lowering, the Tpu functional simulator, calibration,
// weight-only quantization of LLMs) computes quantized values through these
// functions, so the compiler and the simulator can never disagree about a
// rounding or a saturation. docs/quantization.md writes every formula down
// with worked examples; the unit tests in tests/unit/quant check them
// exhaustively over the int8 range.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_QUANT_ARITH_H
#define TPUC_QUANT_ARITH_H

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace tpuc::quant {

//===----------------------------------------------------------------------===//
// Rounding and saturation
//===----------------------------------------------------------------------===//

/// How a real value becomes an integer. "Half" modes round to the nearest
/// integer and differ only on exact ties (x.5).
enum class RoundingMode : uint8_t {
  HalfAwayFromZero, ///< 2.5 -> 3, -2.5 -> -3 (C's round()).
  HalfToEven,       ///< 2.5 -> 2, 3.5 -> 4, -2.5 -> -2 (IEEE default).
  HalfUp,           ///< 2.5 -> 3, -2.5 -> -2 (add 1/2, then floor: a shifter).
  TowardZero,       ///< 2.7 -> 2, -2.7 -> -2 (truncation).
  Down,             ///< 2.7 -> 2, -2.2 -> -3 (floor; a bare arithmetic shift).
  Up,               ///< 2.2 -> 3, -2.7 -> -2 (ceil).
};

/// All rounding modes, in enum order (for tests and option lists).
inline constexpr RoundingMode kAllRoundingModes[] = {
    RoundingMode::HalfAwayFromZero, RoundingMode::HalfToEven,
    RoundingMode::HalfUp,           RoundingMode::TowardZero,
    RoundingMode::Down,             RoundingMode::Up};

/// Lower-case name used in options and docs: "half_away_from_zero",
/// "half_to_even", "half_up", "toward_zero", "down", "up".
std::string_view roundingModeName(RoundingMode mode);
/// Inverse of roundingModeName (case-sensitive); nullopt for unknown names.
std::optional<RoundingMode> parseRoundingMode(std::string_view name);

/// Integer storage types of quantized tensors.
enum class IntType : uint8_t { Int4, UInt4, Int8, UInt8, Int16, UInt16, Int32 };

/// Smallest representable value (-8, 0, -128, 0, -32768, 0, -2^31).
int64_t intMin(IntType type);
/// Largest representable value (7, 15, 127, 255, 32767, 65535, 2^31-1).
int64_t intMax(IntType type);
/// Number of bits (4, 8, 16 or 32).
int bitWidth(IntType type);
/// True for Int4, Int8, Int16, Int32.
bool isSigned(IntType type);

/// Clamps `value` into [intMin(type), intMax(type)].
int64_t saturate(int64_t value, IntType type);
/// saturate(value, Int8) as an int8_t.
int8_t saturateToInt8(int64_t value);
/// saturate(value, UInt8) as a uint8_t.
uint8_t saturateToUInt8(int64_t value);
/// saturate(value, Int16) as an int16_t.
int16_t saturateToInt16(int64_t value);
/// saturate(value, Int32) as an int32_t.
int32_t saturateToInt32(int64_t value);

/// Rounds a real value to an integer with `mode`. Values beyond the int64
/// range saturate to it; NaN gives 0.
int64_t roundToInt(double value, RoundingMode mode);

/// Exact `round(value / 2^shift)` with `mode`, for shift in 0..63 (0 returns
/// `value`). No overflow is possible.
int64_t roundingRightShift(int64_t value, int shift, RoundingMode mode);

//===----------------------------------------------------------------------===//
// Float <-> integer with a scale and a zero point
//===----------------------------------------------------------------------===//

/// Affine quantization parameters: real = (q - zeroPoint) * scale.
struct QuantParams {
  double scale = 1.0;
  int64_t zeroPoint = 0;
  friend bool operator==(const QuantParams &, const QuantParams &) = default;
};

/// q = saturate(round(x / scale) + zeroPoint). The division is done in
/// double precision; NaN quantizes to zeroPoint, +-inf saturate. The default
/// rounding is half away from zero (TPU-MLIR's float->int cast).
int64_t quantize(double x, QuantParams params, IntType type,
                 RoundingMode mode = RoundingMode::HalfAwayFromZero);
/// quantize() over a span, codes stored as floats (the simulators' representation); equal to the scalar
/// function element for element (AVX-512 when the CPU has it).
void quantizeSpan(std::span<const float> x, QuantParams params, IntType type, RoundingMode mode,
                  std::span<float> out);
/// real = (q - zeroPoint) * scale, in double precision.
double dequantize(int64_t q, QuantParams params);
/// quantize() over a span into int8 storage.
std::vector<int8_t>
quantizeToInt8(std::span<const float> values, QuantParams params,
               RoundingMode mode = RoundingMode::HalfAwayFromZero);
/// dequantize() over int8 storage, each result rounded to float.
std::vector<float> dequantizeInt8(std::span<const int8_t> values,
                                  QuantParams params);

/// The smallest threshold (and |min|/|max| range) used to derive a scale:
/// all-zero tensors get it instead of a zero scale (TPU-MLIR's 1e-5).
inline constexpr double kMinThreshold = 1e-5;

/// Symmetric parameters from a calibration threshold:
/// scale = max(threshold, kMinThreshold) / intMax(type), zeroPoint = 0.
/// (Int8: threshold / 127; UInt8, for non-negative tensors: threshold / 255.)
QuantParams symmetricParams(double threshold, IntType type);
/// Asymmetric parameters covering [min, max] (first widened to contain 0 so
/// that 0.0 is exactly representable):
/// scale = (max - min) / (intMax - intMin),
/// zeroPoint = saturate(roundHalfAwayFromZero(intMin - min / scale)).
/// A range narrower than kMinThreshold is widened to [0, kMinThreshold] or
/// [-kMinThreshold, 0] first.
QuantParams asymmetricParams(double min, double max, IntType type);

//===----------------------------------------------------------------------===//
// Integer rescaling: multiplier and right shift
//===----------------------------------------------------------------------===//

/// A real factor f represented as multiplier / 2^rshift.
struct MultiplierShift {
  int64_t multiplier = 0; ///< |multiplier| < 2^multiplierBits (31 by default).
  int64_t rshift = 0;     ///< 0..63.
  /// multiplier / 2^rshift as a double (exact: the multiplier has <= 31 bits).
  double value() const;
  friend bool operator==(const MultiplierShift &,
                         const MultiplierShift &) = default;
};

/// Chooses the multiplier and shift for a real rescale factor `scale`
/// (negative factors give negative multipliers). The shift is the largest in
/// 0..63 with |multiplier| = round(|scale| * 2^rshift) < 2^multiplierBits
/// (multiplierBits in 1..31).
///
/// Precision guarantee: whenever |scale| >= 2^(multiplierBits - 64) (that is
/// 2^-33 for 31 bits), |multiplier| >= 2^(multiplierBits-1) and
///   |multiplier / 2^rshift - scale| <= |scale| * 2^-multiplierBits.
/// Smaller factors use rshift = 63 with an absolute error <= 2^-64.
/// Returns nullopt when |scale| does not fit (|scale| >= 2^multiplierBits -
/// 1/2) or is not finite. scale = 0 gives {0, 0}.
std::optional<MultiplierShift> chooseMultiplierShift(double scale,
                                                     int multiplierBits = 31);

/// Multipliers of several factors that share one right shift.
struct SharedShift {
  std::vector<int64_t> multipliers; ///< One per factor.
  int64_t rshift = 0;
};

/// Chooses one multiplier per factor with a common shift, for ops that rescale several inputs and shift
/// their sum once (INT8 add/sub: y = round((x0 * m0 + x1 * m1) / 2^rshift)). rshift is that of
/// chooseMultiplierShift(max |f_i|, multiplierBits) and multiplier_i = round_half_away(f_i * 2^rshift), so
/// the largest factor gets the full precision guarantee above and every |multiplier_i| < 2^multiplierBits.
/// Returns nullopt when the largest factor has no pair (see chooseMultiplierShift); all-zero factors
/// give zero multipliers and shift 0.
std::optional<SharedShift> chooseSharedShift(std::span<const double> factors, int multiplierBits = 31);

/// round(acc * multiplier / 2^rshift) with `mode`, computed exactly in 128-bit
/// arithmetic; the result saturates to the int64 range. rshift in 0..63.
/// The default rounding is half up: add 2^(rshift-1), shift arithmetically.
int64_t applyMultiplierShift(int64_t acc, int64_t multiplier, int64_t rshift,
                             RoundingMode mode = RoundingMode::HalfUp);
/// applyMultiplierShift with a chosen pair.
inline int64_t applyMultiplierShift(int64_t acc, MultiplierShift ms,
                                    RoundingMode mode = RoundingMode::HalfUp) {
  return applyMultiplierShift(acc, ms.multiplier, ms.rshift, mode);
}

/// Output stage of an integer op: saturate(applyMultiplierShift(acc) + zpOut)
/// into `type` (the int32 accumulator of a conv/matmul back to int8).
int64_t requantize(int64_t acc, MultiplierShift ms, int64_t zpOut,
                   IntType type, RoundingMode mode = RoundingMode::HalfUp);

/// Moves a quantized value from one scale to another without float:
/// saturate(applyMultiplierShift(x - zpIn) + zpOut) into `type`. With
/// ms = chooseMultiplierShift(scaleIn / scaleOut) this is tpu.requant_int.
int64_t requantizeInt(int64_t x, int64_t zpIn, MultiplierShift ms,
                      int64_t zpOut, IntType type,
                      RoundingMode mode = RoundingMode::HalfUp);

/// Batched requantize() with a fused clamp, for the epilogues of integer kernels:
///   out[i] = clamp(requantize(int64_t(acc[i]) + bias, ms, zpOut, type, mode), lo, hi)
/// (lo/hi are an extra clamp after saturation, e.g. a fused relu's [zpOut, reluMax]; the defaults are
/// a no-op). Equal to the scalar function element for element: when every product of the span fits
/// (|(acc + bias) * multiplier| < 2^62, checked once per call from the span's range) it runs in 64-bit
/// arithmetic, otherwise it calls requantize() per element. acc and out have the same size; out may
/// not overlap acc.
void requantizeSpan(std::span<const int32_t> acc, int64_t bias, MultiplierShift ms, int64_t zpOut,
                    IntType type, RoundingMode mode, std::span<float> out,
                    int64_t lo = INT64_MIN, int64_t hi = INT64_MAX);
/// requantizeSpan into int8 storage (the result is also saturated to int8, whatever `type`).
void requantizeSpan(std::span<const int32_t> acc, int64_t bias, MultiplierShift ms, int64_t zpOut,
                    IntType type, RoundingMode mode, std::span<int8_t> out,
                    int64_t lo = INT64_MIN, int64_t hi = INT64_MAX);

/// Batched integer add (or subtract) of two code spans brought to a shared scale, as tpu.add / tpu.sub run:
///   out[i] = clamp(saturate(roundingRightShift((a[i] - zpA) * ma +/- (b[i] - zpB) * mb, rshift, mode)
///                           + zpOut, type), lo, hi)
/// Codes are integers carried as floats (the simulators' representation). Equal to that scalar formula
/// element for element: when every sum fits in 64 bits (checked once per call from the spans' ranges) it
/// runs in 64-bit arithmetic, otherwise it calls the scalar functions per element. a, b and out have
/// the same size.
void addRescaledSpan(std::span<const float> a, int64_t zpA, int64_t ma, std::span<const float> b, int64_t zpB,
                     int64_t mb, bool subtract, int rshift, int64_t zpOut, IntType type, RoundingMode mode,
                     std::span<float> out, int64_t lo = INT64_MIN, int64_t hi = INT64_MAX);

//===----------------------------------------------------------------------===//
// Weight quantization
//===----------------------------------------------------------------------===//

/// Int8 symmetric per-channel weights.
struct ChannelQuantWeights {
  std::vector<int8_t> values; ///< Same layout as the input.
  std::vector<float> scales;  ///< One per channel: absmax / 127 (1 if all 0).
};

/// Quantizes `weights` whose leading axis has `channels` entries (the
/// output channels of a conv filter [OC, IC, KH, KW] or a matmul weight
/// [N, K]): channel c is the contiguous block of size/channels elements,
/// scale_c = absmax_c / 127 rounded to float, q = saturate(round(w / scale_c))
/// into [-127, 127] (-128 is never produced, the range stays symmetric).
/// Throws std::invalid_argument when channels does not divide the size.
ChannelQuantWeights
quantizeWeightsPerChannel(std::span<const float> weights, int64_t channels,
                          RoundingMode mode = RoundingMode::HalfAwayFromZero);

/// Options of group-wise weight-only quantization (W8/W4 for MatMul).
struct GroupQuantOptions {
  int bits = 8;          ///< 4 or 8.
  int64_t groupSize = 0; ///< Elements along K per scale; 0 = the whole row.
  bool symmetric = true;
  RoundingMode rounding = RoundingMode::HalfAwayFromZero;
};

/// Group-wise quantized [N, K] weights, laid out as top.a16matmul expects.
struct GroupQuantWeights {
  int bits = 8;
  bool symmetric = true;
  int64_t rows = 0, cols = 0, groupSize = 0; ///< N, K, and the group size.
  /// 8 bits: [N, K] bytes (int8 two's complement when symmetric, uint8 when
  /// not). 4 bits: [N, K/2] bytes, two values per byte along K, element 2k in
  /// the low nibble (signed -8..7 when symmetric, 0..15 when not).
  std::vector<uint8_t> data;
  /// [N, K / groupSize], w = (q - zp) * scale.
  std::vector<float> scales;
  /// [N, K / groupSize]; empty when symmetric.
  std::vector<int32_t> zeroPoints;
  /// The integer stored for element (row, col), unpacked.
  int64_t valueAt(int64_t row, int64_t col) const;
  /// The dequantized weights [N, K]: (q - zp) * scale in float.
  std::vector<float> dequantize() const;
};

/// Quantizes [rows, cols] row-major weights group-wise along cols (K).
/// Symmetric: scale = absmax / (2^(bits-1) - 1) (127 or 7), q in
/// [-(2^(bits-1)-1), 2^(bits-1)-1]. Asymmetric: unsigned q in
/// [0, 2^bits - 1], parameters from asymmetricParams(min, max) of the group.
/// Scales are rounded to float first and q computed from the float scale.
/// Throws std::invalid_argument on a bad shape, bit width or group size
/// (groupSize must divide cols; 4 bits needs an even cols).
GroupQuantWeights quantizeWeightsGroupWise(std::span<const float> weights,
                                           int64_t rows, int64_t cols,
                                           const GroupQuantOptions &options);

//===----------------------------------------------------------------------===//
// f16 / bf16 rounding of float values
//===----------------------------------------------------------------------===//

/// The nearest f16 value (round to nearest even; overflow gives infinity).
float roundToF16(float value);
/// The nearest bf16 value (round to nearest even).
float roundToBF16(float value);
/// roundToF16 in place.
void roundToF16(std::span<float> values);
/// roundToBF16 in place.
void roundToBF16(std::span<float> values);

} // namespace tpuc::quant

#endif // TPUC_QUANT_ARITH_H
