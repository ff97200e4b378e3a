// One drawing surface for the chip views: the widgets paint through it onto the screen, `tpuc view` onto a
// PNG or into an SVG whose elements carry class and data-op attributes (same drawing code everywhere).
#ifndef TPUC_VISUALIZER_CHIPCANVAS_H
#define TPUC_VISUALIZER_CHIPCANVAS_H

#include <QColor>
#include <QFont>
#include <QPointF>
#include <QPolygonF>
#include <QRectF>
#include <QString>

class QPainter;

namespace tpuc::vis {

/// What an element stands for, written into the SVG: `class`, `data-op` and further `data-*` attributes,
/// plus a tooltip (`<title>`). The screen ignores it.
struct Mark {
  QString cls;
  QString op;
  QString title;
  /// Further attributes as `data-name="value"` pairs ("group" -> data-group="3").
  QList<QPair<QString, QString>> data;
};

/// Fill patterns tell buffer kinds apart without colour (printing, colour blindness).
enum class Pattern { Solid, Hatch, Dots, Cross };

struct Style {
  QColor fill = Qt::transparent;
  QColor stroke = Qt::transparent;
  double strokeWidth = 1;
  Qt::PenStyle strokeStyle = Qt::SolidLine;
  Pattern pattern = Pattern::Solid;
  QColor patternColor = Qt::transparent; ///< Lines of the pattern over the fill.
};

class Canvas {
public:
  virtual ~Canvas() = default;
  virtual void rect(const QRectF &r, const Style &style, const Mark *mark = nullptr) = 0;
  virtual void line(QPointF a, QPointF b, const QColor &color, double width = 1,
                    Qt::PenStyle style = Qt::SolidLine) = 0;
  virtual void polyline(const QPolygonF &points, const QColor &color, double width = 1,
                        Qt::PenStyle style = Qt::SolidLine) = 0;
  /// A closed, filled polygon (occupancy areas).
  virtual void polygon(const QPolygonF &points, const QColor &fill, const QColor &stroke = Qt::transparent) = 0;
  /// Text in `box`, elided to its width; `bold` for titles.
  virtual void text(const QRectF &box, Qt::Alignment align, const QString &text, const QColor &color,
                    bool bold = false) = 0;
  /// Restricts drawing to `r` until clearClip (one level).
  virtual void clip(const QRectF &r) = 0;
  virtual void clearClip() = 0;
  /// Opens an element group carrying `mark` (SVG `<g>`); drawing inside belongs to it.
  virtual void beginGroup(const Mark &mark) { (void)mark; }
  virtual void endGroup() {}
  /// True for exports that want every element drawn on its own (no level of detail).
  virtual bool fullDetail() const { return false; }

  const QFont &font() const { return m_font; }
  void setFont(const QFont &font) { m_font = font; }
  /// Width of `text` in the canvas font.
  double textWidth(const QString &text, bool bold = false) const;
  double lineHeight() const;

protected:
  QFont m_font;
};

/// Paints onto a QPainter (widgets, PNG export).
class PainterCanvas final : public Canvas {
public:
  explicit PainterCanvas(QPainter &painter);
  void rect(const QRectF &r, const Style &style, const Mark *mark = nullptr) override;
  void line(QPointF a, QPointF b, const QColor &color, double width, Qt::PenStyle style) override;
  void polyline(const QPolygonF &points, const QColor &color, double width, Qt::PenStyle style) override;
  void polygon(const QPolygonF &points, const QColor &fill, const QColor &stroke) override;
  void text(const QRectF &box, Qt::Alignment align, const QString &text, const QColor &color, bool bold) override;
  void clip(const QRectF &r) override;
  void clearClip() override;

private:
  QPainter &m_p;
};

/// Writes SVG 1.1 text. Every rect with a mark becomes one element with its class and data attributes.
class SvgCanvas final : public Canvas {
public:
  SvgCanvas(QSizeF size, const QColor &background);
  void rect(const QRectF &r, const Style &style, const Mark *mark = nullptr) override;
  void line(QPointF a, QPointF b, const QColor &color, double width, Qt::PenStyle style) override;
  void polyline(const QPolygonF &points, const QColor &color, double width, Qt::PenStyle style) override;
  void polygon(const QPolygonF &points, const QColor &fill, const QColor &stroke) override;
  void text(const QRectF &box, Qt::Alignment align, const QString &text, const QColor &color, bool bold) override;
  void clip(const QRectF &r) override;
  void clearClip() override;
  void beginGroup(const Mark &mark) override;
  void endGroup() override;
  bool fullDetail() const override { return true; }

  /// The whole document.
  QString document() const;
  /// Writes the document; false with a one-line error naming the file.
  bool save(const QString &path, QString *error) const;

private:
  QString patternId(const Style &style);
  QString m_defs, m_body;
  QSizeF m_size;
  QColor m_background;
  QStringList m_patterns;
  int m_clips = 0;
  bool m_clipOpen = false;
  int m_groupDepth = 0;
};

} // namespace tpuc::vis

#endif
