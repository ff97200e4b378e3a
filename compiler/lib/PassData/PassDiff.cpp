//===- PassDiff.cpp - Op diffs by identity and Myers line diffs -----------===//
//===----------------------------------------------------------------------===//
#include "tpuc/PassData/PassDiff.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace tpuc {
namespace {

/// FNV-1a, 64 bit: stable across runs and platforms (std::hash is neither).
struct Fnv {
  std::uint64_t h = 1469598103934665603ull;
  void add(std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ull;
    }
    h ^= 0xff; // separator, so ("ab","c") and ("a","bc") differ
    h *= 1099511628211ull;
  }
};

} // namespace

void hashOpRecords(OpRecords &records) {
  for (OpRecord &r : records) {
    Fnv f;
    f.add(r.kind);
    f.add(r.attributes);
    f.add(r.types);
    f.add(r.location);
    for (const OpOperand &o : r.operands) {
      if (o.op >= 0 && static_cast<std::size_t>(o.op) < records.size())
        f.add(records[o.op].identity());
      else
        f.add("arg");
      f.add(std::to_string(o.result));
    }
    r.contentHash = f.h;
  }
}

OpDiff diffOps(const OpRecords &before, const OpRecords &after) {
  OpDiff diff;
  std::unordered_map<std::string, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < before.size(); ++i)
    groups[before[i].identity()].push_back(i);
  std::vector<bool> paired(before.size(), false);
  std::vector<std::int64_t> partner(after.size(), -1);
  // Equal contents first, so one op inserted among identical ones does not shift every pair.
  for (std::size_t j = 0; j < after.size(); ++j) {
    auto it = groups.find(after[j].identity());
    if (it == groups.end())
      continue;
    for (std::size_t i : it->second)
      if (!paired[i] && before[i].contentHash == after[j].contentHash) {
        paired[i] = true;
        partner[j] = static_cast<std::int64_t>(i);
        break;
      }
  }
  for (std::size_t j = 0; j < after.size(); ++j) {
    if (partner[j] >= 0)
      continue;
    auto it = groups.find(after[j].identity());
    if (it != groups.end())
      for (std::size_t i : it->second)
        if (!paired[i]) {
          paired[i] = true;
          partner[j] = static_cast<std::int64_t>(i);
          break;
        }
  }
  for (std::size_t j = 0; j < after.size(); ++j) {
    if (partner[j] < 0) {
      diff.added.push_back(j);
      continue;
    }
    auto i = static_cast<std::size_t>(partner[j]);
    if (before[i].contentHash == after[j].contentHash)
      diff.unchanged.emplace_back(i, j);
    else
      diff.changed.emplace_back(i, j);
  }
  for (std::size_t i = 0; i < before.size(); ++i)
    if (!paired[i])
      diff.removed.push_back(i);
  std::sort(diff.changed.begin(), diff.changed.end());
  std::sort(diff.unchanged.begin(), diff.unchanged.end());
  return diff;
}

namespace {

/// Myers' linear-space diff: find the middle snake of a[aLo,aHi) x b[bLo,bHi), split there, recurse.
class Myers {
public:
  Myers(const std::vector<std::uint32_t> &a, const std::vector<std::uint32_t> &b) : m_a(a), m_b(b) {}

  std::vector<DiffLine> run() {
    solve(0, static_cast<std::int64_t>(m_a.size()), 0, static_cast<std::int64_t>(m_b.size()));
    // The two halves of a split may meet insert-to-delete; show each changed run as deletions first.
    for (auto it = m_script.begin(); it != m_script.end();) {
      auto end = std::find_if(it, m_script.end(), [](const DiffLine &l) { return l.op == DiffOp::Equal; });
      std::stable_partition(it, end, [](const DiffLine &l) { return l.op == DiffOp::Delete; });
      it = end == m_script.end() ? end : end + 1;
    }
    return std::move(m_script);
  }

private:
  void solve(std::int64_t aLo, std::int64_t aHi, std::int64_t bLo, std::int64_t bHi) {
    // Common prefix and suffix: equal in every shortest script, and they shrink the search.
    std::int64_t prefix = 0;
    while (aLo + prefix < aHi && bLo + prefix < bHi && m_a[aLo + prefix] == m_b[bLo + prefix])
      ++prefix;
    for (std::int64_t k = 0; k < prefix; ++k)
      m_script.push_back({DiffOp::Equal, aLo + k, bLo + k});
    aLo += prefix;
    bLo += prefix;
    std::int64_t suffix = 0;
    while (aHi - suffix > aLo && bHi - suffix > bLo && m_a[aHi - suffix - 1] == m_b[bHi - suffix - 1])
      ++suffix;
    aHi -= suffix;
    bHi -= suffix;
    if (aLo == aHi || bLo == bHi) {
      for (std::int64_t i = aLo; i < aHi; ++i)
        m_script.push_back({DiffOp::Delete, i, -1});
      for (std::int64_t j = bLo; j < bHi; ++j)
        m_script.push_back({DiffOp::Insert, -1, j});
    } else {
      if (auto split = middleSnake(aLo, aHi, bLo, bHi)) {
        solve(aLo, split->first, bLo, split->second);
        solve(split->first, aHi, split->second, bHi);
      } else {
        for (std::int64_t i = aLo; i < aHi; ++i)
          m_script.push_back({DiffOp::Delete, i, -1});
        for (std::int64_t j = bLo; j < bHi; ++j)
          m_script.push_back({DiffOp::Insert, -1, j});
      }
    }
    for (std::int64_t k = 0; k < suffix; ++k)
      m_script.push_back({DiffOp::Equal, aHi + k, bHi + k});
  }

