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
#include <QHBoxLayout>
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

// A test-set choice's data: "" (one sample), "dataset\n<name>\n<subset>" or "folder".
QString testSetKey(const QString &dataset, const QString &subset) {
  return QStringLiteral("dataset\n%1\n%2").arg(dataset, subset);
}
const QString kFolderKey = QStringLiteral("folder");

} // namespace

DeployDialog::DeployDialog(const project::Project &project, const project::CompileConfig &config,
                           QWidget *parent)
    : QDialog(parent), m_config(config), m_hasCaliTables(!project.caliTables.empty()), m_name(new QLineEdit),
      m_chip(new QComboBox), m_quantize(new QComboBox), m_caliTable(new QComboBox),
      m_quantTable(new QComboBox), m_testInput(new QComboBox),
      m_asymmetric(new QCheckBox(tr("Asymmetric (zero points)"))), m_groupSize(new QSpinBox),
      m_cores(new QSpinBox), m_tolerance(new QLineEdit), m_commandLine(new QLabel), m_error(new QLabel),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel)),
      m_testSet(new QComboBox), m_testFolder(new QLineEdit), m_testNum(new QSpinBox),
      m_findDivergent(new QCheckBox(tr("Find the first divergent layers"))), m_divergentTop(new QSpinBox),
      m_divergentSamples(new QSpinBox) {
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
  m_testSet->setObjectName(QStringLiteral("testSet"));
  m_testFolder->setObjectName(QStringLiteral("testFolder"));
  m_testNum->setObjectName(QStringLiteral("testNum"));
  m_findDivergent->setObjectName(QStringLiteral("findDivergent"));
  m_divergentTop->setObjectName(QStringLiteral("divergentTop"));
  m_divergentSamples->setObjectName(QStringLiteral("divergentSamples"));
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
  // Many samples: every dataset of the project, and each subset of its folder's index.
  m_testSet->addItem(tr("one sample (the test input above)"), QString());
  for (const project::Dataset &d : project.datasets) {
    const QString name = QString::fromStdString(d.name);
    m_testSet->addItem(
        tr("dataset %1 (%2)")
            .arg(name, countText(static_cast<qint64>(d.fileCount()), tr("sample"), tr("samples"))),
        testSetKey(name, {}));
    if (d.index)
      for (const dataset::Subset &subset : d.index->subsets)
        m_testSet->addItem(
            tr("dataset %1 ▸ subset %2 (%3)")
                .arg(name, QString::fromStdString(subset.name),
                     countText(static_cast<qint64>(subset.paths.size()), tr("sample"), tr("samples"))),
            testSetKey(name, QString::fromStdString(subset.name)));
  }
  m_testSet->addItem(tr("a folder of samples…"), kFolderKey);
  if (!s.testDataset.isEmpty()) {
    const QString key = testSetKey(s.testDataset, s.testSubset);
    if (m_testSet->findData(key) < 0)
      m_testSet->addItem(s.testSubset.isEmpty()
                             ? tr("dataset %1 (missing)").arg(s.testDataset)
                             : tr("dataset %1 ▸ subset %2 (missing)").arg(s.testDataset, s.testSubset),
                         key);
    m_testSet->setCurrentIndex(m_testSet->findData(key));
  } else if (!s.testFolder.isEmpty()) {
    m_testSet->setCurrentIndex(m_testSet->findData(kFolderKey));
  }
  m_testSet->setToolTip(
      tr("Compare every layer over many samples: per-layer mean, minimum and 5th-percentile "
         "cosine, the failing samples and the worst one (--test_input DIR|LIST)"));
  m_testFolder->setText(s.testFolder);
  m_testFolder->setPlaceholderText(
      tr("folder of images, .npy or .npz (one subfolder per input for several inputs)"));
  m_testNum->setRange(0, 1000000);
  m_testNum->setSpecialValueText(tr("all"));
  m_testNum->setValue(static_cast<int>(s.options.testNum));
  m_testNum->setToolTip(tr("At most this many samples of the dataset or folder (--test_num)"));
  m_findDivergent->setChecked(s.options.findDivergent);
  m_findDivergent->setToolTip(
      tr("The earliest layers whose own (isolated) error breaks the tolerance while "
         "their inputs pass, each re-run in float to measure what it costs the output "
         "(--find_divergent)"));
  m_divergentTop->setRange(1, 100);
  m_divergentTop->setValue(static_cast<int>(s.options.divergentTop));
  m_divergentTop->setToolTip(tr("Candidates re-run in float (--divergent_top)"));
  m_divergentSamples->setRange(1, 1000);
  m_divergentSamples->setValue(static_cast<int>(s.options.divergentSamples));
  m_divergentSamples->setToolTip(tr("Samples of the re-runs: those with the lowest output cosine "
                                    "(--divergent_samples)"));
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
  form->addRow(tr("&Many samples:"), m_testSet);
  form->addRow(tr("Samples &folder:"), m_testFolder);
  form->addRow(tr("Sample &limit:"), m_testNum);
  auto *divergent = new QHBoxLayout;
  divergent->addWidget(m_findDivergent);
  divergent->addWidget(new QLabel(tr("top")));
  divergent->addWidget(m_divergentTop);
  divergent->addWidget(new QLabel(tr("on the worst")));
  divergent->addWidget(m_divergentSamples);
  divergent->addWidget(new QLabel(tr("samples")));
  divergent->addStretch(1);
  form->addRow(QString(), divergent);
  form->addRow(m_commandLine);
  form->addRow(m_error);
  auto *layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(m_buttons);
  m_buttons->button(QDialogButtonBox::Ok)->setText(tr("&Deploy"));
  connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  for (QComboBox *combo : {m_chip, m_quantize, m_caliTable, m_quantTable, m_testInput, m_testSet})
    connect(combo, &QComboBox::currentIndexChanged, this, &DeployDialog::update);
  for (QSpinBox *spin : {m_testNum, m_divergentTop, m_divergentSamples})
    connect(spin, &QSpinBox::valueChanged, this, &DeployDialog::update);
  connect(m_findDivergent, &QCheckBox::toggled, this, &DeployDialog::update);
  connect(m_testFolder, &QLineEdit::textChanged, this, &DeployDialog::update);
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
  const QString set = m_testSet->currentData().toString();
  s.testDataset =
      set.startsWith(QLatin1String("dataset\n")) ? set.section(QLatin1Char('\n'), 1, 1) : QString();
  s.testSubset =
      set.startsWith(QLatin1String("dataset\n")) ? set.section(QLatin1Char('\n'), 2, 2) : QString();
  s.testFolder = set == kFolderKey ? m_testFolder->text().trimmed() : QString();
  s.options.testNum = s.manySamples() ? m_testNum->value() : 0;
  s.options.findDivergent = m_findDivergent->isChecked();
  const driver::DeployOptions defaults;
  s.options.divergentTop = s.options.findDivergent ? m_divergentTop->value() : defaults.divergentTop;
  s.options.divergentSamples =
      s.options.findDivergent ? m_divergentSamples->value() : defaults.divergentSamples;
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
  if (m_testSet->currentText().endsWith(tr("(missing)")))
    return tr("The project has no %1: pick another test set.").arg(m_testSet->currentText().chopped(10));
  if (m_testSet->currentData().toString() == kFolderKey && s.testFolder.isEmpty())
    return tr("Name the folder of test samples.");
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
  const bool folder = m_testSet->currentData().toString() == kFolderKey;
  m_testFolder->setEnabled(folder);
  m_testNum->setEnabled(!m_testSet->currentData().toString().isEmpty());
  m_testInput->setEnabled(m_testSet->currentData().toString().isEmpty());
  m_divergentTop->setEnabled(m_findDivergent->isChecked());
  m_divergentSamples->setEnabled(m_findDivergent->isChecked());
  m_tolerance->setPlaceholderText(tr("model_deploy's default %1; usual for %2: %3")
                                      .arg(QString::fromStdString(driver::DeployOptions{}.tolerance),
                                           quantize, defaultTolerance(quantize)));
  const DeploySettings s = settings();
  DeployPaths paths{
      QStringLiteral("<model>.top.mlir"),
      s.options.quantize == "INT8" ? QStringLiteral("<cali_table>") : QString(),
      s.quantTableName.isEmpty() ? QString() : QStringLiteral("<qtable>"),
      !s.testDataset.isEmpty()
          ? QStringLiteral("<dataset %1%2>")
                .arg(s.testDataset, s.testSubset.isEmpty() ? QString() : QStringLiteral(" ▸ ") + s.testSubset)
      : !s.testFolder.isEmpty() ? s.testFolder
      : s.testInput.isEmpty()   ? QStringLiteral("<first sample>")
                                : QFileInfo(s.testInput).fileName(),
      QStringLiteral("<model>.tpu.mlir")};
  m_commandLine->setText(QStringLiteral("tpuc ") + deployArguments(s, paths).join(QLatin1Char(' ')));
  const QString why = problem();
  m_error->setText(why);
  m_error->setVisible(!why.isEmpty());
  m_buttons->button(QDialogButtonBox::Ok)->setEnabled(why.isEmpty());
}

} // namespace tpuc::ui
