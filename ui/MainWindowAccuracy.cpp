// The main window's accuracy debugging and chip views: the deploy dialog, the per-layer accuracy tab and the
// layer-group / memory / engine-timeline tab of a run.
#include "tpuc/Driver/Chips.h"
#include "ui/MainWindow.h"

#include "ui/DeployDialog.h"
#include "ui/views/AccuracyView.h"
#include "ui/views/ChipViewsTab.h"
#include "ui/views/TensorsTab.h"

#include "ui/jobs/JobQueue.h"

#include <QMessageBox>

#include <QTabWidget>
#include <memory>

namespace tpuc::ui {

DeployDialog *MainWindow::openDeployDialog(qint64 configId) {
  const project::Project &p = m_context->project();
  if (configId < 0 && m_context->selection().section == Section::CompileConfigs)
    configId = m_context->selection().id;
  // From a run (the accuracy tab in front, or a run selected in the tree): the configuration it deployed,
  // which is what "keep in float, deploy again" edits. A run's title ends in "(<configuration>)".
  if (configId < 0) {
    qint64 runId = -1;
    if (auto *view = qobject_cast<AccuracyView *>(m_tabs->currentWidget()))
      runId = view->runId();
    else if (m_context->selection().section == Section::Runs)
      runId = m_context->selection().id;
    if (const project::RunRecord *run = p.findRun(runId))
      for (const project::CompileConfig &c : p.compileConfigs)
        if (run->configName.ends_with("(" + c.name + ")"))
          configId = c.id;
  }
  project::CompileConfig config{-1, "deploy", std::string(driver::kDefaultChip),
                                p.caliTables.empty() ? "F16" : "INT8", "{}"};
  for (const project::CompileConfig &c : p.compileConfigs)
    if (c.id == configId || (configId < 0 && &c == &p.compileConfigs.front()))
      config = c;
  if (!m_interactive) {
    runDeploy(config.id);
    return nullptr;
  }
  auto *dialog = new DeployDialog(p, config, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    project::CompileConfig edited = dialog->config();
    qint64 id = edited.id;
    const bool exists = std::any_of(m_context->project().compileConfigs.begin(),
                                    m_context->project().compileConfigs.end(), [id](const auto &c) { return c.id == id; });
    if (!exists)
      id = m_context->addCompileConfig(edited);
    else if (!m_context->setCompileConfig(edited)) {
      showError(tr("Cannot Deploy"), tr("Another configuration is already named '%1'.")
                                         .arg(QString::fromStdString(edited.name)));
      return;
    }
    runDeploy(id);
  });
  dialog->open();
  return dialog;
}

AccuracyView *MainWindow::openAccuracy(qint64 runId) {
  for (int i = 0; i < m_tabs->count(); ++i)
    if (auto *view = qobject_cast<AccuracyView *>(m_tabs->widget(i)); view && view->runId() == runId) {
      m_tabs->setCurrentIndex(i);
      return view;
    }
  const project::RunRecord *run = m_context->project().findRun(runId);
  if (!run || accuracyOfRun(*run).layers.empty())
    return nullptr;
  auto *view = new AccuracyView(m_context, runId, m_tabs);
  view->setProperty("tpucRunId", runId);
  connect(view, &AccuracyView::tensorsRequested, this,
          [this](qint64 run, const QString &layer) { openTensors(run, layer); });
  connect(view, &AccuracyView::sampleTensorsRequested, this, &MainWindow::showLayerOnSample);
  m_tabs->setCurrentIndex(m_tabs->addTab(view, tr("Accuracy: run #%1").arg(runId)));
  return view;
}

