// The LLM import dialog and the llm_convert rules it applies.
#include "ui/LlmImportDialog.h"

#include "tpuc/Driver/Chips.h"
#include "tpuc/LLM/HFConfig.h"
#include "tpuc/LLM/PrefillBuckets.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace tpuc::ui {

namespace {

QString quantMethodName(const llm::QuantizationConfig &q) {
  return q.methodName.empty() ? QStringLiteral("quantized") : QString::fromStdString(q.methodName);
}

// Weight precision of a pre-quantized checkpoint's compute dtype: bf16 models get the bf16 variants.
bool prefersF16(const QString &dtype) { return dtype == QLatin1String("float16"); }

} // namespace

bool isModelFolder(const QString &path) { return QFileInfo(path).isDir(); }

std::optional<HfModelInfo> readHfModel(const QString &folder, QString *error) {
  const QFileInfo dirInfo(folder);
  if (!dirInfo.isDir()) {
    *error = QObject::tr("'%1' is not a folder").arg(folder);
    return std::nullopt;
  }
  const QDir dir(dirInfo.absoluteFilePath());
  if (!dir.exists(QStringLiteral("config.json"))) {
    *error = QObject::tr("'%1' is not a HuggingFace model folder: it has no config.json").arg(dir.path());
    return std::nullopt;
  }
  auto config = llm::readModelConfig(dir.filePath(QStringLiteral("config.json")).toStdString());
  if (!config) {
    *error = QString::fromStdString(llvm::toString(config.takeError()));
    return std::nullopt;
  }
  HfModelInfo info;
  info.folder = dir.path();
  info.architecture = QString::fromStdString(config->architecture);
  info.family = QString::fromStdString(llm::modelFamilyName(config->family).str());
  info.layers = config->numHiddenLayers;
  info.hiddenSize = config->hiddenSize;
  info.intermediateSize = config->intermediateSize;
  info.heads = config->numAttentionHeads;
  info.kvHeads = config->numKeyValueHeads;
  info.headDim = config->headDim;
  info.vocabSize = config->vocabSize;
  info.maxPositions = config->maxPositionEmbeddings;
  info.dtype = QString::fromStdString(config->torchDType);
  if (const auto &v = config->vision)
    info.vision = QObject::tr("InternViT, %1 layers, hidden %2, %3 px, %4 tokens per image")
                      .arg(v->numLayers)
                      .arg(v->hiddenSize)
                      .arg(v->imageSize)
                      .arg(v->imageTokens());
  if (const auto &q = config->quantization) {
    info.quantBits = q->bits;
    info.quantGroupSize = q->groupSize;
    info.quantSymmetric = q->sym;
    info.quantization = QObject::tr("%1, %2 bit, %3, %4")
                            .arg(quantMethodName(*q))
                            .arg(q->bits)
                            .arg(q->groupSize < 0 ? QObject::tr("per channel")
                                                  : QObject::tr("group %1").arg(q->groupSize))
                            .arg(q->sym ? QObject::tr("symmetric") : QObject::tr("asymmetric"));
  }
  for (const QFileInfo &file : dir.entryInfoList({QStringLiteral("*.safetensors")}, QDir::Files, QDir::Name)) {
    info.weightFiles << file.fileName();
    info.weightBytes += file.size();
  }
  if (info.weightFiles.isEmpty()) {
    *error = QObject::tr("'%1' has no *.safetensors weights").arg(dir.path());
    return std::nullopt;
  }
  info.hasTokenizer = dir.exists(QStringLiteral("tokenizer.json"));
  return info;
}

QStringList llmQuantizeModes() {
  return {QStringLiteral("bf16"),   QStringLiteral("f16"),   QStringLiteral("f32"),  QStringLiteral("w8bf16"),
          QStringLiteral("w4bf16"), QStringLiteral("w8f16"), QStringLiteral("w4f16")};
}

QStringList llmChips() {
  QStringList chips;
  for (const std::string &chip : driver::listChips())
    chips << QString::fromStdString(chip);
  return chips;
}

