//===- Npz.cpp - The .npz container (a zip of .npy members) over libzip ---===//
//
// Members are parsed straight from the zip stream into the tensor storage
// (no whole-member copy) and written through a libzip source callback that
// streams the npy header and the tensor bytes (no serialised copy), so
// multi-gigabyte weight files cost one copy of the data in memory.
//
//===----------------------------------------------------------------------===//

#include "NpyStream.h"

#include <zip.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <utility>

namespace tpuc {
namespace {

/// Whether an archive member's name has a ".." path component ("../x", "a/../../x"): unzip tools would write
/// it outside the target folder. Names may begin with '/' (TPU-MLIR tensors are named
/// "/conv1/Conv_output_0").
bool climbsOut(std::string_view name) {
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find_first_of("/\\", start);
    if (end == std::string_view::npos)
      end = name.size();
    if (name.substr(start, end - start) == "..")
      return true;
    start = end + 1;
  }
  return false;
}

/// Deflate cannot expand data by more than ~1032:1; an entry claiming more
/// is corrupt, and checking it first bounds what a hostile file can make us
/// allocate.
constexpr uint64_t kMaxDeflateRatio = 1040;
/// Fixed member time stamp (2020-01-01) so equal contents give equal files.
constexpr time_t kFixedMtime = 1577836800;

std::string libzipMessage(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string message = zip_error_strerror(&error);
  zip_error_fini(&error);
  return message;
}

std::string openErrorMessage(int code) {
  switch (code) {
  case ZIP_ER_NOZIP:
    return "not an npz file, or truncated (no zip directory found)";
  case ZIP_ER_INCONS:
    return "corrupt npz file (zip directory is inconsistent)";
  case ZIP_ER_MULTIDISK:
    return "multi-disk zip archives are not supported";
  default:
    return "cannot open: " + libzipMessage(code);
  }
}

struct ArchiveCloser {
  void operator()(zip_t *archive) const { zip_discard(archive); }
};
using ArchivePtr = std::unique_ptr<zip_t, ArchiveCloser>;

struct MemberCloser {
  void operator()(zip_file_t *file) const { zip_fclose(file); }
};
using MemberPtr = std::unique_ptr<zip_file_t, MemberCloser>;

class ZipMemberReader : public detail::ByteReader {
public:
  ZipMemberReader(zip_file_t *file, const std::string &context)
      : file_(file), context_(context) {}
  size_t read(void *dst, size_t size) override {
    size_t total = 0;
    auto *out = static_cast<uint8_t *>(dst);
    while (total < size) {
      zip_int64_t n = zip_fread(file_, out + total, size - total);
      if (n < 0)
        throw NpyError(context_ + ": " + zip_file_strerror(file_));
      if (n == 0)
        break;
      total += static_cast<size_t>(n);
    }
    return total;
  }

private:
  zip_file_t *file_;
  const std::string &context_;
};

NpzFile readArchive(zip_t *archive, const std::string &display,
                    uint64_t archiveSize) {
  NpzFile result;
  zip_int64_t count = zip_get_num_entries(archive, 0);
  for (zip_int64_t index = 0; index < count; ++index) {
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_stat_index(archive, index, 0, &stat) != 0)
      throw NpyError(display + ": member " + std::to_string(index) + ": " +
                     zip_strerror(archive));
    std::string member = (stat.valid & ZIP_STAT_NAME) && stat.name
                             ? stat.name
                             : std::string();
    if (!member.empty() && member.back() == '/')
      continue; // directory entry
    if (member.size() <= 4 || member.compare(member.size() - 4, 4, ".npy"))
      throw NpyError(display + ": member '" + member +
                     "' is not an .npy array");
    std::string name = member.substr(0, member.size() - 4);
    std::string context = display + ": array '" + name + "'";
    if (climbsOut(member))
      throw NpyError(context +
                     ": member name has a '..' component (an archive that unzips outside its folder)");
    if (result.has(name))
      throw NpyError(context + ": appears twice in the archive");
    if ((stat.valid & ZIP_STAT_ENCRYPTION_METHOD) &&
        stat.encryption_method != ZIP_EM_NONE)
      throw NpyError(context + ": encrypted members are not supported");
    if (!(stat.valid & ZIP_STAT_SIZE) || !(stat.valid & ZIP_STAT_COMP_SIZE))
      throw NpyError(context + ": zip entry has no size");
    if (stat.comp_size > archiveSize)
      throw NpyError(context + ": zip entry says " +
                     std::to_string(stat.comp_size) +
                     " compressed bytes, file holds " +
                     std::to_string(archiveSize));
    if (stat.comp_method == ZIP_CM_STORE) {
      if (stat.size != stat.comp_size)
        throw NpyError(context + ": stored zip entry says " +
                       std::to_string(stat.size) + " bytes but holds " +
                       std::to_string(stat.comp_size));
    } else if (stat.comp_method == ZIP_CM_DEFLATE) {
      if (stat.size > stat.comp_size * kMaxDeflateRatio + 1024)
        throw NpyError(context + ": zip entry claims " +
                       std::to_string(stat.size) + " bytes from " +
                       std::to_string(stat.comp_size) +
                       " compressed bytes (corrupt archive)");
    } else {
      throw NpyError(context + ": zip compression method " +
                     std::to_string(stat.comp_method) +
                     " is not supported (only stored and deflate)");
    }
    MemberPtr file(zip_fopen_index(archive, index, 0));
    if (!file)
      throw NpyError(context + ": " + zip_strerror(archive));
    ZipMemberReader reader(file.get(), context);
    Tensor tensor = detail::parseNpyStream(reader, stat.size, context);
    // Reading past the end makes libzip check the CRC of the member.
    uint8_t extra;
    if (reader.read(&extra, 1) != 0)
      throw NpyError(context + ": zip entry is longer than it says");
    result.set(name, std::move(tensor));
  }
  return result;
}

