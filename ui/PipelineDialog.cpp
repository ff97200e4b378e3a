#include "ui/PipelineDialog.h"

#include "ui/PipelineRunner.h"
#include "ui/jobs/JobQueue.h"

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QGridLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QStyle>
#include <QTimer>
#include <QVBoxLayout>

namespace tpuc::ui {

namespace {

QString seconds(qint64 ms) {
  if (ms < 60'000)
    return QCoreApplication::translate("PipelineDialog", "%1 s").arg(ms / 1000.0, 0, 'f', 1);
  return QCoreApplication::translate("PipelineDialog", "%1 min %2 s").arg(ms / 60'000).arg(ms / 1000 % 60);
}

} // namespace

PipelineDialog::PipelineDialog(PipelineRunner *runner, JobQueue *jobs, const QString &heading,
                               std::vector<PipelineOutcomeAction> outcomes, QWidget *parent)
    : QDialog(parent), m_runner(runner), m_jobs(jobs) {
  setWindowTitle(tr("Run Whole Pipeline"));
  setAttribute(Qt::WA_DeleteOnClose);
  setMinimumWidth(fontMetrics().averageCharWidth() * 100);
  auto *layout = new QVBoxLayout(this);
  auto *title = new QLabel(heading);
  title->setWordWrap(true);
  title->setTextFormat(Qt::PlainText);
  QFont bold = title->font();
  bold.setBold(true);
  title->setFont(bold);
  layout->addWidget(title);

  auto *grid = new QGridLayout;
  grid->setColumnStretch(2, 1);
  grid->setHorizontalSpacing(12);
  for (int step = 0; step < runner->stepCount(); ++step) {
    Row row{new QLabel, new QLabel(QStringLiteral("%1. %2").arg(step + 1).arg(runner->stepName(step))),
            new QLabel, new QLabel, new QProgressBar};
    row.icon->setFixedWidth(style()->pixelMetric(QStyle::PM_SmallIconSize) + 4);
    row.detail->setWordWrap(true);
    row.detail->setTextInteractionFlags(Qt::TextSelectableByMouse);
    row.detail->setMinimumWidth(fontMetrics().averageCharWidth() * 48);
    row.progress->setRange(0, 1000);
    row.progress->setTextVisible(false);
    row.progress->setMaximumHeight(fontMetrics().height() / 2 + 2);
    row.time->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    row.time->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("00 min 00 s")));
    grid->addWidget(row.icon, 2 * step, 0, 2, 1);
    grid->addWidget(row.name, 2 * step, 1);
    grid->addWidget(row.detail, 2 * step, 2);
    grid->addWidget(row.time, 2 * step, 3);
    grid->addWidget(row.progress, 2 * step + 1, 1, 1, 3);
    m_rows.push_back(row);
  }
  layout->addLayout(grid);
  m_summary = new QLabel;
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_summary);
  layout->addStretch();

  m_buttons = new QDialogButtonBox;
  for (PipelineOutcomeAction &outcome : outcomes) {
    QPushButton *button = m_buttons->addButton(outcome.text, QDialogButtonBox::ActionRole);
    button->setToolTip(outcome.toolTip);
    button->setEnabled(false);
    connect(button, &QPushButton::clicked, this, [this, open = std::move(outcome.open)] {
      open();
      moveAside();
    });
    m_outcomeButtons.push_back(button);
  }
  m_cancel = m_buttons->addButton(QDialogButtonBox::Cancel);
  m_cancel->setToolTip(tr("Stop the running step's job; the steps after it do not run"));
  connect(m_cancel, &QPushButton::clicked, this, [this] {
    if (m_runner)
      m_runner->cancel();
  });
  QPushButton *close = m_buttons->addButton(QDialogButtonBox::Close);
  close->setToolTip(tr("Close this window; the pipeline goes on in the jobs panel"));
  connect(close, &QPushButton::clicked, this, &QDialog::close);
  layout->addWidget(m_buttons);

  m_clock = new QTimer(this);
  m_clock->setInterval(500);
  connect(m_clock, &QTimer::timeout, this, &PipelineDialog::updateTimes);
  connect(runner, &PipelineRunner::stepChanged, this, &PipelineDialog::updateStep);
  connect(runner, &PipelineRunner::finished, this, &PipelineDialog::finish);
  connect(jobs, &JobQueue::jobChanged, this, [this](int job) {
    if (!m_runner)
      return;
    for (int step = 0; step < m_runner->stepCount(); ++step)
      if (m_runner->stepJob(step) == job)
        updateStep(step);
  });
  for (int step = 0; step < runner->stepCount(); ++step)
    updateStep(step);
  if (runner->isFinished())
    finish(runner->succeeded());
  else
    m_clock->start();
}

