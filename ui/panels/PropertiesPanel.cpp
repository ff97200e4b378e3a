// The properties panel.
#include "ui/panels/PropertiesPanel.h"

#include "ui/ImportSettingsForm.h"
#include "ui/MixedPrecision.h"
#include "ui/panels/CompileConfigEditor.h"
#include "ui/views/GraphViewTab.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStackedWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace tpuc::ui {

namespace {

enum Page { PropertiesPage, ImportPage, NotesPage, ConfigPage };

QString qs(const std::string &text) { return QString::fromStdString(text); }

template <typename T> const T *byId(const std::vector<T> &items, qint64 id) {
  auto it = std::find_if(items.begin(), items.end(), [id](const T &t) { return t.id == id; });
  return it == items.end() ? nullptr : &*it;
}

/// The rows of a run's summary the studio recorded from its job: command line, exit, duration, message,
/// per-output compare metrics, artifacts.
void appendRunSummary(const project::RunRecord &r, QList<QPair<QString, QString>> &rows) {
  const QJsonObject summary = QJsonDocument::fromJson(QByteArray::fromStdString(r.summaryJson)).object();
  const QLocale locale;
  if (summary.contains(QLatin1String("command"))) {
    QStringList args;
    for (const QJsonValue &a : summary.value(QLatin1String("arguments")).toArray())
      args << a.toString();
    rows.append({QObject::tr("Command"), summary.value(QLatin1String("command")).toString()});
    rows.append({QObject::tr("Arguments"), args.join(QLatin1Char(' '))});
  }
  if (summary.contains(QLatin1String("exitCode")))
    rows.append({QObject::tr("Exit code"), QString::number(summary.value(QLatin1String("exitCode")).toInt())});
  if (summary.contains(QLatin1String("durationMs")))
    rows.append({QObject::tr("Duration"),
                 QObject::tr("%1 s").arg(locale.toString(summary.value(QLatin1String("durationMs")).toDouble() / 1000,
                                                         'f', 2))});
  if (summary.contains(QLatin1String("message")))
    rows.append({QObject::tr("Message"), summary.value(QLatin1String("message")).toString()});
  for (const QJsonValue &v : summary.value(QLatin1String("compare")).toArray()) {
    const QJsonObject c = v.toObject();
    auto metric = [&c, &locale](const char *key) {
      const QJsonValue m = c.value(QLatin1String(key));
      return m.isDouble() ? locale.toString(m.toDouble(), 'g', 6) : m.isString() ? m.toString() : QStringLiteral("-");
    };
    rows.append({QObject::tr("Compare %1").arg(c.value(QLatin1String("name")).toString()),
                 QObject::tr("%1 %2, cos %3, euc %4, sqnr %5")
                     .arg(c.value(QLatin1String("pass")).toBool() ? QObject::tr("PASSED") : QObject::tr("FAILED"),
                          c.value(QLatin1String("status")).toString(), metric("cosine"), metric("euclidean"),
                          metric("sqnr"))});
  }
  for (const project::ArtifactRef &a : r.artifacts)
    rows.append({QObject::tr("Artifact (%1)").arg(qs(a.kind)),
                 a.contentHash.empty() ? qs(a.name) : QObject::tr("%1 (%2)").arg(qs(a.name), qs(a.contentHash))});
}

} // namespace

PropertiesPanel::PropertiesPanel(StudioContext *context, QWidget *parent)
    : QWidget(parent), m_context(context), m_stack(new QStackedWidget(this)), m_properties(new QTreeWidget),
      m_notes(new QPlainTextEdit), m_configEditor(new CompileConfigEditor(context)) {
  auto *layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_stack);

  m_properties->setObjectName(QStringLiteral("propertiesTree"));
  m_properties->setColumnCount(2);
  m_properties->setHeaderLabels({tr("Property"), tr("Value")});
  m_properties->setRootIsDecorated(false);
  m_properties->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  m_stack->insertWidget(PropertiesPage, m_properties);
  m_stack->insertWidget(ImportPage, buildImportEditor());
  m_notes->setPlaceholderText(tr("Notes about this project"));
  m_stack->insertWidget(NotesPage, m_notes);
  m_stack->insertWidget(ConfigPage, m_configEditor);

  connect(m_notes, &QPlainTextEdit::textChanged, this, [this] { m_context->setNotes(m_notes->toPlainText()); });
  connect(context, &StudioContext::selectionChanged, this, &PropertiesPanel::showSelection);
  connect(context, &StudioContext::graphSelectionChanged, this, [this] {
    const GraphSelection &g = m_context->graphSelection();
    if (!g.graph || g.node == graph::kNoNode)
      return showSelection();
    fillGraphNodeProperties(m_properties, *g.graph, g.node);
    addFloatRow(g.graph->nodes[g.node].name);
    m_stack->setCurrentIndex(PropertiesPage);
  });
  connect(context, &StudioContext::projectLoaded, this, &PropertiesPanel::showSelection);
  // Keep in float from the graph changes the node's row: show it again.
  connect(context, &StudioContext::projectChanged, this, [this](Section section) {
    const GraphSelection &g = m_context->graphSelection();
    if ((section == Section::QuantTables || section == Section::CompileConfigs) && g.graph &&
        g.node != graph::kNoNode && m_stack->currentIndex() == PropertiesPage) {
      fillGraphNodeProperties(m_properties, *g.graph, g.node);
      addFloatRow(g.graph->nodes[g.node].name);
    }
  });
  // Saved under a (new) name: the project's own rows show it.
  connect(context, &StudioContext::filePathChanged, this, [this] {
    if (m_context->selection().section == Section::None)
      fillProperties(m_context->selection());
  });
  connect(context, &StudioContext::projectChanged, this, [this](Section section) {
    if (section == Section::ImportSettings)
      fillImportEditor();
    else if (section == Section::Notes && m_notes->toPlainText() != qs(m_context->project().notes)) {
      QSignalBlocker block(m_notes); // an undo, not typing: do not record it again
      m_notes->setPlainText(qs(m_context->project().notes));
    }
    if (section == m_context->selection().section)
      fillProperties(m_context->selection());
  });
  showSelection();
}

