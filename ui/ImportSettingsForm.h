// A form over model_transform's input and preprocessing settings, shared by the properties panel and the
// import dialog.
#ifndef TPUC_UI_IMPORTSETTINGSFORM_H
#define TPUC_UI_IMPORTSETTINGSFORM_H

#include "project/Project.h"

#include <QWidget>

#include <optional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLineEdit;

namespace tpuc::ui {

class ImportSettingsForm : public QWidget {
  Q_OBJECT
public:
  explicit ImportSettingsForm(QWidget *parent = nullptr);

  void setSettings(const project::ImportSettings &settings);
  /// The settings as typed; nullopt with a one-line `error` when a field does not parse.
  std::optional<project::ImportSettings> settings(QString *error) const;
  /// The import dialog edits shapes per input in its own table.
  void setShapesVisible(bool visible);
  QFormLayout *formLayout() const { return m_form; }

private:
  QFormLayout *m_form;
  QLineEdit *m_shapes, *m_mean, *m_scale, *m_resize, *m_outputs;
  QComboBox *m_pixelFormat, *m_channelFormat;
  QCheckBox *m_keepAspect;
  QDoubleSpinBox *m_padValue;
  std::optional<project::LlmConvertSettings> m_llm; ///< not edited here; carried through unchanged
};

} // namespace tpuc::ui

#endif
