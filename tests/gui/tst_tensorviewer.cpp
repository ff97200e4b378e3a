// The tensor viewer on known tensors: statistics (cosine, SQNR, max |delta|, NaN/Inf counts, clipped and
// saturated shares), histogram bins, the planes of tensors of every rank, the heat maps' colours, plane
// navigation, a layer's inputs, and the one-line errors for a missing tensor or mismatched shapes.
#include "tpuc/Support/Npz.h"
#include "visualizer/TensorStats.h"
#include "visualizer/TensorViewer.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QSignalSpy>
#include <QTest>

#include <cmath>
#include <limits>
#include <memory>

using namespace tpuc;
using namespace tpuc::vis;

class TestTensorViewer : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void statisticsOfKnownTensors();
  void histogramBins();
  void planesOfEveryRank();
  void heatMapColours();
  void viewerShowsLayersAndInputs();
};

void TestTensorViewer::statisticsOfKnownTensors() {
  const std::vector<float> ref = {1, 2, 3, 4}, tgt = {1, 2, 3, 5};
  TensorPairStats s = compareTensors(ref, tgt, 3.5);
  QCOMPARE(s.count, std::size_t(4));
  QVERIFY(std::abs(s.cosine - 34 / std::sqrt(30.0 * 39.0)) < 1e-12);
  QVERIFY(std::abs(s.sqnrDb - 10 * std::log10(30.0)) < 1e-9);
  QCOMPARE(s.maxAbsDiff, 1.0);
  QCOMPARE(s.meanAbsDiff, 0.25);
  QCOMPARE(s.clippedShare, 0.25);   // |4| > 3.5
  QCOMPARE(s.saturatedShare, 0.25); // 5 >= 3.5 - half a step
  QCOMPARE(s.referenceMax, 4.0);
  QCOMPARE(s.targetMax, 5.0);
  // Identical tensors: cosine 1, SQNR +inf; non-finite values are counted and left out.
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  s = compareTensors(std::vector<float>{1, nan, 2, inf}, std::vector<float>{1, 0, 2, 7});
  QCOMPARE(s.referenceNan, std::size_t(1));
  QCOMPARE(s.referenceInf, std::size_t(1));
  QCOMPARE(s.targetNan, std::size_t(0));
  QCOMPARE(s.cosine, 1.0);
  QVERIFY(std::isinf(s.sqnrDb) && s.sqnrDb > 0);
  QVERIFY(!s.hasThreshold);
  // Two zero tensors agree; a zero target against a non-zero reference has cosine 0.
  QCOMPARE(compareTensors(std::vector<float>{0, 0}, std::vector<float>{0, 0}).cosine, 1.0);
  QCOMPARE(compareTensors(std::vector<float>{1, 2}, std::vector<float>{0, 0}).cosine, 0.0);
}

void TestTensorViewer::histogramBins() {
  const std::vector<float> ref = {-1.5f, -0.5f, 0.5f, 1.5f, 3.0f}, tgt = {-2.0f, 1.9f};
  TensorHistogram h = histogramOf(ref, tgt, 4, -2, 2);
  QCOMPARE(h.binWidth(), 1.0);
  QCOMPARE(h.reference, (std::vector<std::size_t>{1, 1, 1, 2})); // 3.0 goes to the end bin
  QCOMPARE(h.target, (std::vector<std::size_t>{1, 0, 0, 1}));
  // Without a range: +-max |x| of both, at least the threshold.
  h = histogramOf(ref, tgt, 8, 0, 0, 10);
  QCOMPARE(h.lo, -10.0);
  QCOMPARE(h.hi, 10.0);
  h = histogramOf(ref, tgt, 8);
  QCOMPARE(h.hi, 3.0);
}

void TestTensorViewer::planesOfEveryRank() {
  PlaneLayout l = planeLayout({1, 64, 56, 56});
  QCOMPARE(l.planes, int64_t(64));
  QCOMPARE(l.rows, int64_t(56));
  QCOMPARE(l.cols, int64_t(56));
  QCOMPARE(QString::fromStdString(l.planeName(12)), QString("n 0, c 12"));
  l = planeLayout({2, 3, 4, 5});
  QCOMPARE(QString::fromStdString(l.planeName(4)), QString("n 1, c 1"));
  l = planeLayout({1, 16, 64}); // an LLM's [batch, tokens, hidden]: one token x hidden plane
  QCOMPARE(l.planes, int64_t(1));
  QCOMPARE(l.rows, int64_t(16));
  QCOMPARE(l.cols, int64_t(64));
  l = planeLayout({10});
  QCOMPARE(l.rows, int64_t(1));
  QCOMPARE(l.cols, int64_t(10));
  l = planeLayout({});
  QCOMPARE(l.rows * l.cols * l.planes, int64_t(1));
  std::vector<float> values(2 * 3 * 4 * 5);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(i);
  l = planeLayout({2, 3, 4, 5});
  std::span<const float> plane = planeOf(values, l, 4);
  QCOMPARE(plane.size(), std::size_t(20));
  QCOMPARE(plane.front(), 80.0f);
}

