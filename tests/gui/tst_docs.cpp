// Help ▸ Documentation (issue 24): the README and docs/*.md inside the studio. The build tree finds the
// source tree's documents; a flat folder as the package installs it still follows the README's docs/X.md
// links; headings are link targets under GitHub's anchors; the search lists the documents that mention a
// phrase.
#include "Screenshots.h"
#include "ui/DocumentationBrowser.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QListWidget>
#include <QScrollBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextBrowser>

using namespace tpuc::ui;

class TestDocs : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void findsTheSourceTreesDocuments();
  void headingSlugsAreGitHubs();
  void flatInstalledFolderFollowsLinks();
  void headingsAreLinkTargets();
  void searchListsTheDocumentsThatMentionIt();
};

namespace {

QString named(const QStringList &files, const QString &name) {
  for (const QString &file : files)
    if (QFileInfo(file).fileName() == name)
      return file;
  return {};
}

} // namespace

void TestDocs::findsTheSourceTreesDocuments() {
  const QStringList files = documentationFiles();
  QVERIFY(files.size() >= 10);
  QCOMPARE(QFileInfo(files.front()).fileName(), QString("README.md"));
  for (const char *name : {"STUDIO.md", "ACCURACY.md", "BACKEND.md", "LLM.md", "PACKAGING.md"})
    QVERIFY2(!named(files, name).isEmpty(), name);
  for (const QString &file : files)
    QVERIFY2(QFileInfo(file).isFile(), qPrintable(file));
}

void TestDocs::headingSlugsAreGitHubs() {
  QCOMPARE(DocumentationBrowser::headingSlug("Cost model"), QString("cost-model"));
  QCOMPARE(DocumentationBrowser::headingSlug("JSON plan (tpuc-backend-plan, version 2)"),
           QString("json-plan-tpuc-backend-plan-version-2"));
  QCOMPARE(DocumentationBrowser::headingSlug("Several cores (tpuc deploy --num_core N)"),
           QString("several-cores-tpuc-deploy---num_core-n"));
  QCOMPARE(DocumentationBrowser::headingSlug("Figures (batch 1, 224×224)"),
           QString("figures-batch-1-224224"));
}

void TestDocs::flatInstalledFolderFollowsLinks() {
  // As /usr/share/doc/tpu-studio holds them: README.md and the docs in one folder.
  QTemporaryDir dir;
  QStringList installed;
  for (const QString &file : documentationFiles()) {
    const QString name =
        file.endsWith("resources/example/README.md") ? "README.example.md" : QFileInfo(file).fileName();
    QVERIFY(QFile::copy(file, dir.filePath(name)));
    installed << dir.filePath(name);
  }
  DocumentationBrowser docs(installed);
  docs.resize(1100, 800);
  docs.show();
  QCOMPARE(docs.currentFile(), dir.filePath("README.md"));
  // The README's link into docs/ finds the file beside it.
  docs.followLink(QUrl("docs/ARCHITECTURE.md"));
  QCOMPARE(docs.currentFile(), dir.filePath("ARCHITECTURE.md"));
  docs.followLink(QUrl("../README.md"));
  QCOMPARE(docs.currentFile(), dir.filePath("README.md"));
  // Back and forward as in a web browser.
  QVERIFY(docs.textBrowser()->isBackwardAvailable());
  docs.textBrowser()->backward();
  QCOMPARE(docs.currentFile(), dir.filePath("ARCHITECTURE.md"));
  // A source file the docs mention is not installed: said, and the document stays.
  docs.followLink(QUrl("../compiler/lib/Backend/CostModel.cpp"));
  QCOMPARE(docs.currentFile(), dir.filePath("ARCHITECTURE.md"));
  // The list selects the document shown; picking another shows it.
  auto *list = docs.findChild<QListWidget *>();
  QVERIFY(list);
  QCOMPARE(list->currentItem()->data(Qt::UserRole).toString(), dir.filePath("ARCHITECTURE.md"));
  list->setCurrentRow(static_cast<int>(installed.indexOf(dir.filePath("STUDIO.md"))));
  QCOMPARE(docs.currentFile(), dir.filePath("STUDIO.md"));
  QVERIFY(docs.textBrowser()->toPlainText().contains("Run Whole Pipeline"));
}

void TestDocs::headingsAreLinkTargets() {
  const QStringList files = documentationFiles();
  DocumentationBrowser docs(files);
  docs.resize(1100, 700);
  docs.show();
  QVERIFY(QTest::qWaitForWindowExposed(&docs));
  QVERIFY(docs.showDocument(named(files, "BACKEND.md")));
  QCOMPARE(docs.textBrowser()->verticalScrollBar()->value(), 0);
  // A heading far down the document: the view scrolls to it.
  docs.followLink(QUrl("#several-cores-tpuc-deploy---num_core-n"));
  QTRY_VERIFY(docs.textBrowser()->verticalScrollBar()->value() > 0);
  const QTextCursor top = docs.textBrowser()->cursorForPosition(QPoint(5, 5));
  QVERIFY2(top.block().text().startsWith("Several cores") ||
               top.block().previous().text().startsWith("Several cores") ||
               top.block().next().text().startsWith("Several cores"),
           qPrintable(top.block().text()));
  // Into another document at a heading.
  docs.showDocument(named(files, "README.md"));
  docs.followLink(QUrl("docs/BACKEND.md#cost-model"));
  QCOMPARE(QFileInfo(docs.currentFile()).fileName(), QString("BACKEND.md"));
  QTRY_VERIFY(docs.textBrowser()->verticalScrollBar()->value() > 0);
}

void TestDocs::searchListsTheDocumentsThatMentionIt() {
  const QStringList files = documentationFiles();
  DocumentationBrowser docs(files);
  docs.resize(1100, 760);
  docs.show();
  docs.search("Run Whole Pipeline");
  const QStringList listed = docs.listedFiles();
  QVERIFY2(listed.contains(named(files, "STUDIO.md")), qPrintable(listed.join(", ")));
  QVERIFY(!listed.contains(named(files, "LLM.md")));
  QVERIFY(listed.size() < files.size());
  // The document shown is one that mentions it, with the first match selected.
  QVERIFY(listed.contains(docs.currentFile()));
  QCOMPARE(docs.textBrowser()->textCursor().selectedText().toLower(), QString("run whole pipeline"));
  tpuc::ui::guitest::saveScreenshot(docs, "documentation-search.png");
  docs.search("zzqq no such phrase");
  QVERIFY(docs.listedFiles().isEmpty());
  docs.search("");
  QCOMPARE(docs.listedFiles(), files);
}

QTEST_MAIN(TestDocs)
#include "tst_docs.moc"
