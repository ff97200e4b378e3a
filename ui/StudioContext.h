// The one owner of the loaded project: panels observe its signals and edit through it, never each other.
#ifndef TPUC_UI_STUDIOCONTEXT_H
#define TPUC_UI_STUDIOCONTEXT_H

#include "project/Project.h"
#include "project/ProjectStore.h"
#include "tpuc/GraphData/GraphData.h"

#include <QLockFile>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>

class QUndoStack;

namespace tpuc::ui {

/// The parts of a project a selection or a change can refer to.
enum class Section { None, Model, ImportSettings, Datasets, CaliTables, QuantTables, CompileConfigs, Runs, Notes };

/// What is selected: a section, and within it an item id (dataset, table, config or run id), or -1.
struct Selection {
  Section section = Section::None;
  qint64 id = -1;
  bool operator==(const Selection &) const = default;
};

/// A node of a graph shown in a graph view (the graph is immutable and shared with the view).
struct GraphSelection {
  std::shared_ptr<const graph::Graph> graph;
  graph::NodeId node = graph::kNoNode;
};

enum class LogLevel { Info, Warning, Error };

/// "1 sample" / "3 samples": English plurals without a translation file (tr's %n needs one).
QString countText(qint64 n, const QString &singular, const QString &plural);

/// Owns the project document, its file name, undo stack and selection, and announces every change.
/// All edits of settings and tables go through the undo stack. Lives on the UI thread.
class StudioContext : public QObject {
  Q_OBJECT
public:
  explicit StudioContext(QObject *parent = nullptr);
  ~StudioContext() override;

  const project::Project &project() const { return m_project; }
  /// The project file, empty for an untitled project.
  QString filePath() const { return m_filePath; }
  /// The file name for titles ("Untitled" when new).
  QString displayName() const;
  bool isModified() const;
  QUndoStack *undoStack() const { return m_undo; }

  /// Replaces the current project by an empty untitled one.
  void newProject();
  /// How a project file is opened when another studio has it open (its lock file `<file>.lock` is held).
  enum class OpenMode { ReadWrite, ReadOnlyIfLocked };
  /// Opens a project file; on failure keeps the current project and returns a one-line error. A file another
  /// studio has open is refused (`*lockedBy` says who: "pid 1234 on host"), or with ReadOnlyIfLocked opened
  /// read-only: saving it is refused, Save As to another file makes it writable again.
  bool openProject(const QString &path, QString *error, OpenMode mode = OpenMode::ReadWrite,
                   QString *lockedBy = nullptr);
  /// True when the open project is another studio's (see openProject).
  bool isReadOnly() const { return m_readOnly; }
  /// Loads `autosavePath` as the unsaved state of `originalPath` (which may be empty for untitled).
  bool recoverProject(const QString &autosavePath, const QString &originalPath, QString *error);
  /// Saves to filePath() (must not be empty).
  bool save(QString *error);
  /// Saves to a new path (replacing any file there) and makes it the project's file.
  bool saveAs(const QString &path, QString *error);
  /// Writes the current state to `path` without changing the file name or the modified state. With a
  /// valid `state` of what `path` holds (from the previous snapshot), only what changed is rewritten, in
  /// one transaction; `state` then describes the new content.
  bool writeSnapshot(const QString &path, QString *error, project::StoredState *state = nullptr) const;
  void closeProject();

  // --- undoable edits ---------------------------------------------------------------------------
  void setModel(const project::ModelRef &model);
  void setImportSettings(const project::ImportSettings &settings);
  void setNotes(const QString &notes);
  void setCaliEntry(qint64 tableId, int row, const project::CaliEntry &entry);
  void setQuantEntry(qint64 tableId, int row, const project::QuantEntry &entry);
  /// Adds a table; its id is assigned here and returned. A (name, version) already in use gets the next
  /// free version, as the file keeps them unique.
  qint64 addCaliTable(project::CaliTable table);
  qint64 addQuantTable(project::QuantTable table);
  /// Adds a configuration; a name already in use gets a number appended.
  qint64 addCompileConfig(project::CompileConfig config);
  /// Replaces the configuration with the same id; false when its name is taken by another one.
  bool setCompileConfig(const project::CompileConfig &config);
  qint64 addDataset(project::Dataset dataset);
  /// Appends samples to a dataset (one undo step).
  void addSamples(qint64 datasetId, std::vector<project::Sample> samples);
  /// Adds or replaces a named subset of a folder dataset (one undo step).
  void putSubset(qint64 datasetId, dataset::Subset subset);
  void removeSubset(qint64 datasetId, const QString &name);
  /// Copies a calibration table to a new version (highest version of its name + 1); returns the new id.
  qint64 newCaliTableVersion(qint64 tableId);

