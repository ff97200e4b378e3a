// The import dialog: a model's inputs with their shapes (dynamic dims to fix) and its preprocessing.
#ifndef TPUC_UI_IMPORTDIALOG_H
#define TPUC_UI_IMPORTDIALOG_H

#include "project/Project.h"
#include "ui/ModelInputs.h"

#include <QDialog>

#include <optional>

class QLabel;
class QTableWidget;

namespace tpuc::ui {

class ImportSettingsForm;

/// Prefilled from the model file (input names, types, shapes) and from `current` settings. Accepting
/// requires every dynamic dimension to be fixed; settings() then holds --input_shapes built from the table.
class ImportDialog : public QDialog {
  Q_OBJECT
public:
  enum Column { NameColumn, TypeColumn, ShapeColumn, ColumnCount };

  ImportDialog(const QString &modelPath, const project::ImportSettings &current, QWidget *parent = nullptr);

  QString modelPath() const { return m_modelPath; }
  /// The model's inputs as read from the file (empty when it could not be read: see loadError()).
  const std::vector<ModelInput> &inputs() const { return m_inputs; }
  QString loadError() const { return m_loadError; }
  QTableWidget *inputsTable() const { return m_table; }
  /// The settings as entered; nullopt with a one-line `error` naming the input or field at fault.
  std::optional<project::ImportSettings> settings(QString *error) const;

  void accept() override;

private:
  QString m_modelPath;
  std::vector<ModelInput> m_inputs;
  QString m_loadError;
  QTableWidget *m_table;
  ImportSettingsForm *m_form;
  QLabel *m_error;
};

} // namespace tpuc::ui

#endif
