// The main window's LLM path (HuggingFace folders, llm-convert jobs) and the run history it keeps.
#include "ui/MainWindow.h"
#include "ui/jobs/RunManifests.h"

#include "project/ProjectStore.h"
#include "ui/Background.h"
#include "ui/LlmImportDialog.h"
#include "ui/Settings.h"
#include "ui/jobs/JobQueue.h"
#include "ui/jobs/RunHistory.h"
#include "ui/views/LlmChatView.h"
#include "ui/views/LlmStagesView.h"

#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QStandardPaths>
#include <QUndoStack>

namespace tpuc::ui {

LlmImportDialog *MainWindow::openLlmImportDialog(const QString &folder) {
  const project::Project &p = m_context->project();
  // Re-importing the project's own model starts from its recorded settings.
  std::optional<project::LlmConvertSettings> current;
  if (p.model.format == "hf" && QFileInfo(QString::fromStdString(p.model.path)) == QFileInfo(folder))
    current = p.importSettings.llm;
  if (!m_interactive) {
    QString error;
    auto model = readHfModel(folder, &error);
    auto settings = model ? normalizeLlmSettings(current.value_or(project::LlmConvertSettings{}), model->maxPositions,
                                                 &error)
                          : std::nullopt;
    if (!settings) {
      showError(tr("Cannot Import Model"), error);
      Q_EMIT modelImported(false);
    } else {
      importHfModel(folder, *settings, /*convert=*/false);
    }
    return nullptr;
  }
  auto *dialog = new LlmImportDialog(folder, current, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  if (!dialog->loadError().isEmpty())
    m_context->log(LogLevel::Error, dialog->loadError());
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    QString error;
    if (auto settings = dialog->settings(&error))
      importHfModel(dialog->modelFolder(), *settings, /*convert=*/true);
  });
  dialog->open();
  return dialog;
}

void MainWindow::importHfModel(const QString &folder, const project::LlmConvertSettings &settings, bool convert) {
  const QString absolute = QFileInfo(folder).absoluteFilePath();
  settings::setLastDirectory(QFileInfo(absolute).absolutePath());
  m_statusLabel->setText(tr("Reading %1…").arg(QFileInfo(absolute).fileName()));
  // The folder's identity is its config.json; the weights are summed for size (hashing gigabytes of
  // safetensors on every import would take minutes).
  runInBackground(this, [absolute] {
    Result<std::string> hash = project::hashFile((absolute + QStringLiteral("/config.json")).toStdString());
    std::uint64_t size = 0;
    for (const QFileInfo &f : QDir(absolute).entryInfoList(QDir::Files))
      size += static_cast<std::uint64_t>(f.size());
    return std::make_tuple(hash.value_or(std::string()), hash.error(), size);
  }, [this, absolute, settings, convert](const std::tuple<std::string, std::string, std::uint64_t> &result) {
    m_statusLabel->setText(tr("Ready"));
    const auto &[hash, error, size] = result;
    if (hash.empty()) {
      showError(tr("Cannot Import Model"), QString::fromStdString(error));
      Q_EMIT modelImported(false);
      return;
    }
    project::ModelRef model;
    model.path = absolute.toStdString();
    model.contentHash = hash;
    model.size = size;
    model.format = "hf";
    // An LLM has no image preprocessing: an earlier model's shapes and mean/scale do not carry over.
    project::ImportSettings importSettings;
    importSettings.llm = settings;
    m_context->undoStack()->beginMacro(tr("Import LLM"));
    m_context->setModel(model);
    m_context->setImportSettings(importSettings);
    m_context->undoStack()->endMacro();
    m_context->log(LogLevel::Info, tr("LLM %1 (config.json %2)").arg(absolute, QString::fromStdString(hash)));
    Q_EMIT modelImported(true);
    if (convert)
      runLlmConvert();
  });
}

