#include "transaction.h"

#include "sqlite_db.h"

namespace hearth::storage {

Transaction::Transaction(Database& db) : m_db(&db) {
    m_nested = db.inTransaction();
    // IMMEDIATE takes the write lock up front: a deferred transaction that later needs to
    // write can fail with SQLITE_BUSY without the busy handler being consulted.
    m_begin = db.exec(m_nested ? "SAVEPOINT hearth_nested" : "BEGIN IMMEDIATE");
    m_open = m_begin.is_ok();
}

Transaction::Transaction(Transaction&& other) noexcept
    : m_db(other.m_db), m_begin(other.m_begin), m_nested(other.m_nested), m_open(other.m_open) {
    other.m_open = false;
}

Transaction::~Transaction() {
    rollback();
}

Status Transaction::commit() {
    if (!m_open) return Status::error("commit without an open transaction");
    Status s = m_db->exec(m_nested ? "RELEASE hearth_nested" : "COMMIT");
    if (s) m_open = false;
    // On failure (e.g. SQLITE_BUSY) the transaction is still open; the destructor rolls back.
    return s;
}

void Transaction::rollback() {
    if (!m_open) return;
    m_open = false;
    if (m_nested) {
        (void)m_db->exec("ROLLBACK TO hearth_nested; RELEASE hearth_nested");
    } else {
        (void)m_db->exec("ROLLBACK");
    }
}

}  // namespace hearth::storage
