// The main window's work on files and with the engine: model and sample imports, table files, jobs.
#include "ui/MainWindow.h"

#include "project/ProjectStore.h"
#include "project/TableFiles.h"
#include "tpuc/Dataset/Scan.h"
#include "tpuc/Dataset/Subsets.h"
#include "tpuc/Driver/Results.h"
#include "ui/Background.h"
#include "ui/ImportDialog.h"
#include "ui/MixedPrecision.h"
#include "ui/ModelInputs.h"
#include "ui/SampleImport.h"
#include "ui/Settings.h"
#include "ui/jobs/DeployJob.h"
#include "ui/jobs/EngineClient.h"
#include "ui/jobs/JobQueue.h"
#include "ui/jobs/TransformJob.h"
#include "ui/views/ActivationStatsView.h"
#include "ui/views/DatasetView.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QRegularExpression>
#include <QSaveFile>
#include <QUndoStack>
#include <algorithm>
#include <cmath>
#include <filesystem>

#include <memory>

namespace tpuc::ui {

ImportDialog *MainWindow::openImportDialog(const QString &path) {
  if (!m_interactive || !path.endsWith(QLatin1String(".onnx"), Qt::CaseInsensitive)) {
    importModel(path);
    return nullptr;
  }
  auto *dialog = new ImportDialog(path, m_context->project().importSettings, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    QString error;
    importModel(dialog->modelPath(), dialog->settings(&error));
  });
  dialog->open();
  return dialog;
}

void MainWindow::importModel(const QString &path, std::optional<project::ImportSettings> settings) {
  QFileInfo info(path);
  if (!info.exists()) {
    showError(tr("Cannot Import Model"), tr("'%1' does not exist").arg(path));
    Q_EMIT modelImported(false);
    return;
  }
  settings::setLastDirectory(info.absolutePath());
  m_statusLabel->setText(tr("Hashing %1…").arg(info.fileName()));
  QString absolute = info.absoluteFilePath();
  // Hashing a large model takes a while: do it off the UI thread and come back to this window.
  runInBackground(this, [absolute] {
    Result<std::string> hash = project::hashFile(absolute.toStdString());
    return std::make_pair(hash.value_or(std::string()), hash.error());
  }, [this, absolute, settings](const std::pair<std::string, std::string> &result) {
    m_statusLabel->setText(tr("Ready"));
    if (result.first.empty()) {
      showError(tr("Cannot Import Model"), QString::fromStdString(result.second));
      Q_EMIT modelImported(false);
      return;
    }
    QFileInfo info(absolute);
    project::ModelRef model;
    model.path = absolute.toStdString();
    model.contentHash = result.first;
    model.size = static_cast<std::uint64_t>(info.size());
    model.format = info.isDir() ? "hf" : info.suffix().toLower().toStdString();
    m_context->undoStack()->beginMacro(tr("Import model"));
    m_context->setModel(model);
    if (settings)
      m_context->setImportSettings(*settings);
    m_context->undoStack()->endMacro();
    m_context->log(LogLevel::Info, tr("Model %1 (%2)").arg(absolute, QString::fromStdString(model.contentHash)));
    Q_EMIT modelImported(true);
  });
}

void MainWindow::addSamples(const QStringList &paths) {
  settings::setLastDirectory(QFileInfo(paths.first()).absolutePath());
  m_statusLabel->setText(tr("Reading %1…").arg(countText(paths.size(), tr("file"), tr("files"))));
  // The target is decided when the samples are ready: the selection may change meanwhile.
  runInBackground(this, [paths] {
    QStringList errors;
    auto samples = makeSamples(paths, &errors);
    return std::make_pair(samples, errors);
  }, [this](const std::pair<std::vector<project::Sample>, QStringList> &result) {
    m_statusLabel->setText(tr("Ready"));
    for (const QString &error : result.second)
      m_context->log(LogLevel::Warning, error);
    if (result.first.empty()) {
      showError(tr("Cannot Add Samples"), tr("None of the files could be read as a calibration sample."));
      Q_EMIT samplesAdded(0);
      return;
    }
    const project::Project &p = m_context->project();
    qint64 target = -1;
    if (m_context->selection().section == Section::Datasets && m_context->selection().id >= 0)
      target = m_context->selection().id;
    else if (!p.datasets.empty())
      target = p.datasets.front().id;
    m_context->undoStack()->beginMacro(tr("Add calibration samples"));
    if (target < 0)
      target = m_context->addDataset({0, "calibration", {}});
    m_context->addSamples(target, result.first);
    m_context->undoStack()->endMacro();
    m_context->log(LogLevel::Info, tr("Added %1").arg(countText(static_cast<qint64>(result.first.size()),
                                                                 tr("sample"), tr("samples"))));
    Q_EMIT samplesAdded(static_cast<int>(result.first.size()));
  });
}

