// The chat with a converted LLM (issue #23 item 4): a tiny random Qwen2 (make_tiny_llm.py) with a byte-level
// ChatML tokenizer, imported and converted by the studio, then chatted with through the real
// `tpuc llm-run --serve`: tokens stream, a second turn reuses the KV cache, Stop and New Conversation work,
// and the timeline holds every stage run. Screenshots of the chat and its timeline.
#include "GuiTestSupport.h"
#include "Screenshots.h"
#include "tpuc/Support/Npz.h"
#include "ui/LlmImportDialog.h"
#include "ui/MainWindow.h"
#include "ui/StudioContext.h"
#include "ui/views/GraphViewTab.h"
#include "ui/views/LlmChatView.h"
#include "ui/views/LlmStagesView.h"
#include "ui/views/LlmTimelineChart.h"
#include "visualizer/ChipFigures.h"

#include <QApplication>
#include <QChart>
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextDocument>

#include <memory>

using namespace tpuc;
using namespace tpuc::ui;

namespace {

using tpuc::ui::guitest::screenshotDir;

int64_t fedBy(const LlmChatTurn &turn) {
  int64_t n = 0;
  for (const driver::LlmServeEvent &s : turn.steps)
    n += s.tokens;
  return n;
}

bool hasStage(const LlmChatTurn &turn, const std::string &stage) {
  for (const driver::LlmServeEvent &s : turn.steps)
    if (s.stage == stage)
      return true;
  return false;
}

} // namespace

class TestLlmChat : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void chatWithConvertedModel();
  void engineFailureIsOneClearLine();
  void chatAboutAnImage();
};

