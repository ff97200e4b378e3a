//===- JsonFields.h - Typed, path-naming access to a simdjson DOM ---------===//
//
// The plan reader's one way to read fields: each access checks the type and
// a failure names the file and the path of the field
// ("plan.json: groups[3].lmem.rects[2].addr: expected an integer"). Throws
// JsonError, which the readers convert to llvm::Error at their edge.
// simdjson's DOM parses a 10 MB plan in milliseconds (its kernels are chosen
// for the CPU at run time).
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_CHIPDATA_JSONFIELDS_H
#define TPUC_CHIPDATA_JSONFIELDS_H

#include <simdjson.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpuc::chip::detail {

struct JsonError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A JSON node and the path that reached it.
class Fields {
public:
  /// The document's root; `source` names the file in messages.
  Fields(simdjson::dom::element node, std::string source) : node(node), source(std::move(source)) {}

  /// Throws "<source>: <path>.<key>: <what>" (`key` may be empty: the node itself).
  [[noreturn]] void fail(const std::string &key, const std::string &what) const {
    std::string where = key.empty() ? path : child(key);
    throw JsonError(source + ": " + (where.empty() ? "" : where + ": ") + what);
  }

  bool isObject() const { return node.is_object(); }
  bool has(const char *key) const {
    simdjson::dom::element v;
    return node.is_object() && !node[key].get(v) && !v.is_null();
  }

  // Scalars are read without building the child's path: it is made only for an error message.
  int64_t integer(const char *key) const {
    int64_t out;
    if (!toInt(value(key), out))
      fail(key, "expected an integer of at most 2^42");
    return out;
  }
  int64_t integer(const char *key, int64_t fallback) const { return has(key) ? integer(key) : fallback; }
  double number(const char *key) const {
    simdjson::dom::element v = value(key);
    if (!v.is_number())
      fail(key, "expected a number");
    return v.get_double().value_unsafe();
  }
  double number(const char *key, double fallback) const { return has(key) ? number(key) : fallback; }
  bool boolean(const char *key, bool fallback) const {
    if (!has(key))
      return fallback;
    simdjson::dom::element v = value(key);
    if (!v.is_bool())
      fail(key, "expected true or false");
    return v.get_bool().value_unsafe();
  }
  std::string string(const char *key) const {
    std::string_view s;
    if (value(key).get_string().get(s))
      fail(key, "expected a string");
    return std::string(s);
  }
  std::string string(const char *key, const std::string &fallback) const {
    return has(key) ? string(key) : fallback;
  }
  Fields object(const char *key) const {
    Fields v = at(key);
    if (!v.node.is_object())
      v.fail("", "expected an object");
    return v;
  }
  Fields array(const char *key) const {
    Fields v = at(key);
    if (!v.node.is_array())
      v.fail("", "expected an array");
    return v;
  }

  /// A two-integer array ([begin, end]) at `key`, read without building children.
  std::pair<int64_t, int64_t> intPair(const char *key) const {
    simdjson::dom::array arr;
    if (value(key).get_array().get(arr) || arr.size() != 2)
      fail(key, "expected [begin, end]");
    int64_t a = 0, b = 0;
    auto it = arr.begin();
    if (!toInt(*it, a) || !toInt(*++it, b))
      fail(key, "expected integers of at most 2^42");
    return {a, b};
  }

  /// This node as a value.
  int64_t asInt() const {
    int64_t out;
    if (!toInt(node, out))
      fail("", "expected an integer of at most 2^42");
    return out;
  }
  std::string asString() const {
    std::string_view s;
    if (node.get_string().get(s))
      fail("", "expected a string");
    return std::string(s);
  }
  /// The elements of an array (each with its index in the path), in order.
  std::vector<Fields> items() const {
    std::vector<Fields> out;
    simdjson::dom::array arr;
    if (node.get_array().get(arr))
      fail("", "expected an array");
    size_t i = 0;
    for (simdjson::dom::element e : arr)
      out.push_back(Fields(e, source, path + "[" + std::to_string(i++) + "]"));
    return out;
  }
  /// The elements of an array, each required to be an object.
  std::vector<Fields> objects() const {
    std::vector<Fields> out = items();
    for (const Fields &f : out)
      if (!f.node.is_object())
        f.fail("", "expected an object");
    return out;
  }
  /// Members of an object, in document order.
  std::vector<std::pair<std::string, Fields>> members() const {
    std::vector<std::pair<std::string, Fields>> out;
    simdjson::dom::object obj;
    if (node.get_object().get(obj))
      fail("", "expected an object");
    for (simdjson::dom::key_value_pair kv : obj)
      out.emplace_back(std::string(kv.key), Fields(kv.value, source, child(std::string(kv.key))));
    return out;
  }

private:
  Fields(simdjson::dom::element node, const std::string &source, std::string path)
      : node(node), source(source), path(std::move(path)) {}
  std::string child(const std::string &key) const { return path.empty() ? key : path + "." + key; }
  simdjson::dom::element value(const char *key) const {
    simdjson::dom::element v;
    if (!node.is_object() || node[key].get(v))
      fail(key, "missing");
    return v;
  }
  Fields at(const char *key) const { return Fields(value(key), source, child(key)); }
  /// Integers the views compute with: |x| <= 2^42 (4 TB, 4e12 cycles), so sums over millions of them
  /// cannot overflow.
  static constexpr int64_t kLimit = int64_t(1) << 42;
  static bool toInt(simdjson::dom::element node, int64_t &out) {
    if (node.is_int64()) {
      out = node.get_int64().value_unsafe();
      return out >= -kLimit && out <= kLimit;
    }
    if (node.is_double()) {
      double d = node.get_double().value_unsafe();
      if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) <= static_cast<double>(kLimit)) {
        out = static_cast<int64_t>(d);
        return true;
      }
    }
    return false; // also unsigned integers beyond int64
  }

  simdjson::dom::element node;
  std::string source, path;
};

} // namespace tpuc::chip::detail

#endif // TPUC_CHIPDATA_JSONFIELDS_H
