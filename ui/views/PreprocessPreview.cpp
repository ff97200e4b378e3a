// A sample beside exactly the tensors the model receives, with its warnings; computed off the UI thread.
#include "ui/views/PreprocessPreview.h"
#include "visualizer/ChartTheme.h"

#include <QComboBox>
#include <QEvent>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QScrollArea>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>

namespace tpuc::ui {

namespace {

using vis::blend;

/// 256 colours of a map, index 0 = lowest value.
QList<QRgb> colorTable(PreprocessPreview::ColorMap map) {
  QList<QRgb> table;
  table.reserve(256);
  if (map == PreprocessPreview::ColorMap::Gray) {
    for (int i = 0; i < 256; ++i)
      table << qRgb(i, i, i);
    return table;
  }
  // A perceptually ordered dark-to-bright map (after matplotlib's inferno): black, purple, red, orange,
  // pale yellow, so brightness alone still reads as value.
  static const QColor stops[] = {QColor(0, 0, 4), QColor(87, 16, 110), QColor(188, 55, 84),
                                 QColor(249, 142, 9), QColor(252, 255, 164)};
  constexpr int last = int(std::size(stops)) - 1;
  for (int i = 0; i < 256; ++i) {
    double t = i / 255.0 * last;
    int k = std::min(int(t), last - 1);
    double f = t - k;
    const QColor &a = stops[k], &b = stops[k + 1];
    table << qRgb(int(std::lround(a.red() + f * (b.red() - a.red()))),
                  int(std::lround(a.green() + f * (b.green() - a.green()))),
                  int(std::lround(a.blue() + f * (b.blue() - a.blue()))));
  }
  return table;
}

QString number(double v) {
  if (std::isnan(v))
    return QStringLiteral("nan");
  return QString::number(v, 'g', 5);
}

QString shapeText(const std::vector<std::int64_t> &shape) {
  QStringList dims;
  for (std::int64_t d : shape)
    dims << QString::number(d);
  return QLatin1Char('[') + dims.join(QStringLiteral(", ")) + QLatin1Char(']');
}

bool isDark(const QPalette &palette) { return palette.color(QPalette::Window).lightness() < 128; }

/// Draws `image` as large as fits in `box`, centred; small images keep their pixels sharp.
void drawFitted(QPainter &p, const QRect &box, const QImage &image) {
  if (image.isNull() || box.isEmpty())
    return;
  QSize size = image.size().scaled(box.size(), Qt::KeepAspectRatio);
  QRect target(box.x() + (box.width() - size.width()) / 2, box.y() + (box.height() - size.height()) / 2,
               size.width(), size.height());
  p.setRenderHint(QPainter::SmoothPixmapTransform, size.width() < image.width());
  p.drawImage(target, image);
}

/// One graph input of the sample: header, source and resized image, channel planes with a colour bar, and
/// the per-channel statistics. Painted in one piece; its height follows its width.
class InputPanel : public QWidget {
public:
  InputPanel(std::shared_ptr<const PreviewResult> result, size_t index, const QList<QRgb> &table,
             QWidget *parent)
      : QWidget(parent), m_result(std::move(result)), m_input(m_result->inputs[index]) {
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
    setColorTable(table);
  }

