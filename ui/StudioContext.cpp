// The central context: project ownership, file operations, undoable edits, selection and log.
#include "ui/StudioContext.h"

#include "project/ProjectStore.h"

#include <QDateTime>
#include <QFileInfo>
#include <QUndoCommand>
#include <QUndoStack>

#include <algorithm>
#include <map>

namespace tpuc::ui {

namespace {

/// One undoable project edit as a pair of functions over the project.
class EditCommand : public QUndoCommand {
public:
  EditCommand(StudioContext *context, const QString &text, Section section,
              std::function<void(project::Project &)> redo, std::function<void(project::Project &)> undo,
              int mergeId)
      : QUndoCommand(text), m_context(context), m_section(section), m_redo(std::move(redo)),
        m_undo(std::move(undo)), m_mergeId(mergeId) {}

  void redo() override { m_context->applyChange(m_section, m_redo); }
  void undo() override { m_context->applyChange(m_section, m_undo); }
  int id() const override { return m_mergeId; }
  bool mergeWith(const QUndoCommand *other) override {
    // Typing into the notes merges into one step: keep our undo, take the newer redo.
    const auto *next = static_cast<const EditCommand *>(other);
    m_redo = next->m_redo;
    return true;
  }

private:
  StudioContext *m_context;
  Section m_section;
  std::function<void(project::Project &)> m_redo, m_undo;
  int m_mergeId;
};

constexpr int kNotesMergeId = 1;

template <typename T> qint64 nextId(const std::vector<T> &items) {
  qint64 id = 0;
  for (const T &item : items)
    id = std::max<qint64>(id, item.id);
  return id + 1;
}

template <typename T> T *findById(std::vector<T> &items, qint64 id) {
  auto it = std::find_if(items.begin(), items.end(), [id](const T &item) { return item.id == id; });
  return it == items.end() ? nullptr : &*it;
}

QString nowIso() { return QDateTime::currentDateTimeUtc().toString(Qt::ISODate); }

} // namespace

QString countText(qint64 n, const QString &singular, const QString &plural) {
  return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? singular : plural);
}

StudioContext::StudioContext(QObject *parent) : QObject(parent), m_undo(new QUndoStack(this)) {
  qRegisterMetaType<Selection>();
  connect(m_undo, &QUndoStack::cleanChanged, this, [this] {
    bool modified = isModified();
    if (modified != m_lastModified) {
      m_lastModified = modified;
      Q_EMIT modifiedChanged(modified);
    }
  });
}

StudioContext::~StudioContext() = default;

QString StudioContext::displayName() const {
  return m_filePath.isEmpty() ? tr("Untitled") : QFileInfo(m_filePath).fileName();
}

bool StudioContext::isModified() const { return m_extraModified || !m_undo->isClean(); }

void StudioContext::setExtraModified(bool modified) {
  m_extraModified = modified;
  bool now = isModified();
  if (now != m_lastModified) {
    m_lastModified = now;
    Q_EMIT modifiedChanged(now);
  }
}

void StudioContext::setLoaded(project::Project project, const QString &path, bool modified) {
  closeProject();
  m_project = std::move(project);
  m_filePath = path;
  m_undo->clear();
  m_undo->setClean();
  setExtraModified(modified);
  Q_EMIT filePathChanged(m_filePath);
  Q_EMIT projectLoaded();
}

void StudioContext::newProject() {
  setLoaded(project::Project{}, QString(), false);
  log(LogLevel::Info, tr("New project"));
}

std::unique_ptr<QLockFile> StudioContext::lockFile(const QString &path, QString *holder, bool *held) {
  auto lock = std::make_unique<QLockFile>(path + QStringLiteral(".lock"));
  lock->setStaleLockTime(0); // only a dead holder's lock is stale, however old a live one is
  if (!lock->tryLock(0)) {
    qint64 pid = 0;
    QString host, app;
    const bool byAnother = lock->error() == QLockFile::LockFailedError;
    if (held)
      *held = byAnother;
    if (holder) {
      if (byAnother && lock->getLockInfo(&pid, &host, &app))
        *holder = tr("pid %1 on %2").arg(pid).arg(host);
      else if (byAnother)
        *holder = tr("its lock file %1 is held").arg(path + QStringLiteral(".lock"));
      else
        *holder = tr("its lock file %1 cannot be created (is the disk full or the folder read-only?)")
                      .arg(path + QStringLiteral(".lock"));
    }
    return nullptr;
  }
  return lock;
}