std::optional<project::LlmConvertSettings> normalizeLlmSettings(project::LlmConvertSettings s, qint64 maxPositions,
                                                                QString *error) {
  auto fail = [error](const QString &text) {
    *error = text;
    return std::nullopt;
  };
  if (s.seqLength <= 0)
    return fail(QObject::tr("--seq_length must be positive"));
  if (maxPositions > 0 && s.seqLength > maxPositions)
    return fail(QObject::tr("--seq_length %1 exceeds the model's max_position_embeddings (%2)")
                    .arg(s.seqLength)
                    .arg(maxPositions));
  if (!llmQuantizeModes().contains(QString::fromStdString(s.quantize)))
    return fail(QObject::tr("--quantize '%1' is not one of %2")
                    .arg(QString::fromStdString(s.quantize), llmQuantizeModes().join(QStringLiteral(", "))));
  if (!llmChips().contains(QString::fromStdString(s.chip)))
    return fail(QObject::tr("--chip '%1' is not one of %2")
                    .arg(QString::fromStdString(s.chip), llmChips().join(QStringLiteral(", "))));
  if (s.qGroupSize < 0)
    return fail(QObject::tr("--q_group_size must not be negative"));
  if (s.chunkLength < 0 || s.maxInputLength < 0)
    return fail(QObject::tr("--chunk_length and --max_input_length must not be negative"));
  if (s.chunkLength > 0 && !s.useHistoryKv)
    return fail(QObject::tr("--chunk_length needs --use_history_kv"));
  if (s.chunkLength > s.seqLength / 2)
    return fail(QObject::tr("--chunk_length %1 must be at most half of --seq_length (%2)")
                    .arg(s.chunkLength)
                    .arg(s.seqLength / 2));
  if (s.maxInputLength > s.seqLength)
    return fail(QObject::tr("--max_input_length %1 must not exceed --seq_length (%2)")
                    .arg(s.maxInputLength)
                    .arg(s.seqLength));
  if (s.useHistoryKv && s.chunkLength == 0) {
    // llm_convert's default chunking: a quarter of the context, and one chunk per prefill.
    s.chunkLength = s.seqLength / 4;
    s.maxInputLength = s.chunkLength;
    if (s.chunkLength == 0)
      return fail(QObject::tr("--seq_length %1 is too short to chunk (--use_history_kv needs at least 4)")
                      .arg(s.seqLength));
  }
  if (s.chunkLength > 0 && s.maxInputLength > 0 && s.chunkLength > s.maxInputLength)
    return fail(QObject::tr("--chunk_length %1 must not exceed --max_input_length (%2)")
                    .arg(s.chunkLength)
                    .arg(s.maxInputLength));
  if (!QString::fromStdString(s.quantize).startsWith(QLatin1Char('w')))
    s.qGroupSize = 64; // only weight-only modes group; keep the default so equal choices compare equal
  return s;
}

driver::LlmConvertOptions llmConvertRequest(const project::LlmConvertSettings &s, const QString &modelFolder,
                                            const QString &outDir) {
  driver::LlmConvertOptions r;
  r.modelPath = modelFolder.toStdString();
  r.seqLength = s.seqLength;
  r.quantize = s.quantize;
  r.qGroupSize = s.qGroupSize;
  r.chip = s.chip;
  r.symmetric = s.symmetric;
  r.useHistoryKv = s.useHistoryKv;
  r.chunkLength = s.chunkLength;
  r.maxInputLength = s.maxInputLength;
  r.dynamic = s.dynamic;
  r.outDir = outDir.toStdString();
  r.progress = "json";
  return r;
}

LlmImportDialog::LlmImportDialog(const QString &folder, const std::optional<project::LlmConvertSettings> &current,
                                 QWidget *parent)
    : QDialog(parent), m_folder(QFileInfo(folder).absoluteFilePath()) {
  setWindowTitle(tr("Import LLM %1").arg(QFileInfo(m_folder).fileName()));
  m_model = readHfModel(m_folder, &m_loadError);

  // Defaults that fit the checkpoint: its own precision family, and a pre-quantized model's grouping.
  project::LlmConvertSettings initial;
  if (current) {
    initial = *current;
  } else if (m_model) {
    const bool f16 = prefersF16(m_model->dtype);
    initial.quantize = f16 ? "w4f16" : "w4bf16";
    if (m_model->quantBits == 8)
      initial.quantize = f16 ? "w8f16" : "w8bf16";
    if (!m_model->quantization.isEmpty()) {
      initial.qGroupSize = std::max<qint64>(m_model->quantGroupSize, 0);
      initial.symmetric = m_model->quantSymmetric;
    }
    if (m_model->maxPositions > 0)
      initial.seqLength = std::min<qint64>(initial.seqLength, m_model->maxPositions);
  }

  auto *header = new QLabel(tr("<b>%1</b><br>%2").arg(QFileInfo(m_folder).fileName().toHtmlEscaped(),
                                                       QFileInfo(m_folder).absolutePath().toHtmlEscaped()));
  header->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_status = new QLabel;
  m_status->setObjectName(QStringLiteral("llmStatus"));
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Import and Convert"));
  connect(m_buttons, &QDialogButtonBox::accepted, this, &LlmImportDialog::accept);
  connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

  auto *layout = new QVBoxLayout(this);
  layout->addWidget(header);
  if (m_model) {
    auto *columns = new QHBoxLayout;
    columns->addWidget(makeSummary(), 1);
    columns->addWidget(makeOptions(initial), 1);
    layout->addLayout(columns);
  }
  layout->addWidget(m_status);
  layout->addStretch(1);
  layout->addWidget(m_buttons);
  validate();
  resize(fontMetrics().averageCharWidth() * 110, sizeHint().height());
}

