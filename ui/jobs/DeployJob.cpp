// Compile configurations' deploy settings and the `tpuc deploy` request they make.
#include "ui/jobs/DeployJob.h"

#include "tpuc/Driver/Chips.h"
#include "ui/jobs/EngineClient.h"

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

driver::DeployOptions DeploySettings::newDeployOptions() {
  driver::DeployOptions o;
  o.chip = std::string(driver::kDefaultChip);
  o.quantize = "F32";
  return o;
}

DeploySettings deploySettingsOf(const project::CompileConfig &config) {
  DeploySettings s;
  const driver::DeployOptions defaults;
  driver::DeployOptions &d = s.options;
  d.chip = config.chip;
  d.quantize = QString::fromStdString(config.precision).toUpper().toStdString();
  const QJsonObject o = optionsOf(config);
  d.asymmetric = o.value(QStringLiteral("asymmetric")).toBool(defaults.asymmetric);
  const QJsonObject cali = o.value(QStringLiteral("calibration_table")).toObject();
  s.caliTableName = cali.value(QStringLiteral("name")).toString();
  s.caliTableVersion = cali.value(QStringLiteral("version")).toInt();
  const QJsonObject quant = o.value(QStringLiteral("quantize_table")).toObject();
  s.quantTableName = quant.value(QStringLiteral("name")).toString();
  s.quantTableVersion = quant.value(QStringLiteral("version")).toInt();
  d.qGroupSize = o.value(QStringLiteral("q_group_size")).toInteger(defaults.qGroupSize);
  s.testInput = o.value(QStringLiteral("test_input")).toString();
  s.testDataset = o.value(QStringLiteral("test_dataset")).toString();
  s.testSubset = o.value(QStringLiteral("test_subset")).toString();
  s.testFolder = o.value(QStringLiteral("test_folder")).toString();
  d.testNum = o.value(QStringLiteral("test_num")).toInteger(defaults.testNum);
  d.findDivergent = o.value(QStringLiteral("find_divergent")).toBool(defaults.findDivergent);
  d.divergentTop = o.value(QStringLiteral("divergent_top")).toInteger(defaults.divergentTop);
  d.divergentSamples = o.value(QStringLiteral("divergent_samples")).toInteger(defaults.divergentSamples);
  d.tolerance =
      o.value(QStringLiteral("tolerance")).toString(QString::fromStdString(defaults.tolerance)).toStdString();
  d.quantInput = o.value(QStringLiteral("quant_input")).toBool(defaults.quantInput);
  d.quantOutput = o.value(QStringLiteral("quant_output")).toBool(defaults.quantOutput);
  for (const QJsonValue &v : o.value(QStringLiteral("excepts")).toArray())
    d.excepts.push_back(v.toString().toStdString());
  d.fusePreprocess = o.value(QStringLiteral("fuse_preprocess")).toBool(defaults.fusePreprocess);
  d.customizationFormat = o.value(QStringLiteral("customization_format")).toString().toStdString();
  d.numCore = o.value(QStringLiteral("num_core")).toInt(static_cast<int>(defaults.numCore));
  return s;
}

