// The search_qtable curve: cosine against simulated latency per greedy step, and "Use this table".
#include "ui/views/SearchQtableView.h"
#include "visualizer/ChartTheme.h"

#include "ui/Background.h"
#include "ui/MixedPrecision.h"

#include <QChart>
#include <QChartView>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPushButton>
#include <QScatterSeries>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace tpuc::ui {

namespace {

using vis::blend;

driver::ReadResult<driver::SearchQtableRecord> readRecord(const QString &path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly))
    return {{}, (path + QStringLiteral(": ") + file.errorString()).toStdString()};
  auto read = driver::parseSearchQtable(file.readAll().toStdString());
  if (!read)
    read.error = path.toStdString() + ": " + read.error;
  return read;
}

} // namespace

SearchQtableView::SearchQtableView(StudioContext *context, const QString &recordPath, qint64 configId,
                                   QWidget *parent)
    : QWidget(parent), m_context(context), m_path(recordPath), m_configId(configId),
      m_summary(new QLabel(this)), m_chart(new QChartView(this)), m_steps(new QTableWidget(this)),
      m_use(new QPushButton(this)) {
  m_summary->setWordWrap(true);
  m_summary->setTextFormat(Qt::RichText);
  m_summary->setContentsMargins(6, 4, 6, 2);
  m_summary->setText(tr("Reading %1…").arg(QFileInfo(recordPath).fileName()));
  m_chart->setRenderHint(QPainter::Antialiasing);
  m_steps->setColumnCount(5);
  m_steps->setHorizontalHeaderLabels(
      {tr("step"), tr("op kept in float"), tr("output cos"), tr("simulated ms"), tr("cycles")});
  m_steps->verticalHeader()->hide();
  m_steps->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_steps->setSelectionMode(QAbstractItemView::SingleSelection);
  m_steps->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_use->setEnabled(false);
  m_use->setToolTip(
      tr("Store the ops of the chosen step and the steps before it as a new quantize table of the "
         "configuration, which then deploys with it (undoable)"));

  auto *side = new QWidget(this);
  auto *sideLayout = new QVBoxLayout(side);
  sideLayout->setContentsMargins(0, 0, 0, 0);
  sideLayout->addWidget(m_steps, 1);
  sideLayout->addWidget(m_use);
  auto *split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(m_chart);
  split->addWidget(side);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  const int em = fontMetrics().horizontalAdvance(QLatin1Char('M'));
  split->setSizes({em * 62, em * 34});
  auto *layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_summary);
  layout->addWidget(split, 1);

  connect(m_steps, &QTableWidget::currentCellChanged, this, [this](int row) {
    if (row < 0 || row >= static_cast<int>(m_record.steps.size()))
      return;
    chooseStep(row);
    if (!m_record.steps[static_cast<size_t>(row)].op.empty())
      m_context->selectOp(QString::fromStdString(m_record.steps[static_cast<size_t>(row)].op));
  });
  connect(m_use, &QPushButton::clicked, this, [this] { useTable(); });

  runInBackground(
      this, [path = m_path] { return readRecord(path); },
      [this](const driver::ReadResult<driver::SearchQtableRecord> &read) {
        if (!read) {
          m_loaded = true;
          m_error = QString::fromStdString(read.error);
          m_summary->setText(QStringLiteral("<b>%1</b>").arg(m_error.toHtmlEscaped()));
          m_context->log(LogLevel::Error, m_error);
          Q_EMIT loaded(m_error);
          return;
        }
        show(read.result);
      });
}

