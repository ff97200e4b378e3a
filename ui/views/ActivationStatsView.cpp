// The activation statistics view: tensor table, histogram with thresholds, convergence, verdict banner.
#include "ui/views/ActivationStatsView.h"

#include "ui/views/LayerTable.h"

#include "project/ProjectStore.h"
#include "ui/Background.h"
#include "ui/views/ActivationStatsModel.h"
#include "visualizer/CalibrationCharts.h"

#include <QCheckBox>
#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace tpuc::ui {

namespace {

QString reportKey(qint64 tableId) { return QStringLiteral("calibration_report/%1").arg(tableId); }

QString cacheDir(const StudioContext &context) {
  return context.filePath().isEmpty()
             ? QString()
             : QString::fromStdString(project::cacheDirFor(context.filePath().toStdString()).string());
}

} // namespace

QString calibrationReportOfTable(const StudioContext &context, qint64 tableId) {
  const auto &state = context.project().viewState;
  const auto it = state.find(reportKey(tableId).toStdString());
  if (it == state.end() || it->second.empty())
    return {};
  QString folder = QString::fromStdString(it->second);
  if (QFileInfo(folder).isRelative() && !cacheDir(context).isEmpty())
    folder = QDir(cacheDir(context)).filePath(folder);
  return QFileInfo(QDir(folder).filePath(QStringLiteral("histograms.json"))).isFile() ? folder : QString();
}

void setCalibrationReportOfTable(StudioContext &context, qint64 tableId, const QString &folder) {
  const QString cache = cacheDir(context);
  const QString absolute = QFileInfo(folder).absoluteFilePath();
  const QString relative = cache.isEmpty() ? QString() : QDir(cache).relativeFilePath(absolute);
  context.setViewState(reportKey(tableId),
                       relative.isEmpty() || relative.startsWith(QLatin1String("..")) ? absolute : relative);
}

QString calibrationReportOfRun(const project::RunRecord &run) {
  for (const project::ArtifactRef &a : run.artifacts) {
    const QFileInfo info(QString::fromStdString(a.name));
    if (info.fileName() == QLatin1String("histograms.json") &&
        QFileInfo::exists(info.dir().filePath(QStringLiteral("convergence.json"))))
      return info.absolutePath();
  }
  return {};
}

