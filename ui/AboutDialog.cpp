// The About dialog.
#include "ui/AboutDialog.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QVBoxLayout>

namespace tpuc::ui {

QString studioVersion() { return QStringLiteral(TPUC_VERSION); }

AboutDialog::AboutDialog(QWidget *parent) : QDialog(parent) {
  setWindowTitle(tr("About TPU Studio"));
  auto *label = new QLabel(
      tr("<h2>TPU Studio %1</h2>"
         "<p>A studio around an MLIR compiler for neural-network accelerators: import a model, calibrate, "
         "quantize, compile and run it on a simulated TPU-style chip, and see every step.</p>"
         "<p>The simulated chip is a documented architecture model; the compiled model files are "
         "TPU Studio's own format and do not run on real hardware.</p>"
         "<p>Built with Qt %2, running on Qt %3.</p>")
          .arg(studioVersion(), QStringLiteral(QT_VERSION_STR), QString::fromLatin1(qVersion())));
  label->setWordWrap(true);
  label->setTextFormat(Qt::RichText);
  auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto *layout = new QVBoxLayout(this);
  layout->addWidget(label);
  layout->addWidget(buttons);
  label->setMinimumWidth(label->fontMetrics().averageCharWidth() * 60);
}

} // namespace tpuc::ui
