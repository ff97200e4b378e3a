// A central tab showing the tensors of a deploy run.
#include "ui/views/TensorsTab.h"

#include "project/TableFiles.h"
#include "tpuc/Support/Npz.h"
#include "ui/Background.h"
#include "ui/jobs/EngineClient.h"
#include "visualizer/TensorViewer.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QVBoxLayout>

namespace tpuc::ui {

RunTensorFiles tensorFilesOf(const project::RunRecord &run) {
  RunTensorFiles files;
  for (const project::ArtifactRef &ref : run.artifacts) {
    const QString path = QString::fromStdString(ref.name);
    if (path.endsWith(QLatin1String("_tpu_outputs.npz")))
      files.target = path;
    else if (path.endsWith(QLatin1String("_top_outputs.npz")))
      files.reference = path;
  }
  QStringList commandLine;
  for (const QJsonValue &arg : QJsonDocument::fromJson(QByteArray::fromStdString(run.summaryJson))
                                   .object()
                                   .value(QStringLiteral("arguments"))
                                   .toArray())
    commandLine << arg.toString();
  if (const auto deploy = requestOf<driver::DeployOptions>(commandLine)) {
    files.calibrationTable = QString::fromStdString(deploy->calibrationTable);
    files.precision = QString::fromStdString(deploy->quantize);
  }
  return files;
}

namespace {

struct LoadedTensors {
  std::shared_ptr<const NpzFile> target, reference;
  std::map<std::string, double> thresholds;
  QString error;
};

LoadedTensors loadTensors(const RunTensorFiles &files) {
  LoadedTensors loaded;
  Result<NpzFile> target = NpzFile::tryRead(files.target.toStdString());
  if (!target) {
    loaded.error = QString::fromStdString(target.error());
    return loaded;
  }
  Result<NpzFile> reference = NpzFile::tryRead(files.reference.toStdString());
  if (!reference) {
    loaded.error = QString::fromStdString(reference.error());
    return loaded;
  }
  loaded.target = std::make_shared<const NpzFile>(std::move(*target));
  loaded.reference = std::make_shared<const NpzFile>(std::move(*reference));
  // The thresholds are a help, not a need: a table that moved away only hides the threshold lines.
  if (QFile table(files.calibrationTable);
      !files.calibrationTable.isEmpty() && table.open(QIODevice::ReadOnly)) {
    Result<std::vector<project::CaliEntry>> entries =
        project::parseCaliTable(table.readAll().toStdString(), files.calibrationTable.toStdString());
    if (entries)
      for (const project::CaliEntry &e : *entries)
        loaded.thresholds.emplace(e.opName, e.threshold);
  }
  return loaded;
}

} // namespace

TensorsTab::TensorsTab(StudioContext *context, qint64 runId, const QString &layer, QWidget *parent)
    : QWidget(parent), m_context(context), m_runId(runId), m_pendingLayer(layer), m_status(new QLabel(this)),
      m_viewer(new vis::TensorViewer(this)) {
  m_status->setWordWrap(true);
  auto *layout = new QVBoxLayout(this);
  layout->addWidget(m_status);
  layout->addWidget(m_viewer, 1);
  connect(m_viewer, &vis::TensorViewer::tensorShown, context, &StudioContext::selectOp);
  const project::RunRecord *run = context->project().findRun(runId);
  const RunTensorFiles files = run ? tensorFilesOf(*run) : RunTensorFiles{};
  if (!files.complete()) {
    m_status->setText(
        tr("Run #%1 kept no tensors: deploy again with “compare every layer” (--compare_all) and a "
           "test input.")
            .arg(runId));
    m_viewer->setEnabled(false);
    QMetaObject::invokeMethod(
        this, [this] { Q_EMIT loadFinished(m_status->text()); }, Qt::QueuedConnection);
    return;
  }
  const QString precision = files.precision.isEmpty() ? tr("Tpu") : tr("Tpu %1").arg(files.precision);
  m_status->setText(tr("Reading the tensors of run #%1…").arg(runId));
  runInBackground(
      this, [files] { return std::make_shared<LoadedTensors>(loadTensors(files)); },
      [this, files, precision](const std::shared_ptr<LoadedTensors> &loaded) {
        if (!loaded->error.isEmpty()) {
          m_status->setText(loaded->error);
          Q_EMIT loadFinished(loaded->error);
          return;
        }
        m_viewer->setFiles(loaded->reference, loaded->target, tr("Top (float)"), precision);
        m_viewer->setThresholds(std::move(loaded->thresholds));
        m_loaded = true;
        m_status->setText(
            tr("Run #%1: %2 against %3 · hover a cell for its value")
                .arg(m_runId)
                .arg(QFileInfo(files.target).fileName(), QFileInfo(files.reference).fileName()));
        QString layer = m_pendingLayer;
        if (layer.isEmpty() && !loaded->target->names().empty())
          layer = QString::fromStdString(loaded->target->names().back());
        showLayer(layer, m_pendingInputs);
        Q_EMIT loadFinished(QString());
      });
}

void TensorsTab::showLayer(const QString &layer, const QStringList &inputs) {
  m_pendingLayer = layer;
  m_pendingInputs = inputs;
  if (m_loaded && !layer.isEmpty())
    m_viewer->showLayer(layer, inputs);
}

} // namespace tpuc::ui