void TestLlmChat::chatWithConvertedModel() {
  QTemporaryDir dir;
  const QString folder = dir.filePath("tiny-qwen2");
  // A random Qwen2 (2 layers, hidden 64) with room for the two ChatML tokens after the 256 bytes.
  QString problem = guitest::runPython(
      TPUC_TINY_LLM_SCRIPT, {"--family", "qwen2", "--vocab", "258", "--out", folder, "--new_tokens", "1"});
  if (problem.contains("No module named 'torch'"))
    QSKIP("make_tiny_llm.py needs python3-torch");
  QVERIFY2(problem.isEmpty(), qPrintable(problem));
  problem = guitest::runPython(TPUC_CHAT_TOKENIZER_SCRIPT, {folder});
  QVERIFY2(problem.isEmpty(), qPrintable(problem));

  qputenv("TPUC", TPUC_ENGINE);
  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  window.startup(QString());
  window.resize(1700, 1050);
  QString error;
  QVERIFY2(context.saveAs(dir.filePath("chat.tpuproj"), &error), qPrintable(error));

  project::LlmConvertSettings settings;
  settings.seqLength = 96;
  settings.quantize = "bf16";
  settings.useHistoryKv = true;
  settings.chunkLength = 8;
  auto normalized = normalizeLlmSettings(settings, 4096, &error);
  QVERIFY2(normalized, qPrintable(error));
  QSignalSpy imported(&window, &MainWindow::modelImported);
  window.importHfModel(folder, *normalized, /*convert=*/false);
  QVERIFY(imported.wait(10000));

  // Not converted yet: the chat says so and how to convert.
  LlmChatView *chat = window.openLlmChat();
  QVERIFY(chat);
  QVERIFY2(chat->statusText().contains("not converted yet"), qPrintable(chat->statusText()));
  QVERIFY(!chat->isReady());

  // Convert through the studio's job, then the same tab starts the engine.
  QSignalSpy recorded(&window, &MainWindow::runRecorded);
  QVERIFY(window.runLlmConvert() > 0);
  QVERIFY(recorded.wait(120000));
  QCOMPARE(context.project().runs.back().status, std::string("ok"));
  QSignalSpy ready(chat, &LlmChatView::ready);
  QCOMPARE(window.openLlmChat(), chat);
  QVERIFY(ready.wait(30000));
  QCOMPARE(chat->readyEvent().seqLength, int64_t(96));
  QCOMPARE(chat->readyEvent().chunkLength, int64_t(8));
  QVERIFY(chat->findChild<QPushButton *>("attachImage")->isHidden()); // a text model takes no image
  window.show();

  chat->findChild<QSpinBox *>("maxNewTokens")->setValue(6);
  QSignalSpy tokens(chat, &LlmChatView::tokenReceived);
  QSignalSpy finished(chat, &LlmChatView::turnFinished);
  QSignalSpy failed(chat, &LlmChatView::failed);

  // Turn 1: 30 prompt tokens, nothing cached: one block_ chunk of 8, then block_kv_ chunks.
  chat->send("hello there");
  QVERIFY(chat->isBusy());
  QVERIFY(finished.wait(30000));
  QVERIFY2(failed.isEmpty(), qPrintable(chat->statusText()));
  QCOMPARE(chat->turns().size(), std::size_t(1));
  const LlmChatTurn first = chat->turns()[0];
  QCOMPARE(first.turn.promptTokens, int64_t(30));
  QCOMPARE(first.turn.cachedTokens, int64_t(0));
  QCOMPARE(first.steps.front().stage, std::string("prefill"));
  QCOMPARE(first.steps.front().tokens, int64_t(8));
  QVERIFY(hasStage(first, "prefill_kv"));
  QCOMPARE(fedBy(first), int64_t(30));
  QVERIFY(first.done.stop == "max_new_tokens" || first.done.stop == "eos");
  QCOMPARE(first.done.generated, int64_t(first.tokens.size()));
  QCOMPARE(tokens.size(), int(first.tokens.size()));
  for (const driver::LlmServeEvent &t : first.tokens)
    QVERIFY(t.simMs > 0);
  QVERIFY(first.done.firstTokenSimMs > 0);
  QVERIFY(chat->transcriptText().contains("hello there"));
  // Each streamed token tells its time in its tooltip.
  {
    auto *transcript = chat->findChild<QTextBrowser *>("transcript");
    QStringList tips;
    for (QTextBlock b = transcript->document()->begin(); b.isValid(); b = b.next())
      for (auto it = b.begin(); !it.atEnd(); ++it)
        if (!it.fragment().charFormat().toolTip().isEmpty())
          tips << it.fragment().charFormat().toolTip();
    QVERIFY2(tips.size() >= int(first.tokens.size()) - 1, qPrintable(tips.join('\n')));
    QVERIFY2(tips.front().startsWith("token 1 (id ") && tips.front().contains("ms simulated"),
             qPrintable(tips.front()));
  }
  QVERIFY2(chat->statusText().contains("tokens/s simulated"), qPrintable(chat->statusText()));
  QVERIFY2(chat->transcriptText().contains("30 prompt tokens: 0 reused from the KV cache, 30 prefilled"),
           qPrintable(chat->transcriptText()));

  // Turn 2 keeps the conversation in the KV cache: turn 1's prompt is not prefilled again.
  chat->send("and again");
  QVERIFY(finished.wait(30000));
  QCOMPARE(chat->turns().size(), std::size_t(2));
  const LlmChatTurn second = chat->turns()[1];
  QVERIFY2(second.turn.cachedTokens >= first.turn.promptTokens,
           qPrintable(QString("cached %1").arg(second.turn.cachedTokens)));
  QCOMPARE(fedBy(second), second.turn.newTokens);
  QVERIFY(second.turn.newTokens < second.turn.promptTokens);
  QVERIFY(!hasStage(second, "prefill")); // only chunks against the history
  QVERIFY(hasStage(second, "prefill_kv"));
  QCOMPARE(second.steps.front().position, second.turn.cachedTokens);

  // The timeline: every step and token of both turns, with their kinds.
  const std::vector<LlmTimelinePoint> &points = chat->timeline()->points();
  QCOMPARE(points.size(),
           first.steps.size() + first.tokens.size() + second.steps.size() + second.tokens.size());
  int kinds[4] = {};
  for (size_t i = 0; i < points.size(); ++i) {
    ++kinds[static_cast<int>(points[i].kind)];
    if (i > 0)
      QVERIFY(points[i].startMs >= points[i - 1].startMs + points[i - 1].durationMs - 1e-9);
  }
  QCOMPARE(kinds[0], 1);                                                 // one block_ prefill
  QCOMPARE(kinds[1], int(first.steps.size() - 1 + second.steps.size())); // block_kv_ chunks
  QCOMPARE(kinds[3], 2);                                                 // a first token per turn
  QCOMPARE(points.back().kvAfter, int(second.tokens.back().kvUsed));
  QCOMPARE(chat->timeline()->chart()->series().size(), 5);
  QVERIFY(chat->timeline()->findChild<QLabel *>("timelineSummary")->text().contains("2 turn(s)"));
  QApplication::processEvents();
  QVERIFY(chat->grab().save(screenshotDir() + "/llm-chat-two-turns.png"));
  QVERIFY(chat->timeline()->grab().save(screenshotDir() + "/llm-chat-timeline.png"));

  // Stop: a turn stopped before its first token ends as "stopped", and the chat goes on.
  chat->findChild<QSpinBox *>("maxNewTokens")->setValue(40);
  chat->send("tell me more");
  chat->stop();
  QVERIFY(finished.wait(30000));
  QCOMPARE(finished.last().front().toString(), QString("cancelled"));
  QCOMPARE(chat->turns().back().done.generated, int64_t(0));
  QVERIFY(!chat->isBusy());

  // New conversation: empty transcript and cache; the first message is prefilled from nothing again.
  QSignalSpy reset(chat, &LlmChatView::conversationReset);
  chat->newConversation();
  QVERIFY(reset.wait(10000));
  QVERIFY(chat->turns().empty());
  QVERIFY(!chat->transcriptText().contains("hello there"));
  chat->findChild<QSpinBox *>("maxNewTokens")->setValue(4);
  chat->findChild<QCheckBox *>("greedy")->setChecked(false); // sampling through sample_head, seeded
  // The rest in a dark palette: the new turn, the status and the timeline take their colours from it.
  QPalette dark = vis::figurePalette(true);
  dark.setColor(QPalette::Window, QColor(40, 41, 45));
  dark.setColor(QPalette::Button, QColor(50, 51, 55));
  dark.setColor(QPalette::ButtonText, QColor(225, 226, 228));
  dark.setColor(QPalette::AlternateBase, QColor(38, 39, 43));
  chat->setPalette(dark);
  chat->send("hello there");
  QVERIFY(finished.wait(30000));
  QCOMPARE(chat->turns().size(), std::size_t(1));
  QCOMPARE(chat->turns()[0].turn.cachedTokens, int64_t(0));
  QCOMPARE(chat->turns()[0].steps.front().stage, std::string("prefill"));
  QVERIFY2(failed.isEmpty(), qPrintable(chat->statusText()));
  QApplication::processEvents(); // the chart lays out on the event loop
  QVERIFY(chat->grab().save(screenshotDir() + "/llm-chat-after-reset-dark.png"));
  chat->setPalette(QPalette());

  // The three stages of layer 0 side by side, each graph extracted by the engine.
  QTest::mouseClick(chat->findChild<QPushButton *>("layerStages"), Qt::LeftButton);
  auto *stages = qobject_cast<LlmStagesView *>(window.centralTabs()->currentWidget());
  QVERIFY(stages);
  QCOMPARE(stages->graphs().size(), 3);
  const QStringList names = {"block_0.mlir", "block_kv_0.mlir", "block_cache_0.mlir"};
  // The extractions start when the event loop runs: every spy is in place before that.
  std::vector<std::unique_ptr<QSignalSpy>> loaded;
  for (GraphViewTab *graph : stages->graphs())
    loaded.push_back(std::make_unique<QSignalSpy>(graph, &GraphViewTab::loaded));
  for (int i = 0; i < 3; ++i) {
    QCOMPARE(QFileInfo(stages->graphs()[i]->mlirPath()).fileName(), names[i]);
    QVERIFY(loaded[i]->size() > 0 || loaded[i]->wait(30000));
    QVERIFY2(loaded[i]->front().front().toString().isEmpty(),
             qPrintable(loaded[i]->front().front().toString()));
  }
  QApplication::processEvents();
  QVERIFY(stages->grab().save(screenshotDir() + "/llm-layer-stages.png"));
  qunsetenv("TPUC");
}

