// Pass inspection of a recorded pipeline run.
#include "ui/views/PassInspectorView.h"

#include "ui/Background.h"
#include "visualizer/PassDiffText.h"
#include "visualizer/PassGraphView.h"
#include "visualizer/PassTimeline.h"
#include "visualizer/SideBySide.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

namespace tpuc::ui {
namespace {

struct StagePair {
  vis::Stage left, right;
  QString error;
};

/// The graph of a snapshot; null when the run recorded none or its file is unreadable (the text diff
/// still shows).
std::shared_ptr<const graph::Graph> parseGraph(const std::string &json) {
  if (json.empty())
    return nullptr;
  Result<graph::Graph> g = graph::fromJson(json);
  return g ? std::make_shared<const graph::Graph>(std::move(*g)) : nullptr;
}

QString stageTitle(const PassSnapshot &s) {
  return s.index == 0 ? QObject::tr("#0 input") : QObject::tr("#%1 after %2").arg(s.index).arg(QString::fromStdString(s.label()));
}

} // namespace

QString PassInspectorView::snapshotDirOf(const project::RunRecord &run) {
  for (const project::ArtifactRef &a : run.artifacts) {
    QFileInfo info(QString::fromStdString(a.name));
    if (info.fileName() == QLatin1String("index.json") && info.exists())
      return info.absolutePath();
  }
  return {};
}

PassInspectorView::PassInspectorView(const QString &snapshotDir, QWidget *parent)
    : QWidget(parent), m_dir(snapshotDir), m_timeline(new vis::PassTimeline(this)), m_header(new QLabel(this)),
      m_tabs(new QTabWidget(this)), m_text(new vis::PassDiffText(this)), m_graph(new vis::PassGraphView(this)),
      m_sideBySide(new vis::SideBySideView(this)), m_leftStage(new QComboBox(this)), m_rightStage(new QComboBox(this)),
      m_ignoreNumbers(new QCheckBox(tr("Ignore SSA value numbers"), this)) {
  m_ignoreNumbers->setToolTip(tr("Passes renumber values (%0, %1, …): match lines with the numbers masked, so "
                                 "only real edits show. Operand rewiring still shows in the graph diff."));
  m_ignoreNumbers->setChecked(true);
  auto *textTab = new QWidget(this);
  auto *textLayout = new QVBoxLayout(textTab);
  textLayout->setContentsMargins(0, 0, 0, 0);
  textLayout->addWidget(m_ignoreNumbers);
  textLayout->addWidget(m_text, 1);
  auto *sideTab = new QWidget(this);
  auto *pick = new QHBoxLayout;
  pick->addWidget(new QLabel(tr("Left:"), sideTab));
  pick->addWidget(m_leftStage, 1);
  pick->addWidget(new QLabel(tr("Right:"), sideTab));
  pick->addWidget(m_rightStage, 1);
  auto *sideLayout = new QVBoxLayout(sideTab);
  sideLayout->setContentsMargins(0, 0, 0, 0);
  sideLayout->addLayout(pick);
  sideLayout->addWidget(m_sideBySide, 1);

  m_tabs->addTab(textTab, tr("IR Diff"));
  m_tabs->addTab(m_graph, tr("Graph Diff"));
  m_tabs->addTab(sideTab, tr("Side by Side"));
  auto *right = new QWidget(this);
  auto *rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(0, 0, 0, 0);
  m_header->setWordWrap(true);
  QFont f = m_header->font();
  f.setBold(true);
  m_header->setFont(f);
  rightLayout->addWidget(m_header);
  rightLayout->addWidget(m_tabs, 1);

  auto *splitter = new QSplitter(Qt::Horizontal, this);
  splitter->addWidget(m_timeline);
  splitter->addWidget(right);
  splitter->setStretchFactor(0, 1);
  splitter->setStretchFactor(1, 3);
  splitter->setSizes({fontMetrics().averageCharWidth() * 80, fontMetrics().averageCharWidth() * 180});
  auto *layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(splitter);

  m_text->setMessage(tr("Loading %1…").arg(m_dir));
  connect(m_timeline, &vis::PassTimeline::snapshotSelected, this, &PassInspectorView::selectSnapshot);
  connect(m_ignoreNumbers, &QCheckBox::toggled, this, [this] { loadDiff(m_timeline->selectedSnapshot()); });
  auto stagesChanged = [this] { compareStages(m_leftStage->currentIndex(), m_rightStage->currentIndex()); };
  connect(m_leftStage, &QComboBox::activated, this, stagesChanged);
  connect(m_rightStage, &QComboBox::activated, this, stagesChanged);
  loadIndex();
}

void PassInspectorView::loadIndex() {
  const std::string dir = m_dir.toStdString();
  runInBackground(this, [dir] {
    Result<PassRun> run = readPassRun(dir);
    return std::make_pair(run ? std::move(*run) : PassRun{}, QString::fromStdString(run.error()));
  }, [this](const std::pair<PassRun, QString> &result) {
    if (!result.second.isEmpty()) {
      m_text->setMessage(result.second);
      m_header->setText(tr("Cannot read the pass snapshots"));
      Q_EMIT runLoaded(result.second);
      return;
    }
    m_run = result.first;
    m_timeline->setRun(m_run);
    for (QComboBox *box : {m_leftStage, m_rightStage}) {
      box->clear();
      for (const PassSnapshot &s : m_run.snapshots)
        box->addItem(stageTitle(s));
    }
    m_header->setText(tr("Select a pass to see what it changed."));
    m_text->setMessage(tr("%1 snapshots in %2").arg(m_run.snapshots.size()).arg(m_dir));
    Q_EMIT runLoaded(QString());
    if (m_run.snapshots.size() > 1) {
      // The first pass that changed something is the interesting default.
      int first = 1;
      for (const PassSnapshot &s : m_run.snapshots)
        if (s.index > 0 && (s.added || s.removed || s.changed)) {
          first = static_cast<int>(s.index);
          break;
        }
      m_timeline->selectSnapshot(first);
      compareStages(0, static_cast<int>(m_run.snapshots.size()) - 1);
    }
  });
}

void PassInspectorView::showTab(int tab) { m_tabs->setCurrentIndex(tab); }

void PassInspectorView::setIgnoreSsaNumbers(bool ignore) { m_ignoreNumbers->setChecked(ignore); }

void PassInspectorView::selectSnapshot(int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= m_run.snapshots.size())
    return;
  if (m_timeline->selectedSnapshot() != index) {
    m_timeline->selectSnapshot(index); // comes back here through snapshotSelected
    return;
  }
  loadDiff(index);
}

