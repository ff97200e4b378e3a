//===- PassProvenance.cpp - Op relations between stages through location names ===//
//===----------------------------------------------------------------------===//
#include "tpuc/PassData/PassProvenance.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace tpuc {
namespace {

using NameIndex = std::unordered_map<std::string_view, std::vector<std::size_t>>;

NameIndex indexNames(const OpRecords &ops) {
  NameIndex index;
  for (std::size_t i = 0; i < ops.size(); ++i)
    for (const std::string &name : ops[i].locNames)
      index[name].push_back(i);
  return index;
}

/// Ops of the other stage sharing a name with `op`.
void exactMatches(const OpRecord &op, const NameIndex &other, std::vector<std::size_t> &out) {
  for (const std::string &name : op.locNames)
    if (auto it = other.find(name); it != other.end())
      out.insert(out.end(), it->second.begin(), it->second.end());
}

/// For an op whose names match nothing: its first name with up to kMaxSuffixes trailing `_suffix` parts
/// removed, shortest removal first ("relu_f32" → "relu", "w_bn_f16" → "w_bn" → "w").
constexpr int kMaxSuffixes = 3;
void suffixMatches(const OpRecord &op, const NameIndex &other, std::vector<std::size_t> &out) {
  if (op.locNames.empty())
    return;
  std::string_view name = op.locNames.front();
  for (int k = 0; k < kMaxSuffixes; ++k) {
    std::size_t cut = name.rfind('_');
    if (cut == std::string_view::npos || cut == 0)
      return;
    name = name.substr(0, cut);
    if (auto it = other.find(name); it != other.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
  }
}

void sortUnique(std::vector<std::size_t> &v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

} // namespace

Provenance mapProvenance(const OpRecords &from, const OpRecords &to) {
  Provenance p;
  p.forward.resize(from.size());
  p.backward.resize(to.size());
  const NameIndex fromNames = indexNames(from), toNames = indexNames(to);
  for (std::size_t i = 0; i < from.size(); ++i)
    exactMatches(from[i], toNames, p.forward[i]);
  for (std::size_t j = 0; j < to.size(); ++j)
    exactMatches(to[j], fromNames, p.backward[j]);
  // Ops a later stage created and named after their source with a suffix (TPU-MLIR's convention for
  // casts, requantizations and converted weights: `<producer>_<suffix>`) relate to the source when their
  // own names match nothing. Only in this direction: an earlier op that matches nothing was removed, and
  // guessing from its name ("bn_mean" → "bn") would relate it to whatever took the prefix.
  for (std::size_t j = 0; j < to.size(); ++j)
    if (p.backward[j].empty()) {
      suffixMatches(to[j], fromNames, p.backward[j]);
      for (std::size_t i : p.backward[j])
        p.forward[i].push_back(j);
    }
  for (auto &v : p.forward)
    sortUnique(v);
  for (auto &v : p.backward)
    sortUnique(v);
  return p;
}

} // namespace tpuc