/// Streams one member (npy header, then the tensor bytes) to libzip.
struct MemberSource {
  std::string header;
  const Tensor *tensor;
  uint64_t position = 0;
  zip_error_t error;

  uint64_t size() const { return header.size() + tensor->byteSize(); }

  zip_int64_t read(uint8_t *out, uint64_t length) {
    uint64_t done = 0;
    while (done < length && position < size()) {
      const uint8_t *from;
      uint64_t available;
      if (position < header.size()) {
        from = reinterpret_cast<const uint8_t *>(header.data()) + position;
        available = header.size() - position;
      } else {
        from = tensor->data() + (position - header.size());
        available = size() - position;
      }
      uint64_t n = std::min(available, length - done);
      std::memcpy(out + done, from, n);
      done += n;
      position += n;
    }
    return static_cast<zip_int64_t>(done);
  }

  static zip_int64_t callback(void *userdata, void *data, zip_uint64_t length,
                              zip_source_cmd_t command) {
    auto *self = static_cast<MemberSource *>(userdata);
    switch (command) {
    case ZIP_SOURCE_OPEN:
      self->position = 0;
      return 0;
    case ZIP_SOURCE_READ:
      return self->read(static_cast<uint8_t *>(data), length);
    case ZIP_SOURCE_CLOSE:
      return 0;
    case ZIP_SOURCE_STAT: {
      auto *stat = ZIP_SOURCE_GET_ARGS(zip_stat_t, data, length, &self->error);
      if (!stat)
        return -1;
      zip_stat_init(stat);
      stat->size = self->size();
      stat->mtime = kFixedMtime;
      stat->valid |= ZIP_STAT_SIZE | ZIP_STAT_MTIME;
      return sizeof(zip_stat_t);
    }
    case ZIP_SOURCE_ERROR:
      return zip_error_to_data(&self->error, data, length);
    case ZIP_SOURCE_FREE:
      zip_error_fini(&self->error);
      delete self;
      return 0;
    case ZIP_SOURCE_SUPPORTS:
      return zip_source_make_command_bitmap(
          ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT,
          ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE, -1);
    default:
      zip_error_set(&self->error, ZIP_ER_OPNOTSUPP, 0);
      return -1;
    }
  }
};

/// The 22-byte end-of-central-directory record of a zip with no members
/// (what np.savez writes for no arrays; libzip refuses to write one).
void writeEmptyZip(const std::string &path) {
  static const char kEmpty[22] = {'P', 'K', 5, 6};
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(kEmpty, sizeof(kEmpty));
  if (!out.flush())
    throw NpyError(path + ": cannot write");
}

} // namespace

