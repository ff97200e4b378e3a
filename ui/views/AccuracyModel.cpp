// The accuracy view's table model and filter proxy.
#include "ui/views/AccuracyModel.h"

#include <QColor>
#include <QFileInfo>
#include <QFont>
#include <QGuiApplication>
#include <QPalette>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tpuc::ui {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

QString metricText(double v, int decimals) {
  if (std::isnan(v))
    return QStringLiteral("–");
  if (std::isinf(v))
    return v > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
  return QString::number(v, 'f', decimals);
}

bool isIsolatedColumn(int column) { return column >= AccuracyModel::IsoCosine && column <= AccuracyModel::IsoStatus; }

// The metric of a column, NaN when absent.
double metricOf(const LayerMetrics &m, int offset) {
  if (!m.present)
    return kNaN;
  switch (offset) {
  case 0: return m.cosine;
  case 1: return m.euclidean;
  case 2: return m.sqnr;
  case 3: return m.maxAbsDiff;
  default: return kNaN;
  }
}

bool failedStatus(const QString &status) {
  return status == QLatin1String("NOT_SIMILAR") || status == QLatin1String("MISMATCH");
}

} // namespace

QColor statusColor(const QString &status) {
  if (status == QLatin1String("EQUAL") || status == QLatin1String("CLOSE"))
    return QColor(0x2e, 0x8b, 0x57);
  if (status == QLatin1String("SIMILAR"))
    return QColor(0x6a, 0xa8, 0x4f);
  if (status == QLatin1String("NOT_SIMILAR"))
    return QColor(0xd6, 0x3a, 0x3a);
  if (status == QLatin1String("MISMATCH"))
    return QColor(0x8e, 0x44, 0xad);
  return QColor(0x88, 0x88, 0x88);
}

AccuracyModel::AccuracyModel(QObject *parent) : QAbstractTableModel(parent) {}

void AccuracyModel::setReport(AccuracyReport report) {
  beginResetModel();
  m_report = std::move(report);
  endResetModel();
}

void AccuracyModel::setPrevious(const QHash<QString, double> &cosines) {
  beginResetModel();
  m_previous = cosines;
  endResetModel();
}

void AccuracyModel::setSampleStats(QHash<QString, driver::LayerStats> stats) {
  beginResetModel();
  m_stats = std::move(stats);
  endResetModel();
}

const driver::LayerStats *AccuracyModel::sampleStats(const QString &layer) const {
  auto it = m_stats.constFind(layer);
  return it == m_stats.constEnd() ? nullptr : &*it;
}

int AccuracyModel::rowCount(const QModelIndex &parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_report.layers.size());
}