QWidget *PropertiesPanel::buildImportEditor() {
  auto *page = new QWidget;
  auto *layout = new QVBoxLayout(page);
  m_importForm = new ImportSettingsForm;
  m_importError = new QLabel;
  m_importError->setWordWrap(true);
  m_importError->hide();
  auto *buttons = new QDialogButtonBox(QDialogButtonBox::Apply | QDialogButtonBox::Reset);
  connect(buttons->button(QDialogButtonBox::Apply), &QPushButton::clicked, this,
          &PropertiesPanel::applyImportSettings);
  connect(buttons->button(QDialogButtonBox::Reset), &QPushButton::clicked, this,
          &PropertiesPanel::fillImportEditor);
  layout->addWidget(m_importForm);
  layout->addWidget(m_importError);
  layout->addWidget(buttons);
  layout->addStretch();
  return page;
}

void PropertiesPanel::showSelection() {
  const Selection selection = m_context->selection();
  if (selection.section == Section::ImportSettings) {
    fillImportEditor();
    m_stack->setCurrentIndex(ImportPage);
  } else if (selection.section == Section::Notes) {
    QSignalBlocker block(m_notes);
    m_notes->setPlainText(qs(m_context->project().notes));
    m_stack->setCurrentIndex(NotesPage);
  } else if (selection.section == Section::CompileConfigs && selection.id >= 0) {
    m_configEditor->setConfigId(selection.id);
    m_stack->setCurrentIndex(ConfigPage);
  } else {
    fillProperties(selection);
    m_stack->setCurrentIndex(PropertiesPage);
  }
}

