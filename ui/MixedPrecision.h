// Mixed precision in the project: which compile configuration the graph's actions edit, the ops its quantize
// table keeps in float, and the undoable edits that keep ops in float or store a searched table.
#ifndef TPUC_UI_MIXEDPRECISION_H
#define TPUC_UI_MIXEDPRECISION_H

#include "project/Project.h"

#include <QString>
#include <QStringList>

#include <string>
#include <unordered_map>

namespace tpuc::ui {

class StudioContext;

/// What "Search Mixed Precision…" asks calibrate's search_qtable for: the samples as calibration takes them
/// (a dataset, optionally one of its subsets), the target output cosine, the most ops kept in float, and the
/// configuration whose chip it plans for and whose quantize table "Use this table" sets.
struct SearchSettings {
  qint64 datasetId = -1;
  QString subset;
  double expectedCos = 0.99;
  int maxFloatLayers = 5;
  qint64 configId = -1;
};

/// The compile configuration the studio's "current" actions use: the selected configuration, else the one
/// the selected run deployed (a run's title ends in "(<configuration>)"), else the first; -1 when the
/// project has none.
qint64 currentConfigId(const StudioContext &context);

/// The configuration a run deployed or searched for (its title ends in "(<configuration>)"), or -1.
qint64 configOfRun(const project::Project &project, qint64 runId);

/// Whether a run is a `tpuc deploy` (its summary's command), not a calibration or search for the same
/// configuration.
bool isDeployRun(const project::RunRecord &run);

/// The float mode an op of `config` is kept in: for INT8 and weight-only deploys the chip's
/// (driver::chipFloatMode: F16, BF16 on a profile without F16), for F16/BF16 deploys F32; empty for F32,
/// where nothing is quantized.
QString floatModeFor(const project::CompileConfig &config);

/// The ops `config`'s quantize table names, with their mode; empty when it names none.
std::unordered_map<std::string, QString> floatOpsOf(const project::Project &project, qint64 configId);

/// Adds `ops` in `mode` to the quantize table of configuration `configId` (replacing an earlier mode of the
/// same op); a configuration without a table gets a new one ("<configuration> float ops") and names it.
/// One undo step. Returns the table's id, or -1 when the configuration does not exist or nothing changed
/// (then -1 only for a missing configuration; an unchanged table returns its id).
qint64 keepOpsInFloat(StudioContext &context, qint64 configId, const QStringList &ops, const QString &mode);

/// Stores `entries` as a new quantize table `name` (a taken name gets the next version) and makes
/// configuration `configId` use it. One undo step. Returns the new table's id, or -1 without the
/// configuration.
qint64 storeQuantTableForConfig(StudioContext &context, qint64 configId, const std::string &name,
                                const std::string &comment, std::vector<project::QuantEntry> entries);

} // namespace tpuc::ui

#endif
