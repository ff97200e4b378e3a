//===- Chips.cpp - Chip names from the profile folders ---------------------===//

#include "tpuc/Driver/Chips.h"

#include "tpuc/Backend/ChipProfile.h"

namespace tpuc::driver {

std::vector<std::string> listChips(const std::vector<std::string> &extraDirs) {
  return backend::knownChips(extraDirs);
}

} // namespace tpuc::driver
