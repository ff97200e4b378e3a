// The deploy dialog's form.
#include "ui/DeployDialog.h"

#include "ui/StudioContext.h"
#include "ui/panels/CompileConfigEditor.h"

#include "tpuc/Backend/ChipProfile.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>

namespace tpuc::ui {

namespace {

// A table choice's data: "name\nversion" (names may hold spaces), empty for newest/none.
QString tableKey(const std::string &name, int version) {
  return QString::fromStdString(name) + QLatin1Char('\n') + QString::number(version);
}

/// Cores of a chip profile (1 when the profile cannot be read: the deploy then names the problem).
int coresOf(const QString &chip) {
  try {
    return std::max<int>(1, static_cast<int>(backend::findChipProfile(chip.toStdString()).cores));
  } catch (const std::exception &) {
    return 1;
  }
}

} // namespace

DeployDialog::DeployDialog(const project::Project &project, const project::CompileConfig &config, QWidget *parent)
    : QDialog(parent), m_config(config), m_hasCaliTables(!project.caliTables.empty()), m_name(new QLineEdit),
      m_chip(new QComboBox), m_quantize(new QComboBox), m_caliTable(new QComboBox), m_quantTable(new QComboBox),
      m_testInput(new QComboBox), m_asymmetric(new QCheckBox(tr("Asymmetric (zero points)"))), m_groupSize(new QSpinBox), m_cores(new QSpinBox),
      m_tolerance(new QLineEdit), m_commandLine(new QLabel), m_error(new QLabel),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel)) {
  setWindowTitle(tr("Deploy to Tpu"));
  // Named for tests and scripting.
  m_name->setObjectName(QStringLiteral("name"));
  m_chip->setObjectName(QStringLiteral("chip"));
  m_quantize->setObjectName(QStringLiteral("quantize"));
  m_asymmetric->setObjectName(QStringLiteral("asymmetric"));
  m_caliTable->setObjectName(QStringLiteral("calibrationTable"));
  m_quantTable->setObjectName(QStringLiteral("quantizeTable"));
  m_groupSize->setObjectName(QStringLiteral("qGroupSize"));
  m_cores->setObjectName(QStringLiteral("numCore"));
  m_testInput->setObjectName(QStringLiteral("testInput"));
  m_tolerance->setObjectName(QStringLiteral("tolerance"));
  const DeploySettings s = deploySettingsOf(config);
  m_name->setText(QString::fromStdString(config.name));
  m_chip->addItems(CompileConfigEditor::chips());
  m_quantize->addItems(CompileConfigEditor::precisions());
  for (auto [combo, value] : {std::pair{m_chip, QString::fromStdString(s.options.chip)},
                              std::pair{m_quantize, QString::fromStdString(s.options.quantize)}}) {
    if (combo->findText(value) < 0)
      combo->addItem(value);
    combo->setCurrentText(value);
  }
  m_asymmetric->setChecked(s.options.asymmetric);

  m_caliTable->addItem(tr("newest table"), QString());
  for (auto it = project.caliTables.rbegin(); it != project.caliTables.rend(); ++it)
    m_caliTable->addItem(tr("%1 v%2 (%3)").arg(QString::fromStdString(it->name)).arg(it->version)
                             .arg(countText(static_cast<qint64>(it->entries.size()), tr("tensor"), tr("tensors"))),
                         tableKey(it->name, it->version));
  m_quantTable->addItem(tr("none"), QString());
  for (auto it = project.quantTables.rbegin(); it != project.quantTables.rend(); ++it)
    m_quantTable->addItem(tr("%1 v%2 (%3)").arg(QString::fromStdString(it->name)).arg(it->version)
                              .arg(countText(static_cast<qint64>(it->entries.size()), tr("op"), tr("ops"))),
                          tableKey(it->name, it->version));
  auto choose = [](QComboBox *combo, const QString &name, int version) {
    if (name.isEmpty())
      return;
    const QString key = tableKey(name.toStdString(), version);
    if (combo->findData(key) < 0)
      combo->addItem(tr("%1 v%2 (missing)").arg(name).arg(version), key);
    combo->setCurrentIndex(combo->findData(key));
  };
  choose(m_caliTable, s.caliTableName, s.caliTableVersion);
  choose(m_quantTable, s.quantTableName, s.quantTableVersion);

  m_testInput->addItem(tr("first calibration sample"), QString());
  for (const project::Dataset &d : project.datasets)
    for (const project::Sample &sample : d.samples) {
      const QString path = QString::fromStdString(sample.path);
      m_testInput->addItem(QStringLiteral("%1 — %2").arg(QFileInfo(path).fileName(), QString::fromStdString(d.name)), path);
    }
  if (!s.testInput.isEmpty()) {
    if (m_testInput->findData(s.testInput) < 0)
      m_testInput->addItem(s.testInput, s.testInput);
    m_testInput->setCurrentIndex(m_testInput->findData(s.testInput));
  }
  m_groupSize->setRange(0, 4096);
  m_groupSize->setSingleStep(32);
  m_groupSize->setSpecialValueText(tr("per channel"));
  m_groupSize->setValue(static_cast<int>(s.options.qGroupSize));
  // Empty: model_deploy's default (the placeholder says which).
  if (s.options.tolerance != driver::DeployOptions{}.tolerance)
    m_tolerance->setText(QString::fromStdString(s.options.tolerance));
  const int numCore = static_cast<int>(s.options.numCore);
  m_cores->setRange(1, std::max(numCore, coresOf(QString::fromStdString(s.options.chip))));
  m_cores->setValue(numCore);
  m_cores->setToolTip(tr("Cores the model file spreads its work over (bm1688 has two; --num_core)"));
  m_commandLine->setWordWrap(true);
  m_commandLine->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_commandLine->setForegroundRole(QPalette::PlaceholderText);
  m_error->setWordWrap(true);
  QPalette errorPalette = m_error->palette();
  errorPalette.setColor(QPalette::WindowText, QColor(0xd6, 0x3a, 0x3a));
  m_error->setPalette(errorPalette);

  auto *form = new QFormLayout;
  form->addRow(tr("&Name:"), m_name);
  form->addRow(tr("&Chip:"), m_chip);
  form->addRow(tr("&Quantize:"), m_quantize);
  form->addRow(QString(), m_asymmetric);
  form->addRow(tr("Ca&libration table:"), m_caliTable);
  form->addRow(tr("Quantize &table:"), m_quantTable);
  form->addRow(tr("&Group size (W8/W4):"), m_groupSize);
  form->addRow(tr("C&ores:"), m_cores);
  form->addRow(tr("Test &input:"), m_testInput);
  form->addRow(tr("T&olerance (cos,euc):"), m_tolerance);
  form->addRow(m_commandLine);
  form->addRow(m_error);
  auto *layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(m_buttons);
  m_buttons->button(QDialogButtonBox::Ok)->setText(tr("&Deploy"));
  connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  for (QComboBox *combo : {m_chip, m_quantize, m_caliTable, m_quantTable, m_testInput})
    connect(combo, &QComboBox::currentIndexChanged, this, &DeployDialog::update);
  connect(m_asymmetric, &QCheckBox::toggled, this, &DeployDialog::update);
  connect(m_groupSize, &QSpinBox::valueChanged, this, &DeployDialog::update);
  connect(m_cores, &QSpinBox::valueChanged, this, &DeployDialog::update);
  connect(m_chip, &QComboBox::currentTextChanged, this, [this](const QString &chip) {
    m_cores->setMaximum(coresOf(chip)); // clamps the value to the chip's cores
    update();
  });
  connect(m_name, &QLineEdit::textChanged, this, &DeployDialog::update);
  connect(m_tolerance, &QLineEdit::textChanged, this, &DeployDialog::update);
  update();
}

