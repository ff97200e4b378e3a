//===- Printable.cpp - Input text echoed into a one-line error ----------------------===//
#include "tpuc/Support/Printable.h"

namespace tpuc {

std::string printable(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 120))
    out += (c >= 32 && c < 127) ? c : '?';
  if (text.size() > 120)
    out += "...";
  return out;
}

} // namespace tpuc