void TestTensorViewer::heatMapColours() {
  HeatMapView map;
  map.setPlane({-2, 0, 2, std::numeric_limits<float>::quiet_NaN()}, 2, 2, -2, 2, true);
  QCOMPARE(map.colorOf(0), QColor(247, 247, 247));
  QCOMPARE(map.colorOf(2), QColor(178, 24, 43));
  QCOMPARE(map.colorOf(-2), QColor(33, 102, 172));
  QCOMPARE(QColor(map.image().pixel(1, 1)), QColor(255, 0, 255)); // NaN stands out
  map.setPlane({0, 10}, 1, 2, 0, 10, false);
  QCOMPARE(map.colorOf(0), QColor(48, 18, 59));
  QCOMPARE(map.colorOf(10), QColor(250, 240, 80));
  QCOMPARE(QColor(map.image().pixel(1, 0)), QColor(250, 240, 80));
}

void TestTensorViewer::viewerShowsLayersAndInputs() {
  auto reference = std::make_shared<NpzFile>(), target = std::make_shared<NpzFile>();
  std::vector<float> conv(1 * 4 * 6 * 8), quantized(conv.size());
  for (size_t i = 0; i < conv.size(); ++i) {
    conv[i] = std::sin(0.37f * static_cast<float>(i)) * 3;
    quantized[i] = std::round(conv[i] * 127 / 2.5f) * 2.5f / 127; // INT8 with threshold 2.5: clips at +-2.5
    quantized[i] = std::clamp(quantized[i], -2.5f, 2.5f);
  }
  reference->set("conv", Tensor::fromValues<float>({1, 4, 6, 8}, conv));
  target->set("conv", Tensor::fromValues<float>({1, 4, 6, 8}, quantized));
  std::vector<float> input(1 * 4 * 6 * 8, 0.5f);
  reference->set("input", Tensor::fromValues<float>({1, 4, 6, 8}, input));
  target->set("input", Tensor::fromValues<float>({1, 4, 6, 8}, input));
  reference->set("odd", Tensor::fromValues<float>({2, 2}, std::vector<float>{1, 2, 3, 4}));
  target->set("odd", Tensor::fromValues<float>({4}, std::vector<float>{1, 2, 3, 4}));

  TensorViewer viewer;
  viewer.resize(1200, 800);
  viewer.setFiles(reference, target, "Top (float)", "Tpu INT8");
  viewer.setThresholds({{"conv", 2.5}});
  QSignalSpy shown(&viewer, &TensorViewer::tensorShown);
  QString error;
  QVERIFY2(viewer.showLayer("conv", {"input"}, &error), qPrintable(error));
  QCOMPARE(shown.count(), 1);
  const TensorPairStats expected = compareTensors(conv, quantized, 2.5);
  QCOMPARE(viewer.stats().cosine, expected.cosine);
  QVERIFY(viewer.stats().clippedShare > 0.1); // |3 sin| > 2.5 a good share of the time
  QCOMPARE(viewer.stats().clippedShare, expected.clippedShare);
  QVERIFY(viewer.statsText().contains("clipped (|x| > T)"));
  QCOMPARE(viewer.layout().planes, int64_t(4));
  const QImage first = viewer.referenceMap()->image();
  viewer.setPlane(2);
  QCOMPARE(viewer.plane(), int64_t(2));
  QVERIFY(viewer.referenceMap()->image() != first); // another channel
  QCOMPARE(viewer.referenceMap()->image().size(), QSize(8, 6));
  viewer.show();
  QDir().mkpath(TPUC_SCREENSHOT_DIR);
  QVERIFY(viewer.grab().save(QString(TPUC_SCREENSHOT_DIR) + "/tensor-viewer.png"));
  // The layer's input is one pick away; identical there.
  auto *choice = viewer.findChild<QComboBox *>("tensorChoice");
  QCOMPARE(choice->count(), 2);
  QVERIFY(viewer.showTensor("input"));
  QCOMPARE(viewer.stats().cosine, 1.0);
  QVERIFY(!viewer.stats().hasThreshold);
  // One-line errors, the last good tensor kept.
  QVERIFY(!viewer.showTensor("missing", &error));
  QCOMPARE(error, QString("Top (float) has no tensor 'missing'."));
  QVERIFY(!viewer.showTensor("odd", &error));
  QVERIFY2(error.contains("shape") && error.contains("Tpu INT8"), qPrintable(error));
  QCOMPARE(viewer.tensorName(), QString("input"));
}

QTEST_MAIN(TestTensorViewer)
#include "tst_tensorviewer.moc"
