// The overview tab.
#include "ui/views/OverviewView.h"

#include "visualizer/HistogramView.h"

#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QVBoxLayout>

namespace tpuc::ui {

OverviewView::OverviewView(StudioContext *context, QWidget *parent)
    : QWidget(parent), m_context(context), m_summary(new QLabel), m_thresholds(new vis::HistogramView) {
  auto *layout = new QVBoxLayout(this);
  m_summary->setTextFormat(Qt::RichText);
  m_summary->setWordWrap(true);
  m_summary->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_summary);
  m_chat = new QPushButton(tr("Chat with Model"), this);
  m_chat->setObjectName("chatWithModel");
  m_chat->setToolTip(tr("Chat with the converted model on the simulator (Run ▸ Chat with Model)"));
  connect(m_chat, &QPushButton::clicked, this, &OverviewView::chatRequested);
  layout->addWidget(m_chat, 0, Qt::AlignLeft);
  // The way forward on a project that has a model but nothing run yet (the example, a fresh import).
  m_nextStep = new QLabel(this);
  m_nextStep->setWordWrap(true);
  m_nextStep->setObjectName("nextStep");
  layout->addWidget(m_nextStep);
  m_pipeline = new QPushButton(tr("Run Whole Pipeline"), this);
  m_pipeline->setObjectName("runWholePipeline");
  m_pipeline->setToolTip(
      tr("Transform, calibrate, deploy and run the selected configuration on the simulator "
         "(Run ▸ Run Whole Pipeline)"));
  connect(m_pipeline, &QPushButton::clicked, this, &OverviewView::pipelineRequested);
  layout->addWidget(m_pipeline, 0, Qt::AlignLeft);
  layout->addWidget(m_thresholds, 1);
  connect(context, &StudioContext::projectLoaded, this, &OverviewView::refresh);
  connect(context, &StudioContext::projectChanged, this, &OverviewView::refresh);
  connect(context, &StudioContext::filePathChanged, this, &OverviewView::refresh);
  refresh();
}

void OverviewView::refresh() {
  const project::Project &p = m_context->project();
  QLocale locale;
  auto row = [](const QString &name, const QString &value) {
    return QStringLiteral("<tr><td><b>%1</b>&nbsp;&nbsp;</td><td>%2</td></tr>").arg(name, value.toHtmlEscaped());
  };
  std::size_t samples = 0;
  for (const auto &d : p.datasets)
    samples += d.fileCount();
  QString html = QStringLiteral("<h2>%1</h2><table>").arg(m_context->displayName().toHtmlEscaped());
  html += row(tr("File"), m_context->filePath().isEmpty() ? tr("not saved yet") : m_context->filePath());
  html += row(tr("Model"), p.model.path.empty() ? tr("none — use File ▸ Import") : QString::fromStdString(p.model.path));
  if (!p.model.contentHash.empty())
    html += row(tr("Model hash"), QString::fromStdString(p.model.contentHash).left(23) + QStringLiteral("…"));
  if (const auto &l = p.importSettings.llm)
    html += row(tr("LLM conversion"),
                tr("%1 for %2, context %3%4%5")
                    .arg(QString::fromStdString(l->quantize), QString::fromStdString(l->chip))
                    .arg(l->seqLength)
                    .arg(l->useHistoryKv ? tr(", chunks of %1").arg(l->chunkLength) : QString())
                    .arg(l->dynamic ? tr(", prefill buckets") : QString()));
  else
    html += row(tr("Input shapes"), QString::fromStdString(p.importSettings.inputShapes));
  html += row(tr("Calibration"), QStringList{countText(static_cast<qint64>(p.datasets.size()), tr("dataset"), tr("datasets")),
                                             countText(static_cast<qint64>(samples), tr("sample"), tr("samples")),
                                             countText(static_cast<qint64>(p.caliTables.size()), tr("table"), tr("tables"))}
                                     .join(QStringLiteral(", ")));
  html += row(tr("Compile configurations"), QString::number(p.compileConfigs.size()));
  html += row(tr("Runs"), QString::number(p.runs.size()));
  if (!p.runs.empty()) {
    const auto &last = p.runs.back();
    // Only simulator runs measure latency and memory; the others are summed up by their status.
    const QString outcome = last.latencyMs > 0 ? tr("%1 ms, peak %2")
                                                     .arg(locale.toString(last.latencyMs, 'f', 3),
                                                          locale.formattedDataSize(last.memoryPeakBytes))
                                               : QString::fromStdString(last.status);
    html += row(tr("Last run"), tr("#%1 %2: %3").arg(last.id).arg(QString::fromStdString(last.configName), outcome));
  }
  html += QStringLiteral("</table>");
  m_summary->setText(html);
  m_chat->setVisible(p.importSettings.llm.has_value());
  const bool onnx = !p.model.path.empty() && !p.importSettings.llm;
  m_pipeline->setVisible(onnx);
  m_nextStep->setVisible(onnx && p.runs.empty());
  if (onnx && p.runs.empty())
    m_nextStep->setText(
        p.compileConfigs.empty()
            ? tr("Nothing has run yet. Run Whole Pipeline transforms the model, deploys it in F32 on the "
                 "default "
                 "chip and runs it on the simulator; Run ▸ Deploy with Configuration picks other settings.")
            : tr("Nothing has run yet. Run Whole Pipeline transforms the model, calibrates it when the "
                 "configuration is INT8, deploys it with every layer compared against the float model and "
                 "runs "
                 "it on the simulator: the accuracy, layer groups and engine timeline are then one click "
                 "away. Select a configuration in the project tree to run another one."));

  QVector<double> thresholds;
  QString title = tr("Calibration thresholds");
  if (!p.caliTables.empty()) {
    const auto &table = p.caliTables.back();
    for (const auto &e : table.entries)
      thresholds.append(e.threshold);
    title = tr("Calibration thresholds of %1 v%2").arg(QString::fromStdString(table.name)).arg(table.version);
  }
  m_thresholds->setTitle(title);
  m_thresholds->setValues(thresholds);
}

} // namespace tpuc::ui
