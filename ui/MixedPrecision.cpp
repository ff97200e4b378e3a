// Mixed precision in the project: the current configuration, its float ops, keep-in-float and searched
// tables.
#include "ui/MixedPrecision.h"

#include "tpuc/Driver/SearchRecord.h"
#include "ui/StudioContext.h"
#include "ui/jobs/DeployJob.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QUndoStack>

#include <algorithm>

namespace tpuc::ui {

namespace {

const project::CompileConfig *findConfig(const project::Project &p, qint64 id) {
  for (const project::CompileConfig &c : p.compileConfigs)
    if (c.id == id)
      return &c;
  return nullptr;
}

} // namespace

qint64 configOfRun(const project::Project &p, qint64 runId) {
  const project::RunRecord *run = p.findRun(runId);
  if (!run)
    return -1;
  for (const project::CompileConfig &c : p.compileConfigs)
    if (run->configName.ends_with("(" + c.name + ")"))
      return c.id;
  return -1;
}

bool isDeployRun(const project::RunRecord &run) {
  const QJsonObject summary = QJsonDocument::fromJson(QByteArray::fromStdString(run.summaryJson)).object();
  return summary.value(QStringLiteral("command")).toString() == QLatin1String("deploy");
}

qint64 currentConfigId(const StudioContext &context) {
  const project::Project &p = context.project();
  const Selection s = context.selection();
  if (s.section == Section::CompileConfigs && findConfig(p, s.id))
    return s.id;
  if (s.section == Section::Runs)
    if (qint64 id = configOfRun(p, s.id); id >= 0)
      return id;
  return p.compileConfigs.empty() ? -1 : p.compileConfigs.front().id;
}

QString floatModeFor(const project::CompileConfig &config) {
  const QString precision = QString::fromStdString(config.precision).toUpper();
  if (precision == QLatin1String("F32"))
    return {};
  if (precision == QLatin1String("F16") || precision == QLatin1String("BF16"))
    return QStringLiteral("F32");
  return QString::fromStdString(driver::chipFloatMode(config.chip));
}

std::unordered_map<std::string, QString> floatOpsOf(const project::Project &p, qint64 configId) {
  std::unordered_map<std::string, QString> ops;
  const project::CompileConfig *config = findConfig(p, configId);
  if (!config)
    return ops;
  if (const project::QuantTable *table = deployQuantTable(p, deploySettingsOf(*config)))
    for (const project::QuantEntry &e : table->entries)
      ops[e.opName] = QString::fromStdString(e.mode);
  return ops;
}

qint64 keepOpsInFloat(StudioContext &context, qint64 configId, const QStringList &ops, const QString &mode) {
  const project::Project &p = context.project();
  const project::CompileConfig *config = findConfig(p, configId);
  if (!config || ops.isEmpty() || mode.isEmpty())
    return -1;
  const DeploySettings settings = deploySettingsOf(*config);
  const project::QuantTable *table = deployQuantTable(p, settings);
  std::vector<project::QuantEntry> entries = table ? table->entries : std::vector<project::QuantEntry>{};
  bool changed = false;
  for (const QString &op : ops) {
    project::QuantEntry entry{op.toStdString(), mode.toStdString()};
    auto it =
        std::find_if(entries.begin(), entries.end(), [&](const auto &e) { return e.opName == entry.opName; });
    if (it == entries.end())
      entries.push_back(entry);
    else if (!(*it == entry))
      *it = entry;
    else
      continue;
    changed = true;
  }
  const QString text = ops.size() == 1 ? QObject::tr("Keep %1 in %2").arg(ops.front(), mode)
                                       : QObject::tr("Keep %1 ops in %2").arg(ops.size()).arg(mode);
  if (!table)
    return storeQuantTableForConfig(context, configId, config->name + " float ops",
                                    "ops kept in float from the graph", std::move(entries));
  const qint64 id = table->id;
  if (!changed)
    return id;
  const std::vector<project::QuantEntry> before = table->entries;
  auto setEntries = [id](std::vector<project::QuantEntry> rows) {
    return [id, rows](project::Project &project) {
      for (project::QuantTable &t : project.quantTables)
        if (t.id == id)
          t.entries = rows;
    };
  };
  context.edit(text, Section::QuantTables, setEntries(entries), setEntries(before));
  context.log(LogLevel::Info,
              QObject::tr("%1 (quantize table '%2' of configuration '%3')")
                  .arg(text, QString::fromStdString(table->name), QString::fromStdString(config->name)));
  return id;
}

qint64 storeQuantTableForConfig(StudioContext &context, qint64 configId, const std::string &name,
                                const std::string &comment, std::vector<project::QuantEntry> entries) {
  const project::CompileConfig *config = findConfig(context.project(), configId);
  if (!config)
    return -1;
  project::CompileConfig edited = *config;
  // One undo step: the table and the configuration naming it.
  context.undoStack()->beginMacro(
      QObject::tr("Quantize table '%1' for configuration '%2'")
          .arg(QString::fromStdString(name), QString::fromStdString(config->name)));
  const qint64 id = context.addQuantTable({0, name, 1, "", comment, std::move(entries)});
  const project::QuantTable *table = nullptr;
  for (const project::QuantTable &t : context.project().quantTables)
    if (t.id == id)
      table = &t;
  DeploySettings settings = deploySettingsOf(edited);
  settings.quantTableName = QString::fromStdString(table->name);
  settings.quantTableVersion = table->version;
  context.setCompileConfig(withDeploySettings(edited, settings));
  context.undoStack()->endMacro();
  context.log(LogLevel::Info,
              QObject::tr("Configuration '%1' now deploys with quantize table '%2' v%3 (%4 ops)")
                  .arg(QString::fromStdString(edited.name), QString::fromStdString(table->name))
                  .arg(table->version)
                  .arg(table->entries.size()));
  return id;
}

} // namespace tpuc::ui
