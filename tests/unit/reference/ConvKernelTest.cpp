//===- ConvKernelTest.cpp - The fast conv paths against the naive formula --===//
// The packed GEMM (PackedGemm.h) on odd sizes, single-row and single-column GEMMs (matrix-vector
// products), and top.conv / depthwise convs run through the interpreter with the filters as a top.weight
// (packed once and cached per op) over odd shapes, strides, pads, dilations and groups, at one and two
// threads, across repeated runs and releaseMemory().
//===----------------------------------------------------------------------===//
#include "TestSupport.h"

#include "Kernels.h"
#include "PackedGemm.h"
#include "tpuc/Simulator/Interpreter.h"
#include "tpuc/Simulator/ThreadPool.h"
#include "tpuc/Support/Npz.h"

#include "llvm/Support/FileSystem.h"

#include <random>
#include <sstream>

using namespace tpuc;
using namespace tpuc::sim;

namespace {

std::vector<float> randomValues(int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

/// Worst |got - want| relative to 1 + |want|.
double worstError(const float *got, const std::vector<double> &want) {
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i)
    worst = std::max(worst, std::fabs(got[i] - want[i]) / (1.0 + std::fabs(want[i])));
  return worst;
}

TEST(PackedGemm, MatchesNaiveProductOnOddSizes) {
  if (!ref::packedGemmAvailable())
    GTEST_SKIP() << "no AVX-512 on this CPU: convs use OpenBLAS";
  struct Size {
    int64_t m, n, k, m0, ldbPad;
  };
  // Rows below, at and above a packed block (12), columns below and across a micro-tile (32), depths
  // across a K pass (256), an empty contraction, a row range starting at a later block, padded B rows.
  std::vector<Size> sizes = {{1, 1, 1, 0, 0},   {5, 7, 3, 0, 0},    {12, 32, 16, 0, 0}, {13, 33, 17, 0, 3},
                             {25, 70, 300, 0, 5}, {40, 31, 513, 12, 0}, {7, 100, 0, 0, 0}, {64, 49, 257, 24, 0}};
  unsigned seed = 1;
  for (const Size &s : sizes) {
    for (int mode = 0; mode < 3; ++mode) { // plain, bias + relu (B in panels), bias + relu6
      SCOPED_TRACE("m " + std::to_string(s.m) + " n " + std::to_string(s.n) + " k " + std::to_string(s.k) +
                   " m0 " + std::to_string(s.m0) + " mode " + std::to_string(mode));
      int64_t ldb = s.n + s.ldbPad, ldc = s.n + 2;
      std::vector<float> a = randomValues(s.m * s.k, seed++), b = randomValues(s.k * ldb, seed++);
      std::vector<float> bias = randomValues(s.m, seed++);
      ref::PackedMatrix packed = ref::PackedMatrix::pack(a.data(), s.m, s.k, s.k);
      ref::Epilogue epilogue{mode ? bias.data() : nullptr, mode > 0, mode == 2 ? 6.0f : INFINITY};
      std::vector<float> c((s.m - s.m0) * ldc, -7.0f);
      bool panels = mode == 1; // B in column panels (as im2col writes it) instead of row-major
      std::vector<float> panelData;
      if (panels) {
        int64_t numPanels = (s.n + ref::kTileColumns - 1) / ref::kTileColumns;
        panelData.assign(std::max<int64_t>(numPanels * s.k * ref::kTileColumns, 1), NAN);
        for (int64_t p = 0; p < s.k; ++p)
          for (int64_t j = 0; j < s.n; ++j)
            panelData[(j / ref::kTileColumns) * s.k * ref::kTileColumns + p * ref::kTileColumns +
                      j % ref::kTileColumns] = b[p * ldb + j];
      }
      ref::RightMatrix right = panels ? ref::RightMatrix{panelData.data(), ref::kTileColumns, true}
                                      : ref::RightMatrix{b.data(), ldb};
      ref::packedGemm(packed, s.m0, s.m, right, s.n, c.data(), ldc, epilogue);
      double worst = 0;
      for (int64_t i = s.m0; i < s.m; ++i) {
        for (int64_t j = 0; j < ldc; ++j) {
          float got = c[(i - s.m0) * ldc + j];
          if (j >= s.n) { // columns past n stay untouched
            EXPECT_EQ(got, -7.0f);
            continue;
          }
          double want = mode ? bias[i] : 0.0;
          for (int64_t p = 0; p < s.k; ++p)
            want += double(a[i * s.k + p]) * b[p * ldb + j];
          if (mode)
            want = std::min(std::max(want, 0.0), mode == 2 ? 6.0 : INFINITY);
          worst = std::max(worst, std::fabs(got - want) / (1.0 + std::fabs(want)));
        }
      }
      EXPECT_LT(worst, 1e-5);
    }
  }
}

TEST(Gemm, SingleRowOrColumnMatchesNaiveProduct) {
  // m == 1 and n == 1 go to OpenBLAS's matrix-vector product: every transpose combination, padded
  // leading dimensions, beta 0 and 1.
  unsigned seed = 900;
  for (int shape = 0; shape < 2; ++shape) {
    int64_t m = shape == 0 ? 1 : 37, n = shape == 0 ? 45 : 1, k = 29;
    for (int variant = 0; variant < 8; ++variant) {
      bool transA = variant & 1, transB = variant & 2;
      float beta = (variant & 4) ? 1.0f : 0.0f;
      SCOPED_TRACE("m " + std::to_string(m) + " n " + std::to_string(n) + " transA " + std::to_string(transA) +
                   " transB " + std::to_string(transB) + " beta " + std::to_string(beta));
      int64_t lda = (transA ? m : k) + 3, ldb = (transB ? k : n) + 2, ldc = n + 1;
      std::vector<float> a = randomValues((transA ? k : m) * lda, seed++);
      std::vector<float> b = randomValues((transB ? n : k) * ldb, seed++);
      std::vector<float> c = randomValues(m * ldc, seed++), c0 = c;
      ref::gemm(transA, transB, m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc, beta);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double want = beta * c0[i * ldc + j];
          for (int64_t p = 0; p < k; ++p)
            want += double(transA ? a[p * lda + i] : a[i * lda + p]) * (transB ? b[j * ldb + p] : b[p * ldb + j]);
          EXPECT_NEAR(c[i * ldc + j], want, 1e-4) << i << "," << j;
        }
    }
  }
}

