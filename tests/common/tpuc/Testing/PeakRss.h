//===- PeakRss.h - The process's peak resident set, for the benches -----===//

#ifndef TPUC_TESTING_PEAKRSS_H
#define TPUC_TESTING_PEAKRSS_H

#include <fstream>
#include <string>

namespace tpuc::testsupport {

/// VmHWM of /proc/self/status in KiB (the most memory this process had resident), -1 when unknown.
inline long peakRssKb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0)
      return std::stol(line.substr(6));
  return -1;
}

} // namespace tpuc::testsupport

#endif // TPUC_TESTING_PEAKRSS_H