void TestLlmChat::engineFailureIsOneClearLine() {
  // A model file the engine cannot read: the child exits with tpuc's one line, and the chat shows it.
  QTemporaryDir dir;
  QFile bad(dir.filePath("broken.tpum"));
  QVERIFY(bad.open(QIODevice::WriteOnly));
  bad.write("not a model file");
  bad.close();
  qputenv("TPUC", TPUC_ENGINE);
  LlmChatView chat(dir.path());
  QSignalSpy failed(&chat, &LlmChatView::failed);
  QVERIFY(failed.wait(30000));
  QVERIFY2(chat.statusText().startsWith("The engine stopped with exit code 2: tpuc llm-run: ") &&
               chat.statusText().contains("broken.tpum"),
           qPrintable(chat.statusText()));
  QVERIFY(!chat.isReady());
  QVERIFY(!chat.findChild<QPushButton *>("stop")->isEnabled());

  // An engine that is not there.
  qputenv("TPUC", QFile::encodeName(dir.filePath("no-such-tpuc")));
  LlmChatView missing(dir.path());
  QSignalSpy failedToStart(&missing, &LlmChatView::failed);
  QVERIFY(missing.statusText().startsWith("The tpuc engine was not found") || failedToStart.wait(10000));
  QVERIFY2(missing.statusText().startsWith("The tpuc engine was not found at "),
           qPrintable(missing.statusText()));
  qunsetenv("TPUC");
}

