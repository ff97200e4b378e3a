// Help ▸ Documentation: the README and docs/*.md read inside the studio — the installed copies
// (`<exe>/../share/doc/tpu-studio`, one flat folder) or a source tree's (`README.md`, `docs/`) — with a list
// of the documents, links between them (a README's `docs/X.md` finds X.md in the flat installed folder),
// headings as link targets (`#cost-model`), back and forward, and a search over all documents.
#ifndef TPUC_UI_DOCUMENTATIONBROWSER_H
#define TPUC_UI_DOCUMENTATIONBROWSER_H

#include <QStringList>
#include <QUrl>
#include <QWidget>

class QLabel;
class QLineEdit;
class QListWidget;
class QTextBrowser;
class QToolButton;

namespace tpuc::ui {

/// The documentation beside this program: the installed folder, else the source tree the build lies in.
/// README.md first, then the docs in name order; empty when there is none.
QStringList documentationFiles();

class DocumentationBrowser : public QWidget {
  Q_OBJECT
public:
  /// `files`: the Markdown documents to offer (documentationFiles()).
  explicit DocumentationBrowser(const QStringList &files, QWidget *parent = nullptr);

  /// Shows document `file` (one of the list, or another .md beside them) at heading `anchor` (GitHub's
  /// slug of the heading's text) when given. False when there is no such document.
  bool showDocument(const QString &file, const QString &anchor = {});
  /// Follows a link as a click on it would: another document (relative to the one shown, else by file
  /// name among the documents), a heading of this one, or a web address (the desktop's browser).
  void followLink(const QUrl &link);
  /// The document shown, and the documents the list offers (all, or those matching the search).
  QString currentFile() const;
  QStringList listedFiles() const;
  /// Filters the list to the documents containing `text` (case-insensitive) and finds it in the one shown.
  void search(const QString &text);
  QTextBrowser *textBrowser() const { return m_text; }
  /// GitHub's anchor of a heading: lower case, spaces to '-', punctuation other than '-' and '_' dropped.
  static QString headingSlug(const QString &heading);

private:
  void addHeadingAnchors();
  void updateNavigation();
  QString resolve(const QUrl &link) const;

  QStringList m_files;
  QStringList m_contents; ///< lower-cased text of each file, for the search
  QListWidget *m_list;
  QLineEdit *m_search;
  QTextBrowser *m_text;
  QToolButton *m_back, *m_forward;
  QLabel *m_status;
};

} // namespace tpuc::ui

#endif
