// The guided tour overlay.
#include "ui/GuidedTour.h"

#include <QDockWidget>
#include <QEvent>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QVBoxLayout>

namespace tpuc::ui {

GuidedTour::GuidedTour(QWidget *window, std::vector<TourStep> steps)
    : QWidget(window), m_steps(std::move(steps)) {
  setObjectName(QStringLiteral("GuidedTour"));
  setAttribute(Qt::WA_DeleteOnClose);
  setFocusPolicy(Qt::StrongFocus);
  const int unit = fontMetrics().height();

  m_callout = new QWidget(this);
  m_callout->setObjectName(QStringLiteral("TourCallout"));
  m_callout->setAutoFillBackground(true);
  m_callout->setBackgroundRole(QPalette::ToolTipBase);
  m_callout->setForegroundRole(QPalette::ToolTipText);
  m_title = new QLabel(m_callout);
  QFont bold = m_title->font();
  bold.setBold(true);
  bold.setPointSizeF(bold.pointSizeF() * 1.15);
  m_title->setFont(bold);
  m_text = new QLabel(m_callout);
  m_text->setWordWrap(true);
  m_count = new QLabel(m_callout);
  for (QLabel *label : {m_title, m_text, m_count})
    label->setForegroundRole(QPalette::ToolTipText);
  m_back = new QPushButton(tr("Back"), m_callout);
  m_next = new QPushButton(tr("Next"), m_callout);
  auto *close = new QPushButton(tr("Close"), m_callout);
  m_back->setObjectName(QStringLiteral("TourBack"));
  m_next->setObjectName(QStringLiteral("TourNext"));
  close->setObjectName(QStringLiteral("TourClose"));
  m_next->setDefault(true);
  connect(m_back, &QPushButton::clicked, this, &GuidedTour::back);
  connect(m_next, &QPushButton::clicked, this, &GuidedTour::next);
  connect(close, &QPushButton::clicked, this, &QWidget::close);
  auto *buttons = new QHBoxLayout;
  buttons->addWidget(m_count);
  buttons->addStretch();
  buttons->addWidget(close);
  buttons->addWidget(m_back);
  buttons->addWidget(m_next);
  auto *layout = new QVBoxLayout(m_callout);
  layout->setContentsMargins(unit, unit * 3 / 4, unit, unit * 3 / 4);
  layout->addWidget(m_title);
  layout->addWidget(m_text);
  layout->addLayout(buttons);
  m_callout->setFixedWidth(unit * 24);

  window->installEventFilter(this);
  setGeometry(window->rect());
  raise();
  QWidget::show();
  setFocus();
  showStep(0);
}

QString GuidedTour::currentTitle() const { return m_title->text(); }

void GuidedTour::next() {
  if (m_step + 1 >= stepCount())
    close();
  else
    showStep(m_step + 1);
}

void GuidedTour::back() {
  if (m_step > 0)
    showStep(m_step - 1);
}

void GuidedTour::showStep(int step) {
  m_step = step;
  const TourStep &s = m_steps[static_cast<size_t>(step)];
  // A dock that is hidden or behind another tab is brought forward, so the callout points at something.
  if (QWidget *target = s.target ? s.target() : nullptr)
    for (QWidget *w = target; w; w = w->parentWidget())
      if (auto *dock = qobject_cast<QDockWidget *>(w)) {
        dock->show();
        dock->raise();
      }
  raise(); // above the docks just raised
  m_title->setText(s.title);
  m_text->setText(s.text);
  m_count->setText(tr("%1 of %2").arg(step + 1).arg(stepCount()));
  m_back->setEnabled(step > 0);
  m_next->setText(step + 1 == stepCount() ? tr("Done") : tr("Next"));
  place();
  Q_EMIT stepShown(step);
}

void GuidedTour::place() {
  if (m_step < 0)
    return;
  QWidget *window = parentWidget();
  setGeometry(window->rect());
  const int unit = fontMetrics().height();
  QWidget *target =
      m_steps[static_cast<size_t>(m_step)].target ? m_steps[static_cast<size_t>(m_step)].target() : nullptr;
  m_hole = target && target->isVisible() ? QRect(target->mapTo(window, QPoint(0, 0)), target->size())
                                               .adjusted(-unit / 4, -unit / 4, unit / 4, unit / 4)
                                         : QRect();
  m_callout->adjustSize();
  const QSize size = m_callout->sizeHint().expandedTo(QSize(m_callout->width(), 0));
  // Beside the highlighted panel where there is room (right, left, below, above), else in the middle.
  QRect area = rect().adjusted(unit, unit, -unit, -unit);
  QPoint at = area.center() - QPoint(size.width() / 2, size.height() / 2);
  if (!m_hole.isEmpty()) {
    const int y =
        std::clamp(m_hole.center().y() - size.height() / 2, area.top(), area.bottom() - size.height());
    const int x =
        std::clamp(m_hole.center().x() - size.width() / 2, area.left(), area.right() - size.width());
    if (m_hole.right() + unit + size.width() <= area.right())
      at = {m_hole.right() + unit, y};
    else if (m_hole.left() - unit - size.width() >= area.left())
      at = {m_hole.left() - unit - size.width(), y};
    else if (m_hole.bottom() + unit + size.height() <= area.bottom())
      at = {x, m_hole.bottom() + unit};
    else if (m_hole.top() - unit - size.height() >= area.top())
      at = {x, m_hole.top() - unit - size.height()};
  }
  m_callout->setGeometry(QRect(at, size));
  update();
}

bool GuidedTour::eventFilter(QObject *watched, QEvent *event) {
  if (watched == parentWidget() &&
      (event->type() == QEvent::Resize || event->type() == QEvent::LayoutRequest))
    place();
  return QWidget::eventFilter(watched, event);
}

void GuidedTour::paintEvent(QPaintEvent *) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const int unit = fontMetrics().height();
  // Everything but the highlighted panel is dimmed; the panel gets a frame in the highlight colour.
  p.save();
  p.setClipRegion(m_hole.isEmpty() ? QRegion(rect()) : QRegion(rect()).subtracted(QRegion(m_hole)));
  p.fillRect(rect(), QColor(0, 0, 0, 140));
  p.restore();
  if (!m_hole.isEmpty()) {
    p.setPen(QPen(palette().color(QPalette::Highlight), unit / 5.0));
    p.setBrush(Qt::NoBrush);
    p.drawRoundedRect(QRectF(m_hole), unit / 3.0, unit / 3.0);
  }
  // A frame round the callout, which fills itself.
  p.setPen(QPen(palette().color(QPalette::Highlight), 2));
  p.setBrush(Qt::NoBrush);
  p.drawRect(QRectF(m_callout->geometry()).adjusted(-1, -1, 1, 1));
}

void GuidedTour::keyPressEvent(QKeyEvent *event) {
  switch (event->key()) {
  case Qt::Key_Escape:
    close();
    break;
  case Qt::Key_Right:
  case Qt::Key_Return:
  case Qt::Key_Enter:
    next();
    break;
  case Qt::Key_Left:
    back();
    break;
  default:
    QWidget::keyPressEvent(event);
  }
}

} // namespace tpuc::ui
