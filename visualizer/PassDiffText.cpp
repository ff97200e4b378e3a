// The IR text diff of one pass.
#include "visualizer/PassDiffText.h"
#include "visualizer/ChartTheme.h"

#include <QFontDatabase>
#include <QRegularExpression>
#include <QTextBlock>
#include <QTextCursor>

namespace tpuc::vis {
namespace {

/// `c` blended into the base colour: readable on light and dark palettes alike.
bool isDark(const QPalette &palette) { return palette.color(QPalette::Base).lightness() < 128; }

QString foldText(std::size_t lines) {
  return lines == 1 ? PassDiffText::tr("⋯ 1 unchanged line") : PassDiffText::tr("⋯ %1 unchanged lines").arg(lines);
}

} // namespace

MlirHighlighter::MlirHighlighter(QTextDocument *document, bool dark) : QSyntaxHighlighter(document), m_dark(dark) {}

void MlirHighlighter::highlightBlock(const QString &text) {
  const bool dark = m_dark;
  struct Rule {
    QRegularExpression pattern;
    QColor light, darkColor;
    bool bold = false;
  };
  static const std::vector<Rule> rules = {
      {QRegularExpression(QStringLiteral(R"(\b[a-z_]+\.[a-z_][a-z0-9_.]*\b)")), QColor(0x00, 0x4d, 0xa6),
       QColor(0x7c, 0xb7, 0xff), true},                                                        // op names
      {QRegularExpression(QStringLiteral(R"(%[A-Za-z0-9_#:]+)")), QColor(0x7a, 0x3e, 0x9d),
       QColor(0xd0, 0x9c, 0xf0)},                                                              // SSA values
      {QRegularExpression(QStringLiteral(R"(\b(tensor|memref|vector|none|array|dense)\b|![a-z_.]+|\b[fi](8|16|32|64)\b|\bbf16\b)")),
       QColor(0x0b, 0x7a, 0x5c), QColor(0x6f, 0xd6, 0xb4)},                                    // types
      {QRegularExpression(QStringLiteral(R"(\b[a-z_][a-z0-9_]*(?= = ))")), QColor(0x8a, 0x5a, 0x00),
       QColor(0xe6, 0xb4, 0x5a)},                                                              // attribute names
      {QRegularExpression(QStringLiteral(R"(\b-?\d+(\.\d+)?(e[-+]?\d+)?\b)")), QColor(0x9c, 0x3d, 0x00),
       QColor(0xf0, 0x9a, 0x6a)},                                                              // numbers
      {QRegularExpression(QStringLiteral(R"("(?:[^"\\]|\\.)*")")), QColor(0xa3, 0x15, 0x15),
       QColor(0xf0, 0x8c, 0x8c)},                                                              // strings
  };
  for (const Rule &rule : rules) {
    QTextCharFormat format;
    format.setForeground(dark ? rule.darkColor : rule.light);
    if (rule.bold)
      format.setFontWeight(QFont::DemiBold);
    for (auto it = rule.pattern.globalMatch(text); it.hasNext();) {
      auto m = it.next();
      setFormat(static_cast<int>(m.capturedStart()), static_cast<int>(m.capturedLength()), format);
    }
  }
  // Locations last: dimmed, over whatever the rules above coloured inside them.
  static const QRegularExpression loc(QStringLiteral(R"(\bloc\(.*$)"));
  if (auto m = loc.match(text); m.hasMatch()) {
    QTextCharFormat format;
    format.setForeground(dark ? QColor(0x8a, 0x8a, 0x8a) : QColor(0x80, 0x80, 0x80));
    format.setFontItalic(true);
    setFormat(static_cast<int>(m.capturedStart()), static_cast<int>(m.capturedLength()), format);
  }
  // The gutter (line numbers and the diff marker) in the plain text colour.
  static const QRegularExpression gutter(QStringLiteral(R"(^[ 0-9]+ [ 0-9]+ [-+ ] )"));
  if (auto m = gutter.match(text); m.hasMatch()) {
    QTextCharFormat format;
    format.setForeground(dark ? QColor(0x90, 0x90, 0x90) : QColor(0x70, 0x70, 0x70));
    setFormat(0, static_cast<int>(m.capturedLength()), format);
  }
}

std::shared_ptr<const TextDiff> makeTextDiff(std::string before, std::string after, bool ignoreSsaNumbers) {
  auto diff = std::make_shared<TextDiff>();
  diff->before = std::move(before);
  diff->after = std::move(after);
  diff->ignoreSsaNumbers = ignoreSsaNumbers;
  if (ignoreSsaNumbers) {
    auto mask = [](const std::vector<std::string_view> &lines) {
      std::vector<std::string> out;
      out.reserve(lines.size());
      for (std::string_view l : lines)
        out.push_back(maskSsaNumbers(l));
      return out;
    };
    const std::vector<std::string> a = mask(splitLines(diff->before)), b = mask(splitLines(diff->after));
    diff->script = diffLines(std::vector<std::string_view>(a.begin(), a.end()), std::vector<std::string_view>(b.begin(), b.end()));
  } else {
    diff->script = diffLines(splitLines(diff->before), splitLines(diff->after));
  }
  for (const DiffLine &l : diff->script) {
    diff->inserted += l.op == DiffOp::Insert;
    diff->deleted += l.op == DiffOp::Delete;
  }
  return diff;
}

PassDiffText::PassDiffText(QWidget *parent) : QPlainTextEdit(parent) {
  setReadOnly(true);
  setLineWrapMode(QPlainTextEdit::NoWrap);
  setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_highlighter = new MlirHighlighter(document(), isDark(palette()));
}

void PassDiffText::setMessage(const QString &text) {
  m_diff.reset();
  setPlainText(text);
}

void PassDiffText::setDiff(std::shared_ptr<const TextDiff> diff, int context) {
  m_diff = std::move(diff);
  clear();
  if (!m_diff)
    return;
  const auto a = splitLines(m_diff->before), b = splitLines(m_diff->after);
  const auto &script = m_diff->script;
  const auto hunks = diffHunks(script, static_cast<std::size_t>(context));
  if (hunks.empty()) {
    setPlainText(tr("The pass left the IR text unchanged."));
    return;
  }
  const QColor base = palette().color(QPalette::Base);
  QTextBlockFormat plain, removed, added, folded;
  removed.setBackground(blend(base, QColor(0xe0, 0x40, 0x40), 0.22));
  added.setBackground(blend(base, QColor(0x30, 0xb0, 0x50), 0.22));
  folded.setBackground(blend(base, palette().color(QPalette::Highlight), 0.10));
  const int width = static_cast<int>(QString::number(std::max(a.size(), b.size())).size());
  QTextCursor cursor(document());
  cursor.beginEditBlock();
  bool first = true;
  auto line = [&](const QTextBlockFormat &format, const QString &text) {
    if (first) {
      cursor.setBlockFormat(format);
      first = false;
    } else {
      cursor.insertBlock(format);
    }
    cursor.insertText(text);
  };
  auto number = [&](std::int64_t n) {
    return n < 0 ? QString(width, QLatin1Char(' ')) : QString::number(n + 1).rightJustified(width);
  };
  std::size_t shown = 0;
  for (const DiffHunk &h : hunks) {
    if (h.begin > shown)
      line(folded, foldText(h.begin - shown));
    for (std::size_t k = h.begin; k < h.end; ++k) {
      const DiffLine &s = script[k];
      // Unchanged lines show the text after the pass (with masked numbers the two may differ in them).
      std::string_view text = s.op == DiffOp::Delete ? a[s.aLine] : b[s.bLine];
      QChar marker = s.op == DiffOp::Equal ? QLatin1Char(' ') : s.op == DiffOp::Delete ? QLatin1Char('-') : QLatin1Char('+');
      line(s.op == DiffOp::Equal ? plain : s.op == DiffOp::Delete ? removed : added,
           number(s.aLine) + QLatin1Char(' ') + number(s.bLine) + QLatin1Char(' ') + marker + QLatin1Char(' ') +
               QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())));
    }
    shown = h.end;
  }
  if (shown < script.size())
    line(folded, foldText(script.size() - shown));
  cursor.endEditBlock();
  moveCursor(QTextCursor::Start);
}

} // namespace tpuc::vis