bool StudioContext::openProject(const QString &path, QString *error, OpenMode mode, QString *lockedBy) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  project::StoredState stored;
  auto loaded = project::loadProject(path.toStdString(), &stored);
  if (!loaded) {
    if (error)
      *error = QString::fromStdString(loaded.error());
    log(LogLevel::Error, QString::fromStdString(loaded.error()));
    return false;
  }
  // Two studios writing one file would each overwrite the other's work: the second one is told.
  QString holder;
  bool held = false;
  std::unique_ptr<QLockFile> lock = m_lock && absolute == m_filePath
                                        ? std::move(m_lock)
                                        : lockFile(absolute, &holder, &held); // reopening keeps it
  const bool locked = lock != nullptr;
  // A lock that cannot be created (a read-only folder, a full disk) opens the project read-only: it
  // could not be saved there anyway. Only another studio's lock refuses a read-write open.
  if (!locked && held && mode == OpenMode::ReadWrite) {
    const QString why = tr("%1 is open in another TPU Studio (%2)").arg(absolute, holder);
    if (error)
      *error = why;
    if (lockedBy)
      *lockedBy = holder;
    log(LogLevel::Error, why);
    return false;
  }
  setLoaded(std::move(*loaded), absolute, false); // lets the project open before go, with its lock
  m_lock = std::move(lock);
  m_stored = std::move(stored);
  m_readOnly = !locked;
  if (m_readOnly) {
    log(LogLevel::Warning,
        held ? tr("Opened %1 read-only: another TPU Studio has it open (%2); Save As "
                  "writes a copy")
                   .arg(m_filePath, holder)
             : tr("Opened %1 read-only: %2; Save As writes a copy").arg(m_filePath, holder));
    Q_EMIT filePathChanged(m_filePath); // titles say read-only
  } else {
    log(LogLevel::Info, tr("Opened %1").arg(m_filePath));
  }
  return true;
}

bool StudioContext::recoverProject(const QString &autosavePath, const QString &originalPath, QString *error) {
  auto loaded = project::loadProject(autosavePath.toStdString());
  if (!loaded) {
    if (error)
      *error = QString::fromStdString(loaded.error());
    log(LogLevel::Error, QString::fromStdString(loaded.error()));
    return false;
  }
  const QString absolute = originalPath.isEmpty() ? QString() : QFileInfo(originalPath).absoluteFilePath();
  QString holder;
  std::unique_ptr<QLockFile> lock = absolute.isEmpty() ? nullptr : lockFile(absolute, &holder);
  setLoaded(std::move(*loaded), absolute, true);
  m_lock = std::move(lock);
  m_readOnly =
      !absolute.isEmpty() && !m_lock; // another studio has the file: the recovery is saved with Save As
  log(LogLevel::Warning, tr("Recovered unsaved changes from %1").arg(autosavePath));
  return true;
}

bool StudioContext::writeSnapshot(const QString &path, QString *error, project::StoredState *state) const {
  // The first snapshot is a complete new file, renamed into place; later ones update it in place.
  const project::SaveMode mode =
      state && state->valid ? project::SaveMode::InPlace : project::SaveMode::Replace;
  Result<void> saved = project::saveProject(m_project, path.toStdString(), mode, state);
  if (!saved) {
    if (error)
      *error = QString::fromStdString(saved.error());
    return false;
  }
  return true;
}

bool StudioContext::save(QString *error) {
  if (m_filePath.isEmpty()) {
    if (error)
      *error = tr("the project has no file name yet; use Save As");
    return false;
  }
  if (m_readOnly) {
    if (error)
      *error =
          tr("%1 is open read-only (another TPU Studio has it open); use Save As to keep your changes in "
             "another file")
              .arg(m_filePath);
    return false;
  }
  Result<void> saved =
      project::saveProject(m_project, m_filePath.toStdString(), project::SaveMode::InPlace, &m_stored);
  if (!saved) {
    if (error)
      *error = QString::fromStdString(saved.error());
    log(LogLevel::Error, QString::fromStdString(saved.error()));
    return false;
  }
  m_undo->setClean();
  setExtraModified(false);
  log(LogLevel::Info, tr("Saved %1").arg(m_filePath));
  return true;
}