void PropertiesPanel::fillProperties(const Selection &selection) {
  const project::Project &p = m_context->project();
  QLocale locale;
  QList<QPair<QString, QString>> rows;
  switch (selection.section) {
  case Section::None:
    rows = {{tr("Project"), m_context->displayName()}, {tr("File"), m_context->filePath()}};
    break;
  case Section::Model:
    rows = {{tr("Path"), qs(p.model.path)},
            {tr("Format"), qs(p.model.format)},
            {tr("Size"), locale.formattedDataSize(static_cast<qint64>(p.model.size))},
            {tr("Content hash"), qs(p.model.contentHash)},
            {tr("Embedded"), p.model.embedded.empty() ? tr("no") : tr("yes")}};
    if (const auto &l = p.importSettings.llm) {
      rows.append({tr("Sequence length"), QString::number(l->seqLength)});
      rows.append({tr("Quantize"), tr("%1 (group %2%3)")
                                       .arg(qs(l->quantize))
                                       .arg(l->qGroupSize)
                                       .arg(l->symmetric ? tr(", symmetric") : QString())});
      rows.append({tr("Chip"), qs(l->chip)});
      if (l->useHistoryKv)
        rows.append({tr("History KV"), tr("chunks of %1, max input %2").arg(l->chunkLength).arg(l->maxInputLength)});
      if (l->dynamic)
        rows.append({tr("Prefill"), tr("buckets for short prompts (--dynamic)")});
    }
    break;
  case Section::Datasets:
    if (const auto *d = byId(p.datasets, selection.id))
      rows = {{tr("Name"), qs(d->name)}, {tr("Samples"), QString::number(d->fileCount())}};
    else
      rows = {{tr("Datasets"), QString::number(p.datasets.size())}};
    break;
  case Section::CaliTables:
    if (const auto *t = byId(p.caliTables, selection.id))
      rows = {{tr("Name"), qs(t->name)},        {tr("Version"), QString::number(t->version)},
              {tr("Created"), qs(t->created)},  {tr("Comment"), qs(t->comment)},
              {tr("Ops"), QString::number(t->entries.size())}};
    else
      rows = {{tr("Tables"), QString::number(p.caliTables.size())}};
    break;
  case Section::QuantTables:
    if (const auto *t = byId(p.quantTables, selection.id))
      rows = {{tr("Name"), qs(t->name)},       {tr("Version"), QString::number(t->version)},
              {tr("Created"), qs(t->created)}, {tr("Comment"), qs(t->comment)},
              {tr("Ops"), QString::number(t->entries.size())}};
    else
      rows = {{tr("Tables"), QString::number(p.quantTables.size())}};
    break;
  case Section::CompileConfigs:
    if (const auto *c = byId(p.compileConfigs, selection.id))
      rows = {{tr("Name"), qs(c->name)}, {tr("Chip"), qs(c->chip)}, {tr("Precision"), qs(c->precision)},
              {tr("Options"), qs(c->optionsJson)}};
    else
      rows = {{tr("Configurations"), QString::number(p.compileConfigs.size())}};
    break;
  case Section::Runs:
    if (const auto *r = byId(p.runs, selection.id)) {
      rows = {{tr("Run"), QString::number(r->id)},
              {tr("Configuration"), qs(r->configName)},
              {tr("Status"), qs(r->status)},
              {tr("Started"), qs(r->started)},
              {tr("Finished"), qs(r->finished)},
              {tr("Artifacts"), QString::number(r->artifacts.size())}};
      if (r->latencyMs > 0 || r->memoryPeakBytes > 0) { // measured by the simulator only
        rows.append({tr("Simulated latency"), tr("%1 ms").arg(locale.toString(r->latencyMs, 'f', 3))});
        rows.append({tr("Memory peak"), locale.formattedDataSize(r->memoryPeakBytes)});
      }
      appendRunSummary(*r, rows);
    } else
      rows = {{tr("Runs"), QString::number(p.runs.size())}};
    break;
  case Section::ImportSettings:
  case Section::Notes:
    break;
  }
  m_properties->clear();
  for (const auto &[name, value] : rows) {
    auto *item = new QTreeWidgetItem(m_properties, {name, value});
    item->setToolTip(1, value);
  }
}

void PropertiesPanel::fillImportEditor() {
  m_importForm->setSettings(m_context->project().importSettings);
  m_importError->hide();
}

std::optional<project::ImportSettings> PropertiesPanel::editedImportSettings(QString *error) const {
  return m_importForm->settings(error);
}

void PropertiesPanel::applyImportSettings() {
  QString error;
  auto settings = editedImportSettings(&error);
  if (!settings) {
    m_importError->setText(error);
    m_importError->show();
    return;
  }
  m_importError->hide();
  m_context->setImportSettings(*settings);
}

QSize PropertiesPanel::sizeHint() const {
  const QFontMetrics fm = fontMetrics();
  return {fm.averageCharWidth() * 40, fm.height() * 24};
}

void PropertiesPanel::addFloatRow(const std::string &op) {
  const project::Project &p = m_context->project();
  const qint64 configId = currentConfigId(*m_context);
  const project::CompileConfig *config = nullptr;
  for (const project::CompileConfig &c : p.compileConfigs)
    if (c.id == configId)
      config = &c;
  if (!config)
    return;
  const auto floatOps = floatOpsOf(p, configId);
  const QString mode = floatModeFor(*config);
  const QString name = QString::fromStdString(config->name);
  auto *item = new QTreeWidgetItem(m_properties, {tr("Deploy precision")});
  if (auto it = floatOps.find(op); it != floatOps.end()) {
    item->setText(1, tr("%1, kept in float by configuration '%2'").arg(it->second, name));
  } else if (mode.isEmpty()) {
    item->setText(1, tr("F32 (configuration '%1')").arg(name));
  } else {
    item->setText(1, QString::fromStdString(config->precision));
    auto *button = new QPushButton(tr("Keep in %1 (configuration '%2')").arg(mode, name), m_properties);
    button->setObjectName(QStringLiteral("propertiesKeepFloat"));
    button->setProperty("op", QString::fromStdString(op));
    button->setToolTip(tr("Add this op to the configuration's quantize table in %1 (undoable)").arg(mode));
    // Queued: the edit refills this tree, which deletes the button.
    connect(button, &QPushButton::clicked, this, [this, op, configId, mode] {
      QMetaObject::invokeMethod(
          this,
          [this, op, configId, mode] {
            keepOpsInFloat(*m_context, configId, {QString::fromStdString(op)}, mode);
          },
          Qt::QueuedConnection);
    });
    auto *child = new QTreeWidgetItem(item, {QString()});
    m_properties->setItemWidget(child, 1, button);
    item->setExpanded(true);
  }
  item->setToolTip(1, item->text(1));
}

} // namespace tpuc::ui
