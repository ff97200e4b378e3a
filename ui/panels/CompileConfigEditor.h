// The properties editor of one compile configuration: name, chip, precision and extra deploy options.
#ifndef TPUC_UI_PANELS_COMPILECONFIGEDITOR_H
#define TPUC_UI_PANELS_COMPILECONFIGEDITOR_H

#include "ui/StudioContext.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;

namespace tpuc::ui {

/// Edits the configuration with the given id; Apply makes one undoable edit through the context.
class CompileConfigEditor : public QWidget {
  Q_OBJECT
public:
  explicit CompileConfigEditor(StudioContext *context, QWidget *parent = nullptr);
  void setConfigId(qint64 id);
  /// Applies the fields; false (with the reason shown) when they are invalid.
  bool apply();

  /// The chips and precisions the studio offers (the simulator's profiles, model_deploy's quantize modes).
  static QStringList chips();
  static QStringList precisions();

private:
  void fill();
  StudioContext *m_context;
  qint64 m_id = -1;
  QLineEdit *m_name, *m_options;
  QComboBox *m_chip, *m_precision;
  QLabel *m_error;
};

} // namespace tpuc::ui

#endif
