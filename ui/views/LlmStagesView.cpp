// The stages of one decoder layer side by side.
#include "ui/views/LlmStagesView.h"

#include "ui/views/GraphViewTab.h"

#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

namespace tpuc::ui {

LlmStagesView::LlmStagesView(StudioContext *context, const QString &folder, int layer, QWidget *parent)
    : QWidget(parent), m_folder(folder), m_layer(layer) {
  auto *layout = new QVBoxLayout(this);
  auto *header = new QLabel(tr("Decoder layer %1: the three stages llm-convert builds from its weights "
                               "(layer_%1.npz). Prefill takes "
                               "max_input_length tokens into an empty cache; prefill with history KV takes a "
                               "chunk against the cached "
                               "keys and values; decode takes one token against seq_length cached positions.")
                                .arg(layer),
                            this);
  header->setWordWrap(true);
  layout->addWidget(header);
  auto *splitter = new QSplitter(Qt::Horizontal, this);
  const QString n = QString::number(layer);
  const struct {
    QString stage, title;
  } stages[] = {{"block_" + n, tr("Prefill (block_%1)").arg(n)},
                {"block_kv_" + n, tr("Prefill with history KV (block_kv_%1)").arg(n)},
                {"block_cache_" + n, tr("Decode (block_cache_%1)").arg(n)}};
  for (const auto &s : stages) {
    auto *pane = new QWidget(splitter);
    auto *paneLayout = new QVBoxLayout(pane);
    paneLayout->setContentsMargins(0, 0, 0, 0);
    auto *title = new QLabel(QStringLiteral("<b>%1</b>").arg(s.title.toHtmlEscaped()), pane);
    paneLayout->addWidget(title);
    const QString path = QDir(folder).filePath(s.stage + QStringLiteral(".mlir"));
    if (QFileInfo::exists(path)) {
      auto *graph = new GraphViewTab(context, path, pane);
      paneLayout->addWidget(graph, 1);
      m_graphs << graph;
    } else {
      auto *missing =
          new QLabel(tr("%1 was not built (block_kv_ stages need --use_history_kv; the Top IR of every "
                        "stage is in llm-convert's output folder once it ran).")
                         .arg(QFileInfo(path).fileName()),
                     pane);
      missing->setWordWrap(true);
      missing->setAlignment(Qt::AlignTop | Qt::AlignLeft);
      paneLayout->addWidget(missing, 1);
    }
    splitter->addWidget(pane);
  }
  layout->addWidget(splitter, 1);
}

} // namespace tpuc::ui
