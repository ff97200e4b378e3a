// A run's many-sample accuracy records, their tables and the graph overlays' values.
#include "ui/views/SampleAccuracy.h"

#include "ui/views/AccuracyModel.h"

#include <QColor>
#include <QFile>
#include <QFileInfo>
#include <QFont>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <limits>

namespace tpuc::ui {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

QString number(double v, int decimals, bool sign = false) {
  if (std::isnan(v))
    return QStringLiteral("–");
  return (sign && v >= 0 ? QStringLiteral("+") : QString()) + QString::number(v, 'f', decimals);
}

/// Reads one record file with `parse`; the error names the file.
template <typename Record, typename Parse>
std::optional<Record> readRecord(const QString &path, Parse parse, QString &error) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    error += (error.isEmpty() ? QString() : QStringLiteral("; ")) +
             QStringLiteral("%1: %2").arg(path, file.errorString());
    return std::nullopt;
  }
  driver::ReadResult<Record> read = parse(file.readAll().toStdString());
  if (!read) {
    error += (error.isEmpty() ? QString() : QStringLiteral("; ")) +
             QStringLiteral("%1: %2").arg(path, QString::fromStdString(read.error));
    return std::nullopt;
  }
  return std::move(read.result);
}

} // namespace

const driver::LayerStats *SampleRecords::layer(const QString &name) const {
  if (samples)
    for (const driver::LayerStats &l : samples->layers)
      if (QString::fromStdString(l.name) == name)
        return &l;
  return nullptr;
}

const driver::SampleResult *SampleRecords::sample(int64_t index) const {
  if (samples)
    for (const driver::SampleResult &s : samples->samples)
      if (s.index == index)
        return &s;
  return nullptr;
}

SampleRecords sampleRecordsOfRun(const project::RunRecord &run) {
  SampleRecords records;
  for (const project::ArtifactRef &a : run.artifacts) {
    const QString path = QString::fromStdString(a.name);
    if (path.endsWith(QLatin1String("_compare_samples.json")))
      records.samples =
          readRecord<driver::CompareSamplesRecord>(path, driver::parseCompareSamples, records.error);
    else if (path.endsWith(QLatin1String("_first_divergent.json")))
      records.divergent =
          readRecord<driver::FirstDivergentRecord>(path, driver::parseFirstDivergent, records.error);
  }
  return records;
}

std::unordered_map<std::string, double> layerErrorValues(const project::RunRecord &run, bool isolated) {
  std::unordered_map<std::string, double> values;
  const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(run.layerMetricsJson));
  for (const QJsonValue &value : doc.array()) {
    const QJsonObject o = value.toObject();
    const QString name = o.value(QStringLiteral("name")).toString();
    // Over many samples the 5th percentile (run history folds it into the row); else the one sample's.
    QJsonValue cosine = o.value(isolated ? QStringLiteral("isoP5Cosine") : QStringLiteral("p5Cosine"));
    if (!cosine.isDouble())
      cosine = isolated ? o.value(QStringLiteral("isolated")).toObject().value(QStringLiteral("cosine"))
                        : o.value(QStringLiteral("cosine"));
    if (!name.isEmpty() && cosine.isDouble())
      values[name.toStdString()] = 1.0 - cosine.toDouble();
  }
  return values;
}

std::unordered_map<std::string, double> floatGainValues(const project::RunRecord &run) {
  std::unordered_map<std::string, double> values;
  const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(run.layerMetricsJson));
  for (const QJsonValue &value : doc.array()) {
    const QJsonObject o = value.toObject();
    if (o.value(QStringLiteral("floatGain")).isDouble())
      values[o.value(QStringLiteral("name")).toString().toStdString()] =
          o.value(QStringLiteral("floatGain")).toDouble();
  }
  return values;
}

// --- samples -------------------------------------------------------------------------------------------

SamplesModel::SamplesModel(QObject *parent) : QAbstractTableModel(parent) {}

void SamplesModel::setSamples(std::vector<driver::SampleResult> samples, int64_t worst) {
  beginResetModel();
  m_samples = std::move(samples);
  m_worst = worst;
  endResetModel();
}

int SamplesModel::rowCount(const QModelIndex &parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_samples.size());
}

int SamplesModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant SamplesModel::data(const QModelIndex &index, int role) const {
  if (!index.isValid() || index.row() >= rowCount())
    return {};
  const driver::SampleResult &s = sample(index.row());
  const QString name = QString::fromStdString(s.name);
  switch (role) {
  case Qt::DisplayRole:
    switch (index.column()) {
    case Index:
      return static_cast<qint64>(s.index + 1);
    case Name: {
      QStringList files;
      for (const std::string &f : s.files)
        files << QFileInfo(QString::fromStdString(f)).fileName();
      return files.isEmpty() ? name : files.join(QStringLiteral(", "));
    }
    case OutputCosine:
      return number(s.outputCosine, 6);
    case Pass:
      return s.pass ? tr("pass") : tr("FAIL");
    case FirstFailing:
      return s.firstFailing.empty() ? QStringLiteral("–") : QString::fromStdString(s.firstFailing);
    default:
      return {};
    }
  case SortRole:
    switch (index.column()) {
    case Index:
      return static_cast<double>(s.index);
    case Name:
      return name;
    case OutputCosine:
      return s.outputCosine;
    case Pass:
      return s.pass ? 1.0 : 0.0;
    case FirstFailing:
      return QString::fromStdString(s.firstFailing);
    default:
      return {};
    }
  case Qt::ForegroundRole:
    if (index.column() == Pass || (index.column() == OutputCosine && !s.pass))
      return statusColor(s.pass ? QStringLiteral("SIMILAR") : QStringLiteral("NOT_SIMILAR"));
    return {};
  case Qt::FontRole:
    if (s.index == m_worst || (index.column() == Pass && !s.pass)) {
      QFont bold;
      bold.setBold(true);
      return bold;
    }
    return {};
  case Qt::TextAlignmentRole:
    return index.column() == Index || index.column() == OutputCosine
               ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
               : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
  case Qt::ToolTipRole:
    return s.index == m_worst
               ? tr("%1 — the worst sample (the run's single-sample metrics are its own)").arg(name)
               : name;
  default:
    return {};
  }
}

