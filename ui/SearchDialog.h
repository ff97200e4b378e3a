// "Search Mixed Precision…": the settings of calibrate's search_qtable (dataset and subset as calibration
// takes them, target cosine, most float layers, the configuration it plans for).
#ifndef TPUC_UI_SEARCHDIALOG_H
#define TPUC_UI_SEARCHDIALOG_H

#include "project/Project.h"
#include "ui/MixedPrecision.h"

#include <QDialog>

class QComboBox;
class QDialogButtonBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace tpuc::ui {

class SearchDialog : public QDialog {
  Q_OBJECT
public:
  SearchDialog(const project::Project &project, const SearchSettings &initial, QWidget *parent = nullptr);
  SearchSettings settings() const;
  QDoubleSpinBox *expectedCos() const { return m_cos; }
  QSpinBox *maxFloatLayers() const { return m_max; }

private:
  void fillSubsets();
  void check();

  const project::Project &m_project;
  QComboBox *m_config, *m_dataset, *m_subset;
  QDoubleSpinBox *m_cos;
  QSpinBox *m_max;
  QLabel *m_note;
  QDialogButtonBox *m_buttons;
};

} // namespace tpuc::ui

#endif
