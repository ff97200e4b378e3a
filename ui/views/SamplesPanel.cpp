// The samples and first-divergent-layers tabs of the accuracy view.
#include "ui/views/SamplesPanel.h"

#include "ui/views/LayerTable.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace tpuc::ui {

SamplesPanel::SamplesPanel(QWidget *parent)
    : QTabWidget(parent), m_samples(new SamplesModel(this)), m_divergent(new DivergentModel(this)),
      m_samplesProxy(new NumericSortProxy(this)), m_divergentProxy(new NumericSortProxy(this)),
      m_samplesTable(new QTableView), m_divergentTable(new QTableView), m_samplesPage(new QWidget),
      m_divergentPage(new QWidget), m_samplesNote(new QLabel), m_summary(new QLabel) {
  setObjectName(QStringLiteral("samplesPanel"));
  m_samplesTable->setObjectName(QStringLiteral("samplesTable"));
  m_divergentTable->setObjectName(QStringLiteral("divergentTable"));
  m_summary->setObjectName(QStringLiteral("divergentSummary"));
  m_samplesProxy->setSourceModel(m_samples);
  m_divergentProxy->setSourceModel(m_divergent);
  m_samplesTable->setModel(m_samplesProxy);
  m_divergentTable->setModel(m_divergentProxy);
  // Worst first: the sample to look at is at the top.
  setUpLayerTable(m_samplesTable, SamplesModel::Name, SamplesModel::OutputCosine);
  setUpLayerTable(m_divergentTable, DivergentModel::Name, DivergentModel::Rank);
  m_samplesTable->horizontalHeader()->setSectionResizeMode(SamplesModel::Name, QHeaderView::Stretch);
  m_divergentTable->horizontalHeader()->setSectionResizeMode(DivergentModel::Name, QHeaderView::Stretch);
  for (QLabel *label : {m_samplesNote, m_summary}) {
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  }
  m_samplesNote->setText(
      tr("Double-click a sample to see the selected layer's tensors on it: the configuration is deployed "
         "again on that sample alone, keeping every tensor."));
  m_samplesNote->setForegroundRole(QPalette::PlaceholderText);

  auto *samplesLayout = new QVBoxLayout(m_samplesPage);
  samplesLayout->setContentsMargins(0, 0, 0, 0);
  samplesLayout->addWidget(m_samplesTable, 1);
  samplesLayout->addWidget(m_samplesNote);
  auto *divergentLayout = new QVBoxLayout(m_divergentPage);
  divergentLayout->setContentsMargins(0, 0, 0, 0);
  divergentLayout->addWidget(m_summary);
  divergentLayout->addWidget(m_divergentTable, 1);

  connect(m_samplesTable, &QTableView::activated, this, [this](const QModelIndex &index) {
    const QModelIndex source = m_samplesProxy->mapToSource(index);
    if (source.isValid())
      Q_EMIT sampleActivated(m_samples->sample(source.row()).index);
  });
  connect(m_divergentTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex &current) {
            const QModelIndex source = m_divergentProxy->mapToSource(current);
            if (source.isValid())
              Q_EMIT candidateSelected(QString::fromStdString(m_divergent->candidate(source.row()).name));
          });
}

bool SamplesPanel::setRecords(const SampleRecords &records) {
  clear();
  if (records.samples) {
    m_samples->setSamples(records.samples->samples, records.samples->worstSample);
    m_samplesTable->sortByColumn(SamplesModel::OutputCosine, Qt::AscendingOrder);
    addTab(m_samplesPage, tr("Samples (%1, %2 failing)")
                              .arg(records.samples->samples.size())
                              .arg(records.samples->failingSamples));
  } else {
    m_samples->setSamples({}, -1);
  }
  if (records.divergent) {
    m_divergent->setCandidates(records.divergent->candidates);
    m_divergentTable->sortByColumn(DivergentModel::Rank, Qt::AscendingOrder);
    QString text = QString::fromStdString(records.divergent->summary).toHtmlEscaped();
    if (!records.divergent->floatMode.empty())
      text += tr("<br><i>Re-run in %1 on %2 of the worst samples; gain: output cosine in float minus as "
                 "deployed (%3).</i>")
                  .arg(QString::fromStdString(records.divergent->floatMode))
                  .arg(records.divergent->gainSamples.size())
                  .arg(records.divergent->baselineOutputCosine, 0, 'f', 6);
    m_summary->setText(text);
    addTab(m_divergentPage, tr("First divergent layers (%1)").arg(records.divergent->candidates.size()));
  } else {
    m_divergent->setCandidates({});
    m_summary->clear();
  }
  return records.samples || records.divergent;
}

QString SamplesPanel::divergentSummary() const { return m_summary->text(); }

void SamplesPanel::selectCandidate(int row) {
  setCurrentWidget(m_divergentPage);
  const QModelIndex index = m_divergentProxy->mapFromSource(m_divergent->index(row, DivergentModel::Name));
  if (index.isValid())
    m_divergentTable->setCurrentIndex(index);
}

int64_t SamplesPanel::currentSample() const {
  const QModelIndex source = m_samplesProxy->mapToSource(m_samplesTable->currentIndex());
  return source.isValid() ? m_samples->sample(source.row()).index : -1;
}

} // namespace tpuc::ui