QWidget *LlmImportDialog::makeSummary() {
  const HfModelInfo &m = *m_model;
  const QLocale locale;
  auto *box = new QGroupBox(tr("Model"));
  auto *form = new QFormLayout(box);
  auto row = [form](const QString &label, const QString &value, const QString &name) {
    auto *text = new QLabel(value);
    text->setObjectName(name);
    text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(label, text);
  };
  auto number = [&locale](qint64 n) { return locale.toString(n); };
  row(tr("Architecture:"), tr("%1 (%2)").arg(m.architecture, m.family), QStringLiteral("architecture"));
  row(tr("Layers:"), number(m.layers), QStringLiteral("layers"));
  row(tr("Hidden size:"), tr("%1 (MLP %2)").arg(number(m.hiddenSize), number(m.intermediateSize)),
      QStringLiteral("hiddenSize"));
  row(tr("Attention heads:"),
      tr("%1 (%2 KV, head dim %3)").arg(number(m.heads), number(m.kvHeads), number(m.headDim)),
      QStringLiteral("heads"));
  row(tr("Vocabulary:"), number(m.vocabSize), QStringLiteral("vocab"));
  row(tr("Max positions:"), number(m.maxPositions), QStringLiteral("maxPositions"));
  row(tr("Dtype:"), m.dtype.isEmpty() ? tr("not given") : m.dtype, QStringLiteral("dtype"));
  row(tr("Quantization:"), m.quantization.isEmpty() ? tr("none (full precision)") : m.quantization,
      QStringLiteral("quantization"));
  row(tr("Weights:"),
      tr("%1, %2")
          .arg(m.weightFiles.size() == 1 ? m.weightFiles.first()
                                         : tr("%1 safetensors files").arg(m.weightFiles.size()),
               locale.formattedDataSize(m.weightBytes)),
      QStringLiteral("weights"));
  if (!m.vision.isEmpty())
    row(tr("Vision tower:"), m.vision, QStringLiteral("vision"));
  row(tr("Tokenizer:"), m.hasTokenizer ? tr("tokenizer.json") : tr("missing (tokenizer.json is needed to chat)"),
      QStringLiteral("tokenizer"));
  return box;
}

QWidget *LlmImportDialog::makeOptions(const project::LlmConvertSettings &initial) {
  auto *box = new QGroupBox(tr("llm-convert options"));
  auto *form = new QFormLayout(box);
  auto spin = [this](const QString &name, int min, qint64 value, const QString &special) {
    auto *s = new QSpinBox;
    s->setObjectName(name);
    s->setRange(min, 1 << 20);
    s->setValue(static_cast<int>(value));
    if (!special.isEmpty())
      s->setSpecialValueText(special);
    connect(s, &QSpinBox::valueChanged, this, &LlmImportDialog::validate);
    return s;
  };
  auto combo = [this](const QString &name, const QStringList &items, const std::string &value) {
    auto *c = new QComboBox;
    c->setObjectName(name);
    c->addItems(items);
    c->setCurrentText(QString::fromStdString(value));
    connect(c, &QComboBox::currentTextChanged, this, &LlmImportDialog::validate);
    return c;
  };
  auto check = [this](const QString &name, const QString &text, bool value) {
    auto *c = new QCheckBox(text);
    c->setObjectName(name);
    c->setChecked(value);
    connect(c, &QCheckBox::toggled, this, &LlmImportDialog::validate);
    return c;
  };
  m_seqLength = spin(QStringLiteral("seqLength"), 1, initial.seqLength, {});
  m_quantize = combo(QStringLiteral("quantize"), llmQuantizeModes(), initial.quantize);
  m_groupSize = spin(QStringLiteral("qGroupSize"), 0, initial.qGroupSize, tr("per channel"));
  m_symmetric = check(QStringLiteral("symmetric"), tr("Symmetric weights"), initial.symmetric);
  m_chip = combo(QStringLiteral("chip"), llmChips(), initial.chip);
  m_historyKv = check(QStringLiteral("useHistoryKv"), tr("Chunked prefill with history KV"), initial.useHistoryKv);
  m_chunkLength = spin(QStringLiteral("chunkLength"), 0, initial.chunkLength, tr("auto"));
  m_maxInput = spin(QStringLiteral("maxInputLength"), 0, initial.maxInputLength, tr("= seq_length"));
  m_dynamic = check(QStringLiteral("dynamic"), tr("Prefill buckets for short prompts"), initial.dynamic);
  m_dynamic->setToolTip(tr("--dynamic: the prefill is also compiled for max input / 2, / 4, ... down to 16 "
                           "tokens, so a short prompt runs in the smallest bucket that holds it instead of "
                           "paying for the whole length"));
  m_seqLength->setToolTip(tr("Longest context (KV cache size), prompt and answer together"));
  m_groupSize->setToolTip(tr("Weights per quantization scale in w4/w8 modes"));
  m_chunkLength->setToolTip(tr("Prompt tokens per prefill step; at most half of seq_length"));
  form->addRow(tr("Sequence length:"), m_seqLength);
  form->addRow(tr("Quantize:"), m_quantize);
  form->addRow(tr("Group size:"), m_groupSize);
  form->addRow(QString(), m_symmetric);
  form->addRow(tr("Chip:"), m_chip);
  form->addRow(QString(), m_historyKv);
  form->addRow(tr("Chunk length:"), m_chunkLength);
  form->addRow(tr("Max input length:"), m_maxInput);
  form->addRow(QString(), m_dynamic);
  return box;
}