int AccuracyModel::columnCount(const QModelIndex &parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant AccuracyModel::data(const QModelIndex &index, int role) const {
  if (!index.isValid() || index.row() >= rowCount())
    return {};
  const LayerAccuracy &l = layer(index.row());
  const int column = index.column();
  const LayerMetrics &m = isIsolatedColumn(column) ? l.isolated : l.accumulated;
  const double prev = m_previous.value(l.name, kNaN);
  const driver::LayerStats *stats = sampleStats(l.name);
  auto value = [&]() -> double {
    switch (column) {
    case MeanCosine:
      return stats ? stats->accumulated.meanCosine : kNaN;
    case MinCosine:
      return stats ? stats->accumulated.minCosine : kNaN;
    case P5Cosine:
      return stats ? stats->accumulated.p5Cosine : kNaN;
    case IsoP5Cosine:
      return stats && stats->isolated ? stats->isolated->p5Cosine : kNaN;
    case FailingSamples:
      return stats ? static_cast<double>(stats->accumulated.failingSamples) : kNaN;
    case Order: return l.order;
    case AccCosine: case AccEuclidean: case AccSqnr: case AccMaxDiff: return metricOf(l.accumulated, column - AccCosine);
    case IsoCosine: case IsoEuclidean: case IsoSqnr: case IsoMaxDiff: return metricOf(l.isolated, column - IsoCosine);
    case PrevCosine: return prev;
    case DeltaCosine: return l.accumulated.present ? l.accumulated.cosine - prev : kNaN;
    default: return kNaN;
    }
  };
  const bool statusColumn = column == AccStatus || column == IsoStatus;
  switch (role) {
  case Qt::DisplayRole:
    switch (column) {
    case Order: return l.order + 1;
    case Name: return l.name;
    case FailingSamples:
      return stats ? QVariant(static_cast<qint64>(stats->accumulated.failingSamples))
                   : QVariant(QStringLiteral("–"));
    case WorstSample:
      return stats && stats->accumulated.worstSample >= 0
                 ? QFileInfo(QString::fromStdString(stats->accumulated.worstSampleName)
                                 .section(QLatin1Char(','), 0, 0))
                       .fileName()
                 : QStringLiteral("–");
    case AccStatus: case IsoStatus: return m.present ? m.status : QStringLiteral("–");
    case AccSqnr: case IsoSqnr: return metricText(value(), 1);
    case AccEuclidean: case IsoEuclidean: return metricText(value(), 4);
    case AccMaxDiff: case IsoMaxDiff: return metricText(value(), 4);
    case DeltaCosine: {
      const double d = value();
      return std::isnan(d) ? QStringLiteral("–") : (d >= 0 ? QStringLiteral("+") : QString()) + QString::number(d, 'f', 6);
    }
    default: return metricText(value(), 6);
    }
  case SortRole:
    if (column == Name)
      return l.name;
    if (column == WorstSample)
      return stats ? QString::fromStdString(stats->accumulated.worstSampleName) : QString();
    if (statusColumn) // failures first when sorting ascending by status
      return m.present ? (failedStatus(m.status) ? 0 : m.status == QLatin1String("SIMILAR") ? 1 : 2) : 3;
    return value();
  case StatusRole: return m.status;
  case Qt::ForegroundRole:
    if (statusColumn && m.present)
      return statusColor(m.status);
    if ((column == AccCosine || column == IsoCosine) && m.present && failedStatus(m.status))
      return statusColor(m.status);
    if (column == DeltaCosine && value() < -1e-4)
      return statusColor(QStringLiteral("NOT_SIMILAR"));
    if (column == FailingSamples && value() > 0)
      return statusColor(QStringLiteral("NOT_SIMILAR"));
    return {};
  case Qt::FontRole:
    if (statusColumn && m.present && failedStatus(m.status)) {
      QFont bold;
      bold.setBold(true);
      return bold;
    }
    return {};
  case Qt::TextAlignmentRole:
    return column == Name || statusColumn || column == WorstSample
               ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
               : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  case Qt::ToolTipRole:
    if (column == Name)
      return tr("%1 (layer %2 in graph order)").arg(l.name).arg(l.order + 1);
    if (isIsolatedColumn(column))
      return tr("Isolated: the op fed the float reference's inputs — the error born in this layer.");
    if (column >= AccCosine && column <= AccStatus)
      return tr("Accumulated: the quantized model end to end — the error piled up to this layer.");
    if (column == WorstSample && stats)
      return tr("%1: cosine %2 on this layer (Worst Sample… shows its tensors)")
          .arg(QString::fromStdString(stats->accumulated.worstSampleName))
          .arg(stats->accumulated.minCosine, 0, 'f', 6);
    return {};
  default: return {};
  }
}

QVariant AccuracyModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal)
    return {};
  if (role == Qt::ToolTipRole) {
    if (section >= AccCosine && section <= AccStatus)
      return tr("Accumulated error: the quantized model run end to end");
    if (isIsolatedColumn(section))
      return tr("Isolated error: each quantized op fed the float reference's inputs");
    if (section == AccSqnr || section == IsoSqnr)
      return tr("Signal-to-quantization-noise ratio in dB (the float reference is the signal)");
    if (section == PrevCosine || section == DeltaCosine)
      return tr("Accumulated cosine of the run compared with, and this run's minus it");
    if (section >= MeanCosine && section <= P5Cosine)
      return tr("Accumulated cosine over the test samples: mean, minimum and 5th percentile");
    if (section == IsoP5Cosine)
      return tr("Isolated cosine over the test samples, 5th percentile");
    if (section == FailingSamples)
      return tr("Samples whose accumulated comparison of this layer fails the tolerance");
    if (section == WorstSample)
      return tr("The sample with the lowest accumulated cosine on this layer");
    return {};
  }
  if (role != Qt::DisplayRole)
    return {};
  switch (section) {
  case Order: return QStringLiteral("#");
  case Name: return tr("Layer");
  case AccCosine: return tr("acc cos");
  case AccEuclidean: return tr("acc euc");
  case AccSqnr: return tr("acc SQNR");
  case AccMaxDiff: return tr("acc max |Δ|");
  case AccStatus: return tr("acc status");
  case IsoCosine: return tr("iso cos");
  case IsoEuclidean: return tr("iso euc");
  case IsoSqnr: return tr("iso SQNR");
  case IsoMaxDiff: return tr("iso max |Δ|");
  case IsoStatus: return tr("iso status");
  case PrevCosine: return tr("prev acc cos");
  case DeltaCosine: return tr("Δ cos");
  case MeanCosine:
    return tr("mean cos");
  case MinCosine:
    return tr("min cos");
  case P5Cosine:
    return tr("p5 cos");
  case IsoP5Cosine:
    return tr("iso p5 cos");
  case FailingSamples:
    return tr("failing");
  case WorstSample:
    return tr("worst sample");
  default: return {};
  }
}

