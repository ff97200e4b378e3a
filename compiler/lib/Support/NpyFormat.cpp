//===- NpyFormat.cpp - The .npy format: header, parse, serialise ----------===//
//
// Format reference: numpy/lib/format.py. A file is the magic "\x93NUMPY",
// a major/minor version, a little-endian header length (2 bytes in 1.0,
// 4 bytes in 2.0/3.0), a Python dict literal padded with spaces to a
// multiple of 64 bytes and ended by '\n', then the raw array data.
//
//===----------------------------------------------------------------------===//

#include "NpyStream.h"
#include "tpuc/Support/Printable.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <unistd.h>

static_assert(std::endian::native == std::endian::little,
              "the npy reader assumes a little-endian host");

namespace tpuc {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
constexpr size_t kAlign = 64;

struct HeaderInfo {
  DType type = DType::F32;
  bool bigEndian = false;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
};

/// Parses the header dict, a restricted Python literal:
///   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
public:
  HeaderParser(std::string_view text, const std::string &context)
      : text_(text), context_(context) {}

  HeaderInfo parse() {
    HeaderInfo info;
    bool sawDescr = false, sawOrder = false, sawShape = false;
    expect('{');
    while (true) {
      skipSpace();
      if (consume('}'))
        break;
      std::string key = parseString();
      expect(':');
      skipSpace();
      if (key == "descr") {
        if (peek() == '[')
          fail("structured dtypes are not supported");
        parseDescr(parseString(), info);
        sawDescr = true;
      } else if (key == "fortran_order") {
        info.fortranOrder = parseBool();
        sawOrder = true;
      } else if (key == "shape") {
        info.shape = parseShape();
        sawShape = true;
      } else {
        fail("unexpected key '" + printable(key) + "'");
      }
      skipSpace();
      if (consume('}'))
        break;
      expect(',');
    }
    skipSpace();
    if (pos_ != text_.size())
      fail("trailing characters after the dict");
    if (!sawDescr || !sawOrder || !sawShape)
      fail(std::string("missing key '") +
           (!sawDescr ? "descr" : !sawOrder ? "fortran_order" : "shape") +
           "'");
    return info;
  }

private:
  [[noreturn]] void fail(const std::string &what) const {
    throw NpyError(context_ + ": bad npy header: " + what + " in \"" +
                   printable(text_) + "\"");
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
            text_[pos_] == '\r'))
      ++pos_;
  }
  bool consume(char c) {
    skipSpace();
    if (peek() != c)
      return false;
    ++pos_;
    return true;
  }
  void expect(char c) {
    if (!consume(c))
      fail(std::string("expected '") + c + "' at offset " +
           std::to_string(pos_));
  }
  std::string parseString() {
    skipSpace();
    char quote = peek();
    if (quote != '\'' && quote != '"')
      fail("expected a quoted string at offset " + std::to_string(pos_));
    size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos)
      fail("unterminated string");
    std::string value(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return value;
  }
  bool parseBool() {
    skipSpace();
    for (auto [word, value] : {std::pair{"True", true}, {"False", false}}) {
      size_t len = std::strlen(word);
      if (text_.substr(pos_, len) == word) {
        pos_ += len;
        return value;
      }
    }
    fail("fortran_order must be True or False");
  }
  std::vector<int64_t> parseShape() {
    std::vector<int64_t> shape;
    expect('(');
    while (true) {
      if (consume(')'))
        break;
      skipSpace();
      if (!std::isdigit(static_cast<unsigned char>(peek())))
        fail("shape entries must be non-negative integers");
      int64_t value = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        int digit = peek() - '0';
        if (value > (std::numeric_limits<int64_t>::max() - digit) / 10)
          fail("shape entry too large");
        value = value * 10 + digit;
        ++pos_;
      }
      if (peek() == 'L') // Python 2 long literal
        ++pos_;
      shape.push_back(value);
      if (shape.size() > 64)
        fail("more than 64 dimensions");
      if (consume(')'))
        break;
      expect(',');
    }
    return shape;
  }
  void parseDescr(const std::string &descr, HeaderInfo &info) {
    std::string_view rest = descr;
    char order = '|';
    if (!rest.empty() && std::strchr("<>|=", rest.front())) {
      order = rest.front();
      rest.remove_prefix(1);
    }
    info.bigEndian = order == '>';
    static const std::pair<const char *, DType> kCodes[] = {
        {"f2", DType::F16}, {"f4", DType::F32}, {"f8", DType::F64},
        {"i1", DType::I8},  {"u1", DType::U8},  {"i2", DType::I16},
        {"u2", DType::U16}, {"i4", DType::I32}, {"u4", DType::U32},
        {"i8", DType::I64}, {"u8", DType::U64}, {"b1", DType::Bool}};
    for (const auto &[code, type] : kCodes) {
      if (rest == code) {
        info.type = type;
        return;
      }
    }
    throw NpyError(context_ + ": unsupported dtype '" + printable(descr) +
                   "' (supported: f2 f4 f8 i1 u1 i2 u2 i4 u4 i8 u8 b1)");
  }

  std::string_view text_;
  const std::string &context_;
  size_t pos_ = 0;
};

