// Chip view colours from the palette.
#include "visualizer/ChipStyle.h"

#include <QLocale>

#include <cmath>

namespace tpuc::vis {

namespace {

QColor mix(const QColor &a, const QColor &b, double t) {
  return QColor::fromRgbF(static_cast<float>(a.redF() * (1 - t) + b.redF() * t),
                          static_cast<float>(a.greenF() * (1 - t) + b.greenF() * t),
                          static_cast<float>(a.blueF() * (1 - t) + b.blueF() * t));
}

} // namespace

ChipStyle::ChipStyle(const QPalette &palette) {
  background = palette.color(QPalette::Base);
  text = palette.color(QPalette::Text);
  dark = background.lightnessF() < 0.5;
  dimText = mix(text, background, 0.35);
  grid = mix(text, background, 0.85);
  axis = mix(text, background, 0.55);
  capacity = dark ? QColor(255, 110, 110) : QColor(200, 30, 30);
  bank = mix(text, background, 0.7);
  cursor = dark ? QColor(255, 200, 60) : QColor(220, 120, 0);
  selection = palette.color(QPalette::Highlight);
  critical = dark ? QColor(255, 90, 90) : QColor(210, 20, 40);
  warning = dark ? QColor(255, 120, 100) : QColor(220, 50, 40);
}

QColor ChipStyle::bufferColor(chip::BufferKind kind) const {
  // Mid-saturation hues that keep their contrast against white and near-black backgrounds.
  switch (kind) {
  case chip::BufferKind::Input:
    return dark ? QColor(80, 140, 220) : QColor(100, 150, 225);
  case chip::BufferKind::Weight:
    return dark ? QColor(210, 150, 50) : QColor(235, 175, 70);
  case chip::BufferKind::Intermediate:
    return dark ? QColor(80, 170, 110) : QColor(110, 190, 130);
  case chip::BufferKind::Output:
    return dark ? QColor(160, 110, 210) : QColor(170, 125, 220);
  }
  return grid;
}

Style ChipStyle::buffer(chip::BufferKind kind, bool selected, bool hovered) const {
  Style s;
  QColor base = bufferColor(kind);
  s.fill = hovered ? base.lighter(115) : base;
  s.stroke = selected ? selection : mix(base, text, 0.45);
  s.strokeWidth = selected ? 2.5 : 1;
  QColor lines = mix(base, dark ? QColor(0, 0, 0) : QColor(40, 40, 40), 0.55);
  switch (kind) {
  case chip::BufferKind::Weight:
    s.pattern = Pattern::Hatch;
    s.patternColor = lines;
    break;
  case chip::BufferKind::Intermediate:
    s.pattern = Pattern::Dots;
    s.patternColor = lines;
    break;
  default:
    break;
  }
  return s;
}

QColor ChipStyle::command(chip::CmdKind kind, bool weight) const {
  switch (kind) {
  case chip::CmdKind::Compute:
    return dark ? QColor(60, 170, 170) : QColor(40, 150, 150);
  case chip::CmdKind::Global:
    return dark ? QColor(90, 120, 200) : QColor(70, 100, 190);
  case chip::CmdKind::Load:
    return weight ? bufferColor(chip::BufferKind::Weight) : bufferColor(chip::BufferKind::Input);
  case chip::CmdKind::Store:
    return bufferColor(chip::BufferKind::Output);
  case chip::CmdKind::Copy:
    return mix(text, background, 0.5);
  case chip::CmdKind::Sync: // waiting for the other cores: faint, so work stands out
    return mix(text, background, 0.8);
  }
  return mix(text, background, 0.6);
}

QColor ChipStyle::opColor(int op) const {
  if (op < 0)
    return grid;
  // Golden-ratio hue steps: neighbouring ops get distinct hues.
  double hue = std::fmod(0.13 + op * 0.6180339887, 1.0);
  return QColor::fromHsvF(static_cast<float>(hue), dark ? 0.45f : 0.40f, dark ? 0.75f : 0.92f);
}

QColor ChipStyle::groupColor(bool memoryBound) const {
  return memoryBound ? (dark ? QColor(190, 120, 70) : QColor(240, 170, 110))
                     : (dark ? QColor(70, 150, 120) : QColor(120, 200, 160));
}

QColor ChipStyle::faded(const QColor &c, double amount) const { return mix(c, background, std::clamp(amount, 0.0, 1.0)); }

QColor ChipStyle::textOn(const QColor &fill) const {
  // Whichever of near-black and near-white differs more in relative luminance.
  double l = 0.2126 * fill.redF() + 0.7152 * fill.greenF() + 0.0722 * fill.blueF();
  return l > 0.45 ? QColor(20, 20, 20) : QColor(245, 245, 245);
}

QString groupedNumber(qint64 v) {
  QString digits = QString::number(v < 0 ? -v : v);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
    digits.insert(i, QLatin1Char(','));
  return v < 0 ? QLatin1Char('-') + digits : digits;
}

QString byteSize(qint64 bytes) {
  if (bytes < 10 * 1024)
    return groupedNumber(bytes) + QStringLiteral(" B");
  if (bytes < 10 * 1024 * 1024)
    return QString::number(bytes / 1024.0, 'f', 1) + QStringLiteral(" KiB");
  if (bytes < 10ll * 1024 * 1024 * 1024)
    return QString::number(bytes / (1024.0 * 1024.0), 'f', 1) + QStringLiteral(" MiB");
  return QString::number(bytes / (1024.0 * 1024.0 * 1024.0), 'f', 2) + QStringLiteral(" GiB");
}

QString cyclesText(qint64 cycles, double mhz) {
  QString s = groupedNumber(cycles) + QStringLiteral(" cycles");
  if (mhz > 0) {
    double us = cycles / mhz;
    s += us >= 1000 ? QStringLiteral(" (%1 ms)").arg(us / 1000.0, 0, 'f', 3)
                    : QStringLiteral(" (%1 µs)").arg(us, 0, 'f', us < 10 ? 3 : 1);
  }
  return s;
}

} // namespace tpuc::vis
