// Offscreen tests of the LLM path and the run history: a HuggingFace folder dropped on the window reaches
// the LLM import dialog with the model's values, llm_convert's rules, the llm-convert job (exit codes of
// the engine, a real engine failing on a broken checkpoint), and finished jobs recorded as runs that survive saving and reopening.
#include "GuiTestSupport.h"
#include "project/ProjectStore.h"
#include "ui/LlmImportDialog.h"
#include "ui/MainWindow.h"
#include "ui/StudioContext.h"
#include "ui/jobs/JobQueue.h"
#include "ui/jobs/RunHistory.h"
#include "ui/models/JobListModel.h"
#include "ui/models/ProjectTreeModel.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMimeData>
#include <QProcess>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <cmath>

using namespace tpuc;
using namespace tpuc::ui;

namespace {

// A pre-quantized Qwen2 checkpoint's config (GQA: 14 heads, 2 KV heads).
const char *kQwen2Config = R"({
  "architectures": ["Qwen2ForCausalLM"], "bos_token_id": 151643, "eos_token_id": 151645,
  "hidden_act": "silu", "hidden_size": 896, "intermediate_size": 4864, "max_position_embeddings": 32768,
  "max_window_layers": 21, "model_type": "qwen2", "num_attention_heads": 14, "num_hidden_layers": 24,
  "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 32768,
  "tie_word_embeddings": true, "torch_dtype": "bfloat16", "use_sliding_window": false,
  "vocab_size": 151936, "rope_scaling": null,
  "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": true, "desc_act": false}})";

bool writeFile(const QString &path, const QByteArray &bytes) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

/// A HuggingFace folder as a download leaves it: config.json, weights, tokenizer.json.
QString makeHfFolder(const QTemporaryDir &dir, const QString &name, const QByteArray &config) {
  QString folder = dir.filePath(name);
  QDir().mkpath(folder);
  if (!config.isEmpty())
    writeFile(folder + "/config.json", config);
  // The dialog lists the weight files; their bytes only count for the size.
  writeFile(folder + "/model.safetensors", QByteArray(8, '\0') + "{}" + QByteArray(2048, ' '));
  writeFile(folder + "/tokenizer.json", R"({"model": {"type": "BPE", "vocab": {}, "merges": []}})");
  return folder;
}

QString labelText(QWidget *dialog, const char *name) {
  auto *label = dialog->findChild<QLabel *>(name);
  return label ? label->text() : QStringLiteral("<no label %1>").arg(name);
}

void drop(QWidget &window, const QString &path, bool expectAccepted = true) {
  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(path)});
  QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  enter.setAccepted(false);
  QApplication::sendEvent(&window, &enter);
  QCOMPARE(enter.isAccepted(), expectAccepted);
  QDropEvent event(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&window, &event);
}

QJsonObject summaryOf(const project::RunRecord &run) {
  return QJsonDocument::fromJson(QByteArray::fromStdString(run.summaryJson)).object();
}

} // namespace

class TestLlmImport : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
  void llmConvertRules_data();
  void llmConvertRules();
  void unreadableFoldersGiveOneLine();
  void droppedFolderReachesTheDialog();
  void finishedJobBecomesARunThatSurvivesReopening();
  void realEngineRunsAreRecorded();
};

void TestLlmImport::llmConvertRules_data() {
  QTest::addColumn<qint64>("seq");
  QTest::addColumn<bool>("history");
  QTest::addColumn<qint64>("chunk");
  QTest::addColumn<qint64>("maxInput");
  QTest::addColumn<QString>("error");      // empty = valid
  QTest::addColumn<qint64>("wantChunk");
  QTest::addColumn<qint64>("wantMaxInput");
  QTest::newRow("plain") << 512LL << false << 0LL << 0LL << "" << 0LL << 0LL;
  QTest::newRow("history defaults to a quarter") << 2048LL << true << 0LL << 0LL << "" << 512LL << 512LL;
  QTest::newRow("explicit chunk at half") << 1024LL << true << 512LL << 0LL << "" << 512LL << 0LL;
  QTest::newRow("chunk above half") << 1024LL << true << 513LL << 0LL << "at most half of --seq_length (512)" << 0LL
                                    << 0LL;
  QTest::newRow("chunk without history") << 1024LL << false << 128LL << 0LL << "--chunk_length needs --use_history_kv"
                                         << 0LL << 0LL;
  QTest::newRow("max input above seq") << 512LL << false << 0LL << 513LL << "must not exceed --seq_length (512)"
                                       << 0LL << 0LL;
  QTest::newRow("chunk above max input") << 1024LL << true << 256LL << 128LL
                                         << "--chunk_length 256 must not exceed --max_input_length (128)" << 0LL << 0LL;
  QTest::newRow("beyond max positions") << 40000LL << false << 0LL << 0LL << "max_position_embeddings (32768)" << 0LL
                                        << 0LL;
  QTest::newRow("too short to chunk") << 3LL << true << 0LL << 0LL << "too short to chunk" << 0LL << 0LL;
}