  /// Applies `redo` now and records it with `undo` under `text`. The one path for undoable edits.
  void edit(const QString &text, Section section, std::function<void(project::Project &)> redo,
            std::function<void(project::Project &)> undo, int mergeId = -1);

  // --- not undoable -----------------------------------------------------------------------------
  /// Appends a finished run (history is a record, not an edit) and announces runFinished.
  qint64 addRun(project::RunRecord run);
  void setViewState(const QString &key, const QString &value);
  /// Takes a fresh scan of a folder dataset: a record of the disk, not an edit (not undoable). Subsets the
  /// scan did not carry over (made while it ran, or unknown to the index it started from) are kept,
  /// following the scan's `moved` files (old path, new path) and without the files it no longer found.
  void setDatasetIndex(qint64 datasetId, dataset::DatasetIndex index,
                       const std::vector<std::pair<std::string, std::string>> &moved = {});

  Selection selection() const { return m_selection; }
  void select(const Selection &selection);
  /// Publishes the node selected in a graph view (kNoNode clears); the properties panel shows it.
  void selectGraphNode(const GraphSelection &selection);
  const GraphSelection &graphSelection() const { return m_graphSelection; }
  /// Publishes an op selected by name in a view without a graph (the accuracy view: op name = tensor
  /// name); graph views highlight the node of that name. Empty clears.
  void selectOp(const QString &name);
  QString selectedOp() const { return m_selectedOp; }
  /// Asks for the selection to be opened in a central view (double click, Enter).
  void activate(const Selection &selection);

  /// Records a message for the log panel.
  void log(LogLevel level, const QString &text);

  /// Internal: applied by undo commands.
  void applyChange(Section section, const std::function<void(project::Project &)> &change);

Q_SIGNALS:
  void graphSelectionChanged();
  void opSelectionChanged(const QString &name);
  void projectLoaded();
  void projectClosed();
  void projectChanged(tpuc::ui::Section section);
  void selectionChanged(const tpuc::ui::Selection &selection);
  void activated(const tpuc::ui::Selection &selection);
  void runFinished(qint64 runId);
  void modifiedChanged(bool modified);
  void filePathChanged(const QString &path);
  void logMessage(tpuc::ui::LogLevel level, const QString &text);

private:
  void setLoaded(project::Project project, const QString &path, bool modified);
  void setExtraModified(bool modified);

  project::Project m_project;
  QString m_filePath;
  /// Held while the project file is open here (Qt's lock file: pid and host; a dead holder's lock is taken
  /// over).
  std::unique_ptr<QLockFile> m_lock;
  bool m_readOnly = false;
  /// What the file holds as of the last load or save: Save rewrites only what changed since.
  project::StoredState m_stored;
  /// A lock on `path` for this studio; null with who holds it in `holder` ("pid 12 on host") and `*held`
  /// true, or with why it cannot be created in `holder` and `*held` false.
  static std::unique_ptr<QLockFile> lockFile(const QString &path, QString *holder, bool *held = nullptr);
  QUndoStack *m_undo;
  Selection m_selection;
  GraphSelection m_graphSelection;
  QString m_selectedOp;
  bool m_extraModified = false; ///< changes outside the undo stack (runs, view state, recovery)
  bool m_lastModified = false;
};

} // namespace tpuc::ui

Q_DECLARE_METATYPE(tpuc::ui::Selection)

#endif
