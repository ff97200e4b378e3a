// A deploy or run record's chip views in one central tab: layer groups, memory timeline, engine timeline and
// a comparison with another run. The plan and trace are read off the UI thread; every op selection goes
// through the StudioContext, so the graph, the accuracy view and these views highlight the same op.
#ifndef TPUC_UI_VIEWS_CHIPVIEWSTAB_H
#define TPUC_UI_VIEWS_CHIPVIEWSTAB_H

#include "tpuc/ChipData/Run.h"
#include "ui/StudioContext.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QTabWidget;
class QToolButton;

namespace tpuc::vis {
class ChipCompareView;
class EngineTimeline;
class LayerGroupView;
class MemoryTimeline;
} // namespace tpuc::vis

namespace tpuc::ui {

/// Where a run's chip records are: its own plan and trace artifacts, else (a `tpuc run` of a model file)
/// the plan of the newest deploy that wrote that model file.
struct ChipArtifacts {
  QString plan, trace;
  bool empty() const { return plan.isEmpty() && trace.isEmpty(); }
};
ChipArtifacts chipArtifactsOf(const project::Project &project, qint64 runId);

class ChipViewsTab : public QWidget {
  Q_OBJECT
public:
  enum Page { Groups = 0, Memory = 1, Timeline = 2, Compare = 3 };

  ChipViewsTab(StudioContext *context, qint64 runId, QWidget *parent = nullptr);
  qint64 runId() const { return m_runId; }
  void showPage(Page page);
  Page currentPage() const;
  /// The loaded records (null until loaded or when loading failed).
  std::shared_ptr<const chip::ChipRun> chipRun() const { return m_run; }
  /// Compares with another run's records (-1: none); the Compare page opens when it has loaded.
  void compareWith(qint64 runId);
  qint64 comparedRun() const { return m_compareRun; }
  /// Of a model compiled for several cores: the core whose engines and LMEM the views show (reloads).
  void showCore(int core);
  int shownCore() const { return m_core; }
  /// Writes the current page as "svg" or "png" (the same drawing as `tpuc view`), or the memory as "csv".
  bool exportCurrent(const QString &path, const QString &format, QString *error) const;

  vis::LayerGroupView *groupsView() const { return m_groups; }
  vis::MemoryTimeline *memoryView() const { return m_memory; }
  vis::EngineTimeline *timelineView() const { return m_timeline; }
  vis::ChipCompareView *compareView() const { return m_compare; }

Q_SIGNALS:
  /// The records are shown (or could not be: `error` non-empty).
  void loaded(const QString &error);
  /// The compared run's records are shown (or failed).
  void compareLoaded(const QString &error);

protected:
  void showEvent(QShowEvent *event) override;

private:
  void load();
  void show(std::shared_ptr<const chip::ChipRun> run);
  void fillCompareChoices();
  void publishOp(const QString &name);
  void followOp(const QString &name);
  void moveCursor(qint64 cycle);
  void exportDialog(const QString &format);
  QString runTitle(qint64 runId) const;

  StudioContext *m_context;
  qint64 m_runId;
  qint64 m_compareRun = -1;
  std::shared_ptr<const chip::ChipRun> m_run, m_other;
  QLabel *m_status;
  QComboBox *m_compareBox;
  QComboBox *m_coreBox; ///< Visible for traces of several cores.
  int m_core = 0;
  QToolButton *m_export;
  QTabWidget *m_pages;
  vis::LayerGroupView *m_groups;
  vis::MemoryTimeline *m_memory;
  vis::EngineTimeline *m_timeline;
  vis::ChipCompareView *m_compare;
  quint64 m_generation = 0;
};

} // namespace tpuc::ui

#endif