void TestLlmImport::llmConvertRules() {
  QFETCH(qint64, seq);
  QFETCH(bool, history);
  QFETCH(qint64, chunk);
  QFETCH(qint64, maxInput);
  QFETCH(QString, error);
  QFETCH(qint64, wantChunk);
  QFETCH(qint64, wantMaxInput);
  project::LlmConvertSettings s;
  s.seqLength = seq;
  s.useHistoryKv = history;
  s.chunkLength = chunk;
  s.maxInputLength = maxInput;
  QString message;
  auto normalized = normalizeLlmSettings(s, 32768, &message);
  if (!error.isEmpty()) {
    QVERIFY(!normalized);
    QVERIFY2(message.contains(error), qPrintable(message));
    return;
  }
  QVERIFY2(normalized, qPrintable(message));
  QCOMPARE(qint64(normalized->chunkLength), wantChunk);
  QCOMPARE(qint64(normalized->maxInputLength), wantMaxInput);
  // Unknown choices are refused by name.
  s = {};
  s.quantize = "int3";
  QVERIFY(!normalizeLlmSettings(s, 0, &message));
  QVERIFY2(message.contains("--quantize 'int3'"), qPrintable(message));
}

void TestLlmImport::unreadableFoldersGiveOneLine() {
  QTemporaryDir dir;
  QString error;
  QVERIFY(!readHfModel(makeHfFolder(dir, "empty", {}), &error));
  QVERIFY2(error.contains("has no config.json") && !error.contains('\n'), qPrintable(error));
  QByteArray mistral = QByteArray(kQwen2Config).replace("Qwen2ForCausalLM", "MistralForCausalLM");
  QVERIFY(!readHfModel(makeHfFolder(dir, "mistral", mistral), &error));
  QVERIFY2(error.contains("unsupported architecture 'MistralForCausalLM'"), qPrintable(error));
  QString noWeights = makeHfFolder(dir, "noweights", kQwen2Config);
  QVERIFY(QFile::remove(noWeights + "/model.safetensors"));
  QVERIFY(!readHfModel(noWeights, &error));
  QVERIFY2(error.contains("no *.safetensors"), qPrintable(error));
  // The dialog opened on such a folder says so and cannot be accepted.
  LlmImportDialog dialog(dir.filePath("mistral"), std::nullopt);
  QVERIFY(!dialog.isAcceptable());
  QVERIFY2(dialog.statusText().contains("MistralForCausalLM"), qPrintable(dialog.statusText()));
  dialog.show();
  QVERIFY(QTest::qWaitForWindowExposed(&dialog));
  QDir().mkpath(TPUC_SCREENSHOT_DIR);
  QVERIFY(dialog.grab().save(QString(TPUC_SCREENSHOT_DIR) + "/llm-import-dialog-error.png"));
}

