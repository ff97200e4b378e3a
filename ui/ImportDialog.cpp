// The import dialog.
#include "ui/ImportDialog.h"

#include "ui/ImportSettingsForm.h"

#include <QApplication>
#include <QDialogButtonBox>
#include <QPushButton>
#include <QFileInfo>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QStyle>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace tpuc::ui {

ImportDialog::ImportDialog(const QString &modelPath, const project::ImportSettings &current, QWidget *parent)
    : QDialog(parent), m_modelPath(modelPath), m_table(new QTableWidget(0, ColumnCount)),
      m_form(new ImportSettingsForm), m_error(new QLabel) {
  setWindowTitle(tr("Import %1").arg(QFileInfo(modelPath).fileName()));
  if (auto inputs = readOnnxInputsFromFile(modelPath.toStdString()))
    m_inputs = std::move(*inputs);
  else
    m_loadError = QString::fromStdString(inputs.error());

  // Shapes: the project's when they fit the model (re-importing the same model), else the model's with
  // a dynamic batch fixed to 1. Other dynamic dims stay marked for the user to fix.
  auto previous = parseInputShapes(current.inputShapes);
  m_table->setHorizontalHeaderLabels({tr("Input"), tr("Type"), tr("Shape")});
  m_table->setRowCount(static_cast<int>(m_inputs.size()));
  const QIcon warning = QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);
  for (int row = 0; row < static_cast<int>(m_inputs.size()); ++row) {
    const ModelInput &input = m_inputs[row];
    std::vector<std::int64_t> dims = input.dims;
    if (row < static_cast<int>(previous.size()) && previous[row].size() == dims.size())
      for (std::size_t i = 0; i < dims.size(); ++i)
        if (dims[i] < 0 && previous[row][i] > 0)
          dims[i] = previous[row][i];
    if (!dims.empty() && dims[0] < 0)
      dims[0] = 1;
    QStringList parts;
    bool dynamic = false;
    for (std::size_t i = 0; i < dims.size(); ++i) {
      dynamic |= dims[i] < 0;
      parts << (dims[i] >= 0 ? QString::number(dims[i])
                             : input.dimParams[i].empty() ? QStringLiteral("?")
                                                          : QString::fromStdString(input.dimParams[i]));
    }
    auto *name = new QTableWidgetItem(QString::fromStdString(input.name));
    name->setFlags(name->flags() & ~Qt::ItemIsEditable);
    if (dynamic) {
      name->setIcon(warning);
      name->setToolTip(tr("Some dimensions are dynamic: replace them by numbers."));
    }
    auto *type = new QTableWidgetItem(QString::fromStdString(elemTypeName(input.elemType)));
    type->setFlags(type->flags() & ~Qt::ItemIsEditable);
    m_table->setItem(row, NameColumn, name);
    m_table->setItem(row, TypeColumn, type);
    m_table->setItem(row, ShapeColumn, new QTableWidgetItem(parts.join(QLatin1Char(','))));
  }
  m_table->horizontalHeader()->setSectionResizeMode(NameColumn, QHeaderView::ResizeToContents);
  m_table->horizontalHeader()->setSectionResizeMode(TypeColumn, QHeaderView::ResizeToContents);
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->verticalHeader()->hide();
  m_table->setWordWrap(false);
  // As tall as its rows (models have a few inputs), so the preprocessing form keeps the space.
  int rows = 0;
  for (int row = 0; row < std::min(m_table->rowCount(), 8); ++row)
    rows += m_table->verticalHeader()->sectionSize(row);
  m_table->setMaximumHeight(m_table->horizontalHeader()->sizeHint().height() + std::max(rows, fontMetrics().height()) +
                            2 * m_table->frameWidth());

  m_form->setSettings(current);
  m_form->setShapesVisible(false);
  m_error->setWordWrap(true);
  m_error->setVisible(!m_loadError.isEmpty());
  m_error->setText(m_loadError);

  auto *info = new QLabel(tr("<b>%1</b><br>%2").arg(QFileInfo(modelPath).fileName().toHtmlEscaped(),
                                                     QFileInfo(modelPath).absolutePath().toHtmlEscaped()));
  info->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Import"));
  buttons->button(QDialogButtonBox::Ok)->setEnabled(m_loadError.isEmpty());
  connect(buttons, &QDialogButtonBox::accepted, this, &ImportDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto *layout = new QVBoxLayout(this);
  layout->addWidget(info);
  layout->addWidget(new QLabel(tr("Inputs (fix the dynamic dimensions):")));
  layout->addWidget(m_table);
  layout->addWidget(new QLabel(tr("Preprocessing of image inputs:")));
  layout->addWidget(m_form);
  layout->addWidget(m_error);
  layout->addWidget(buttons);
  const QFontMetrics fm = fontMetrics();
  resize(fm.averageCharWidth() * 100, sizeHint().height());
}

std::optional<project::ImportSettings> ImportDialog::settings(QString *error) const {
  auto settings = m_form->settings(error);
  if (!settings)
    return std::nullopt;
  QJsonArray shapes;
  for (int row = 0; row < m_table->rowCount(); ++row) {
    const ModelInput &input = m_inputs[row];
    const QStringList parts = m_table->item(row, ShapeColumn)->text().split(QLatin1Char(','), Qt::SkipEmptyParts);
    if (parts.size() != static_cast<qsizetype>(input.dims.size())) {
      *error = tr("Input '%1' has %2 dimensions, the shape gives %3")
                   .arg(QString::fromStdString(input.name))
                   .arg(input.dims.size())
                   .arg(parts.size());
      return std::nullopt;
    }
    QJsonArray dims;
    for (int i = 0; i < parts.size(); ++i) {
      bool ok = false;
      qint64 dim = parts[i].trimmed().toLongLong(&ok);
      if (!ok || dim <= 0) {
        *error = tr("Input '%1': dimension %2 ('%3') must be a positive number")
                     .arg(QString::fromStdString(input.name))
                     .arg(i)
                     .arg(parts[i].trimmed());
        return std::nullopt;
      }
      dims.append(dim);
    }
    shapes.append(dims);
  }
  settings->inputShapes = QJsonDocument(shapes).toJson(QJsonDocument::Compact).toStdString();
  settings->llm.reset(); // an ONNX model replaces a HuggingFace one: llm_convert's settings no longer apply
  return settings;
}

void ImportDialog::accept() {
  QString error;
  if (!m_loadError.isEmpty() || !settings(&error)) {
    m_error->setText(m_loadError.isEmpty() ? error : m_loadError);
    m_error->show();
    return;
  }
  QDialog::accept();
}

} // namespace tpuc::ui
