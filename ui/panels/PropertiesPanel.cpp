// The properties panel.
#include "ui/panels/PropertiesPanel.h"

#include "ui/ImportSettingsForm.h"
#include "ui/panels/CompileConfigEditor.h"

#include <QDialogButtonBox>
#include <QHeaderView>
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

} // namespace

PropertiesPanel::PropertiesPanel(StudioContext *context, QWidget *parent)
    : QWidget(parent), m_context(context), m_stack(new QStackedWidget(this)), m_properties(new QTreeWidget),
      m_notes(new QPlainTextEdit), m_configEditor(new CompileConfigEditor(context)) {
  auto *layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_stack);

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
  connect(context, &StudioContext::projectLoaded, this, &PropertiesPanel::showSelection);
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
    break;
  case Section::Datasets:
    if (const auto *d = byId(p.datasets, selection.id))
      rows = {{tr("Name"), qs(d->name)}, {tr("Samples"), QString::number(d->samples.size())}};
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
    if (const auto *r = byId(p.runs, selection.id))
      rows = {{tr("Run"), QString::number(r->id)},
              {tr("Configuration"), qs(r->configName)},
              {tr("Status"), qs(r->status)},
              {tr("Started"), qs(r->started)},
              {tr("Finished"), qs(r->finished)},
              {tr("Simulated latency"), tr("%1 ms").arg(locale.toString(r->latencyMs, 'f', 3))},
              {tr("Memory peak"), locale.formattedDataSize(r->memoryPeakBytes)},
              {tr("Artifacts"), QString::number(r->artifacts.size())}};
    else
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

} // namespace tpuc::ui
