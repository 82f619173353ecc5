// A thin RAII layer over the SQLite C API: one connection, cached prepared statements with
// bound values, and errors as hearth::Status values carrying SQLite's own message.
//
// Not thread-safe: a Database and its Statements belong to the thread that opened it.
#pragma once

#include <QByteArray>
#include <QString>

#include <memory>
#include <string>
#include <unordered_map>

#include "hearth/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace hearth::storage {

class Database;

// A prepared statement borrowed from the connection's cache. Reset (bindings cleared) when the
// handle dies, so the next user starts clean. Bind indices are 1-based, as in SQLite.
class Statement {
public:
    Statement(Statement&& other) noexcept;
    Statement& operator=(Statement&&) = delete;
    Statement(const Statement&) = delete;
    ~Statement();

    Statement& bind(int index, qint64 value);
    Statement& bind(int index, int value) { return bind(index, qint64(value)); }
    Statement& bind(int index, double value);
    Statement& bind(int index, const QString& value);
    Statement& bindNull(int index);
    // Binds NULL for 0, the value otherwise: ids are never 0 in this schema.
    Statement& bindIdOrNull(int index, qint64 id);

    // Runs one step: true when a row is available, false when done, an error otherwise.
    Result<bool> step();
    // Steps to completion, ignoring rows.
    Status run();

    qint64 int64(int column) const;
    double real(int column) const;
    QString text(int column) const;
    bool isNull(int column) const;

private:
    friend class Database;
    Statement(Database* db, sqlite3_stmt* stmt, bool* inUse)
        : m_db(db), m_stmt(stmt), m_inUse(inUse) {}

    Database* m_db;
    sqlite3_stmt* m_stmt;
    bool* m_inUse;  // the cache slot's flag; null for an uncached statement, finalized at death
    int m_bindError = 0;  // first failed bind's code; reported by step()
};

class Database {
public:
    // Opens (creating when asked) a database file. Nothing is read yet: a file that is not a
    // database is only noticed by the first statement.
    static Result<std::unique_ptr<Database>> open(const QString& path, bool create);
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    // Runs SQL text that may hold several statements, no bound values (schema, pragmas).
    Status exec(const QString& sql);
    Status exec(const char* sql);
    // A cached prepared statement for `sql`, which must be a string literal (its address is the
    // cache key).
    Result<Statement> prepare(const char* sql);
    // The single integer a query returns, e.g. "PRAGMA user_version".
    Result<qint64> queryInt(const char* sql);

    // Closing the last connection normally checkpoints the write-ahead log into the main file
    // and deletes it; after a failed open we leave a damaged file's bytes as they are.
    void keepFilesOnClose();

    bool inTransaction() const;
    qint64 lastInsertId() const;
    int changes() const;

    // SQLite's primary result code of the last failure (SQLITE_CORRUPT, SQLITE_NOTADB, ...).
    int lastErrorCode() const { return m_lastCode; }
    // "<what>: <sqlite message>", and remembers the code for lastErrorCode().
    Status error(const char* what);
    Status error(const char* what, int code);
    // A failure found by our own checks, recorded with `code` like one from SQLite.
    Status fail(int code, std::string message);

    sqlite3* handle() const { return m_db; }

private:
    std::string hintFor(int code);  // a person's explanation of `code`, or empty
    struct StmtDeleter {
        void operator()(sqlite3_stmt* s) const;
    };
    struct CacheSlot {
        std::unique_ptr<sqlite3_stmt, StmtDeleter> stmt;
        bool inUse = false;
    };
    explicit Database(sqlite3* db) : m_db(db) {}

    sqlite3* m_db;
    int m_lastCode = 0;
    // Node-based map: a slot's address (and its inUse flag) stays put while others are added.
    std::unordered_map<const char*, CacheSlot> m_cache;
};

// True for the codes that mean the file itself is damaged or not a database at all.
bool isCorruptionCode(int code);

}  // namespace hearth::storage
