// Run ▸ Run Whole Pipeline (issue 24): the four steps of a compile configuration as one action.
#include "ui/MainWindow.h"

#include "project/Project.h"
#include "ui/PipelineDialog.h"
#include "ui/PipelineRunner.h"
#include "ui/jobs/DeployJob.h"
#include "ui/views/ChipViewsTab.h"

#include <QFileInfo>

namespace tpuc::ui {

PipelineDialog *MainWindow::pipelineDialog() const { return m_pipeline; }

PipelineDialog *MainWindow::runWholePipeline(qint64 configId) {
  if (m_pipeline && m_pipeline->runner() && !m_pipeline->runner()->isFinished()) {
    m_pipeline->show();
    m_pipeline->raise();
    showError(tr("Cannot Run Pipeline"), tr("A pipeline is running already: wait for it or cancel it."));
    return nullptr;
  }
  const project::Project &p = m_context->project();
  if (p.model.path.empty() || p.model.format == "hf") {
    showError(tr("Cannot Run Pipeline"),
              tr("The project has no ONNX model yet: use File ▸ Import Model first (a HuggingFace model "
                 "goes through Run ▸ Convert LLM)."));
    return nullptr;
  }
  if (!ensureSaved(tr("Cannot Run Pipeline")))
    return nullptr;
  const project::CompileConfig config = compileConfigFor(configId);
  const qint64 id = config.id > 0 ? config.id : -1;
  const DeploySettings settings = deploySettingsOf(config);
  const QString precision = QString::fromStdString(settings.options.quantize).toUpper();
  const QString modelName = QFileInfo(QString::fromStdString(p.model.path)).completeBaseName();
  const QString configName = QString::fromStdString(config.name);

  // A step's start runs the studio's own action with its message boxes held back: a refusal's reason goes to
  // the step's row (and the log) instead.
  auto quietly = [this](const std::function<int()> &action) {
    m_quietErrors = true;
    m_lastError.clear();
    const int job = action();
    m_quietErrors = false;
    return StepStart{job, {}, job > 0 ? QString() : m_lastError};
  };
  std::vector<PipelineStep> steps;
  steps.push_back({tr("Transform"), [this, quietly] { return quietly([this] { return runTransform(); }); }});
  steps.push_back({tr("Calibrate"), [this, quietly, id, precision, modelName] {
                     const project::Project &now = m_context->project();
                     const DeploySettings current = deploySettingsOf(compileConfigFor(id));
                     if (precision != QLatin1String("INT8"))
                       return StepStart{-1, tr("%1 needs no calibration table").arg(precision), {}};
                     if (const project::CaliTable *table = deployCaliTable(now, current))
                       return StepStart{-1,
                                        tr("the project has table '%1' v%2 already")
                                            .arg(QString::fromStdString(table->name))
                                            .arg(table->version),
                                        {}};
                     CalibrationRecipe recipe{-1, {}, QStringLiteral("kl")};
                     if (!current.caliTableName.isEmpty()) {
                       const std::optional<CalibrationRecipe> named =
                           calibrationRecipe(now, modelName, current.caliTableName);
                       if (!named)
                         return StepStart{-1,
                                          {},
                                          tr("the configuration names table '%1', which is not of the form "
                                             "'<model> <dataset> <method>' with a dataset of this project: "
                                             "calibrate it with Run ▸ Calibrate or pick another table")
                                              .arg(current.caliTableName)};
                       recipe = *named;
                     }
                     return quietly([this, recipe] {
                       return runCalibrate(recipe.datasetId, recipe.method, recipe.subset);
                     });
                   }});
  steps.push_back(
      {tr("Deploy"), [this, quietly, id] { return quietly([this, id] { return runDeploy(id); }); }, true});
  steps.push_back({tr("Run on simulator"),
                   [this, quietly, id] { return quietly([this, id] { return runModelFile(id); }); }, true});

  auto *runner = new PipelineRunner(m_jobs, std::move(steps), this);
  connect(this, &MainWindow::runRecordedForJob, runner, &PipelineRunner::resultTaken);
  // A project opened or closed meanwhile ends the pipeline: its later steps would act on the other project.
  for (auto signal : {&StudioContext::projectLoaded, &StudioContext::projectClosed})
    connect(m_context, signal, runner, &PipelineRunner::cancel);
  auto deployRun = [runner] { return runner->stepRun(2); };
  auto simulatorRun = [runner] { return runner->stepRun(3); };
  std::vector<PipelineOutcomeAction> outcomes{
      {tr("Accuracy"), tr("Every layer of the deploy against the float reference"),
       [this, deployRun] { openAccuracy(deployRun()); }},
      {tr("Layer Groups"), tr("How the compiler cut the network into groups that live in local memory"),
       [this, deployRun] { openChipViews(deployRun(), ChipViewsTab::Groups); }},
      {tr("Engine Timeline"), tr("The simulated run, command by command on TIU and GDMA"),
       [this, simulatorRun] { openChipViews(simulatorRun(), ChipViewsTab::Timeline); }}};
  const QString heading =
      tr("Transform → calibrate → deploy → run on the simulator, for configuration '%1' (%2 on %3)")
          .arg(configName, precision, QString::fromStdString(settings.options.chip));
  if (m_pipeline)
    m_pipeline->close();
  m_pipeline = new PipelineDialog(runner, m_jobs, heading, std::move(outcomes), this);
  connect(m_pipeline, &QObject::destroyed, runner, [runner] {
    if (runner->isFinished())
      runner->deleteLater(); // a running pipeline outlives its window and ends on its own
  });
  connect(runner, &PipelineRunner::finished, runner, [this, runner, configName](bool ok) {
    m_context->log(ok ? LogLevel::Info : LogLevel::Warning,
                   ok ? tr("Pipeline of '%1' done").arg(configName)
                      : tr("Pipeline of '%1' stopped").arg(configName));
    if (!m_pipeline || m_pipeline->runner() != runner)
      runner->deleteLater();
  });
  m_pipeline->show();
  runner->start();
  return m_pipeline;
}

} // namespace tpuc::ui
