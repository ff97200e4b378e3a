//===- CommandSupport.cpp - Helpers shared by the tpuc subcommands --------===//

#include "Commands.h"

#include "tpuc/Simulator/Compare.h"
#include "tpuc/Support/FileWrite.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace tpuc::cli {

int notImplemented(std::string_view subcommand) {
  std::cerr << "tpuc " << subcommand << ": not implemented yet in this build"
            << std::endl;
  return kExitNotImplemented;
}

driver::Sink consoleSink(ProgressReporter *progress) {
  driver::Sink sink;
  if (progress)
    sink.progress = [progress](const driver::ProgressEvent &e) {
      progress->report(e.stage, e.fraction, e.message, e.artifacts);
    };
  sink.print = [](std::string_view text, bool flush) {
    std::cout << text;
    if (flush)
      std::cout.flush();
  };
  return sink;
}

int writeResultRecord(std::string_view command, const std::string &path, const std::string &json,
                      int exitCode) {
  Result<void> written = writeFileAtomically(path, json);
  if (written)
    return exitCode;
  std::cerr << "tpuc " << command << ": " << written.error() << std::endl;
  return exitCode == kExitOk ? kExitUsage : exitCode;
}

ProgressReporter makeProgressReporter(const std::string &format) {
  auto parsed = ProgressReporter::parseFormat(format);
  return ProgressReporter(parsed.value_or(ProgressReporter::Format::None),
                          std::cout, std::cerr);
}

std::filesystem::path siblingProgram(std::string_view name) {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (ec ? std::filesystem::path(".") : self.parent_path()) / std::string(name);
}

std::string selfProgram() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("tpuc") : self.string();
}

std::string lastOutputLine(const std::string &output) {
  std::istringstream in(output);
  std::string line, last;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos)
      last = line;
  return last;
}

ChildRun runChild(const std::string &program, const std::vector<std::string> &args) {
  ChildRun run;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    run.error = std::string("cannot make a pipe: ") + std::strerror(errno);
    return run;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<std::string> copy(args);
  std::vector<char *> argv{const_cast<char *>(program.c_str())};
  for (std::string &a : copy)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const auto start = std::chrono::steady_clock::now();
  const int spawned = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (spawned != 0) {
    ::close(fds[0]);
    run.error = "cannot run " + program + ": " + std::strerror(spawned);
    return run;
  }
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buffer, sizeof(buffer));
    if (n > 0)
      run.output.append(buffer, static_cast<size_t>(n));
    else if (n == 0 || errno != EINTR)
      break;
  }
  ::close(fds[0]);
  int status = 0;
  struct rusage usage {};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.peakRssKb = usage.ru_maxrss;
  if (WIFEXITED(status))
    run.exitCode = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    run.error = program + " was killed by signal " + std::to_string(WTERMSIG(status));
  return run;
}

} // namespace tpuc::cli
