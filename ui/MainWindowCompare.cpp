// The main window's mixed-precision and run-comparison actions: re-deploy and compare, Compare Runs…, the
// search_qtable job and its curve, and sweep reports (File ▸ Open Sweep Report…) with their cells' runs.
#include "ui/MainWindow.h"

#include "ui/MixedPrecision.h"
#include "ui/SearchDialog.h"
#include "ui/jobs/JobQueue.h"
#include "ui/jobs/RunManifests.h"
#include "ui/views/AccuracyView.h"
#include "ui/views/ConfigHistoryView.h"
#include "ui/views/RunCompareView.h"
#include "ui/views/SearchQtableView.h"
#include "ui/views/SweepReportView.h"

#include <QComboBox>
#include <QDesktopServices>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QTabWidget>

#include <algorithm>
#include <memory>

namespace tpuc::ui {

RunCompareView *MainWindow::openRunComparison(qint64 runA, qint64 runB) {
  for (int i = 0; i < m_tabs->count(); ++i)
    if (auto *view = qobject_cast<RunCompareView *>(m_tabs->widget(i));
        view && view->runA() == runA && view->runB() == runB) {
      m_tabs->setCurrentIndex(i);
      return view;
    }
  auto *view = new RunCompareView(m_context, runA, runB, m_tabs);
  m_tabs->setCurrentIndex(m_tabs->addTab(view, tr("Compare: run #%1 → #%2").arg(runA).arg(runB)));
  Q_EMIT runComparisonOpened(runA, runB);
  return view;
}

SweepReportView *MainWindow::openSweepReport(const QString &path) {
  QString file = QFileInfo(path).isDir() ? QDir(path).filePath(QStringLiteral("report.json")) : path;
  file = QFileInfo(file).absoluteFilePath();
  for (int i = 0; i < m_tabs->count(); ++i)
    if (auto *view = qobject_cast<SweepReportView *>(m_tabs->widget(i)); view && view->reportPath() == file) {
      m_tabs->setCurrentIndex(i);
      return view;
    }
  auto *view = new SweepReportView(file, m_tabs);
  connect(view, &SweepReportView::cellRequested, this, &MainWindow::openSweepCell);
  connect(view, &SweepReportView::loaded, this, [this, file](const QString &error) {
    if (!error.isEmpty())
      m_context->log(LogLevel::Error, error);
  });
  m_tabs->setCurrentIndex(m_tabs->addTab(view, tr("Sweep: %1").arg(QFileInfo(file).dir().dirName())));
  return view;
}

AccuracyView *MainWindow::openSweepCell(const QString &accuracyFile, const QString &folder,
                                        const QString &title) {
  if (!accuracyFile.isEmpty()) {
    auto *view = new AccuracyView(m_context, -1, m_tabs);
    QString error;
    if (view->loadFile(accuracyFile, &error)) {
      connect(view, &AccuracyView::tensorsRequested, this,
              [this, folder] { QDesktopServices::openUrl(QUrl::fromLocalFile(folder)); });
      m_tabs->setCurrentIndex(m_tabs->addTab(view, tr("Accuracy: %1").arg(title)));
      return view;
    }
    delete view;
    m_context->log(LogLevel::Error, error);
  }
  QDesktopServices::openUrl(QUrl::fromLocalFile(folder));
  return nullptr;
}

ConfigHistoryView *MainWindow::openConfigHistory(qint64 configId) {
  if (configId < 0)
    configId = currentConfigId(*m_context);
  const project::CompileConfig *config = nullptr;
  for (const project::CompileConfig &c : m_context->project().compileConfigs)
    if (c.id == configId)
      config = &c;
  if (!config) {
    showError(tr("No Run History"), tr("The project has no compile configuration: deploy the model first "
                                       "(Run ▸ Deploy with Configuration…)."));
    return nullptr;
  }
  for (int i = 0; i < m_tabs->count(); ++i)
    if (auto *view = qobject_cast<ConfigHistoryView *>(m_tabs->widget(i));
        view && view->configId() == configId) {
      m_tabs->setCurrentIndex(i);
      return view;
    }
  auto *view = new ConfigHistoryView(m_context, configId, m_tabs);
  connect(view, &ConfigHistoryView::runActivated, this, [this](qint64 run) { openAccuracy(run); });
  connect(view, &ConfigHistoryView::compareRequested, this,
          [this](qint64 a, qint64 b) { openRunComparison(a, b); });
  m_tabs->setCurrentIndex(m_tabs->addTab(view, tr("History: %1").arg(QString::fromStdString(config->name))));
  return view;
}

void MainWindow::compareRunsDialog() {
  const project::Project &p = m_context->project();
  std::vector<const project::RunRecord *> runs; // newest first, those with a manifest
  for (auto it = p.runs.rbegin(); it != p.runs.rend(); ++it)
    if (!runManifestOf(*it).isEmpty())
      runs.push_back(&*it);
  if (runs.size() < 2) {
    showError(tr("Cannot Compare Runs"),
              tr("Two deploy or calibrate runs with their manifests are needed: deploy a "
                 "configuration twice (Run ▸ Deploy to Tpu)."));
    return;
  }
  // B: the selected run, else the newest; A: the run before B of the same configuration, else the one before.
  const project::RunRecord *b = runs.front();
  if (m_context->selection().section == Section::Runs)
    for (const project::RunRecord *r : runs)
      if (r->id == m_context->selection().id)
        b = r;
  const project::RunRecord *a = nullptr;
  for (const project::RunRecord *r : runs)
    if (r->id < b->id && (!a || (configOfRun(p, r->id) == configOfRun(p, b->id) &&
                                 configOfRun(p, a->id) != configOfRun(p, b->id))))
      a = r;
  if (!a)
    a = b == runs.front() ? runs[1] : runs.front();
  if (!m_interactive) {
    openRunComparison(a->id, b->id);
    return;
  }
  auto *dialog = new QDialog(this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setWindowTitle(tr("Compare Runs"));
  auto *first = new QComboBox(dialog), *second = new QComboBox(dialog);
  for (const project::RunRecord *r : runs)
    for (QComboBox *box : {first, second})
      box->addItem(tr("#%1 %2 (%3)")
                       .arg(r->id)
                       .arg(QString::fromStdString(r->configName), QString::fromStdString(r->finished)),
                   QVariant::fromValue<qint64>(r->id));
  first->setCurrentIndex(first->findData(QVariant::fromValue<qint64>(a->id)));
  second->setCurrentIndex(second->findData(QVariant::fromValue<qint64>(b->id)));
  auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, dialog);
  auto *form = new QFormLayout(dialog);
  form->addRow(tr("Run A (before):"), first);
  form->addRow(tr("Run B (after):"), second);
  form->addRow(buttons);
  connect(buttons, &QDialogButtonBox::accepted, dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
  connect(dialog, &QDialog::accepted, this, [this, first, second] {
    openRunComparison(first->currentData().value<qint64>(), second->currentData().value<qint64>());
  });
  dialog->open();
}

int MainWindow::redeployAndCompare(qint64 configId) {
  if (configId < 0)
    configId = currentConfigId(*m_context);
  const project::Project &p = m_context->project();
  const project::CompileConfig config = compileConfigFor(configId);
  qint64 previous = -1, newest = 0;
  for (const project::RunRecord &r : p.runs) {
    newest = std::max<qint64>(newest, r.id);
    if (configOfRun(p, r.id) == config.id && isDeployRun(r) && !runManifestOf(r).isEmpty())
      previous = r.id;
  }
  const int job = runDeploy(config.id);
  if (job < 0)
    return -1;
  if (previous < 0) {
    m_context->log(LogLevel::Info,
                   tr("Configuration '%1' has no earlier run with a manifest: nothing to compare the "
                      "new deploy with yet.")
                       .arg(QString::fromStdString(config.name)));
    return job;
  }
  // The run of this job is recorded after the job ends (its artifacts are hashed off the UI thread): the
  // first new run carrying the job's title is it.
  const std::string title = m_jobs->job(job)->spec.title.toStdString();
  auto connection = std::make_shared<QMetaObject::Connection>();
  *connection =
      connect(m_context, &StudioContext::runFinished, this,
              [this, connection, previous, newest, title, generation = m_projectGeneration](qint64 runId) {
                if (generation != m_projectGeneration) {
                  QObject::disconnect(*connection);
                  return;
                }
                const project::RunRecord *run = m_context->project().findRun(runId);
                if (!run || runId <= newest || run->configName != title)
                  return;
                QObject::disconnect(*connection);
                openRunComparison(previous, runId);
              });
  return job;
}

int MainWindow::runSearchQtable(const SearchSettings &settings) {
  return runCalibrate(settings.datasetId, QStringLiteral("kl"), settings.subset, &settings);
}

void MainWindow::openSearchDialog() {
  SearchSettings initial;
  initial.configId = currentConfigId(*m_context);
  if (m_context->selection().section == Section::Datasets)
    initial.datasetId = m_context->selection().id;
  if (!m_interactive) {
    runSearchQtable(initial);
    return;
  }
  auto *dialog = new SearchDialog(m_context->project(), initial, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this, [this, dialog] { runSearchQtable(dialog->settings()); });
  dialog->open();
}

SearchQtableView *MainWindow::openSearchResult(const QString &recordPath, qint64 configId) {
  for (int i = 0; i < m_tabs->count(); ++i)
    if (auto *view = qobject_cast<SearchQtableView *>(m_tabs->widget(i));
        view && view->recordPath() == recordPath) {
      m_tabs->setCurrentIndex(i);
      return view;
    }
  auto *view = new SearchQtableView(m_context, recordPath, configId, m_tabs);
  QString config = tr("configuration");
  for (const project::CompileConfig &c : m_context->project().compileConfigs)
    if (c.id == configId)
      config = QString::fromStdString(c.name);
  const int index = m_tabs->addTab(view, tr("Mixed precision: %1").arg(config));
  m_tabs->setTabToolTip(index, recordPath);
  m_tabs->setCurrentIndex(index);
  return view;
}

} // namespace tpuc::ui