QVariant SamplesModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal)
    return {};
  if (role == Qt::ToolTipRole && section == OutputCosine)
    return tr("The lowest cosine over the model's outputs against the float reference");
  if (role != Qt::DisplayRole)
    return {};
  switch (section) {
  case Index:
    return QStringLiteral("#");
  case Name:
    return tr("Sample");
  case OutputCosine:
    return tr("output cos");
  case Pass:
    return tr("result");
  case FirstFailing:
    return tr("first failing layer");
  default:
    return {};
  }
}

// --- first divergent layers ----------------------------------------------------------------------------

DivergentModel::DivergentModel(QObject *parent) : QAbstractTableModel(parent) {}

void DivergentModel::setCandidates(std::vector<driver::DivergentCandidate> candidates) {
  beginResetModel();
  m_candidates = std::move(candidates);
  endResetModel();
}

int DivergentModel::rowCount(const QModelIndex &parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_candidates.size());
}

int DivergentModel::columnCount(const QModelIndex &parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant DivergentModel::data(const QModelIndex &index, int role) const {
  if (!index.isValid() || index.row() >= rowCount())
    return {};
  const driver::DivergentCandidate &c = candidate(index.row());
  auto value = [&]() -> double {
    switch (index.column()) {
    case Rank:
      return index.row() + 1;
    case IsoP5Cosine:
      return c.isolated.p5Cosine;
    case IsoP5Euclidean:
      return c.isolated.p5Euclidean;
    case AccP5Cosine:
      return c.accumulated.p5Cosine;
    case Gain:
      return c.measured ? c.gain : kNaN;
    case OutputGain:
      return c.measured ? c.outputGain : kNaN;
    case Score:
      return c.measured ? c.score : kNaN;
    default:
      return kNaN;
    }
  };
  switch (role) {
  case Qt::DisplayRole:
    switch (index.column()) {
    case Rank:
      return index.row() + 1;
    case Name:
      return QString::fromStdString(c.name);
    case Gain:
    case OutputGain:
    case Score:
      return c.measured ? number(value(), 6, true) : tr("not re-run");
    default:
      return number(value(), 6);
    }
  case SortRole:
    return index.column() == Name ? QVariant(QString::fromStdString(c.name)) : QVariant(value());
  case Qt::ForegroundRole:
    if ((index.column() == Gain || index.column() == OutputGain || index.column() == Score) && c.measured)
      return statusColor(value() > 1e-3 ? QStringLiteral("EQUAL") : QString());
    return {};
  case Qt::TextAlignmentRole:
    return index.column() == Name ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                  : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  case Qt::ToolTipRole: {
    QStringList inputs;
    for (const driver::DivergentInput &i : c.inputs)
      inputs << QString::fromStdString(i.name);
    QStringList consumers;
    for (const std::string &n : c.consumers)
      consumers << QString::fromStdString(n);
    return tr("%1: inputs %2; consumers %3; isolated headroom %4")
        .arg(QString::fromStdString(c.name), inputs.join(QStringLiteral(", ")),
             consumers.join(QStringLiteral(", ")))
        .arg(c.headroom, 0, 'f', 4);
  }
  default:
    return {};
  }
}

QVariant DivergentModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal)
    return {};
  if (role == Qt::ToolTipRole) {
    switch (section) {
    case Gain:
      return tr("Output cosine gained with this op kept in float (mean over the re-run samples)");
    case OutputGain:
      return tr("Output cosine gained with the op and its consumers kept in float (its output no "
                "longer requantized by its own scale)");
    case Score:
      return tr("The larger of the two gains: the ranking");
    default:
      return {};
    }
  }
  if (role != Qt::DisplayRole)
    return {};
  switch (section) {
  case Rank:
    return QStringLiteral("#");
  case Name:
    return tr("Layer");
  case IsoP5Cosine:
    return tr("iso p5 cos");
  case IsoP5Euclidean:
    return tr("iso p5 euc");
  case AccP5Cosine:
    return tr("acc p5 cos");
  case Gain:
    return tr("gain in float");
  case OutputGain:
    return tr("with consumers");
  case Score:
    return tr("score");
  default:
    return {};
  }
}

NumericSortProxy::NumericSortProxy(QObject *parent) : QSortFilterProxyModel(parent) {
  setSortRole(Qt::UserRole);
}

bool NumericSortProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const {
  return sortsBefore(left.data(sortRole()), right.data(sortRole()));
}

} // namespace tpuc::ui
