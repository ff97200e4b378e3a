// The chat with a converted LLM over `tpuc llm-run --serve`.
#include "ui/views/LlmChatView.h"
#include "visualizer/ChartTheme.h"

#include "ui/jobs/EngineClient.h"

#include <QCheckBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QTextBlockFormat>
#include <QTextBrowser>
#include <QTextCharFormat>
#include <QTextCursor>
#include <QVBoxLayout>

namespace tpuc::ui {
namespace {

using vis::blend;

QString ms(double v) { return QString::number(v, 'f', v < 1 ? 4 : v < 100 ? 3 : 1); }

QString stopText(const std::string &stop) {
  if (stop == "eos")
    return QObject::tr("end of turn");
  if (stop == "max_new_tokens")
    return QObject::tr("max new tokens");
  if (stop == "context_full")
    return QObject::tr("context full");
  if (stop == "cancelled")
    return QObject::tr("stopped");
  return QString::fromStdString(stop);
}

} // namespace

QString llmModelFileIn(const QString &folder, QString *why) {
  QFileInfo info(folder);
  if (info.isFile())
    return info.absoluteFilePath();
  if (!info.isDir()) {
    *why = QObject::tr("The model is not converted yet: %1 does not exist. Run ▸ Convert LLM (F6) writes it.")
               .arg(folder);
    return {};
  }
  const QStringList files = QDir(folder).entryList({QStringLiteral("*.tpum")}, QDir::Files, QDir::Name);
  if (files.size() == 1)
    return QDir(folder).absoluteFilePath(files.front());
  *why = files.isEmpty()
             ? QObject::tr("The model is not converted yet: %1 holds no model file. Run ▸ Convert "
                           "LLM (F6), then chat.")
                   .arg(folder)
             : QObject::tr("%1 holds several model files; the chat needs exactly one.").arg(folder);
  return {};
}

LlmChatView::LlmChatView(const QString &modelFolder, QWidget *parent)
    : QWidget(parent), m_folder(modelFolder) {
  auto *layout = new QVBoxLayout(this);
  m_header = new QLabel(this);
  m_header->setObjectName("chatHeader");
  m_header->setWordWrap(true);
  m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto *headerRow = new QHBoxLayout;
  headerRow->addWidget(m_header, 1);
  auto *stages = new QPushButton(tr("Decoder Layer Stages"), this);
  stages->setObjectName("layerStages");
  stages->setToolTip(tr("The prefill, prefill-with-history-KV and decode stages of layer 0, side by side"));
  connect(stages, &QPushButton::clicked, this, &LlmChatView::layerStagesRequested);
  headerRow->addWidget(stages);
  layout->addLayout(headerRow);

  auto *splitter = new QSplitter(Qt::Vertical, this);
  auto *top = new QWidget(splitter);
  auto *topLayout = new QHBoxLayout(top);
  topLayout->setContentsMargins(0, 0, 0, 0);

  auto *chat = new QWidget(top);
  auto *chatLayout = new QVBoxLayout(chat);
  chatLayout->setContentsMargins(0, 0, 0, 0);
  m_transcript = new QTextBrowser(chat);
  m_transcript->setObjectName("transcript");
  m_transcript->setOpenLinks(false);
  chatLayout->addWidget(m_transcript, 1);
  auto *inputRow = new QHBoxLayout;
  m_input = new QLineEdit(chat);
  m_input->setObjectName("message");
  m_input->setPlaceholderText(tr("Message the model (Enter sends)"));
  m_imageButton = new QPushButton(tr("Image…"), chat);
  m_imageButton->setObjectName("attachImage");
  m_imageButton->setToolTip(
      tr("A vision-language model: attach a picture (or a .npy pixel tensor) to the next "
         "message; its vit net's image tokens go before your text"));
  m_sendButton = new QPushButton(tr("Send"), chat);
  m_stopButton = new QPushButton(tr("Stop"), chat);
  m_stopButton->setToolTip(tr("Stop generating this answer; what was generated stays in the conversation"));
  m_resetButton = new QPushButton(tr("New Conversation"), chat);
  m_resetButton->setToolTip(tr("Forget the conversation and empty the KV cache"));
  m_restartButton = new QPushButton(tr("Restart Engine"), chat);
  m_restartButton->setToolTip(tr("Start the tpuc child again (after a conversion or a failure)"));
  // The message gets the row's room (at least ~30 characters); the conversation's own buttons sit under it,
  // beside the status line.
  m_input->setMinimumWidth(m_input->fontMetrics().averageCharWidth() * 30);
  inputRow->addWidget(m_imageButton);
  inputRow->addWidget(m_input, 1);
  for (QPushButton *b : {m_sendButton, m_stopButton})
    inputRow->addWidget(b);
  chatLayout->addLayout(inputRow);
  auto *statusRow = new QHBoxLayout;
  m_status = new QLabel(chat);
  m_status->setObjectName("chatStatus");
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  statusRow->addWidget(m_status, 1);
  for (QPushButton *b : {m_resetButton, m_restartButton})
    statusRow->addWidget(b, 0, Qt::AlignTop);
  chatLayout->addLayout(statusRow);
  topLayout->addWidget(chat, 1);

  auto *settings = new QGroupBox(tr("Generation"), top);
  auto *form = new QFormLayout(settings);
  m_greedy = new QCheckBox(tr("Greedy (top-1, greedy_head)"), settings);
  m_greedy->setChecked(true);
  m_temperature = new QDoubleSpinBox(settings);
  m_temperature->setRange(0.05, 5.0);
  m_temperature->setSingleStep(0.05);
  m_temperature->setValue(0.7);
  m_topP = new QDoubleSpinBox(settings);
  m_topP->setRange(0.01, 1.0);
  m_topP->setSingleStep(0.05);
  m_topP->setValue(0.9);
  m_topK = new QSpinBox(settings);
  m_topK->setRange(1, 1000);
  m_topK->setValue(40);
  m_seed = new QSpinBox(settings);
  m_seed->setRange(0, 2147483647);
  m_seed->setValue(42);
  m_seed->setToolTip(tr("The draws are seeded again at every message, so a turn repeats with the same seed"));
  m_maxTokens = new QSpinBox(settings);
  m_maxTokens->setRange(1, 32768);
  m_maxTokens->setValue(64);
  m_greedy->setObjectName("greedy");
  m_temperature->setObjectName("temperature");
  m_topP->setObjectName("topP");
  m_topK->setObjectName("topK");
  m_seed->setObjectName("seed");
  m_maxTokens->setObjectName("maxNewTokens");
  m_stopButton->setObjectName("stop");
  m_resetButton->setObjectName("newConversation");
  form->addRow(m_greedy);
  form->addRow(tr("Temperature"), m_temperature);
  form->addRow(tr("Top-p"), m_topP);
  form->addRow(tr("Top-k"), m_topK);
  form->addRow(tr("Seed"), m_seed);
  form->addRow(tr("Max new tokens"), m_maxTokens);
  topLayout->addWidget(settings);

  m_timeline = new LlmTimelineChart(splitter);
  splitter->addWidget(top);
  splitter->addWidget(m_timeline);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  layout->addWidget(splitter, 1);

  connect(m_input, &QLineEdit::returnPressed, this, [this] { send(m_input->text()); });
  connect(m_sendButton, &QPushButton::clicked, this, [this] { send(m_input->text()); });
  connect(m_imageButton, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Attach Image"), QString(),
        tr("Images and pixel tensors (*.jpg *.jpeg *.png *.bmp *.webp *.npy *.npz)"));
    if (!path.isEmpty())
      setImage(path);
  });
  connect(m_stopButton, &QPushButton::clicked, this, &LlmChatView::stop);
  connect(m_resetButton, &QPushButton::clicked, this, &LlmChatView::newConversation);
  connect(m_restartButton, &QPushButton::clicked, this, &LlmChatView::start);
  connect(m_greedy, &QCheckBox::toggled, this, &LlmChatView::updateControls);
  m_header->setText(tr("Model folder %1").arg(QDir::toNativeSeparators(m_folder)));
  start();
}