/// One conv: input [n, ic, ih, iw], filters [oc, ic / group, kh, kw].
struct ConvCase {
  int64_t n, ic, ih, iw, oc, kh, kw, sh, sw, dh, dw, padTop, padLeft, padBottom, padRight, group;
  bool relu;
  float reluLimit;

  int64_t oh() const { return (ih + padTop + padBottom - dh * (kh - 1) - 1) / sh + 1; }
  int64_t ow() const { return (iw + padLeft + padRight - dw * (kw - 1) - 1) / sw + 1; }
  std::string describe() const {
    std::ostringstream os;
    os << "x " << n << "x" << ic << "x" << ih << "x" << iw << " w " << oc << "x" << ic / group << "x" << kh << "x"
       << kw << " s " << sh << "," << sw << " d " << dh << "," << dw << " pads " << padTop << "," << padLeft << ","
       << padBottom << "," << padRight << " group " << group << (relu ? " relu" : "");
    return os.str();
  }
};

/// The ONNX Conv formula in double precision.
std::vector<double> naiveConv(const ConvCase &c, const std::vector<float> &x, const std::vector<float> &w,
                              const std::vector<float> &bias) {
  int64_t oh = c.oh(), ow = c.ow(), icg = c.ic / c.group, ocg = c.oc / c.group;
  std::vector<double> y(c.n * c.oc * oh * ow);
  for (int64_t b = 0; b < c.n; ++b)
    for (int64_t o = 0; o < c.oc; ++o)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          double acc = bias[o];
          int64_t grp = o / ocg;
          for (int64_t ci = 0; ci < icg; ++ci)
            for (int64_t ky = 0; ky < c.kh; ++ky)
              for (int64_t kx = 0; kx < c.kw; ++kx) {
                int64_t iy = oy * c.sh - c.padTop + ky * c.dh, ix = ox * c.sw - c.padLeft + kx * c.dw;
                if (iy < 0 || iy >= c.ih || ix < 0 || ix >= c.iw)
                  continue;
                acc += double(x[((b * c.ic + grp * icg + ci) * c.ih + iy) * c.iw + ix]) *
                       w[((o * icg + ci) * c.kh + ky) * c.kw + kx];
              }
          if (c.relu) {
            acc = std::max(acc, 0.0);
            if (c.reluLimit > 0)
              acc = std::min<double>(acc, c.reluLimit);
          }
          y[((b * c.oc + o) * oh + oy) * ow + ox] = acc;
        }
  return y;
}