void MainWindow::importDatasetFolder(const QString &folder) {
  const QString absolute = QFileInfo(folder).absoluteFilePath();
  settings::setLastDirectory(absolute);
  m_statusLabel->setText(tr("Listing %1…").arg(absolute));
  // The listing only (names and sizes): the dataset view reads the files' metadata in the background.
  runInBackground(
      this,
      [absolute] {
        auto index = std::make_shared<dataset::DatasetIndex>();
        index->root = absolute.toStdString();
        const std::filesystem::path root(index->root);
        std::error_code ec =
            dataset::forEachDatasetFile(root, [&](const std::filesystem::directory_entry &entry) {
              std::error_code sizeError;
              const auto size = entry.file_size(sizeError);
              index->files.push_back({entry.path().lexically_relative(root).generic_string(),
                                      sizeError ? 0 : static_cast<std::uint64_t>(size),
                                      0,
                                      {},
                                      {}});
            });
        std::sort(index->files.begin(), index->files.end(),
                  [](const dataset::FileEntry &a, const dataset::FileEntry &b) { return a.path < b.path; });
        // The view's rows and the first scan's previous index, made here rather than on the UI thread.
        auto prepared = std::make_shared<PreparedDataset>();
        prepared->snapshot = std::make_shared<const dataset::DatasetIndex>(*index);
        project::Dataset listing{0, {}, {}, *index};
        prepared->rows = DatasetFilesModel::buildRows(&listing);
        return std::make_tuple(index, prepared, ec ? QString::fromStdString(ec.message()) : QString());
      },
      [this, absolute](const std::tuple<std::shared_ptr<dataset::DatasetIndex>,
                                        std::shared_ptr<PreparedDataset>, QString> &result) {
        const auto &[listedIndex, prepared, listError] = result;
        const std::pair<std::shared_ptr<dataset::DatasetIndex>, QString> listed{listedIndex, listError};
        m_statusLabel->setText(tr("Ready"));
        if (!listed.second.isEmpty() || listed.first->files.empty()) {
          showError(
              tr("Cannot Import Dataset"),
              listed.second.isEmpty()
                  ? tr("%1 holds no images (jpg, png, bmp, webp, ...) or tensors (.npy, .npz).").arg(absolute)
                  : tr("%1: %2").arg(absolute, listed.second));
          Q_EMIT datasetImported(-1);
          return;
        }
        project::Dataset dataset;
        dataset.name = QFileInfo(absolute).fileName().toStdString();
        dataset.index = std::move(*listed.first);
        const size_t files = dataset.index->files.size();
        const qint64 id = m_context->addDataset(std::move(dataset));
        m_preparedDataset = prepared;
        m_preparedDatasetId = id;
        m_context->log(LogLevel::Info,
                       tr("Dataset %1: %2")
                           .arg(absolute, countText(static_cast<qint64>(files), tr("file"), tr("files"))));
        m_context->select({Section::Datasets, id});
        m_context->activate({Section::Datasets, id});
        m_preparedDataset.reset();
        m_preparedDatasetId = -1;
        Q_EMIT datasetImported(id);
      });
}

void MainWindow::keepJobLog(const JobInfo &job) {
  if (m_context->filePath().isEmpty())
    return; // an untitled project has no cache folder yet; the log stays viewable in the jobs panel
  // Logs are kept beside the regenerable artifacts: losing them with the cache loses no project data.
  QDir dir(QString::fromStdString(project::cacheDirFor(m_context->filePath().toStdString()).string()) +
           QStringLiteral("/logs"));
  if (!dir.mkpath(QStringLiteral(".")))
    return;
  QString name = QStringLiteral("%1-job%2-%3.log")
                     .arg(QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss")))
                     .arg(job.id)
                     .arg(job.spec.title.toLower().replace(QRegularExpression(QStringLiteral("[^a-z0-9]+")),
                                                           QStringLiteral("-")));
  QFile file(dir.filePath(name));
  if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
    return;
  QStringList lines{QStringLiteral("$ %1 %2").arg(job.spec.program, job.spec.arguments.join(QLatin1Char(' ')))};
  lines << job.log;
  lines << QStringLiteral("-- %1").arg(jobStateName(job.state));
  if (!job.error.isEmpty())
    lines << job.error;
  file.write(lines.join(QLatin1Char('\n')).toUtf8() + '\n');
  m_context->log(LogLevel::Info, tr("Log of %1 kept in %2").arg(job.spec.title, file.fileName()));
}

qint64 MainWindow::importTableFile(const QString &path, Section section) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    showError(tr("Cannot Import Table"), tr("cannot read '%1': %2").arg(path, file.errorString()));
    return -1;
  }
  const QByteArray text = file.readAll();
  const std::string name = QFileInfo(path).completeBaseName().toStdString();
  std::string error;
  qint64 id = -1;
  if (section == Section::CaliTables) {
    if (auto entries = project::parseCaliTable(text.toStdString(), path.toStdString()))
      id = m_context->addCaliTable({0, name, 1, "", "imported from " + path.toStdString(), std::move(*entries)});
    else
      error = entries.error();
  } else {
    if (auto entries = project::parseQuantTable(text.toStdString(), path.toStdString()))
      id = m_context->addQuantTable({0, name, 1, "", "imported from " + path.toStdString(), std::move(*entries)});
    else
      error = entries.error();
  }
  if (id < 0) {
    showError(tr("Cannot Import Table"), QString::fromStdString(error));
    return -1;
  }
  settings::setLastDirectory(QFileInfo(path).absolutePath());
  m_context->activate({section, id});
  return id;
}