NpzFile NpzFile::read(const std::string &path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw NpyError(path + ": no such file");
  if (std::filesystem::is_directory(path, ec))
    throw NpyError(path + ": is a directory");
  uint64_t size = std::filesystem::file_size(path, ec);
  if (ec)
    throw NpyError(path + ": cannot read size: " + ec.message());
  if (size == 0) // libzip would take it for an empty archive
    throw NpyError(path + ": file is empty");
  int code = 0;
  ArchivePtr archive(zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code));
  if (!archive)
    throw NpyError(path + ": " + openErrorMessage(code));
  return readArchive(archive.get(), path, size);
}

NpzFile NpzFile::parse(const void *data, size_t size,
                       const std::string &displayName) {
  if (size == 0)
    throw NpyError(displayName + ": file is empty");
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t *source = zip_source_buffer_create(data, size, 0, &error);
  if (!source) {
    std::string message = zip_error_strerror(&error);
    zip_error_fini(&error);
    throw NpyError(displayName + ": " + message);
  }
  ArchivePtr archive(
      zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error));
  if (!archive) {
    int code = zip_error_code_zip(&error);
    zip_error_fini(&error);
    zip_source_free(source);
    throw NpyError(displayName + ": " + openErrorMessage(code));
  }
  zip_error_fini(&error);
  return readArchive(archive.get(), displayName, size);
}

Result<NpzFile> NpzFile::tryRead(const std::string &path) {
  try {
    return read(path);
  } catch (const std::exception &e) {
    return Failure{e.what()};
  }
}

void NpzFile::write(const std::string &path, bool compressed) const {
  if (names_.empty())
    return writeEmptyZip(path);
  int code = 0;
  ArchivePtr archive(zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code));
  if (!archive)
    throw NpyError(path + ": cannot write: " + libzipMessage(code));
  for (const std::string &name : names_) {
    if (climbsOut(name))
      throw NpyError(path + ": array '" + name +
                     "': a name with a '..' component would unzip outside its folder");
    const Tensor &tensor = tensors_.find(name)->second;
    auto *state = new MemberSource{npyHeader(tensor), &tensor, 0, {}};
    zip_error_init(&state->error);
    zip_source_t *source =
        zip_source_function(archive.get(), MemberSource::callback, state);
    if (!source) {
      zip_error_fini(&state->error);
      delete state;
      throw NpyError(path + ": array '" + name +
                     "': " + zip_strerror(archive.get()));
    }
    zip_int64_t index = zip_file_add(archive.get(), (name + ".npy").c_str(),
                                     source, ZIP_FL_ENC_UTF_8);
    if (index < 0) {
      zip_source_free(source);
      throw NpyError(path + ": array '" + name +
                     "': " + zip_strerror(archive.get()));
    }
    if (zip_set_file_compression(archive.get(), index,
                                 compressed ? ZIP_CM_DEFLATE : ZIP_CM_STORE,
                                 0) != 0 ||
        zip_file_set_mtime(archive.get(), index, kFixedMtime, 0) != 0)
      throw NpyError(path + ": array '" + name +
                     "': " + zip_strerror(archive.get()));
  }
  if (zip_close(archive.get()) != 0)
    throw NpyError(path + ": cannot write: " + zip_strerror(archive.get()));
  archive.release(); // zip_close freed it
}

bool NpzFile::has(std::string_view name) const {
  return tensors_.find(name) != tensors_.end();
}

const Tensor &NpzFile::get(std::string_view name) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end())
    throw NpyError("no array named '" + std::string(name) + "'");
  return it->second;
}

Tensor &NpzFile::get(std::string_view name) {
  return const_cast<Tensor &>(std::as_const(*this).get(name));
}

void NpzFile::set(const std::string &name, Tensor tensor) {
  auto [it, inserted] = tensors_.insert_or_assign(name, std::move(tensor));
  if (inserted)
    names_.push_back(name);
}

bool NpzFile::remove(std::string_view name) {
  auto it = tensors_.find(name);
  if (it == tensors_.end())
    return false;
  tensors_.erase(it);
  names_.erase(std::find(names_.begin(), names_.end(), name));
  return true;
}

} // namespace tpuc