ActivationStatsView::ActivationStatsView(StudioContext *context, const QString &folder, qint64 tableId,
                                         QWidget *parent)
    : QWidget(parent), m_context(context), m_tableId(tableId), m_model(new ActivationStatsModel(this)),
      m_filter(new ActivationStatsFilter(this)), m_banner(new QLabel(this)), m_search(new QLineEdit(this)),
      m_onlyUnsettled(new QCheckBox(tr("Only not settled"), this)), m_table(new QTableView(this)),
      m_charts(new QTabWidget(this)), m_splitter(new QSplitter(Qt::Horizontal, this)),
      m_figure(new vis::CalibrationTensorFigure(this)), m_overview(new vis::CalibrationOverviewFigure(this)) {
  m_filter->setSourceModel(m_model);
  m_table->setModel(m_filter);
  setUpLayerTable(m_table, ActivationStatsModel::Name, ActivationStatsModel::Order);

  m_banner->setWordWrap(true);
  m_banner->setTextFormat(Qt::RichText);
  m_banner->setAutoFillBackground(true);
  m_banner->setMargin(fontMetrics().height() / 2);
  m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_search->setPlaceholderText(tr("Filter tensors by name"));
  m_search->setClearButtonEnabled(true);
  m_onlyUnsettled->setToolTip(
      tr("Show only the tensors whose threshold moved in the last quarter of the samples"));
  // The overview's own banner repeats the view's.
  m_overview->setBannerVisible(false);
  m_charts->addTab(m_figure, tr("Tensor"));
  m_charts->addTab(m_overview, tr("All Tensors"));
  m_charts->setDocumentMode(true);

  auto *left = new QWidget(this);
  auto *leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 0, 0);
  auto *bar = new QHBoxLayout;
  bar->addWidget(m_search, 1);
  bar->addWidget(m_onlyUnsettled);
  leftLayout->addLayout(bar);
  leftLayout->addWidget(m_table, 1);
  m_splitter->addWidget(left);
  m_splitter->addWidget(m_charts);
  m_splitter->setStretchFactor(0, 0);
  m_splitter->setStretchFactor(1, 1);
  connect(m_splitter, &QSplitter::splitterMoved, this, [this] { m_userSized = true; });
  auto *layout = new QVBoxLayout(this);
  layout->addWidget(m_banner);
  layout->addWidget(m_splitter, 1);

  connect(m_search, &QLineEdit::textChanged, m_filter, &ActivationStatsFilter::setNameFilter);
  connect(m_onlyUnsettled, &QCheckBox::toggled, m_filter, &ActivationStatsFilter::setOnlyUnsettled);
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
    const QModelIndex index = m_filter->mapToSource(m_table->currentIndex());
    m_figure->setTensor(m_report, index.isValid() ? index.row() : -1);
    if (m_quiet || !index.isValid())
      return;
    m_publishing = true;
    m_context->selectOp(currentTensor());
    m_publishing = false;
  });
  connect(m_context, &StudioContext::opSelectionChanged, this, [this](const QString &name) {
    if (!m_publishing)
      selectTensor(name);
  });
  // A node selected in a graph view: ops are named after their tensors.
  connect(m_context, &StudioContext::graphSelectionChanged, this, [this] {
    const GraphSelection &g = m_context->graphSelection();
    if (g.graph && g.node != graph::kNoNode && g.node < g.graph->nodes.size())
      selectTensor(QString::fromStdString(g.graph->nodes[g.node].name));
  });
  updateBanner();
  if (!folder.isEmpty())
    load(folder);
}

void ActivationStatsView::load(const QString &folder) {
  m_folder = folder;
  const quint64 generation = ++m_generation;
  m_banner->setText(tr("Reading %1…").arg(folder.toHtmlEscaped()));
  runInBackground(
      this,
      [folder] {
        Result<vis::CalibrationReport> read = vis::readCalibrationReport(folder);
        std::shared_ptr<const vis::CalibrationReport> report =
            read ? std::make_shared<const vis::CalibrationReport>(std::move(*read)) : nullptr;
        return std::make_pair(report, QString::fromStdString(read.error()));
      },
      [this, generation](const std::pair<std::shared_ptr<const vis::CalibrationReport>, QString> &result) {
        if (generation != m_generation)
          return; // a newer load is on its way
        if (result.first)
          showReport(result.first);
        else
          showError(result.second);
        Q_EMIT loaded(result.first != nullptr);
      });
}

void ActivationStatsView::setReport(vis::CalibrationReport report) {
  ++m_generation;
  m_folder = report.folder;
  showReport(std::make_shared<const vis::CalibrationReport>(std::move(report)));
}

void ActivationStatsView::showReport(std::shared_ptr<const vis::CalibrationReport> report) {
  m_error.clear();
  m_report = std::move(report);
  m_quiet = true;
  m_model->setReport(m_report);
  m_overview->setReport(m_report);
  fitColumns();
  balance();
  // Start where the eye should go: the op selected elsewhere, else the latest tensor to settle when the
  // data were not enough, else the first tensor.
  const QVector<int> unsettled = m_report->unsettled();
  if (!selectTensor(m_context->selectedOp()) && !m_report->tensors.isEmpty())
    selectTensor(m_report->tensors[unsettled.isEmpty() ? 0 : unsettled.front()].name);
  m_quiet = false;
  updateBanner();
}

void ActivationStatsView::showError(const QString &error) {
  m_error = error;
  m_report.reset();
  m_model->setReport(nullptr);
  m_overview->setReport(nullptr);
  m_figure->setTensor(nullptr, -1);
  m_context->log(LogLevel::Error, tr("Activation statistics: %1").arg(error));
  updateBanner();
}