void TestLlmChat::chatAboutAnImage() {
  // A tiny InternVL-shaped VLM converted by tpuc: the chat offers "Image…", and a message with the image
  // answers with the greedy tokens of make_tiny_vlm.py's PyTorch reference.
  QTemporaryDir dir;
  const QString folder = dir.filePath("tiny-internvl");
  QString problem = guitest::runPython(TPUC_TINY_VLM_SCRIPT, {"--out", folder, "--dtype", "f32"});
  if (problem.contains("No module named 'torch'"))
    QSKIP("make_tiny_vlm.py needs python3-torch");
  QVERIFY2(problem.isEmpty(), qPrintable(problem));
  QProcess convert;
  convert.start(TPUC_ENGINE,
                {"llm-convert", "-m", folder, "-s", "128", "-q", "f32", "-o", dir.filePath("out")});
  QVERIFY(convert.waitForFinished(120000));
  QVERIFY2(convert.exitCode() == 0, convert.readAllStandardError().constData());

  qputenv("TPUC", TPUC_ENGINE);
  LlmChatView chat(dir.filePath("out"));
  QSignalSpy ready(&chat, &LlmChatView::ready);
  QVERIFY(ready.wait(30000));
  QCOMPARE(chat.readyEvent().imageTokens, int64_t(16));
  auto *imageButton = chat.findChild<QPushButton *>("attachImage");
  QVERIFY(imageButton && !imageButton->isHidden());
  chat.findChild<QSpinBox *>("maxNewTokens")->setValue(8);
  chat.setImage(folder + "/pixel_values.npy");
  QCOMPARE(imageButton->text(), QString("Image: pixel_values.npy"));
  QSignalSpy finished(&chat, &LlmChatView::turnFinished);
  chat.send("what?");
  QVERIFY(chat.image().isEmpty()); // one message takes the image
  QVERIFY(finished.wait(60000));
  QCOMPARE(chat.turns().size(), std::size_t(1));
  const LlmChatTurn &turn = chat.turns()[0];
  NpzFile reference = NpzFile::read((folder + "/reference.npz").toStdString());
  QCOMPARE(turn.turn.promptTokens, int64_t(reference.get("input_ids").numElements()));
  std::vector<double> want = reference.get("tokens").toDoubles();
  QCOMPARE(turn.tokens.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    QCOMPARE(turn.tokens[i].token, int64_t(want[i]));
  QVERIFY(chat.transcriptText().contains("[pixel_values.npy]"));
  chat.resize(1100, 700);
  chat.show();
  QApplication::processEvents();
  QVERIFY(chat.grab().save(screenshotDir() + "/llm-chat-image.png"));
  qunsetenv("TPUC");
}

QTEST_MAIN(TestLlmChat)
#include "tst_llmchat.moc"
