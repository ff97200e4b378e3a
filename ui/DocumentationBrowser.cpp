#include "ui/DocumentationBrowser.h"

#include <QCoreApplication>
#include <QDesktopServices>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSet>
#include <QSplitter>
#include <QStyle>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextCursor>
#include <QToolButton>
#include <QVBoxLayout>

namespace tpuc::ui {

namespace {

QStringList markdownIn(const QDir &dir) {
  QStringList files;
  for (const QString &name : dir.entryList({QStringLiteral("*.md")}, QDir::Files, QDir::Name))
    files << dir.absoluteFilePath(name);
  return files;
}

/// The first "# " heading of a Markdown file, else its name.
QString titleOf(const QString &file, const QString &text) {
  for (const QString &line : QStringView(text).left(4096).toString().split(QLatin1Char('\n')))
    if (line.startsWith(QLatin1String("# ")))
      return line.mid(2).trimmed();
  return QFileInfo(file).fileName();
}

} // namespace

QStringList documentationFiles() {
  const QDir exe(QCoreApplication::applicationDirPath());
  // Installed: /usr/bin/tpu-studio and /usr/share/doc/tpu-studio (README.md, the docs and the example's
  // README.example.md in one folder).
  const QDir installed(exe.filePath(QStringLiteral("../share/doc/tpu-studio")));
  if (installed.exists(QStringLiteral("README.md"))) {
    QStringList files{installed.absoluteFilePath(QStringLiteral("README.md"))};
    for (const QString &file : markdownIn(installed))
      if (!files.contains(file))
        files << file;
    return files;
  }
  // A build tree inside the source tree: <source>/build/bin.
  for (const QString &up : {QStringLiteral("../.."), QStringLiteral("../../..")}) {
    const QDir source(exe.filePath(up));
    if (!QFileInfo::exists(source.filePath(QStringLiteral("docs/STUDIO.md"))))
      continue;
    QStringList files{source.absoluteFilePath(QStringLiteral("README.md"))};
    files << markdownIn(QDir(source.filePath(QStringLiteral("docs"))));
    const QString example = source.absoluteFilePath(QStringLiteral("resources/example/README.md"));
    if (QFileInfo::exists(example))
      files << example;
    return files;
  }
  return {};
}

QString DocumentationBrowser::headingSlug(const QString &heading) {
  QString slug;
  for (const QChar c : heading.toLower()) {
    if (c.isLetterOrNumber() || c == QLatin1Char('-') || c == QLatin1Char('_'))
      slug += c;
    else if (c == QLatin1Char(' '))
      slug += QLatin1Char('-');
  }
  return slug;
}

DocumentationBrowser::DocumentationBrowser(const QStringList &files, QWidget *parent)
    : QWidget(parent), m_files(files) {
  setWindowTitle(tr("TPU Studio Documentation"));
  auto *layout = new QVBoxLayout(this);
  auto *bar = new QHBoxLayout;
  m_back = new QToolButton;
  m_back->setIcon(style()->standardIcon(QStyle::SP_ArrowBack));
  m_back->setToolTip(tr("Back (Alt+Left)"));
  m_back->setShortcut(QKeySequence::Back);
  m_forward = new QToolButton;
  m_forward->setIcon(style()->standardIcon(QStyle::SP_ArrowForward));
  m_forward->setToolTip(tr("Forward (Alt+Right)"));
  m_forward->setShortcut(QKeySequence::Forward);
  m_search = new QLineEdit;
  m_search->setPlaceholderText(tr("Search all documents (Enter: next match)"));
  m_search->setClearButtonEnabled(true);
  bar->addWidget(m_back);
  bar->addWidget(m_forward);
  bar->addWidget(m_search, 1);
  layout->addLayout(bar);

  auto *split = new QSplitter;
  m_list = new QListWidget;
  m_list->setWordWrap(true); // titles are sentences ("Backend: chip profiles, layer groups, …")
  m_list->setSpacing(2);
  m_text = new QTextBrowser;
  m_text->setOpenLinks(false); // followLink decides: another document, a heading or the web
  split->addWidget(m_list);
  split->addWidget(m_text);
  split->setStretchFactor(1, 1);
  split->setSizes({300, 800});
  layout->addWidget(split, 1);
  m_status = new QLabel;
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_status);

  for (const QString &file : m_files) {
    QFile in(file);
    const QString text = in.open(QIODevice::ReadOnly) ? QString::fromUtf8(in.readAll()) : QString();
    m_contents << text.toLower();
    auto *item = new QListWidgetItem(titleOf(file, text), m_list);
    item->setToolTip(QDir::toNativeSeparators(file));
    item->setData(Qt::UserRole, file);
    item->setData(Qt::UserRole + 1, item->text()); // the title without the search's count
  }

  connect(m_list, &QListWidget::currentItemChanged, this, [this](QListWidgetItem *item) {
    if (item && item->data(Qt::UserRole).toString() != currentFile())
      showDocument(item->data(Qt::UserRole).toString());
  });
  connect(m_text, &QTextBrowser::anchorClicked, this, &DocumentationBrowser::followLink);
  connect(m_text, &QTextBrowser::sourceChanged, this, [this](const QUrl &url) {
    addHeadingAnchors();
    if (!url.fragment().isEmpty())
      m_text->scrollToAnchor(url.fragment());
    for (int row = 0; row < m_list->count(); ++row)
      if (m_list->item(row)->data(Qt::UserRole).toString() == currentFile()) {
        const QSignalBlocker quiet(m_list);
        m_list->setCurrentRow(row);
      }
    updateNavigation();
  });
  connect(m_text, &QTextBrowser::highlighted, this,
          [this](const QUrl &link) { m_status->setText(link.isEmpty() ? QString() : link.toString()); });
  connect(m_back, &QToolButton::clicked, m_text, &QTextBrowser::backward);
  connect(m_forward, &QToolButton::clicked, m_text, &QTextBrowser::forward);
  connect(m_text, &QTextBrowser::historyChanged, this, &DocumentationBrowser::updateNavigation);
  connect(m_search, &QLineEdit::textChanged, this, &DocumentationBrowser::search);
  connect(m_search, &QLineEdit::returnPressed, this, [this] {
    const QString text = m_search->text();
    if (!text.isEmpty() && !m_text->find(text)) {
      m_text->moveCursor(QTextCursor::Start); // wrap around
      m_text->find(text);
    }
  });

