// A central tab for one calibration dataset.
#include "ui/views/DatasetView.h"

#include "ui/Background.h"
#include "ui/SampleImport.h"
#include "ui/Settings.h"
#include "ui/models/DatasetFilesModel.h"
#include "ui/models/ThumbnailCache.h"
#include "ui/views/DatasetQualityView.h"
#include "ui/views/PreprocessPreview.h"

#include "project/ProjectStore.h"
#include "tpuc/Dataset/Quality.h"
#include "tpuc/Dataset/Scan.h"
#include "tpuc/Dataset/Subsets.h"

#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QImageReader>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "llvm/Support/Error.h"

#include <algorithm>
#include <optional>

namespace tpuc::ui {

namespace {

/// Show-combo keys that are not subset names (a subset name cannot start with a control character).
const QString kShowAll;
const QString kShowUnreadable = QStringLiteral("\x01unreadable");
const QString kShowProblems = QStringLiteral("\x01problems");

struct ScanOutcome {
  std::optional<dataset::ScanResult> result;
  /// Made off the UI thread too: the scanned dataset's rows, its quality report, and a copy of the index
  /// (the next scan's previous index; copying 100,000 entries on the UI thread would stall it).
  DatasetFilesModel::Rows rows;
  std::shared_ptr<const dataset::QualityReport> quality;
  std::shared_ptr<const dataset::DatasetIndex> snapshot;
  QString error;
};

struct SubsetOutcome {
  std::optional<dataset::Subset> subset;
  QString error;
};

QString number(qint64 n) { return QLocale().toString(n); }

} // namespace

QString datasetCacheDir(const StudioContext *context) {
  if (!context->filePath().isEmpty())
    return QString::fromStdString(project::cacheDirFor(context->filePath().toStdString()).string()) +
           QStringLiteral("/datasets");
  return QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/datasets");
}

DatasetView::DatasetView(StudioContext *context, qint64 datasetId, QWidget *parent, PreparedDataset *prepared)
    : QWidget(parent), m_context(context), m_datasetId(datasetId),
      m_thumbnails(
          new ThumbnailCache(kThumbnailSide, datasetCacheDir(context) + QStringLiteral("/thumbnails"), this)),
      m_model(new DatasetFilesModel(context, datasetId, m_thumbnails, this,
                                    prepared ? &prepared->rows : nullptr)),
      m_proxy(new DatasetFilesProxy(this)), m_header(new QLabel(this)), m_changes(new QLabel(this)),
      m_cancelScan(new QPushButton(tr("Stop"), this)), m_search(new QLineEdit(this)),
      m_show(new QComboBox(this)), m_gridButton(new QToolButton(this)), m_tableButton(new QToolButton(this)),
      m_deleteSubset(new QToolButton(this)), m_tabs(new QTabWidget(this)), m_stack(new QStackedWidget(this)),
      m_grid(new QListView(this)), m_table(new QTableView(this)), m_sampleLabel(new QLabel(this)),
      m_quality(new DatasetQualityView(this)), m_scanTimer(new QTimer(this)) {
  m_proxy->setSourceModel(m_model);
  // The listing's copy of the index is the first scan's previous index when the rows it came with were taken.
  if (const quint64 now = DatasetFilesModel::fingerprint(datasetData());
      prepared && prepared->snapshot && m_model->shownFingerprint() == now) {
    m_snapshot = prepared->snapshot;
    m_snapshotFingerprint = now;
  }
  const int line = fontMetrics().height();

  // The grid: column 0 with thumbnails. Uniform item sizes and batched layout keep 100,000 files cheap;
  // only the visible items ask for their thumbnails.
  m_grid->setObjectName(QStringLiteral("datasetGrid"));
  m_grid->setModel(m_proxy);
  m_grid->setModelColumn(DatasetFilesModel::Name);
  m_grid->setViewMode(QListView::IconMode);
  m_grid->setResizeMode(QListView::Adjust);
  m_grid->setMovement(QListView::Static);
  m_grid->setUniformItemSizes(true);
  m_grid->setLayoutMode(QListView::Batched);
  m_grid->setBatchSize(2000);
  m_grid->setSpacing(line / 2);
  m_grid->setTextElideMode(Qt::ElideMiddle);
  m_grid->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_grid->setIconSize(QSize(kThumbnailSide, kThumbnailSide));
  m_grid->setGridSize(QSize(kThumbnailSide + line * 3, kThumbnailSide + line * 3));

  m_table->setObjectName(QStringLiteral("datasetTable"));
  m_table->setModel(m_proxy);
  // Unsorted (the files' path order) until a header is clicked: sorting 100,000 rows takes a while.
  m_table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
  m_table->setSortingEnabled(true);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_table->setIconSize(QSize(line, line));
  m_table->verticalHeader()->hide();
  m_table->verticalHeader()->setDefaultSectionSize(line + line / 2);
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->setWordWrap(false);
  const int ch = fontMetrics().averageCharWidth();
  m_table->setColumnWidth(DatasetFilesModel::Name, ch * 28);
  m_table->setColumnWidth(DatasetFilesModel::Folder, ch * 18);
  m_table->setColumnWidth(DatasetFilesModel::Format, ch * 8);
  m_table->setColumnWidth(DatasetFilesModel::Size, ch * 10);
  m_table->setColumnWidth(DatasetFilesModel::Dimensions, ch * 18);
  m_table->setColumnWidth(DatasetFilesModel::Channels, ch * 9);
  // The grid shares the table's selection (the same proxy rows).
  m_grid->setSelectionModel(m_table->selectionModel());
  m_stack->addWidget(m_grid);
  m_stack->addWidget(m_table);

  m_sampleLabel->setObjectName(QStringLiteral("sampleDetails"));
  m_sampleLabel->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  m_sampleLabel->setWordWrap(true);
  m_sampleLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_sampleLabel->setMinimumWidth(line * 16);

  // The selected sample as the model receives it (the engine's own preprocessing), beside the files.
  m_preview = new PreprocessPreview(this);
  m_preview->followProject(context, datasetId);
  auto *side = new QWidget(this);
  auto *sideLayout = new QVBoxLayout(side);
  sideLayout->setContentsMargins(0, 0, 0, 0);
  sideLayout->addWidget(m_sampleLabel);
  sideLayout->addWidget(m_preview, 1);
  auto *files = new QSplitter(Qt::Horizontal, this);
  files->addWidget(m_stack);
  files->addWidget(side);
  files->setStretchFactor(0, 1);
  files->setStretchFactor(1, 1);
  m_tabs->addTab(files, tr("Files"));
  m_tabs->addTab(m_quality, tr("Quality"));

  m_header->setObjectName(QStringLiteral("datasetHeader"));
  m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_changes->setObjectName(QStringLiteral("datasetChanges"));
  m_changes->setWordWrap(true);
  m_changes->hide();
  m_cancelScan->hide();
  auto *head = new QHBoxLayout;
  head->addWidget(m_header, 1);
  head->addWidget(m_cancelScan);
  auto *bar = new QWidget(this);
  buildToolbar(bar);
  auto *layout = new QVBoxLayout(this);
  layout->addLayout(head);
  layout->addWidget(m_changes);
  layout->addWidget(bar);
  layout->addWidget(m_tabs, 1);

  connect(m_table->selectionModel(), &QItemSelectionModel::currentChanged, this,
          &DatasetView::updateSelection);
  connect(m_quality, &DatasetQualityView::fileActivated, this, [this](const QString &path) {
    if (!selectFile(path)) { // hidden by the filter or the subset shown: show everything
      m_search->clear();
      showSubset(QString());
      selectFile(path);
    }
    m_tabs->setCurrentIndex(0);
  });
  connect(m_cancelScan, &QPushButton::clicked, this, [this] {
    if (m_scanCancel)
      *m_scanCancel = true;
  });
  m_scanTimer->setInterval(100);
  connect(m_scanTimer, &QTimer::timeout, this, &DatasetView::updateHeader);
  connect(context, &StudioContext::projectChanged, this, [this](Section section) {
    if (section == Section::Datasets) {
      updateSubsetChoices();
      updateHeader();
    }
  });
  connect(m_proxy, &QAbstractItemModel::rowsInserted, this, &DatasetView::updateHeader);
  connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &DatasetView::updateHeader);
  connect(m_proxy, &QAbstractItemModel::modelReset, this, &DatasetView::updateHeader);
  connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &DatasetView::updateHeader);

  updateSubsetChoices();
  updateHeader();
  updateSelection();
  // A folder dataset is rescanned whenever it is opened: cheap for unchanged files (their size and time are
  // compared, nothing is read), and it notices files moved, changed or removed since.
  // Its quality report comes with each scan; samples added one by one have none.
  if (const project::Dataset *d = datasetData(); d && d->index) {
    ++m_busy; // until the scan starts
    QTimer::singleShot(0, this, [this] {
      --m_busy;
      startScan();
    });
  }
}