std::string shapeText(std::initializer_list<int64_t> dims) {
  std::string s = "tensor<";
  for (int64_t d : dims)
    s += std::to_string(d) + "x";
  return s + "f32>";
}

class ConvKernelTest : public ::testing::Test {
protected:
  void SetUp() override {
    context = test::makeContext();
    llvm::SmallString<128> dir;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tpuc-conv-test", dir));
    tmpDir = dir.str().str();
  }
  void TearDown() override { llvm::sys::fs::remove_directories(tmpDir); }

  /// Runs `c` through the interpreter (filters and bias as top.weight) at 1 and 2 threads, twice each, and
  /// once more after releaseMemory(), checking every run against the naive formula.
  void check(const ConvCase &c, unsigned seed) {
    SCOPED_TRACE(c.describe());
    std::vector<float> x = randomValues(c.n * c.ic * c.ih * c.iw, seed);
    std::vector<float> w = randomValues(c.oc * (c.ic / c.group) * c.kh * c.kw, seed + 1);
    std::vector<float> bias = randomValues(c.oc, seed + 2);
    std::vector<double> want = naiveConv(c, x, w, bias);
    NpzFile weights;
    weights.set("w", Tensor::fromValues<float>({c.oc, c.ic / c.group, c.kh, c.kw}, w));
    weights.set("b", Tensor::fromValues<float>({c.oc}, bias));
    std::string npz = tmpDir + "/weights" + std::to_string(seed) + ".npz";
    weights.write(npz);
    std::ostringstream text;
    std::string xt = shapeText({c.n, c.ic, c.ih, c.iw}), wt = shapeText({c.oc, c.ic / c.group, c.kh, c.kw});
    std::string yt = shapeText({c.n, c.oc, c.oh(), c.ow()}), bt = shapeText({c.oc});
    text << "module attributes {top.weight_file = \"" << npz << "\"} {\n"
         << "  func.func @main(%arg0: " << xt << ") -> " << yt << " {\n"
         << "    %x = \"top.input\"(%arg0) : (" << xt << ") -> " << xt << "\n"
         << "    %w = \"top.weight\"() {name = \"w\"} : () -> " << wt << "\n"
         << "    %b = \"top.weight\"() {name = \"b\"} : () -> " << bt << "\n"
         << "    %y = \"top.conv\"(%x, %w, %b) {kernel_shape = array<i64: " << c.kh << ", " << c.kw
         << ">, strides = array<i64: " << c.sh << ", " << c.sw << ">, pads = array<i64: " << c.padTop << ", "
         << c.padLeft << ", " << c.padBottom << ", " << c.padRight << ">, dilations = array<i64: " << c.dh << ", "
         << c.dw << ">, group = " << c.group << " : i64"
         << (c.relu ? ", do_relu = true, relu_limit = " + std::to_string(c.reluLimit) + " : f64" : std::string())
         << "} : (" << xt << ", " << wt << ", " << bt << ") -> " << yt << "\n"
         << "    return %y : " << yt << "\n  }\n}\n";
    auto module = mlir::parseSourceString<mlir::ModuleOp>(text.str(), context.get());
    ASSERT_TRUE(module) << text.str();
    Interpreter interp(*module);
    ASSERT_FALSE(static_cast<bool>(interp.setInput(0, Tensor::fromValues<float>({c.n, c.ic, c.ih, c.iw}, x))));
    for (unsigned threads : {1u, 2u, 2u, 1u, 0u}) {
      if (threads == 0) { // drop weights and packed filters, then run again
        interp.releaseMemory();
        threads = 2;
      }
      SCOPED_TRACE("threads " + std::to_string(threads));
      llvm::Error err = interp.run(RunOptions{.numThreads = threads});
      ASSERT_FALSE(static_cast<bool>(err)) << llvm::toString(std::move(err));
      const Tensor &y = interp.outputs().get(interp.outputNames()[0]);
      ASSERT_EQ(y.numElements(), static_cast<int64_t>(want.size()));
      EXPECT_LT(worstError(reinterpret_cast<const float *>(y.data()), want), 2e-5);
    }
    ThreadPool::setGlobalThreads(0);
  }

