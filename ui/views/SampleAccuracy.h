// Accuracy over many test samples in the studio (issue 22): a run's <stem>_compare_samples.json and
// <stem>_first_divergent.json (read by TpucRequests' readers), the samples and first-divergent tables over
// them, and the graph overlays' per-layer error and float gain.
#ifndef TPUC_UI_VIEWS_SAMPLEACCURACY_H
#define TPUC_UI_VIEWS_SAMPLEACCURACY_H

#include "project/Project.h"
#include "tpuc/Driver/AccuracyRecords.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <QString>
#include <QStringList>

#include <optional>
#include <string>
#include <unordered_map>

namespace tpuc::ui {

/// The many-sample records a run lists among its artifacts; each absent when the run did not write it.
struct SampleRecords {
  std::optional<driver::CompareSamplesRecord> samples;
  std::optional<driver::FirstDivergentRecord> divergent;
  /// One line per record that is listed but cannot be read (deleted with the cache, malformed).
  QString error;

  /// The statistics of a layer, null when there are none.
  const driver::LayerStats *layer(const QString &name) const;
  /// The sample with this index, null when there is none.
  const driver::SampleResult *sample(int64_t index) const;
};

/// Reads the records of `run` (its `*_compare_samples.json` and `*_first_divergent.json` artifacts). Reads
/// files: call it off the UI thread.
SampleRecords sampleRecordsOfRun(const project::RunRecord &run);

/// The graph overlays' values per layer name: `1 - p5 cosine` of the isolated (or accumulated) comparison
/// over the samples, or of the single sample's layer metrics when the run has no statistics.
std::unordered_map<std::string, double> layerErrorValues(const project::RunRecord &run, bool isolated);
/// The score (the larger output-cosine gain in float) of every measured first-divergent candidate.
std::unordered_map<std::string, double> floatGainValues(const project::RunRecord &run);

/// One row per sample: index, name, lowest output cosine, pass, first failing layer. Sorting through
/// SampleSortRole (numbers as numbers).
class SamplesModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { Index, Name, OutputCosine, Pass, FirstFailing, ColumnCount };
  static constexpr int SortRole = Qt::UserRole;
  explicit SamplesModel(QObject *parent = nullptr);
  /// `worst`: the sample whose tensors the run kept (marked in the table).
  void setSamples(std::vector<driver::SampleResult> samples, int64_t worst);
  const driver::SampleResult &sample(int row) const { return m_samples[static_cast<std::size_t>(row)]; }
  int rowCount(const QModelIndex &parent = {}) const override;
  int columnCount(const QModelIndex &parent = {}) const override;
  QVariant data(const QModelIndex &index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
  std::vector<driver::SampleResult> m_samples;
  int64_t m_worst = -1;
};

/// One row per first-divergent candidate, in the report's rank order.
class DivergentModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { Rank, Name, IsoP5Cosine, IsoP5Euclidean, AccP5Cosine, Gain, OutputGain, Score, ColumnCount };
  static constexpr int SortRole = Qt::UserRole;
  explicit DivergentModel(QObject *parent = nullptr);
  void setCandidates(std::vector<driver::DivergentCandidate> candidates);
  const driver::DivergentCandidate &candidate(int row) const {
    return m_candidates[static_cast<std::size_t>(row)];
  }
  int rowCount(const QModelIndex &parent = {}) const override;
  int columnCount(const QModelIndex &parent = {}) const override;
  QVariant data(const QModelIndex &index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
  std::vector<driver::DivergentCandidate> m_candidates;
};

/// Sorts on SortRole with numbers compared as numbers, NaN last.
class NumericSortProxy : public QSortFilterProxyModel {
  Q_OBJECT
public:
  explicit NumericSortProxy(QObject *parent = nullptr);

protected:
  bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;
};

} // namespace tpuc::ui

#endif
