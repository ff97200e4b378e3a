// The deploy job: a compile configuration's model_deploy settings (stored in the project) and the
// `tpuc deploy` request they make.
#ifndef TPUC_UI_JOBS_DEPLOYJOB_H
#define TPUC_UI_JOBS_DEPLOYJOB_H

#include "project/Project.h"
#include "tpuc/Driver/Requests.h"

#include <QString>
#include <QStringList>

namespace tpuc::ui {

/// model_deploy's settings of one compile configuration: the request's own fields (chip and quantize are
/// the configuration's columns; asymmetric, q_group_size, tolerance, quant_input/quant_output, excepts,
/// fuse_preprocess, customization_format and num_core live in its options JSON under their flag names,
/// stored when they differ from the request's defaults), plus what the studio resolves per job: tables by
/// name and version, which survive saving and reopening (ids do not need to), and the test input. The
/// request's file fields are the job's (deployRequest).
struct DeploySettings {
  driver::DeployOptions options = newDeployOptions();
  QString caliTableName;  ///< empty: the newest calibration table (INT8 only)
  int caliTableVersion = 0;
  QString quantTableName; ///< empty: none
  int quantTableVersion = 0;
  QString testInput;      ///< a sample path; empty: the first calibration sample on disk
  /// Many test samples (issue 22; options `test_dataset`, `test_subset`, `test_folder`): one of the project's
  /// datasets by name, optionally one of its subsets, or a folder; both empty: the one sample above. The
  /// sample limit (`test_num`) and the first divergent layers (`find_divergent`, `divergent_top`,
  /// `divergent_samples`) are the request's own fields in `options`.
  QString testDataset;
  QString testSubset;
  QString testFolder;
  /// True when the settings test many samples (a dataset or a folder).
  bool manySamples() const { return !testDataset.isEmpty() || !testFolder.isEmpty(); }

  /// What a new configuration deploys: F32 on the default chip, every other field the request's default.
  static driver::DeployOptions newDeployOptions();
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
  QString testInput; ///< empty: no test (no comparison); a file, or a folder / data list of many samples
  QString tpuMlir;
  QString snapshots;        ///< empty: no IR snapshots (else the Top input and the lowered Tpu module)
  QString model;            ///< empty: stop at the Tpu level (else the .tpum model file, checked when tested)
  /// One sample's files (one per model input), replacing `testInput` and the settings' many samples: a
  /// deploy on one sample of a many-sample run (its worst sample's tensors, issue 22).
  QStringList testFiles = {};
};

/// The `tpuc deploy` request of a configuration's settings and a job's files: the group size only for
/// weight-only modes, the tolerance and --compare_all only with a test input, --test_num only over many
/// samples, --find_divergent (with its top and samples) only with a test input, JSON progress.
driver::DeployOptions deployRequest(const DeploySettings &settings, const DeployPaths &paths);
/// deployRequest's command line (EngineClient.h), command word first; empty when a value has no spelling.
QStringList deployArguments(const DeploySettings &settings, const DeployPaths &paths);

/// `tpuc run`: a model file on the command-level simulator (model_runner), every tensor dumped, its engine
/// trace beside the outputs, JSON progress.
driver::RunOptions runModelRequest(const QString &model, const QString &input, const QString &output,
                                   const QString &trace);

/// The calibration table a configuration uses: its named version, else the newest; null when none.
const project::CaliTable *deployCaliTable(const project::Project &project, const DeploySettings &settings);
/// The quantize table a configuration names; null when it names none or that table is gone.
const project::QuantTable *deployQuantTable(const project::Project &project, const DeploySettings &settings);

} // namespace tpuc::ui

#endif
