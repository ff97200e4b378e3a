// Where the GUI tests put their screenshots (TPUC_SCREENSHOT_DIR, set per test target) and how they take one.
#ifndef TPUC_TESTS_GUI_SCREENSHOTS_H
#define TPUC_TESTS_GUI_SCREENSHOTS_H

#include <QApplication>
#include <QDir>
#include <QImage>
#include <QString>
#include <QWidget>
#include <QtTest>

namespace tpuc::ui::guitest {

/// The screenshot folder, made if missing.
inline QString screenshotDir() {
  QDir().mkpath(QStringLiteral(TPUC_SCREENSHOT_DIR));
  return QStringLiteral(TPUC_SCREENSHOT_DIR);
}

/// Saves a picture of `widget` as `name` (a PNG) in the screenshot folder, after the pending layouts (a
/// resize just before the grab); a failure fails the running test.
inline void saveScreenshot(QWidget &widget, const QString &name) {
  QApplication::processEvents();
  const QImage image = widget.grab().toImage();
  QVERIFY(!image.isNull());
  QVERIFY2(image.save(screenshotDir() + QLatin1Char('/') + name, "PNG"), qPrintable(name));
}

} // namespace tpuc::ui::guitest

#endif
