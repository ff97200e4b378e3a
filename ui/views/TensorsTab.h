// A central tab showing the tensors of a deploy run (`--compare_all`): every layer's Top (float) and Tpu
// tensors side by side in the tensor viewer, with the thresholds of the calibration table the run used.
#ifndef TPUC_UI_VIEWS_TENSORSTAB_H
#define TPUC_UI_VIEWS_TENSORSTAB_H

#include "ui/StudioContext.h"

#include <QWidget>

class QLabel;

namespace tpuc::vis {
class TensorViewer;
}

namespace tpuc::ui {

/// The tensor files of a run: the Tpu simulation's and the reference's, every tensor by name.
struct RunTensorFiles {
  QString target, reference;
  QString calibrationTable; ///< the run's --calibration_table, empty when none
  QString precision;        ///< the run's --quantize (INT8, F16, ...)
  bool complete() const { return !target.isEmpty() && !reference.isEmpty(); }
};
RunTensorFiles tensorFilesOf(const project::RunRecord &run);

class TensorsTab : public QWidget {
  Q_OBJECT
public:
  /// Opens run `runId`'s tensor files (read off the UI thread), then shows `layer` (or the first tensor).
  TensorsTab(StudioContext *context, qint64 runId, const QString &layer, QWidget *parent = nullptr);
  qint64 runId() const { return m_runId; }
  vis::TensorViewer *viewer() const { return m_viewer; }
  /// Shows a layer (when the files are read; before that, the layer shown once they are).
  void showLayer(const QString &layer, const QStringList &inputs = {});
  bool loaded() const { return m_loaded; }

Q_SIGNALS:
  /// The files were read (`error` empty) or could not be.
  void loadFinished(const QString &error);

private:
  StudioContext *m_context;
  qint64 m_runId;
  QString m_pendingLayer;
  QStringList m_pendingInputs;
  bool m_loaded = false;
  QLabel *m_status;
  vis::TensorViewer *m_viewer;
};

} // namespace tpuc::ui

#endif