void SearchQtableView::show(const driver::SearchQtableRecord &record) {
  m_record = record;
  const auto &steps = m_record.steps;
  m_steps->setRowCount(static_cast<int>(steps.size()));
  for (size_t i = 0; i < steps.size(); ++i) {
    const driver::SearchStep &s = steps[i];
    const QStringList cells = {
        QString::number(s.step), s.op.empty() ? tr("(INT8 model)") : QString::fromStdString(s.op),
        QString::number(s.cosine, 'f', 6), QString::number(s.latencyMs, 'g', 5), QString::number(s.cycles)};
    for (int c = 0; c < cells.size(); ++c) {
      auto *item = new QTableWidgetItem(cells[c]);
      item->setToolTip(cells[c]);
      if (c != 1)
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      m_steps->setItem(static_cast<int>(i), c, item);
    }
  }
  m_steps->resizeColumnsToContents();
  const driver::SearchStep &first = steps.front(), &last = steps.back();
  m_summary->setText(
      tr("<b>search_qtable</b> on %1 sample(s), chip %2, ops kept in %3: INT8 output cos %4 at %5 ms; "
         "%6 op(s) in float: cos %7 at %8 ms (%9 the expected %10)")
          .arg(m_record.samples)
          .arg(QString::fromStdString(m_record.chip).toHtmlEscaped(),
               QString::fromStdString(m_record.floatMode))
          .arg(first.cosine, 0, 'f', 6)
          .arg(first.latencyMs, 0, 'f', 3)
          .arg(steps.size() - 1)
          .arg(last.cosine, 0, 'f', 6)
          .arg(last.latencyMs, 0, 'f', 3)
          .arg(m_record.reached ? tr("reached") : tr("short of"))
          .arg(m_record.expectedCos, 0, 'f', 5));
  m_loaded = true;
  m_error.clear();
  chooseStep(static_cast<int>(steps.size()) - 1);
  Q_EMIT loaded({});
}

void SearchQtableView::chooseStep(int step) {
  if (m_record.steps.empty())
    return;
  m_chosen = std::clamp(step, 0, static_cast<int>(m_record.steps.size()) - 1);
  if (m_steps->currentRow() != m_chosen)
    m_steps->selectRow(m_chosen);
  m_use->setText(
      m_chosen == 0
          ? tr("Use This Table (step 0 keeps nothing in float)")
          : tr("Use This Table: %n op(s) in float (up to step %1)", nullptr, m_chosen).arg(m_chosen));
  m_use->setEnabled(m_chosen > 0);
  rebuildChart();
}

qint64 SearchQtableView::useTable() {
  if (m_chosen <= 0)
    return -1;
  std::vector<project::QuantEntry> entries;
  for (int k = 1; k <= m_chosen; ++k)
    entries.push_back({m_record.steps[static_cast<size_t>(k)].op, m_record.floatMode});
  const driver::SearchStep &s = m_record.steps[static_cast<size_t>(m_chosen)];
  const std::string comment = "search_qtable step " + std::to_string(m_chosen) + " on " + m_record.chip +
                              ": output cos " + QString::number(s.cosine, 'f', 6).toStdString() +
                              ", simulated " + QString::number(s.latencyMs, 'f', 3).toStdString() + " ms";
  return storeQuantTableForConfig(*m_context, m_configId, "search_qtable step " + std::to_string(m_chosen),
                                  comment, std::move(entries));
}