std::string_view descrFor(DType type) {
  switch (type) {
  case DType::F32:
    return "<f4";
  case DType::F64:
    return "<f8";
  case DType::F16:
    return "<f2";
  case DType::BF16:
  case DType::U16:
    return "<u2";
  case DType::I8:
    return "|i1";
  case DType::U8:
    return "|u1";
  case DType::I16:
    return "<i2";
  case DType::I32:
    return "<i4";
  case DType::U32:
    return "<u4";
  case DType::I64:
    return "<i8";
  case DType::U64:
    return "<u8";
  case DType::Bool:
    return "|b1";
  }
  return "|u1";
}

/// Fortran (column-major) bytes -> C (row-major) bytes.
std::vector<uint8_t> fortranToC(const std::vector<uint8_t> &in,
                                const std::vector<int64_t> &shape,
                                size_t elemSize) {
  std::vector<uint8_t> out(in.size());
  size_t rank = shape.size();
  int64_t count = shapeNumElements(shape);
  if (count == 0)
    return out;
  std::vector<int64_t> stride(rank, 1);
  for (size_t k = 1; k < rank; ++k)
    stride[k] = stride[k - 1] * shape[k - 1];
  std::vector<int64_t> index(rank, 0);
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t src = 0;
    for (size_t k = 0; k < rank; ++k)
      src += index[k] * stride[k];
    std::memcpy(out.data() + flat * elemSize, in.data() + src * elemSize,
                elemSize);
    for (size_t k = rank; k-- > 0;) {
      if (++index[k] < shape[k])
        break;
      index[k] = 0;
    }
  }
  return out;
}

void byteSwap(std::vector<uint8_t> &bytes, size_t elemSize) {
  if (elemSize == 1)
    return;
  for (size_t i = 0; i + elemSize <= bytes.size(); i += elemSize)
    std::reverse(bytes.begin() + i, bytes.begin() + i + elemSize);
}

uint32_t readLE(const uint8_t *p, size_t n) {
  uint32_t value = 0;
  for (size_t i = 0; i < n; ++i)
    value |= static_cast<uint32_t>(p[i]) << (8 * i);
  return value;
}

class MemoryReader : public detail::ByteReader {
public:
  MemoryReader(const uint8_t *data, size_t size) : data_(data), size_(size) {}
  size_t read(void *dst, size_t size) override {
    size_t n = std::min(size, size_ - pos_);
    if (n)
      std::memcpy(dst, data_ + pos_, n);
    pos_ += n;
    return n;
  }

private:
  const uint8_t *data_;
  size_t size_;
  size_t pos_ = 0;
};

class FileReader : public detail::ByteReader {
public:
  FileReader(FILE *file, const std::string &path) : file_(file), path_(path) {}
  size_t read(void *dst, size_t size) override {
    size_t n = std::fread(dst, 1, size, file_);
    if (n < size && std::ferror(file_))
      throw NpyError(path_ + ": read error: " + std::strerror(errno));
    return n;
  }

private:
  FILE *file_;
  const std::string &path_;
};

struct FileCloser {
  void operator()(FILE *file) const { std::fclose(file); }
};
using FilePtr = std::unique_ptr<FILE, FileCloser>;

} // namespace

std::string npyHeader(const Tensor &tensor) {
  std::string dict = "{'descr': '" + std::string(descrFor(tensor.dtype())) +
                     "', 'fortran_order': False, 'shape': " +
                     shapeToString(tensor.shape()) + ", }";
  // Version 1.0 holds a header of up to 65535 bytes; 2.0 up to 4 GiB.
  for (int major : {1, 2}) {
    size_t prefix = kMagicSize + 2 + (major == 1 ? 2 : 4);
    size_t unpadded = prefix + dict.size() + 1; // + '\n'
    size_t padded = (unpadded + kAlign - 1) / kAlign * kAlign;
    size_t headerLen = padded - prefix;
    if (major == 1 && headerLen > 0xffff)
      continue;
    std::string out(kMagic, kMagicSize);
    out += static_cast<char>(major);
    out += '\0';
    for (size_t i = 0; i < prefix - kMagicSize - 2; ++i)
      out += static_cast<char>((headerLen >> (8 * i)) & 0xff);
    out += dict;
    out.append(padded - unpadded, ' ');
    out += '\n';
    return out;
  }
  throw NpyError("npy header too large");
}