AccuracyFilter::AccuracyFilter(QObject *parent) : QSortFilterProxyModel(parent) {
  setSortRole(AccuracyModel::SortRole);
  connect(this, &QAbstractProxyModel::sourceModelChanged, this, [this] {
    // Connected after the proxy's own reset handling began: the ranking is ready when the proxy re-sorts.
    connect(sourceModel(), &QAbstractItemModel::modelReset, this, [this] {
      updateBorn();
      invalidateFilter();
    });
    updateBorn();
  });
}

// invalidate(), not invalidateFilter(): the order of the rows depends on the mode and the ranking too.
void AccuracyFilter::setMode(Mode mode) {
  m_mode = mode;
  updateBorn();
  invalidate();
}

void AccuracyFilter::setBornCount(int count) {
  m_bornCount = count;
  updateBorn();
  invalidate();
}

void AccuracyFilter::setNameFilter(const QString &text) {
  m_name = text;
  invalidateFilter();
}

// Where error is born: with isolated metrics, the layers with the least isolated tolerance headroom (the op
// itself loses accuracy even on exact inputs, measured against the tolerance the run was checked with, so a
// scale lost to a clipped threshold counts as much as a bent direction); without them, the layers where the
// accumulated cosine drops most from the layer before in graph order.
void AccuracyFilter::updateBorn() {
  m_born.clear();
  auto *model = qobject_cast<AccuracyModel *>(sourceModel());
  if (!model)
    return;
  const AccuracyReport &report = model->report();
  const bool isolated = report.hasIsolated();
  std::vector<std::pair<double, int>> loss; // (accuracy lost, row)
  double before = 1.0;
  for (std::size_t i = 0; i < report.layers.size(); ++i) {
    const LayerAccuracy &l = report.layers[i];
    double lost = kNaN;
    if (isolated && l.isolated.present) {
      // An exact layer (EQUAL) is never where error is born, whatever its headroom rounds to.
      if (l.isolated.cosine < 1.0 - 1e-9 || l.isolated.euclidean < 1.0 - 1e-9)
        lost = 1.0 - toleranceHeadroom(l.isolated, report.toleranceCosine, report.toleranceEuclidean);
    } else if (!isolated && l.accumulated.present) {
      lost = before - l.accumulated.cosine;
      before = l.accumulated.cosine;
    }
    if (!std::isnan(lost) && lost > 1e-9)
      loss.emplace_back(lost, static_cast<int>(i));
  }
  std::stable_sort(loss.begin(), loss.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
  for (std::size_t i = 0; i < loss.size() && static_cast<int>(i) < m_bornCount; ++i)
    m_born.insert(loss[i].second, static_cast<int>(i));
}

bool AccuracyFilter::filterAcceptsRow(int sourceRow, const QModelIndex &) const {
  auto *model = qobject_cast<AccuracyModel *>(sourceModel());
  if (!model)
    return true;
  const LayerAccuracy &l = model->layer(sourceRow);
  if (!m_name.isEmpty() && !l.name.contains(m_name, Qt::CaseInsensitive))
    return false;
  switch (m_mode) {
  case NotSimilar:
    return (l.accumulated.present && failedStatus(l.accumulated.status)) ||
           (l.isolated.present && failedStatus(l.isolated.status));
  case ErrorBorn: return m_born.contains(sourceRow);
  default: return true;
  }
}

bool AccuracyFilter::lessThan(const QModelIndex &left, const QModelIndex &right) const {
  // Where error is born is a ranking: on the Order column its rows come in rank order, worst first.
  if (m_mode == ErrorBorn && left.column() == AccuracyModel::Order && m_born.contains(left.row()) &&
      m_born.contains(right.row()))
    return m_born.value(left.row()) < m_born.value(right.row());
  return sortsBefore(left.data(sortRole()), right.data(sortRole()));
}

bool sortsBefore(const QVariant &a, const QVariant &b) {
  if (a.typeId() == QMetaType::QString || b.typeId() == QMetaType::QString)
    return a.toString().compare(b.toString(), Qt::CaseInsensitive) < 0;
  const double x = a.toDouble(), y = b.toDouble();
  if (std::isnan(x) || std::isnan(y))
    return !std::isnan(x) && std::isnan(y);
  return x < y;
}

} // namespace tpuc::ui