void TestLlmImport::droppedFolderReachesTheDialog() {
  QTemporaryDir dir;
  QString folder = makeHfFolder(dir, "Qwen2-0.5B-GPTQ", kQwen2Config);
  StudioContext context;
  MainWindow window(&context);
  window.startup(QString());
  QString error;
  QVERIFY2(context.saveAs(dir.filePath("llm.tpuproj"), &error), qPrintable(error));
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  drop(window, folder);
  auto *dialog = window.findChild<LlmImportDialog *>();
  QVERIFY(dialog);
  QVERIFY(QTest::qWaitForWindowExposed(dialog));
  QVERIFY2(dialog->loadError().isEmpty(), qPrintable(dialog->loadError()));
  QCOMPARE(labelText(dialog, "architecture"), QString("Qwen2ForCausalLM (qwen2)"));
  QCOMPARE(labelText(dialog, "layers"), QLocale().toString(24));
  QCOMPARE(labelText(dialog, "heads"), QString("14 (2 KV, head dim 64)"));
  QCOMPARE(labelText(dialog, "vocab"), QLocale().toString(151936));
  QCOMPARE(labelText(dialog, "dtype"), QString("bfloat16"));
  QCOMPARE(labelText(dialog, "quantization"), QString("gptq, 4 bit, group 128, symmetric"));
  QCOMPARE(labelText(dialog, "tokenizer"), QString("tokenizer.json"));
  QVERIFY(labelText(dialog, "hiddenSize").startsWith("896"));
  // Defaults follow the checkpoint: bf16 compute, its group size and symmetry.
  auto *quantize = dialog->findChild<QComboBox *>("quantize");
  auto *group = dialog->findChild<QSpinBox *>("qGroupSize");
  auto *seq = dialog->findChild<QSpinBox *>("seqLength");
  auto *history = dialog->findChild<QCheckBox *>("useHistoryKv");
  auto *chunk = dialog->findChild<QSpinBox *>("chunkLength");
  auto *chip = dialog->findChild<QComboBox *>("chip");
  QVERIFY(quantize && group && seq && history && chunk && chip);
  QCOMPARE(quantize->currentText(), QString("w4bf16"));
  QCOMPARE(group->value(), 128);
  QVERIFY(dialog->findChild<QCheckBox *>("symmetric")->isChecked());
  QCOMPARE(chip->count(), 3);
  QVERIFY(!chunk->isEnabled()); // only with history KV
  // Live validation.
  QVERIFY(dialog->isAcceptable());
  seq->setValue(1024);
  history->setChecked(true);
  QVERIFY(chunk->isEnabled());
  QVERIFY2(dialog->statusText().contains("chunks of 256 (max input 256)"), qPrintable(dialog->statusText()));
  chunk->setValue(600);
  QVERIFY(!dialog->isAcceptable());
  QVERIFY2(dialog->statusText().contains("at most half"), qPrintable(dialog->statusText()));
  chunk->setValue(0);
  quantize->setCurrentText("bf16");
  QVERIFY(!group->isEnabled());
  quantize->setCurrentText("w8f16");
  chip->setCurrentText("bm1688");
  QVERIFY(dialog->isAcceptable());
  // Prefill buckets: the status names them (the chunk of 256 halved down to 16).
  auto *dynamic = dialog->findChild<QCheckBox *>("dynamic");
  QVERIFY(dynamic && !dynamic->isChecked());
  dynamic->setChecked(true);
  QVERIFY2(dialog->statusText().contains("prefill buckets 16/32/64/128"), qPrintable(dialog->statusText()));
  QDir().mkpath(TPUC_SCREENSHOT_DIR);
  QApplication::processEvents();
  QVERIFY(dialog->grab().save(QString(TPUC_SCREENSHOT_DIR) + "/llm-import-dialog.png"));

  // Accepting records the model and settings and queues llm-convert, which this engine does not have yet.
  qputenv("TPUC", TPUC_FAKE_JOB);
  QSignalSpy imported(&window, &MainWindow::modelImported);
  QSignalSpy recorded(&window, &MainWindow::runRecorded);
  QSignalSpy finished(&context, &StudioContext::runFinished);
  dialog->accept();
  QVERIFY(imported.wait(10000));
  QCOMPARE(imported.at(0).at(0).toBool(), true);
  const project::Project &p = context.project();
  QCOMPARE(QString::fromStdString(p.model.path), QFileInfo(folder).absoluteFilePath());
  QCOMPARE(p.model.format, std::string("hf"));
  QCOMPARE(p.model.contentHash, project::hashFile((folder + "/config.json").toStdString()).value_or("none"));
  QVERIFY(p.importSettings.llm);
  QCOMPARE(qint64(p.importSettings.llm->seqLength), qint64(1024));
  QCOMPARE(qint64(p.importSettings.llm->chunkLength), qint64(256));
  QCOMPARE(qint64(p.importSettings.llm->maxInputLength), qint64(256));
  QCOMPARE(p.importSettings.llm->quantize, std::string("w8f16"));
  QCOMPARE(p.importSettings.llm->chip, std::string("bm1688"));
  QVERIFY(p.importSettings.llm->dynamic);
  QVERIFY(recorded.wait(10000));
  qunsetenv("TPUC");
  QCOMPARE(finished.count(), 1);
  const JobInfo job = window.jobQueue()->jobs().constLast();
  QCOMPARE(job.spec.arguments.mid(0, 3), QStringList({"llm-convert", "--model_path", QFileInfo(folder).absoluteFilePath()}));
  for (const char *flag :
       {"--use_history_kv", "--chunk_length", "--max_input_length", "--dynamic", "--progress"})
    QVERIFY2(job.spec.arguments.contains(flag), flag);
  QCOMPARE(job.state, JobState::NotImplemented);
  QCOMPARE(job.exitCode, 3);
  // The jobs panel's row says so in its state and message columns.
  JobListModel jobs(window.jobQueue());
  const int row = jobs.rowCount() - 1;
  QCOMPARE(jobs.index(row, JobListModel::StateColumn).data().toString(), QString("not implemented"));
  QVERIFY(jobs.index(row, JobListModel::MessageColumn).data().toString().contains("not implemented yet"));
  QVERIFY2(job.error.startsWith("Convert LLM Qwen2-0.5B-GPTQ: not implemented yet in this build of tpuc"),
           qPrintable(job.error));
  QCOMPARE(p.runs.size(), std::size_t(1));
  QCOMPARE(p.runs[0].status, std::string("not implemented"));
  QCOMPARE(summaryOf(p.runs[0]).value("command").toString(), QString("llm-convert"));
  QCOMPARE(summaryOf(p.runs[0]).value("exitCode").toInt(), 3);

  // The explorer lists the run; selected, the properties panel shows its command line and outcome.
  context.select({Section::Runs, p.runs[0].id});
  window.resize(1200, 800);
  QApplication::processEvents();
  QVERIFY(window.grab().save(QString(TPUC_SCREENSHOT_DIR) + "/llm-project-run.png"));

  // Saved and reopened: the folder is stored relative to the project, the settings and the run come back.
  QVERIFY2(context.save(&error), qPrintable(error));
  StudioContext reopened;
  QVERIFY2(
      reopened.openProject(dir.filePath("llm.tpuproj"), &error, StudioContext::OpenMode::ReadOnlyIfLocked),
      qPrintable(error));
  QVERIFY(reopened.project().model == p.model);
  QVERIFY(reopened.project().importSettings == p.importSettings);
  QVERIFY(reopened.project().runs == p.runs);
  // Stored relative: the project folder moved together with the model folder still finds it.
  const QString moved = dir.path() + "-moved";
  QVERIFY(QDir().rename(dir.path(), moved));
  StudioContext movedContext;
  // (The lock file moved with it and names this live studio: read-only, as a copy made while open would be.)
  const bool opened =
      movedContext.openProject(moved + "/llm.tpuproj", &error, StudioContext::OpenMode::ReadOnlyIfLocked);
  const QString movedModel = QString::fromStdString(movedContext.project().model.path);
  QVERIFY(QDir().rename(moved, dir.path())); // back, for QTemporaryDir to clean up
  QVERIFY2(opened, qPrintable(error));
  QCOMPARE(movedModel, moved + "/Qwen2-0.5B-GPTQ");
  // Undo takes model and settings back together.
  context.undoStack()->undo();
  QVERIFY(!context.project().importSettings.llm);
  QVERIFY(context.project().model.path.empty());
}

