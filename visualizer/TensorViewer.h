// The tensor viewer: one layer's reference (float) and target (e.g. INT8 simulation) tensors side by side as
// heat maps of one plane at a time, their difference, a histogram of both with the quantization threshold
// and grid, a scatter of target against reference, and the statistics (visualizer/TensorStats.h). The
// layer's inputs are one click away. No application state: the caller hands it the tensor files.
#ifndef TPUC_VISUALIZER_TENSORVIEWER_H
#define TPUC_VISUALIZER_TENSORVIEWER_H

#include "visualizer/TensorStats.h"

#include <QString>
#include <QStringList>
#include <QWidget>

#include <map>
#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QSpinBox;

namespace tpuc {
class NpzFile;
}

namespace tpuc::vis {

/// One plane as a colour image: a diverging blue-white-red map around 0 (values of both signs, and
/// differences), else a sequential one from dark to bright; hovering shows the value under the cursor.
class HeatMapView : public QWidget {
  Q_OBJECT
public:
  explicit HeatMapView(QWidget *parent = nullptr);
  /// `values` row-major rows x cols, coloured over [lo, hi]; `diverging` centres the map on 0.
  void setPlane(std::vector<float> values, int64_t rows, int64_t cols, double lo, double hi, bool diverging);
  void setTitle(const QString &title);
  /// The colour of a value on the current map (tests).
  QColor colorOf(double value) const;
  const QImage &image() const { return m_image; }
  QSize sizeHint() const override;

protected:
  void paintEvent(QPaintEvent *event) override;
  void mouseMoveEvent(QMouseEvent *event) override;

private:
  QRect imageRect() const;
  std::vector<float> m_values;
  int64_t m_rows = 0, m_cols = 0;
  double m_lo = 0, m_hi = 1;
  bool m_diverging = false;
  QImage m_image;
  QString m_title;
};

class TensorViewer : public QWidget {
  Q_OBJECT
public:
  explicit TensorViewer(QWidget *parent = nullptr);
  ~TensorViewer() override;

  /// The two tensor files (every tensor of a run, by name) and what to call them ("Top (float)", "Tpu INT8").
  void setFiles(std::shared_ptr<const NpzFile> reference, std::shared_ptr<const NpzFile> target,
                const QString &referenceLabel, const QString &targetLabel);
  /// Calibration thresholds by tensor name: the histogram draws +-T and the quantization grid, the
  /// statistics count clipped and saturated values.
  void setThresholds(std::map<std::string, double> thresholds);
  /// Shows a layer's output tensor; its inputs are offered in the tensor box. False with a one-line error
  /// (shown in the viewer too) when a file lacks the tensor or the two shapes differ.
  bool showLayer(const QString &name, const QStringList &inputs, QString *error = nullptr);
  /// Shows one of the tensors offered (the layer's output or one of its inputs).
  bool showTensor(const QString &name, QString *error = nullptr);
  void setPlane(int64_t plane);

  QString tensorName() const { return m_name; }
  int64_t plane() const { return m_plane; }
  const PlaneLayout &layout() const { return m_layout; }
  const TensorPairStats &stats() const { return m_stats; }
  const TensorHistogram &histogram() const { return m_histogram; }
  HeatMapView *referenceMap() const { return m_referenceMap; }
  HeatMapView *targetMap() const { return m_targetMap; }
  HeatMapView *differenceMap() const { return m_differenceMap; }
  /// The statistics as shown, one "name: value" line each (tests, copy to the clipboard).
  QString statsText() const;

Q_SIGNALS:
  /// Another tensor was chosen in the viewer (to select it in a graph).
  void tensorShown(const QString &name);

private:
  class HistogramPlot;
  class ScatterPlot;
  void updatePlane();
  void showError(const QString &message);

  std::shared_ptr<const NpzFile> m_reference, m_target;
  QString m_referenceLabel, m_targetLabel;
  std::map<std::string, double> m_thresholds;
  QString m_name;
  std::vector<float> m_referenceValues, m_targetValues;
  PlaneLayout m_layout;
  int64_t m_plane = 0;
  TensorPairStats m_stats;
  TensorHistogram m_histogram;
  double m_valueLo = 0, m_valueHi = 1;
  QComboBox *m_tensors;
  QLabel *m_shape, *m_planeName, *m_error, *m_statsLabel;
  QSpinBox *m_planeBox;
  QCheckBox *m_wholeScale;
  HeatMapView *m_referenceMap, *m_targetMap, *m_differenceMap;
  HistogramPlot *m_histogramPlot;
  ScatterPlot *m_scatterPlot;
};

} // namespace tpuc::vis

#endif
