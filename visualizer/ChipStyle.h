// Colours and patterns of the chip views, derived from the palette so light and dark themes both read.
#ifndef TPUC_VISUALIZER_CHIPSTYLE_H
#define TPUC_VISUALIZER_CHIPSTYLE_H

#include "tpuc/ChipData/Plan.h"
#include "tpuc/ChipData/Trace.h"
#include "visualizer/ChipCanvas.h"

#include <QPalette>

namespace tpuc::vis {

/// The colours one drawing uses, chosen once from a palette.
struct ChipStyle {
  explicit ChipStyle(const QPalette &palette);

  QColor background, text, dimText, grid, axis, capacity, bank, cursor, selection, critical, warning;
  bool dark = false;

  /// A buffer rectangle of `kind`: activations solid, weights hatched, intermediates (scratch) dotted.
  Style buffer(chip::BufferKind kind, bool selected = false, bool hovered = false) const;
  QColor bufferColor(chip::BufferKind kind) const;
  /// A command by what it does (weight loads apart from activation loads).
  QColor command(chip::CmdKind kind, bool weight) const;
  /// A stable colour per op index (the op lane).
  QColor opColor(int op) const;
  /// Compute-bound vs memory-bound groups.
  QColor groupColor(bool memoryBound) const;
  /// `c` blended toward the background by `amount` (0..1): faded for low level-of-detail density.
  QColor faded(const QColor &c, double amount) const;
  /// Text colour readable on `fill`.
  QColor textOn(const QColor &fill) const;
};

/// "12,288" (thousands separated); "1.2 MiB" style sizes.
QString groupedNumber(qint64 v);
QString byteSize(qint64 bytes);
/// Cycles with their time at `mhz`: "1,234 cycles (1.30 µs)".
QString cyclesText(qint64 cycles, double mhz);

} // namespace tpuc::vis

#endif