void PassInspectorView::loadDiff(int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= m_run.snapshots.size())
    return;
  const quint64 generation = ++m_diffGeneration;
  const bool ignoreNumbers = m_ignoreNumbers->isChecked();
  const std::string dir = m_dir.toStdString();
  const PassSnapshot after = m_run.snapshots[static_cast<std::size_t>(index)];
  const std::optional<PassSnapshot> before =
      index > 0 ? std::optional<PassSnapshot>(m_run.snapshots[static_cast<std::size_t>(index) - 1]) : std::nullopt;
  m_header->setText(tr("Loading %1…").arg(QString::fromStdString(after.label())));
  runInBackground(this, [dir, after, before, ignoreNumbers] {
    auto data = std::make_shared<PassDiffData>();
    data->index = after.index;
    auto failed = [&data](const std::string &message) {
      data->error = QString::fromStdString(message);
      return std::shared_ptr<const PassDiffData>(data);
    };
    Result<LoadedSnapshot> b = before ? loadSnapshot(dir, *before) : Result<LoadedSnapshot>(LoadedSnapshot{});
    if (!b)
      return failed(b.error());
    Result<LoadedSnapshot> a = loadSnapshot(dir, after);
    if (!a)
      return failed(a.error());
    data->text = vis::makeTextDiff(b->ir, a->ir, ignoreNumbers);
    auto gb = before ? parseGraph(b->graphJson) : std::make_shared<const graph::Graph>();
    auto ga = parseGraph(a->graphJson);
    if (gb && ga)
      data->graph = std::make_shared<const DiffGraph>(buildDiffGraph(*gb, b->ops, *ga, a->ops, diffOps(b->ops, a->ops)));
    return std::shared_ptr<const PassDiffData>(data);
  }, [this, generation](const std::shared_ptr<const PassDiffData> &data) {
    if (generation == m_diffGeneration)
      showDiff(data);
  });
}

