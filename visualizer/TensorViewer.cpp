// The tensor viewer: reference, target and difference of one layer, with histogram, scatter and statistics.
#include "visualizer/TensorViewer.h"

#include "tpuc/Support/FloatConvert.h"
#include "tpuc/Support/Npz.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QSpinBox>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace tpuc::vis {

namespace {

/// Linear interpolation between colour stops at t in [0, 1].
QColor ramp(const std::vector<QColor> &stops, double t) {
  t = std::clamp(t, 0.0, 1.0) * static_cast<double>(stops.size() - 1);
  const size_t i = std::min(static_cast<size_t>(t), stops.size() - 2);
  const double f = t - static_cast<double>(i);
  const QColor &a = stops[i], &b = stops[i + 1];
  return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * f),
                          static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * f),
                          static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * f));
}

const std::vector<QColor> &divergingStops() {
  static const std::vector<QColor> stops = {QColor(33, 102, 172), QColor(146, 197, 222),
                                            QColor(247, 247, 247), QColor(244, 165, 130),
                                            QColor(178, 24, 43)};
  return stops;
}

const std::vector<QColor> &
sequentialStops() { // dark blue-violet to yellow, readable in light and dark themes
  static const std::vector<QColor> stops = {QColor(48, 18, 59), QColor(50, 100, 200), QColor(40, 180, 160),
                                            QColor(170, 220, 60), QColor(250, 240, 80)};
  return stops;
}

QString number(double v) {
  if (std::isnan(v))
    return QStringLiteral("nan");
  if (std::isinf(v))
    return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
  return QString::number(v, 'g', 5);
}

QString percent(double share) {
  return QString::number(share * 100, 'f', share < 0.001 && share > 0 ? 4 : 2) + '%';
}

} // namespace

// --- HeatMapView ------------------------------------------------------------------------------------------