void ActivationStatsView::updateBanner() {
  const QPalette pal = palette();
  QPalette bannerPalette = pal;
  bannerPalette.setColor(QPalette::WindowText, pal.color(QPalette::Text));
  if (!m_error.isEmpty()) {
    // The one line naming the file and field, on a red-tinted background.
    const QColor base = pal.color(QPalette::Base), red(0xd6, 0x3a, 0x3a);
    const double t = base.lightnessF() < 0.5 ? 0.45 : 0.22;
    bannerPalette.setColor(QPalette::Window,
                           QColor::fromRgbF(static_cast<float>(base.redF() * (1 - t) + red.redF() * t),
                                            static_cast<float>(base.greenF() * (1 - t) + red.greenF() * t),
                                            static_cast<float>(base.blueF() * (1 - t) + red.blueF() * t)));
    m_banner->setText(tr("<b>Cannot show the calibration report:</b> %1").arg(m_error.toHtmlEscaped()));
  } else if (m_report) {
    bool enough = false;
    const QString verdict = vis::convergenceVerdict(*m_report, &enough);
    bannerPalette.setColor(QPalette::Window, vis::verdictColor(pal, enough));
    m_banner->setText(verdict + tr(" %1 tensors, %2 samples, thresholds by %3.")
                                    .arg(QString::number(m_report->tensors.size()),
                                         QString::number(m_report->samples),
                                         m_report->chosen.toHtmlEscaped()));
  } else {
    bannerPalette.setColor(QPalette::Window, pal.color(QPalette::Window));
    m_banner->setText(m_folder.isEmpty() ? tr("No calibration report.")
                                         : tr("Reading %1…").arg(m_folder.toHtmlEscaped()));
  }
  m_banner->setPalette(bannerPalette);
}

void ActivationStatsView::changeEvent(QEvent *event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange)
    updateBanner();
}

void ActivationStatsView::resizeEvent(QResizeEvent *event) {
  QWidget::resizeEvent(event);
  balance();
}

void ActivationStatsView::balance() {
  if (m_userSized || m_splitter->width() <= 0)
    return;
  m_table->resizeColumnsToContents();
  fitColumns();
  const int table = m_table->horizontalHeader()->length() + 2 * m_table->frameWidth() +
                    m_table->verticalScrollBar()->sizeHint().width();
  const int total = m_splitter->width() - m_splitter->handleWidth();
  const int left = std::min(table, total * 45 / 100);
  m_splitter->setSizes({left, total - left});
}

void ActivationStatsView::fitColumns() {
  int longest = 0;
  if (m_report)
    for (const vis::TensorReport &t : m_report->tensors)
      longest = std::max(longest, fontMetrics().horizontalAdvance(t.name));
  const int cap = fontMetrics().horizontalAdvance(QLatin1Char('x')) * 36;
  m_table->setColumnWidth(ActivationStatsModel::Name,
                          std::clamp(longest + fontMetrics().height(), cap / 3, cap));
}

QString ActivationStatsView::currentTensor() const {
  const QModelIndex index = m_filter->mapToSource(m_table->currentIndex());
  return index.isValid() && m_report ? m_report->tensors[index.row()].name : QString();
}

bool ActivationStatsView::selectTensor(const QString &name) {
  const int row = m_report && !name.isEmpty() ? m_report->indexOf(name) : -1;
  if (row < 0)
    return false;
  QModelIndex index = m_filter->mapFromSource(m_model->index(row, ActivationStatsModel::Order));
  if (!index.isValid()) { // hidden by a filter: show every tensor again
    m_search->clear();
    m_onlyUnsettled->setChecked(false);
    index = m_filter->mapFromSource(m_model->index(row, ActivationStatsModel::Order));
  }
  m_table->setCurrentIndex(index);
  m_table->scrollTo(index);
  return true;
}

} // namespace tpuc::ui