LlmChatView::~LlmChatView() = default; // the session is a child: deleting it kills and reaps the engine

bool LlmChatView::start() {
  delete m_session;
  m_session = nullptr;
  m_ready = m_busy = false;
  QString why;
  const QString file = llmModelFileIn(m_folder, &why);
  if (file.isEmpty()) {
    setStatus(why, true);
    updateControls();
    return false;
  }
  driver::LlmRunOptions request;
  request.model = file.toStdString();
  request.serve = true;
  EngineClient::Served served = EngineClient::serve(request, this);
  if (!served.session) {
    setStatus(served.error, true);
    updateControls();
    return false;
  }
  m_session = served.session;
  connect(m_session, &EngineSession::lineReceived, this, &LlmChatView::onLine);
  connect(m_session, &EngineSession::failedToStart, this, [this] {
    setStatus(tr("The tpuc engine was not found at %1").arg(tpucPath()), true);
    Q_EMIT failed(m_status->text());
  });
  connect(m_session, &EngineSession::finished, this, [this](int code, const QString &stderrText) {
    m_ready = m_busy = false;
    const QString last = stderrText.section('\n', -3);
    setStatus(code == 0  ? tr("The engine ended. Restart Engine starts it again.")
              : code < 0 ? tr("The engine crashed: %1").arg(last)
                         : tr("The engine stopped with exit code %1: %2").arg(code).arg(last),
              code != 0);
    updateControls();
    if (code != 0)
      Q_EMIT failed(m_status->text());
  });
  m_header->setText(tr("Model %1").arg(QDir::toNativeSeparators(file)));
  setStatus(tr("Loading the model on the simulator…"));
  updateControls();
  m_session->start();
  return true;
}