HeatMapView::HeatMapView(QWidget *parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumSize(fontMetrics().height() * 8, fontMetrics().height() * 8);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

QSize HeatMapView::sizeHint() const { return {fontMetrics().height() * 16, fontMetrics().height() * 17}; }

void HeatMapView::setTitle(const QString &title) {
  m_title = title;
  update();
}

QColor HeatMapView::colorOf(double value) const {
  if (!std::isfinite(value))
    return QColor(255, 0, 255); // NaN and Inf stand out
  if (m_diverging) {
    const double extent = std::max(std::abs(m_lo), std::abs(m_hi));
    return ramp(divergingStops(), extent > 0 ? 0.5 + value / (2 * extent) : 0.5);
  }
  return ramp(sequentialStops(), m_hi > m_lo ? (value - m_lo) / (m_hi - m_lo) : 0.5);
}

void HeatMapView::setPlane(std::vector<float> values, int64_t rows, int64_t cols, double lo, double hi,
                           bool diverging) {
  m_values = std::move(values);
  m_rows = rows;
  m_cols = cols;
  m_lo = lo;
  m_hi = hi;
  m_diverging = diverging;
  m_image = QImage(static_cast<int>(std::max<int64_t>(cols, 1)), static_cast<int>(std::max<int64_t>(rows, 1)),
                   QImage::Format_RGB32);
  m_image.fill(palette().color(QPalette::Base));
  for (int64_t r = 0; r < rows; ++r) {
    auto *line = reinterpret_cast<QRgb *>(m_image.scanLine(static_cast<int>(r)));
    for (int64_t c = 0; c < cols; ++c)
      line[c] = colorOf(m_values[static_cast<size_t>(r * cols + c)]).rgb();
  }
  update();
}

QRect HeatMapView::imageRect() const {
  const int line = fontMetrics().height();
  const QRect area = rect().adjusted(2, line + 4, -2, -line - 8);
  if (m_image.isNull() || area.width() <= 0 || area.height() <= 0)
    return {};
  // Whole pixels per cell when they fit (sharp cells), else scaled to fit, aspect kept.
  QSize size = m_image.size().scaled(area.size(), Qt::KeepAspectRatio);
  if (m_image.width() <= area.width() && m_image.height() <= area.height()) {
    const int k = std::max(1, std::min(area.width() / m_image.width(), area.height() / m_image.height()));
    size = m_image.size() * k;
  }
  return QRect(area.x() + (area.width() - size.width()) / 2, area.y(), size.width(), size.height());
}

void HeatMapView::paintEvent(QPaintEvent *) {
  QPainter p(this);
  const int line = fontMetrics().height();
  p.setPen(palette().color(QPalette::WindowText));
  p.drawText(QRect(0, 0, width(), line + 2), Qt::AlignHCenter | Qt::AlignVCenter,
             fontMetrics().elidedText(m_title, Qt::ElideRight, width()));
  const QRect target = imageRect();
  if (target.isEmpty())
    return;
  p.drawImage(target, m_image);
  p.setPen(palette().color(QPalette::Mid));
  p.drawRect(target.adjusted(0, 0, -1, -1));
  // The colour bar under the image, with its range.
  const QRect bar(target.x(), target.bottom() + 4, target.width(), line / 2);
  for (int x = 0; x < bar.width(); ++x) {
    const double t = bar.width() > 1 ? static_cast<double>(x) / (bar.width() - 1) : 0.5;
    const double extent = std::max(std::abs(m_lo), std::abs(m_hi));
    const double v = m_diverging ? -extent + 2 * extent * t : m_lo + (m_hi - m_lo) * t;
    p.setPen(colorOf(v));
    p.drawLine(bar.x() + x, bar.top(), bar.x() + x, bar.bottom());
  }
  p.setPen(palette().color(QPalette::WindowText));
  const double extent = std::max(std::abs(m_lo), std::abs(m_hi));
  const QString lo = number(m_diverging ? -extent : m_lo), hi = number(m_diverging ? extent : m_hi);
  const QRect labels(bar.x(), bar.bottom() + 1, bar.width(), line);
  p.drawText(labels, Qt::AlignLeft | Qt::AlignTop, lo);
  p.drawText(labels, Qt::AlignRight | Qt::AlignTop, hi);
}

void HeatMapView::mouseMoveEvent(QMouseEvent *event) {
  const QRect target = imageRect();
  if (target.isEmpty() || !target.contains(event->position().toPoint()) || m_values.empty()) {
    QToolTip::hideText();
    return;
  }
  const int64_t c = static_cast<int64_t>((event->position().x() - target.x()) * m_cols / target.width());
  const int64_t r = static_cast<int64_t>((event->position().y() - target.y()) * m_rows / target.height());
  if (r < 0 || c < 0 || r >= m_rows || c >= m_cols)
    return;
  QToolTip::showText(
      event->globalPosition().toPoint(),
      tr("row %1, column %2: %3").arg(r).arg(c).arg(number(m_values[static_cast<size_t>(r * m_cols + c)])),
      this);
}

// --- Histogram and scatter
// ----------------------------------------------------------------------------------

class TensorViewer::HistogramPlot : public QWidget {
public:
  explicit HistogramPlot(QWidget *parent) : QWidget(parent) {
    setMinimumSize(fontMetrics().height() * 14, fontMetrics().height() * 9);
  }
  const TensorHistogram *histogram = nullptr;
  double threshold = 0;
  QString referenceLabel, targetLabel;

protected:
  void paintEvent(QPaintEvent *) override {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const int line = fontMetrics().height();
    const QRect plot = rect().adjusted(line / 2, line + 4, -line / 2, -line - 4);
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRect(0, 0, width(), line + 2), Qt::AlignHCenter, tr("Histogram (log counts)"));
    if (!histogram || histogram->reference.empty() || plot.width() < 10 || plot.height() < 10)
      return;
    const TensorHistogram &h = *histogram;
    size_t top = 1;
    for (size_t i = 0; i < h.reference.size(); ++i)
      top = std::max({top, h.reference[i], h.target[i]});
    const double logTop = std::log10(static_cast<double>(top) + 1);
    auto x = [&](double v) { return plot.left() + (v - h.lo) / (h.hi - h.lo) * plot.width(); };
    auto y = [&](size_t count) {
      return plot.bottom() - std::log10(static_cast<double>(count) + 1) / logTop * plot.height();
    };
    // The quantization grid (every step of T / 127) when its lines are at least 4 pixels apart.
    if (threshold > 0) {
      const double step = threshold / 127;
      const double pixels = step / (h.hi - h.lo) * plot.width();
      QColor grid = palette().color(QPalette::Mid);
      grid.setAlpha(90);
      if (pixels >= 4) {
        p.setPen(QPen(grid, 0));
        for (double v = -threshold; v <= threshold + step / 2; v += step)
          if (v >= h.lo && v <= h.hi)
            p.drawLine(QPointF(x(v), plot.top()), QPointF(x(v), plot.bottom()));
      }
    }
    auto curve = [&](const std::vector<size_t> &counts, QColor color) {
      QPainterPath path;
      const double w = static_cast<double>(plot.width()) / static_cast<double>(counts.size());
      path.moveTo(plot.left(), plot.bottom());
      for (size_t i = 0; i < counts.size(); ++i) {
        path.lineTo(plot.left() + w * static_cast<double>(i), y(counts[i]));
        path.lineTo(plot.left() + w * static_cast<double>(i + 1), y(counts[i]));
      }
      path.lineTo(plot.right(), plot.bottom());
      QColor fill = color;
      fill.setAlpha(60);
      p.fillPath(path, fill);
      p.setPen(QPen(color, 1.2));
      p.drawPath(path);
    };
    curve(h.reference, QColor(33, 102, 172));
    curve(h.target, QColor(214, 96, 77));
    if (threshold > 0) {
      p.setPen(QPen(palette().color(QPalette::WindowText), 1.5, Qt::DashLine));
      for (double t : {-threshold, threshold})
        if (t >= h.lo && t <= h.hi)
          p.drawLine(QPointF(x(t), plot.top()), QPointF(x(t), plot.bottom()));
    }
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(plot);
    p.setPen(palette().color(QPalette::WindowText));
    const QRect axis(plot.left(), plot.bottom() + 2, plot.width(), line);
    p.drawText(axis, Qt::AlignLeft, number(h.lo));
    p.drawText(axis, Qt::AlignRight, number(h.hi));
    p.drawText(axis, Qt::AlignHCenter,
               threshold > 0 ? tr("±T = %1").arg(number(threshold)) : QStringLiteral("0"));
    // Legend.
    const int box = line / 2;
    int lx = plot.left() + 4;
    for (auto [label, color] :
         {std::pair{referenceLabel, QColor(33, 102, 172)}, std::pair{targetLabel, QColor(214, 96, 77)}}) {
      p.fillRect(lx, plot.top() + 4, box, box, color);
      p.drawText(lx + box + 3, plot.top() + 4 + box, label);
      lx += box + 10 + fontMetrics().horizontalAdvance(label);
    }
  }
};

