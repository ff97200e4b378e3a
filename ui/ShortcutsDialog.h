// Help ▸ Keyboard Shortcuts: every menu action with a shortcut, read from the actions themselves so the list
// cannot go stale.
#ifndef TPUC_UI_SHORTCUTSDIALOG_H
#define TPUC_UI_SHORTCUTSDIALOG_H

#include <QDialog>
#include <QKeySequence>

class QMenuBar;

namespace tpuc::ui {

/// One action with its shortcuts.
struct ShortcutEntry {
  QString menu;   ///< "File ▸ Open Recent"
  QString action; ///< the action's text without mnemonics
  QList<QKeySequence> shortcuts;
};

/// Every action of `menuBar` (submenus included) that has a shortcut, in menu order.
QList<ShortcutEntry> menuShortcuts(const QMenuBar *menuBar);

class ShortcutsDialog : public QDialog {
  Q_OBJECT
public:
  explicit ShortcutsDialog(const QMenuBar *menuBar, QWidget *parent = nullptr);
};

} // namespace tpuc::ui

#endif
