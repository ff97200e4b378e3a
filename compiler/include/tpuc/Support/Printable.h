//===- Printable.h - Input text echoed into a one-line error -------------*- C++ -*-===//
#ifndef TPUC_SUPPORT_PRINTABLE_H
#define TPUC_SUPPORT_PRINTABLE_H

#include <string>
#include <string_view>

namespace tpuc {

/// `text` as it may appear inside a one-line error: bytes outside printable ASCII become '?', and text
/// past 120 characters is cut with "...". Use it on every value an error message quotes from a file.
std::string printable(std::string_view text);

} // namespace tpuc

#endif