class TensorViewer::ScatterPlot : public QWidget {
public:
  explicit ScatterPlot(QWidget *parent) : QWidget(parent) {
    setMinimumSize(fontMetrics().height() * 9, fontMetrics().height() * 9);
  }
  const std::vector<float> *reference = nullptr, *target = nullptr;
  QString referenceLabel, targetLabel;

protected:
  void paintEvent(QPaintEvent *) override {
    QPainter p(this);
    const int line = fontMetrics().height();
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRect(0, 0, width(), line + 2), Qt::AlignHCenter,
               tr("%1 against %2").arg(targetLabel, referenceLabel));
    const int side = std::min(width() - line, height() - 2 * line - 8);
    if (!reference || !target || reference->empty() || side < 20)
      return;
    const QRect plot((width() - side) / 2, line + 4, side, side);
    double extent = 0;
    for (const std::vector<float> *values : {reference, target})
      for (float v : *values)
        if (std::isfinite(v))
          extent = std::max(extent, static_cast<double>(std::abs(v)));
    if (extent == 0)
      extent = 1;
    auto px = [&](double v) { return plot.left() + (v + extent) / (2 * extent) * plot.width(); };
    auto py = [&](double v) { return plot.bottom() - (v + extent) / (2 * extent) * plot.height(); };
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(plot);
    p.drawLine(QPointF(px(-extent), py(-extent)), QPointF(px(extent), py(extent)));
    // At most 20,000 points, a fixed sample so the picture does not flicker between repaints.
    const size_t n = reference->size();
    const size_t stride = std::max<size_t>(1, n / 20000);
    QColor dot(214, 96, 77);
    dot.setAlpha(n > 2000 ? 70 : 160);
    p.setPen(Qt::NoPen);
    p.setBrush(dot);
    for (size_t i = 0; i < n; i += stride) {
      const double r = (*reference)[i], t = (*target)[i];
      if (std::isfinite(r) && std::isfinite(t))
        p.drawRect(QRectF(px(r) - 1, py(t) - 1, 2, 2));
    }
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRect(plot.left(), plot.bottom() + 2, plot.width(), line), Qt::AlignHCenter,
               tr("±%1").arg(number(extent)));
  }
};

