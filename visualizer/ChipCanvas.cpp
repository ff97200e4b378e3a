// PainterCanvas and SvgCanvas: the chip views' two drawing surfaces.
#include "visualizer/ChipCanvas.h"

#include <QFile>
#include <QFontMetricsF>
#include <QPainter>
#include <QSaveFile>

#include <cmath>

namespace tpuc::vis {

double Canvas::textWidth(const QString &text, bool bold) const {
  QFont f = m_font;
  f.setBold(bold);
  return QFontMetricsF(f).horizontalAdvance(text);
}

double Canvas::lineHeight() const { return QFontMetricsF(m_font).height(); }

namespace {

Qt::BrushStyle brushOf(Pattern p) {
  switch (p) {
  case Pattern::Hatch:
    return Qt::BDiagPattern;
  case Pattern::Dots:
    return Qt::Dense6Pattern;
  case Pattern::Cross:
    return Qt::DiagCrossPattern;
  case Pattern::Solid:
    break;
  }
  return Qt::SolidPattern;
}

QString elided(const QFont &font, bool bold, const QString &text, double width) {
  QFont f = font;
  f.setBold(bold);
  return QFontMetricsF(f).elidedText(text, Qt::ElideRight, width);
}

} // namespace

// --- PainterCanvas -------------------------------------------------------------------------------

PainterCanvas::PainterCanvas(QPainter &painter) : m_p(painter) { m_font = painter.font(); }

void PainterCanvas::rect(const QRectF &r, const Style &s, const Mark *) {
  QPen pen = s.stroke.alpha() ? QPen(s.stroke, s.strokeWidth, s.strokeStyle) : QPen(Qt::NoPen);
  pen.setCosmetic(true);
  m_p.setPen(Qt::NoPen);
  if (s.fill.alpha())
    m_p.fillRect(r, s.fill);
  if (s.pattern != Pattern::Solid && s.patternColor.alpha())
    m_p.fillRect(r, QBrush(s.patternColor, brushOf(s.pattern)));
  if (pen.style() != Qt::NoPen) {
    m_p.setPen(pen);
    m_p.setBrush(Qt::NoBrush);
    m_p.drawRect(r);
  }
}

void PainterCanvas::line(QPointF a, QPointF b, const QColor &color, double width, Qt::PenStyle style) {
  QPen pen(color, width, style);
  pen.setCosmetic(true);
  m_p.setPen(pen);
  m_p.drawLine(a, b);
}

void PainterCanvas::polyline(const QPolygonF &points, const QColor &color, double width, Qt::PenStyle style) {
  QPen pen(color, width, style);
  pen.setCosmetic(true);
  m_p.setPen(pen);
  m_p.setBrush(Qt::NoBrush);
  m_p.drawPolyline(points);
}

void PainterCanvas::polygon(const QPolygonF &points, const QColor &fill, const QColor &stroke) {
  m_p.setPen(stroke.alpha() ? QPen(stroke) : QPen(Qt::NoPen));
  m_p.setBrush(fill);
  m_p.drawPolygon(points);
}

void PainterCanvas::text(const QRectF &box, Qt::Alignment align, const QString &text, const QColor &color,
                         bool bold) {
  QFont f = m_font;
  f.setBold(bold);
  m_p.setFont(f);
  m_p.setPen(color);
  m_p.drawText(box, static_cast<int>(align), elided(m_font, bold, text, box.width()));
  m_p.setFont(m_font);
}

void PainterCanvas::clip(const QRectF &r) {
  m_p.save();
  m_p.setClipRect(r, Qt::IntersectClip);
}

void PainterCanvas::clearClip() { m_p.restore(); }

// --- SvgCanvas -----------------------------------------------------------------------------------

namespace {

/// Coordinates with at most two decimals, trailing zeros dropped ("12", "12.5", "12.25").
QString num(double v) {
  double r = std::round(v * 100.0) / 100.0;
  if (r == std::floor(r) && std::fabs(r) < 1e15)
    return QString::number(static_cast<qlonglong>(r));
  QString s = QString::number(r, 'f', 2);
  while (s.endsWith(QLatin1Char('0')))
    s.chop(1);
  return s;
}

QString colorAttr(const char *name, const QColor &c) {
  if (!c.isValid() || c.alpha() == 0)
    return QStringLiteral(" %1=\"none\"").arg(QLatin1String(name));
  QString s = QStringLiteral(" %1=\"%2\"").arg(QLatin1String(name), c.name(QColor::HexRgb));
  if (c.alpha() < 255)
    s += QStringLiteral(" %1-opacity=\"%2\"").arg(QLatin1String(name), num(c.alphaF()));
  return s;
}

QString dashAttr(Qt::PenStyle style, double width) {
  switch (style) {
  case Qt::DashLine:
    return QStringLiteral(" stroke-dasharray=\"%1 %2\"").arg(num(4 * width), num(3 * width));
  case Qt::DotLine:
    return QStringLiteral(" stroke-dasharray=\"%1 %2\"").arg(num(width), num(2 * width));
  default:
    return {};
  }
}

QString escaped(const QString &s) { return s.toHtmlEscaped(); }

QString markAttrs(const Mark *m) {
  if (!m)
    return {};
  QString s;
  if (!m->cls.isEmpty())
    s += QStringLiteral(" class=\"%1\"").arg(escaped(m->cls));
  if (!m->op.isEmpty())
    s += QStringLiteral(" data-op=\"%1\"").arg(escaped(m->op));
  for (const auto &[k, v] : m->data)
    s += QStringLiteral(" data-%1=\"%2\"").arg(k, escaped(v));
  return s;
}

QString polyPoints(const QPolygonF &pts) {
  QStringList parts;
  parts.reserve(pts.size());
  for (const QPointF &p : pts)
    parts << num(p.x()) + QLatin1Char(',') + num(p.y());
  return parts.join(QLatin1Char(' '));
}

} // namespace

SvgCanvas::SvgCanvas(QSizeF size, const QColor &background) : m_size(size), m_background(background) {
  m_font = QFont(QStringLiteral("DejaVu Sans"));
  m_font.setPixelSize(12);
}

QString SvgCanvas::patternId(const Style &s) {
  QString key = QStringLiteral("%1-%2").arg(static_cast<int>(s.pattern)).arg(s.patternColor.name(QColor::HexArgb));
  int index = static_cast<int>(m_patterns.indexOf(key));
  if (index < 0) {
    index = static_cast<int>(m_patterns.size());
    m_patterns << key;
    QString id = QStringLiteral("p%1").arg(index);
    QString stroke = colorAttr("stroke", s.patternColor);
    QString shape;
    switch (s.pattern) {
    case Pattern::Hatch:
      shape = QStringLiteral("<path d=\"M-1,1 l2,-2 M0,6 l6,-6 M5,7 l2,-2\"%1 stroke-width=\"1\"/>").arg(stroke);
      break;
    case Pattern::Dots:
      shape = QStringLiteral("<circle cx=\"3\" cy=\"3\" r=\"0.9\"%1/>").arg(colorAttr("fill", s.patternColor));
      break;
    case Pattern::Cross:
      shape = QStringLiteral("<path d=\"M0,0 l6,6 M6,0 l-6,6\"%1 stroke-width=\"0.8\"/>").arg(stroke);
      break;
    case Pattern::Solid:
      break;
    }
    m_defs += QStringLiteral("<pattern id=\"%1\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">%2"
                             "</pattern>\n")
                  .arg(id, shape);
  }
  return QStringLiteral("p%1").arg(index);
}

void SvgCanvas::rect(const QRectF &r, const Style &s, const Mark *mark) {
  QString geometry = QStringLiteral(" x=\"%1\" y=\"%2\" width=\"%3\" height=\"%4\"")
                         .arg(num(r.x()), num(r.y()), num(std::max(0.0, r.width())), num(std::max(0.0, r.height())));
  QString stroke = s.stroke.alpha() ? colorAttr("stroke", s.stroke) +
                                          QStringLiteral(" stroke-width=\"%1\"").arg(num(s.strokeWidth)) +
                                          dashAttr(s.strokeStyle, s.strokeWidth)
                                    : QString();
  QString title = mark && !mark->title.isEmpty() ? QStringLiteral("<title>%1</title>").arg(escaped(mark->title)) : QString();
  bool patterned = s.pattern != Pattern::Solid && s.patternColor.alpha();
  if (!patterned) {
    QString attrs = markAttrs(mark) + geometry + colorAttr("fill", s.fill) + stroke;
    m_body += title.isEmpty() ? QStringLiteral("<rect%1/>\n").arg(attrs)
                              : QStringLiteral("<rect%1>%2</rect>\n").arg(attrs, title);
    return;
  }
  // The fill colour goes into an unmarked rect under the patterned one, so the marked element stays one.
  QString id = patternId(s);
  QString attrs = markAttrs(mark) + geometry + QStringLiteral(" fill=\"url(#%1)\"").arg(id) + stroke;
  QString under = QStringLiteral("<rect%1%2/>").arg(geometry, colorAttr("fill", s.fill));
  m_body += under + (title.isEmpty() ? QStringLiteral("<rect%1/>\n").arg(attrs)
                                     : QStringLiteral("<rect%1>%2</rect>\n").arg(attrs, title));
}

void SvgCanvas::line(QPointF a, QPointF b, const QColor &color, double width, Qt::PenStyle style) {
  m_body += QStringLiteral("<line x1=\"%1\" y1=\"%2\" x2=\"%3\" y2=\"%4\"%5 stroke-width=\"%6\"%7/>\n")
                .arg(num(a.x()), num(a.y()), num(b.x()), num(b.y()), colorAttr("stroke", color), num(width),
                     dashAttr(style, width));
}

void SvgCanvas::polyline(const QPolygonF &points, const QColor &color, double width, Qt::PenStyle style) {
  m_body += QStringLiteral("<polyline points=\"%1\" fill=\"none\"%2 stroke-width=\"%3\"%4/>\n")
                .arg(polyPoints(points), colorAttr("stroke", color), num(width), dashAttr(style, width));
}

void SvgCanvas::polygon(const QPolygonF &points, const QColor &fill, const QColor &stroke) {
  m_body += QStringLiteral("<polygon points=\"%1\"%2%3/>\n")
                .arg(polyPoints(points), colorAttr("fill", fill), colorAttr("stroke", stroke));
}

void SvgCanvas::text(const QRectF &box, Qt::Alignment align, const QString &text, const QColor &color, bool bold) {
  QString shown = elided(m_font, bold, text, box.width());
  if (shown.isEmpty())
    return;
  QFontMetricsF fm(m_font);
  double x = box.left();
  QString anchor = QStringLiteral("start");
  if (align & Qt::AlignHCenter) {
    x = box.center().x();
    anchor = QStringLiteral("middle");
  } else if (align & Qt::AlignRight) {
    x = box.right();
    anchor = QStringLiteral("end");
  }
  double y = box.top() + fm.ascent();
  if (align & Qt::AlignVCenter)
    y = box.center().y() + (fm.ascent() - fm.descent()) / 2;
  else if (align & Qt::AlignBottom)
    y = box.bottom() - fm.descent();
  m_body += QStringLiteral("<text x=\"%1\" y=\"%2\" text-anchor=\"%3\"%4%5>%6</text>\n")
                .arg(num(x), num(y), anchor, colorAttr("fill", color),
                     bold ? QStringLiteral(" font-weight=\"bold\"") : QString(), escaped(shown));
}

void SvgCanvas::clip(const QRectF &r) {
  clearClip();
  QString id = QStringLiteral("c%1").arg(m_clips++);
  m_defs += QStringLiteral("<clipPath id=\"%1\"><rect x=\"%2\" y=\"%3\" width=\"%4\" height=\"%5\"/></clipPath>\n")
                .arg(id, num(r.x()), num(r.y()), num(r.width()), num(r.height()));
  m_body += QStringLiteral("<g clip-path=\"url(#%1)\">\n").arg(id);
  m_clipOpen = true;
}

void SvgCanvas::clearClip() {
  if (m_clipOpen)
    m_body += QStringLiteral("</g>\n");
  m_clipOpen = false;
}

void SvgCanvas::beginGroup(const Mark &mark) {
  m_body += QStringLiteral("<g%1>").arg(markAttrs(&mark));
  if (!mark.title.isEmpty())
    m_body += QStringLiteral("<title>%1</title>").arg(escaped(mark.title));
  m_body += QLatin1Char('\n');
  ++m_groupDepth;
}

void SvgCanvas::endGroup() {
  if (m_groupDepth <= 0)
    return;
  --m_groupDepth;
  m_body += QStringLiteral("</g>\n");
}

QString SvgCanvas::document() const {
  QString doc = QStringLiteral("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                               "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%1\" height=\"%2\" "
                               "viewBox=\"0 0 %1 %2\" font-family=\"%3\" font-size=\"%4\">\n")
                    .arg(num(m_size.width()), num(m_size.height()), m_font.family().toHtmlEscaped(),
                         num(m_font.pixelSize() > 0 ? m_font.pixelSize() : m_font.pointSizeF() * 4.0 / 3.0));
  if (!m_defs.isEmpty())
    doc += QStringLiteral("<defs>\n") + m_defs + QStringLiteral("</defs>\n");
  doc += QStringLiteral("<rect width=\"100%\" height=\"100%\"%1/>\n").arg(colorAttr("fill", m_background));
  doc += m_body;
  if (m_clipOpen)
    doc += QStringLiteral("</g>\n");
  for (int i = 0; i < m_groupDepth; ++i)
    doc += QStringLiteral("</g>\n");
  doc += QStringLiteral("</svg>\n");
  return doc;
}

bool SvgCanvas::save(const QString &path, QString *error) const {
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly)) {
    if (error)
      *error = QStringLiteral("%1: cannot write (%2)").arg(path, f.errorString());
    return false;
  }
  f.write(document().toUtf8());
  if (!f.commit()) {
    if (error)
      *error = QStringLiteral("%1: write failed (%2)").arg(path, f.errorString());
    return false;
  }
  return true;
}

} // namespace tpuc::vis
