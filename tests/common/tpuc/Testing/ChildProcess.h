//===- ChildProcess.h - Run a command as a child and measure it (benches) ===//
//
// The benches that time the real `tpuc` commands run them as child processes: wall time, CPU time and the
// child's peak RSS (getrusage of the waited-for child), with its stdout and stderr in a log file.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_TESTING_CHILDPROCESS_H
#define TPUC_TESTING_CHILDPROCESS_H

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace tpuc::testsupport {

struct ChildResult {
  int status = -1; ///< exit code, or -1 when the child did not exit normally
  double seconds = 0;
  double cpuSeconds =
      0; ///< user + system time of the child, less sensitive than wall time to a loaded machine
  long peakRssKb = 0;
};

/// Runs `argv` with stdout and stderr sent to `logPath`; waits for it and measures it.
inline ChildResult runChild(const std::vector<std::string> &argv, const std::string &logPath) {
  ChildResult result;
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    FILE *log = std::fopen(logPath.c_str(), "w");
    if (log) {
      dup2(fileno(log), STDOUT_FILENO);
      dup2(fileno(log), STDERR_FILENO);
    }
    std::vector<char *> args;
    for (const std::string &a : argv)
      args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    std::perror(args[0]);
    _exit(127);
  }
  if (pid < 0)
    return result;
  int status = 0;
  struct rusage usage {};
  if (wait4(pid, &status, 0, &usage) < 0)
    return result;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.peakRssKb = usage.ru_maxrss;
  result.cpuSeconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                      1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  if (WIFEXITED(status))
    result.status = WEXITSTATUS(status);
  return result;
}

/// The last five lines of a log, indented: what a bench prints when a child failed.
inline std::string logTail(const std::string &path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  std::string text;
  for (size_t i = lines.size() > 5 ? lines.size() - 5 : 0; i < lines.size(); ++i)
    text += "    " + lines[i] + "\n";
  return text;
}

} // namespace tpuc::testsupport

#endif // TPUC_TESTING_CHILDPROCESS_H
