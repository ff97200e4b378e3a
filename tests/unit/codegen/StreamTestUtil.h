//===- StreamTestUtil.h - Commands for hand-written command streams in tests ===//

#ifndef TPUC_TESTS_CODEGEN_STREAMTESTUTIL_H
#define TPUC_TESTS_CODEGEN_STREAMTESTUTIL_H

#include "tpuc/Codegen/ModelFile.h"

#include <cstdint>

namespace tpuc::codegen::testing {

/// A barrier command (CmdKind::Sync) of `engine` with id `id`, 5 cycles long.
inline Command syncCommand(Engine engine, uint32_t id) {
  Command c;
  c.engine = engine;
  c.kind = CmdKind::Sync;
  c.id = id;
  c.cycles = 5;
  return c;
}

} // namespace tpuc::codegen::testing

#endif // TPUC_TESTS_CODEGEN_STREAMTESTUTIL_H
