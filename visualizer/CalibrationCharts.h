// Charts of a calibration report (CalibrationReport.h): a tensor's |x| histogram with every method's
// threshold, its threshold's convergence as samples are added, and every tensor's convergence at once.
// The studio's activation statistics view and `tpuc view calibration` (the PNGs of `tpuc calibrate
// --report`) draw with the same code. No application state.
#ifndef TPUC_VISUALIZER_CALIBRATIONCHARTS_H
#define TPUC_VISUALIZER_CALIBRATIONCHARTS_H

#include "visualizer/CalibrationReport.h"

#include <QColor>
#include <QPalette>
#include <QWidget>

#include <memory>

class QChart;
class QChartView;
class QLabel;

namespace tpuc::vis {

/// A colour per calibration method, distinct on light and dark backgrounds (Okabe-Ito hues); methods the
/// studio does not know get a grey.
QColor methodColor(const QString &method);

/// Number formatting of thresholds and ranges: four significant digits.
QString thresholdText(double value);

/// The tensor's histogram on a log count axis (bins merged to at most `maxBars`), a vertical line per
/// method's threshold (the highlighted method solid and thick, the others dashed) and a legend naming the
/// values. Colours from `palette`; the caller owns the chart.
QChart *makeHistogramChart(const CalibrationReport &report, int tensor, const QPalette &palette,
                           int maxBars = 512);
/// The tensor's threshold relative to its final value against the samples, the ±tolerance band and a
/// marker where it settled.
QChart *makeConvergenceChart(const CalibrationReport &report, int tensor, const QPalette &palette);
/// Every tensor's relative threshold against the samples (faint), the `highlighted` latest-settling ones
/// in colour and named, the band, the sample count after which all settled and the three-quarter mark
/// (settling later than that is "add more samples").
QChart *makeConvergenceOverviewChart(const CalibrationReport &report, const QPalette &palette,
                                     int highlighted = 5);

/// "Enough data: every threshold settled within 1 % after K of N samples" or "Add more samples: ...",
/// naming the worst tensors; rich text. `enough` tells which.
QString convergenceVerdict(const CalibrationReport &report, bool *enough = nullptr, int named = 3);
/// A banner background for the verdict: green-ish or amber-ish, blended into the palette's base.
QColor verdictColor(const QPalette &palette, bool enough);

/// One tensor's figure: the histogram above its convergence. The view's right-hand side and each tensor's
/// PNG of `tpuc view calibration`.
class CalibrationTensorFigure : public QWidget {
  Q_OBJECT
public:
  explicit CalibrationTensorFigure(QWidget *parent = nullptr);

  /// Shows `tensor` of `report` (-1: nothing); the report is shared with the caller.
  void setTensor(std::shared_ptr<const CalibrationReport> report, int tensor);
  int tensor() const { return m_tensor; }
  QChartView *histogramView() const { return m_histogram; }
  QChartView *convergenceView() const { return m_convergence; }

protected:
  void changeEvent(QEvent *event) override;

private:
  void rebuild();

  std::shared_ptr<const CalibrationReport> m_report;
  int m_tensor = -1;
  QChartView *m_histogram;
  QChartView *m_convergence;
};

/// The whole report at a glance: the verdict banner above every tensor's convergence.
class CalibrationOverviewFigure : public QWidget {
  Q_OBJECT
public:
  explicit CalibrationOverviewFigure(QWidget *parent = nullptr);
  void setReport(std::shared_ptr<const CalibrationReport> report);
  /// Hides the verdict banner (a view that shows it already).
  void setBannerVisible(bool visible);
  QLabel *banner() const { return m_banner; }
  QChartView *chartView() const { return m_chart; }

protected:
  void changeEvent(QEvent *event) override;

private:
  void rebuild();

  std::shared_ptr<const CalibrationReport> m_report;
  bool m_bannerVisible = true;
  QLabel *m_banner;
  QChartView *m_chart;
};

/// Writes the PNGs of `tpuc view calibration` into `outDir`: overview.png (the verdict and every tensor's
/// convergence), one tensor-NNN-<name>.png per tensor for at most `maxTensors` tensors (those that did not
/// settle first, latest first, then graph order) and index.html listing every tensor with its figure or
/// why it has none. Each figure is `size` pixels. Needs a QApplication. Returns the files written.
Result<QStringList> writeCalibrationFigures(const CalibrationReport &report, const QString &outDir,
                                            QSize size, const QPalette &palette, int maxTensors);
/// The figure file of tensor `index` (graph order): tensor-007-<name with [^A-Za-z0-9_.-] as '_'>.png.
QString tensorFigureName(const CalibrationReport &report, int index);

} // namespace tpuc::vis

#endif
