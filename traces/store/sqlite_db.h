// A thin RAII layer over SQLite: a connection and cached prepared statements that throw traces::DbError.
// Everything SQL in the project goes through here so that error text always names the database file.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace traces {

class DbError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Statement;

class Database {
public:
    enum class Mode { ReadOnly, ReadWrite, Create };
    Database(const std::string& path, Mode mode);
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    void exec(std::string_view sql);
    Statement prepare(std::string_view sql);
    int64_t lastInsertId() const;
    const std::string& path() const { return path_; }
    sqlite3* handle() const { return db_; }
    [[noreturn]] void fail(std::string_view what) const;

private:
    std::string path_;
    sqlite3* db_ = nullptr;
};

/// A prepared statement; bind indexes are 1-based as in SQLite, column indexes 0-based.
class Statement {
public:
    Statement(Database& db, sqlite3_stmt* stmt) : db_(&db), stmt_(stmt) {}
    ~Statement();
    Statement(Statement&& other) noexcept;
    Statement& operator=(Statement&& other) noexcept;
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    Statement& bind(int index, int64_t value);
    Statement& bind(int index, int value) { return bind(index, static_cast<int64_t>(value)); }
    Statement& bind(int index, double value);
    Statement& bind(int index, std::string_view text);
    Statement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }
    Statement& bind(int index, const std::string& text) { return bind(index, std::string_view(text)); }
    /// Binds without copying: `text` must stay unchanged until the statement is reset (a row bound and run at once).
    Statement& bindUncopied(int index, std::string_view text);
    Statement& bindNull(int index);
    template <class T>
    Statement& bind(int index, const std::optional<T>& value) {
        return value ? bind(index, *value) : bindNull(index);
    }

    /// Steps once; true while a row is available.
    bool step();
    /// Steps to completion and resets, for INSERT/UPDATE.
    void run();
    void reset();

    bool isNull(int column) const;
    int64_t int64(int column) const;
    int int32(int column) const { return static_cast<int>(int64(column)); }
    double real(int column) const;
    std::string text(int column) const;
    std::optional<int64_t> optInt64(int column) const;
    std::optional<double> optReal(int column) const;

private:
    Database* db_;
    sqlite3_stmt* stmt_;
};

}  // namespace traces
