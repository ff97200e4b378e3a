//===- Graphviz.h - The process's one Graphviz context and its lock (internal) ===//
#ifndef TPUC_LIB_GRAPH_GRAPHVIZ_H
#define TPUC_LIB_GRAPH_GRAPHVIZ_H

#include <graphviz/gvc.h>

#include <mutex>

namespace tpuc::graph {
/// libgvc keeps global state (plugin lists, layout statics): every use holds this lock.
std::mutex &graphvizMutex();
/// Created on first use, with the installed plugins.
GVC_t *graphvizContext();
} // namespace tpuc::graph

#endif
