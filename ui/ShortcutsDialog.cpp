// The keyboard shortcuts dialog.
#include "ui/ShortcutsDialog.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace tpuc::ui {

namespace {

QString plain(QString text) {
  text.remove(QRegularExpression(QStringLiteral("&(?!&)")));
  return text.replace(QStringLiteral("&&"), QStringLiteral("&"));
}

void collect(const QMenu *menu, const QString &path, QList<ShortcutEntry> &out) {
  for (QAction *action : menu->actions()) {
    if (action->isSeparator())
      continue;
    if (QMenu *sub = action->menu()) {
      collect(sub, path + QStringLiteral(" ▸ ") + plain(action->text()), out);
      continue;
    }
    if (!action->shortcuts().isEmpty())
      out.push_back({path, plain(action->text()), action->shortcuts()});
  }
}

} // namespace

QList<ShortcutEntry> menuShortcuts(const QMenuBar *menuBar) {
  QList<ShortcutEntry> entries;
  for (QAction *action : menuBar->actions())
    if (QMenu *menu = action->menu())
      collect(menu, plain(action->text()), entries);
  return entries;
}

ShortcutsDialog::ShortcutsDialog(const QMenuBar *menuBar, QWidget *parent) : QDialog(parent) {
  setObjectName(QStringLiteral("ShortcutsDialog"));
  setWindowTitle(tr("Keyboard Shortcuts"));
  auto *filter = new QLineEdit(this);
  filter->setPlaceholderText(tr("Filter"));
  filter->setClearButtonEnabled(true);
  auto *tree = new QTreeWidget(this);
  tree->setColumnCount(2);
  tree->setHeaderLabels({tr("Action"), tr("Shortcut")});
  tree->setRootIsDecorated(true);
  tree->setUniformRowHeights(true);
  QTreeWidgetItem *group = nullptr;
  for (const ShortcutEntry &entry : menuShortcuts(menuBar)) {
    if (!group || group->text(0) != entry.menu) {
      group = new QTreeWidgetItem(tree, {entry.menu});
      QFont bold = group->font(0);
      bold.setBold(true);
      group->setFont(0, bold);
      group->setFirstColumnSpanned(true);
    }
    QStringList keys;
    for (const QKeySequence &key : entry.shortcuts)
      keys << key.toString(QKeySequence::NativeText);
    new QTreeWidgetItem(group, {entry.action, keys.join(QStringLiteral(", "))});
  }
  tree->expandAll();
  tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents); // names in full
  tree->header()->setStretchLastSection(true);
  connect(filter, &QLineEdit::textChanged, tree, [tree](const QString &text) {
    for (int g = 0; g < tree->topLevelItemCount(); ++g) {
      QTreeWidgetItem *menu = tree->topLevelItem(g);
      int shown = 0;
      for (int i = 0; i < menu->childCount(); ++i) {
        QTreeWidgetItem *item = menu->child(i);
        const bool match = item->text(0).contains(text, Qt::CaseInsensitive) ||
                           item->text(1).contains(text, Qt::CaseInsensitive);
        item->setHidden(!match);
        shown += match;
      }
      menu->setHidden(shown == 0);
    }
  });
  auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto *layout = new QVBoxLayout(this);
  layout->addWidget(filter);
  layout->addWidget(tree);
  layout->addWidget(buttons);
  const int unit = fontMetrics().height();
  resize(unit * 38, unit * 34);
}

} // namespace tpuc::ui
