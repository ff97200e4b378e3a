//===- Result.h - A value or a one-line error, for LLVM-free libraries ---*- C++ -*-===//
// The error rule (docs/ARCHITECTURE.md, Errors) asks library boundaries to return the value or the
// error, never a `std::string &error` out-parameter. Libraries that link LLVM use llvm::Expected; the
// plain-C++ ones the studio links without the compiler (TpucSupport, the graph and pass data, the
// project store) use this: C++20 has no std::expected, and it is the same shape (a value or a Failure
// holding one line naming the file and field), so moving to std::expected later is mechanical.
//===----------------------------------------------------------------------===//
#ifndef TPUC_SUPPORT_RESULT_H
#define TPUC_SUPPORT_RESULT_H

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace tpuc {

/// A failed operation: one line, e.g. "a.tpuproj: table 'runs': no column 'stage'".
struct Failure {
  std::string message;
};

/// The value of a successful operation or its Failure. Test it before use:
/// `if (auto project = loadProject(path)) use(*project); else report(project.error());`
template <typename T> class [[nodiscard]] Result {
public:
  Result(T value) : state(std::in_place_index<0>, std::move(value)) {}
  Result(Failure failure) : state(std::in_place_index<1>, std::move(failure)) {}

  bool ok() const { return state.index() == 0; }
  explicit operator bool() const { return ok(); }

  T &operator*() & {
    assert(ok() && "Result holds a failure");
    return std::get<0>(state);
  }
  const T &operator*() const & {
    assert(ok() && "Result holds a failure");
    return std::get<0>(state);
  }
  T &&operator*() && {
    assert(ok() && "Result holds a failure");
    return std::get<0>(std::move(state));
  }
  T *operator->() { return &**this; }
  const T *operator->() const { return &**this; }

  /// The value, or `fallback` on failure (std::expected::value_or).
  template <typename U> T value_or(U &&fallback) const & {
    return ok() ? **this : static_cast<T>(std::forward<U>(fallback));
  }
  template <typename U> T value_or(U &&fallback) && {
    return ok() ? std::move(**this) : static_cast<T>(std::forward<U>(fallback));
  }

  /// The one-line message of a failure ("" on success).
  const std::string &error() const {
    static const std::string none;
    return ok() ? none : std::get<1>(state).message;
  }

private:
  std::variant<T, Failure> state;
};

/// The outcome of an operation without a value: success (`return {};`), or a Failure.
template <> class [[nodiscard]] Result<void> {
public:
  Result() = default;
  Result(Failure failure) : failure(std::move(failure.message)), failed(true) {}

  bool ok() const { return !failed; }
  explicit operator bool() const { return ok(); }
  const std::string &error() const { return failure; }

private:
  std::string failure;
  bool failed = false;
};

} // namespace tpuc

#endif // TPUC_SUPPORT_RESULT_H