std::vector<uint8_t> serializeNpy(const Tensor &tensor) {
  std::string header = npyHeader(tensor);
  std::vector<uint8_t> out(header.begin(), header.end());
  out.insert(out.end(), tensor.data(), tensor.data() + tensor.byteSize());
  return out;
}

Tensor detail::parseNpyStream(ByteReader &reader, uint64_t totalSize,
                              const std::string &context) {
  uint8_t prefix[12];
  if (totalSize < 10)
    throw NpyError(context + ": file holds " + std::to_string(totalSize) +
                   " bytes, too short for an npy header");
  if (reader.read(prefix, 10) != 10)
    throw NpyError(context + ": truncated npy header");
  if (std::memcmp(prefix, kMagic, kMagicSize) != 0)
    throw NpyError(context + ": not an npy array (bad magic)");
  int major = prefix[6], minor = prefix[7];
  if (major < 1 || major > 3 || minor != 0)
    throw NpyError(context + ": unsupported npy format version " +
                   std::to_string(major) + "." + std::to_string(minor));
  size_t lenBytes = major == 1 ? 2 : 4;
  if (lenBytes == 4) {
    if (totalSize < 12 || reader.read(prefix + 10, 2) != 2)
      throw NpyError(context + ": truncated npy header");
  }
  uint64_t headerLen = readLE(prefix + 8, lenBytes);
  uint64_t dataStart = 8 + lenBytes + headerLen;
  if (dataStart > totalSize)
    throw NpyError(context + ": header says its dict is " +
                   std::to_string(headerLen) + " bytes, file holds " +
                   std::to_string(totalSize - 8 - lenBytes));
  std::string dict(static_cast<size_t>(headerLen), '\0');
  if (reader.read(dict.data(), dict.size()) != dict.size())
    throw NpyError(context + ": truncated npy header");
  HeaderInfo info = HeaderParser(dict, context).parse();

  size_t elemSize = dtypeSize(info.type);
  int64_t count;
  try {
    count = shapeNumElements(info.shape);
  } catch (const TensorError &e) {
    throw NpyError(context + ": " + e.what());
  }
  uint64_t available = totalSize - dataStart;
  if (count != 0 &&
      static_cast<uint64_t>(count) > std::numeric_limits<uint64_t>::max() /
                                         elemSize)
    throw NpyError(context + ": shape " + shapeToString(info.shape) +
                   " is too large");
  uint64_t expected = static_cast<uint64_t>(count) * elemSize;
  if (expected != available)
    throw NpyError(context + ": header says " + std::to_string(expected) +
                   " bytes, file holds " + std::to_string(available));

  std::vector<uint8_t> bytes(static_cast<size_t>(expected));
  if (reader.read(bytes.data(), bytes.size()) != bytes.size())
    throw NpyError(context + ": truncated array data");
  if (info.bigEndian)
    byteSwap(bytes, elemSize);
  if (info.fortranOrder && info.shape.size() > 1)
    bytes = fortranToC(bytes, info.shape, elemSize);
  return Tensor(info.type, std::move(info.shape), std::move(bytes));
}

Tensor parseNpy(const uint8_t *data, size_t size, const std::string &context) {
  MemoryReader reader(data, size);
  return detail::parseNpyStream(reader, size, context);
}

Tensor readNpy(const std::string &path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw NpyError(path + ": is a directory");
  FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file)
    throw NpyError(path + ": cannot open: " + std::strerror(errno));
  uint64_t size = std::filesystem::file_size(path, ec);
  if (ec)
    throw NpyError(path + ": cannot read size: " + ec.message());
  FileReader reader(file.get(), path);
  return detail::parseNpyStream(reader, size, path);
}

void writeNpy(const std::string &path, const Tensor &tensor) {
  std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    FilePtr file(std::fopen(tmp.c_str(), "wb"));
    if (!file)
      throw NpyError(path + ": cannot write: " + std::strerror(errno));
    std::string header = npyHeader(tensor);
    bool ok =
        std::fwrite(header.data(), 1, header.size(), file.get()) ==
            header.size() &&
        std::fwrite(tensor.data(), 1, tensor.byteSize(), file.get()) ==
            tensor.byteSize() &&
        std::fflush(file.get()) == 0;
    if (!ok) {
      int err = errno;
      std::remove(tmp.c_str());
      throw NpyError(path + ": write failed: " + std::strerror(err));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw NpyError(path + ": cannot write: " + ec.message());
  }
}

} // namespace tpuc