  /// The end (x, y) of the forward half of a shortest edit path through the box, where the forward and
  /// reverse searches meet (Myers' middle snake); nullopt when the box has nothing in common. The box
  /// has no common first or last element (the caller stripped them), so the point splits it strictly.
  std::optional<std::pair<std::int64_t, std::int64_t>> middleSnake(std::int64_t aLo, std::int64_t aHi,
                                                                   std::int64_t bLo, std::int64_t bHi) {
    const std::int64_t n = aHi - aLo, m = bHi - bLo;
    const std::int64_t maxD = (n + m + 1) / 2;
    const std::int64_t offset = maxD, width = 2 * maxD;
    m_forward.assign(width, -1);
    m_backward.assign(width, -1);
    m_forward[offset + 1] = 0;
    m_backward[offset + 1] = 0;
    const std::int64_t delta = n - m;
    // With an odd delta the paths meet while extending the forward one, else the reverse one.
    const bool front = (delta % 2) != 0;
    // Diagonals that left the box are skipped from then on.
    std::int64_t k1start = 0, k1end = 0, k2start = 0, k2end = 0;
    for (std::int64_t d = 0; d < maxD; ++d) {
      for (std::int64_t k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
        const std::int64_t k1o = offset + k1;
        std::int64_t x1 = (k1 == -d || (k1 != d && m_forward[k1o - 1] < m_forward[k1o + 1]))
                              ? m_forward[k1o + 1]
                              : m_forward[k1o - 1] + 1;
        std::int64_t y1 = x1 - k1;
        while (x1 < n && y1 < m && m_a[aLo + x1] == m_b[bLo + y1])
          ++x1, ++y1;
        m_forward[k1o] = x1;
        if (x1 > n) {
          k1end += 2;
        } else if (y1 > m) {
          k1start += 2;
        } else if (front) {
          const std::int64_t k2o = offset + delta - k1;
          if (k2o >= 0 && k2o < width && m_backward[k2o] != -1 && x1 >= n - m_backward[k2o])
            return std::make_pair(aLo + x1, bLo + y1);
        }
      }
      for (std::int64_t k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
        const std::int64_t k2o = offset + k2;
        std::int64_t x2 = (k2 == -d || (k2 != d && m_backward[k2o - 1] < m_backward[k2o + 1]))
                              ? m_backward[k2o + 1]
                              : m_backward[k2o - 1] + 1;
        std::int64_t y2 = x2 - k2;
        while (x2 < n && y2 < m && m_a[aHi - x2 - 1] == m_b[bHi - y2 - 1])
          ++x2, ++y2;
        m_backward[k2o] = x2;
        if (x2 > n) {
          k2end += 2;
        } else if (y2 > m) {
          k2start += 2;
        } else if (!front) {
          const std::int64_t k1o = offset + delta - k2;
          if (k1o >= 0 && k1o < width && m_forward[k1o] != -1) {
            const std::int64_t x1 = m_forward[k1o];
            const std::int64_t y1 = offset + x1 - k1o;
            if (x1 >= n - x2)
              return std::make_pair(aLo + x1, bLo + y1);
          }
        }
      }
    }
    return std::nullopt;
  }

  const std::vector<std::uint32_t> &m_a;
  const std::vector<std::uint32_t> &m_b;
  std::vector<std::int64_t> m_forward, m_backward;
  std::vector<DiffLine> m_script;
};

} // namespace