void PipelineDialog::updateStep(int step) {
  if (!m_runner)
    return;
  Row &row = m_rows[step];
  const PipelineRunner::StepState state = m_runner->stepState(step);
  QStyle::StandardPixmap icon = QStyle::SP_CustomBase;
  switch (state) {
  case PipelineRunner::StepState::Pending:
    break;
  case PipelineRunner::StepState::Running:
    icon = QStyle::SP_MediaPlay;
    break;
  case PipelineRunner::StepState::Succeeded:
    icon = QStyle::SP_DialogApplyButton;
    break;
  case PipelineRunner::StepState::Skipped:
    icon = QStyle::SP_MediaSkipForward;
    break;
  case PipelineRunner::StepState::Failed:
    icon = QStyle::SP_MessageBoxCritical;
    break;
  case PipelineRunner::StepState::Cancelled:
    icon = QStyle::SP_DialogCancelButton;
    break;
  }
  const int size = style()->pixelMetric(QStyle::PM_SmallIconSize);
  row.icon->setPixmap(icon == QStyle::SP_CustomBase ? QPixmap()
                                                    : style()->standardIcon(icon).pixmap(size, size));
  row.icon->setToolTip(PipelineRunner::stateName(state));
  QFont font = row.name->font();
  font.setBold(state == PipelineRunner::StepState::Running);
  row.name->setFont(font);
  row.name->setEnabled(state != PipelineRunner::StepState::Pending &&
                       state != PipelineRunner::StepState::Cancelled);

  QString detail = m_runner->stepDetail(step);
  if (state == PipelineRunner::StepState::Running) {
    const std::optional<JobInfo> job = m_jobs->job(m_runner->stepJob(step));
    if (!job) {
      detail = tr("starting…");
    } else if (job->state == JobState::Queued) {
      detail = tr("queued behind other jobs");
      row.progress->setRange(0, 1000);
      row.progress->setValue(0);
    } else if (job->state == JobState::Running) {
      detail = job->message.isEmpty() ? job->stage : job->stage + QStringLiteral(": ") + job->message;
      if (job->fraction >= 0) {
        row.progress->setRange(0, 1000);
        row.progress->setValue(static_cast<int>(job->fraction * 1000));
      } else {
        row.progress->setRange(0, 0); // busy
      }
    } else {
      detail = tr("taking in the result…");
    }
  } else if (state == PipelineRunner::StepState::Succeeded && detail.isEmpty()) {
    // What the engine said last: the table written, the comparison's outcome, the simulated latency.
    if (const std::optional<JobInfo> job = m_jobs->job(m_runner->stepJob(step)))
      detail = job->message;
  }
  // Paths shortened to their file names (the whole text in the tool tip): a cache path fills the row.
  static const QRegularExpression path(QStringLiteral("(?:/[^\\s/]+)+/([^\\s/]+)"));
  QString shown = detail;
  shown.replace(path, QStringLiteral("\\1"));
  row.detail->setText(shown);
  row.detail->setToolTip(shown == detail ? QString() : detail);
  row.progress->setVisible(state == PipelineRunner::StepState::Running);
  const qint64 ms = m_runner->stepMilliseconds(step);
  row.time->setText(ms > 0 ? seconds(ms) : QString());
}

void PipelineDialog::updateTimes() {
  if (m_runner && m_runner->currentStep() >= 0)
    updateStep(m_runner->currentStep());
}

void PipelineDialog::finish(bool succeeded) {
  m_clock->stop();
  qint64 total = 0;
  QString failure;
  for (int step = 0; step < m_runner->stepCount(); ++step) {
    total += m_runner->stepMilliseconds(step);
    const PipelineRunner::StepState state = m_runner->stepState(step);
    if (failure.isEmpty() && state == PipelineRunner::StepState::Failed)
      failure = tr("%1 failed: %2").arg(m_runner->stepName(step), m_runner->stepDetail(step));
    else if (failure.isEmpty() && state == PipelineRunner::StepState::Cancelled)
      failure = tr("Cancelled at %1.").arg(m_runner->stepName(step));
  }
  m_summary->setText(succeeded ? tr("Done in %1. Open what it made:").arg(seconds(total)) : failure);
  for (QPushButton *button : m_outcomeButtons)
    button->setEnabled(succeeded);
  m_cancel->setEnabled(false);
  if (succeeded && !m_outcomeButtons.empty())
    m_outcomeButtons.front()->setDefault(true);
}

PipelineRunner *PipelineDialog::runner() const { return m_runner; }

QString PipelineDialog::summary() const { return m_summary->text(); }

void PipelineDialog::moveAside() {
  // The view just opened fills the middle of the window: step out of its way to the window's bottom right
  // corner (the other outcome buttons stay at hand).
  QWidget *window = parentWidget() ? parentWidget()->window() : nullptr;
  if (!window)
    return;
  const QRect area = window->frameGeometry();
  const int margin = fontMetrics().height();
  move(area.right() - frameGeometry().width() - margin, area.bottom() - frameGeometry().height() - margin);
}

} // namespace tpuc::ui