DeploySettings DeployDialog::settings() const {
  // Options the form does not show (quant_input, excepts, fuse_preprocess, ...) stay as configured.
  DeploySettings s = deploySettingsOf(m_config);
  s.options.chip = m_chip->currentText().toStdString();
  s.options.quantize = m_quantize->currentText().toStdString();
  const bool int8 = s.options.quantize == "INT8";
  s.options.asymmetric = int8 && m_asymmetric->isChecked();
  s.caliTableName.clear();
  s.caliTableVersion = 0;
  if (int8) {
    const QString cali = m_caliTable->currentData().toString();
    s.caliTableName = cali.section(QLatin1Char('\n'), 0, 0);
    s.caliTableVersion = cali.section(QLatin1Char('\n'), 1, 1).toInt();
  }
  const QString quant = m_quantTable->currentData().toString();
  s.quantTableName = quant.section(QLatin1Char('\n'), 0, 0);
  s.quantTableVersion = quant.section(QLatin1Char('\n'), 1, 1).toInt();
  s.options.qGroupSize =
      isWeightOnly(m_quantize->currentText()) ? m_groupSize->value() : driver::DeployOptions{}.qGroupSize;
  s.testInput = m_testInput->currentData().toString();
  const QString tolerance = m_tolerance->text().trimmed();
  s.options.tolerance = tolerance.isEmpty() ? driver::DeployOptions{}.tolerance : tolerance.toStdString();
  s.options.numCore = m_cores->value();
  return s;
}