bool StudioContext::saveAs(const QString &path, QString *error) {
  QString absolute = QFileInfo(path).absoluteFilePath();
  std::unique_ptr<QLockFile> lock;
  if (absolute != m_filePath || !m_lock) {
    QString holder;
    bool held = false;
    lock = lockFile(absolute, &holder, &held);
    if (!lock) {
      if (error)
        *error = held ? tr("%1 is open in another TPU Studio (%2)").arg(absolute, holder)
                      : tr("cannot save %1: %2").arg(absolute, holder);
      return false;
    }
  }
  Result<void> saved =
      project::saveProject(m_project, absolute.toStdString(), project::SaveMode::Replace, &m_stored);
  if (!saved) {
    if (error)
      *error = QString::fromStdString(saved.error());
    log(LogLevel::Error, QString::fromStdString(saved.error()));
    return false;
  }
  if (lock)
    m_lock = std::move(lock); // the old file's lock goes
  m_filePath = absolute;
  m_readOnly = false;
  m_undo->setClean();
  setExtraModified(false);
  Q_EMIT filePathChanged(m_filePath);
  log(LogLevel::Info, tr("Saved %1").arg(m_filePath));
  return true;
}

void StudioContext::closeProject() {
  select({});
  m_project = project::Project{};
  m_filePath.clear();
  m_lock.reset();
  m_stored = {};
  m_readOnly = false;
  m_undo->clear();
  setExtraModified(false);
  Q_EMIT projectClosed();
}

void StudioContext::applyChange(Section section, const std::function<void(project::Project &)> &change) {
  change(m_project);
  Q_EMIT projectChanged(section);
}

void StudioContext::edit(const QString &text, Section section, std::function<void(project::Project &)> redo,
                         std::function<void(project::Project &)> undo, int mergeId) {
  m_undo->push(new EditCommand(this, text, section, std::move(redo), std::move(undo), mergeId));
}

void StudioContext::setModel(const project::ModelRef &model) {
  project::ModelRef old = m_project.model;
  edit(tr("Set model"), Section::Model, [model](project::Project &p) { p.model = model; },
       [old](project::Project &p) { p.model = old; });
}

void StudioContext::setImportSettings(const project::ImportSettings &settings) {
  if (settings == m_project.importSettings)
    return;
  project::ImportSettings old = m_project.importSettings;
  edit(tr("Edit import settings"), Section::ImportSettings,
       [settings](project::Project &p) { p.importSettings = settings; },
       [old](project::Project &p) { p.importSettings = old; });
}

void StudioContext::setNotes(const QString &notes) {
  std::string now = notes.toStdString(), old = m_project.notes;
  if (now == old)
    return;
  edit(tr("Edit notes"), Section::Notes, [now](project::Project &p) { p.notes = now; },
       [old](project::Project &p) { p.notes = old; }, kNotesMergeId);
}

void StudioContext::setCaliEntry(qint64 tableId, int row, const project::CaliEntry &entry) {
  project::CaliTable *table = findById(m_project.caliTables, tableId);
  if (!table || row < 0 || row >= static_cast<int>(table->entries.size()) || table->entries[row] == entry)
    return;
  project::CaliEntry old = table->entries[row];
  auto setter = [tableId, row](project::CaliEntry value) {
    return [tableId, row, value](project::Project &p) {
      if (project::CaliTable *t = findById(p.caliTables, tableId))
        t->entries[row] = value;
    };
  };
  edit(tr("Edit calibration of %1").arg(QString::fromStdString(entry.opName)), Section::CaliTables,
       setter(entry), setter(old));
}

void StudioContext::setQuantEntry(qint64 tableId, int row, const project::QuantEntry &entry) {
  project::QuantTable *table = findById(m_project.quantTables, tableId);
  if (!table || row < 0 || row >= static_cast<int>(table->entries.size()) || table->entries[row] == entry)
    return;
  project::QuantEntry old = table->entries[row];
  auto setter = [tableId, row](project::QuantEntry value) {
    return [tableId, row, value](project::Project &p) {
      if (project::QuantTable *t = findById(p.quantTables, tableId))
        t->entries[row] = value;
    };
  };
  edit(tr("Edit quantization of %1").arg(QString::fromStdString(entry.opName)), Section::QuantTables,
       setter(entry), setter(old));
}

