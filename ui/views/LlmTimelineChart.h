// The LLM timeline: every prefill chunk and decode step of a conversation on its simulated time axis, with
// the KV cache's occupancy (Qt Charts). Plain data in, no engine and no app state.
#ifndef TPUC_UI_VIEWS_LLMTIMELINECHART_H
#define TPUC_UI_VIEWS_LLMTIMELINECHART_H

#include <QWidget>

#include <vector>

class QChart;
class QChartView;
class QLabel;

namespace tpuc::ui {

/// One stage run of the conversation, as `tpuc llm-run --serve` reported it.
struct LlmTimelinePoint {
  enum class Kind {
    Prefill,   ///< embedding + block_i: the first chunk into an empty cache
    PrefillKv, ///< embedding + block_kv_i: a chunk against the cached history
    Decode,    ///< embedding_cache + block_cache_i (+ lm_head and head): one generated token
    Head,      ///< lm_head and the head choosing the first token after the prefill
  };
  Kind kind = Kind::Decode;
  int turn = 0;
  double startMs = 0;    ///< simulated time since the conversation started
  double durationMs = 0; ///< simulated time of this step
  double wallMs = 0;
  int tokens = 0;  ///< tokens fed (prefill chunks) or 1
  int kvAfter = 0; ///< tokens in the KV cache after it
};

/// The stage name the engine uses for `kind` ("prefill", "prefill_kv", "decode", "lm_head").
QString timelineKindName(LlmTimelinePoint::Kind kind);

class LlmTimelineChart : public QWidget {
  Q_OBJECT
public:
  explicit LlmTimelineChart(QWidget *parent = nullptr);

  /// Replaces the points; `seqLength` scales the KV axis.
  void setPoints(const std::vector<LlmTimelinePoint> &points, int seqLength);
  const std::vector<LlmTimelinePoint> &points() const { return m_points; }
  QChart *chart() const { return m_chart; }

protected:
  void changeEvent(QEvent *event) override;

private:
  void rebuild();

  std::vector<LlmTimelinePoint> m_points;
  int m_seqLength = 0;
  QChart *m_chart;
  QChartView *m_view;
  QLabel *m_summary;
};

} // namespace tpuc::ui

#endif