  if (m_files.isEmpty()) {
    m_text->setPlainText(tr("No documentation was found beside this program: neither the installed folder "
                            "(share/doc/tpu-studio) nor a source tree's README.md and docs/."));
  } else {
    showDocument(m_files.front());
  }
  updateNavigation();
}

bool DocumentationBrowser::showDocument(const QString &file, const QString &anchor) {
  if (!QFileInfo(file).isFile())
    return false;
  QUrl url = QUrl::fromLocalFile(QFileInfo(file).absoluteFilePath());
  if (!anchor.isEmpty())
    url.setFragment(anchor);
  m_text->setSource(url, QTextDocument::MarkdownResource);
  m_status->clear();
  return true;
}

QString DocumentationBrowser::currentFile() const { return m_text->source().toLocalFile(); }

QStringList DocumentationBrowser::listedFiles() const {
  QStringList files;
  for (int row = 0; row < m_list->count(); ++row)
    if (!m_list->item(row)->isHidden())
      files << m_list->item(row)->data(Qt::UserRole).toString();
  return files;
}

QString DocumentationBrowser::resolve(const QUrl &link) const {
  const QString current = currentFile();
  const QString path = link.path();
  if (path.isEmpty())
    return current;
  const QString relative =
      QDir::cleanPath(QFileInfo(current).dir().filePath(QUrl::fromPercentEncoding(path.toUtf8())));
  if (QFileInfo(relative).isFile())
    return relative;
  // The installed folder is flat: the README's docs/ACCURACY.md is ACCURACY.md beside it, the docs'
  // ../README.md the README.
  const QString name = QFileInfo(path).fileName();
  for (const QString &file : m_files)
    if (QFileInfo(file).fileName() == name)
      return file;
  return {};
}

void DocumentationBrowser::followLink(const QUrl &link) {
  if (!link.scheme().isEmpty() && link.scheme() != QLatin1String("file")) {
    QDesktopServices::openUrl(link); // the web, mail
    return;
  }
  const QString target = resolve(link);
  if (target.isEmpty()) {
    m_status->setText(tr("'%1' is not part of this documentation.").arg(link.toString()));
    return;
  }
  if (target == currentFile() && !link.fragment().isEmpty()) {
    m_text->scrollToAnchor(link.fragment());
    return;
  }
  if (target.endsWith(QLatin1String(".md"), Qt::CaseInsensitive)) {
    showDocument(target, link.fragment());
    return;
  }
  // A source file or a folder of the tree the docs point into: the desktop opens it.
  if (!QDesktopServices::openUrl(QUrl::fromLocalFile(target)))
    m_status->setText(tr("No application opens %1.").arg(QDir::toNativeSeparators(target)));
}

void DocumentationBrowser::search(const QString &text) {
  const QString needle = text.trimmed().toLower();
  int shown = 0;
  for (int row = 0; row < m_list->count(); ++row) {
    const int hits = needle.isEmpty() ? 0 : static_cast<int>(m_contents[row].count(needle));
    QListWidgetItem *item = m_list->item(row);
    item->setHidden(!needle.isEmpty() && hits == 0);
    if (!item->isHidden())
      ++shown;
    const QString title = item->data(Qt::UserRole + 1).toString();
    item->setText(needle.isEmpty() ? title : tr("%1 (%2)").arg(title).arg(hits));
  }
  if (needle.isEmpty()) {
    m_status->clear();
    return;
  }
  m_status->setText(
      shown == 0
          ? tr("No document mentions '%1'.").arg(text.trimmed())
          : tr("%1 of %2 documents mention '%3'.").arg(shown).arg(m_list->count()).arg(text.trimmed()));
  // Stay on the document shown when it matches, else open the first that does.
  const QStringList listed = listedFiles();
  if (!listed.isEmpty() && !listed.contains(currentFile()))
    showDocument(listed.front());
  m_text->moveCursor(QTextCursor::Start);
  m_text->find(text.trimmed());
}

void DocumentationBrowser::addHeadingAnchors() {
  QTextDocument *doc = m_text->document();
  QSet<QString> used;
  for (QTextBlock block = doc->begin(); block.isValid(); block = block.next()) {
    if (block.blockFormat().headingLevel() == 0 || block.text().isEmpty())
      continue;
    const QString base = headingSlug(block.text());
    QString slug = base;
    for (int n = 1; used.contains(slug); ++n)
      slug = base + QLatin1Char('-') + QString::number(n); // GitHub numbers repeated headings
    used.insert(slug);
    QTextCursor cursor(block);
    cursor.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
    QTextCharFormat anchor;
    anchor.setAnchor(true);
    anchor.setAnchorNames({slug});
    cursor.mergeCharFormat(anchor);
  }
}

void DocumentationBrowser::updateNavigation() {
  m_back->setEnabled(m_text->isBackwardAvailable());
  m_forward->setEnabled(m_text->isForwardAvailable());
}

} // namespace tpuc::ui
