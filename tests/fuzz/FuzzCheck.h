//===- FuzzCheck.h - what every rejecting parser owes its caller -*- C++ -*-===//
//
// Issue 25: a rejected input is one line that names the file it came from (and the field, which the
// fuzzers cannot check in general). The targets call rejectionIsOneLine on every error they get; a
// multi-line or anonymous message stops the fuzzer like a crash would.
//
//===----------------------------------------------------------------------===//
#ifndef TPUC_TESTS_FUZZ_FUZZCHECK_H
#define TPUC_TESTS_FUZZ_FUZZCHECK_H

#include <cstdio>
#include <string_view>

namespace tpuc::fuzz {

inline void rejectionIsOneLine(std::string_view message, std::string_view fileName) {
  if (message.empty() || message.find('\n') != std::string_view::npos ||
      message.find(fileName) == std::string_view::npos) {
    std::fprintf(stderr, "rejection is not one line naming '%.*s': '%.*s'\n",
                 static_cast<int>(fileName.size()), fileName.data(), static_cast<int>(message.size()),
                 message.data());
    __builtin_trap();
  }
}

} // namespace tpuc::fuzz

#endif
