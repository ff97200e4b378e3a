// The chip views tab of a run.
#include "ui/views/ChipViewsTab.h"

#include "ui/jobs/EngineClient.h"

#include "ui/Background.h"
#include "visualizer/ChipCompare.h"
#include "visualizer/ChipFigures.h"
#include "visualizer/EngineTimeline.h"
#include "visualizer/LayerGroupView.h"
#include "visualizer/MemoryTimeline.h"

#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenu>
#include <QSaveFile>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace tpuc::ui {

namespace {

ChipArtifacts ownArtifacts(const project::RunRecord &r) {
  ChipArtifacts a;
  for (const project::ArtifactRef &ref : r.artifacts) {
    const QString path = QString::fromStdString(ref.name);
    if (ref.kind == "plan" || path.endsWith(QLatin1String("_plan.json")))
      a.plan = path;
    else if (ref.kind == "trace")
      a.trace = path;
  }
  return a;
}

/// The value of `--flag` in a run's recorded command line.
/// The model file a `tpuc run` read (or a `tpuc deploy` wrote), from its recorded command line.
QString modelOfRun(const project::RunRecord &r) {
  const QJsonArray args = QJsonDocument::fromJson(QByteArray::fromStdString(r.summaryJson))
                              .object()
                              .value(QStringLiteral("arguments"))
                              .toArray();
  QStringList commandLine;
  for (const QJsonValue &arg : args)
    commandLine << arg.toString();
  if (const auto run = requestOf<driver::RunOptions>(commandLine))
    return QString::fromStdString(run->model);
  if (const auto deploy = requestOf<driver::DeployOptions>(commandLine))
    return QString::fromStdString(deploy->model);
  return {};
}

struct Loaded {
  std::shared_ptr<const chip::ChipRun> run;
  QString error;
};

Loaded loadRecords(const ChipArtifacts &a, int core) {
  auto run = chip::ChipRun::load(a.plan.toStdString(), a.trace.toStdString(), core);
  if (!run)
    return {nullptr, QString::fromStdString(llvm::toString(run.takeError()))};
  return {*run, {}};
}

} // namespace

ChipArtifacts chipArtifactsOf(const project::Project &project, qint64 runId) {
  const project::RunRecord *run = project.findRun(runId);
  if (!run)
    return {};
  ChipArtifacts a = ownArtifacts(*run);
  if (!a.plan.isEmpty())
    return a;
  // A `tpuc run` of a model file: the plan is the deploy's that wrote that file.
  const QString model = modelOfRun(*run);
  if (model.isEmpty())
    return a;
  for (auto it = project.runs.rbegin(); it != project.runs.rend(); ++it) {
    if (it->id == runId)
      continue;
    bool wroteModel = std::any_of(it->artifacts.begin(), it->artifacts.end(), [&](const project::ArtifactRef &ref) {
      return QFileInfo(QString::fromStdString(ref.name)) == QFileInfo(model);
    });
    if (!wroteModel)
      continue;
    ChipArtifacts deploy = ownArtifacts(*it);
    if (!deploy.plan.isEmpty()) {
      a.plan = deploy.plan;
      if (a.trace.isEmpty())
        a.trace = deploy.trace;
      break;
    }
  }
  return a;
}

