// Node colours of the graph view: op category, precision, or per-node numbers, with their legend.
#ifndef TPUC_VISUALIZER_GRAPHOVERLAY_H
#define TPUC_VISUALIZER_GRAPHOVERLAY_H

#include "tpuc/GraphData/GraphData.h"

#include <QColor>
#include <QString>

#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace tpuc::vis {

/// What node colour shows.
enum class OverlayMode {
  Category,   ///< op category from the dialect's ODS
  Precision,  ///< the op's precision (Tpu) or result dtype (Top)
  Flops,      ///< FlopsInterface, log scale
  Cycles,     ///< simulated cycles per op (values fed by setValues), log scale
  Cosine,     ///< cosine similarity of the op's output in the last compare run (values fed by setValues)
  LayerGroup, ///< layer group id
  // Accuracy over test samples (issue 22; values fed by setValues), linear scale, clusters by their maximum:
  IsolatedError,    ///< 1 - p5 isolated cosine (one sample: its isolated cosine): error born in the op
  AccumulatedError, ///< 1 - p5 accumulated cosine (one sample: its cosine): error piled up to the op
  FloatGain,        ///< output cosine gained with the op (and its consumers) in float, measured candidates
};
/// "Category", "FLOPs", ... for menus and legends.
QString overlayName(OverlayMode mode);
inline constexpr OverlayMode kAllOverlays[] = {
    OverlayMode::Category,      OverlayMode::Precision,        OverlayMode::Flops,
    OverlayMode::Cycles,        OverlayMode::Cosine,           OverlayMode::LayerGroup,
    OverlayMode::IsolatedError, OverlayMode::AccumulatedError, OverlayMode::FloatGain};

struct LegendEntry {
  QColor color;
  QString text;
};
/// Swatches (categorical modes) or a colour ramp with its ends (numeric modes).
struct Legend {
  QString title;
  std::vector<LegendEntry> entries;
  bool ramp = false;
  QString note; ///< e.g. "no data: run the simulator"
};

/// Colours of every node and cluster for one mode. Numeric modes colour clusters by the sum (FLOPs,
/// cycles) or the minimum (cosine) of their ops, so a collapsed block shows where its cost or error is.
class GraphOverlay {
public:
  void setGraph(const graph::Graph *graph);
  void setMode(OverlayMode mode);
  OverlayMode mode() const { return m_mode; }
  /// Per-node values by node name (Cycles, Cosine; other modes read the graph).
  void setValues(OverlayMode mode, std::unordered_map<std::string, double> values);
  bool hasValues(OverlayMode mode) const;

  QColor nodeColor(graph::NodeId id) const;
  QColor clusterColor(graph::ClusterId id) const;
  /// The value behind a node's colour ("1.2 GFLOPs", "cos 0.9993"), empty when none.
  QString valueText(graph::NodeId id) const;
  /// The number behind a node's colour in a numeric mode (the layer group id, cycles, ...), NaN when none.
  double nodeValue(graph::NodeId id) const {
    return id < m_nodeValues.size() ? m_nodeValues[id] : std::numeric_limits<double>::quiet_NaN();
  }
  const Legend &legend() const { return m_legend; }

private:
  void recompute();

  const graph::Graph *m_graph = nullptr;
  OverlayMode m_mode = OverlayMode::Category;
  std::map<OverlayMode, std::unordered_map<std::string, double>> m_values;
  std::vector<QColor> m_nodeColors, m_clusterColors;
  std::vector<double> m_nodeValues; ///< NaN when none
  Legend m_legend;
};

/// "#4e79a7" of a category, the colour the exporter uses too.
QColor categoryQColor(const std::string &category);
/// A perceptual ramp (dark blue → yellow) at t in [0, 1].
QColor rampColor(double t);

} // namespace tpuc::vis

#endif
