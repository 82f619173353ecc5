#include "sqlite_db.h"

#include <sqlite3.h>

#include <cstdint>

#ifndef _WIN32
#include <sys/resource.h>
#include <sys/statvfs.h>
#endif

namespace hearth::storage {

Statement::Statement(Statement&& other) noexcept
    : m_db(other.m_db),
      m_stmt(other.m_stmt),
      m_inUse(other.m_inUse),
      m_bindError(other.m_bindError) {
    other.m_stmt = nullptr;
    other.m_inUse = nullptr;
}

Statement::~Statement() {
    if (!m_stmt) return;
    if (m_inUse) {
        sqlite3_reset(m_stmt);
        sqlite3_clear_bindings(m_stmt);
        *m_inUse = false;
    } else {
        sqlite3_finalize(m_stmt);
    }
}

Statement& Statement::bind(int index, qint64 value) {
    const int rc = sqlite3_bind_int64(m_stmt, index, value);
    if (rc != SQLITE_OK && !m_bindError) m_bindError = rc;
    return *this;
}

Statement& Statement::bind(int index, double value) {
    const int rc = sqlite3_bind_double(m_stmt, index, value);
    if (rc != SQLITE_OK && !m_bindError) m_bindError = rc;
    return *this;
}

Statement& Statement::bind(int index, const QString& value) {
    const QByteArray utf8 = value.toUtf8();
    const int rc = sqlite3_bind_text64(m_stmt, index, utf8.constData(), sqlite3_uint64(utf8.size()),
                                       SQLITE_TRANSIENT, SQLITE_UTF8);
    if (rc != SQLITE_OK && !m_bindError) m_bindError = rc;
    return *this;
}

Statement& Statement::bindNull(int index) {
    const int rc = sqlite3_bind_null(m_stmt, index);
    if (rc != SQLITE_OK && !m_bindError) m_bindError = rc;
    return *this;
}

Statement& Statement::bindIdOrNull(int index, qint64 id) {
    return id == 0 ? bindNull(index) : bind(index, id);
}

Result<bool> Statement::step() {
    if (m_bindError) return m_db->error("binding a value", m_bindError);
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return m_db->error("running a statement", rc);
}

Status Statement::run() {
    for (;;) {
        auto row = step();
        if (!row) return row.status();
        if (!*row) return Status::ok();
    }
}

qint64 Statement::int64(int column) const {
    return sqlite3_column_int64(m_stmt, column);
}

double Statement::real(int column) const {
    return sqlite3_column_double(m_stmt, column);
}

QString Statement::text(int column) const {
    const auto* bytes = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, column));
    const int size = sqlite3_column_bytes(m_stmt, column);
    return bytes ? QString::fromUtf8(bytes, size) : QString();
}

bool Statement::isNull(int column) const {
    return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

void Database::StmtDeleter::operator()(sqlite3_stmt* s) const {
    sqlite3_finalize(s);
}

Result<std::unique_ptr<Database>> Database::open(const QString& path, bool create) {
    sqlite3* raw = nullptr;
    const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) |
                      SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE;
    const int rc = sqlite3_open_v2(path.toUtf8().constData(), &raw, flags, nullptr);
    if (rc != SQLITE_OK) {
        std::string message = "Cannot open " + path.toStdString() + ": " +
                              (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc));
        sqlite3_close(raw);  // a handle is returned even on failure
        return Result<std::unique_ptr<Database>>::error(std::move(message));
    }
    return std::unique_ptr<Database>(new Database(raw));
}

Database::~Database() {
    m_cache.clear();  // statements must be finalized before the connection closes
    sqlite3_close(m_db);
}

Status Database::exec(const QString& sql) {
    const QByteArray utf8 = sql.toUtf8();
    return exec(utf8.constData());
}

Status Database::exec(const char* sql) {
    char* message = nullptr;
    const int rc = sqlite3_exec(m_db, sql, nullptr, nullptr, &message);
    if (rc == SQLITE_OK) return Status::ok();
    m_lastCode = rc & 0xff;
    std::string text =
        hintFor(sqlite3_extended_errcode(m_db)) + (message ? message : sqlite3_errstr(rc));
    sqlite3_free(message);
    return Status::error(text);
}

