// Per-layer accuracy of a run as plain data: read from `tpuc deploy --compare_all`'s side-by-side JSON,
// `tpuc compare --format json`, or a run's stored layer metrics.
#ifndef TPUC_UI_VIEWS_ACCURACYREPORT_H
#define TPUC_UI_VIEWS_ACCURACYREPORT_H

#include "project/Project.h"

#include <QByteArray>
#include <QJsonArray>
#include <QString>

#include <optional>
#include <vector>

namespace tpuc::ui {

/// One comparison of a tensor against the float reference. NaN when unknown or not applicable.
struct LayerMetrics {
  bool present = false;  ///< false: this mode was not run for the layer
  QString status;        ///< EQUAL, CLOSE, SIMILAR, NOT_SIMILAR, MISMATCH
  bool passed = false;
  double cosine = 0, euclidean = 0, sqnr = 0, maxAbsDiff = 0;
  bool operator==(const LayerMetrics &) const = default;
};

/// One layer (tensor) in graph order: accumulated error (the quantized model end to end) and isolated
/// error (the op fed the float reference's inputs).
struct LayerAccuracy {
  QString name;
  int order = 0;         ///< position in graph order
  LayerMetrics accumulated, isolated;
};

/// A run's per-layer comparison.
struct AccuracyReport {
  std::vector<LayerAccuracy> layers;
  double toleranceCosine = 0, toleranceEuclidean = 0; ///< 0 when unknown
  QString firstFailing;  ///< first layer whose accumulated comparison failed, empty when none
  bool hasIsolated() const;
  /// The layer's index in `layers`, or -1.
  int indexOf(const QString &name) const;
};

/// How far a comparison stays from failing the tolerance: per metric the share of the room between the
/// tolerance and a perfect 1 that is left ((value - tolerance) / (1 - tolerance): 1 exact, 0 at the
/// tolerance, below 0 failing), the smaller of cosine and euclidean. Without a known tolerance, the cosine.
/// This is what ranks "where error is born": a layer whose euclidean similarity is near its tolerance while
/// its cosine looks fine (a scale lost to a clipped threshold) ranks before one with a lower but safe cosine.
double toleranceHeadroom(const LayerMetrics &metrics, double toleranceCosine, double toleranceEuclidean);

/// Reads `tpuc deploy`'s `<stem>_compare.json` ({"layers": [{"name", "accumulated": {...}, "isolated":
/// {...}}]}) or `tpuc compare --format json` ({"results": [...]}, accumulated only). nullopt with a
/// one-line `error` for anything else.
std::optional<AccuracyReport> parseAccuracyJson(const QByteArray &json, QString *error);

/// The report a run stored in its layer metrics (see layerMetricsJson); empty when it has none.
AccuracyReport accuracyOfRun(const project::RunRecord &run);

/// The layer metrics array a run keeps: one object per layer with the accumulated metrics flat
/// ("name", "status", "pass", "cosine", "euclidean", "sqnr", "maxAbsDiff"; what the graph overlay
/// reads) and the isolated ones under "isolated".
QJsonArray layerMetricsJson(const AccuracyReport &report);

} // namespace tpuc::ui

#endif
