// Reads `tpuc calibrate --report` folders with QJsonDocument. Field checks throw a local error naming the
// file and field, turned into the one-line Failure at parseCalibrationReport's edge.
#include "visualizer/CalibrationReport.h"

#include <QDir>
#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tpuc::vis {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kVersion = 1;

/// A malformed field: "<file>: <field>: <what>".
struct FieldError {
  QString message;
};

/// Reads the fields of one file, naming the file and the field path in every error.
class FieldReader {
public:
  explicit FieldReader(QString file) : m_file(std::move(file)) {}

  [[noreturn]] void fail(const QString &field, const QString &what) const {
    throw FieldError{field.isEmpty() ? QStringLiteral("%1: %2").arg(m_file, what)
                                     : QStringLiteral("%1: %2: %3").arg(m_file, field, what)};
  }

  QJsonObject document(const QByteArray &bytes, const QString &schema) const {
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError)
      fail({}, QStringLiteral("not JSON: %1 at byte %2").arg(error.errorString()).arg(error.offset));
    if (!doc.isObject())
      fail({}, QStringLiteral("expected a JSON object"));
    const QJsonObject root = doc.object();
    const QString found = string(root, QStringLiteral("schema"), {});
    if (found != schema)
      fail(QStringLiteral("schema"), QStringLiteral("expected '%1', found '%2'").arg(schema, found));
    const qint64 version = integer(root, QStringLiteral("version"), {});
    if (version < 1 || version > kVersion)
      fail(QStringLiteral("version"),
           QStringLiteral("version %1 is not one this studio reads (1 to %2)").arg(version).arg(kVersion));
    return root;
  }

  QJsonValue member(const QJsonObject &object, const QString &key, const QString &path) const {
    const QJsonValue value = object.value(key);
    if (value.isUndefined())
      fail(join(path, key), QStringLiteral("missing"));
    return value;
  }

  QString string(const QJsonObject &object, const QString &key, const QString &path) const {
    const QJsonValue value = member(object, key, path);
    if (!value.isString())
      fail(join(path, key), QStringLiteral("expected a string"));
    return value.toString();
  }

  /// A number; null reads as NaN (the engine writes non-finite values as null).
  double number(const QJsonValue &value, const QString &field) const {
    if (value.isNull())
      return kNaN;
    if (!value.isDouble())
      fail(field, QStringLiteral("expected a number or null"));
    return value.toDouble();
  }
  double number(const QJsonObject &object, const QString &key, const QString &path) const {
    return number(member(object, key, path), join(path, key));
  }

  qint64 integer(const QJsonValue &value, const QString &field) const {
    const double v = value.toDouble(kNaN);
    // 2^53: every integer below is exact in a double.
    if (!value.isDouble() || v != std::floor(v) || v < 0 || v > 9007199254740992.0)
      fail(field, QStringLiteral("expected a non-negative integer"));
    return static_cast<qint64>(v);
  }
  qint64 integer(const QJsonObject &object, const QString &key, const QString &path) const {
    return integer(member(object, key, path), join(path, key));
  }

  bool boolean(const QJsonObject &object, const QString &key, const QString &path) const {
    const QJsonValue value = member(object, key, path);
    if (!value.isBool())
      fail(join(path, key), QStringLiteral("expected true or false"));
    return value.toBool();
  }

  QJsonArray array(const QJsonObject &object, const QString &key, const QString &path) const {
    const QJsonValue value = member(object, key, path);
    if (!value.isArray())
      fail(join(path, key), QStringLiteral("expected an array"));
    return value.toArray();
  }

  QJsonObject object(const QJsonValue &value, const QString &field) const {
    if (!value.isObject())
      fail(field, QStringLiteral("expected an object"));
    return value.toObject();
  }

  static QString join(const QString &path, const QString &key) {
    return path.isEmpty() ? key : path + QLatin1Char('.') + key;
  }
  static QString at(const QString &path, qsizetype i) { return QStringLiteral("%1[%2]").arg(path).arg(i); }

private:
  QString m_file;
};

