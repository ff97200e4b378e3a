// The accuracy view's item models: one row per layer of a run's comparison, and the filter/sort proxy.
#ifndef TPUC_UI_VIEWS_ACCURACYMODEL_H
#define TPUC_UI_VIEWS_ACCURACYMODEL_H

#include "tpuc/Driver/AccuracyRecords.h"
#include "ui/views/AccuracyReport.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QSet>
#include <QSortFilterProxyModel>

namespace tpuc::ui {

/// A thin table over an immutable AccuracyReport (a new report = model reset). Rows are in graph order;
/// the row is the layer's index in the report. With a previous run set, two more columns compare the
/// accumulated cosine with that run's.
class AccuracyModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column {
    Order,
    Name,
    AccCosine,
    AccEuclidean,
    AccSqnr,
    AccMaxDiff,
    AccStatus,
    IsoCosine,
    IsoEuclidean,
    IsoSqnr,
    IsoMaxDiff,
    IsoStatus,
    PrevCosine,
    DeltaCosine,
    // Over many test samples (issue 22): accumulated mean / min / p5 cosine, isolated p5, failing samples,
    // the layer's worst sample.
    MeanCosine,
    MinCosine,
    P5Cosine,
    IsoP5Cosine,
    FailingSamples,
    WorstSample,
    ColumnCount
  };
  /// Qt::UserRole: the number to sort by (NaN sorts last); StatusRole: the status text of the row's
  /// accumulated (or, on isolated columns, isolated) comparison.
  static constexpr int SortRole = Qt::UserRole, StatusRole = Qt::UserRole + 1;

  explicit AccuracyModel(QObject *parent = nullptr);

  void setReport(AccuracyReport report);
  const AccuracyReport &report() const { return m_report; }
  /// The accumulated cosines of another run by layer name, shown as "prev cos" and "Δ cos"; empty hides.
  void setPrevious(const QHash<QString, double> &cosines);
  bool hasPrevious() const { return !m_previous.isEmpty(); }
  /// Per-layer statistics over many samples by layer name (a run's compare_samples record); empty hides.
  void setSampleStats(QHash<QString, driver::LayerStats> stats);
  bool hasSampleStats() const { return !m_stats.isEmpty(); }
  /// The statistics of a layer, null when none.
  const driver::LayerStats *sampleStats(const QString &layer) const;
  const LayerAccuracy &layer(int row) const { return m_report.layers[static_cast<std::size_t>(row)]; }

  int rowCount(const QModelIndex &parent = {}) const override;
  int columnCount(const QModelIndex &parent = {}) const override;
  QVariant data(const QModelIndex &index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
  AccuracyReport m_report;
  QHash<QString, double> m_previous;
  QHash<QString, driver::LayerStats> m_stats;
};

/// A status's colour: EQUAL/CLOSE/SIMILAR green shades, NOT_SIMILAR red, MISMATCH purple, unknown grey.
QColor statusColor(const QString &status);

/// How the studio's tables sort a column: text case-insensitively, numbers as numbers, NaN (no value) after
/// every number in either direction of an ascending sort.
bool sortsBefore(const QVariant &a, const QVariant &b);

/// Filters (all layers, only NOT_SIMILAR, where error is born) and a name search; sorts numerically.
class AccuracyFilter : public QSortFilterProxyModel {
  Q_OBJECT
public:
  enum Mode {
    All,
    NotSimilar, ///< layers whose accumulated or isolated comparison is NOT_SIMILAR or MISMATCH
    ErrorBorn   ///< the bornCount() layers with the least isolated tolerance headroom (error born there, not
                ///< inherited); sorted on the Order column they come worst first
  };
  explicit AccuracyFilter(QObject *parent = nullptr);
  void setMode(Mode mode);
  Mode mode() const { return m_mode; }
  /// How many layers ErrorBorn keeps (10 by default).
  void setBornCount(int count);
  int bornCount() const { return m_bornCount; }
  void setNameFilter(const QString &text);

protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
  bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
  void updateBorn();
  Mode m_mode = All;
  int m_bornCount = 10;
  QString m_name;
  QHash<int, int> m_born; ///< source rows kept by ErrorBorn -> their rank (0 = worst)
};

} // namespace tpuc::ui

#endif