  void setColorTable(const QList<QRgb> &table) {
    m_table = table;
    m_colored.clear();
    for (const PreviewChannel &c : m_input.channels) {
      QImage image = c.plane;
      if (!image.isNull())
        image.setColorTable(table);
      m_colored.push_back(image);
    }
    QImage bar(256, 1, QImage::Format_RGB32);
    for (int i = 0; i < 256; ++i)
      bar.setPixel(i, 0, table.value(i));
    m_bar = bar;
    update();
  }

  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override { return layoutFor(width).height; }
  QSize sizeHint() const override { return {520, heightForWidth(520)}; }
  QSize minimumSizeHint() const override { return {240, heightForWidth(240)}; }

protected:
  void paintEvent(QPaintEvent *) override {
    QPainter p(this);
    const Layout l = layoutFor(width());
    const QPalette &pal = palette();
    const QColor text = pal.color(QPalette::WindowText);
    const QColor muted = blend(pal.color(QPalette::Window), text, 0.65);
    const QColor frame = blend(pal.color(QPalette::Window), text, 0.25);
    p.setPen(frame);
    p.setBrush(pal.color(QPalette::Base));
    p.drawRoundedRect(rect().adjusted(0, 0, -1, -1), 4, 4);

    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(text);
    const int line = fontMetrics().height();
    QString title = tr("Input '%1'").arg(m_input.name);
    if (!m_input.file.isEmpty())
      title += QStringLiteral("  ←  ") + QFileInfo(m_input.file).fileName();
    p.drawText(QRect(l.header.x(), l.header.y(), l.header.width(), line), Qt::AlignLeft | Qt::AlignVCenter,
               fontMetrics().elidedText(title, Qt::ElideMiddle, l.header.width()));
    p.setFont(font());
    p.setPen(muted);
    QStringList details{m_input.dtype, shapeText(m_input.shape)};
    if (!m_input.layout.isEmpty())
      details << m_input.layout;
    if (!m_input.fromImage)
      details << tr("tensor file, taken as it is");
    p.drawText(
        QRect(l.header.x(), l.header.y() + line, l.header.width(), line), Qt::AlignLeft | Qt::AlignVCenter,
        fontMetrics().elidedText(details.join(QStringLiteral("  ·  ")), Qt::ElideRight, l.header.width()));

    auto imageBox = [&](const QRect &box, const QImage &image, const QString &caption1,
                        const QString &caption2) {
      p.setPen(frame);
      p.setBrush(pal.color(QPalette::Window));
      p.drawRect(box.adjusted(0, 0, -1, -1));
      drawFitted(p, box.adjusted(1, 1, -1, -1), image);
      p.setPen(text);
      p.drawText(QRect(box.x(), box.bottom() + 2, box.width(), line), Qt::AlignLeft | Qt::AlignVCenter,
                 fontMetrics().elidedText(caption1, Qt::ElideRight, box.width()));
      p.setPen(muted);
      p.drawText(QRect(box.x(), box.bottom() + 2 + line, box.width(), line), Qt::AlignLeft | Qt::AlignVCenter,
                 fontMetrics().elidedText(caption2, Qt::ElideRight, box.width()));
    };
    if (!l.source.isEmpty()) {
      imageBox(l.source, m_input.source, tr("As decoded"),
               tr("%1 × %2").arg(m_input.sourceSize.width()).arg(m_input.sourceSize.height()));
      imageBox(
          l.resized, m_input.resized, tr("Resized, padded, cropped"),
          tr("%1 × %2, before mean and scale").arg(m_input.resized.width()).arg(m_input.resized.height()));
    }

    for (size_t c = 0; c < l.tiles.size(); ++c) {
      const PreviewChannel &channel = m_input.channels[c];
      const QRect &box = l.tiles[c];
      p.setPen(frame);
      p.setBrush(pal.color(QPalette::Window));
      p.drawRect(box.adjusted(0, 0, -1, -1));
      drawFitted(p, box.adjusted(1, 1, -1, -1), m_colored[c]);
      p.setPen(text);
      QString caption =
          QStringLiteral("%1  %2 … %3")
              .arg(channel.name, number(channel.statistics.min), number(channel.statistics.max));
      p.drawText(QRect(box.x(), box.bottom() + 2, box.width(), line), Qt::AlignLeft | Qt::AlignVCenter,
                 fontMetrics().elidedText(caption, Qt::ElideRight, box.width()));
    }

    if (!l.bar.isEmpty()) {
      p.setRenderHint(QPainter::SmoothPixmapTransform, true);
      p.drawImage(l.bar, m_bar);
      p.setPen(frame);
      p.setBrush(Qt::NoBrush);
      p.drawRect(l.bar.adjusted(0, 0, -1, -1));
      p.setPen(text);
      QRect labels(l.bar.x(), l.bar.bottom() + 2, l.bar.width(), line);
      p.drawText(labels, Qt::AlignLeft | Qt::AlignVCenter, number(m_input.low));
      p.drawText(labels, Qt::AlignRight | Qt::AlignVCenter, number(m_input.high));
      // Zero, where the range crosses it (normalized inputs are centred on it).
      double span = m_input.high - m_input.low;
      if (span > 0 && m_input.low < 0 && m_input.high > 0) {
        int x = l.bar.x() + int(std::lround(-m_input.low / span * (l.bar.width() - 1)));
        p.drawLine(x, l.bar.top() - 2, x, l.bar.bottom() + 2);
        QRect zero(x - 2 * line, labels.y(), 4 * line, line);
        int edge = fontMetrics().horizontalAdvance(number(m_input.low)) + line;
        if (zero.left() > l.bar.x() + edge && zero.right() < l.bar.right() - edge)
          p.drawText(zero, Qt::AlignCenter, QStringLiteral("0"));
      }
    }

    // The statistics of every channel shown: name, min, max, mean, std, digits aligned.
    if (!l.table.isEmpty()) {
      QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
      fixed.setPointSizeF(font().pointSizeF());
      const int columns = 5;
      const int nameWidth = l.table.width() / 6;
      const int numberWidth = (l.table.width() - nameWidth) / (columns - 1);
      auto cell = [&](int row, int column) {
        int x = column == 0 ? l.table.x() : l.table.x() + nameWidth + (column - 1) * numberWidth;
        return QRect(x, l.table.y() + row * line, column == 0 ? nameWidth : numberWidth - line / 2, line);
      };
      p.setPen(muted);
      const QStringList heads{tr("channel"), tr("min"), tr("max"), tr("mean"), tr("std")};
      for (int k = 0; k < columns; ++k)
        p.drawText(cell(0, k), (k ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter, heads[k]);
      p.setPen(text);
      for (size_t c = 0; c < m_input.channels.size(); ++c) {
        const dataset::ChannelStatistics &s = m_input.channels[c].statistics;
        int row = int(c) + 1;
        p.setFont(font());
        p.drawText(cell(row, 0), Qt::AlignLeft | Qt::AlignVCenter, m_input.channels[c].name);
        p.setFont(fixed);
        const double values[] = {s.min, s.max, s.mean, s.std};
        for (int k = 0; k < 4; ++k)
          p.drawText(cell(row, k + 1), Qt::AlignRight | Qt::AlignVCenter, number(values[k]));
      }
      p.setFont(font());
    }
    if (!l.note.isEmpty()) {
      p.setPen(muted);
      p.drawText(l.note, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, noteText());
    }
  }

private:
  struct Layout {
    QRect header, source, resized, bar, table, note;
    std::vector<QRect> tiles;
    int height = 0;
  };

  QString noteText() const {
    QStringList notes;
    if (m_input.channelCount > int(m_input.channels.size()))
      notes << tr("The first %1 of %2 channels are shown.")
                   .arg(m_input.channels.size())
                   .arg(m_input.channelCount);
    if (m_input.batch > 1)
      notes << tr("The planes show batch entry 0 of %1; the statistics cover all.").arg(m_input.batch);
    if (!m_input.channels.empty() && m_input.channels.front().plane.isNull())
      notes << tr("No spatial dimensions: statistics only.");
    return notes.join(QLatin1Char(' '));
  }

  Layout layoutFor(int width) const {
    Layout l;
    const int line = fontMetrics().height(), m = line / 2;
    const int inner = std::max(1, width - 2 * m);
    int y = m;
    l.header = QRect(m, y, inner, 2 * line);
    y += 2 * line + m;
    if (!m_input.source.isNull()) {
      const int column = std::max(1, (inner - m) / 2);
      auto heightOf = [&](const QImage &image) {
        return image.isNull() || image.width() == 0 ? column : column * image.height() / image.width();
      };
      const int box =
          std::clamp(std::max(heightOf(m_input.source), heightOf(m_input.resized)), 2 * line, column * 3 / 2);
      l.source = QRect(m, y, column, box);
      l.resized = QRect(m + column + m, y, column, box);
      y += box + 2 * line + m;
    }
    const size_t n = m_input.channels.size();
    const bool planes = n && !m_input.channels.front().plane.isNull();
    if (planes) {
      const int minTile = 7 * line;
      int columns = std::clamp((inner + m) / (minTile + m), 1, int(n));
      // An uneven last row of 3 + 1 reads worse than 2 + 2.
      if (n == 4 && columns == 3)
        columns = 2;
      // One or two channels take at most half the width each, as the images above do.
      const int tile = std::max(1, std::min((inner - (columns - 1) * m) / columns, (inner - m) / 2));
      const QImage &first = m_input.channels.front().plane;
      const int tileHeight =
          std::clamp(tile * first.height() / std::max(1, first.width()), line, tile * 3 / 2);
      for (size_t c = 0; c < n; ++c) {
        int row = int(c) / columns, col = int(c) % columns;
        l.tiles.push_back(QRect(m + col * (tile + m), y + row * (tileHeight + line + m), tile, tileHeight));
      }
      const int rows = int((n + columns - 1) / columns);
      y += rows * (tileHeight + line + m);
      l.bar = QRect(m, y, inner, std::max(6, line * 3 / 4));
      y += l.bar.height() + line + m;
    }
    if (n) {
      l.table = QRect(m, y, inner, int(n + 1) * line);
      y += l.table.height() + m;
    }
    if (!noteText().isEmpty()) {
      const int lines =
          fontMetrics().boundingRect(QRect(0, 0, inner, 10 * line), Qt::TextWordWrap, noteText()).height();
      l.note = QRect(m, y, inner, std::max(line, lines));
      y += l.note.height() + m;
    }
    l.height = y;
    return l;
  }

  std::shared_ptr<const PreviewResult> m_result; // keeps m_input alive
  const PreviewInput &m_input;
  QList<QRgb> m_table;
  std::vector<QImage> m_colored;
  QImage m_bar;
};

} // namespace

PreprocessPreview::PreprocessPreview(QWidget *parent)
    : QWidget(parent), m_result(std::make_shared<PreviewResult>()), m_status(new QLabel), m_error(new QLabel),
      m_warnings(new QLabel), m_dataset(new QLabel), m_colorMapBox(new QComboBox), m_panels(new QWidget),
      m_panelLayout(new QVBoxLayout(m_panels)) {
  m_colorMapBox->addItem(tr("Heat"), int(ColorMap::Heat));
  m_colorMapBox->addItem(tr("Gray"), int(ColorMap::Gray));
  m_colorMapBox->setToolTip(tr("How channel values are coloured (lowest to highest of the input)"));
  connect(m_colorMapBox, &QComboBox::activated, this,
          [this] { setColorMap(ColorMap(m_colorMapBox->currentData().toInt())); });
  for (QLabel *label : {m_status, m_error, m_warnings, m_dataset}) {
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  }
  m_error->setObjectName(QStringLiteral("previewError"));
  m_warnings->setObjectName(QStringLiteral("previewWarnings"));
  m_warnings->setTextFormat(Qt::RichText);
  m_warnings->setMargin(fontMetrics().height() / 3);
  m_warnings->setAutoFillBackground(true);
  m_error->hide();
  m_warnings->hide();

  auto *top = new QHBoxLayout;
  top->addWidget(m_status, 1);
  top->addWidget(new QLabel(tr("Colours:")));
  top->addWidget(m_colorMapBox);

  m_panelLayout->setContentsMargins(0, 0, 0, 0);
  m_panelLayout->addStretch(1);
  auto *scroll = new QScrollArea;
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setWidget(m_panels);

  auto *layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(m_error);
  layout->addWidget(m_warnings);
  layout->addWidget(m_dataset);
  layout->addWidget(scroll, 1);
  applyPalette();
  updateDatasetLine();
  showPlaceholder(tr("Select a sample to see it as the model receives it."));
}

PreprocessPreview::~PreprocessPreview() = default;

void PreprocessPreview::setSample(const QStringList &files) {
  if (files == m_files && !m_files.isEmpty())
    return;
  m_files = files;
  schedule();
}

void PreprocessPreview::setModelInputs(std::vector<ModelInput> inputs, const QString &note) {
  if (inputs == m_inputs && note == m_modelNote)
    return;
  m_inputs = std::move(inputs);
  m_modelNote = note;
  schedule();
}

void PreprocessPreview::setSettings(const project::ImportSettings &settings) {
  if (settings == m_settings)
    return;
  m_settings = settings;
  schedule();
}

void PreprocessPreview::setDatasetStatistics(dataset::DatasetStatistics statistics) {
  if (m_statistics && *m_statistics == statistics)
    return;
  if (!m_statistics && statistics.empty())
    return;
  m_statistics = statistics.empty()
                     ? nullptr
                     : std::make_shared<const dataset::DatasetStatistics>(std::move(statistics));
  updateDatasetLine();
  schedule();
}

void PreprocessPreview::setColorMap(ColorMap map) {
  m_colorMap = map;
  m_colorMapBox->setCurrentIndex(m_colorMapBox->findData(int(map)));
  const QList<QRgb> table = colorTable(map);
  for (InputPanel *panel : m_panels->findChildren<InputPanel *>(Qt::FindDirectChildrenOnly))
    panel->setColorTable(table);
}

void PreprocessPreview::schedule() {
  ++m_generation;
  if (m_files.isEmpty()) {
    showPlaceholder(tr("Select a sample to see it as the model receives it."));
    return;
  }
  if (m_inputs.empty()) {
    showPlaceholder(m_modelNote.isEmpty() ? tr("Import a model to see the tensors it receives.")
                                          : m_modelNote);
    return;
  }
  QStringList names;
  for (const QString &f : m_files)
    names << QFileInfo(f).fileName();
  m_status->setText(tr("%1 — computing…").arg(names.join(QStringLiteral(", "))));
  if (m_running) {
    m_pending = true; // started when the running one returns: at most one computation at a time
    return;
  }
  start();
}

void PreprocessPreview::start() {
  m_running = true;
  m_pending = false;
  PreviewRequest request{m_files, m_settings, m_inputs, m_statistics};
  const quint64 generation = m_generation;
  QtConcurrent::run([request = std::move(request)] {
    return std::make_shared<const PreviewResult>(computePreview(request));
  }).then(this, [this, generation](std::shared_ptr<const PreviewResult> result) {
    // A computation that finished before this continuation was attached runs it at once, inside start();
    // queued, the result always arrives from the event loop, so scrolling through samples cannot present
    // each of them on the spot.
    QMetaObject::invokeMethod(
        this,
        [this, generation, result = std::move(result)]() mutable {
          m_running = false;
          if (generation == m_generation)
            present(std::move(result));
          // A result for a sample or settings that changed meanwhile is dropped; the newest request runs.
          if (m_pending)
            start();
        },
        Qt::QueuedConnection);
  });
}

void PreprocessPreview::showPlaceholder(const QString &text) {
  m_result = std::make_shared<PreviewResult>();
  m_pending = false;
  for (QWidget *w : m_panels->findChildren<QWidget *>(Qt::FindDirectChildrenOnly))
    delete w;
  m_status->setText(text);
  m_error->hide();
  m_warnings->hide();
}

void PreprocessPreview::present(std::shared_ptr<const PreviewResult> result) {
  m_result = std::move(result);
  for (QWidget *w : m_panels->findChildren<QWidget *>(Qt::FindDirectChildrenOnly))
    delete w;
  QStringList names;
  for (const QString &f : m_files)
    names << QFileInfo(f).fileName();
  m_status->setText(names.join(QStringLiteral(", ")));
  m_error->setVisible(!m_result->error.isEmpty());
  m_error->setText(m_result->error);
  QStringList items;
  for (const dataset::SampleWarning &w : m_result->warnings)
    items << QStringLiteral("<p style=\"margin-bottom:4px\">⚠ %1</p>")
                 .arg(QString::fromStdString(w.text).toHtmlEscaped());
  m_warnings->setText(items.join(QString()));
  m_warnings->setVisible(!items.isEmpty());
  const QList<QRgb> table = colorTable(m_colorMap);
  for (size_t i = 0; i < m_result->inputs.size(); ++i)
    m_panelLayout->insertWidget(int(i), new InputPanel(m_result, i, table, m_panels));
  Q_EMIT previewUpdated();
}

void PreprocessPreview::updateDatasetLine() {
  if (!m_statistics) {
    m_dataset->setText(tr("No dataset statistics to compare the sample with (scan the dataset's folder)."));
    return;
  }
  QStringList parts;
  if (const dataset::FileClass *images = m_statistics->find(dataset::kImageClass))
    parts << tr("%1 images (median R %2, G %3, B %4)")
                 .arg(images->files)
                 .arg(images->statistics[0].median, 0, 'f', 0)
                 .arg(images->statistics[1].median, 0, 'f', 0)
                 .arg(images->statistics[2].median, 0, 'f', 0);
  size_t tensors = 0;
  for (const dataset::FileClass &c : m_statistics->classes)
    if (c.key != dataset::kImageClass)
      tensors += c.files;
  if (tensors)
    parts << tr("%1 tensor files").arg(tensors);
  m_dataset->setText(tr("Compared with the dataset's %1.").arg(parts.join(tr(" and "))));
}

void PreprocessPreview::applyPalette() {
  const QPalette &pal = palette();
  const bool dark = isDark(pal);
  QPalette warning = pal;
  warning.setColor(QPalette::Window,
                   blend(pal.color(QPalette::Window), QColor(255, 170, 0), dark ? 0.22 : 0.18));
  m_warnings->setPalette(warning);
  QPalette error = pal;
  error.setColor(QPalette::WindowText, dark ? QColor(255, 120, 110) : QColor(176, 0, 32));
  m_error->setPalette(error);
  QPalette muted = pal;
  muted.setColor(QPalette::WindowText,
                 blend(pal.color(QPalette::Window), pal.color(QPalette::WindowText), 0.65));
  m_dataset->setPalette(muted);
}

void PreprocessPreview::changeEvent(QEvent *event) {
  if (event->type() == QEvent::PaletteChange)
    applyPalette();
  QWidget::changeEvent(event);
}

void PreprocessPreview::followProject(StudioContext *context, qint64 datasetId) {
  m_context = context;
  m_datasetId = datasetId;
  connect(context, &StudioContext::projectChanged, this, [this](Section section) {
    if (section == Section::ImportSettings)
      setSettings(m_context->project().importSettings);
    else if (section == Section::Model)
      loadModelInputs();
    else if (section == Section::Datasets)
      updateStatistics();
  });
  connect(context, &StudioContext::projectLoaded, this, [this] {
    setSettings(m_context->project().importSettings);
    loadModelInputs();
    updateStatistics();
  });
  connect(context, &StudioContext::projectClosed, this, [this] {
    setSample({});
    setModelInputs({});
    setDatasetStatistics({});
  });
  setSettings(context->project().importSettings);
  loadModelInputs();
  updateStatistics();
}

void PreprocessPreview::loadModelInputs() {
  const project::ModelRef &model = m_context->project().model;
  const quint64 generation = ++m_modelGeneration;
  if (model.path.empty() && model.embedded.empty()) {
    setModelInputs({}, tr("Import a model to see the tensors it receives."));
    return;
  }
  const bool onnx = model.format == "onnx" ||
                    QString::fromStdString(model.path).endsWith(QLatin1String(".onnx"), Qt::CaseInsensitive);
  if (!onnx) {
    setModelInputs({}, tr("The preview reads the inputs of an ONNX model; this project's model is %1.")
                           .arg(QString::fromStdString(model.format.empty() ? model.path : model.format)));
    return;
  }
  // A large model takes a moment to read: off the UI thread, the newest read wins.
  QtConcurrent::run([path = model.path, bytes = model.embedded] {
    return bytes.empty() ? readOnnxInputsFromFile(path) : readOnnxInputs(bytes.data(), bytes.size());
  }).then(this, [this, generation](Result<std::vector<ModelInput>> inputs) {
    if (generation != m_modelGeneration)
      return;
    if (inputs)
      setModelInputs(std::move(*inputs));
    else
      setModelInputs({}, QString::fromStdString(inputs.error()));
  });
}

void PreprocessPreview::updateStatistics() {
  for (const project::Dataset &d : m_context->project().datasets)
    if (d.id == m_datasetId) {
      setDatasetStatistics(d.index ? dataset::datasetStatistics(*d.index) : dataset::DatasetStatistics{});
      return;
    }
  setDatasetStatistics({});
}

} // namespace tpuc::ui