// --- TensorViewer
// ---------------------------------------------------------------------------------------------

TensorViewer::TensorViewer(QWidget *parent)
    : QWidget(parent), m_tensors(new QComboBox(this)), m_shape(new QLabel(this)),
      m_planeName(new QLabel(this)), m_error(new QLabel(this)), m_statsLabel(new QLabel(this)),
      m_planeBox(new QSpinBox(this)), m_wholeScale(new QCheckBox(tr("Whole-tensor colour scale"), this)),
      m_referenceMap(new HeatMapView(this)), m_targetMap(new HeatMapView(this)),
      m_differenceMap(new HeatMapView(this)), m_histogramPlot(new HistogramPlot(this)),
      m_scatterPlot(new ScatterPlot(this)) {
  m_tensors->setObjectName(QStringLiteral("tensorChoice"));
  m_tensors->setToolTip(tr("The layer's output, or one of its inputs"));
  m_tensors->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  connect(m_tensors, &QComboBox::activated, this,
          [this](int i) { showTensor(m_tensors->itemData(i).toString()); });
  m_planeBox->setObjectName(QStringLiteral("planeBox"));
  m_planeBox->setToolTip(
      tr("The plane shown: the leading dimensions (N and C of NCHW, the batch of token × hidden)"));
  connect(m_planeBox, &QSpinBox::valueChanged, this, [this](int v) { setPlane(v); });
  m_wholeScale->setToolTip(tr("Colour every plane on the range of the whole tensor (planes compare with each "
                              "other), instead of each plane on its own range (its structure shows)"));
  connect(m_wholeScale, &QCheckBox::toggled, this, [this] { updatePlane(); });
  m_error->setWordWrap(true);
  m_error->setStyleSheet(
      QStringLiteral("color: palette(highlighted-text); background: #b2182b; padding: 4px;"));
  m_error->hide();
  m_statsLabel->setObjectName(QStringLiteral("tensorStats"));
  m_statsLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_statsLabel->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  m_statsLabel->setWordWrap(true);
  m_statsLabel->setMinimumWidth(fontMetrics().averageCharWidth() * 34);

  auto *top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Tensor"), this));
  top->addWidget(m_tensors);
  top->addWidget(m_shape);
  top->addStretch(1);
  top->addWidget(new QLabel(tr("Plane"), this));
  top->addWidget(m_planeBox);
  top->addWidget(m_planeName);
  top->addWidget(m_wholeScale);
  auto *maps = new QHBoxLayout;
  maps->addWidget(m_referenceMap);
  maps->addWidget(m_targetMap);
  maps->addWidget(m_differenceMap);
  auto *bottom = new QHBoxLayout;
  bottom->addWidget(m_histogramPlot, 3);
  bottom->addWidget(m_scatterPlot, 2);
  bottom->addWidget(m_statsLabel, 2);
  auto *layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(m_error);
  layout->addLayout(maps, 3);
  layout->addLayout(bottom, 2);
}