project::CompileConfig DeployDialog::config() const {
  project::CompileConfig c = withDeploySettings(m_config, settings());
  c.name = m_name->text().trimmed().toStdString();
  return c;
}

QString DeployDialog::problem() const {
  const DeploySettings s = settings();
  if (m_name->text().trimmed().isEmpty())
    return tr("The configuration needs a name.");
  if (s.options.quantize == "INT8" && !m_hasCaliTables)
    return tr("INT8 needs a calibration table: run Run ▸ Calibrate first.");
  for (QComboBox *combo : {m_caliTable, m_quantTable})
    if (combo->isEnabled() && combo->currentText().endsWith(tr("(missing)")))
      return tr("The table '%1' is not in the project: make it first (Run ▸ Calibrate on its dataset) or "
                "pick another.")
          .arg(combo->currentText());
  static const QRegularExpression tolerance(QStringLiteral("^\\s*-?[0-9.]+\\s*,\\s*-?[0-9.]+\\s*$"));
  const QString typed = m_tolerance->text().trimmed();
  if (!typed.isEmpty() && !tolerance.match(typed).hasMatch())
    return tr("Tolerance is two numbers, cosine and euclidean: e.g. 0.99,0.90.");
  return {};
}

void DeployDialog::update() {
  const QString quantize = m_quantize->currentText();
  const bool int8 = quantize == QLatin1String("INT8");
  m_asymmetric->setEnabled(int8);
  m_caliTable->setEnabled(int8);
  m_groupSize->setEnabled(isWeightOnly(quantize));
  m_cores->setEnabled(m_cores->maximum() > 1);
  m_tolerance->setPlaceholderText(tr("model_deploy's default %1; usual for %2: %3")
                                      .arg(QString::fromStdString(driver::DeployOptions{}.tolerance),
                                           quantize, defaultTolerance(quantize)));
  const DeploySettings s = settings();
  DeployPaths paths{QStringLiteral("<model>.top.mlir"),
                    s.options.quantize == "INT8" ? QStringLiteral("<cali_table>") : QString(),
                    s.quantTableName.isEmpty() ? QString() : QStringLiteral("<qtable>"),
                    s.testInput.isEmpty() ? QStringLiteral("<first sample>")
                                          : QFileInfo(s.testInput).fileName(),
                    QStringLiteral("<model>.tpu.mlir")};
  m_commandLine->setText(QStringLiteral("tpuc ") + deployArguments(s, paths).join(QLatin1Char(' ')));
  const QString why = problem();
  m_error->setText(why);
  m_error->setVisible(!why.isEmpty());
  m_buttons->button(QDialogButtonBox::Ok)->setEnabled(why.isEmpty());
}

} // namespace tpuc::ui