driver::LlmServeRequest LlmChatView::request(const QString &message) const {
  driver::LlmServeRequest r;
  r.type = driver::LlmServeRequest::Type::Chat;
  r.message = message.toStdString();
  r.id = std::to_string(m_requests + 1);
  const bool greedy = m_greedy->isChecked() || !m_greedy->isEnabled();
  r.greedy = greedy;
  if (!greedy) {
    r.topK = m_topK->value();
    r.topP = m_topP->value();
    r.temperature = m_temperature->value();
    r.seed = m_seed->value();
  }
  r.maxNewTokens = m_maxTokens->value();
  r.image = m_image.toStdString();
  return r;
}

void LlmChatView::setImage(const QString &path) {
  m_image = path;
  m_imageButton->setText(path.isEmpty() ? tr("Image…") : tr("Image: %1").arg(QFileInfo(path).fileName()));
  m_imageButton->setToolTip(path.isEmpty() ? tr("Attach a picture to the next message") : path);
}

void LlmChatView::send(const QString &message) {
  const QString text = message.trimmed();
  if (text.isEmpty() || !m_session || !m_ready)
    return;
  driver::LlmServeRequest r = request(text);
  if (!m_session->send(QByteArray::fromStdString(driver::toJsonLine(r))))
    return;
  ++m_requests;
  m_input->clear();
  LlmChatTurn turn;
  turn.user = text;
  m_turns.push_back(turn);
  appendBlock(
      QStringLiteral("<b>%1</b> %2%3")
          .arg(tr("You:"), text.toHtmlEscaped(),
               m_image.isEmpty()
                   ? QString()
                   : QStringLiteral(" <i>[%1]</i>").arg(QFileInfo(m_image).fileName().toHtmlEscaped())));
  setImage(QString()); // an image goes with one message
  m_busy = true;
  setStatus(tr("Prefilling…"));
  updateControls();
}

void LlmChatView::stop() {
  if (m_session && m_busy)
    m_session->send(QByteArray::fromStdString(
        driver::toJsonLine(driver::LlmServeRequest{driver::LlmServeRequest::Type::Stop})));
}

void LlmChatView::newConversation() {
  if (!m_session || !m_ready)
    return;
  stop();
  driver::LlmServeRequest r;
  r.type = driver::LlmServeRequest::Type::Reset;
  m_session->send(QByteArray::fromStdString(driver::toJsonLine(r)));
}

void LlmChatView::onLine(const QByteArray &line) {
  driver::ReadResult<driver::LlmServeEvent> event = driver::parseLlmServeEvent(line.toStdString());
  if (!event) {
    // Not an event (a stray line of the engine): shown, never fatal.
    setStatus(tr("Unexpected line from the engine: %1 (%2)")
                  .arg(QString::fromUtf8(line.left(200)), QString::fromStdString(event.error)),
              true);
    return;
  }
  handle(event.result);
}

