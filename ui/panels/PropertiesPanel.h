// The properties panel: details of the selected item; editors for import settings and notes.
#ifndef TPUC_UI_PANELS_PROPERTIESPANEL_H
#define TPUC_UI_PANELS_PROPERTIESPANEL_H

#include "ui/StudioContext.h"

#include <QWidget>

#include <optional>

class QLabel;
class QPlainTextEdit;
class QStackedWidget;
class QTreeWidget;

namespace tpuc::ui {

/// Shows the context's selection. Import settings and notes are edited here; every edit is one
/// undoable command through the context.
class CompileConfigEditor;
class ImportSettingsForm;

class PropertiesPanel : public QWidget {
  Q_OBJECT
public:
  /// Sized in characters and lines, so the first-run layout scales with the font and DPI.
  QSize sizeHint() const override;
  explicit PropertiesPanel(StudioContext *context, QWidget *parent = nullptr);

  /// The import settings as currently typed into the editor; nullopt with `error` when unparsable.
  std::optional<project::ImportSettings> editedImportSettings(QString *error) const;

private:
  QWidget *buildImportEditor();
  void showSelection();
  void fillProperties(const Selection &selection);
  void fillImportEditor();
  void applyImportSettings();
  /// The graph node's precision in the current compile configuration, with "Keep in float" when it is
  /// quantized (MixedPrecision.h).
  void addFloatRow(const std::string &op);

  StudioContext *m_context;
  QStackedWidget *m_stack;
  QTreeWidget *m_properties;
  QPlainTextEdit *m_notes;
  ImportSettingsForm *m_importForm = nullptr;
  QLabel *m_importError = nullptr;
  CompileConfigEditor *m_configEditor;
};

} // namespace tpuc::ui

#endif
