//===- Npz.h - NumPy .npy/.npz reader and writer --------------------------===//
//
// Qt-free, MLIR-free. Reads what np.save/np.savez/np.savez_compressed write
// (npy format 1.0, 2.0 and 3.0; byte orders '<', '>', '|' and '='; C or
// Fortran order, the latter transposed to C order on load) and writes files
// np.load reads (format 1.0, or 2.0 when the header needs it; stored or
// deflated zip members, zip64 when large). Every parse is bounds-checked: a
// corrupt or truncated file throws NpyError whose message names the file and
// the array, e.g.
//   "weights.npz: array 'conv1_w': header says 4096 bytes, file holds 12".
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_SUPPORT_NPZ_H
#define TPUC_SUPPORT_NPZ_H

#include "tpuc/Support/Result.h"
#include "tpuc/Support/Tensor.h"

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tpuc {

/// A .npy/.npz file could not be read or written. what() is one line.
class NpyError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Serialises a tensor as a complete .npy image (header + data). BF16 is
/// written as '<u2' (NumPy has no bfloat16).
std::vector<uint8_t> serializeNpy(const Tensor &tensor);
/// The .npy header alone (magic, version, length, dict, padding) for a
/// tensor; the data bytes follow it directly.
std::string npyHeader(const Tensor &tensor);

/// Parses a complete .npy image held in memory. `context` names the source
/// in messages ("weights.npz: array 'conv1_w'" or "x.npy").
Tensor parseNpy(const uint8_t *data, size_t size, const std::string &context);

/// Reads a single .npy file.
Tensor readNpy(const std::string &path);
/// Writes a single .npy file.
void writeNpy(const std::string &path, const Tensor &tensor);

/// An ordered set of named tensors, the contents of one .npz file. Names keep
/// their insertion order (= graph order for TPU-MLIR style dumps); member
/// names on disk are `<name>.npy`.
class NpzFile {
public:
  /// Reads an .npz file written by numpy (savez or savez_compressed) or by
  /// write(). Throws NpyError.
  static NpzFile read(const std::string &path);
  /// Parses an .npz image held in memory; `displayName` is used in messages.
  static NpzFile parse(const void *data, size_t size,
                       const std::string &displayName);
  /// Non-throwing read: the file, or a Failure holding NpyError's one line.
  static Result<NpzFile> tryRead(const std::string &path);

  /// Writes the file (members deflated when `compressed`). The file is
  /// written to a temporary and renamed, so readers never see half a file.
  /// Throws NpyError.
  void write(const std::string &path, bool compressed = false) const;

  bool has(std::string_view name) const;
  /// The tensor called `name`; throws NpyError if there is none.
  const Tensor &get(std::string_view name) const;
  Tensor &get(std::string_view name);
  /// Inserts or replaces; a new name goes to the end of the order.
  void set(const std::string &name, Tensor tensor);
  /// Removes `name`; returns false if it was not present.
  bool remove(std::string_view name);
  /// Names in order.
  const std::vector<std::string> &names() const { return names_; }
  size_t size() const { return names_.size(); }
  bool empty() const { return names_.empty(); }

private:
  std::vector<std::string> names_;
  std::map<std::string, Tensor, std::less<>> tensors_;
};

} // namespace tpuc

#endif // TPUC_SUPPORT_NPZ_H