ChipViewsTab::ChipViewsTab(StudioContext *context, qint64 runId, QWidget *parent)
    : QWidget(parent), m_context(context), m_runId(runId), m_status(new QLabel(this)), m_compareBox(new QComboBox(this)),
      m_coreBox(new QComboBox(this)),
      m_export(new QToolButton(this)), m_pages(new QTabWidget(this)), m_groups(new vis::LayerGroupView(this)),
      m_memory(new vis::MemoryTimeline(this)), m_timeline(new vis::EngineTimeline(this)),
      m_compare(new vis::ChipCompareView(this)) {
  setProperty("tpucRunId", runId);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_status->setWordWrap(true);
  m_export->setText(tr("Export"));
  m_export->setPopupMode(QToolButton::InstantPopup);
  auto *menu = new QMenu(m_export);
  menu->addAction(tr("This View as SVG…"), this, [this] { exportDialog(QStringLiteral("svg")); });
  menu->addAction(tr("This View as PNG…"), this, [this] { exportDialog(QStringLiteral("png")); });
  menu->addAction(tr("Memory as CSV…"), this, [this] { exportDialog(QStringLiteral("csv")); });
  m_export->setMenu(menu);
  m_export->setToolTip(tr("The same drawing as `tpuc view`; the engine trace itself is Chrome/Perfetto JSON"));

  auto *bar = new QHBoxLayout;
  bar->setContentsMargins(6, 4, 6, 0);
  bar->addWidget(m_status, 1);
  // Several cores: each has its own engines and LMEM; DDR and the plan's groups are the chip's.
  m_coreBox->setToolTip(tr("The model runs on several cores: the core whose engines and LMEM are shown"));
  m_coreBox->setVisible(false);
  bar->addWidget(m_coreBox);
  bar->addWidget(new QLabel(tr("Compare with:"), this));
  bar->addWidget(m_compareBox);
  bar->addWidget(m_export);

  m_pages->addTab(m_groups, tr("Layer Groups"));
  m_pages->addTab(m_memory, tr("Memory"));
  m_pages->addTab(m_timeline, tr("Engine Timeline"));
  m_pages->addTab(m_compare, tr("Compare"));
  m_pages->setTabVisible(Compare, false);
  m_pages->setDocumentMode(true);

  auto *layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addLayout(bar);
  layout->addWidget(m_pages, 1);

  // Selections out: every view publishes through the context.
  connect(m_groups, &vis::LayerGroupView::opSelected, this, &ChipViewsTab::publishOp);
  connect(m_groups, &vis::LayerGroupView::groupSelected, this, [this](int group, const QStringList &ops) {
    if (!ops.isEmpty())
      publishOp(ops.front());
    if (m_run) {
      auto [start, end] = m_run->groupTime(group);
      if (start >= 0)
        moveCursor(start);
    }
  });
  connect(m_memory, &vis::MemoryTimeline::opSelected, this, &ChipViewsTab::publishOp);
  connect(m_timeline, &vis::EngineTimeline::opSelected, this, &ChipViewsTab::publishOp);
  connect(m_compare, &vis::ChipCompareView::opSelected, this, &ChipViewsTab::publishOp);
  // The time cursor: memory <-> timeline, and the group running at that time.
  connect(m_memory, &vis::MemoryTimeline::cursorMoved, this, &ChipViewsTab::moveCursor);
  connect(m_timeline, &vis::EngineTimeline::cursorMoved, this, &ChipViewsTab::moveCursor);
  // Selections in: an op picked anywhere (graph, accuracy table, another chip tab).
  connect(m_context, &StudioContext::opSelectionChanged, this, &ChipViewsTab::followOp);
  connect(m_context, &StudioContext::projectChanged, this, [this](Section section) {
    if (section == Section::Runs)
      fillCompareChoices();
  });
  connect(m_coreBox, &QComboBox::activated, this, [this](int index) { showCore(index); });
  connect(m_compareBox, &QComboBox::activated, this, [this](int index) {
    compareWith(m_compareBox->itemData(index).toLongLong());
  });
  fillCompareChoices();
  load();
}

QString ChipViewsTab::runTitle(qint64 runId) const {
  const project::RunRecord *r = m_context->project().findRun(runId);
  return r ? tr("#%1 %2").arg(runId).arg(QString::fromStdString(r->configName)) : tr("run #%1").arg(runId);
}

void ChipViewsTab::fillCompareChoices() {
  const qint64 current = m_compareRun;
  m_compareBox->clear();
  m_compareBox->addItem(tr("(none)"), qint64(-1));
  for (const project::RunRecord &r : m_context->project().runs)
    if (r.id != m_runId && !ownArtifacts(r).plan.isEmpty())
      m_compareBox->addItem(runTitle(r.id), static_cast<qint64>(r.id));
  int index = m_compareBox->findData(current);
  m_compareBox->setCurrentIndex(index >= 0 ? index : 0);
  m_compareBox->setEnabled(m_compareBox->count() > 1);
}