TensorViewer::~TensorViewer() = default;

void TensorViewer::setFiles(std::shared_ptr<const NpzFile> reference, std::shared_ptr<const NpzFile> target,
                            const QString &referenceLabel, const QString &targetLabel) {
  m_reference = std::move(reference);
  m_target = std::move(target);
  m_referenceLabel = referenceLabel;
  m_targetLabel = targetLabel;
  m_histogramPlot->referenceLabel = m_scatterPlot->referenceLabel = referenceLabel;
  m_histogramPlot->targetLabel = m_scatterPlot->targetLabel = targetLabel;
}

void TensorViewer::setThresholds(std::map<std::string, double> thresholds) {
  m_thresholds = std::move(thresholds);
}

void TensorViewer::showError(const QString &message) {
  m_error->setText(message);
  m_error->setVisible(!message.isEmpty());
}

bool TensorViewer::showLayer(const QString &name, const QStringList &inputs, QString *error) {
  m_tensors->clear();
  m_tensors->addItem(tr("%1 (output)").arg(name), name);
  for (const QString &input : inputs)
    m_tensors->addItem(tr("%1 (input)").arg(input), input);
  return showTensor(name, error);
}

bool TensorViewer::showTensor(const QString &name, QString *error) {
  auto fail = [&](const QString &message) {
    showError(message);
    if (error)
      *error = message;
    return false;
  };
  if (!m_reference || !m_target)
    return fail(tr("No tensor files to show."));
  const std::string key = name.toStdString();
  if (!m_reference->has(key))
    return fail(tr("%1 has no tensor '%2'.").arg(m_referenceLabel, name));
  if (!m_target->has(key))
    return fail(tr("%1 has no tensor '%2'.").arg(m_targetLabel, name));
  const Tensor reference = toF32Tensor(m_reference->get(key)), target = toF32Tensor(m_target->get(key));
  if (reference.shape() != target.shape())
    return fail(tr("'%1' has shape %2 in %3 but %4 in %5.")
                    .arg(name, QString::fromStdString(shapeToString(reference.shape())), m_referenceLabel,
                         QString::fromStdString(shapeToString(target.shape())), m_targetLabel));
  showError({});
  m_name = name;
  m_referenceValues.assign(reference.values<float>().begin(), reference.values<float>().end());
  m_targetValues.assign(target.values<float>().begin(), target.values<float>().end());
  m_layout = planeLayout(reference.shape());
  auto it = m_thresholds.find(key);
  const double threshold = it == m_thresholds.end() ? 0 : it->second;
  m_stats = compareTensors(m_referenceValues, m_targetValues, threshold);
  m_histogram = histogramOf(m_referenceValues, m_targetValues, 128, 0, 0, threshold);
  // One colour range for reference and target over the whole tensor, so planes compare.
  m_valueLo = std::min(m_stats.referenceMin, m_stats.targetMin);
  m_valueHi = std::max(m_stats.referenceMax, m_stats.targetMax);
  m_histogramPlot->histogram = &m_histogram;
  m_histogramPlot->threshold = threshold;
  m_scatterPlot->reference = &m_referenceValues;
  m_scatterPlot->target = &m_targetValues;
  m_shape->setText(QString::fromStdString(shapeToString(reference.shape())));
  if (const int i = m_tensors->findData(name); i >= 0)
    m_tensors->setCurrentIndex(i);
  {
    const QSignalBlocker block(m_planeBox);
    m_planeBox->setRange(0, static_cast<int>(std::max<int64_t>(0, m_layout.planes - 1)));
    m_planeBox->setValue(0);
    m_planeBox->setEnabled(m_layout.planes > 1);
  }
  m_plane = 0;
  m_statsLabel->setText(statsText().toHtmlEscaped().replace('\n', QStringLiteral("<br>")));
  updatePlane();
  m_histogramPlot->update();
  m_scatterPlot->update();
  Q_EMIT tensorShown(name);
  return true;
}