void LlmChatView::handle(const driver::LlmServeEvent &e) {
  if (e.event == "ready") {
    m_readyEvent = e;
    m_ready = true;
    const bool sampling = e.sampleCandidates > 0;
    m_greedy->setEnabled(sampling);
    m_greedy->setToolTip(sampling
                             ? tr("Off: sample among the sample head's %1 candidates").arg(e.sampleCandidates)
                             : tr("The model has no sample_head: only greedy decoding"));
    QStringList buckets;
    for (int64_t b : e.buckets)
      buckets << QString::number(b);
    m_header->setText(
        tr("<b>%1</b> on the %2 simulator · %3 layers · context %4 tokens · prefill %5 tokens%6%7")
            .arg(QFileInfo(QString::fromStdString(e.model)).fileName().toHtmlEscaped(),
                 QString::fromStdString(e.chip))
            .arg(e.layers)
            .arg(e.seqLength)
            .arg(e.maxInputLength)
            .arg(buckets.isEmpty() ? QString() : tr(" (buckets %1)").arg(buckets.join(QLatin1Char('/'))))
            .arg(e.chunkLength ? tr(" · history-KV chunks of %1").arg(e.chunkLength) : QString()) +
        (e.imageTokens ? tr(" · vision: %1 tokens per image").arg(e.imageTokens) : QString()));
    setStatus(tr("Ready."));
    updateControls();
    updateTimeline();
    Q_EMIT ready();
  } else if (e.event == "turn" && !m_turns.empty()) {
    m_turns.back().turn = e;
    setStatus(
        tr("Prefilling %1 new tokens (%2 reused from the KV cache)…").arg(e.newTokens).arg(e.cachedTokens));
    appendBlock(QStringLiteral("<b>%1</b> ").arg(tr("Model:")));
  } else if (e.event == "step" && !m_turns.empty()) {
    m_turns.back().steps.push_back(e);
    LlmTimelinePoint p;
    p.kind = e.stage == "prefill"      ? LlmTimelinePoint::Kind::Prefill
             : e.stage == "prefill_kv" ? LlmTimelinePoint::Kind::PrefillKv
                                       : LlmTimelinePoint::Kind::Decode;
    p.turn = static_cast<int>(m_turns.size()) - 1;
    p.startMs = m_clockMs;
    p.durationMs = e.simMs;
    p.wallMs = e.wallMs;
    p.tokens = static_cast<int>(e.tokens);
    p.kvAfter = static_cast<int>(e.kvUsed);
    m_clockMs += e.simMs;
    m_points.push_back(p);
  } else if (e.event == "token" && !m_turns.empty()) {
    m_turns.back().tokens.push_back(e);
    m_turns.back().answer += QString::fromStdString(e.text);
    appendToken(e);
    LlmTimelinePoint p;
    p.kind = e.index == 0 ? LlmTimelinePoint::Kind::Head : LlmTimelinePoint::Kind::Decode;
    p.turn = static_cast<int>(m_turns.size()) - 1;
    p.startMs = m_clockMs;
    p.durationMs = e.simMs;
    p.wallMs = e.wallMs;
    p.tokens = 1;
    p.kvAfter = static_cast<int>(e.kvUsed);
    m_clockMs += e.simMs;
    m_points.push_back(p);
    setStatus(tr("Token %1: %2 ms simulated, %3 ms wall · KV cache %4 of %5 tokens")
                  .arg(e.index + 1)
                  .arg(ms(e.simMs), ms(e.wallMs))
                  .arg(e.kvUsed)
                  .arg(m_readyEvent.seqLength));
    Q_EMIT tokenReceived(static_cast<int>(e.index));
  } else if (e.event == "done" && !m_turns.empty()) {
    m_turns.back().done = e;
    m_busy = false;
    const QString summary =
        tr("%1 tokens (%2) · first token %3 ms simulated (%4 ms wall) · decode %5 tokens/s simulated (%6 "
           "wall) · "
           "%7 prompt tokens: %8 reused from the KV cache, %9 prefilled · KV cache %10 of %11")
            .arg(e.generated)
            .arg(stopText(e.stop))
            .arg(ms(e.firstTokenSimMs), ms(e.firstTokenWallMs))
            .arg(e.decodeTokensPerS, 0, 'f', 0)
            .arg(e.wallDecodeTokensPerS, 0, 'f', 0)
            .arg(e.promptTokens)
            .arg(e.cachedTokens)
            .arg(e.promptTokens - e.cachedTokens)
            .arg(e.kvUsed)
            .arg(m_readyEvent.seqLength);
    const QColor dim = blend(palette().color(QPalette::Base), palette().color(QPalette::Text), 0.6);
    appendBlock(QStringLiteral("<span style='color:%1'><small>%2</small></span>")
                    .arg(dim.name(), summary.toHtmlEscaped()));
    setStatus(
        tr("Done: %1 tokens (%2) · first token %3 ms simulated · decode %4 tokens/s simulated · %5 of %6 "
           "prompt tokens from the KV cache")
            .arg(e.generated)
            .arg(stopText(e.stop), ms(e.firstTokenSimMs))
            .arg(e.decodeTokensPerS, 0, 'f', 0)
            .arg(e.cachedTokens)
            .arg(e.promptTokens));
    updateControls();
    updateTimeline();
    Q_EMIT turnFinished(QString::fromStdString(e.stop));
  } else if (e.event == "reset") {
    m_turns.clear();
    m_transcript->clear();
    m_busy = false;
    setStatus(tr("New conversation: the KV cache is empty."));
    updateControls();
    updateTimeline();
    Q_EMIT conversationReset();
  } else if (e.event == "notice") {
    setStatus(QString::fromStdString(e.message));
  } else if (e.event == "error") {
    // A turn that failed never sends done: it is over too.
    if (m_busy && !m_turns.empty() && m_turns.back().done.event.empty() && e.id == std::to_string(m_requests))
      m_busy = false;
    setStatus(tr("Engine: %1").arg(QString::fromStdString(e.message)), true);
    updateControls();
    Q_EMIT failed(m_status->text());
  }
}

