//===- FileWrite.cpp - Whole-file writes that never leave half a file ---------------===//
#include "tpuc/Support/FileWrite.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace tpuc {

namespace {

Failure failure(const std::string &path, int error) {
  return Failure{path + ": cannot write (" + std::strerror(error) + ")"};
}

} // namespace

Result<void> writeFileAtomically(const std::string &path, std::string_view bytes) {
  // Beside the target, so the rename stays within one file system; the pid keeps concurrent writers apart.
  const std::string temp = path + ".tmp-" + std::to_string(::getpid());
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return failure(path, errno);
  const char *data = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      int error = n < 0 ? errno : ENOSPC;
      ::close(fd);
      ::unlink(temp.c_str());
      return failure(path, error);
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  // close() reports delayed write errors (NFS, quota): a file is complete only when it closed cleanly.
  if (::close(fd) != 0) {
    int error = errno;
    ::unlink(temp.c_str());
    return failure(path, error);
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    int error = errno;
    ::unlink(temp.c_str());
    return failure(path, error);
  }
  return {};
}

} // namespace tpuc