DatasetView::~DatasetView() {
  if (m_scanCancel)
    *m_scanCancel = true;
}

void DatasetView::buildToolbar(QWidget *bar) {
  auto *row = new QHBoxLayout(bar);
  row->setContentsMargins(0, 0, 0, 0);
  m_search->setObjectName(QStringLiteral("datasetSearch"));
  m_search->setPlaceholderText(tr("Filter by name, folder, format or problem"));
  m_search->setClearButtonEnabled(true);
  m_search->setMinimumWidth(fontMetrics().averageCharWidth() * 24);
  connect(m_search, &QLineEdit::textChanged, this, &DatasetView::setSearch);
  m_show->setObjectName(QStringLiteral("datasetShow"));
  m_show->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_show->setToolTip(tr("Show all files, a subset, the unreadable files or the files with a problem"));
  connect(m_show, &QComboBox::activated, this, [this](int i) { showSubset(m_show->itemData(i).toString()); });

  m_gridButton->setText(tr("Grid"));
  m_tableButton->setText(tr("Table"));
  for (QToolButton *b : {m_gridButton, m_tableButton}) {
    b->setCheckable(true);
    b->setAutoExclusive(true);
  }
  m_gridButton->setChecked(true);
  connect(m_gridButton, &QToolButton::clicked, this, [this] { showGrid(true); });
  connect(m_tableButton, &QToolButton::clicked, this, [this] { showGrid(false); });

  auto *newSubset = new QToolButton(bar);
  newSubset->setObjectName(QStringLiteral("newSubset"));
  newSubset->setText(tr("New Subset…"));
  newSubset->setToolTip(
      tr("Make a named subset: random, first N, stratified by folder, the selected files or "
         "the most diverse N"));
  connect(newSubset, &QToolButton::clicked, this, &DatasetView::newSubsetDialog);
  m_deleteSubset->setText(tr("Delete Subset"));
  connect(m_deleteSubset, &QToolButton::clicked, this, [this] {
    const QString name = shownSubset();
    if (!name.isEmpty()) {
      showSubset(QString());
      m_context->removeSubset(m_datasetId, name);
    }
  });
  auto *exportList = new QToolButton(bar);
  exportList->setText(tr("Export Data List…"));
  exportList->setToolTip(tr("Write the files shown as a TPU-MLIR data list (run_calibration --data_list)"));
  connect(exportList, &QToolButton::clicked, this, &DatasetView::exportDataList);
  auto *rescanButton = new QToolButton(bar);
  rescanButton->setText(tr("Rescan"));
  rescanButton->setToolTip(tr("Read the folder again: new, changed, moved and removed files"));
  connect(rescanButton, &QToolButton::clicked, this, &DatasetView::rescan);

  auto *calibrate = new QToolButton(bar);
  calibrate->setObjectName(QStringLiteral("calibrateDataset"));
  calibrate->setText(tr("Calibrate"));
  calibrate->setToolTip(tr("Calibrate the model on the files shown (all files or the subset), with kl; the "
                           "menu has the other threshold methods"));
  calibrate->setPopupMode(QToolButton::MenuButtonPopup);
  auto *methods = new QMenu(calibrate);
  for (const char *method : {"kl", "mse", "max", "percentile9999", "aciq_gauss", "aciq_laplace"})
    methods->addAction(QString::fromLatin1(method), this, [this, method] {
      Q_EMIT calibrateRequested(m_datasetId, shownSubset(), QString::fromLatin1(method));
    });
  calibrate->setMenu(methods);
  connect(calibrate, &QToolButton::clicked, this,
          [this] { Q_EMIT calibrateRequested(m_datasetId, shownSubset(), QStringLiteral("kl")); });

  row->addWidget(m_search, 2);
  row->addWidget(m_show);
  row->addWidget(m_gridButton);
  row->addWidget(m_tableButton);
  row->addSpacing(fontMetrics().averageCharWidth() * 2);
  row->addWidget(newSubset);
  row->addWidget(m_deleteSubset);
  row->addWidget(exportList);
  row->addWidget(rescanButton);
  row->addWidget(calibrate);
}