void readHistograms(const FieldReader &r, const QJsonObject &root, CalibrationReport &report) {
  report.samples = r.integer(root, QStringLiteral("samples"), {});
  const qint64 bins = r.integer(root, QStringLiteral("bins"), {});
  if (bins > (1 << 24))
    r.fail(QStringLiteral("bins"), QStringLiteral("%1 bins is more than a report holds").arg(bins));
  report.bins = static_cast<int>(bins);
  report.chosen = r.string(root, QStringLiteral("chosen"), {});
  const QJsonArray tensors = r.array(root, QStringLiteral("tensors"), {});
  QHash<QString, int> seen;
  for (qsizetype i = 0; i < tensors.size(); ++i) {
    const QString path = FieldReader::at(QStringLiteral("tensors"), i);
    const QJsonObject t = r.object(tensors[i], path);
    TensorReport tensor;
    tensor.name = r.string(t, QStringLiteral("name"), path);
    if (tensor.name.isEmpty())
      r.fail(FieldReader::join(path, QStringLiteral("name")), QStringLiteral("empty"));
    if (seen.contains(tensor.name))
      r.fail(FieldReader::join(path, QStringLiteral("name")),
             QStringLiteral("'%1' is listed twice (also tensors[%2])")
                 .arg(tensor.name)
                 .arg(seen.value(tensor.name)));
    seen.insert(tensor.name, static_cast<int>(i));
    tensor.count = r.integer(t, QStringLiteral("count"), path);
    tensor.zeros = r.integer(t, QStringLiteral("zeros"), path);
    tensor.min = r.number(t, QStringLiteral("min"), path);
    tensor.max = r.number(t, QStringLiteral("max"), path);
    tensor.absMax = r.number(t, QStringLiteral("abs_max"), path);
    tensor.mean = r.number(t, QStringLiteral("mean"), path);
    tensor.std = r.number(t, QStringLiteral("std"), path);
    tensor.binWidth = r.number(t, QStringLiteral("bin_width"), path);
    if (tensor.binWidth < 0)
      r.fail(FieldReader::join(path, QStringLiteral("bin_width")), QStringLiteral("negative"));
    const QString histogramPath = FieldReader::join(path, QStringLiteral("histogram"));
    const QJsonArray histogram = r.array(t, QStringLiteral("histogram"), path);
    tensor.histogram.reserve(histogram.size());
    for (qsizetype j = 0; j < histogram.size(); ++j) {
      const double count = r.number(histogram[j], FieldReader::at(histogramPath, j));
      if (!(count >= 0)) // also NaN: a count is never null
        r.fail(FieldReader::at(histogramPath, j), QStringLiteral("expected a count (a number >= 0)"));
      tensor.histogram.push_back(count);
    }
    const QString thresholdsPath = FieldReader::join(path, QStringLiteral("thresholds"));
    const QJsonObject thresholds = r.object(r.member(t, QStringLiteral("thresholds"), path), thresholdsPath);
    for (auto it = thresholds.begin(); it != thresholds.end(); ++it)
      tensor.thresholds.push_back(
          {it.key(), r.number(it.value(), FieldReader::join(thresholdsPath, it.key()))});
    report.tensors.push_back(std::move(tensor));
  }
}