Result<Statement> Database::prepare(const char* sql) {
    CacheSlot& slot = m_cache[sql];
    if (slot.stmt && !slot.inUse) {
        slot.inUse = true;
        return Statement(this, slot.stmt.get(), &slot.inUse);
    }
    sqlite3_stmt* raw = nullptr;
    const int rc = sqlite3_prepare_v3(m_db, sql, -1, SQLITE_PREPARE_PERSISTENT, &raw, nullptr);
    if (rc != SQLITE_OK) {
        if (!slot.stmt) m_cache.erase(sql);
        return error("preparing a statement", rc);
    }
    if (slot.stmt) return Statement(this, raw, nullptr);  // nested use: a private copy
    slot.stmt.reset(raw);
    slot.inUse = true;
    return Statement(this, raw, &slot.inUse);
}

Result<qint64> Database::queryInt(const char* sql) {
    auto stmt = prepare(sql);
    if (!stmt) return stmt.status();
    auto row = stmt->step();
    if (!row) return row.status();
    if (!*row) return Result<qint64>::error(std::string("no result from ") + sql);
    return stmt->int64(0);
}

void Database::keepFilesOnClose() {
    sqlite3_db_config(m_db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
}

bool Database::inTransaction() const {
    return sqlite3_get_autocommit(m_db) == 0;
}

qint64 Database::lastInsertId() const {
    return sqlite3_last_insert_rowid(m_db);
}

int Database::changes() const {
    return sqlite3_changes(m_db);
}

Status Database::error(const char* what) {
    return error(what, sqlite3_extended_errcode(m_db));
}

Status Database::error(const char* what, int code) {
    m_lastCode = code & 0xff;
    // The connection's message matches `code` when it came from this connection's last call;
    // otherwise (a bind failure) fall back to the generic text for the code.
    const char* detail =
        (sqlite3_extended_errcode(m_db) == code) ? sqlite3_errmsg(m_db) : sqlite3_errstr(code);
    return Status::error(hintFor(code) + std::string(what) + ": " + detail);
}

// The failures a person can do something about get a plain explanation first; SQLite's own
// text stays at the end for a bug report. A write refused by the OS reports SQLITE_FULL only
// for ENOSPC; EFBIG (a file size limit) and others come as SQLITE_IOERR_WRITE with no errno
// kept, so the free space and the size limit are looked at here.
std::string Database::hintFor(int code) {
    const int primary = code & 0xff;
    const bool writeFailed = primary == SQLITE_FULL || code == SQLITE_IOERR_WRITE ||
                             code == SQLITE_IOERR_FSYNC || code == SQLITE_IOERR_TRUNCATE;
    if (writeFailed) {
        bool lowSpace = primary == SQLITE_FULL;
        bool sizeLimit = false;
#ifndef _WIN32
        const char* file = sqlite3_db_filename(m_db, "main");
        struct statvfs fs {};
        if (file && *file && ::statvfs(file, &fs) == 0)
            lowSpace = lowSpace || uint64_t(fs.f_bavail) * fs.f_frsize < (uint64_t(64) << 20);
        rlimit rl{};
        sizeLimit = ::getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY;
#endif
        m_lastCode = SQLITE_FULL;
        if (lowSpace)
            return "The disk is full; what was saved before is kept. Free some space and try "
                   "again. ";
        if (sizeLimit)
            return "A file size limit (ulimit -f) stops the chat database from growing; what "
                   "was saved before is kept. ";
        return "Writing the chat database failed (is the disk full or failing?); what was "
               "saved before is kept. ";
    }
    if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
        return "The chat database is in use by another program (another Hearth?) that holds its "
               "write lock. Close it and try again. ";
    if (primary == SQLITE_READONLY) return "The chat database or its folder is read-only. ";
    return {};
}

Status Database::fail(int code, std::string message) {
    m_lastCode = code & 0xff;
    return Status::error(std::move(message));
}

bool isCorruptionCode(int code) {
    const int primary = code & 0xff;
    return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB;
}

}  // namespace hearth::storage
