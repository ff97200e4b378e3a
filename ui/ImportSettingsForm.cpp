// A form over model_transform's input and preprocessing settings.
#include "ui/ImportSettingsForm.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QRegularExpression>

namespace tpuc::ui {

namespace {

template <typename T> QString joinNumbers(const std::vector<T> &values) {
  QStringList parts;
  for (T v : values)
    parts << QString::number(v);
  return parts.join(QStringLiteral(", "));
}

/// Parses "1, 2.5 3" (commas or spaces); nullopt when a part is not a number.
std::optional<std::vector<double>> parseNumbers(const QString &text) {
  std::vector<double> out;
  for (const QString &part : text.split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts)) {
    bool ok = false;
    double v = part.toDouble(&ok);
    if (!ok)
      return std::nullopt;
    out.push_back(v);
  }
  return out;
}

} // namespace

ImportSettingsForm::ImportSettingsForm(QWidget *parent)
    : QWidget(parent), m_form(new QFormLayout(this)), m_shapes(new QLineEdit), m_mean(new QLineEdit),
      m_scale(new QLineEdit), m_resize(new QLineEdit), m_outputs(new QLineEdit), m_pixelFormat(new QComboBox),
      m_channelFormat(new QComboBox), m_keepAspect(new QCheckBox(tr("Keep aspect ratio"))),
      m_padValue(new QDoubleSpinBox) {
  m_form->setContentsMargins(0, 0, 0, 0);
  m_shapes->setPlaceholderText(QStringLiteral("[[1,3,224,224]]"));
  m_mean->setPlaceholderText(QStringLiteral("123.675, 116.28, 103.53"));
  m_scale->setPlaceholderText(QStringLiteral("0.0171, 0.0175, 0.0174"));
  m_pixelFormat->addItems({"rgb", "bgr", "gray", "rgba"});
  m_channelFormat->addItems({"nchw", "nhwc"});
  m_resize->setPlaceholderText(tr("height, width"));
  m_padValue->setRange(-1e6, 1e6);
  m_outputs->setPlaceholderText(tr("default: the model's outputs"));
  m_form->addRow(tr("Input shapes:"), m_shapes);
  m_form->addRow(tr("Mean:"), m_mean);
  m_form->addRow(tr("Scale:"), m_scale);
  m_form->addRow(tr("Pixel format:"), m_pixelFormat);
  m_form->addRow(tr("Channel format:"), m_channelFormat);
  m_form->addRow(tr("Resize to:"), m_resize);
  m_form->addRow(QString(), m_keepAspect);
  m_form->addRow(tr("Pad value:"), m_padValue);
  m_form->addRow(tr("Output names:"), m_outputs);
}

void ImportSettingsForm::setShapesVisible(bool visible) { m_form->setRowVisible(m_shapes, visible); }

void ImportSettingsForm::setSettings(const project::ImportSettings &s) {
  m_llm = s.llm;
  m_shapes->setText(QString::fromStdString(s.inputShapes));
  m_mean->setText(joinNumbers(s.mean));
  m_scale->setText(joinNumbers(s.scale));
  m_pixelFormat->setCurrentText(QString::fromStdString(s.pixelFormat));
  m_channelFormat->setCurrentText(QString::fromStdString(s.channelFormat));
  m_resize->setText(joinNumbers(s.resizeDims));
  m_keepAspect->setChecked(s.keepAspectRatio);
  m_padValue->setValue(s.padValue);
  m_outputs->setText(QString::fromStdString(s.outputNames));
}

std::optional<project::ImportSettings> ImportSettingsForm::settings(QString *error) const {
  project::ImportSettings s;
  s.llm = m_llm;
  s.inputShapes = m_shapes->text().trimmed().toStdString();
  auto mean = parseNumbers(m_mean->text());
  auto scale = parseNumbers(m_scale->text());
  auto resize = parseNumbers(m_resize->text());
  if (!mean || !scale || !resize) {
    *error = tr("%1 must be a list of numbers").arg(!mean ? tr("Mean") : !scale ? tr("Scale") : tr("Resize"));
    return std::nullopt;
  }
  if (!resize->empty() && resize->size() != 2) {
    *error = tr("Resize needs two numbers: height, width");
    return std::nullopt;
  }
  s.mean = *mean;
  s.scale = *scale;
  for (double v : *resize)
    s.resizeDims.push_back(static_cast<std::int64_t>(v));
  s.pixelFormat = m_pixelFormat->currentText().toStdString();
  s.channelFormat = m_channelFormat->currentText().toStdString();
  s.keepAspectRatio = m_keepAspect->isChecked();
  s.padValue = m_padValue->value();
  s.outputNames = m_outputs->text().trimmed().toStdString();
  return s;
}

} // namespace tpuc::ui
