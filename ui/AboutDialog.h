// The About dialog: name, version, what the studio is, and the Qt version it runs on.
#ifndef TPUC_UI_ABOUTDIALOG_H
#define TPUC_UI_ABOUTDIALOG_H

#include <QDialog>

namespace tpuc::ui {

/// The studio's version string (the CMake project version).
QString studioVersion();

class AboutDialog : public QDialog {
  Q_OBJECT
public:
  explicit AboutDialog(QWidget *parent = nullptr);
};

} // namespace tpuc::ui

#endif