const project::Dataset *DatasetView::datasetData() const {
  for (const project::Dataset &d : m_context->project().datasets)
    if (d.id == m_datasetId)
      return &d;
  return nullptr;
}

QAbstractItemView *DatasetView::currentView() const {
  return m_stack->currentWidget() == m_grid ? static_cast<QAbstractItemView *>(m_grid) : m_table;
}

void DatasetView::showGrid(bool grid) {
  m_stack->setCurrentWidget(grid ? static_cast<QWidget *>(m_grid) : m_table);
  (grid ? m_gridButton : m_tableButton)->setChecked(true);
  // Keep the current file in sight when switching.
  if (QModelIndex current = m_table->selectionModel()->currentIndex(); current.isValid())
    currentView()->scrollTo(current);
}

void DatasetView::setSearch(const QString &text) {
  if (m_search->text() != text)
    m_search->setText(text); // comes back here through textChanged
  else
    m_proxy->setSearch(text);
  updateHeader();
}

QString DatasetView::shownSubset() const {
  const QString key = m_show->currentData().toString();
  return key.startsWith(QLatin1Char('\x01')) ? QString() : key;
}

void DatasetView::showSubset(const QString &name) {
  int i = m_show->findData(name);
  if (i < 0)
    i = 0;
  m_show->setCurrentIndex(i);
  const QString key = m_show->itemData(i).toString();
  const project::Dataset *d = datasetData();
  if (key == kShowUnreadable) {
    m_proxy->setShow(DatasetFilesProxy::Show::Unreadable);
  } else if (key == kShowProblems) {
    m_proxy->setShow(DatasetFilesProxy::Show::Problems);
  } else if (const dataset::Subset *s =
                 key.isEmpty() || !d || !d->index ? nullptr : d->index->findSubset(key.toStdString())) {
    QStringList paths;
    for (const std::string &p : s->paths)
      paths << QString::fromStdString(p);
    m_proxy->setShow(DatasetFilesProxy::Show::Paths, paths);
  } else {
    m_proxy->setShow(DatasetFilesProxy::Show::All);
  }
  m_deleteSubset->setEnabled(!shownSubset().isEmpty());
  updateHeader();
}

