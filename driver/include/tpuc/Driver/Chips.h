//===- Chips.h - The chips the engine knows: its profile files ------------===//
//
// A chip is a profile file (resources/chips/<name>.json): the CLI's --chip
// choices, its --help and the studio's chip lists all come from the folder,
// so adding a profile adds a chip everywhere. Qt-free, reads names only.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_DRIVER_CHIPS_H
#define TPUC_DRIVER_CHIPS_H

#include <string>
#include <string_view>
#include <vector>

namespace tpuc::driver {

/// The chip a request targets when it names none (calibrate's search_qtable, llm-convert, a new
/// compile configuration). One of listChips().
inline constexpr std::string_view kDefaultChip = "bm1684x";

/// Names of every profile (`<name>.json`) in the directories the engine loads profiles from
/// (backend::chipSearchDirs: `extraDirs`, $TPUC_CHIP_DIR, `<exe>/../share/tpu-studio/chips`), sorted and
/// unique.
std::vector<std::string> listChips(const std::vector<std::string> &extraDirs = {});

} // namespace tpuc::driver

#endif // TPUC_DRIVER_CHIPS_H