QString TensorViewer::statsText() const {
  const TensorPairStats &s = m_stats;
  QStringList lines;
  lines << tr("elements: %1").arg(s.count) << tr("cosine: %1").arg(QString::number(s.cosine, 'f', 6))
        << tr("SQNR: %1 dB").arg(number(s.sqnrDb)) << tr("max |Δ|: %1").arg(number(s.maxAbsDiff))
        << tr("mean |Δ|: %1").arg(number(s.meanAbsDiff))
        << tr("%1 range: %2 … %3").arg(m_referenceLabel, number(s.referenceMin), number(s.referenceMax))
        << tr("%1 range: %2 … %3").arg(m_targetLabel, number(s.targetMin), number(s.targetMax))
        << tr("NaN / Inf: %1 / %2 in %3, %4 / %5 in %6")
               .arg(s.referenceNan)
               .arg(s.referenceInf)
               .arg(m_referenceLabel)
               .arg(s.targetNan)
               .arg(s.targetInf)
               .arg(m_targetLabel);
  if (s.hasThreshold)
    lines << tr("threshold T: %1 (step %2)").arg(number(s.threshold), number(s.threshold / 127))
          << tr("clipped (|x| > T): %1").arg(percent(s.clippedShare))
          << tr("saturated at ±127: %1").arg(percent(s.saturatedShare));
  else
    lines << tr("no calibration threshold for this tensor");
  return lines.join('\n');
}

void TensorViewer::setPlane(int64_t plane) {
  m_plane = std::clamp<int64_t>(plane, 0, std::max<int64_t>(0, m_layout.planes - 1));
  if (m_planeBox->value() != m_plane) {
    const QSignalBlocker block(m_planeBox);
    m_planeBox->setValue(static_cast<int>(m_plane));
  }
  updatePlane();
}

void TensorViewer::updatePlane() {
  const std::span<const float> ref = planeOf(m_referenceValues, m_layout, m_plane);
  const std::span<const float> tgt = planeOf(m_targetValues, m_layout, m_plane);
  std::vector<float> diff(ref.size());
  double extent = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    diff[i] = tgt[i] - ref[i];
    if (std::isfinite(diff[i]))
      extent = std::max(extent, static_cast<double>(std::abs(diff[i])));
  }
  const bool signedValues = m_valueLo < 0 && m_valueHi > 0;
  m_referenceMap->setPlane({ref.begin(), ref.end()}, m_layout.rows, m_layout.cols, m_valueLo, m_valueHi,
                           signedValues);
  m_targetMap->setPlane({tgt.begin(), tgt.end()}, m_layout.rows, m_layout.cols, m_valueLo, m_valueHi,
                        signedValues);
  m_differenceMap->setPlane(std::move(diff), m_layout.rows, m_layout.cols, -extent, extent, true);
  m_referenceMap->setTitle(m_referenceLabel);
  m_targetMap->setTitle(m_targetLabel);
  m_differenceMap->setTitle(tr("%1 − %2").arg(m_targetLabel, m_referenceLabel));
  m_planeName->setText(
      m_layout.planes > 1
          ? tr("of %1 (%2)").arg(m_layout.planes).arg(QString::fromStdString(m_layout.planeName(m_plane)))
          : QString());
}

} // namespace tpuc::vis