void DatasetView::updateSubsetChoices() {
  const QString shown = m_show->currentData().toString();
  m_show->clear();
  const project::Dataset *d = datasetData();
  m_show->addItem(tr("All files (%1)").arg(number(m_model->rowCount())), kShowAll);
  if (d && d->index) {
    for (const dataset::Subset &s : d->index->subsets)
      m_show->addItem(tr("Subset %1 — %2, %3")
                          .arg(QString::fromStdString(s.name), QString::fromStdString(s.method),
                               countText(static_cast<qint64>(s.paths.size()), tr("file"), tr("files"))),
                      QString::fromStdString(s.name));
    if (!d->index->unreadable.empty())
      m_show->addItem(tr("Unreadable (%1)").arg(d->index->unreadable.size()), kShowUnreadable);
  }
  m_show->addItem(tr("With a problem"), kShowProblems);
  showSubset(shown);
}

void DatasetView::updateHeader() {
  const project::Dataset *d = datasetData();
  if (!d) {
    m_header->setText(tr("This dataset is no longer in the project."));
    return;
  }
  QStringList parts;
  const qint64 files = static_cast<qint64>((d->index ? d->index->files.size() : 0) + d->samples.size());
  QString where =
      d->index ? tr(" in %1").arg(QString::fromStdString(d->index->root).toHtmlEscaped()) : QString();
  parts << tr("<b>%1</b>: %2%3")
               .arg(QString::fromStdString(d->name).toHtmlEscaped(),
                    countText(files, tr("file"), tr("files")), where);
  if (d->index && !d->index->unreadable.empty())
    parts << countText(static_cast<qint64>(d->index->unreadable.size()), tr("unreadable"), tr("unreadable"));
  if (d->index && !d->index->subsets.empty())
    parts << countText(static_cast<qint64>(d->index->subsets.size()), tr("subset"), tr("subsets"));
  if (m_proxy->rowCount() != m_model->rowCount())
    parts << tr("%1 shown").arg(number(m_proxy->rowCount()));
  if (m_scanCancel) {
    const size_t total = *m_scanTotal, done = *m_scanDone;
    parts << (total ? tr("reading metadata %1 / %2")
                          .arg(number(static_cast<qint64>(done)), number(static_cast<qint64>(total)))
                    : tr("looking for files…"));
  }
  m_header->setText(parts.join(QStringLiteral(" · ")));
}

