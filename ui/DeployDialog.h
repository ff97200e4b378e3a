// The deploy dialog: a compile configuration (chip, quantize mode, tables from the project, test input)
// edited as a form, stored in the project and run as `tpuc deploy ... --compare_all`.
#ifndef TPUC_UI_DEPLOYDIALOG_H
#define TPUC_UI_DEPLOYDIALOG_H

#include "project/Project.h"
#include "ui/jobs/DeployJob.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace tpuc::ui {

/// Edits one compile configuration of `project` (a copy; nothing is changed until the caller stores
/// config()). The table and sample choices are the project's; a choice the project no longer has shows
/// as missing and blocks OK.
class DeployDialog : public QDialog {
  Q_OBJECT
public:
  DeployDialog(const project::Project &project, const project::CompileConfig &config, QWidget *parent = nullptr);

  /// The configuration as edited (id and unknown option keys kept).
  project::CompileConfig config() const;
  DeploySettings settings() const;
  /// Why the form cannot be accepted, empty when it can.
  QString problem() const;

private:
  void update();

  project::CompileConfig m_config;
  bool m_hasCaliTables;
  QLineEdit *m_name;
  QComboBox *m_chip, *m_quantize, *m_caliTable, *m_quantTable, *m_testInput;
  QCheckBox *m_asymmetric;
  QSpinBox *m_groupSize, *m_cores;
  // Many test samples (issue 22): a dataset (or one of its subsets) or a folder, a limit, and the first
  // divergent layers.
  QComboBox *m_testSet;
  QLineEdit *m_testFolder;
  QSpinBox *m_testNum;
  QCheckBox *m_findDivergent;
  QSpinBox *m_divergentTop, *m_divergentSamples;
  QLineEdit *m_tolerance;
  QLabel *m_commandLine, *m_error;
  QDialogButtonBox *m_buttons;
};

} // namespace tpuc::ui

#endif
