// A central tab showing the graph of an MLIR file (the project's Top IR, or any file opened).
#ifndef TPUC_UI_VIEWS_GRAPHVIEWTAB_H
#define TPUC_UI_VIEWS_GRAPHVIEWTAB_H

#include "tpuc/GraphData/GraphData.h"
#include "ui/StudioContext.h"

#include <QWidget>

#include <memory>
#include <unordered_map>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QTreeWidget;

namespace tpuc::vis {
class GraphView;
}

namespace tpuc::ui {

class EngineCall;

/// Toolbar (search, overlay, open/close clusters, fit, export) over a vis::GraphView. The graph is
/// extracted out of process (`tpuc graph FILE --format json`), so a malformed file cannot take the
/// studio down; the JSON is read and laid out off the UI thread. Selecting a node publishes it through
/// the context (the properties panel shows it); cosine values, cycles and layer groups come from the selected
/// run when it has them, else from the latest run that does.
class GraphViewTab : public QWidget {
  Q_OBJECT
public:
  GraphViewTab(StudioContext *context, const QString &mlirPath, QWidget *parent = nullptr);
  ~GraphViewTab() override;

  QString mlirPath() const { return m_path; }
  vis::GraphView *view() const { return m_view; }
  /// Shows an already extracted graph (tests, the pass inspector) instead of running the engine.
  void setGraph(std::shared_ptr<const graph::Graph> graph);
  /// Colours nodes by `mode` (as choosing it in the toolbar does).
  void setOverlay(int mode);
  /// Re-runs the extraction (the file changed, e.g. after a new transform).
  void reload();

Q_SIGNALS:
  /// The graph is shown and laid out (or failed: `error` non-empty).
  void loaded(const QString &error);
  /// Show the tensors of the selected node (`layer`, fed by `inputs`) in run `runId` (the Tensors button).
  void tensorsRequested(qint64 runId, const QString &layer, const QStringList &inputs);
  /// Deploy configuration `configId` again and compare the new run with its previous one (the
  /// "Re-deploy and Compare" button).
  void redeployRequested(qint64 configId);

public:
  /// The run whose tensors the Tensors button shows: the selected run when it kept them, else the newest
  /// that did; -1 when none.
  qint64 tensorRun() const;
  /// Asks for the selected node's tensors (what the Tensors button does); false when no node is selected or
  /// no run kept tensors.
  bool requestTensors();
  /// Adds the selected op to the current configuration's quantize table (MixedPrecision.h:
  /// currentConfigId) in the float mode its chip and precision call for; one undo step. Returns the
  /// table's id, or -1 with the reason in the status line.
  qint64 keepSelectedInFloat();

private:
  void applyRunMetrics();
  /// Tags the ops the current configuration's quantize table keeps in float with their mode.
  void applyFloatMarks();
  void exportAs(const QString &format);
  void failed(const QString &message);

  StudioContext *m_context;
  QString m_path;
  vis::GraphView *m_view;
  QLineEdit *m_search;
  QCheckBox *m_regex;
  QComboBox *m_overlay;
  QLabel *m_status;
  QString m_lastQuery;
  EngineCall *m_call = nullptr; ///< the running `tpuc graph`, if any
  quint64 m_generation = 0;
};

/// Fills a property tree with a graph node: op, name, category, location, shapes, precision and
/// quantization, FLOPs, attributes, operands, producers and consumers.
void fillGraphNodeProperties(QTreeWidget *tree, const graph::Graph &graph, graph::NodeId node);

/// Per-op values of a run's layer metrics (`key` = "cosine", "cycles", ...), by op name; empty if none.
std::unordered_map<std::string, double> runLayerValues(const project::RunRecord &run, const std::string &key);

} // namespace tpuc::ui

#endif
