// Node colours of the graph view and their legend.
#include "visualizer/GraphOverlay.h"

#include "tpuc/GraphData/GraphLayout.h"

#include <QLocale>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace tpuc::vis {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const QColor kNoData(0xd8, 0xd8, 0xd8);

QColor precisionColor(const std::string &p) {
  static const std::map<std::string, QColor> colors = {
      {"F32", QColor("#6b8fb5")},    {"f32", QColor("#6b8fb5")},    {"F16", QColor("#59a14f")},
      {"f16", QColor("#59a14f")},    {"BF16", QColor("#8cd17d")},   {"bf16", QColor("#8cd17d")},
      {"INT8", QColor("#f28e2b")},   {"i8", QColor("#f28e2b")},     {"W8F16", QColor("#b07aa1")},
      {"W8BF16", QColor("#d4a6c8")}, {"W4F16", QColor("#9d7660")},  {"W4BF16", QColor("#d7b5a6")}};
  if (auto it = colors.find(p); it != colors.end())
    return it->second;
  return categoryQColor(p);
}

QString humanCount(double v, const QString &unit) {
  static const char *prefixes[] = {"", "K", "M", "G", "T", "P"};
  int i = 0;
  while (std::fabs(v) >= 1000 && i < 5) {
    v /= 1000;
    ++i;
  }
  return QString::number(v, 'g', 3) + " " + prefixes[i] + unit;
}

} // namespace

QString overlayName(OverlayMode mode) {
  switch (mode) {
  case OverlayMode::Category: return QStringLiteral("Category");
  case OverlayMode::Precision: return QStringLiteral("Precision");
  case OverlayMode::Flops: return QStringLiteral("FLOPs");
  case OverlayMode::Cycles: return QStringLiteral("Simulated cycles");
  case OverlayMode::Cosine: return QStringLiteral("Cosine (last compare)");
  case OverlayMode::LayerGroup: return QStringLiteral("Layer group");
  case OverlayMode::IsolatedError:
    return QStringLiteral("Isolated error");
  case OverlayMode::AccumulatedError:
    return QStringLiteral("Accumulated error");
  case OverlayMode::FloatGain:
    return QStringLiteral("Float gain");
  }
  return {};
}

QColor categoryQColor(const std::string &category) {
  return QColor(QString::fromStdString(graph::categoryColor(category)));
}

QColor rampColor(double t) {
  // Viridis at five stops, linearly interpolated.
  static const QColor stops[] = {QColor("#440154"), QColor("#3b528b"), QColor("#21918c"), QColor("#5ec962"),
                                 QColor("#fde725")};
  t = std::clamp(t, 0.0, 1.0) * 4;
  int i = std::min(3, static_cast<int>(t));
  double f = t - i;
  const QColor &a = stops[i], &b = stops[i + 1];
  return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * f),
                          static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * f),
                          static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * f));
}

void GraphOverlay::setGraph(const graph::Graph *graph) {
  m_graph = graph;
  recompute();
}

void GraphOverlay::setMode(OverlayMode mode) {
  m_mode = mode;
  recompute();
}

void GraphOverlay::setValues(OverlayMode mode, std::unordered_map<std::string, double> values) {
  m_values[mode] = std::move(values);
  if (mode == m_mode)
    recompute();
}

bool GraphOverlay::hasValues(OverlayMode mode) const {
  auto it = m_values.find(mode);
  return it != m_values.end() && !it->second.empty();
}

QColor GraphOverlay::nodeColor(graph::NodeId id) const {
  return id < m_nodeColors.size() ? m_nodeColors[id] : kNoData;
}

QColor GraphOverlay::clusterColor(graph::ClusterId id) const {
  return id < m_clusterColors.size() ? m_clusterColors[id] : kNoData;
}

QString GraphOverlay::valueText(graph::NodeId id) const {
  if (id >= m_nodeValues.size() || std::isnan(m_nodeValues[id]))
    return {};
  double v = m_nodeValues[id];
  switch (m_mode) {
  case OverlayMode::Flops: return humanCount(v, "FLOPs");
  case OverlayMode::Cycles: return humanCount(v, "cycles");
  case OverlayMode::Cosine: return "cos " + QString::number(v, 'f', 6);
  case OverlayMode::LayerGroup: return "group " + QString::number(static_cast<qint64>(v));
  case OverlayMode::IsolatedError:
    return "isolated 1 − cos " + QString::number(v, 'f', 6);
  case OverlayMode::AccumulatedError:
    return "accumulated 1 − cos " + QString::number(v, 'f', 6);
  case OverlayMode::FloatGain:
    return QString("gain in float %1%2").arg(v >= 0 ? "+" : "").arg(v, 0, 'f', 6);
  default: return {};
  }
}

