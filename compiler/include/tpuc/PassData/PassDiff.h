//===- PassDiff.h - What a pass changed: op diffs and line diffs -*- C++ -*-===//
// Plain data, no MLIR and no Qt: the pass recorder fills it from live IR, the studio reads it from a
// run's snapshot files.
//===----------------------------------------------------------------------===//
#ifndef TPUC_TRANSFORMS_PASSDIFF_H
#define TPUC_TRANSFORMS_PASSDIFF_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpuc {

/// Where an operand comes from: result `result` of the op at index `op` of the same snapshot, or, when
/// `op` is -1, argument `result` of the enclosing block.
struct OpOperand {
  std::int64_t op = -1;
  std::int64_t result = 0;
  bool operator==(const OpOperand &) const = default;
};

/// One op of a snapshot, as the diff compares it. Identity is (name, kind): the first name of the op's
/// location (a fused op keeps its first part's name) and the op's kind. Content is everything else that
/// makes two ops with one identity equal: attributes, result types, operand sources and the location.
struct OpRecord {
  std::string kind;                  ///< "top.conv"
  std::string name;                  ///< first NameLoc name, or "@sym" of a symbol op; "" when none
  std::vector<std::string> locNames; ///< every NameLoc name of the location (all parts of a FusedLoc)
  std::string location;              ///< the location as printed
  std::string attributes;            ///< the attribute dictionary as printed (shortened when long)
  std::string types;                 ///< result types as printed, comma separated
  std::vector<OpOperand> operands;
  std::int64_t parent = -1;      ///< index of the op whose region holds it (-1: the top level)
  std::uint64_t contentHash = 0; ///< hash of attributes, types, operand identities and location
  bool operator==(const OpRecord &) const = default;

  /// "name|kind": what the diff pairs ops by.
  std::string identity() const { return name + "|" + kind; }
};

/// The ops of one snapshot, in pre-order (a parent before the ops of its regions).
using OpRecords = std::vector<OpRecord>;

/// Content hashes that compare operands by their producers' identities (not indices), so inserting an
/// unrelated op does not change every later op. Fills `contentHash` of each record.
void hashOpRecords(OpRecords &records);

/// The op-level difference of two snapshots. Indices refer to `before` (removed, the first of a pair)
/// and `after` (added, the second). Ops pair by identity; within one identity, equal contents pair
/// first, then the remaining ones in order, which are then "changed".
struct OpDiff {
  std::vector<std::size_t> added;
  std::vector<std::size_t> removed;
  std::vector<std::pair<std::size_t, std::size_t>> changed;
  std::vector<std::pair<std::size_t, std::size_t>> unchanged;

  bool empty() const { return added.empty() && removed.empty() && changed.empty(); }
};

/// Diffs two snapshots' ops (their `contentHash` must be filled).
OpDiff diffOps(const OpRecords &before, const OpRecords &after);

/// One step of a line edit script.
enum class DiffOp : std::uint8_t { Equal, Delete, Insert };

/// A step with the line it refers to in `a` (Equal, Delete) and `b` (Equal, Insert); -1 when absent.
struct DiffLine {
  DiffOp op;
  std::int64_t aLine;
  std::int64_t bLine;
  bool operator==(const DiffLine &) const = default;
};

/// A shortest edit script turning `a` into `b` (Myers' O(ND) algorithm, linear space, on hashed lines),
/// in order: deletions of a run come before its insertions. Equal steps count = LCS length.
std::vector<DiffLine> diffLines(const std::vector<std::string_view> &a,
                                const std::vector<std::string_view> &b);

/// The same on integer sequences (what the line diff runs on after interning the lines).
std::vector<DiffLine> diffSequences(const std::vector<std::uint32_t> &a, const std::vector<std::uint32_t> &b);

/// The line with SSA value numbers masked (`%12`, `%12#1` → `%_`; named values such as `%arg0` stay):
/// passes renumber values, so a line diff that matches masked lines shows only real edits. (A changed
/// operand between two numbered values is then not a text change; the op diff still counts it.)
std::string maskSsaNumbers(std::string_view line);

/// Splits text into lines (without their '\n'; a final line without '\n' counts).
std::vector<std::string_view> splitLines(std::string_view text);

/// A block of the edit script shown with `context` unchanged lines around changes; equal runs longer
/// than 2*context between changes are left out (collapsed).
struct DiffHunk {
  std::size_t begin = 0; ///< first step of the script in the hunk
  std::size_t end = 0;   ///< one past the last
};
std::vector<DiffHunk> diffHunks(const std::vector<DiffLine> &script, std::size_t context);

} // namespace tpuc

#endif // TPUC_TRANSFORMS_PASSDIFF_H