void PassInspectorView::showDiff(std::shared_ptr<const PassDiffData> data) {
  m_current = data;
  const PassSnapshot &s = m_run.snapshots[data->index];
  if (!data->error.isEmpty()) {
    m_header->setText(tr("Cannot load the snapshot of %1").arg(QString::fromStdString(s.label())));
    m_text->setMessage(data->error);
    Q_EMIT diffShown(static_cast<int>(data->index));
    return;
  }
  std::size_t beforeOps = data->index > 0 ? m_run.snapshots[data->index - 1].opCount : 0;
  m_header->setText(s.index == 0 ? tr("#0 input · %1 ops").arg(s.opCount)
                                 : tr("#%1 %2 on %3 · %4 ms · ops %5 → %6 · +%7 added, −%8 removed, ~%9 changed")
                                       .arg(s.index)
                                       .arg(QString::fromStdString(s.label()), QString::fromStdString(s.anchor))
                                       .arg(s.wallMs, 0, 'f', 2)
                                       .arg(beforeOps)
                                       .arg(s.opCount)
                                       .arg(s.added)
                                       .arg(s.removed)
                                       .arg(s.changed));
  m_text->setDiff(data->text);
  if (data->graph) {
    // The view keeps the graph alive through an aliasing pointer into the diff.
    std::shared_ptr<const graph::Graph> g(data->graph, &data->graph->graph);
    m_graph->setGraph(g);
    std::vector<vis::NodeMark> marks(data->graph->change.size(), vis::NodeMark::None);
    for (std::size_t i = 0; i < marks.size(); ++i)
      switch (data->graph->change[i]) {
      case NodeChange::Added: marks[i] = vis::NodeMark::Added; break;
      case NodeChange::Removed: marks[i] = vis::NodeMark::Removed; break;
      case NodeChange::Changed: marks[i] = vis::NodeMark::Changed; break;
      case NodeChange::Unchanged: break;
      }
    m_graph->setMarks(std::move(marks));
  } else {
    m_graph->setGraph(nullptr);
  }
  Q_EMIT diffShown(static_cast<int>(data->index));
}

void PassInspectorView::compareStages(int left, int right) {
  const int n = static_cast<int>(m_run.snapshots.size());
  if (left < 0 || right < 0 || left >= n || right >= n)
    return;
  m_leftStage->setCurrentIndex(left);
  m_rightStage->setCurrentIndex(right);
  const quint64 generation = ++m_stageGeneration;
  const std::string dir = m_dir.toStdString();
  const PassSnapshot l = m_run.snapshots[static_cast<std::size_t>(left)];
  const PassSnapshot r = m_run.snapshots[static_cast<std::size_t>(right)];
  runInBackground(this, [dir, l, r] {
    StagePair pair;
    auto failed = [&pair](const std::string &message) {
      pair.error = QString::fromStdString(message);
      return pair;
    };
    Result<LoadedSnapshot> a = loadSnapshot(dir, l);
    if (!a)
      return failed(a.error());
    Result<LoadedSnapshot> b = loadSnapshot(dir, r);
    if (!b)
      return failed(b.error());
    pair.left = {stageTitle(l), parseGraph(a->graphJson), std::move(a->ops), static_cast<int>(l.index)};
    pair.right = {stageTitle(r), parseGraph(b->graphJson), std::move(b->ops), static_cast<int>(r.index)};
    return pair;
  }, [this, generation](const StagePair &pair) {
    if (generation != m_stageGeneration)
      return;
    m_sideBySide->setStages(pair.left, pair.right);
    Q_EMIT stagesShown();
  });
}

} // namespace tpuc::ui
