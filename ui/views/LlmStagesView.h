// The three stages llm-convert builds from one decoder layer's weights, side by side: prefill (block_i),
// prefill with the history KV (block_kv_i) and decode (block_cache_i), each in a graph view of its Top IR.
#ifndef TPUC_UI_VIEWS_LLMSTAGESVIEW_H
#define TPUC_UI_VIEWS_LLMSTAGESVIEW_H

#include <QStringList>
#include <QWidget>

namespace tpuc::ui {

class GraphViewTab;
class StudioContext;

class LlmStagesView : public QWidget {
  Q_OBJECT
public:
  /// The stages of decoder layer `layer` in llm-convert's output folder `folder` (`<stage>.mlir`); a stage
  /// the conversion did not build (block_kv_ without --use_history_kv) says so in its place.
  LlmStagesView(StudioContext *context, const QString &folder, int layer, QWidget *parent = nullptr);

  QString folder() const { return m_folder; }
  int layer() const { return m_layer; }
  /// The graph views of the stages that exist, in the order prefill, prefill with history KV, decode.
  const QList<GraphViewTab *> &graphs() const { return m_graphs; }

private:
  QString m_folder;
  int m_layer;
  QList<GraphViewTab *> m_graphs;
};

} // namespace tpuc::ui

#endif