qint64 StudioContext::addCaliTable(project::CaliTable table) {
  table.id = nextId(m_project.caliTables);
  for (const auto &t : m_project.caliTables)
    if (t.name == table.name && t.version >= table.version)
      table.version = t.version + 1;
  if (table.created.empty())
    table.created = nowIso().toStdString();
  qint64 id = table.id;
  edit(tr("Add calibration table"), Section::CaliTables,
       [table](project::Project &p) { p.caliTables.push_back(table); },
       [id](project::Project &p) { std::erase_if(p.caliTables, [id](auto &t) { return t.id == id; }); });
  return id;
}

qint64 StudioContext::addQuantTable(project::QuantTable table) {
  table.id = nextId(m_project.quantTables);
  for (const auto &t : m_project.quantTables)
    if (t.name == table.name && t.version >= table.version)
      table.version = t.version + 1;
  if (table.created.empty())
    table.created = nowIso().toStdString();
  qint64 id = table.id;
  edit(tr("Add quantize table"), Section::QuantTables,
       [table](project::Project &p) { p.quantTables.push_back(table); },
       [id](project::Project &p) { std::erase_if(p.quantTables, [id](auto &t) { return t.id == id; }); });
  return id;
}

qint64 StudioContext::addCompileConfig(project::CompileConfig config) {
  config.id = nextId(m_project.compileConfigs);
  auto taken = [this](const std::string &name) {
    return std::any_of(m_project.compileConfigs.begin(), m_project.compileConfigs.end(),
                       [&](const auto &c) { return c.name == name; });
  };
  const std::string base = config.name;
  for (int n = 2; taken(config.name); ++n)
    config.name = base + " (" + std::to_string(n) + ")";
  qint64 id = config.id;
  edit(tr("Add compile configuration"), Section::CompileConfigs,
       [config](project::Project &p) { p.compileConfigs.push_back(config); },
       [id](project::Project &p) { std::erase_if(p.compileConfigs, [id](auto &c) { return c.id == id; }); });
  return id;
}

bool StudioContext::setCompileConfig(const project::CompileConfig &config) {
  project::CompileConfig *current = findById(m_project.compileConfigs, config.id);
  if (!current)
    return false;
  for (const auto &c : m_project.compileConfigs)
    if (c.id != config.id && c.name == config.name)
      return false;
  if (*current == config)
    return true;
  auto setter = [](project::CompileConfig value) {
    return [value](project::Project &p) {
      if (project::CompileConfig *c = findById(p.compileConfigs, value.id))
        *c = value;
    };
  };
  edit(tr("Edit compile configuration"), Section::CompileConfigs, setter(config), setter(*current));
  return true;
}

qint64 StudioContext::addDataset(project::Dataset dataset) {
  dataset.id = nextId(m_project.datasets);
  qint64 id = dataset.id;
  // Shared by the command: a folder of 100,000 files is copied once per redo, not once per capture.
  auto shared = std::make_shared<const project::Dataset>(std::move(dataset));
  edit(
      tr("Add dataset"), Section::Datasets, [shared](project::Project &p) { p.datasets.push_back(*shared); },
      [id](project::Project &p) { std::erase_if(p.datasets, [id](auto &d) { return d.id == id; }); });
  return id;
}

void StudioContext::addSamples(qint64 datasetId, std::vector<project::Sample> samples) {
  project::Dataset *dataset = findById(m_project.datasets, datasetId);
  if (!dataset || samples.empty())
    return;
  std::size_t before = dataset->samples.size();
  auto count = samples.size();
  edit(tr("Add %1").arg(countText(static_cast<qint64>(count), tr("sample"), tr("samples"))), Section::Datasets,
       [datasetId, samples = std::move(samples)](project::Project &p) {
         if (project::Dataset *d = findById(p.datasets, datasetId))
           d->samples.insert(d->samples.end(), samples.begin(), samples.end());
       },
       [datasetId, before](project::Project &p) {
         if (project::Dataset *d = findById(p.datasets, datasetId))
           d->samples.resize(before);
       });
}

