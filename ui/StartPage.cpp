// The start page: recent projects, the ways in, a drop target.
#include "ui/StartPage.h"
#include "ui/ExampleProject.h"

#include "ui/Settings.h"

#include <QAbstractButton>
#include <QApplication>
#include <QDir>
#include <QDragEnterEvent>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QMimeData>
#include <QPainter>
#include <QPainterPath>
#include <QPushButton>
#include <QScrollArea>
#include <QStyle>
#include <QVBoxLayout>

namespace tpuc::ui {

void saveRecentThumbnail(const QString &projectPath, QWidget *window) {
  if (projectPath.isEmpty() || !window || !window->isVisible())
    return;
  const QString file = settings::recentThumbnailFile(projectPath);
  QDir().mkpath(QFileInfo(file).absolutePath());
  // Small: the start page shows it a few lines high; twice that for HiDPI screens.
  const QImage image = window->grab().toImage();
  image.scaledToWidth(std::min(480, image.width()), Qt::SmoothTransformation).save(file, "PNG");
}

namespace {

/// One recent project: its picture, name, folder and when it was last opened; click to open.
class RecentButton : public QAbstractButton {
public:
  RecentButton(const QString &path, QWidget *parent) : QAbstractButton(parent), m_path(path) {
    setObjectName(QStringLiteral("RecentProject"));
    setProperty("tpucPath", path);
    setCursor(Qt::PointingHandCursor);
    setToolTip(path);
    setAttribute(Qt::WA_Hover);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    m_thumbnail = QPixmap(settings::recentThumbnailFile(path));
    m_opened = settings::recentFileOpened(path);
  }
  QSize sizeHint() const override {
    const int unit = fontMetrics().height();
    return {unit * 24, unit * 4 + unit / 2};
  }
  QSize minimumSizeHint() const override {
    const int unit = fontMetrics().height();
    return {unit * 12, unit * 4 + unit / 2};
  }

protected:
  void paintEvent(QPaintEvent *) override {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette &pal = palette();
    const int unit = fontMetrics().height();
    const QRectF frame = QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5);
    if (isEnabled() && (underMouse() || hasFocus())) {
      QColor fill = pal.color(QPalette::Highlight);
      fill.setAlphaF(0.15);
      p.setPen(QPen(pal.color(QPalette::Highlight), 1));
      p.setBrush(fill);
      p.drawRoundedRect(frame, unit / 3.0, unit / 3.0);
    }
    const int pad = unit / 3;
    const int thumbH = height() - 2 * pad;
    const QRect thumb(pad, pad, thumbH * 3 / 2, thumbH);
    p.setPen(QPen(pal.color(QPalette::Mid), 1));
    p.setBrush(pal.color(QPalette::AlternateBase));
    p.drawRect(QRectF(thumb).adjusted(0.5, 0.5, -0.5, -0.5));
    if (!m_thumbnail.isNull()) {
      const qreal dpr = devicePixelRatioF();
      QPixmap scaled = m_thumbnail.scaled((QSizeF(thumb.size() - QSize(2, 2)) * dpr).toSize(),
                                          Qt::KeepAspectRatio, Qt::SmoothTransformation);
      scaled.setDevicePixelRatio(dpr);
      const QSizeF size = QSizeF(scaled.size()) / dpr;
      const QPointF at(thumb.center().x() - size.width() / 2 + 0.5,
                       thumb.center().y() - size.height() / 2 + 0.5);
      if (!isEnabled())
        p.setOpacity(0.35);
      p.drawPixmap(at, scaled);
      p.setOpacity(1);
    } else { // no picture yet: the file's kind, drawn small
      p.setPen(pal.color(QPalette::PlaceholderText));
      p.drawText(thumb, Qt::AlignCenter, QStringLiteral(".tpuproj"));
    }
    const QColor text = pal.color(isEnabled() ? QPalette::Active : QPalette::Disabled, QPalette::WindowText);
    const QColor dim = isEnabled() ? pal.color(QPalette::PlaceholderText) : text;
    const int x = thumb.right() + unit * 2 / 3;
    const int w = width() - x - pad;
    QFont bold = font();
    bold.setBold(true);
    bold.setPointSizeF(font().pointSizeF() * 1.1);
    const QFileInfo info(m_path);
    QRect line(x, pad + unit / 4, w, QFontMetrics(bold).height());
    p.setFont(bold);
    p.setPen(text);
    const QString name =
        isEnabled() ? info.completeBaseName() : tr("%1 (missing)").arg(info.completeBaseName());
    p.drawText(line, Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetrics(bold).elidedText(name, Qt::ElideRight, w));
    p.setFont(font());
    p.setPen(dim);
    line = QRect(x, line.bottom() + unit / 4, w, unit);
    p.drawText(line, Qt::AlignLeft | Qt::AlignVCenter,
               fontMetrics().elidedText(QDir::toNativeSeparators(info.absolutePath()), Qt::ElideMiddle, w));
    line.translate(0, unit);
    const QString when = isEnabled() && m_opened.isValid() // a missing one has its Remove button there
                             ? tr("Opened %1").arg(QLocale().toString(m_opened, QLocale::ShortFormat))
                             : QString();
    p.drawText(line, Qt::AlignLeft | Qt::AlignVCenter, fontMetrics().elidedText(when, Qt::ElideRight, w));
  }

private:
  QString m_path;
  QPixmap m_thumbnail;
  QDateTime m_opened;
};

QPushButton *actionButton(const QString &text, QStyle::StandardPixmap icon, const QString &tip,
                          QWidget *parent) {
  auto *button = new QPushButton(parent->style()->standardIcon(icon), text, parent);
  button->setToolTip(tip);
  button->setStyleSheet(QStringLiteral("text-align: left; padding: 0.3em 0.8em;"));
  button->setIconSize(QSize(button->fontMetrics().height(), button->fontMetrics().height()) * 5 / 4);
  return button;
}

QLabel *heading(const QString &text, qreal scale, QWidget *parent) {
  auto *label = new QLabel(text, parent);
  QFont font = label->font();
  font.setPointSizeF(font.pointSizeF() * scale);
  font.setBold(true);
  label->setFont(font);
  return label;
}

} // namespace