bool DatasetView::selectFile(const QString &path) {
  const int source = m_model->rowOf(path);
  if (source < 0)
    return false;
  const QModelIndex index = m_proxy->mapFromSource(m_model->index(source, 0));
  if (!index.isValid())
    return false;
  m_table->selectionModel()->setCurrentIndex(index,
                                             QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  currentView()->scrollTo(index);
  return true;
}

QStringList DatasetView::selectedPaths() const {
  QModelIndexList rows = m_table->selectionModel()->selectedRows(0);
  std::sort(rows.begin(), rows.end(),
            [](const QModelIndex &a, const QModelIndex &b) { return a.row() < b.row(); });
  QStringList paths;
  for (const QModelIndex &i : rows)
    paths << i.data(DatasetFilesModel::PathRole).toString();
  return paths;
}

void DatasetView::updateSelection() {
  const QModelIndex current = m_table->selectionModel()->currentIndex();
  if (!current.isValid()) {
    m_sampleLabel->hide(); // the preview says what to do
    m_preview->setSample({});
    return;
  }
  m_sampleLabel->show();
  const DatasetRow &row = m_model->row(m_proxy->mapToSource(current).row());
  m_preview->setSample(row.unreadable ? QStringList{} : QStringList{row.absolute});
  QString text = QStringLiteral("<b>%1</b>").arg(row.name.toHtmlEscaped());
  if (!row.folder.isEmpty())
    text += QStringLiteral(" in %1").arg(row.folder.toHtmlEscaped());
  if (!row.dimensions.isEmpty())
    text += QStringLiteral(" · %1 · %2").arg(row.format, row.dimensions);
  if (!row.problem.isEmpty())
    text += QStringLiteral("<br>⚠ %1").arg(row.problem.toHtmlEscaped());
  m_sampleLabel->setText(text);
}

void DatasetView::rescan() { startScan(); }

bool DatasetView::idle() const { return m_busy == 0 && !m_model->building(); }

QString DatasetView::changesText() const { return m_changesText; }

void DatasetView::startScan() {
  const project::Dataset *d = datasetData();
  if (!d || !d->index || m_scanCancel)
    return;
  // The previous index: the last scan's copy when the dataset's files are still those (made off the UI
  // thread), else a copy now (a project just opened).
  std::shared_ptr<const dataset::DatasetIndex> previous =
      m_snapshot && m_snapshotFingerprint == DatasetFilesModel::fingerprint(d) &&
              m_snapshot->root == d->index->root
          ? m_snapshot
          : std::make_shared<const dataset::DatasetIndex>(*d->index);
  // Right after an import the entries have no content yet: that first scan fills them in, it changes nothing.
  const bool firstScan = std::any_of(previous->files.begin(), previous->files.end(),
                                     [](const dataset::FileEntry &e) { return e.contentHash.empty(); });
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  auto done = std::make_shared<std::atomic<size_t>>(0), total = std::make_shared<std::atomic<size_t>>(0);
  m_scanCancel = cancel;
  m_scanDone = done;
  m_scanTotal = total;
  const std::string cacheDir = (datasetCacheDir(m_context) + QStringLiteral("/metadata")).toStdString();
  m_cancelScan->show();
  m_scanTimer->start();
  updateHeader();
  ++m_busy;
  runInBackground(
      this,
      [previous, cancel, done, total, cacheDir, id = d->id, name = d->name, samples = d->samples] {
        dataset::ScanOptions options;
        options.cacheDir = cacheDir;
        options.previous = previous.get();
        options.progress = [done, total](size_t d, size_t t) {
          *done = d;
          *total = t;
        };
        options.cancelled = [cancel] { return cancel->load(); };
        auto outcome = std::make_shared<ScanOutcome>();
        auto scanned = dataset::scanDataset(previous->root, options);
        if (scanned) {
          outcome->result = std::move(*scanned);
          // The rows of 100,000 files take a while to make: here, not on the UI thread.
          project::Dataset scannedDataset{id, name, samples, std::move(outcome->result->index)};
          outcome->rows = DatasetFilesModel::buildRows(&scannedDataset);
          outcome->result->index = std::move(*scannedDataset.index);
          outcome->snapshot = std::make_shared<const dataset::DatasetIndex>(outcome->result->index);
          outcome->quality =
              std::make_shared<const dataset::QualityReport>(dataset::analyzeQuality(*outcome->snapshot));
        } else
          outcome->error = QString::fromStdString(llvm::toString(scanned.takeError()));
        return outcome;
      },
      [this, previous, firstScan](const std::shared_ptr<ScanOutcome> &outcome) {
        --m_busy;
        m_scanCancel.reset();
        m_scanTimer->stop();
        m_cancelScan->hide();
        const project::Dataset *d = datasetData();
        if (!outcome->result) {
          m_context->log(LogLevel::Warning, tr("Dataset scan: %1").arg(outcome->error));
          m_changes->setText(tr("The folder was not scanned: %1").arg(outcome->error.toHtmlEscaped()));
          m_changes->show();
          updateHeader();
          Q_EMIT scanFinished(false);
          return;
        }
        if (!d || !d->index || d->index->root != previous->root) { // removed or undone meanwhile
          updateHeader();
          Q_EMIT scanFinished(false);
          return;
        }
        dataset::ScanResult &result = *outcome->result;
        const dataset::IndexChanges &c = result.changes;
        m_changesText.clear();
        if (!firstScan && !c.empty()) {
          QStringList parts;
          if (!c.added.empty())
            parts << tr("%1 added").arg(c.added.size());
          if (!c.removed.empty())
            parts << tr("%1 removed").arg(c.removed.size());
          if (!c.changed.empty())
            parts << tr("%1 changed").arg(c.changed.size());
          if (!c.moved.empty())
            parts << tr("%1 moved").arg(c.moved.size());
          m_changesText = tr("The folder changed since the last scan: %1. Subsets follow moved files and "
                             "drop removed ones.")
                              .arg(parts.join(QStringLiteral(", ")));
          m_context->log(LogLevel::Info,
                         tr("Dataset %1: %2").arg(QString::fromStdString(d->name), m_changesText));
        }
        m_changes->setText(m_changesText);
        m_changes->setVisible(!m_changesText.isEmpty());
        if (!(result.index == *d->index)) {
          m_model->adopt(std::move(outcome->rows));
          m_context->setDatasetIndex(m_datasetId, std::move(result.index), result.changes.moved);
        }
        d = datasetData();
        m_snapshot = outcome->snapshot;
        m_snapshotFingerprint = DatasetFilesModel::fingerprint(d);
        m_context->log(
            LogLevel::Info,
            tr("Dataset %1 scanned: %2 (%3 read, %4 from the cache, %5 unchanged) in %6 s")
                .arg(QString::fromStdString(d->name))
                .arg(countText(static_cast<qint64>(d->index->files.size()), tr("file"), tr("files")))
                .arg(result.computed)
                .arg(result.cached)
                .arg(result.reused)
                .arg(result.seconds, 0, 'f', 2));
        updateHeader();
        showQuality(*outcome->quality);
        Q_EMIT scanFinished(true);
      });
}

void DatasetView::showQuality(const dataset::QualityReport &report) {
  m_quality->setReport(report);
  m_model->setProblems(m_quality->problems());
  m_tabs->setTabText(1, report.exactDuplicates.empty() && report.nearDuplicates.empty() &&
                                report.outliers.empty() && report.channelSwaps.empty() &&
                                report.corrupt.empty()
                            ? tr("Quality")
                            : tr("Quality ⚠"));
  Q_EMIT qualityReady();
}

void DatasetView::makeSubset(const QString &name, const QString &method, int count, quint64 seed,
                             const QStringList &paths) {
  const project::Dataset *d = datasetData();
  if (!d || !d->index) {
    Q_EMIT subsetMade(tr("Subsets need a folder dataset (File ▸ Import Dataset Folder)."));
    return;
  }
  dataset::SubsetRequest request;
  request.name = name.toStdString();
  request.method = method.toStdString();
  request.count = count;
  request.seed = seed;
  for (const QString &p : paths)
    request.paths.push_back(p.toStdString());
  auto index = std::make_shared<const dataset::DatasetIndex>(*d->index);
  ++m_busy;
  runInBackground(
      this,
      [index, request] {
        auto outcome = std::make_shared<SubsetOutcome>();
        auto made = dataset::makeSubset(*index, request);
        if (made)
          outcome->subset = std::move(*made);
        else
          outcome->error = QString::fromStdString(llvm::toString(made.takeError()));
        return outcome;
      },
      [this](const std::shared_ptr<SubsetOutcome> &outcome) {
        --m_busy;
        if (!outcome->subset) {
          m_context->log(LogLevel::Error, tr("Subset not made: %1").arg(outcome->error));
          Q_EMIT subsetMade(outcome->error);
          return;
        }
        const QString name = QString::fromStdString(outcome->subset->name);
        m_context->putSubset(m_datasetId, std::move(*outcome->subset));
        showSubset(name);
        m_tabs->setCurrentIndex(0); // the subset's files
        Q_EMIT subsetMade(QString());
      });
}

void DatasetView::newSubsetDialog() {
  const project::Dataset *d = datasetData();
  if (!d || !d->index) {
    m_context->log(LogLevel::Warning, tr("Subsets need a folder dataset: use File ▸ Import Dataset Folder."));
    return;
  }
  const QStringList selected = selectedPaths();
  QDialog dialog(this);
  dialog.setWindowTitle(tr("New Subset"));
  auto *name = new QLineEdit(&dialog);
  name->setText(tr("subset%1").arg(d->index->subsets.size() + 1));
  auto *method = new QComboBox(&dialog);
  method->addItem(tr("Random (seeded)"), QStringLiteral("random"));
  method->addItem(tr("First N by path"), QStringLiteral("first"));
  method->addItem(tr("Stratified by folder"), QStringLiteral("stratified"));
  method->addItem(tr("Most diverse N"), QStringLiteral("diverse"));
  method->addItem(tr("The %1 selected").arg(countText(selected.size(), tr("file"), tr("files"))),
                  QStringLiteral("manual"));
  auto *count = new QSpinBox(&dialog);
  count->setRange(1, std::max<int>(1, static_cast<int>(d->index->files.size())));
  // TPU-MLIR's guide asks for 100 to 1,000 images; a small folder gets half of its files.
  const int files = static_cast<int>(d->index->files.size());
  count->setValue(files > 400 ? 200 : std::max(1, files / 2));
  auto *seed = new QSpinBox(&dialog);
  seed->setRange(0, 1 << 30);
  auto *hint = new QLabel(&dialog);
  hint->setWordWrap(true);
  hint->setMinimumWidth(fontMetrics().averageCharWidth() * 48);
  hint->setMinimumHeight(fontMetrics().height() * 3);
  auto update = [=] {
    const QString m = method->currentData().toString();
    count->setEnabled(m != QLatin1String("manual"));
    seed->setEnabled(m == QLatin1String("random") || m == QLatin1String("stratified"));
    if (m == QLatin1String("diverse"))
      hint->setText(
          tr("Farthest-point sampling on 16×16 thumbnails: the images least alike. Good for covering "
             "typical scenes with few samples."));
    else if (m == QLatin1String("stratified"))
      hint->setText(tr("Each folder's share of the count, so every class or scene is represented."));
    else if (m == QLatin1String("manual"))
      hint->setText(selected.isEmpty() ? tr("Select files in the grid or the table first.") : QString());
    else
      hint->clear();
  };
  connect(method, &QComboBox::currentIndexChanged, &dialog, update);
  if (selected.size() > 1)
    method->setCurrentIndex(method->findData(QStringLiteral("manual")));
  update();
  auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  auto *form = new QFormLayout(&dialog);
  form->addRow(tr("Name"), name);
  form->addRow(tr("Method"), method);
  form->addRow(tr("Files"), count);
  form->addRow(tr("Seed"), seed);
  form->addRow(hint);
  form->addRow(buttons);
  if (dialog.exec() != QDialog::Accepted)
    return;
  makeSubset(name->text().trimmed(), method->currentData().toString(), count->value(),
             static_cast<quint64>(seed->value()), selected);
}

void DatasetView::exportDataList() {
  const project::Dataset *d = datasetData();
  if (!d)
    return;
  const QString subset = shownSubset();
  QString suggested = settings::lastDirectory() + QLatin1Char('/') +
                      (subset.isEmpty() ? QString::fromStdString(d->name) : subset) +
                      QStringLiteral("_list.txt");
  const QString file =
      QFileDialog::getSaveFileName(this, tr("Export Data List"), suggested, tr("Data lists (*.txt)"));
  if (!file.isEmpty())
    writeDataList(file);
}

bool DatasetView::writeDataList(const QString &file) {
  const project::Dataset *d = datasetData();
  if (!d)
    return false;
  std::vector<std::string> paths; // the readable files shown, in view order
  for (int r = 0; r < m_proxy->rowCount(); ++r) {
    const QModelIndex i = m_proxy->index(r, 0);
    if (!i.data(DatasetFilesModel::UnreadableRole).toBool())
      paths.push_back(i.data(d->index ? DatasetFilesModel::PathRole : DatasetFilesModel::AbsolutePathRole)
                          .toString()
                          .toStdString());
  }
  dataset::DatasetIndex listOnly; // a sample list: absolute paths, written as they are
  if (llvm::Error err = dataset::writeDataList(d->index ? *d->index : listOnly, paths, file.toStdString())) {
    m_context->log(LogLevel::Error, QString::fromStdString(llvm::toString(std::move(err))));
    return false;
  }
  m_context->log(LogLevel::Info,
                 tr("Data list of %1 written to %2")
                     .arg(countText(static_cast<qint64>(paths.size()), tr("file"), tr("files")), file));
  return true;
}

} // namespace tpuc::ui
