// A sample beside exactly the tensors the model receives: the file as decoded, what resize, padding and crop
// make of it, each channel of the tensor as an image with a colour bar and its statistics, and warnings when
// the sample or the import settings look wrong against the dataset. Computed off the UI thread by the
// engine's own preprocessing (PreprocessPreviewData.h); re-run when the sample, the settings, the model or
// the dataset change, a newer request superseding an older one.
#ifndef TPUC_UI_VIEWS_PREPROCESSPREVIEW_H
#define TPUC_UI_VIEWS_PREPROCESSPREVIEW_H

#include "ui/StudioContext.h"
#include "ui/views/PreprocessPreviewData.h"

#include <QWidget>

#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QVBoxLayout;

namespace tpuc::ui {

class PreprocessPreview : public QWidget {
  Q_OBJECT
public:
  /// How channel values are coloured: gray levels, or a perceptual heat map (dark to bright).
  enum class ColorMap { Gray, Heat };

  explicit PreprocessPreview(QWidget *parent = nullptr);
  ~PreprocessPreview() override;

  /// The sample to show: one file per model input in input order, or one .npz holding every input (what
  /// `tpuc transform --test_input` takes). Empty: nothing selected.
  void setSample(const QStringList &files);
  /// The model's graph inputs (readOnnxInputs); the import settings' input shapes replace their shapes.
  /// `note` says why there are none ("Import an ONNX model ..."), shown instead of a preview.
  void setModelInputs(std::vector<ModelInput> inputs, const QString &note = {});
  /// model_transform's settings the sample is preprocessed with.
  void setSettings(const project::ImportSettings &settings);
  /// The statistics of the sample's dataset (dataset::datasetStatistics of its index), for the warnings
  /// that compare a sample with its dataset. An empty value: no dataset to compare with.
  void setDatasetStatistics(dataset::DatasetStatistics statistics);

  /// Follows a project through its context: the import settings, the model's inputs (read off the UI
  /// thread) and the statistics of dataset `datasetId`'s index, each as it changes. The sample stays the
  /// caller's (setSample).
  void followProject(StudioContext *context, qint64 datasetId);

  void setColorMap(ColorMap map);
  ColorMap colorMap() const { return m_colorMap; }

  /// The preview on screen: the latest finished computation for the current sample and settings.
  const PreviewResult &result() const { return *m_result; }
  /// A computation for the current sample and settings is running or waiting for the one before it.
  bool isBusy() const { return m_running || m_pending; }

Q_SIGNALS:
  /// A preview of the current sample and settings is on screen (result() holds it, an error included).
  void previewUpdated();

private:
  void schedule();
  void start();
  void present(std::shared_ptr<const PreviewResult> result);
  void showPlaceholder(const QString &text);
  void loadModelInputs();
  void updateStatistics();
  void updateDatasetLine();
  void applyPalette();
  void changeEvent(QEvent *event) override;

  QStringList m_files;
  project::ImportSettings m_settings;
  std::vector<ModelInput> m_inputs;
  QString m_modelNote;
  std::shared_ptr<const dataset::DatasetStatistics> m_statistics;
  ColorMap m_colorMap = ColorMap::Heat;

  std::shared_ptr<const PreviewResult> m_result;
  quint64 m_generation = 0;      ///< bumped by every change of what the preview depends on
  quint64 m_modelGeneration = 0; ///< the model input reads, likewise
  bool m_running = false, m_pending = false;

  StudioContext *m_context = nullptr;
  qint64 m_datasetId = -1;

  QLabel *m_status, *m_error, *m_warnings, *m_dataset;
  QComboBox *m_colorMapBox;
  QWidget *m_panels;
  QVBoxLayout *m_panelLayout;
};

} // namespace tpuc::ui

#endif