bool MainWindow::exportTableFile(const Selection &table, const QString &path) {
  const project::Project &p = m_context->project();
  std::string text;
  for (const auto &t : p.caliTables)
    if (table.section == Section::CaliTables && t.id == table.id)
      text = project::formatCaliTable(t);
  for (const auto &t : p.quantTables)
    if (table.section == Section::QuantTables && t.id == table.id)
      text = project::formatQuantTable(t);
  if (text.empty()) {
    showError(tr("Cannot Export Table"), tr("Select a calibration or quantize table first."));
    return false;
  }
  QSaveFile file(path); // written beside and renamed: an existing file is never left half-written
  if (!file.open(QIODevice::WriteOnly) || file.write(text.data(), static_cast<qint64>(text.size())) < 0 ||
      !file.commit()) {
    showError(tr("Cannot Export Table"), tr("cannot write '%1': %2").arg(path, file.errorString()));
    return false;
  }
  m_context->log(LogLevel::Info, tr("Exported to %1").arg(path));
  return true;
}

int MainWindow::runTransform() {
  const project::Project &p = m_context->project();
  if (p.model.path.empty()) {
    showError(tr("Cannot Transform"), tr("The project has no model yet: use File ▸ Import Model first."));
    return -1;
  }
  if (!ensureSaved(tr("Cannot Transform")))
    return -1;
  if (!QFileInfo(tpucPath()).isExecutable()) {
    showError(tr("Cannot Transform"), tr("The tpuc engine was not found at %1").arg(tpucPath()));
    return -1;
  }
  QString name = QFileInfo(QString::fromStdString(p.model.path)).completeBaseName();
  QString cache = QString::fromStdString(project::cacheDirFor(m_context->filePath().toStdString()).string());
  QDir().mkpath(cache);
  auto settingsRequest = transformRequest(p.importSettings);
  if (!settingsRequest) {
    showError(tr("Cannot Transform"), QString::fromStdString(settingsRequest.error()));
    return -1;
  }
  driver::TransformOptions request = std::move(*settingsRequest);
  request.modelName = name.toStdString();
  request.modelDef = p.model.path;
  request.mlir = (cache + QLatin1Char('/') + name + QStringLiteral(".top.mlir")).toStdString();
  // The first calibration sample on disk doubles as model_transform's test input: the engine then runs the
  // Top IR and compares it with the framework, and the run history keeps the per-output metrics.
  for (const project::Dataset &d : p.datasets)
    if (!d.samples.empty() && QFileInfo(QString::fromStdString(d.samples.front().path)).isFile()) {
      request.testInput = {d.samples.front().path};
      request.testResult =
          (cache + QLatin1Char('/') + name + QStringLiteral("_top_outputs.npz")).toStdString();
      break;
    }
  // The IR after every pass, for the pass inspector (opened from the run in the explorer).
  request.snapshots = (cache + QStringLiteral("/snapshots/") + name + QLatin1Char('-') +
                       QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss")))
                          .toStdString();
  request.progress = "json";
  // Its result record (beside the Top MLIR) gives the run history the outcome and the framework check.
  return submit(tr("Cannot Transform"), tr("Transform %1").arg(name), request, cache,
                QString::fromStdString(driver::transformResultPath(request)));
}

namespace {

QString joined(const std::vector<std::string> &parts, const QString &separator) {
  QStringList list;
  for (const std::string &part : parts)
    list << QString::fromStdString(part);
  return list.join(separator);
}

/// The samples of `dataset` (a subset of its folder, else all of its files and the samples added one by one),
/// one file per model input each: a model with several inputs pairs the files of the same name in one
/// subfolder per input, as tpuc calibrate --dataset does. nullopt with the reason in `error`.
std::optional<std::vector<std::vector<std::string>>> datasetSamples(const project::Project &p,
                                                                    const project::Dataset &dataset,
                                                                    const QString &subset, QString *error) {
  const dataset::Subset *chosen = nullptr;
  if (!subset.isEmpty()) {
    chosen = dataset.index ? dataset.index->findSubset(subset.toStdString()) : nullptr;
    if (!chosen || chosen->paths.empty()) {
      *error = QCoreApplication::translate("MainWindow", "Dataset '%1' has no subset '%2' with files.")
                   .arg(QString::fromStdString(dataset.name), subset);
      return std::nullopt;
    }
  }
  std::vector<std::string> inputNames;
  if (Result<std::vector<ModelInput>> inputs = readOnnxInputsFromFile(p.model.path); inputs)
    for (const ModelInput &input : *inputs)
      inputNames.push_back(input.name);
  std::vector<std::vector<std::string>> samples;
  if (dataset.index) {
    std::vector<std::string> paths;
    for (const dataset::FileEntry &e : dataset.index->files)
      paths.push_back(e.path);
    dataset::InputGroups groups =
        dataset::groupByInputs(paths, inputNames, chosen ? &chosen->paths : nullptr);
    if (!groups.unmatched.empty()) {
      *error = QCoreApplication::translate(
                   "MainWindow", "%1 has no partner of the same name under every other input's folder "
                                 "(%2 such files): a sample of this model needs one file under each of %3.")
                   .arg(QString::fromStdString(dataset.index->absolutePath(groups.unmatched.front())))
                   .arg(groups.unmatched.size())
                   .arg(joined(inputNames, QStringLiteral("/, ")) + QLatin1Char('/'));
      return std::nullopt;
    }
    for (std::vector<std::string> &sample : groups.samples) {
      for (std::string &file : sample)
        file = dataset.index->absolutePath(file);
      samples.push_back(std::move(sample));
    }
  }
  if (!chosen)
    for (const project::Sample &sample : dataset.samples)
      samples.push_back({sample.path});
  return samples;
}

} // namespace

int MainWindow::runCalibrate(qint64 datasetId, const QString &method, const QString &subset,
                             const SearchSettings *search) {
  const project::Project &p = m_context->project();
  if (p.model.path.empty() || p.model.format == "hf") {
    showError(tr("Cannot Calibrate"), tr("The project has no ONNX model yet: use File ▸ Import Model first."));
    return -1;
  }
  if (!ensureSaved(tr("Cannot Calibrate")))
    return -1;
  if (!QFileInfo(tpucPath()).isExecutable()) {
    showError(tr("Cannot Calibrate"), tr("The tpuc engine was not found at %1").arg(tpucPath()));
    return -1;
  }
  if (datasetId < 0 && m_context->selection().section == Section::Datasets)
    datasetId = m_context->selection().id;
  const project::Dataset *dataset = nullptr;
  for (const project::Dataset &d : p.datasets)
    if (d.id == datasetId || (datasetId < 0 && !dataset && d.fileCount() > 0))
      dataset = &d;
  if (!dataset || dataset->fileCount() == 0) {
    showError(tr("Cannot Calibrate"), tr("Add calibration samples first: File ▸ Import Dataset Folder or "
                                         "File ▸ Add Calibration Samples."));
    return -1;
  }
  QString why;
  const std::optional<std::vector<std::vector<std::string>>> samples =
      datasetSamples(p, *dataset, subset, &why);
  if (!samples) {
    showError(tr("Cannot Calibrate"), why);
    return -1;
  }
  QString name = QFileInfo(QString::fromStdString(p.model.path)).completeBaseName();
  QString cache = QString::fromStdString(project::cacheDirFor(m_context->filePath().toStdString()).string());
  QDir().mkpath(cache);
  // The engine reads the samples from a run_calibration data list: one sample file a line.
  const QString source = subset.isEmpty() ? QStringLiteral("dataset%1").arg(dataset->id)
                                          : QStringLiteral("dataset%1-%2").arg(dataset->id).arg(subset);
  QString list = cache + QStringLiteral("/calibration-%1.txt").arg(source);
  QSaveFile listFile(list);
  QByteArray lines;
  for (const std::vector<std::string> &sample : *samples)
    lines += joined(sample, QStringLiteral(",")).toUtf8() + '\n';
  if (!listFile.open(QIODevice::WriteOnly) || listFile.write(lines) < 0 || !listFile.commit()) {
    showError(tr("Cannot Calibrate"), tr("cannot write '%1': %2").arg(list, listFile.errorString()));
    return -1;
  }
  // The queue runs jobs in order, so a transform queued now has written the Top MLIR when calibrate starts.
  QString mlir = cache + QLatin1Char('/') + name + QStringLiteral(".top.mlir");
  if (!QFileInfo::exists(mlir) && runTransform() < 0)
    return -1;
  QString table = cache + QLatin1Char('/') + name + QLatin1Char('_') + source + QLatin1Char('_') + method +
                  QStringLiteral("_cali_table");
  driver::CalibrateOptions request;
  request.mlirFile = mlir.toStdString();
  request.dataList = list.toStdString();
  request.caliMethod = method.toStdString();
  request.calibrationTable = table.toStdString();
  // Every studio calibration keeps its activation statistics (histograms, every method's threshold,
  // convergence) in a folder of its own, so a later calibration never overwrites an older table's report.
  // The view draws them; the PNGs of the command line are not needed.
  const QString report = cache + QStringLiteral("/calibration-reports/") + QFileInfo(table).fileName() +
                         QLatin1Char('-') +
                         QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"));
  request.report = report.toStdString();
  request.reportFigures = 0;
  request.progress = "json";
  // The mixed-precision search: the same calibration, then search_qtable for the configuration's chip, every
  // step recorded (its curve opens when the job ends).
  QString searchRecord;
  project::CompileConfig searchConfig;
  if (search) {
    searchConfig = compileConfigFor(search->configId);
    const QString stem = table + QStringLiteral("-search-") +
                         QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"));
    searchRecord = stem + QStringLiteral(".json");
    request.search = "search_qtable";
    request.chip = searchConfig.chip;
    request.expectedCos = search->expectedCos;
    request.maxFloatLayers = search->maxFloatLayers;
    request.quantizeTable = (stem + QStringLiteral(".qtable")).toStdString();
    request.searchReport = searchRecord.toStdString();
  }
  const QString title =
      subset.isEmpty()
          ? tr("Calibrate %1 on %2").arg(name, QString::fromStdString(dataset->name))
          : tr("Calibrate %1 on %2 / %3").arg(name, QString::fromStdString(dataset->name), subset);
  const int id = submit(tr("Cannot Calibrate"),
                        search ? tr("Search mixed precision of %1 for %2 on %3 (%4)")
                                     .arg(name, QString::fromStdString(searchConfig.chip),
                                          QString::fromStdString(dataset->name),
                                          QString::fromStdString(searchConfig.name))
                               : title,
                        request, cache, QString::fromStdString(driver::calibrateResultPath(request)));
  if (id < 0)
    return -1;
  // When this job ends, its table joins the project it was started for (not a project opened since).
  const std::string tableName = name.toStdString() + " " + dataset->name +
                                (subset.isEmpty() ? "" : "/" + subset.toStdString()) + " " +
                                method.toStdString();
  const std::string comment = "tpuc calibrate --cali_method " + method.toStdString() + " on " +
                              std::to_string(samples->size()) + " samples of dataset '" + dataset->name +
                              "'" + (subset.isEmpty() ? "" : ", subset '" + subset.toStdString() + "'");
  auto connection = std::make_shared<QMetaObject::Connection>();
  *connection = connect(
      m_jobs, &JobQueue::jobFinished, this,
      [this, id, connection, table, report, tableName, comment, searchRecord, configId = searchConfig.id,
       generation = m_projectGeneration](int finished, JobState state) {
        if (finished != id)
          return;
        QObject::disconnect(*connection);
        // A search that ran to its end writes its record whether or not it reached the target (exit 1).
        if (!searchRecord.isEmpty() && generation == m_projectGeneration && QFileInfo::exists(searchRecord) &&
            (state == JobState::Succeeded || state == JobState::Failed))
          openSearchResult(searchRecord, configId);
        // A search short of its target exits 1, but its calibration table is whole.
        const std::optional<JobInfo> job = m_jobs->job(id);
        const bool tableWritten = state == JobState::Succeeded ||
                                  (!searchRecord.isEmpty() && job && job->exitCode == driver::kExitFailed);
        if (!tableWritten || generation != m_projectGeneration) {
          Q_EMIT calibrationTableAdded(-1);
          return;
        }
        QFile file(table);
        Result<std::vector<project::CaliEntry>> entries =
            file.open(QIODevice::ReadOnly)
                ? project::parseCaliTable(file.readAll().toStdString(), table.toStdString())
                : Failure{table.toStdString() + ": " + file.errorString().toStdString()};
        if (!entries) {
          m_context->log(LogLevel::Error,
                         tr("Calibration table not stored: %1").arg(QString::fromStdString(entries.error())));
          Q_EMIT calibrationTableAdded(-1);
          return;
        }
        std::string created = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
        qint64 tableId = m_context->addCaliTable({0, tableName, 1, created, comment, std::move(*entries)});
        m_context->log(LogLevel::Info, tr("Calibration table '%1' added (%2 tensors)")
                                           .arg(QString::fromStdString(tableName))
                                           .arg(m_context->project().caliTables.back().entries.size()));
        setCalibrationReportOfTable(*m_context, tableId, report);
        if (searchRecord.isEmpty())
          openActivationStats(tableId);
        Q_EMIT calibrationTableAdded(tableId);
      });
  return id;
}

QString MainWindow::deployStem(const QString &cache, const DeploySettings &settings) const {
  return cache + QLatin1Char('/') +
         QFileInfo(QString::fromStdString(m_context->project().model.path)).completeBaseName() +
         QStringLiteral("_%1_%2").arg(QString::fromStdString(settings.options.chip).toLower(),
                                      QString::fromStdString(settings.options.quantize).toLower());
}

project::CompileConfig MainWindow::compileConfigFor(qint64 configId) const {
  if (configId < 0 && m_context->selection().section == Section::CompileConfigs)
    configId = m_context->selection().id;
  const project::Project &p = m_context->project();
  const driver::DeployOptions fresh = DeploySettings::newDeployOptions();
  project::CompileConfig config{0, "default", fresh.chip, fresh.quantize, "{}"};
  for (const project::CompileConfig &c : p.compileConfigs)
    if (c.id == configId || (configId < 0 && &c == &p.compileConfigs.front()))
      config = c;
  return config;
}

int MainWindow::runModelFile(qint64 configId) {
  const project::Project &p = m_context->project();
  if (p.model.path.empty() || m_context->filePath().isEmpty() || !QFileInfo(tpucPath()).isExecutable()) {
    showError(tr("Cannot Run"), tr("Open a saved project with a model, and deploy it first (Run ▸ Deploy)."));
    return -1;
  }
  const project::CompileConfig config = compileConfigFor(configId);
  const DeploySettings settings = deploySettingsOf(config);
  const QString cache = QString::fromStdString(project::cacheDirFor(m_context->filePath().toStdString()).string());
  const QString stem = deployStem(cache, settings);
  const QString model = stem + QStringLiteral(".tpum"), input = stem + QStringLiteral(".tpu_in_f32.npz");
  if (!QFileInfo(model).isFile() || !QFileInfo(input).isFile()) {
    showError(tr("Cannot Run"), tr("Configuration '%1' has no model file with test inputs yet: deploy it with a "
                                   "test input first (Run ▸ Deploy).")
                                    .arg(QString::fromStdString(config.name)));
    return -1;
  }
  const driver::RunOptions request = runModelRequest(model, input, stem + QStringLiteral(".run_outputs.npz"),
                                                     stem + QStringLiteral(".run_trace.json"));
  return submit(tr("Cannot Run"),
                tr("Run %1 on the simulator (%2)")
                    .arg(QFileInfo(model).fileName(), QString::fromStdString(config.name)),
                request, cache, QString::fromStdString(driver::runResultPath(request)));
}

int MainWindow::runCompare(QString target, QString reference, const QString &tolerance) {
  const QString filter = tr("Tensors (*.npz)");
  if (target.isEmpty() && m_interactive)
    target = QFileDialog::getOpenFileName(this, tr("Compare: Tensors to Check"), settings::lastDirectory(), filter);
  if (!target.isEmpty() && reference.isEmpty() && m_interactive)
    reference = QFileDialog::getOpenFileName(this, tr("Compare: Reference Tensors"), QFileInfo(target).path(), filter);
  if (target.isEmpty() || reference.isEmpty())
    return -1;
  for (const QString &file : {target, reference})
    if (!QFileInfo(file).isFile()) {
      showError(tr("Cannot Compare"), tr("The tensor file '%1' does not exist.").arg(file));
      return -1;
    }
  if (!QFileInfo(tpucPath()).isExecutable()) {
    showError(tr("Cannot Compare"), tr("The tpuc engine was not found at %1").arg(tpucPath()));
    return -1;
  }
  driver::CompareOptions request;
  request.targetFile = target.toStdString();
  request.referenceFile = reference.toStdString();
  request.tolerance = tolerance.toStdString();
  // The result record the run history reads: in the project's cache, else the temporary folder.
  const QString records =
      m_context->filePath().isEmpty()
          ? QDir::tempPath()
          : QString::fromStdString(project::cacheDirFor(m_context->filePath().toStdString()).string());
  QDir().mkpath(records);
  const QString result = records + QStringLiteral("/compare-%1-%2.result.json")
                                       .arg(QFileInfo(target).completeBaseName())
                                       .arg(QDateTime::currentMSecsSinceEpoch());
  request.resultJson = result.toStdString();
  return submit(tr("Cannot Compare"),
                tr("Compare %1 with %2").arg(QFileInfo(target).fileName(), QFileInfo(reference).fileName()),
                request, QFileInfo(target).path(), result);
}

QString MainWindow::writeRandomTestInput(const QString &cache, const QString &modelName) {
  const project::Project &p = m_context->project();
  Result<std::vector<ModelInput>> inputs = readOnnxInputsFromFile(p.model.path);
  Result<NpzFile> npz = inputs ? randomTestInputs(*inputs, parseInputShapes(p.importSettings.inputShapes), 0)
                               : Result<NpzFile>(Failure(inputs.error()));
  if (!npz) {
    showError(tr("Cannot Deploy"),
              tr("The project has no data to test on, and no random input can be made: %1")
                  .arg(QString::fromStdString(npz.error())));
    return {};
  }
  const QString file = cache + QLatin1Char('/') + modelName + QStringLiteral("_random_input.npz");
  try {
    npz->write(file.toStdString());
  } catch (const std::exception &e) {
    showError(tr("Cannot Deploy"), QString::fromUtf8(e.what()));
    return {};
  }
  m_context->log(LogLevel::Info,
                 tr("The project has no data: deploying with a random input (%1; floats normal(0, 1), "
                    "integers 0). Add a calibration dataset to measure accuracy on real data.")
                     .arg(QFileInfo(file).fileName()));
  return file;
}

int MainWindow::runDeploy(qint64 configId, const QStringList &sampleFiles) {
  const project::Project &p = m_context->project();
  if (p.model.path.empty() || p.model.format == "hf") {
    showError(tr("Cannot Deploy"), tr("The project has no ONNX model yet: use File ▸ Import Model first."));
    return -1;
  }
  if (!ensureSaved(tr("Cannot Deploy")))
    return -1;
  if (!QFileInfo(tpucPath()).isExecutable()) {
    showError(tr("Cannot Deploy"), tr("The tpuc engine was not found at %1").arg(tpucPath()));
    return -1;
  }
  const project::CompileConfig config = compileConfigFor(configId);
  QString name = QFileInfo(QString::fromStdString(p.model.path)).completeBaseName();
  QString cache = QString::fromStdString(project::cacheDirFor(m_context->filePath().toStdString()).string());
  QDir().mkpath(cache);
  // The configuration's model_deploy settings (ui/jobs/DeployJob.h); tables are written out as the engine
  // reads them, beside the other artifacts.
  const DeploySettings settings = deploySettingsOf(config);
  const QString precision = QString::fromStdString(settings.options.quantize).toUpper();
  const QString chip = QString::fromStdString(settings.options.chip).toLower();
  const QString topMlir = cache + QLatin1Char('/') + name + QStringLiteral(".top.mlir");
  auto writeTable = [this, &cache](const QString &file, const std::string &text) {
    const QString path = cache + QLatin1Char('/') + file;
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly) || out.write(text.data(), static_cast<qint64>(text.size())) < 0 ||
        !out.commit()) {
      showError(tr("Cannot Deploy"), tr("cannot write '%1': %2").arg(path, out.errorString()));
      return QString();
    }
    return path;
  };
  // A deploy on one sample of a many-sample run writes beside it, never over that run's records.
  const QString stem = deployStem(cache, settings) +
                       (sampleFiles.isEmpty()
                            ? QString()
                            : QStringLiteral("_sample_") + QFileInfo(sampleFiles.front()).completeBaseName());
  DeployPaths paths{topMlir, {}, {}, {}, stem + QStringLiteral(".tpu.mlir")};
  paths.model = stem + QStringLiteral(".tpum"); // the whole way: layer groups, addresses, codegen
  // The Top input and the lowered Tpu module, for the pass inspector's side-by-side view of the run.
  paths.snapshots = cache + QStringLiteral("/snapshots/") + name + QStringLiteral("-deploy-") +
                    QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss"));
  if (precision == QLatin1String("INT8")) {
    const project::CaliTable *table = deployCaliTable(p, settings);
    if (!table) {
      showError(
          tr("Cannot Deploy"),
          settings.caliTableName.isEmpty()
              ? tr("INT8 needs a calibration table: run Run ▸ Calibrate first.")
              : tr("Configuration '%1' names calibration table '%2' v%3, which the project does not have: "
                   "calibrate on that dataset first (Run ▸ Calibrate).")
                    .arg(QString::fromStdString(config.name), settings.caliTableName)
                    .arg(settings.caliTableVersion));
      return -1;
    }
    paths.calibrationTable = writeTable(QStringLiteral("deploy-cali-table%1-v%2.txt").arg(table->id).arg(table->version),
                                        project::formatCaliTable(*table));
    if (paths.calibrationTable.isEmpty())
      return -1;
  }
  if (!settings.quantTableName.isEmpty()) {
    const project::QuantTable *table = deployQuantTable(p, settings);
    if (!table) {
      showError(tr("Cannot Deploy"),
                tr("Configuration '%1' names quantize table '%2' v%3, which the project does not have.")
                    .arg(QString::fromStdString(config.name), settings.quantTableName)
                    .arg(settings.quantTableVersion));
      return -1;
    }
    paths.quantizeTable = writeTable(QStringLiteral("deploy-qtable%1-v%2.txt").arg(table->id).arg(table->version),
                                     project::formatQuantTable(*table));
    if (paths.quantizeTable.isEmpty())
      return -1;
  }
  // The configuration's test input, else the first calibration sample on disk; with it the run keeps the
  // per-layer comparison (accumulated and isolated, --compare_all). Many samples: a folder, or a dataset of
  // the project (a subset of it) as a data list, one sample a line (issue 22). `sampleFiles`: one sample of
  // those, e.g. to keep the tensors of a layer's worst sample.
  if (!sampleFiles.isEmpty()) {
    for (const QString &file : sampleFiles)
      if (!QFileInfo(file).isFile()) {
        showError(tr("Cannot Deploy"), tr("The test input '%1' does not exist.").arg(file));
        return -1;
      }
    paths.testFiles = sampleFiles;
  } else if (!settings.testDataset.isEmpty()) {
    const project::Dataset *dataset = nullptr;
    for (const project::Dataset &d : p.datasets)
      if (QString::fromStdString(d.name) == settings.testDataset)
        dataset = &d;
    QString why;
    std::optional<std::vector<std::vector<std::string>>> samples;
    if (!dataset)
      why = tr("Configuration '%1' tests on dataset '%2', which the project does not have.")
                .arg(QString::fromStdString(config.name), settings.testDataset);
    else if (samples = datasetSamples(p, *dataset, settings.testSubset, &why); samples && samples->empty())
      why = tr("Dataset '%1' has no samples.").arg(settings.testDataset);
    if (!why.isEmpty()) {
      showError(tr("Cannot Deploy"), why);
      return -1;
    }
    QByteArray lines;
    for (const std::vector<std::string> &sample : *samples)
      lines += joined(sample, QStringLiteral(",")).toUtf8() + '\n';
    paths.testInput = writeTable(
        settings.testSubset.isEmpty()
            ? QStringLiteral("deploy-test-dataset%1.txt").arg(dataset->id)
            : QStringLiteral("deploy-test-dataset%1-%2.txt").arg(dataset->id).arg(settings.testSubset),
        lines.toStdString());
    if (paths.testInput.isEmpty())
      return -1;
  } else if (!settings.testFolder.isEmpty()) {
    if (!QFileInfo(settings.testFolder).isDir()) {
      showError(tr("Cannot Deploy"),
                tr("The folder of test samples '%1' does not exist.").arg(settings.testFolder));
      return -1;
    }
    paths.testInput = settings.testFolder;
  } else if (!settings.testInput.isEmpty()) {
    // A relative test input lies in the project's folder (the example's does, so a copy of it works).
    const QString testInput = QFileInfo(settings.testInput).isRelative()
                                  ? QFileInfo(m_context->filePath()).dir().filePath(settings.testInput)
                                  : settings.testInput;
    if (!QFileInfo(testInput).isFile()) {
      showError(tr("Cannot Deploy"), tr("The test input '%1' does not exist.").arg(testInput));
      return -1;
    }
    paths.testInput = testInput;
  } else {
    for (const project::Dataset &d : p.datasets)
      if (!d.samples.empty() && QFileInfo(QString::fromStdString(d.samples.front().path)).isFile()) {
        paths.testInput = QString::fromStdString(d.samples.front().path);
        break;
      }
    // No data at all: a seeded random input, so the deploy still checks the model file against the Tpu
    // simulation and the simulator can run and time it. Accuracy on real data needs a dataset.
    if (paths.testInput.isEmpty()) {
      paths.testInput = writeRandomTestInput(cache, name);
      if (paths.testInput.isEmpty())
        return -1;
    }
  }
  const driver::DeployOptions request = deployRequest(settings, paths);
  if (EngineArgs args = engineArguments(request); !args.error.isEmpty()) {
    showError(tr("Cannot Deploy"), args.error);
    return -1;
  }
  if (!QFileInfo::exists(topMlir) && runTransform() < 0)
    return -1;
  // Its result record (written beside the other outputs) gives the run history the outcome.
  return submit(
      tr("Cannot Deploy"),
      sampleFiles.isEmpty()
          ? tr("Deploy %1 %2 %3 (%4)").arg(name, precision, chip, QString::fromStdString(config.name))
          : tr("Deploy %1 %2 %3 on %4 (%5)")
                .arg(name, precision, chip, QFileInfo(sampleFiles.front()).fileName(),
                     QString::fromStdString(config.name)),
      request, cache, QString::fromStdString(driver::deployResultPath(request)));
}

template <typename Request>
int MainWindow::submit(const QString &errorTitle, const QString &title, const Request &request,
                       const QString &workingDirectory, const QString &resultFile) {
  const Submitted job = m_engine->submit(title, request, workingDirectory, resultFile);
  if (job.id < 0)
    showError(errorTitle, job.error);
  return job.id;
}

template int MainWindow::submit(const QString &, const QString &, const driver::LlmConvertOptions &,
                                const QString &, const QString &);

} // namespace tpuc::ui
