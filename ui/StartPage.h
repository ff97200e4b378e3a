// The start page shown while no project is open: recent projects with a picture of each, the ways in (open
// the example, import a model or a HuggingFace folder, open a project) and a drop target.
#ifndef TPUC_UI_STARTPAGE_H
#define TPUC_UI_STARTPAGE_H

#include <QList>
#include <QUrl>
#include <QWidget>

#include <functional>

class QVBoxLayout;
class QLabel;

namespace tpuc::ui {
class DropTarget;
}

namespace tpuc::ui {

/// Keeps a small picture of `window` as the thumbnail of recent project `projectPath` (the app's cache).
void saveRecentThumbnail(const QString &projectPath, QWidget *window);

class StartPage : public QWidget {
  Q_OBJECT
public:
  explicit StartPage(QWidget *parent = nullptr);

  /// Lists the recent projects again (settings::recentFiles, their thumbnails and dates).
  void refresh();
  DropTarget *dropTarget() const { return m_drop; }

Q_SIGNALS:
  void openRecentRequested(const QString &path);
  void openExampleRequested();
  void importModelRequested();
  void importHfFolderRequested();
  void openProjectRequested();
  /// Files dropped on the drop target (the window decides what they become, as for a drop on it).
  void urlsDropped(const QList<QUrl> &urls);
  /// A recent file left the list ("Remove from list" on a missing project, or Clear).
  void recentFilesChanged();

protected:
  void changeEvent(QEvent *event) override;

private:
  QWidget *makeRecentRow(const QString &path);
  QVBoxLayout *m_recentList;
  DropTarget *m_drop;
  QLabel *m_noRecent;
};

/// The dashed area files can be dropped on; accepts what `accepts` says the window can open.
class DropTarget : public QWidget {
  Q_OBJECT
public:
  explicit DropTarget(QWidget *parent = nullptr);
  /// Which drops to accept (default: any local files).
  void setAcceptor(std::function<bool(const QList<QUrl> &)> accepts) { m_accepts = std::move(accepts); }

Q_SIGNALS:
  void urlsDropped(const QList<QUrl> &urls);

protected:
  void paintEvent(QPaintEvent *event) override;
  void dragEnterEvent(QDragEnterEvent *event) override;
  void dragLeaveEvent(QDragLeaveEvent *event) override;
  void dropEvent(QDropEvent *event) override;

private:
  std::function<bool(const QList<QUrl> &)> m_accepts;
  bool m_hover = false;
};

} // namespace tpuc::ui

#endif
