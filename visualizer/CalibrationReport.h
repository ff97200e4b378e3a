// The calibration report of `tpuc calibrate --report DIR` (histograms.json and convergence.json,
// docs/DATASETS.md) as plain data for the activation statistics views and figures.
#ifndef TPUC_VISUALIZER_CALIBRATIONREPORT_H
#define TPUC_VISUALIZER_CALIBRATIONREPORT_H

#include "tpuc/Support/Result.h"

#include <QByteArray>
#include <QString>
#include <QVector>

namespace tpuc::vis {

/// One method's threshold of a tensor; NaN when the report has none (null).
struct MethodThreshold {
  QString method; ///< kl, mse, max, percentile9999, aciq_gauss, aciq_laplace, ... as the report names it
  double value = 0;
};

/// Everything the report says about one tensor.
struct TensorReport {
  QString name;
  qint64 count = 0, zeros = 0;
  double min = 0, max = 0, absMax = 0, mean = 0, std = 0;
  /// TPU-MLIR's |x| histogram: bin j counts the nonzero |x| around j * binWidth.
  double binWidth = 0;
  QVector<double> histogram;
  QVector<MethodThreshold> thresholds; ///< in the report's order
  /// The convergence method's threshold after each checkpoint's samples (NaN: none).
  QVector<double> convergence;
  /// Samples after which the threshold stays within the tolerance of its final value; 0 when the
  /// convergence file does not list the tensor.
  qint64 stableAfter = 0;

  /// The threshold of `method`, NaN when the report has none.
  double threshold(const QString &method) const;
  /// The convergence's final threshold (NaN when there is none).
  double finalThreshold() const;
};

/// A whole report: both files, tensors in graph order.
struct CalibrationReport {
  QString folder;
  qint64 samples = 0;
  int bins = 0;
  QString chosen; ///< the table's method ("kl", ..., or "search_threshold")
  QString method; ///< the method whose thresholds convergence.json follows
  double tolerance = 0.01;
  QVector<qint64> checkpoints; ///< sample counts, increasing
  qint64 stableAfter = 0;      ///< the largest stable_after of any tensor
  bool enoughData = false;
  QVector<TensorReport> tensors;

  /// The tensor named `name`, or -1.
  int indexOf(const QString &name) const;
  /// The method the table's thresholds come from when the report holds its thresholds, else the one
  /// convergence follows (search_threshold's candidates start from kl).
  QString highlightedMethod() const;
  /// Whether the tensor settled with at least a quarter of the samples left to confirm it (the rule of
  /// enough_data, per tensor).
  bool settled(const TensorReport &tensor) const;
  /// The tensors that did not settle, latest stable_after first (then graph order).
  QVector<int> unsettled() const;
};

/// Parses the two files' contents; `histogramsPath` and `convergencePath` name them in errors. The error
/// is one line naming the file and the field (`.../histograms.json: tensors[3].histogram[7]: expected a
/// number`); a schema other than tpuc.calibration_histograms / tpuc.calibration_convergence or a newer
/// version is refused.
Result<CalibrationReport> parseCalibrationReport(const QByteArray &histograms, const QString &histogramsPath,
                                                 const QByteArray &convergence,
                                                 const QString &convergencePath);
/// Reads DIR/histograms.json and DIR/convergence.json.
Result<CalibrationReport> readCalibrationReport(const QString &folder);

} // namespace tpuc::vis

#endif
