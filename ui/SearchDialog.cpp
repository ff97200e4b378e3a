// The mixed-precision search dialog.
#include "ui/SearchDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>

namespace tpuc::ui {

SearchDialog::SearchDialog(const project::Project &project, const SearchSettings &initial, QWidget *parent)
    : QDialog(parent), m_project(project), m_config(new QComboBox(this)), m_dataset(new QComboBox(this)),
      m_subset(new QComboBox(this)), m_cos(new QDoubleSpinBox(this)), m_max(new QSpinBox(this)),
      m_note(new QLabel(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this)) {
  setWindowTitle(tr("Search Mixed Precision"));
  for (const project::CompileConfig &c : project.compileConfigs)
    m_config->addItem(tr("%1 (%2, %3)")
                          .arg(QString::fromStdString(c.name), QString::fromStdString(c.chip),
                               QString::fromStdString(c.precision)),
                      QVariant::fromValue<qint64>(c.id));
  for (const project::Dataset &d : project.datasets)
    if (d.fileCount() > 0)
      m_dataset->addItem(tr("%1 (%2 files)").arg(QString::fromStdString(d.name)).arg(d.fileCount()),
                         QVariant::fromValue<qint64>(d.id));
  m_config->setCurrentIndex(std::max(0, m_config->findData(QVariant::fromValue<qint64>(initial.configId))));
  m_dataset->setCurrentIndex(
      std::max(0, m_dataset->findData(QVariant::fromValue<qint64>(initial.datasetId))));
  m_cos->setDecimals(5);
  m_cos->setRange(0.5, 1.0);
  m_cos->setSingleStep(0.001);
  m_cos->setValue(initial.expectedCos);
  m_cos->setToolTip(
      tr("Stop when the lowest output cosine over the scored samples reaches this (--expected_cos)"));
  m_max->setRange(1, 1000);
  m_max->setValue(initial.maxFloatLayers);
  m_max->setToolTip(tr("Keep at most this many ops in float (--max_float_layers)"));
  fillSubsets();
  if (int i = m_subset->findData(initial.subset); i >= 0)
    m_subset->setCurrentIndex(i);
  m_note->setWordWrap(true);

  auto *form = new QFormLayout(this);
  form->addRow(tr("Configuration:"), m_config);
  form->addRow(tr("Calibration samples:"), m_dataset);
  form->addRow(tr("Subset:"), m_subset);
  form->addRow(tr("Expected output cosine:"), m_cos);
  form->addRow(tr("Most ops in float:"), m_max);
  form->addRow(m_note);
  form->addRow(m_buttons);
  connect(m_dataset, &QComboBox::currentIndexChanged, this, [this] {
    fillSubsets();
    check();
  });
  connect(m_config, &QComboBox::currentIndexChanged, this, &SearchDialog::check);
  connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  check();
}

void SearchDialog::fillSubsets() {
  m_subset->clear();
  m_subset->addItem(tr("(all files)"), QString());
  const qint64 id = m_dataset->currentData().value<qint64>();
  for (const project::Dataset &d : m_project.datasets)
    if (d.id == id && d.index)
      for (const dataset::Subset &s : d.index->subsets)
        m_subset->addItem(QString::fromStdString(s.name), QString::fromStdString(s.name));
}

void SearchDialog::check() {
  QString why;
  if (m_config->count() == 0)
    why = tr("Add a compile configuration first (Edit ▸ Add Compile Configuration): the search plans for its "
             "chip.");
  else if (const project::CompileConfig *c = [&]() -> const project::CompileConfig * {
             for (const project::CompileConfig &config : m_project.compileConfigs)
               if (config.id == m_config->currentData().value<qint64>())
                 return &config;
             return nullptr;
           }();
           c && QString::fromStdString(c->precision).toUpper() != QLatin1String("INT8"))
    why = tr("search_qtable searches INT8 deployments: configuration '%1' deploys %2.")
              .arg(QString::fromStdString(c->name), QString::fromStdString(c->precision));
  else if (m_dataset->count() == 0)
    why = tr("Add calibration samples first: the search calibrates on them and scores the first four.");
  m_note->setText(why.isEmpty()
                      ? tr("Calibrates on the samples, ranks the ops by their own INT8 error and keeps "
                           "the worst in float one at a time, measuring the output cosine and the "
                           "simulated latency after each step.")
                      : why);
  m_buttons->button(QDialogButtonBox::Ok)->setEnabled(why.isEmpty());
}

SearchSettings SearchDialog::settings() const {
  SearchSettings s;
  s.configId = m_config->currentData().value<qint64>();
  s.datasetId = m_dataset->currentData().value<qint64>();
  s.subset = m_subset->currentData().toString();
  s.expectedCos = m_cos->value();
  s.maxFloatLayers = m_max->value();
  return s;
}

} // namespace tpuc::ui