void ChipViewsTab::load() {
  ChipArtifacts a = chipArtifactsOf(m_context->project(), m_runId);
  if (a.empty()) {
    m_status->setText(tr("Run %1 recorded no backend plan or engine trace: deploy with a model file (Run ▸ Deploy) "
                         "or run one on the simulator (Run ▸ Run Model File).")
                          .arg(runTitle(m_runId)));
    Q_EMIT loaded(m_status->text());
    return;
  }
  for (QString *path : {&a.plan, &a.trace})
    if (!path->isEmpty() && !QFileInfo(*path).isFile()) {
      m_context->log(LogLevel::Warning, tr("%1 is gone (the cache was cleared?); showing what is left").arg(*path));
      path->clear();
    }
  if (a.empty()) {
    m_status->setText(tr("The records of run %1 are no longer on disk: deploy again to see its chip views.")
                          .arg(runTitle(m_runId)));
    Q_EMIT loaded(m_status->text());
    return;
  }
  m_status->setText(tr("Reading %1…").arg(QFileInfo(a.plan.isEmpty() ? a.trace : a.plan).fileName()));
  const quint64 generation = ++m_generation;
  const int core = m_core;
  runInBackground(this, [a, core] { return loadRecords(a, core); }, [this, generation](const Loaded &result) {
    if (generation != m_generation)
      return;
    if (!result.run) {
      m_status->setText(result.error);
      m_context->log(LogLevel::Error, result.error);
      Q_EMIT loaded(result.error);
      return;
    }
    show(result.run);
    Q_EMIT loaded({});
  });
}

void ChipViewsTab::show(std::shared_ptr<const chip::ChipRun> run) {
  m_run = std::move(run);
  m_groups->setRun(m_run);
  m_memory->setRun(m_run);
  m_timeline->setRun(m_run);
  QStringList parts{tr("<b>%1</b>").arg(runTitle(m_runId).toHtmlEscaped())};
  if (const chip::Plan *p = m_run->plan())
    parts << tr("%1 groups, planned %2").arg(p->groups.size()).arg(vis::cyclesText(p->totalCycles, p->chip.frequencyMhz));
  if (const chip::Trace *t = m_run->trace()) {
    if (t->cores > 1) {
      if (m_coreBox->count() != t->cores) {
        m_coreBox->clear();
        for (int k = 0; k < t->cores; ++k)
          m_coreBox->addItem(tr("Core %1").arg(k));
      }
      m_coreBox->setCurrentIndex(t->core);
      m_coreBox->setVisible(true);
      parts << tr("%1 cores (showing core %2)").arg(t->cores).arg(t->core);
    }
    parts << tr("simulated %1 in %2 commands").arg(vis::cyclesText(t->totalCycles, t->frequencyMhz),
                                                   vis::groupedNumber(static_cast<qint64>(t->commandCount())));
    if (!t->errors.empty())
      parts << tr("<span style='color:#d03020'>%1 simulator error(s): %2</span>")
                   .arg(t->errors.size())
                   .arg(QString::fromStdString(t->errors.front()).toHtmlEscaped());
  } else {
    parts << tr("no engine trace (the timeline needs a simulated run)");
  }
  if (!m_run->divergences().empty())
    parts << tr("<span style='color:#d03020'>LMEM: %1 divergence(s) between plan and simulation</span>")
                 .arg(m_run->divergences().size());
  m_status->setText(parts.join(QStringLiteral(" · ")));
  m_pages->setTabEnabled(Timeline, m_run->trace() != nullptr);
  m_pages->setTabEnabled(Groups, m_run->plan() != nullptr);
  if (!m_run->plan() && currentPage() == Groups)
    showPage(Timeline);
  if (!m_context->selectedOp().isEmpty())
    followOp(m_context->selectedOp());
}

void ChipViewsTab::showCore(int core) {
  if (core == m_core || core < 0 || (m_run && m_run->trace() && core >= m_run->trace()->cores))
    return;
  m_core = core;
  load();
}

void ChipViewsTab::showEvent(QShowEvent *event) {
  QWidget::showEvent(event);
  // The run on screen is the selected run: the graph's overlays follow it.
  m_context->select({Section::Runs, m_runId});
}

void ChipViewsTab::showPage(Page page) {
  if (page == Compare && !m_pages->isTabVisible(Compare))
    return;
  m_pages->setCurrentIndex(page);
}

ChipViewsTab::Page ChipViewsTab::currentPage() const { return static_cast<Page>(m_pages->currentIndex()); }

