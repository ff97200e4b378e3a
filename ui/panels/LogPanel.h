// The log panel: every message the context records, with time and level.
#ifndef TPUC_UI_PANELS_LOGPANEL_H
#define TPUC_UI_PANELS_LOGPANEL_H

#include "ui/StudioContext.h"

#include <QWidget>

class QPlainTextEdit;

namespace tpuc::ui {

class LogPanel : public QWidget {
  Q_OBJECT
public:
  /// Sized in characters and lines, so the first-run layout scales with the font and DPI.
  QSize sizeHint() const override;
  explicit LogPanel(StudioContext *context, QWidget *parent = nullptr);
  QString text() const;

private:
  void append(LogLevel level, const QString &text);
  QPlainTextEdit *m_text;
};

} // namespace tpuc::ui

#endif