void TestLlmImport::finishedJobBecomesARunThatSurvivesReopening() {
  QTemporaryDir dir;
  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  window.startup(QString());
  QString error;
  QVERIFY2(context.saveAs(dir.filePath("runs.tpuproj"), &error), qPrintable(error));
  QSignalSpy recorded(&window, &MainWindow::runRecorded);
  window.jobQueue()->enqueue({"Transform net",
                              TPUC_FAKE_JOB,
                              {"compare", "--test_input", "in.npz"},
                              dir.path(),
                              dir.filePath("net_transform_result.json")});
  QVERIFY(recorded.wait(10000));
  const qint64 id = recorded.at(0).at(0).toLongLong();
  QVERIFY(id > 0);
  const project::RunRecord run = context.project().runs.back();
  QCOMPARE(run.id, id);
  QCOMPARE(run.status, std::string("failed")); // the comparison failed: exit 1
  QCOMPARE(run.configName, std::string("Transform net"));
  QJsonObject summary = summaryOf(run);
  QCOMPARE(summary.value("command").toString(), QString("compare"));
  QCOMPARE(summary.value("arguments").toArray().size(), 3);
  QCOMPARE(summary.value("exitCode").toInt(), 1);
  QVERIFY(summary.value("durationMs").toDouble() >= 0);
  QJsonArray compare = summary.value("compare").toArray();
  QCOMPARE(compare.size(), 2);
  QCOMPARE(compare[0].toObject().value("name").toString(), QString("logits"));
  QCOMPARE(compare[0].toObject().value("sqnr").toDouble(), 98.1234);
  QCOMPARE(compare[1].toObject().value("name").toString(), QString("aux out"));
  QCOMPARE(compare[1].toObject().value("pass").toBool(), false);
  // Produced artifacts are hashed when they exist, listed either way.
  QCOMPARE(run.artifacts.size(), std::size_t(2));
  QCOMPARE(run.artifacts[0].kind, std::string("mlir"));
  QCOMPARE(QString::fromStdString(run.artifacts[0].name), QDir(dir.path()).filePath("net.mlir"));
  QCOMPARE(run.artifacts[0].contentHash, project::hashBytes("module {}\n"));
  QVERIFY(run.artifacts[1].contentHash.empty());

  QVERIFY2(context.save(&error), qPrintable(error));
  StudioContext reopened;
  ProjectTreeModel model(&reopened);
  QVERIFY2(
      reopened.openProject(dir.filePath("runs.tpuproj"), &error, StudioContext::OpenMode::ReadOnlyIfLocked),
      qPrintable(error));
  QCOMPARE(reopened.project().runs.size(), std::size_t(1));
  QVERIFY(reopened.project().runs[0] == run);
  QModelIndex runs = model.indexFor({Section::Runs, -1});
  QCOMPARE(model.rowCount(runs), 1);
  QCOMPARE(model.selectionFor(model.index(0, 0, runs)), (Selection{Section::Runs, id}));
  QVERIFY2(model.index(0, 0, runs).data().toString().contains("Transform net"),
           qPrintable(model.index(0, 0, runs).data().toString()));
}

