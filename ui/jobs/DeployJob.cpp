// Compile configurations' deploy settings and the `tpuc deploy` command line.
#include "ui/jobs/DeployJob.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

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
  s.quantInput = o.value(QStringLiteral("quant_input")).toBool();
  s.quantOutput = o.value(QStringLiteral("quant_output")).toBool();
  for (const QJsonValue &v : o.value(QStringLiteral("excepts")).toArray())
    s.excepts << v.toString();
  s.fusePreprocess = o.value(QStringLiteral("fuse_preprocess")).toBool();
  s.customizationFormat = o.value(QStringLiteral("customization_format")).toString();
  s.numCore = o.value(QStringLiteral("num_core")).toInt(1);
  return s;
}

const QStringList &deployOptionKeys() {
  static const QStringList keys = {QStringLiteral("asymmetric"),   QStringLiteral("calibration_table"),
                                   QStringLiteral("quantize_table"), QStringLiteral("q_group_size"),
                                   QStringLiteral("test_input"),   QStringLiteral("tolerance"),
                                   QStringLiteral("quant_input"),  QStringLiteral("quant_output"),
                                   QStringLiteral("excepts"),      QStringLiteral("fuse_preprocess"),
                                   QStringLiteral("customization_format"), QStringLiteral("num_core")};
  return keys;
}

QString checkDeployOptions(const QString &optionsJson) {
  QJsonParseError error;
  QJsonDocument doc = QJsonDocument::fromJson(optionsJson.toUtf8(), &error);
  if (error.error != QJsonParseError::NoError || !doc.isObject())
    return QStringLiteral("options must be a JSON object, e.g. {\"quant_input\": true}");
  const QJsonObject o = doc.object();
  for (auto it = o.begin(); it != o.end(); ++it) {
    const QString &key = it.key();
    if (!deployOptionKeys().contains(key))
      return QStringLiteral("unknown option '%1' (known: %2)").arg(key, deployOptionKeys().join(QStringLiteral(", ")));
    const QJsonValue v = it.value();
    bool ok = true;
    if (key == QLatin1String("asymmetric") || key == QLatin1String("quant_input") ||
        key == QLatin1String("quant_output") || key == QLatin1String("fuse_preprocess"))
      ok = v.isBool();
    else if (key == QLatin1String("customization_format"))
      ok = v.isString() && QStringList({"RGB_PLANAR", "RGB_PACKED", "BGR_PLANAR", "BGR_PACKED", "GRAYSCALE"})
                               .contains(v.toString());
    else if (key == QLatin1String("num_core"))
      ok = v.isDouble() && v.toDouble() >= 1 && v.toDouble() <= 64 && v.toDouble() == std::floor(v.toDouble());
    else if (key == QLatin1String("q_group_size"))
      ok = v.isDouble() && v.toDouble() >= 0 && v.toDouble() == std::floor(v.toDouble());
    else if (key == QLatin1String("test_input") || key == QLatin1String("tolerance"))
      ok = v.isString();
    else if (key == QLatin1String("calibration_table") || key == QLatin1String("quantize_table"))
      ok = v.isObject() && v.toObject().value(QStringLiteral("name")).isString();
    else if (key == QLatin1String("excepts")) {
      ok = v.isArray();
      for (const QJsonValue &e : v.toArray())
        ok &= e.isString();
    }
    if (!ok)
      return QStringLiteral("option '%1' has a value of the wrong type").arg(key);
  }
  return {};
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
  set(QStringLiteral("quant_input"), true, s.quantInput);
  set(QStringLiteral("quant_output"), true, s.quantOutput);
  set(QStringLiteral("excepts"), QJsonArray::fromStringList(s.excepts), !s.excepts.isEmpty());
  set(QStringLiteral("fuse_preprocess"), true, s.fusePreprocess);
  set(QStringLiteral("num_core"), s.numCore, s.numCore > 1);
  set(QStringLiteral("customization_format"), s.customizationFormat, s.fusePreprocess && !s.customizationFormat.isEmpty());
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
  if (s.quantInput)
    args << QStringLiteral("--quant_input");
  if (s.quantOutput)
    args << QStringLiteral("--quant_output");
  if (!s.excepts.isEmpty())
    args << QStringLiteral("--excepts") << s.excepts.join(QLatin1Char(','));
  if (s.fusePreprocess) {
    args << QStringLiteral("--fuse_preprocess");
    if (!s.customizationFormat.isEmpty())
      args << QStringLiteral("--customization_format") << s.customizationFormat;
  }
  if (s.numCore > 1)
    args << QStringLiteral("--num_core") << QString::number(s.numCore);
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
