// Pass inspection of a recorded pipeline run: the pass timeline, the IR text diff and the graph diff of
// the selected pass, and any two stages side by side.
#ifndef TPUC_UI_VIEWS_PASSINSPECTORVIEW_H
#define TPUC_UI_VIEWS_PASSINSPECTORVIEW_H

#include "project/Project.h"
#include "tpuc/PassData/PassGraphDiff.h"
#include "tpuc/PassData/PassSnapshots.h"

#include <QWidget>

#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QTabWidget;

namespace tpuc::vis {
class PassDiffText;
class PassGraphView;
class PassTimeline;
class SideBySideView;
struct TextDiff;
} // namespace tpuc::vis

namespace tpuc::ui {

/// Everything shown for one selected pass, computed off the UI thread from the snapshot files.
struct PassDiffData {
  std::size_t index = 0;
  std::shared_ptr<const vis::TextDiff> text;
  std::shared_ptr<const DiffGraph> graph; ///< null when the run has no graph files
  QString error;
};

/// A central tab over a snapshot directory (`tpuc transform --snapshots DIR`). Loads everything off the
/// UI thread; a newer selection supersedes an older load (generation counter).
class PassInspectorView : public QWidget {
  Q_OBJECT
public:
  explicit PassInspectorView(const QString &snapshotDir, QWidget *parent = nullptr);

  /// The snapshot directory a run recorded (its `index.json` artifact), or empty.
  static QString snapshotDirOf(const project::RunRecord &run);

  QString snapshotDir() const { return m_dir; }
  const PassRun &run() const { return m_run; }
  /// Selects a pass (snapshot index) as a click in the timeline would.
  void selectSnapshot(int index);
  /// Shows stages `left` and `right` side by side and switches to that tab.
  void compareStages(int left, int right);
  /// Matches diff lines with SSA value numbers masked (the default) or not; reloads the diff.
  void setIgnoreSsaNumbers(bool ignore);
  /// Switches the right-hand tab: 0 IR diff, 1 graph diff, 2 side by side.
  void showTab(int tab);

  vis::PassTimeline *timeline() const { return m_timeline; }
  vis::PassDiffText *textDiff() const { return m_text; }
  vis::PassGraphView *graphDiff() const { return m_graph; }
  vis::SideBySideView *sideBySide() const { return m_sideBySide; }
  /// The loaded diff of the selected pass (null until loaded).
  std::shared_ptr<const PassDiffData> currentDiff() const { return m_current; }

Q_SIGNALS:
  /// The run's index was read (or failed: `error` set).
  void runLoaded(const QString &error);
  /// The selected pass's diff is shown.
  void diffShown(int index);
  /// Both stages of the side-by-side view are shown.
  void stagesShown();

private:
  void loadIndex();
  void loadDiff(int index);
  void showDiff(std::shared_ptr<const PassDiffData> data);

  QString m_dir;
  PassRun m_run;
  vis::PassTimeline *m_timeline;
  QLabel *m_header;
  QTabWidget *m_tabs;
  vis::PassDiffText *m_text;
  vis::PassGraphView *m_graph;
  vis::SideBySideView *m_sideBySide;
  QComboBox *m_leftStage, *m_rightStage;
  QCheckBox *m_ignoreNumbers;
  std::shared_ptr<const PassDiffData> m_current;
  quint64 m_diffGeneration = 0, m_stageGeneration = 0;
};

} // namespace tpuc::ui

#endif