void GraphOverlay::recompute() {
  m_legend = {};
  m_legend.title = overlayName(m_mode);
  if (!m_graph) {
    m_nodeColors.clear();
    m_clusterColors.clear();
    return;
  }
  const graph::Graph &g = *m_graph;
  m_nodeColors.assign(g.nodes.size(), kNoData);
  m_clusterColors.assign(g.clusters.size(), QColor(0xe6, 0xe6, 0xee));
  m_nodeValues.assign(g.nodes.size(), kNaN);

  if (m_mode == OverlayMode::Category || m_mode == OverlayMode::Precision) {
    std::set<std::string> present;
    for (const graph::Node &n : g.nodes) {
      if (n.constant)
        continue;
      const std::string &key = m_mode == OverlayMode::Category ? n.category : n.precision;
      m_nodeColors[n.id] = m_mode == OverlayMode::Category ? categoryQColor(key) : precisionColor(key);
      present.insert(key);
    }
    for (const std::string &key : present)
      m_legend.entries.push_back({m_mode == OverlayMode::Category ? categoryQColor(key) : precisionColor(key),
                                  QString::fromStdString(key.empty() ? std::string("(none)") : key)});
    return;
  }

  // Numeric modes: a value per node, aggregated per cluster.
  const std::unordered_map<std::string, double> *fed = nullptr;
  if (auto it = m_values.find(m_mode); it != m_values.end())
    fed = &it->second;
  for (const graph::Node &n : g.nodes) {
    if (n.constant)
      continue;
    if (m_mode == OverlayMode::Flops && n.flops)
      m_nodeValues[n.id] = static_cast<double>(*n.flops);
    else if (m_mode == OverlayMode::LayerGroup && n.layerGroup)
      m_nodeValues[n.id] = static_cast<double>(*n.layerGroup);
    else if (fed) {
      // A run recorded when ops were named after ONNX nodes keys its layers by the legacy name.
      const std::string &legacy = n.legacyName.empty() ? n.onnxNode : n.legacyName;
      auto it = fed->find(n.name);
      if (it == fed->end() && !legacy.empty())
        it = fed->find(legacy);
      if (it != fed->end())
        m_nodeValues[n.id] = it->second;
    }
  }
  const bool minAggregate = m_mode == OverlayMode::Cosine;
  // Errors and gains: a collapsed block shows its worst error, its largest gain.
  const bool maxAggregate = m_mode == OverlayMode::IsolatedError || m_mode == OverlayMode::AccumulatedError ||
                            m_mode == OverlayMode::FloatGain;
  std::vector<double> clusterValues(g.clusters.size(), kNaN);
  for (const graph::Node &n : g.nodes) {
    double v = m_nodeValues[n.id];
    if (std::isnan(v) || m_mode == OverlayMode::LayerGroup)
      continue;
    for (graph::ClusterId c : g.clusterPath(n.cluster)) {
      double &cv = clusterValues[c];
      cv = std::isnan(cv) ? v : minAggregate ? std::min(cv, v) : maxAggregate ? std::max(cv, v) : cv + v;
    }
  }
  if (m_mode == OverlayMode::LayerGroup) {
    std::set<int64_t> groups;
    for (const graph::Node &n : g.nodes)
      if (!std::isnan(m_nodeValues[n.id])) {
        std::string key = "group " + std::to_string(static_cast<int64_t>(m_nodeValues[n.id]));
        m_nodeColors[n.id] = categoryQColor(key + "#");
        groups.insert(static_cast<int64_t>(m_nodeValues[n.id]));
      }
    for (int64_t gid : groups) {
      if (m_legend.entries.size() == 12) {
        m_legend.entries.push_back({kNoData, QString("… %1 groups").arg(groups.size())});
        break;
      }
      m_legend.entries.push_back({categoryQColor("group " + std::to_string(gid) + "#"), QString("group %1").arg(gid)});
    }
    if (groups.empty())
      m_legend.note = QStringLiteral("no layer groups in this IR");
    return;
  }
  const bool logScale = m_mode == OverlayMode::Flops || m_mode == OverlayMode::Cycles;
  auto scaled = [&](double v) { return logScale ? std::log10(std::max(v, 1.0)) : v; };
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (double v : m_nodeValues)
    if (!std::isnan(v) && (!logScale || v > 0)) { // zero-cost ops take the low end, not log(0)
      lo = std::min(lo, scaled(v));
      hi = std::max(hi, scaled(v));
    }
  if (!(lo <= hi)) {
    m_legend.note = m_mode == OverlayMode::Cycles   ? QStringLiteral("no data: run the simulator")
                    : m_mode == OverlayMode::Cosine ? QStringLiteral("no data: run a compare")
                    : m_mode == OverlayMode::FloatGain
                        ? QStringLiteral("no data: deploy with “Find the first divergent layers”")
                    : maxAggregate
                        ? QStringLiteral("no data: deploy with a test input, comparing every layer")
                        : QStringLiteral("no data");
    return;
  }
  auto colorOf = [&](double v) { return rampColor(hi > lo ? (scaled(v) - lo) / (hi - lo) : 1.0); };
  for (const graph::Node &n : g.nodes)
    if (!std::isnan(m_nodeValues[n.id]))
      m_nodeColors[n.id] = colorOf(m_nodeValues[n.id]);
  // Clusters on the same scale, clamped (a sum exceeds every single op).
  for (size_t c = 0; c < clusterValues.size(); ++c)
    if (!std::isnan(clusterValues[c]))
      m_clusterColors[c] = colorOf(clusterValues[c]);
  auto unscaled = [&](double s) { return logScale ? std::pow(10.0, s) : s; };
  m_legend.ramp = true;
  for (int i = 0; i <= 4; ++i) {
    double v = unscaled(lo + (hi - lo) * i / 4.0);
    QString text = m_mode == OverlayMode::Cosine ? QString::number(v, 'f', 4)
                   : m_mode == OverlayMode::FloatGain
                       ? QString("%1%2").arg(v >= 0 ? "+" : "").arg(v, 0, 'f', 4)
                   : maxAggregate ? QString::number(v, 'g', 3)
                                  : humanCount(v, m_mode == OverlayMode::Flops ? "FLOPs" : "cycles");
    m_legend.entries.push_back({rampColor(i / 4.0), text});
  }
  m_legend.note = logScale       ? QStringLiteral("log scale; clusters: sum")
                  : maxAggregate ? (m_mode == OverlayMode::FloatGain
                                        ? QStringLiteral("output cosine gained in float; clusters: maximum")
                                        : QStringLiteral("1 − p5 cosine over the samples; clusters: maximum"))
                                 : QStringLiteral("clusters: minimum");
}

} // namespace tpuc::vis
