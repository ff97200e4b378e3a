// The deploy job: a compile configuration's model_deploy settings (stored in the project) and the
// `tpuc deploy` command line they make.
#ifndef TPUC_UI_JOBS_DEPLOYJOB_H
#define TPUC_UI_JOBS_DEPLOYJOB_H

#include "app/project/Project.h"

#include <QString>
#include <QStringList>

namespace tpuc::ui {

/// model_deploy's settings of one compile configuration. Chip and quantize are the configuration's
/// columns; the rest lives in its options JSON ("asymmetric", "calibration_table" {name, version},
/// "quantize_table" {name, version}, "q_group_size", "test_input", "tolerance"), so tables are referred
/// to by name and version, which survive saving and reopening (ids do not need to).
struct DeploySettings {
  QString chip = QStringLiteral("bm1684x");
  QString quantize = QStringLiteral("F32");
  bool asymmetric = false;
  QString caliTableName;  ///< empty: the newest calibration table (INT8 only)
  int caliTableVersion = 0;
  QString quantTableName; ///< empty: none
  int quantTableVersion = 0;
  qint64 qGroupSize = 0;  ///< W8/W4 only; 0 = per channel
  QString testInput;      ///< a sample path; empty: the first calibration sample on disk
  QString tolerance;      ///< "cos,euc"; empty: model_deploy's default (0.8,0.5)
  bool quantInput = false, quantOutput = false; ///< model_deploy's --quant_input / --quant_output
  QStringList excepts;    ///< tensors left out of the comparisons (--excepts)
  bool fusePreprocess = false; ///< --fuse_preprocess: raw UINT8 pixels in, preprocessing on the chip
  QString customizationFormat; ///< --customization_format (RGB_PLANAR, ...); empty: the input's own
  int numCore = 1;             ///< --num_core: cores of the chip the model file spreads its work over
  bool operator==(const DeploySettings &) const = default;
};

/// The option keys a configuration may hold (model_deploy's flag names where they are flags).
const QStringList &deployOptionKeys();
/// "" or a one-line error naming the first option key that is not a deploy option, or a value of the wrong
/// type (`quant_input` must be true or false, ...).
QString checkDeployOptions(const QString &optionsJson);

/// The settings a configuration holds (missing keys take defaults; checkDeployOptions rejects unknown ones
/// before a configuration is stored).
DeploySettings deploySettingsOf(const project::CompileConfig &config);
/// `config` with `settings` written into it; other option keys are kept.
project::CompileConfig withDeploySettings(project::CompileConfig config, const DeploySettings &settings);

/// TPU-MLIR's usual comparison tolerance of a precision (suggested in the form): F32 0.99,0.99; F16/BF16 0.99,0.90;
/// INT8 and weight-only 0.90,0.80 (cosine, euclidean).
QString defaultTolerance(const QString &quantize);
/// True for the modes that take --q_group_size (W8*, W4*).
bool isWeightOnly(const QString &quantize);

/// The files a deploy job reads and writes, decided by the caller (cache folder, tables written out).
struct DeployPaths {
  QString topMlir;
  QString calibrationTable; ///< empty: none (only INT8 needs one)
  QString quantizeTable;    ///< empty: none
  QString testInput;        ///< empty: no test (no comparison)
  QString tpuMlir;
  QString snapshots;        ///< empty: no IR snapshots (else the Top input and the lowered Tpu module)
  QString model;            ///< empty: stop at the Tpu level (else the .tpum model file, checked when tested)
};

/// `deploy --mlir ... --quantize ... --chip ... [--asymmetric] [--calibration_table F] [--quantize_table F]
/// [--q_group_size N] [--test_input F [--tolerance T] --compare_all] --tpu_mlir F [--snapshots DIR]
/// --progress json`.
QStringList deployArguments(const DeploySettings &settings, const DeployPaths &paths);

/// `run --model M --input I --output O --dump_all_tensors --profile T --progress json`: a model file on the
/// command-level simulator (model_runner), its engine trace beside the outputs.
QStringList runModelArguments(const QString &model, const QString &input, const QString &output,
                              const QString &trace);

/// The calibration table a configuration uses: its named version, else the newest; null when none.
const project::CaliTable *deployCaliTable(const project::Project &project, const DeploySettings &settings);
/// The quantize table a configuration names; null when it names none or that table is gone.
const project::QuantTable *deployQuantTable(const project::Project &project, const DeploySettings &settings);

} // namespace tpuc::ui

#endif