project::LlmConvertSettings LlmImportDialog::rawSettings() const {
  project::LlmConvertSettings s;
  s.seqLength = m_seqLength->value();
  s.quantize = m_quantize->currentText().toStdString();
  s.qGroupSize = m_groupSize->value();
  s.symmetric = m_symmetric->isChecked();
  s.chip = m_chip->currentText().toStdString();
  s.useHistoryKv = m_historyKv->isChecked();
  s.chunkLength = m_chunkLength->value();
  s.maxInputLength = m_maxInput->value();
  s.dynamic = m_dynamic->isChecked();
  return s;
}

std::optional<project::LlmConvertSettings> LlmImportDialog::settings(QString *error) const {
  if (!m_model) {
    *error = m_loadError;
    return std::nullopt;
  }
  return normalizeLlmSettings(rawSettings(), m_model->maxPositions, error);
}

QString LlmImportDialog::statusText() const { return m_status->text(); }

bool LlmImportDialog::isAcceptable() const { return m_buttons->button(QDialogButtonBox::Ok)->isEnabled(); }

void LlmImportDialog::validate() {
  if (m_model) {
    const bool weightOnly = m_quantize->currentText().startsWith(QLatin1Char('w'));
    m_groupSize->setEnabled(weightOnly);
    m_symmetric->setEnabled(weightOnly);
    const bool history = m_historyKv->isChecked();
    const bool autoChunk = history && m_chunkLength->value() == 0;
    m_chunkLength->setEnabled(history);
    // The "0" entries stand for derived values: show which, so the form agrees with the status line.
    const qint64 seq = m_seqLength->value();
    m_chunkLength->setSpecialValueText(history ? tr("auto (%1)").arg(seq / 4) : tr("none"));
    m_maxInput->setEnabled(!autoChunk); // llm_convert sets it to the chunk length then
    m_maxInput->setSpecialValueText(autoChunk ? tr("= chunk length (%1)").arg(seq / 4)
                                              : tr("= seq_length (%1)").arg(seq));
  }
  QString error;
  auto s = settings(&error);
  m_buttons->button(QDialogButtonBox::Ok)->setEnabled(s.has_value());
  if (!s) {
    // The palette has no "error" role; a warning sign in the text keeps it legible in light and dark.
    m_status->setText(tr("⚠ %1").arg(error));
  } else {
    QString text = tr("Converts %1 to %2 for %3, context %4")
                       .arg(m_model->architecture, QString::fromStdString(s->quantize), QString::fromStdString(s->chip))
                       .arg(s->seqLength);
    if (s->useHistoryKv)
      text += tr(", prefill in chunks of %1 (max input %2)").arg(s->chunkLength).arg(s->maxInputLength);
    else if (s->maxInputLength > 0)
      text += tr(", max input %1").arg(s->maxInputLength);
    if (s->dynamic) {
      const qint64 longest = s->maxInputLength > 0 ? s->maxInputLength : s->seqLength;
      QStringList lengths;
      for (int64_t b : tpuc::llm::defaultPrefillBuckets(longest))
        lengths << QString::number(b);
      text += lengths.isEmpty() ? tr(", no shorter prefill bucket below %1 tokens").arg(longest)
                                : tr(", prefill buckets %1").arg(lengths.join(QStringLiteral("/")));
    }
    m_status->setText(text + QLatin1Char('.'));
  }
}

void LlmImportDialog::accept() {
  QString error;
  if (!settings(&error)) {
    m_status->setText(tr("⚠ %1").arg(error));
    return;
  }
  QDialog::accept();
}

} // namespace tpuc::ui