StartPage::StartPage(QWidget *parent) : QWidget(parent) {
  setObjectName(QStringLiteral("StartPage"));
  const int unit = fontMetrics().height();

  auto *title = heading(tr("TPU Studio"), 2.0, this);
  auto *subtitle = new QLabel(
      tr("Import a neural network, calibrate it and deploy it to a TPU-style chip — then find out where the "
         "accuracy went."),
      this);
  subtitle->setWordWrap(true);

  // The ways in.
  auto *example =
      actionButton(tr("Open Example"), QStyle::SP_DialogHelpButton,
                   tr("Open the example project: a PP-OCR text-direction classifier with calibration "
                      "datasets and deploy configurations, ready to calibrate and deploy"),
                   this);
  example->setObjectName(QStringLiteral("OpenExample"));
  example->setEnabled(!exampleProjectFile().isEmpty());
  if (!example->isEnabled())
    example->setToolTip(tr("The example project is not built (ninja tpuc-example-project) or not installed"));
  auto *importModel = actionButton(tr("Import Model…"), QStyle::SP_FileIcon,
                                   tr("Start a project from an ONNX model (or Top MLIR): its inputs and "
                                      "preprocessing in the import dialog (Ctrl+I)"),
                                   this);
  importModel->setObjectName(QStringLiteral("ImportModel"));
  auto *importHf = actionButton(tr("Import HuggingFace Folder…"), QStyle::SP_DirIcon,
                                tr("Start a project from a HuggingFace LLM folder (config.json, safetensors, "
                                   "tokenizer): convert it and chat with it on the simulator (Ctrl+Alt+I)"),
                                this);
  importHf->setObjectName(QStringLiteral("ImportHfFolder"));
  auto *openProject = actionButton(tr("Open Project…"), QStyle::SP_DialogOpenButton,
                                   tr("Open a .tpuproj project file (Ctrl+O)"), this);
  openProject->setObjectName(QStringLiteral("OpenProject"));
  connect(example, &QPushButton::clicked, this, &StartPage::openExampleRequested);
  connect(importModel, &QPushButton::clicked, this, &StartPage::importModelRequested);
  connect(importHf, &QPushButton::clicked, this, &StartPage::importHfFolderRequested);
  connect(openProject, &QPushButton::clicked, this, &StartPage::openProjectRequested);

  m_drop = new DropTarget(this);
  m_drop->setObjectName(QStringLiteral("DropTarget"));
  connect(m_drop, &DropTarget::urlsDropped, this, &StartPage::urlsDropped);

  auto *left = new QVBoxLayout;
  left->setSpacing(unit / 2);
  left->addWidget(heading(tr("Start"), 1.2, this));
  for (QPushButton *button : {example, importModel, importHf, openProject})
    left->addWidget(button);
  left->addSpacing(unit / 2);
  left->addWidget(m_drop, 1);

  // Recent projects.
  auto *recentHeader = new QHBoxLayout;
  recentHeader->addWidget(heading(tr("Recent Projects"), 1.2, this));
  recentHeader->addStretch();
  auto *clear = new QPushButton(tr("Clear List"), this);
  clear->setObjectName(QStringLiteral("ClearRecent"));
  clear->setFlat(true);
  clear->setToolTip(tr("Forget every recent project (the files stay)"));
  connect(clear, &QPushButton::clicked, this, [this] {
    settings::clearRecentFiles();
    refresh();
    Q_EMIT recentFilesChanged();
  });
  recentHeader->addWidget(clear);
  auto *listHost = new QWidget;
  m_recentList = new QVBoxLayout(listHost);
  m_recentList->setContentsMargins(0, 0, 0, 0);
  m_recentList->setSpacing(unit / 4);
  m_noRecent =
      new QLabel(tr("No recent projects yet. Open the example to look around, or import a model."), this);
  m_noRecent->setWordWrap(true);
  m_noRecent->setForegroundRole(QPalette::PlaceholderText);
  auto *scroll = new QScrollArea(this);
  scroll->setObjectName(QStringLiteral("RecentProjects"));
  scroll->setWidgetResizable(true);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setWidget(listHost);
  scroll->viewport()->setAutoFillBackground(false);
  listHost->setAutoFillBackground(false);
  auto *right = new QVBoxLayout;
  right->setSpacing(unit / 2);
  right->addLayout(recentHeader);
  right->addWidget(m_noRecent);
  right->addWidget(scroll, 1);

  auto *columns = new QHBoxLayout;
  columns->setSpacing(unit * 3 / 2);
  columns->addLayout(left, 0); // as wide as its buttons; the recent projects take the rest
  columns->addLayout(right, 1);

  auto *content = new QVBoxLayout;
  content->setSpacing(unit / 2);
  content->addWidget(title);
  content->addWidget(subtitle);
  content->addSpacing(unit);
  content->addLayout(columns, 1);

  // Centred with a readable width on wide windows; a small window scrolls rather than squeezing it.
  auto *page = new QWidget;
  auto *centred = new QHBoxLayout(page);
  centred->setContentsMargins(unit, unit, unit, unit);
  centred->addStretch(1);
  auto *column = new QWidget(page);
  column->setLayout(content);
  column->setMaximumWidth(unit * 60);
  column->setMinimumHeight(unit * 22);
  centred->addWidget(column, 12);
  centred->addStretch(1);
  auto *pageScroll = new QScrollArea(this);
  pageScroll->setWidgetResizable(true);
  pageScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  pageScroll->setFrameShape(QFrame::NoFrame);
  pageScroll->setWidget(page);
  auto *outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(pageScroll);
  refresh();
}

