// Compile configurations' deploy settings and the `tpuc deploy` command line.
#include "ui/jobs/DeployJob.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace tpuc::ui {

namespace {

QJsonObject optionsOf(const project::CompileConfig &config) {
  return QJsonDocument::fromJson(QByteArray::fromStdString(config.optionsJson)).object();
}

QJsonObject tableRef(const QString &name, int version) {
  return {{QStringLiteral("name"), name}, {QStringLiteral("version"), version}};
}

} // namespace

DeploySettings deploySettingsOf(const project::CompileConfig &config) {
  DeploySettings s;
  s.chip = QString::fromStdString(config.chip);
  s.quantize = QString::fromStdString(config.precision).toUpper();
  const QJsonObject o = optionsOf(config);
  s.asymmetric = o.value(QStringLiteral("asymmetric")).toBool();
  const QJsonObject cali = o.value(QStringLiteral("calibration_table")).toObject();
  s.caliTableName = cali.value(QStringLiteral("name")).toString();
  s.caliTableVersion = cali.value(QStringLiteral("version")).toInt();
  const QJsonObject quant = o.value(QStringLiteral("quantize_table")).toObject();
  s.quantTableName = quant.value(QStringLiteral("name")).toString();
  s.quantTableVersion = quant.value(QStringLiteral("version")).toInt();
  s.qGroupSize = o.value(QStringLiteral("q_group_size")).toInteger();
  s.testInput = o.value(QStringLiteral("test_input")).toString();
  s.tolerance = o.value(QStringLiteral("tolerance")).toString();
  return s;
}

project::CompileConfig withDeploySettings(project::CompileConfig config, const DeploySettings &s) {
  config.chip = s.chip.toStdString();
  config.precision = s.quantize.toStdString();
  QJsonObject o = optionsOf(config);
  auto set = [&o](const QString &key, const QJsonValue &value, bool keep) {
    if (keep)
      o.insert(key, value);
    else
      o.remove(key);
  };
  set(QStringLiteral("asymmetric"), true, s.asymmetric);
  set(QStringLiteral("calibration_table"), tableRef(s.caliTableName, s.caliTableVersion), !s.caliTableName.isEmpty());
  set(QStringLiteral("quantize_table"), tableRef(s.quantTableName, s.quantTableVersion), !s.quantTableName.isEmpty());
  set(QStringLiteral("q_group_size"), s.qGroupSize, s.qGroupSize > 0);
  set(QStringLiteral("test_input"), s.testInput, !s.testInput.isEmpty());
  set(QStringLiteral("tolerance"), s.tolerance, !s.tolerance.isEmpty());
  config.optionsJson = QJsonDocument(o).toJson(QJsonDocument::Compact).toStdString();
  return config;
}

bool isWeightOnly(const QString &quantize) {
  return quantize.startsWith(QLatin1String("W8"), Qt::CaseInsensitive) ||
         quantize.startsWith(QLatin1String("W4"), Qt::CaseInsensitive);
}

QString defaultTolerance(const QString &quantize) {
  const QString q = quantize.toUpper();
  if (q == QLatin1String("F32"))
    return QStringLiteral("0.99,0.99");
  if (q == QLatin1String("F16") || q == QLatin1String("BF16"))
    return QStringLiteral("0.99,0.90");
  return QStringLiteral("0.90,0.80");
}

QStringList deployArguments(const DeploySettings &s, const DeployPaths &paths) {
  QStringList args{QStringLiteral("deploy"), QStringLiteral("--mlir"), paths.topMlir, QStringLiteral("--quantize"),
                   s.quantize.toUpper(),     QStringLiteral("--chip"), s.chip.toLower()};
  if (s.asymmetric)
    args << QStringLiteral("--asymmetric");
  if (!paths.calibrationTable.isEmpty())
    args << QStringLiteral("--calibration_table") << paths.calibrationTable;
  if (!paths.quantizeTable.isEmpty())
    args << QStringLiteral("--quantize_table") << paths.quantizeTable;
  if (isWeightOnly(s.quantize) && s.qGroupSize > 0)
    args << QStringLiteral("--q_group_size") << QString::number(s.qGroupSize);
  if (!paths.testInput.isEmpty()) {
    args << QStringLiteral("--test_input") << paths.testInput;
    if (!s.tolerance.isEmpty()) // else model_deploy's own default (0.8,0.5)
      args << QStringLiteral("--tolerance") << s.tolerance;
    args << QStringLiteral("--compare_all");
  }
  args << QStringLiteral("--tpu_mlir") << paths.tpuMlir;
  if (!paths.snapshots.isEmpty())
    args << QStringLiteral("--snapshots") << paths.snapshots;
  if (!paths.model.isEmpty())
    args << QStringLiteral("--model") << paths.model;
  args << QStringLiteral("--progress") << QStringLiteral("json");
  return args;
}

QStringList runModelArguments(const QString &model, const QString &input, const QString &output,
                              const QString &trace) {
  return {QStringLiteral("run"),     QStringLiteral("--model"),  model,   QStringLiteral("--input"),
          input,                     QStringLiteral("--output"), output,  QStringLiteral("--dump_all_tensors"),
          QStringLiteral("--profile"), trace,                    QStringLiteral("--progress"), QStringLiteral("json")};
}

const project::CaliTable *deployCaliTable(const project::Project &p, const DeploySettings &s) {
  if (!s.caliTableName.isEmpty()) {
    for (const project::CaliTable &t : p.caliTables)
      if (QString::fromStdString(t.name) == s.caliTableName && t.version == s.caliTableVersion)
        return &t;
    return nullptr; // the named table is gone: do not silently use another one
  }
  return p.caliTables.empty() ? nullptr : &p.caliTables.back();
}

const project::QuantTable *deployQuantTable(const project::Project &p, const DeploySettings &s) {
  if (s.quantTableName.isEmpty())
    return nullptr;
  for (const project::QuantTable &t : p.quantTables)
    if (QString::fromStdString(t.name) == s.quantTableName && t.version == s.quantTableVersion)
      return &t;
  return nullptr;
}

} // namespace tpuc::ui