void LlmChatView::appendBlock(const QString &html) {
  QTextCursor cursor(m_transcript->document());
  cursor.movePosition(QTextCursor::End);
  // Each message, answer and summary is a paragraph of its own, not carrying the last token's tint.
  if (!m_transcript->document()->isEmpty()) {
    QTextBlockFormat block;
    block.setTopMargin(fontMetrics().height() * 0.4);
    cursor.insertBlock(block, QTextCharFormat());
  }
  cursor.insertHtml(html);
  m_transcript->verticalScrollBar()->setValue(m_transcript->verticalScrollBar()->maximum());
}

void LlmChatView::appendToken(const driver::LlmServeEvent &e) {
  QTextCursor cursor(m_transcript->document());
  cursor.movePosition(QTextCursor::End);
  QTextCharFormat format;
  // Token boundaries show as alternating tints; each token tells its time.
  const QPalette pal = palette();
  format.setBackground(
      blend(pal.color(QPalette::Base), pal.color(QPalette::Highlight), e.index % 2 ? 0.22 : 0.10));
  format.setForeground(pal.color(QPalette::Text));
  format.setToolTip(tr("token %1 (id %2): %3 ms simulated, %4 ms wall; KV cache %5 tokens")
                        .arg(e.index + 1)
                        .arg(e.token)
                        .arg(ms(e.simMs), ms(e.wallMs))
                        .arg(e.kvUsed));
  // A special token (end of turn) has no text: a thin mark keeps it visible.
  cursor.insertText(e.text.empty() ? QStringLiteral("\u2038") : QString::fromStdString(e.text), format);
  m_transcript->verticalScrollBar()->setValue(m_transcript->verticalScrollBar()->maximum());
}

void LlmChatView::updateTimeline() {
  m_timeline->setPoints(m_points, static_cast<int>(m_readyEvent.seqLength));
}

void LlmChatView::setStatus(const QString &text, bool error) {
  m_status->setText(text);
  QPalette pal = palette();
  if (error)
    pal.setColor(QPalette::WindowText, QColor(0xd5, 0x5e, 0x00));
  m_status->setPalette(pal);
}

void LlmChatView::updateControls() {
  const bool running = m_session && m_ready;
  m_input->setEnabled(running);
  m_imageButton->setVisible(m_ready && m_readyEvent.imageTokens > 0);
  m_imageButton->setEnabled(running && !m_busy);
  m_sendButton->setEnabled(running && !m_busy);
  m_stopButton->setEnabled(running && m_busy);
  m_resetButton->setEnabled(running);
  const bool sampling = m_greedy->isEnabled() && !m_greedy->isChecked();
  for (QWidget *w : {static_cast<QWidget *>(m_temperature), static_cast<QWidget *>(m_topP),
                     static_cast<QWidget *>(m_topK), static_cast<QWidget *>(m_seed)})
    w->setEnabled(sampling);
}

QString LlmChatView::statusText() const { return m_status->text(); }
QString LlmChatView::transcriptText() const { return m_transcript->toPlainText(); }

} // namespace tpuc::ui