void StartPage::refresh() {
  while (QLayoutItem *item = m_recentList->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  const QStringList files = settings::recentFiles();
  for (const QString &path : files)
    m_recentList->addWidget(makeRecentRow(path));
  m_recentList->addStretch();
  m_noRecent->setVisible(files.isEmpty());
}

QWidget *StartPage::makeRecentRow(const QString &path) {
  auto *row = new QWidget;
  auto *layout = new QGridLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  auto *button = new RecentButton(path, row);
  layout->addWidget(button, 0, 0);
  if (!QFileInfo::exists(path)) {
    button->setEnabled(false);
    button->setToolTip(tr("%1 no longer exists").arg(path));
    auto *remove = new QPushButton(tr("Remove from List"), row);
    remove->setObjectName(QStringLiteral("RemoveRecent"));
    remove->setToolTip(tr("Forget %1").arg(path));
    connect(remove, &QPushButton::clicked, this, [this, path] {
      settings::removeRecentFile(path);
      QFile::remove(settings::recentThumbnailFile(path));
      // Not now: the button being clicked is deleted with its row.
      QMetaObject::invokeMethod(
          this,
          [this] {
            refresh();
            Q_EMIT recentFilesChanged();
          },
          Qt::QueuedConnection);
    });
    // Over the row's last line, where an existing project shows when it was opened.
    const int unit = fontMetrics().height();
    layout->addWidget(remove, 0, 0, Qt::AlignRight | Qt::AlignBottom);
    remove->setContentsMargins(0, 0, unit / 3, unit / 3);
    layout->setContentsMargins(0, 0, unit / 3, unit / 4);
  }
  connect(button, &QAbstractButton::clicked, this, [this, path] { Q_EMIT openRecentRequested(path); });
  return row;
}

void StartPage::changeEvent(QEvent *event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange)
    update();
}