std::vector<DiffLine> diffSequences(const std::vector<std::uint32_t> &a,
                                    const std::vector<std::uint32_t> &b) {
  // Elements found only on one side can be in no common subsequence: drop them first (as GNU diff does),
  // so a pass that rewrites nearly every line (shape inference changes every type) costs O(N), not
  // Myers' O(N·D). The LCS is unchanged, so the script stays minimal.
  std::uint32_t maxId = 0;
  for (std::uint32_t x : a)
    maxId = std::max(maxId, x);
  for (std::uint32_t x : b)
    maxId = std::max(maxId, x);
  // Dense ids (interned lines) index a table; sparse ones go through a hash map.
  const bool dense = maxId <= 4 * (a.size() + b.size()) + 1024;
  std::vector<std::uint8_t> table(dense ? static_cast<std::size_t>(maxId) + 1 : 0, 0);
  std::unordered_map<std::uint32_t, std::uint8_t> map;
  auto mark = [&](std::uint32_t x, std::uint8_t side) {
    if (dense)
      table[x] |= side;
    else
      map[x] |= side;
  };
  auto both = [&](std::uint32_t x) { return (dense ? table[x] : map[x]) == 3; };
  for (std::uint32_t x : a)
    mark(x, 1);
  for (std::uint32_t x : b)
    mark(x, 2);
  std::vector<std::uint32_t> ra, rb;
  std::vector<std::int64_t> ia, ib;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (both(a[i])) {
      ra.push_back(a[i]);
      ia.push_back(static_cast<std::int64_t>(i));
    }
  for (std::size_t j = 0; j < b.size(); ++j)
    if (both(b[j])) {
      rb.push_back(b[j]);
      ib.push_back(static_cast<std::int64_t>(j));
    }
  if (ra.size() == a.size() && rb.size() == b.size())
    return Myers(a, b).run();
  // Rebuild the full script from the matches of the reduced one: between two matches, the deletions
  // of the gap in `a`, then the insertions of the gap in `b`.
  std::vector<DiffLine> script;
  script.reserve(a.size() + b.size());
  std::int64_t i = 0, j = 0;
  auto gapTo = [&](std::int64_t aEnd, std::int64_t bEnd) {
    for (; i < aEnd; ++i)
      script.push_back({DiffOp::Delete, i, -1});
    for (; j < bEnd; ++j)
      script.push_back({DiffOp::Insert, -1, j});
  };
  for (const DiffLine &step : Myers(ra, rb).run()) {
    if (step.op != DiffOp::Equal)
      continue;
    gapTo(ia[step.aLine], ib[step.bLine]);
    script.push_back({DiffOp::Equal, i++, j++});
  }
  gapTo(static_cast<std::int64_t>(a.size()), static_cast<std::int64_t>(b.size()));
  return script;
}

std::vector<DiffLine> diffLines(const std::vector<std::string_view> &a,
                                const std::vector<std::string_view> &b) {
  std::unordered_map<std::string_view, std::uint32_t> ids;
  auto intern = [&](const std::vector<std::string_view> &lines) {
    std::vector<std::uint32_t> out;
    out.reserve(lines.size());
    for (std::string_view line : lines)
      out.push_back(ids.try_emplace(line, static_cast<std::uint32_t>(ids.size())).first->second);
    return out;
  };
  std::vector<std::uint32_t> ia = intern(a), ib = intern(b);
  return diffSequences(ia, ib);
}

std::string maskSsaNumbers(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  for (std::size_t i = 0; i < line.size();) {
    if (line[i] == '%' && i + 1 < line.size() && digit(line[i + 1])) {
      std::size_t j = i + 1;
      while (j < line.size() && digit(line[j]))
        ++j;
      if (j + 1 < line.size() && line[j] == '#' && digit(line[j + 1]))
        for (++j; j < line.size() && digit(line[j]);)
          ++j;
      out += "%_";
      i = j;
    } else {
      out += line[i++];
    }
  }
  return out;
}

std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos)
      end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::vector<DiffHunk> diffHunks(const std::vector<DiffLine> &script, std::size_t context) {
  std::vector<DiffHunk> hunks;
  const std::size_t n = script.size();
  std::size_t i = 0;
  while (i < n) {
    while (i < n && script[i].op == DiffOp::Equal)
      ++i;
    if (i == n)
      break;
    DiffHunk hunk;
    hunk.begin = i >= context ? i - context : 0;
    // Extend over changes and over equal runs short enough to keep the hunk in one piece.
    std::size_t j = i;
    while (j < n) {
      while (j < n && script[j].op != DiffOp::Equal)
        ++j;
      std::size_t run = j;
      while (run < n && script[run].op == DiffOp::Equal)
        ++run;
      if (run < n && run - j <= 2 * context) {
        j = run;
        continue;
      }
      hunk.end = std::min(n, j + context);
      break;
    }
    if (j >= n)
      hunk.end = n;
    if (!hunks.empty() && hunk.begin <= hunks.back().end)
      hunks.back().end = hunk.end;
    else
      hunks.push_back(hunk);
    i = hunk.end;
  }
  return hunks;
}

} // namespace tpuc
