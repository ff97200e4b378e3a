// The LLM import dialog: a HuggingFace model folder's configuration and llm_convert's options.
#ifndef TPUC_UI_LLMIMPORTDIALOG_H
#define TPUC_UI_LLMIMPORTDIALOG_H

#include "project/Project.h"
#include "tpuc/Driver/Requests.h"

#include <QDialog>
#include <QStringList>

#include <optional>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QSpinBox;

namespace tpuc::ui {

/// What the studio shows of a HuggingFace checkpoint folder (read from config.json through TpucLLM).
struct HfModelInfo {
  QString folder;                ///< absolute
  QString architecture;          ///< architectures[0], e.g. "Qwen2ForCausalLM"
  QString family;                ///< "llama", "qwen2", "qwen3"
  qint64 layers = 0, hiddenSize = 0, intermediateSize = 0, heads = 0, kvHeads = 0, headDim = 0;
  qint64 vocabSize = 0, maxPositions = 0;
  QString dtype;                 ///< torch_dtype, may be empty
  QString quantization;          ///< "gptq, 4 bit, group 128, symmetric", empty when not pre-quantized
  QString vision; ///< a VLM's tower: "InternViT, 24 layers, 448 px, 256 tokens per image"; else empty
  qint64 quantBits = 0, quantGroupSize = 0;
  bool quantSymmetric = false;
  QStringList weightFiles;       ///< *.safetensors file names
  qint64 weightBytes = 0;
  bool hasTokenizer = false;     ///< tokenizer.json present
};

/// True when `path` is a folder (the drop and File ▸ Import treat every folder as a HuggingFace model;
/// what is missing is reported by readHfModel).
bool isModelFolder(const QString &path);
/// Reads a HuggingFace model folder: config.json (supported architectures only) and at least one
/// *.safetensors file. On failure returns nullopt and one line naming the folder or file and the field.
std::optional<HfModelInfo> readHfModel(const QString &folder, QString *error);

/// The llm_convert choices (the chips: the engine's chip profiles).
QStringList llmQuantizeModes();
QStringList llmChips();

/// Applies llm_convert's rules to `s`: seq_length positive (and at most `maxPositions` when that is
/// known), chunk_length only with use_history_kv and at most seq_length / 2, max_input_length between 0
/// and seq_length and not below chunk_length; with use_history_kv and no chunk_length, chunk_length =
/// seq_length / 4 and max_input_length = chunk_length. Returns the settings as the engine will get them,
/// or nullopt with a one-line error naming the flag.
std::optional<project::LlmConvertSettings> normalizeLlmSettings(project::LlmConvertSettings s, qint64 maxPositions,
                                                                QString *error);

/// The `tpuc llm-convert` request of normalized settings, JSON progress.
driver::LlmConvertOptions llmConvertRequest(const project::LlmConvertSettings &s, const QString &modelFolder,
                                            const QString &outDir);

/// Prefilled from the model (summary, and defaults fitting its dtype and quantization_config) and from
/// `current` settings when given. Validates live: the OK button is enabled only for valid settings and a
/// line below the options states the effective values or the error.
class LlmImportDialog : public QDialog {
  Q_OBJECT
public:
  LlmImportDialog(const QString &folder, const std::optional<project::LlmConvertSettings> &current,
                  QWidget *parent = nullptr);

  QString modelFolder() const { return m_folder; }
  /// The model as read; nullopt when it could not be read (see loadError()).
  const std::optional<HfModelInfo> &model() const { return m_model; }
  QString loadError() const { return m_loadError; }
  /// The normalized settings; nullopt with `error` set when the options are not valid.
  std::optional<project::LlmConvertSettings> settings(QString *error) const;
  /// The validation line (effective values or the error), for tests.
  QString statusText() const;
  bool isAcceptable() const;

  void accept() override;

private:
  QWidget *makeSummary();
  QWidget *makeOptions(const project::LlmConvertSettings &initial);
  project::LlmConvertSettings rawSettings() const;
  void validate();

  QString m_folder;
  std::optional<HfModelInfo> m_model;
  QString m_loadError;
  QSpinBox *m_seqLength = nullptr;
  QComboBox *m_quantize = nullptr;
  QSpinBox *m_groupSize = nullptr;
  QCheckBox *m_symmetric = nullptr;
  QComboBox *m_chip = nullptr;
  QCheckBox *m_historyKv = nullptr;
  QSpinBox *m_chunkLength = nullptr;
  QSpinBox *m_maxInput = nullptr;
  QCheckBox *m_dynamic = nullptr;
  QLabel *m_status = nullptr;
  QDialogButtonBox *m_buttons = nullptr;
};

} // namespace tpuc::ui

#endif