DropTarget::DropTarget(QWidget *parent) : QWidget(parent) {
  setAcceptDrops(true);
  setMinimumHeight(fontMetrics().height() * 6);
  setToolTip(
      tr("Drop an ONNX model, a .tpuproj project, a HuggingFace folder or a folder of calibration images"));
}

void DropTarget::paintEvent(QPaintEvent *) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const int unit = fontMetrics().height();
  const QPalette &pal = palette();
  QPen pen(m_hover ? pal.color(QPalette::Highlight) : pal.color(QPalette::Mid), m_hover ? 2 : 1.5,
           Qt::DashLine);
  p.setPen(pen);
  QColor fill = pal.color(QPalette::Highlight);
  fill.setAlphaF(m_hover ? 0.15 : 0.04);
  p.setBrush(fill);
  p.drawRoundedRect(QRectF(rect()).adjusted(1.5, 1.5, -1.5, -1.5), unit / 2.0, unit / 2.0);
  p.setPen(pal.color(QPalette::WindowText));
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  const QRect inner = rect().adjusted(unit, unit / 2, -unit, -unit / 2);
  const QRect top(inner.left(), inner.center().y() - unit * 2, inner.width(), unit);
  p.drawText(top, Qt::AlignCenter, tr("Drop files here"));
  p.setFont(font());
  p.setPen(pal.color(QPalette::PlaceholderText));
  p.drawText(QRect(inner.left(), top.bottom() + unit / 3, inner.width(), inner.bottom() - top.bottom()),
             Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap,
             tr("an .onnx model, a .tpuproj project, a HuggingFace folder or a folder of images"));
}

void DropTarget::dragEnterEvent(QDragEnterEvent *event) {
  const QList<QUrl> urls = event->mimeData()->urls();
  bool local = !urls.isEmpty();
  for (const QUrl &url : urls)
    local = local && url.isLocalFile();
  if (local && (!m_accepts || m_accepts(urls))) {
    event->acceptProposedAction();
    m_hover = true;
    update();
  }
}

void DropTarget::dragLeaveEvent(QDragLeaveEvent *) {
  m_hover = false;
  update();
}

void DropTarget::dropEvent(QDropEvent *event) {
  m_hover = false;
  update();
  event->acceptProposedAction();
  Q_EMIT urlsDropped(event->mimeData()->urls());
}

} // namespace tpuc::ui
