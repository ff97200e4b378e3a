// Reading per-layer comparisons (deploy's side-by-side JSON, compare's JSON, a run's layer metrics).
#include "ui/views/AccuracyReport.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <limits>

namespace tpuc::ui {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// JSON has no NaN or infinity: tpuc writes them as "nan", "inf", "-inf"; the run history as null or text.
double number(const QJsonValue &v) {
  if (v.isDouble())
    return v.toDouble();
  const QString text = v.toString();
  if (text == QLatin1String("inf"))
    return std::numeric_limits<double>::infinity();
  if (text == QLatin1String("-inf"))
    return -std::numeric_limits<double>::infinity();
  return kNaN;
}

QJsonValue jsonNumber(double v) {
  if (std::isnan(v))
    return QJsonValue::Null;
  if (std::isinf(v))
    return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
  return v;
}

// One comparison object. Key names of both writers: deploy/compare use "max_abs_diff", the run history
// "maxAbsDiff".
LayerMetrics metricsOf(const QJsonObject &o) {
  LayerMetrics m;
  if (o.isEmpty())
    return m;
  m.present = true;
  m.status = o.value(QStringLiteral("status")).toString().toUpper();
  m.passed = o.value(QStringLiteral("pass")).toBool();
  m.cosine = number(o.value(QStringLiteral("cosine")));
  m.euclidean = number(o.value(QStringLiteral("euclidean")));
  m.sqnr = number(o.value(QStringLiteral("sqnr")));
  m.maxAbsDiff = number(o.contains(QStringLiteral("maxAbsDiff")) ? o.value(QStringLiteral("maxAbsDiff"))
                                                                   : o.value(QStringLiteral("max_abs_diff")));
  return m;
}

QJsonObject metricsJson(const LayerMetrics &m) {
  return {{QStringLiteral("status"), m.status},       {QStringLiteral("pass"), m.passed},
          {QStringLiteral("cosine"), jsonNumber(m.cosine)}, {QStringLiteral("euclidean"), jsonNumber(m.euclidean)},
          {QStringLiteral("sqnr"), jsonNumber(m.sqnr)},     {QStringLiteral("maxAbsDiff"), jsonNumber(m.maxAbsDiff)}};
}

void finish(AccuracyReport &report) {
  for (std::size_t i = 0; i < report.layers.size(); ++i) {
    LayerAccuracy &layer = report.layers[i];
    layer.order = static_cast<int>(i);
    if (report.firstFailing.isEmpty() && layer.accumulated.present && !layer.accumulated.passed)
      report.firstFailing = layer.name;
  }
}

} // namespace

bool AccuracyReport::hasIsolated() const {
  for (const LayerAccuracy &layer : layers)
    if (layer.isolated.present)
      return true;
  return false;
}

double toleranceHeadroom(const LayerMetrics &metrics, double toleranceCosine, double toleranceEuclidean) {
  if (!metrics.present)
    return kNaN;
  auto room = [](double value, double tolerance) {
    return tolerance > 0 && tolerance < 1 ? (value - tolerance) / (1 - tolerance) : value;
  };
  if (toleranceCosine <= 0 && toleranceEuclidean <= 0)
    return metrics.cosine;
  // A NaN metric (not computed) does not decide; std::fmin keeps the other.
  return std::fmin(room(metrics.cosine, toleranceCosine), room(metrics.euclidean, toleranceEuclidean));
}

int AccuracyReport::indexOf(const QString &name) const {
  for (std::size_t i = 0; i < layers.size(); ++i)
    if (layers[i].name == name)
      return static_cast<int>(i);
  return -1;
}

std::optional<AccuracyReport> parseAccuracyJson(const QByteArray &json, QString *error) {
  QJsonParseError parseError;
  const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
  if (parseError.error != QJsonParseError::NoError) {
    *error = QStringLiteral("not JSON: %1 at offset %2").arg(parseError.errorString()).arg(parseError.offset);
    return std::nullopt;
  }
  const QJsonObject root = doc.object();
  AccuracyReport report;
  const QJsonObject tolerance = root.value(QStringLiteral("tolerance")).toObject();
  report.toleranceCosine = tolerance.value(QStringLiteral("cosine")).toDouble();
  report.toleranceEuclidean = tolerance.value(QStringLiteral("euclidean")).toDouble();
  if (root.value(QStringLiteral("layers")).isArray()) { // tpuc deploy --compare_all
    for (const QJsonValue &value : root.value(QStringLiteral("layers")).toArray()) {
      const QJsonObject o = value.toObject();
      LayerAccuracy layer;
      layer.name = o.value(QStringLiteral("name")).toString();
      layer.accumulated = metricsOf(o.value(QStringLiteral("accumulated")).toObject());
      layer.isolated = metricsOf(o.value(QStringLiteral("isolated")).toObject());
      if (layer.name.isEmpty() || !layer.accumulated.present) {
        *error = QStringLiteral("layer %1 has no name or no accumulated metrics").arg(report.layers.size());
        return std::nullopt;
      }
      report.layers.push_back(std::move(layer));
    }
  } else if (root.value(QStringLiteral("results")).isArray()) { // tpuc compare --format json
    for (const QJsonValue &value : root.value(QStringLiteral("results")).toArray()) {
      const QJsonObject o = value.toObject();
      LayerAccuracy layer;
      layer.name = o.value(QStringLiteral("name")).toString();
      layer.accumulated = metricsOf(o);
      if (layer.name.isEmpty()) {
        *error = QStringLiteral("result %1 has no name").arg(report.layers.size());
        return std::nullopt;
      }
      report.layers.push_back(std::move(layer));
    }
  } else {
    *error = QStringLiteral("neither a deploy comparison (\"layers\") nor a compare report (\"results\")");
    return std::nullopt;
  }
  finish(report);
  return report;
}

AccuracyReport accuracyOfRun(const project::RunRecord &run) {
  AccuracyReport report;
  const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(run.layerMetricsJson));
  for (const QJsonValue &value : doc.array()) {
    const QJsonObject o = value.toObject();
    LayerAccuracy layer;
    layer.name = o.value(QStringLiteral("name")).toString();
    // Rows of ops the simulator timed but no compare covered (cycles only) are not accuracy rows.
    if (layer.name.isEmpty() || !o.contains(QStringLiteral("cosine")))
      continue;
    layer.accumulated = metricsOf(o);
    layer.isolated = metricsOf(o.value(QStringLiteral("isolated")).toObject());
    report.layers.push_back(std::move(layer));
  }
  const QJsonObject summary = QJsonDocument::fromJson(QByteArray::fromStdString(run.summaryJson)).object();
  const QJsonObject tolerance = summary.value(QStringLiteral("tolerance")).toObject();
  report.toleranceCosine = tolerance.value(QStringLiteral("cosine")).toDouble();
  report.toleranceEuclidean = tolerance.value(QStringLiteral("euclidean")).toDouble();
  finish(report);
  return report;
}

QJsonArray layerMetricsJson(const AccuracyReport &report) {
  QJsonArray out;
  for (const LayerAccuracy &layer : report.layers) {
    QJsonObject o = metricsJson(layer.accumulated);
    o.insert(QStringLiteral("name"), layer.name);
    if (layer.isolated.present)
      o.insert(QStringLiteral("isolated"), metricsJson(layer.isolated));
    out.append(o);
  }
  return out;
}

} // namespace tpuc::ui
