// A minimal RAII layer over the SQLite C API: a connection, prepared statements, errors as strings.
#ifndef TPUC_APP_PROJECT_SQLITE_H
#define TPUC_APP_PROJECT_SQLITE_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace tpuc::project::sql {

/// An open SQLite connection. Every failing call records a message in lastError().
class Db {
public:
  enum class Mode { ReadOnly, ReadWrite, Create, Memory };
  Db() = default;
  ~Db();
  Db(const Db &) = delete;
  Db &operator=(const Db &) = delete;
  Db(Db &&other) noexcept;
  Db &operator=(Db &&other) noexcept;

  /// Opens `path` (ignored for Memory). Returns false and sets lastError() on failure.
  bool open(const std::string &path, Mode mode);
  void close();
  bool isOpen() const { return m_db != nullptr; }

  /// Runs one or more statements without results.
  bool exec(std::string_view sql);
  /// Runs a query returning one integer (e.g. a PRAGMA); nullopt on error or no row.
  std::optional<std::int64_t> queryInt(const std::string &sql);
  /// Copies the whole database into `dest` (online backup API).
  bool copyTo(Db &dest);

  const std::string &lastError() const { return m_error; }
  void setError(std::string message) { m_error = std::move(message); }
  sqlite3 *handle() const { return m_db; }
  std::int64_t lastInsertId() const;

private:
  sqlite3 *m_db = nullptr;
  std::string m_error;
};

/// A prepared statement; bind indexes start at 1, column indexes at 0.
class Stmt {
public:
  Stmt(Db &db, std::string_view sql);
  ~Stmt();
  Stmt(const Stmt &) = delete;
  Stmt &operator=(const Stmt &) = delete;

  bool ok() const { return m_stmt != nullptr; }
  Stmt &bind(int index, std::int64_t value);
  Stmt &bind(int index, double value);
  Stmt &bind(int index, std::string_view value);
  Stmt &bindBlob(int index, const std::vector<std::uint8_t> &value);
  Stmt &bindNull(int index);

  /// Advances to the next row; false at the end or on error (then error() is set).
  bool step();
  /// Runs a statement without results, then resets it for reuse. Returns false on error.
  bool run();
  void reset();

  std::int64_t columnInt(int column) const;
  double columnDouble(int column) const;
  std::string columnText(int column) const;
  std::vector<std::uint8_t> columnBlob(int column) const;
  bool columnIsNull(int column) const;

  bool failed() const { return m_failed; }

private:
  Db &m_db;
  sqlite3_stmt *m_stmt = nullptr;
  bool m_failed = false;
};

} // namespace tpuc::project::sql

#endif