void ChipViewsTab::compareWith(qint64 runId) {
  m_compareRun = runId;
  int index = m_compareBox->findData(runId);
  if (index >= 0)
    m_compareBox->setCurrentIndex(index);
  if (runId < 0) {
    m_other.reset();
    m_pages->setTabVisible(Compare, false);
    return;
  }
  ChipArtifacts a = chipArtifactsOf(m_context->project(), runId);
  if (a.empty()) {
    Q_EMIT compareLoaded(tr("run #%1 has no chip records").arg(runId));
    return;
  }
  // The same core as this run's when the other has it (a one-core run compares with core 0).
  runInBackground(this, [a, core = m_core] {
    Loaded loaded = loadRecords(a, core);
    return loaded.run || core == 0 ? loaded : loadRecords(a, 0);
  }, [this, runId](const Loaded &result) {
    if (runId != m_compareRun)
      return;
    if (!result.run) {
      m_context->log(LogLevel::Error, result.error);
      Q_EMIT compareLoaded(result.error);
      return;
    }
    m_other = result.run;
    m_compare->setRuns(m_run, runTitle(m_runId), m_other, runTitle(runId));
    m_pages->setTabVisible(Compare, true);
    showPage(Compare);
    Q_EMIT compareLoaded({});
  });
}

void ChipViewsTab::publishOp(const QString &name) {
  if (name.isEmpty())
    return;
  m_context->selectOp(name);
  followOp(name); // the context does not re-announce an op that is already selected
}

void ChipViewsTab::followOp(const QString &name) {
  if (!m_run)
    return;
  m_groups->selectOp(name);
  m_memory->setSelectedOp(name);
  m_timeline->setSelectedOp(name);
}

void ChipViewsTab::moveCursor(qint64 cycle) {
  m_memory->setCursorCycle(cycle);
  m_timeline->setCursorCycle(cycle);
  if (m_run) {
    int group = m_run->groupAt(cycle);
    if (group >= 0 && group != m_groups->selectedGroup())
      m_groups->selectGroup(group);
  }
}

bool ChipViewsTab::exportCurrent(const QString &path, const QString &format, QString *error) const {
  if (!m_run) {
    if (error)
      *error = tr("nothing loaded yet");
    return false;
  }
  if (format == QLatin1String("csv")) {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly)) {
      if (error)
        *error = tr("%1: cannot write (%2)").arg(path, f.errorString());
      return false;
    }
    f.write(QByteArray::fromStdString(chip::memoryCsv(*m_run)));
    if (!f.commit()) {
      if (error)
        *error = tr("%1: write failed (%2)").arg(path, f.errorString());
      return false;
    }
    return true;
  }
  vis::FigureOptions o;
  o.dark = palette().color(QPalette::Base).lightnessF() < 0.5;
  o.selectedOp = m_context->selectedOp();
  o.group = m_groups->selectedGroup();
  vis::ChipFigure figure = vis::ChipFigure::Groups;
  switch (currentPage()) {
  case Memory:
    figure = vis::ChipFigure::Memory;
    std::tie(o.t0, o.t1) = m_memory->lmemChart()->window();
    break;
  case Timeline:
    figure = vis::ChipFigure::Timeline;
    o.t0 = m_timeline->canvas()->state().t0;
    o.t1 = m_timeline->canvas()->state().t1;
    o.size = QSize(1600, 560);
    break;
  default:
    break;
  }
  return vis::renderFigure(m_run, figure, o, format, path, error);
}

void ChipViewsTab::exportDialog(const QString &format) {
  static const char *pageNames[] = {"groups", "memory", "timeline", "compare"};
  QString base = format == QLatin1String("csv") ? QStringLiteral("memory") : QString::fromLatin1(pageNames[currentPage()]);
  QString suggested = QStringLiteral("run%1-%2.%3").arg(m_runId).arg(base, format);
  QString filter = format == QLatin1String("svg")   ? tr("SVG (*.svg)")
                   : format == QLatin1String("png") ? tr("PNG (*.png)")
                                                    : tr("CSV (*.csv)");
  QString path = QFileDialog::getSaveFileName(this, tr("Export"), suggested, filter);
  if (path.isEmpty())
    return;
  QString error;
  if (exportCurrent(path, format, &error))
    m_context->log(LogLevel::Info, tr("Exported to %1").arg(path));
  else
    m_context->log(LogLevel::Error, error);
}

} // namespace tpuc::ui
