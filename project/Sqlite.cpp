// A minimal RAII layer over the SQLite C API.
#include "project/Sqlite.h"

#include <sqlite3.h>

namespace tpuc::project::sql {

Db::~Db() { close(); }

Db::Db(Db &&other) noexcept : m_db(other.m_db), m_error(std::move(other.m_error)) { other.m_db = nullptr; }

Db &Db::operator=(Db &&other) noexcept {
  if (this != &other) {
    close();
    m_db = other.m_db;
    m_error = std::move(other.m_error);
    other.m_db = nullptr;
  }
  return *this;
}

bool Db::open(const std::string &path, Mode mode) {
  close();
  int flags = SQLITE_OPEN_NOMUTEX;
  std::string name = path;
  switch (mode) {
  case Mode::ReadOnly:
    flags |= SQLITE_OPEN_READONLY;
    break;
  case Mode::ReadWrite:
    flags |= SQLITE_OPEN_READWRITE;
    break;
  case Mode::Create:
    flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    break;
  case Mode::Memory:
    flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_MEMORY;
    name = ":memory:";
    break;
  }
  int rc = sqlite3_open_v2(name.c_str(), &m_db, flags, nullptr);
  if (rc != SQLITE_OK) {
    m_error = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
    close();
    return false;
  }
  sqlite3_extended_result_codes(m_db, 1);
  // A project may be open in two studios; wait briefly for the other writer instead of failing at once.
  sqlite3_busy_timeout(m_db, 2000);
  return true;
}

void Db::close() {
  if (m_db) {
    sqlite3_close_v2(m_db);
    m_db = nullptr;
  }
}

bool Db::exec(std::string_view sql) {
  char *message = nullptr;
  std::string text(sql);
  if (sqlite3_exec(m_db, text.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    m_error = message ? message : sqlite3_errmsg(m_db);
    sqlite3_free(message);
    return false;
  }
  return true;
}

std::optional<std::int64_t> Db::queryInt(const std::string &sql) {
  Stmt stmt(*this, sql);
  if (!stmt.ok() || !stmt.step())
    return std::nullopt;
  return stmt.columnInt(0);
}

bool Db::copyTo(Db &dest) {
  sqlite3_backup *backup = sqlite3_backup_init(dest.m_db, "main", m_db, "main");
  if (!backup) {
    m_error = sqlite3_errmsg(dest.m_db);
    return false;
  }
  int rc = sqlite3_backup_step(backup, -1);
  sqlite3_backup_finish(backup);
  if (rc != SQLITE_DONE) {
    m_error = sqlite3_errstr(rc);
    return false;
  }
  return true;
}

std::int64_t Db::lastInsertId() const { return sqlite3_last_insert_rowid(m_db); }

Stmt::Stmt(Db &db, std::string_view sql) : m_db(db) {
  if (sqlite3_prepare_v2(db.handle(), sql.data(), static_cast<int>(sql.size()), &m_stmt, nullptr) !=
      SQLITE_OK) {
    db.setError(sqlite3_errmsg(db.handle()));
    m_stmt = nullptr;
    m_failed = true;
  }
}

Stmt::~Stmt() { sqlite3_finalize(m_stmt); }

Stmt &Stmt::bind(int index, std::int64_t value) {
  if (m_stmt)
    sqlite3_bind_int64(m_stmt, index, value);
  return *this;
}

Stmt &Stmt::bind(int index, double value) {
  if (m_stmt)
    sqlite3_bind_double(m_stmt, index, value);
  return *this;
}

Stmt &Stmt::bind(int index, std::string_view value) {
  if (m_stmt)
    sqlite3_bind_text(m_stmt, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  return *this;
}

Stmt &Stmt::bindBlob(int index, const std::vector<std::uint8_t> &value) {
  if (m_stmt)
    sqlite3_bind_blob64(m_stmt, index, value.data(), value.size(), SQLITE_TRANSIENT);
  return *this;
}

Stmt &Stmt::bindNull(int index) {
  if (m_stmt)
    sqlite3_bind_null(m_stmt, index);
  return *this;
}

bool Stmt::step() {
  if (!m_stmt)
    return false;
  int rc = sqlite3_step(m_stmt);
  if (rc == SQLITE_ROW)
    return true;
  if (rc != SQLITE_DONE) {
    m_db.setError(sqlite3_errmsg(m_db.handle()));
    m_failed = true;
  }
  return false;
}

bool Stmt::run() {
  step();
  reset();
  return !m_failed;
}

void Stmt::reset() {
  if (m_stmt) {
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
  }
}

std::int64_t Stmt::columnInt(int column) const { return sqlite3_column_int64(m_stmt, column); }
double Stmt::columnDouble(int column) const { return sqlite3_column_double(m_stmt, column); }

std::string Stmt::columnText(int column) const {
  const unsigned char *text = sqlite3_column_text(m_stmt, column);
  return text ? std::string(reinterpret_cast<const char *>(text), sqlite3_column_bytes(m_stmt, column))
              : std::string();
}

std::vector<std::uint8_t> Stmt::columnBlob(int column) const {
  const auto *data = static_cast<const std::uint8_t *>(sqlite3_column_blob(m_stmt, column));
  int size = sqlite3_column_bytes(m_stmt, column);
  return data ? std::vector<std::uint8_t>(data, data + size) : std::vector<std::uint8_t>();
}

bool Stmt::columnIsNull(int column) const { return sqlite3_column_type(m_stmt, column) == SQLITE_NULL; }

} // namespace tpuc::project::sql
