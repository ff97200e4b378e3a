// The IR text diff of one pass: unified, syntax highlighted, unchanged stretches folded away.
#ifndef TPUC_VISUALIZER_PASSDIFFTEXT_H
#define TPUC_VISUALIZER_PASSDIFFTEXT_H

#include "tpuc/PassData/PassDiff.h"

#include <QPlainTextEdit>
#include <QSyntaxHighlighter>

#include <memory>

namespace tpuc::vis {

/// Colours MLIR tokens: op names, SSA values, types, attributes, strings, numbers; locations dimmed.
/// Works on plain IR and on diff lines (a leading ' ', '-' or '+' column is skipped).
class MlirHighlighter : public QSyntaxHighlighter {
  Q_OBJECT
public:
  /// `dark`: colours for a dark base colour.
  MlirHighlighter(QTextDocument *document, bool dark);

protected:
  void highlightBlock(const QString &text) override;

private:
  bool m_dark;
};

/// A computed diff: both texts and Myers' edit script over their lines. Made off the UI thread.
struct TextDiff {
  std::string before, after;
  std::vector<DiffLine> script;
  std::size_t inserted = 0, deleted = 0;
  bool ignoreSsaNumbers = false;
};
/// Diffs two IR texts by line; with `ignoreSsaNumbers` lines match with their value numbers masked
/// (maskSsaNumbers), and unchanged lines show the text after the pass.
std::shared_ptr<const TextDiff> makeTextDiff(std::string before, std::string after, bool ignoreSsaNumbers = false);

/// Shows a TextDiff as a unified diff with `context` lines around changes; removed lines on a red,
/// added on a green background (blended into the palette, so dark themes work); folded runs of
/// unchanged lines as one "⋯ N unchanged lines" row. Line numbers of both sides in the gutter text.
class PassDiffText : public QPlainTextEdit {
  Q_OBJECT
public:
  explicit PassDiffText(QWidget *parent = nullptr);

  void setDiff(std::shared_ptr<const TextDiff> diff, int context = 3);
  /// Shows a message instead of a diff (nothing selected, pass changed nothing, load error).
  void setMessage(const QString &text);
  std::shared_ptr<const TextDiff> diff() const { return m_diff; }

private:
  std::shared_ptr<const TextDiff> m_diff;
  MlirHighlighter *m_highlighter;
};

} // namespace tpuc::vis

#endif
