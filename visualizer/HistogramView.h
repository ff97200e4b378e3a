// A histogram widget: bins a list of values and draws them with the palette, sized from the font.
#ifndef TPUC_VISUALIZER_HISTOGRAMVIEW_H
#define TPUC_VISUALIZER_HISTOGRAMVIEW_H

#include <QVector>
#include <QWidget>

namespace tpuc::vis {

/// Counts of equal-width bins over [lo, hi]; values outside go to the edge bins.
struct Histogram {
  double lo = 0, hi = 0;
  QVector<int> counts;
  /// Bins `values` into `bins` bins spanning their min..max (one bin when all values are equal).
  static Histogram of(const QVector<double> &values, int bins);
  int maxCount() const;
};

/// Draws a histogram with axis labels. Colours come from the widget's palette, so it follows light and
/// dark themes; sizes come from the font, so it is HiDPI-clean. No application state.
class HistogramView : public QWidget {
  Q_OBJECT
public:
  explicit HistogramView(QWidget *parent = nullptr);

  void setValues(const QVector<double> &values, int bins = 32);
  void setTitle(const QString &title);
  const Histogram &histogram() const { return m_histogram; }

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

protected:
  void paintEvent(QPaintEvent *event) override;

private:
  Histogram m_histogram;
  QString m_title;
  int m_valueCount = 0;
};

} // namespace tpuc::vis

#endif