void StudioContext::putSubset(qint64 datasetId, dataset::Subset subset) {
  const project::Dataset *dataset = findById(m_project.datasets, datasetId);
  if (!dataset || !dataset->index)
    return;
  std::vector<dataset::Subset> before = dataset->index->subsets;
  const QString name = QString::fromStdString(subset.name);
  edit(
      tr("Make subset %1").arg(name), Section::Datasets,
      [datasetId, subset = std::move(subset)](project::Project &p) {
        if (project::Dataset *d = findById(p.datasets, datasetId); d && d->index)
          d->index->putSubset(subset);
      },
      [datasetId, before](project::Project &p) {
        if (project::Dataset *d = findById(p.datasets, datasetId); d && d->index)
          d->index->subsets = before;
      });
}

void StudioContext::removeSubset(qint64 datasetId, const QString &name) {
  const project::Dataset *dataset = findById(m_project.datasets, datasetId);
  if (!dataset || !dataset->index || !dataset->index->findSubset(name.toStdString()))
    return;
  std::vector<dataset::Subset> before = dataset->index->subsets;
  edit(
      tr("Delete subset %1").arg(name), Section::Datasets,
      [datasetId, name = name.toStdString()](project::Project &p) {
        if (project::Dataset *d = findById(p.datasets, datasetId); d && d->index)
          std::erase_if(d->index->subsets, [&](const dataset::Subset &s) { return s.name == name; });
      },
      [datasetId, before](project::Project &p) {
        if (project::Dataset *d = findById(p.datasets, datasetId); d && d->index)
          d->index->subsets = before;
      });
}

void StudioContext::setDatasetIndex(qint64 datasetId, dataset::DatasetIndex index,
                                    const std::vector<std::pair<std::string, std::string>> &moved) {
  project::Dataset *dataset = findById(m_project.datasets, datasetId);
  if (!dataset)
    return;
  if (dataset->index) { // subsets made since the scan started: kept, following moved files, without the gone
    std::map<std::string, std::string> movedTo(moved.begin(), moved.end());
    for (const dataset::Subset &current : dataset->index->subsets)
      if (!index.findSubset(current.name)) {
        dataset::Subset kept = current;
        for (std::string &path : kept.paths)
          if (auto it = movedTo.find(path); it != movedTo.end())
            path = it->second;
        std::erase_if(kept.paths, [&](const std::string &path) { return !index.find(path); });
        index.subsets.push_back(std::move(kept));
      }
  }
  applyChange(Section::Datasets, [datasetId, &index](project::Project &p) {
    if (project::Dataset *d = findById(p.datasets, datasetId))
      d->index = std::move(index);
  });
  setExtraModified(true);
}

qint64 StudioContext::newCaliTableVersion(qint64 tableId) {
  const project::CaliTable *source = findById(m_project.caliTables, tableId);
  if (!source)
    return -1;
  project::CaliTable copy = *source;
  for (const project::CaliTable &t : m_project.caliTables)
    if (t.name == copy.name)
      copy.version = std::max(copy.version, t.version + 1);
  copy.created.clear();
  copy.comment = tr("copied from version %1").arg(source->version).toStdString();
  return addCaliTable(std::move(copy));
}

qint64 StudioContext::addRun(project::RunRecord run) {
  run.id = nextId(m_project.runs);
  qint64 id = run.id;
  m_project.runs.push_back(std::move(run));
  setExtraModified(true);
  Q_EMIT projectChanged(Section::Runs);
  Q_EMIT runFinished(id);
  return id;
}

void StudioContext::setViewState(const QString &key, const QString &value) {
  std::string &slot = m_project.viewState[key.toStdString()];
  if (slot == value.toStdString())
    return;
  slot = value.toStdString();
  setExtraModified(true);
}

void StudioContext::selectGraphNode(const GraphSelection &selection) {
  m_graphSelection = selection;
  Q_EMIT graphSelectionChanged();
}

void StudioContext::selectOp(const QString &name) {
  if (name == m_selectedOp)
    return;
  m_selectedOp = name;
  Q_EMIT opSelectionChanged(name);
}

void StudioContext::select(const Selection &selection) {
  if (selection == m_selection)
    return;
  m_selection = selection;
  Q_EMIT selectionChanged(m_selection);
}

void StudioContext::activate(const Selection &selection) {
  select(selection);
  Q_EMIT activated(selection);
}

void StudioContext::log(LogLevel level, const QString &text) { Q_EMIT logMessage(level, text); }

} // namespace tpuc::ui