  std::unique_ptr<mlir::MLIRContext> context;
  std::string tmpDir;
};

TEST_F(ConvKernelTest, DenseConvsOnOddShapes) {
  std::vector<ConvCase> cases = {
      // n, ic, ih, iw, oc, kh, kw, sh, sw, dh, dw, pads (t, l, b, r), group, relu, limit
      {1, 3, 9, 11, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, false, 0},      // tiny: one partial tile
      {2, 5, 13, 7, 14, 3, 2, 2, 3, 1, 1, 1, 0, 2, 1, 1, true, 0},      // strides, asymmetric pads
      {1, 40, 10, 10, 30, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true, 6.0f}, // K = 360 crosses a K pass
      {1, 16, 5, 5, 100, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, false, 0},    // few columns: channel split
      {1, 8, 12, 12, 12, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 2, true, 0},     // dilated, 2 groups
      {1, 12, 15, 9, 9, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, false, 0},     // grouped 1x1
      {2, 24, 17, 19, 37, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, true, 0},    // 1x1 read in place
      {1, 7, 16, 16, 13, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1, false, 0},    // strided 1x1
      {1, 3, 40, 40, 16, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1, true, 0},     // stem-like 7x7 stride 2
      {1, 6, 15, 77, 20, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, true, 0},     // stride 2, rows of 39 columns
      {1, 4, 20, 41, 8, 3, 3, 2, 2, 2, 2, 2, 2, 0, 0, 1, false, 0},     // stride 2, dilated, left pads
      {1, 5, 9, 70, 12, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 1, false, 0},     // no pads, 68-column rows
      {1, 64, 7, 7, 96, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true, 0},      // late layer: 49 columns
  };
  unsigned seed = 100;
  for (const ConvCase &c : cases)
    check(c, seed += 10);
}

TEST_F(ConvKernelTest, DepthwiseConvsOnOddShapes) {
  std::vector<ConvCase> cases = {
      {1, 7, 9, 11, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 7, true, 6.0f},    // stride 1, relu6
      {2, 5, 12, 13, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 5, true, 0},      // stride 2, odd width
      {1, 4, 10, 10, 4, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 4, false, 0},     // asymmetric pads
      {1, 3, 18, 37, 3, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 3, false, 0},     // 5x5
      {1, 4, 9, 9, 8, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 4, true, 0},        // dilated, channel multiplier 2
      {1, 6, 1, 1, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 6, false, 0},       // 1x1 plane
      {1, 32, 33, 35, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 32, true, 6.0f}, // many planes over the pool
      {1, 3, 11, 40, 3, 2, 3, 1, 2, 1, 1, 1, 0, 0, 2, 3, false, 0},     // 2x3 taps, mixed strides
  };
  unsigned seed = 500;
  for (const ConvCase &c : cases)
    check(c, seed += 10);
}

} // namespace
