// The log panel.
#include "ui/panels/LogPanel.h"

#include <QFontDatabase>
#include <QPlainTextEdit>
#include <QTime>
#include <QVBoxLayout>

namespace tpuc::ui {

namespace {
// Bound the document so a chatty job cannot grow the log without limit.
constexpr int kMaxBlocks = 10000;
} // namespace

LogPanel::LogPanel(StudioContext *context, QWidget *parent) : QWidget(parent), m_text(new QPlainTextEdit(this)) {
  auto *layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_text);
  m_text->setReadOnly(true);
  m_text->setMaximumBlockCount(kMaxBlocks);
  m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  connect(context, &StudioContext::logMessage, this, &LogPanel::append);
}

QString LogPanel::text() const { return m_text->toPlainText(); }

void LogPanel::append(LogLevel level, const QString &text) {
  const char *tag = level == LogLevel::Error ? "error" : level == LogLevel::Warning ? "warning" : "info";
  m_text->appendPlainText(QStringLiteral("%1 %2: %3")
                              .arg(QTime::currentTime().toString(QStringLiteral("HH:mm:ss")),
                                   QLatin1String(tag), text));
}

QSize LogPanel::sizeHint() const {
  const QFontMetrics fm = fontMetrics();
  return {fm.averageCharWidth() * 80, fm.height() * 8};
}

} // namespace tpuc::ui
