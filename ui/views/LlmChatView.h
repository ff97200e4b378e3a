// The chat with a converted LLM: a `tpuc llm-run --serve` child (EngineClient::serve) speaking the JSON
// lines of tpuc/Driver/LlmServe.h; tokens stream into the transcript as the simulator chooses them, with
// each token's simulated and wall time in its tooltip, and the conversation's stage runs on a timeline.
#ifndef TPUC_UI_VIEWS_LLMCHATVIEW_H
#define TPUC_UI_VIEWS_LLMCHATVIEW_H

#include "tpuc/Driver/LlmServe.h"
#include "ui/views/LlmTimelineChart.h"

#include <QWidget>

#include <vector>

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTextBrowser;

namespace tpuc::ui {

class EngineSession;

/// One turn of the conversation as the engine reported it.
struct LlmChatTurn {
  QString user, answer;
  driver::LlmServeEvent turn; ///< prompt, cached and new tokens
  driver::LlmServeEvent done; ///< stop reason and timing (event empty while running)
  std::vector<driver::LlmServeEvent> steps, tokens;
};

class LlmChatView : public QWidget {
  Q_OBJECT
public:
  /// A chat with the model file in `modelFolder` (llm-convert's output folder, or a .tpum); starts the
  /// engine at once when the folder holds a model file, else says how to convert it.
  explicit LlmChatView(const QString &modelFolder, QWidget *parent = nullptr);
  ~LlmChatView() override;

  QString modelFolder() const { return m_folder; }
  /// Starts (or restarts) the engine child; false with the reason in the status line.
  bool start();
  bool isReady() const { return m_ready; }
  bool isBusy() const { return m_busy; }
  /// Sends a user message with the current settings (queued by the engine when a turn runs).
  void send(const QString &message);
  /// A vision-language model's image (a picture or a .npy/.npz pixel tensor) for the next message sent;
  /// empty: none. The "Image…" button, shown when the model has a vit net, picks it.
  void setImage(const QString &path);
  QString image() const { return m_image; }
  /// Stops the turn being generated (what was generated stays in the conversation).
  void stop();
  /// Empties the conversation and the KV cache.
  void newConversation();

  const std::vector<LlmChatTurn> &turns() const { return m_turns; }
  const driver::LlmServeEvent &readyEvent() const { return m_readyEvent; }
  LlmTimelineChart *timeline() const { return m_timeline; }
  QString statusText() const;
  QString transcriptText() const;
  /// The request the settings widgets make for `message`.
  driver::LlmServeRequest request(const QString &message) const;

Q_SIGNALS:
  void ready();
  void tokenReceived(int index);
  void turnFinished(const QString &stop);
  void conversationReset();
  /// "Layer Stages": show the stages of a decoder layer (the window opens them).
  void layerStagesRequested();
  /// The engine reported an error line or the child failed; the message is in the status line too.
  void failed(const QString &message);

private:
  void onLine(const QByteArray &line);
  void handle(const driver::LlmServeEvent &event);
  void setStatus(const QString &text, bool error = false);
  void updateControls();
  void appendBlock(const QString &html);
  void appendToken(const driver::LlmServeEvent &token);
  void updateTimeline();

  QString m_folder;
  EngineSession *m_session = nullptr;
  bool m_ready = false, m_busy = false;
  int m_requests = 0;
  driver::LlmServeEvent m_readyEvent;
  std::vector<LlmChatTurn> m_turns;
  std::vector<LlmTimelinePoint> m_points;
  double m_clockMs = 0; ///< simulated time of the conversation so far
  QTextBrowser *m_transcript;
  QLineEdit *m_input;
  QPushButton *m_sendButton, *m_stopButton, *m_resetButton, *m_restartButton;
  /// A vision-language model's image for the next message (empty: none) and the button that picks it.
  QPushButton *m_imageButton = nullptr;
  QString m_image;
  QCheckBox *m_greedy;
  QDoubleSpinBox *m_temperature, *m_topP;
  QSpinBox *m_topK, *m_seed, *m_maxTokens;
  QLabel *m_status, *m_header;
  LlmTimelineChart *m_timeline;
};

/// The model file a chat opens in `folder` (the one .tpum in it, or `folder` itself when it is a file);
/// empty with the reason in `why`.
QString llmModelFileIn(const QString &folder, QString *why);

} // namespace tpuc::ui

#endif
