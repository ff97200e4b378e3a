// The properties editor of one compile configuration.
#include "ui/panels/CompileConfigEditor.h"
#include "tpuc/Driver/Chips.h"
#include "tpuc/Driver/Requests.h"

#include "ui/jobs/DeployJob.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

#include <algorithm>

namespace tpuc::ui {

QStringList CompileConfigEditor::chips() {
  QStringList chips;
  for (const std::string &chip : driver::listChips())
    chips << QString::fromStdString(chip);
  return chips;
}

QStringList CompileConfigEditor::precisions() {
  QStringList precisions;
  for (const std::string &precision : driver::deployPrecisions())
    precisions << QString::fromStdString(precision);
  return precisions;
}

CompileConfigEditor::CompileConfigEditor(StudioContext *context, QWidget *parent)
    : QWidget(parent), m_context(context), m_name(new QLineEdit), m_options(new QLineEdit), m_chip(new QComboBox),
      m_precision(new QComboBox), m_error(new QLabel) {
  m_chip->addItems(chips());
  m_precision->addItems(precisions());
  m_options->setPlaceholderText(QStringLiteral("{\"quant_input\": true}"));
  m_error->setObjectName(QStringLiteral("error"));
  m_error->setWordWrap(true);
  m_error->hide();
  auto *form = new QFormLayout(this);
  form->addRow(tr("Name:"), m_name);
  form->addRow(tr("Chip:"), m_chip);
  form->addRow(tr("Precision:"), m_precision);
  form->addRow(tr("Options (JSON):"), m_options);
  form->addRow(m_error);
  auto *buttons = new QDialogButtonBox(QDialogButtonBox::Apply | QDialogButtonBox::Reset);
  connect(buttons->button(QDialogButtonBox::Apply), &QPushButton::clicked, this, &CompileConfigEditor::apply);
  connect(buttons->button(QDialogButtonBox::Reset), &QPushButton::clicked, this, &CompileConfigEditor::fill);
  form->addRow(buttons);
  connect(context, &StudioContext::projectChanged, this, [this](Section section) {
    if (section == Section::CompileConfigs)
      fill();
  });
}

void CompileConfigEditor::setConfigId(qint64 id) {
  m_id = id;
  fill();
}

void CompileConfigEditor::fill() {
  m_error->hide();
  const auto &configs = m_context->project().compileConfigs;
  auto it = std::find_if(configs.begin(), configs.end(), [this](const auto &c) { return c.id == m_id; });
  setEnabled(it != configs.end());
  if (it == configs.end())
    return;
  m_name->setText(QString::fromStdString(it->name));
  if (m_chip->findText(QString::fromStdString(it->chip)) < 0)
    m_chip->addItem(QString::fromStdString(it->chip)); // a chip this build does not list still shows
  m_chip->setCurrentText(QString::fromStdString(it->chip));
  if (m_precision->findText(QString::fromStdString(it->precision)) < 0)
    m_precision->addItem(QString::fromStdString(it->precision));
  m_precision->setCurrentText(QString::fromStdString(it->precision));
  m_options->setText(QString::fromStdString(it->optionsJson));
}

bool CompileConfigEditor::apply() {
  auto fail = [this](const QString &why) {
    m_error->setText(why);
    m_error->show();
    return false;
  };
  project::CompileConfig config{m_id, m_name->text().trimmed().toStdString(), m_chip->currentText().toStdString(),
                                m_precision->currentText().toStdString(), m_options->text().trimmed().toStdString()};
  if (config.name.empty())
    return fail(tr("The configuration needs a name."));
  if (config.optionsJson.empty())
    config.optionsJson = "{}";
  // Every key must be a deploy option (a misspelt key would be ignored silently otherwise).
  if (QString why = checkDeployOptions(QString::fromStdString(config.optionsJson)); !why.isEmpty())
    return fail(tr("Options: %1.").arg(why));
  if (!m_context->setCompileConfig(config))
    return fail(tr("Another configuration is already named '%1'.").arg(QString::fromStdString(config.name)));
  m_error->hide();
  return true;
}

} // namespace tpuc::ui