int MainWindow::runLlmConvert() {
  const project::Project &p = m_context->project();
  if (p.model.format != "hf" || !p.importSettings.llm) {
    showError(tr("Cannot Convert"), tr("The project has no HuggingFace model: drop its folder on the window or "
                                       "use File ▸ Import LLM Folder first."));
    return -1;
  }
  if (!QFileInfo(tpucPath()).isExecutable()) {
    showError(tr("Cannot Convert"), tr("The tpuc engine was not found at %1").arg(tpucPath()));
    return -1;
  }
  const QString folder = QString::fromStdString(p.model.path);
  const QString name = QFileInfo(folder).fileName();
  const QString outDir = llmOutputFolder();
  const QString cache = QDir::cleanPath(outDir + QStringLiteral("/../.."));
  QDir().mkpath(outDir);
  const driver::LlmConvertOptions request = llmConvertRequest(*p.importSettings.llm, folder, outDir);
  return submit(tr("Cannot Convert"), tr("Convert LLM %1").arg(name), request, cache,
                QString::fromStdString(driver::llmConvertResultPath(request)));
}

QString MainWindow::llmOutputFolder() const {
  const QString name = QFileInfo(QString::fromStdString(m_context->project().model.path)).fileName();
  // An untitled project has no cache folder beside it yet: its outputs go to the app's cache.
  const QString cache =
      m_context->filePath().isEmpty()
          ? QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/untitled")
          : QString::fromStdString(project::cacheDirFor(m_context->filePath().toStdString()).string());
  return cache + QStringLiteral("/llm/") + name;
}

LlmChatView *MainWindow::openLlmChat() {
  const project::Project &p = m_context->project();
  if (p.model.format != "hf" || !p.importSettings.llm) {
    showError(tr("Cannot Chat"), tr("The project has no HuggingFace model: drop its folder on the window or "
                                    "use File ▸ Import LLM Folder, then Run ▸ Convert LLM."));
    return nullptr;
  }
  const QString folder = llmOutputFolder();
  for (int i = 0; i < m_tabs->count(); ++i)
    if (auto *chat = qobject_cast<LlmChatView *>(m_tabs->widget(i)); chat && chat->modelFolder() == folder) {
      m_tabs->setCurrentIndex(i);
      if (!chat->isReady() && !chat->isBusy())
        chat->start(); // converted meanwhile, or the engine ended
      return chat;
    }
  auto *chat = new LlmChatView(folder, m_tabs);
  connect(chat, &LlmChatView::layerStagesRequested, this, [this] { openLlmLayerStages(0); });
  m_tabs->setCurrentIndex(
      m_tabs->addTab(chat, tr("Chat: %1").arg(QFileInfo(QString::fromStdString(p.model.path)).fileName())));
  return chat;
}

LlmStagesView *MainWindow::openLlmLayerStages(int layer) {
  if (m_context->project().model.format != "hf") {
    showError(tr("Cannot Show Stages"), tr("The project has no HuggingFace model."));
    return nullptr;
  }
  const QString folder = llmOutputFolder();
  for (int i = 0; i < m_tabs->count(); ++i)
    if (auto *view = qobject_cast<LlmStagesView *>(m_tabs->widget(i));
        view && view->folder() == folder && view->layer() == layer) {
      m_tabs->setCurrentIndex(i);
      return view;
    }
  auto *view = new LlmStagesView(m_context, folder, layer, m_tabs);
  m_tabs->setCurrentIndex(m_tabs->addTab(view, tr("Layer %1 Stages").arg(layer)));
  return view;
}

void MainWindow::recordRun(const JobInfo &job) {
  if (!job.started.isValid())
    return; // cancelled before it started: nothing ran
  // Hashing the artifacts reads them: off the UI thread. The record lands in the project that was open
  // when the job finished; a project opened meanwhile does not get it.
  const quint64 generation = m_projectGeneration;
  runInBackground(
      this,
      [job] {
        project::RunRecord run = makeRunRecord(job);
        keepRunManifest(job, run); // runs stay comparable after the files are overwritten
        return run;
      },
      [this, generation, id = job.id](const project::RunRecord &run) {
        const qint64 runId = generation == m_projectGeneration ? m_context->addRun(run) : -1;
        Q_EMIT runRecorded(runId);
        Q_EMIT runRecordedForJob(id, runId);
      });
}

} // namespace tpuc::ui