void TestLlmImport::realEngineRunsAreRecorded() {
#ifndef TPUC_ENGINE
  QSKIP("the tpuc target is not part of this build");
#else
  // The real engine: Run > Transform Model with a calibration sample as test input compares Top with ONNX
  // Runtime, and the run keeps the metrics; llm-convert on a folder whose safetensors header is broken
  // fails with the engine's one-line reason naming the file.
  QTemporaryDir dir;
  QString problem = ui::guitest::runPython(TPUC_CNN_SCRIPT, {dir.path()});
  QVERIFY2(problem.isEmpty(), qPrintable(problem));
  StudioContext context;
  MainWindow window(&context);
  project::ImportSettings settings;
  settings.inputShapes = "[[1,3,8,8]]";
  problem = ui::guitest::startWithModel(window, context, dir.filePath("cnn.onnx"), settings);
  QVERIFY2(problem.isEmpty(), qPrintable(problem));
  context.addDataset({0, "test", {{dir.filePath("cnn_in.npz").toStdString(), "{}", {}}}});
  QString error;
  QVERIFY2(context.saveAs(dir.filePath("cnn.tpuproj"), &error), qPrintable(error));
  qputenv("TPUC", TPUC_ENGINE);
  QSignalSpy recorded(&window, &MainWindow::runRecorded);
  const int id = window.runTransform();
  QVERIFY(id > 0);
  QVERIFY(recorded.wait(60000));
  const JobInfo job = *window.jobQueue()->job(id);
  QVERIFY2(job.state == JobState::Succeeded, qPrintable(job.error));
  QVERIFY(job.spec.arguments.contains("--test_input"));
  project::RunRecord run = context.project().runs.back();
  QCOMPARE(run.status, std::string("ok"));
  QJsonArray compare = summaryOf(run).value("compare").toArray();
  QVERIFY2(compare.size() == 1, qPrintable(job.log.join('\n')));
  QCOMPARE(compare[0].toObject().value("name").toString(), QString("prob"));
  QVERIFY(compare[0].toObject().value("pass").toBool());
  QVERIFY(compare[0].toObject().value("cosine").toDouble() > 0.999);
  bool outputsHashed = false;
  for (const project::ArtifactRef &a : run.artifacts)
    outputsHashed |= QString::fromStdString(a.name).endsWith("cnn_top_outputs.npz") && a.kind == "npz" &&
                     QString::fromStdString(a.contentHash).startsWith("sha256:");
  QVERIFY(outputsHashed);

  // The LLM path against the same engine.
  QString folder = makeHfFolder(dir, "qwen2", kQwen2Config);
  window.importHfModel(folder, *normalizeLlmSettings({}, 0, &error), /*convert=*/true);
  QVERIFY(recorded.wait(30000));
  qunsetenv("TPUC");
  run = context.project().runs.back();
  QCOMPARE(run.status, std::string("failed"));
  QVERIFY2(summaryOf(run).value("message").toString().contains("model.safetensors: header is not valid JSON"),
           run.summaryJson.c_str());
  QCOMPARE(context.project().runs.size(), std::size_t(2));
#endif
}

QTEST_MAIN(TestLlmImport)
#include "tst_llmimport.moc"