void readConvergence(const FieldReader &r, const QJsonObject &root, CalibrationReport &report) {
  report.method = r.string(root, QStringLiteral("method"), {});
  report.tolerance = r.number(root, QStringLiteral("tolerance"), {});
  if (!(report.tolerance > 0 && report.tolerance < 1))
    r.fail(QStringLiteral("tolerance"), QStringLiteral("expected a fraction between 0 and 1"));
  const qint64 samples = r.integer(root, QStringLiteral("samples"), {});
  if (samples != report.samples)
    r.fail(QStringLiteral("samples"),
           QStringLiteral("%1, but histograms.json counts %2 samples").arg(samples).arg(report.samples));
  const QJsonArray checkpoints = r.array(root, QStringLiteral("checkpoints"), {});
  for (qsizetype i = 0; i < checkpoints.size(); ++i) {
    const QString field = FieldReader::at(QStringLiteral("checkpoints"), i);
    const qint64 k = r.integer(checkpoints[i], field);
    if (k < 1 || k > samples || (!report.checkpoints.isEmpty() && k <= report.checkpoints.back()))
      r.fail(field, QStringLiteral("%1 is not an increasing sample count within 1..%2").arg(k).arg(samples));
    report.checkpoints.push_back(k);
  }
  report.stableAfter = r.integer(root, QStringLiteral("stable_after"), {});
  report.enoughData = r.boolean(root, QStringLiteral("enough_data"), {});
  const QJsonArray tensors = r.array(root, QStringLiteral("tensors"), {});
  for (qsizetype i = 0; i < tensors.size(); ++i) {
    const QString path = FieldReader::at(QStringLiteral("tensors"), i);
    const QJsonObject t = r.object(tensors[i], path);
    const QString name = r.string(t, QStringLiteral("name"), path);
    const int index = report.indexOf(name);
    if (index < 0)
      r.fail(FieldReader::join(path, QStringLiteral("name")),
             QStringLiteral("'%1' is not in histograms.json").arg(name));
    TensorReport &tensor = report.tensors[index];
    const QString seriesPath = FieldReader::join(path, QStringLiteral("thresholds"));
    const QJsonArray series = r.array(t, QStringLiteral("thresholds"), path);
    if (series.size() != checkpoints.size())
      r.fail(seriesPath,
             QStringLiteral("%1 values for %2 checkpoints").arg(series.size()).arg(checkpoints.size()));
    tensor.convergence.clear();
    for (qsizetype j = 0; j < series.size(); ++j)
      tensor.convergence.push_back(r.number(series[j], FieldReader::at(seriesPath, j)));
    tensor.stableAfter = r.integer(t, QStringLiteral("stable_after"), path);
    if (tensor.stableAfter > samples)
      r.fail(FieldReader::join(path, QStringLiteral("stable_after")),
             QStringLiteral("%1 is more than the %2 samples").arg(tensor.stableAfter).arg(samples));
  }
}

} // namespace

double TensorReport::threshold(const QString &method) const {
  for (const MethodThreshold &t : thresholds)
    if (t.method == method)
      return t.value;
  return kNaN;
}

double TensorReport::finalThreshold() const { return convergence.isEmpty() ? kNaN : convergence.back(); }

int CalibrationReport::indexOf(const QString &name) const {
  for (int i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == name)
      return i;
  return -1;
}

QString CalibrationReport::highlightedMethod() const {
  for (const TensorReport &t : tensors)
    for (const MethodThreshold &m : t.thresholds)
      if (m.method == chosen)
        return chosen;
  return method;
}

bool CalibrationReport::settled(const TensorReport &tensor) const {
  // Convergence::enoughData's rule: at least four samples, and a quarter of them after the settling point.
  return samples >= 4 && tensor.stableAfter > 0 && tensor.stableAfter <= samples - samples / 4;
}

QVector<int> CalibrationReport::unsettled() const {
  QVector<int> rows;
  for (int i = 0; i < tensors.size(); ++i)
    if (!settled(tensors[i]))
      rows.push_back(i);
  std::stable_sort(rows.begin(), rows.end(),
                   [this](int a, int b) { return tensors[a].stableAfter > tensors[b].stableAfter; });
  return rows;
}

Result<CalibrationReport> parseCalibrationReport(const QByteArray &histograms, const QString &histogramsPath,
                                                 const QByteArray &convergence,
                                                 const QString &convergencePath) {
  CalibrationReport report;
  try {
    FieldReader h(histogramsPath);
    readHistograms(h, h.document(histograms, QStringLiteral("tpuc.calibration_histograms")), report);
    FieldReader c(convergencePath);
    readConvergence(c, c.document(convergence, QStringLiteral("tpuc.calibration_convergence")), report);
  } catch (const FieldError &e) {
    return Failure{e.message.toStdString()};
  }
  return report;
}

Result<CalibrationReport> readCalibrationReport(const QString &folder) {
  QByteArray contents[2];
  const QString paths[2] = {QDir(folder).filePath(QStringLiteral("histograms.json")),
                            QDir(folder).filePath(QStringLiteral("convergence.json"))};
  for (int i = 0; i < 2; ++i) {
    QFile file(paths[i]);
    if (!file.open(QIODevice::ReadOnly))
      return Failure{QStringLiteral("%1: cannot read: %2").arg(paths[i], file.errorString()).toStdString()};
    contents[i] = file.readAll();
  }
  Result<CalibrationReport> report = parseCalibrationReport(contents[0], paths[0], contents[1], paths[1]);
  if (report)
    report->folder = folder;
  return report;
}

} // namespace tpuc::vis