void SearchQtableView::rebuildChart() {
  const QPalette pal = palette();
  QChart *chart = vis::newChart(pal, tr("output cosine against simulated latency, one point per step"));
  const auto &steps = m_record.steps;
  auto *path = new QLineSeries;
  path->setName(tr("greedy steps"));
  path->setPen(QPen(QColor(0x1f, 0x77, 0xb4), 2));
  double lowCos = m_record.expectedCos, highCos = m_record.expectedCos, lowMs = 1e300, highMs = 0;
  for (const driver::SearchStep &s : steps) {
    path->append(s.latencyMs, s.cosine);
    lowCos = std::min(lowCos, s.cosine);
    highCos = std::max(highCos, s.cosine);
    lowMs = std::min(lowMs, s.latencyMs);
    highMs = std::max(highMs, s.latencyMs);
  }
  chart->addSeries(path);
  // One series per point so each carries its own label (QtCharts labels points by series format).
  const QColor textColor = pal.color(QPalette::Text);
  QFont labelFont = font();
  labelFont.setPointSizeF(labelFont.pointSizeF() * 0.85);
  for (size_t first = 0; first < steps.size();) {
    // Steps that land on the same point (an op whose float mode changes neither the cosine nor the cycles)
    // share one marker and one label, "2: pool_out, 3: flat".
    size_t last = first;
    while (last + 1 < steps.size() && steps[last + 1].latencyMs == steps[first].latencyMs &&
           steps[last + 1].cosine == steps[first].cosine)
      ++last;
    const size_t i = last;
    const bool chosen = m_chosen >= static_cast<int>(first) && m_chosen <= static_cast<int>(last);
    auto *point = new QScatterSeries;
    point->setMarkerSize(fontMetrics().height() * (chosen ? 0.95 : 0.6));
    point->setColor(chosen ? QColor(0xd5, 0x5e, 0x00) : QColor(0x1f, 0x77, 0xb4));
    point->setBorderColor(pal.color(QPalette::Base));
    QStringList parts;
    for (size_t k = first; k <= last; ++k) {
      QString part = steps[k].op.empty()
                         ? tr("0: INT8")
                         : QStringLiteral("%1: %2").arg(k).arg(QString::fromStdString(steps[k].op));
      if (part.size() > 28)
        part = part.left(12) + QStringLiteral("…") + part.right(14);
      parts << part;
    }
    const QString label = parts.join(QStringLiteral(", "));
    first = last + 1;
    point->setPointLabelsFormat(label);
    point->setPointLabelsVisible(true);
    point->setPointLabelsColor(textColor);
    point->setPointLabelsFont(labelFont);
    point->setPointLabelsClipping(false);
    point->append(steps[i].latencyMs, steps[i].cosine);
    point->setName(label);
    chart->addSeries(point);
  }
  auto *target = new QLineSeries;
  target->setName(tr("expected cos %1").arg(m_record.expectedCos, 0, 'f', 5));
  target->setPen(QPen(blend(pal.color(QPalette::Base), pal.color(QPalette::Text), 0.55), 1.5, Qt::DotLine));
  const double msSpan = std::max(1e-3, highMs - lowMs);
  target->append(lowMs - msSpan * 0.1, m_record.expectedCos);
  target->append(highMs + msSpan * 0.35, m_record.expectedCos);
  chart->addSeries(target);

  auto *x = new QValueAxis;
  x->setTitleText(tr("simulated latency (ms) on %1").arg(QString::fromStdString(m_record.chip)));
  x->setRange(lowMs - msSpan * 0.1, highMs + msSpan * 0.35);
  x->setLabelFormat(msSpan < 0.005  ? QStringLiteral("%.5f")
                    : msSpan < 0.05 ? QStringLiteral("%.4f")
                                    : QStringLiteral("%.3f"));
  auto *y = new QValueAxis;
  y->setTitleText(tr("lowest output cosine"));
  const double cosSpan = std::max(1e-5, highCos - lowCos);
  y->setRange(lowCos - cosSpan * 0.12, highCos + cosSpan * 0.18);
  y->setLabelFormat(cosSpan < 0.001  ? QStringLiteral("%.6f")
                    : cosSpan < 0.01 ? QStringLiteral("%.5f")
                                     : QStringLiteral("%.4f"));
  vis::attachAxes(chart, x, y, pal);
  // The legend names the path and the target; the points carry their own labels.
  for (QLegendMarker *marker : chart->legend()->markers())
    marker->setVisible(marker->series() == path || marker->series() == target);
  for (QAbstractSeries *series : chart->series())
    if (auto *scatter = qobject_cast<QScatterSeries *>(series))
      connect(scatter, &QXYSeries::clicked, this, [this](const QPointF &p) {
        for (size_t i = 0; i < m_record.steps.size(); ++i)
          if (m_record.steps[i].latencyMs == p.x() && m_record.steps[i].cosine == p.y())
            return chooseStep(static_cast<int>(i));
      });
  QChart *old = m_chart->chart();
  m_chart->setChart(chart);
  delete old;
}

} // namespace tpuc::ui
