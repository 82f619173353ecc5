// A RAII transaction that rolls back unless committed. Nests: inside an open transaction it
// becomes a savepoint, so a batch of ChatStore calls can share one outer transaction.
#pragma once

#include "hearth/result.h"

namespace hearth::storage {

class Database;

class Transaction {
public:
    explicit Transaction(Database& db);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    Transaction(Transaction&& other) noexcept;
    Transaction& operator=(Transaction&&) = delete;

    // Whether BEGIN (or SAVEPOINT) succeeded; check before doing work.
    const Status& begun() const { return m_begin; }
    Status commit();
    // Rolls back now instead of at destruction.
    void rollback();

private:
    Database* m_db;
    Status m_begin;
    bool m_nested = false;
    bool m_open = false;
};

}  // namespace hearth::storage
