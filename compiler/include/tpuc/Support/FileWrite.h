//===- FileWrite.h - Whole-file writes that never leave half a file -------*- C++ -*-===//
// The engine's text outputs (result records, manifests, plans, reports, tables) are read by the studio
// and by later commands: a reader must see the previous file or the complete new one, never the first
// 24 kB of a plan that a full disk cut off.
//===----------------------------------------------------------------------===//
#ifndef TPUC_SUPPORT_FILEWRITE_H
#define TPUC_SUPPORT_FILEWRITE_H

#include "tpuc/Support/Result.h"

#include <string>
#include <string_view>

namespace tpuc {

/// Writes `bytes` to `path` as a whole: into a temporary file beside it, then renamed over `path`.
/// On failure (a full disk, no permission, a missing folder) the temporary file is removed, `path` keeps
/// its previous content (or stays absent), and the Failure says why in one line:
/// "PATH: cannot write (No space left on device)".
Result<void> writeFileAtomically(const std::string &path, std::string_view bytes);

} // namespace tpuc

#endif