int MainWindow::showLayerOnSample(qint64 runId, const QString &layer, const QStringList &files) {
  // The configuration the run deployed (its title ends in "(<configuration>)"), on that one sample.
  const project::Project &p = m_context->project();
  const project::RunRecord *run = p.findRun(runId);
  qint64 configId = -1;
  for (const project::CompileConfig &c : p.compileConfigs)
    if (run && run->configName.ends_with("(" + c.name + ")"))
      configId = c.id;
  if (configId < 0) {
    showError(tr("Cannot Show Sample"),
              tr("Run #%1 was not deployed from a configuration of this project.").arg(runId));
    return -1;
  }
  const int job = runDeploy(configId, files);
  if (job < 0)
    return -1;
  // When that deploy is recorded, its tensors open on the layer.
  const QString title = m_jobs->job(job) ? m_jobs->job(job)->spec.title : QString();
  auto connection = std::make_shared<QMetaObject::Connection>();
  *connection = connect(this, &MainWindow::runRecorded, this, [this, connection, title, layer](qint64 id) {
    const project::RunRecord *recorded = m_context->project().findRun(id);
    if (id >= 0 && (!recorded || QString::fromStdString(recorded->configName) != title))
      return; // another job's run
    disconnect(*connection);
    if (recorded && tensorFilesOf(*recorded).complete())
      openTensors(id, layer);
    else if (recorded)
      showError(tr("Cannot Show Sample"), tr("The deploy on the sample kept no tensors (run #%1: %2).")
                                              .arg(id)
                                              .arg(QString::fromStdString(recorded->status)));
  });
  m_context->log(LogLevel::Info,
                 tr("Deploying on %1 to show '%2' there").arg(files.join(QStringLiteral(", ")), layer));
  return job;
}

TensorsTab *MainWindow::openTensors(qint64 runId, const QString &layer, const QStringList &inputs) {
  for (int i = 0; i < m_tabs->count(); ++i)
    if (auto *tab = qobject_cast<TensorsTab *>(m_tabs->widget(i)); tab && tab->runId() == runId) {
      tab->showLayer(layer, inputs);
      m_tabs->setCurrentIndex(i);
      return tab;
    }
  const project::RunRecord *run = m_context->project().findRun(runId);
  if (!run || !tensorFilesOf(*run).complete()) {
    showError(tr("Cannot Show Tensors"),
              tr("Run #%1 kept no tensors: deploy with a test input and “compare every "
                 "layer” (--compare_all).")
                  .arg(runId));
    return nullptr;
  }
  auto *tab = new TensorsTab(m_context, runId, layer, m_tabs);
  tab->showLayer(layer, inputs);
  m_tabs->setCurrentIndex(m_tabs->addTab(tab, tr("Tensors: run #%1").arg(runId)));
  return tab;
}

ChipViewsTab *MainWindow::openChipViews(qint64 runId, int page) {
  const project::Project &p = m_context->project();
  if (runId < 0 && m_context->selection().section == Section::Runs &&
      !chipArtifactsOf(p, m_context->selection().id).empty())
    runId = m_context->selection().id;
  for (auto it = p.runs.rbegin(); runId < 0 && it != p.runs.rend(); ++it)
    if (!chipArtifactsOf(p, it->id).empty())
      runId = it->id;
  if (runId < 0) {
    const QString hint = tr("No run has a backend plan or engine trace yet: deploy a compile configuration (Run ▸ "
                            "Deploy to Tpu) to see its layer groups, memory and engine timeline.");
    m_context->log(LogLevel::Info, hint);
    if (m_interactive)
      QMessageBox::information(this, tr("No Chip Views Yet"), hint);
    return nullptr;
  }
  for (int i = 0; i < m_tabs->count(); ++i)
    if (auto *tab = qobject_cast<ChipViewsTab *>(m_tabs->widget(i)); tab && tab->runId() == runId) {
      tab->showPage(static_cast<ChipViewsTab::Page>(page));
      m_tabs->setCurrentIndex(i);
      return tab;
    }
  auto *tab = new ChipViewsTab(m_context, runId, m_tabs);
  tab->showPage(static_cast<ChipViewsTab::Page>(page));
  const project::RunRecord *run = p.findRun(runId);
  const QString name = run ? QString::fromStdString(run->configName) : QString();
  m_tabs->setCurrentIndex(m_tabs->addTab(tab, tr("Chip: %1").arg(name.isEmpty() ? tr("run #%1").arg(runId) : name)));
  return tab;
}

} // namespace tpuc::ui
