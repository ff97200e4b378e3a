// The jobs panel.
#include "ui/panels/JobsPanel.h"

#include "ui/jobs/JobQueue.h"
#include "ui/models/JobListModel.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

namespace tpuc::ui {

JobsPanel::JobsPanel(JobQueue *queue, QWidget *parent)
    : QWidget(parent), m_queue(queue), m_model(new JobListModel(queue, this)), m_view(new QTreeView),
      m_cancel(new QPushButton(tr("&Cancel job"))), m_log(new QPlainTextEdit) {
  m_view->setModel(m_model);
  m_view->setRootIsDecorated(false);
  m_view->setUniformRowHeights(true);
  m_view->header()->setStretchLastSection(true);
  // The list only grows by inserts (no resets), so per-section modes stay put.
  for (int column : {JobListModel::TitleColumn, JobListModel::StateColumn, JobListModel::ProgressColumn})
    m_view->header()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
  // Measured on the rows in sight only: by default every change of a job (each progress line) measures the
  // text of up to 1,000 rows, which stalled a studio with a long job history for half a second per transform.
  m_view->header()->setResizeContentsPrecision(0);
  m_log->setReadOnly(true);
  m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_log->setPlaceholderText(tr("The selected job's output"));

  auto *buttons = new QHBoxLayout;
  buttons->addStretch();
  buttons->addWidget(m_cancel);
  auto *splitter = new QSplitter(Qt::Horizontal);
  splitter->addWidget(m_view);
  splitter->addWidget(m_log);
  auto *layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(splitter);
  layout->addLayout(buttons);

  connect(m_cancel, &QPushButton::clicked, this, [this] {
    if (int id = currentJob(); id > 0)
      m_queue->cancel(id);
  });
  connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &JobsPanel::showCurrentJob);
  // Coalesced: a burst of progress lines redraws the log once, not once per line.
  auto *refresh = new QTimer(this);
  refresh->setSingleShot(true);
  refresh->setInterval(0);
  connect(refresh, &QTimer::timeout, this, &JobsPanel::showCurrentJob);
  connect(queue, &JobQueue::jobChanged, this, [this, refresh](int id) {
    if (id == currentJob())
      refresh->start();
  });
  connect(queue, &JobQueue::logLine, this, [this](int id, const QString &line) {
    if (id == currentJob())
      m_log->appendPlainText(line);
  });
  // Follow the newest job unless the user picked another one.
  connect(m_model, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex &, int, int last) {
    if (!m_view->currentIndex().isValid() || m_view->currentIndex().row() == last - 1)
      m_view->setCurrentIndex(m_model->index(last, 0));
  });
  showCurrentJob();
}

int JobsPanel::currentJob() const {
  QModelIndex index = m_view->currentIndex();
  return index.isValid() ? index.data(JobListModel::JobIdRole).toInt() : -1;
}

void JobsPanel::showCurrentJob() {
  auto job = m_queue->job(currentJob());
  m_cancel->setEnabled(job && (job->state == JobState::Queued || job->state == JobState::Running));
  if (!job) {
    m_log->clear();
    return;
  }
  QStringList text = job->log;
  if (!job->error.isEmpty())
    text << QString() << job->error;
  if (m_log->toPlainText() != text.join(QLatin1Char('\n')))
    m_log->setPlainText(text.join(QLatin1Char('\n')));
}

QSize JobsPanel::sizeHint() const {
  const QFontMetrics fm = fontMetrics();
  return {fm.averageCharWidth() * 80, fm.height() * 8};
}

} // namespace tpuc::ui