const QStringList &deployOptionKeys() {
  static const QStringList keys = {QStringLiteral("asymmetric"),
                                   QStringLiteral("calibration_table"),
                                   QStringLiteral("quantize_table"),
                                   QStringLiteral("q_group_size"),
                                   QStringLiteral("test_input"),
                                   QStringLiteral("tolerance"),
                                   QStringLiteral("quant_input"),
                                   QStringLiteral("quant_output"),
                                   QStringLiteral("excepts"),
                                   QStringLiteral("fuse_preprocess"),
                                   QStringLiteral("customization_format"),
                                   QStringLiteral("num_core"),
                                   QStringLiteral("test_dataset"),
                                   QStringLiteral("test_subset"),
                                   QStringLiteral("test_folder"),
                                   QStringLiteral("test_num"),
                                   QStringLiteral("find_divergent"),
                                   QStringLiteral("divergent_top"),
                                   QStringLiteral("divergent_samples")};
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
    if (!deployOptionKeys().contains(key)) {
      // The key with JSON's escapes (a key may hold a line break): the message stays one line.
      const QString spelled =
          QString::fromUtf8(QJsonDocument(QJsonArray{key}).toJson(QJsonDocument::Compact)).mid(2).chopped(2);
      return QStringLiteral("unknown option '%1' (known: %2)")
          .arg(spelled, deployOptionKeys().join(QStringLiteral(", ")));
    }
    const QJsonValue v = it.value();
    bool ok = true;
    if (key == QLatin1String("asymmetric") || key == QLatin1String("quant_input") ||
        key == QLatin1String("quant_output") || key == QLatin1String("fuse_preprocess") ||
        key == QLatin1String("find_divergent"))
      ok = v.isBool();
    else if (key == QLatin1String("customization_format"))
      ok = v.isString() && QStringList({"RGB_PLANAR", "RGB_PACKED", "BGR_PLANAR", "BGR_PACKED", "GRAYSCALE"})
                               .contains(v.toString());
    else if (key == QLatin1String("num_core"))
      ok = v.isDouble() && v.toDouble() >= 1 && v.toDouble() <= 64 && v.toDouble() == std::floor(v.toDouble());
    else if (key == QLatin1String("q_group_size") || key == QLatin1String("test_num"))
      ok = v.isDouble() && v.toDouble() >= 0 && v.toDouble() == std::floor(v.toDouble());
    else if (key == QLatin1String("divergent_top") || key == QLatin1String("divergent_samples"))
      ok = v.isDouble() && v.toDouble() >= 1 && v.toDouble() == std::floor(v.toDouble());
    else if (key == QLatin1String("test_input") || key == QLatin1String("tolerance") ||
             key == QLatin1String("test_dataset") || key == QLatin1String("test_subset") ||
             key == QLatin1String("test_folder"))
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
  const driver::DeployOptions defaults;
  const driver::DeployOptions &d = s.options;
  config.chip = d.chip;
  config.precision = d.quantize;
  QJsonObject o = optionsOf(config);
  auto set = [&o](const QString &key, const QJsonValue &value, bool keep) {
    if (keep)
      o.insert(key, value);
    else
      o.remove(key);
  };
  set(QStringLiteral("asymmetric"), d.asymmetric, d.asymmetric != defaults.asymmetric);
  set(QStringLiteral("calibration_table"), tableRef(s.caliTableName, s.caliTableVersion), !s.caliTableName.isEmpty());
  set(QStringLiteral("quantize_table"), tableRef(s.quantTableName, s.quantTableVersion), !s.quantTableName.isEmpty());
  set(QStringLiteral("q_group_size"), static_cast<qint64>(d.qGroupSize), d.qGroupSize != defaults.qGroupSize);
  set(QStringLiteral("test_input"), s.testInput, !s.testInput.isEmpty());
  set(QStringLiteral("test_dataset"), s.testDataset, !s.testDataset.isEmpty());
  set(QStringLiteral("test_subset"), s.testSubset, !s.testDataset.isEmpty() && !s.testSubset.isEmpty());
  set(QStringLiteral("test_folder"), s.testFolder, s.testDataset.isEmpty() && !s.testFolder.isEmpty());
  set(QStringLiteral("test_num"), static_cast<qint64>(d.testNum),
      s.manySamples() && d.testNum != defaults.testNum);
  set(QStringLiteral("find_divergent"), d.findDivergent, d.findDivergent != defaults.findDivergent);
  set(QStringLiteral("divergent_top"), static_cast<qint64>(d.divergentTop),
      d.findDivergent && d.divergentTop != defaults.divergentTop);
  set(QStringLiteral("divergent_samples"), static_cast<qint64>(d.divergentSamples),
      d.findDivergent && d.divergentSamples != defaults.divergentSamples);
  set(QStringLiteral("tolerance"), QString::fromStdString(d.tolerance), d.tolerance != defaults.tolerance);
  set(QStringLiteral("quant_input"), d.quantInput, d.quantInput != defaults.quantInput);
  set(QStringLiteral("quant_output"), d.quantOutput, d.quantOutput != defaults.quantOutput);
  QJsonArray excepts;
  for (const std::string &e : d.excepts)
    excepts.append(QString::fromStdString(e));
  set(QStringLiteral("excepts"), excepts, d.excepts != defaults.excepts);
  set(QStringLiteral("fuse_preprocess"), d.fusePreprocess, d.fusePreprocess != defaults.fusePreprocess);
  set(QStringLiteral("num_core"), static_cast<qint64>(d.numCore), d.numCore != defaults.numCore);
  set(QStringLiteral("customization_format"), QString::fromStdString(d.customizationFormat),
      d.fusePreprocess && d.customizationFormat != defaults.customizationFormat);
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

driver::DeployOptions deployRequest(const DeploySettings &s, const DeployPaths &paths) {
  driver::DeployOptions r = s.options;
  r.mlir = paths.topMlir.toStdString();
  r.quantize = QString::fromStdString(r.quantize).toUpper().toStdString();
  r.chip = QString::fromStdString(r.chip).toLower().toStdString();
  r.calibrationTable = paths.calibrationTable.toStdString();
  r.quantizeTable = paths.quantizeTable.toStdString();
  if (!isWeightOnly(QString::fromStdString(r.quantize)))
    r.qGroupSize = driver::DeployOptions{}.qGroupSize;
  r.testInput.clear();
  r.testSubset.clear(); // a dataset's subset is resolved by the studio into the data list it passes
  if (!paths.testFiles.isEmpty()) {
    for (const QString &file : paths.testFiles)
      r.testInput.push_back(file.toStdString());
  } else if (!paths.testInput.isEmpty()) {
    r.testInput = {paths.testInput.toStdString()};
  }
  const driver::DeployOptions defaults;
  if (r.testInput.empty() || !paths.testFiles.isEmpty() || !s.manySamples())
    r.testNum = defaults.testNum; // a limit only means something over a folder or list
  if (!r.testInput.empty()) {
    r.compareAll = true;
  } else {
    r.tolerance = defaults.tolerance; // nothing to compare
    r.findDivergent = false;
  }
  if (!r.findDivergent) {
    r.divergentTop = defaults.divergentTop;
    r.divergentSamples = defaults.divergentSamples;
  }
  if (!r.fusePreprocess)
    r.customizationFormat.clear();
  r.tpuMlir = paths.tpuMlir.toStdString();
  r.snapshots = paths.snapshots.toStdString();
  r.model = paths.model.toStdString();
  r.progress = "json";
  return r;
}

QStringList deployArguments(const DeploySettings &s, const DeployPaths &paths) {
  return engineArguments(deployRequest(s, paths)).args;
}

driver::RunOptions runModelRequest(const QString &model, const QString &input, const QString &output,
                                   const QString &trace) {
  driver::RunOptions r;
  r.model = model.toStdString();
  r.input = input.toStdString();
  r.output = output.toStdString();
  r.dumpAllTensors = true;
  r.profile = trace.toStdString();
  r.progress = "json";
  return r;
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
