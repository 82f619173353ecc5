// ChatStore: a whole chat at once, every branch, for export and import.
#include "chat_store.h"
#include "chat_store_rows.h"
#include "sqlite_db.h"

namespace hearth::storage {

Result<QList<Message>> ChatStore::allMessages(qint64 chatId) {
    if (auto c = chat(chatId); !c) return c.status();
    auto stmt = m_db->prepare("SELECT " HEARTH_MESSAGE_COLUMNS
                              " FROM messages AS m WHERE m.chat_id = ?1 ORDER BY m.id");
    if (!stmt) return stmt.status();
    stmt->bind(1, chatId);
    QList<Message> all;
    for (;;) {
        auto row = stmt->step();
        if (!row) return row.status();
        if (!*row) break;
        all.append(readMessage(*stmt));
    }
    return all;
}

Result<qint64> ChatStore::importMessage(qint64 chatId, qint64 parentId, const Message& m) {
    if (m.status == MessageStatus::Streaming)
        return Result<qint64>::error("An imported message cannot be streaming");
    Transaction tx(*m_db);
    if (!tx.begun()) return tx.begun();
    if (parentId != 0) {
        auto parentChat = chatOfMessage(parentId);
        if (!parentChat) return parentChat.status();
        if (*parentChat != chatId)
            return Result<qint64>::error("Message " + std::to_string(parentId) +
                                         " belongs to another chat");
    } else if (auto c = chat(chatId); !c) {
        return c.status();
    }
    const qint64 when = m.createdAt.isValid() ? m.createdAt.toMSecsSinceEpoch() : nowMs();
    auto stmt = m_db->prepare(
        "INSERT INTO messages (chat_id, parent_id, role, content, created_at, stats, status) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    if (!stmt) return stmt.status();
    stmt->bind(1, chatId).bindIdOrNull(2, parentId).bind(3, roleName(m.role)).bind(4, m.content);
    stmt->bind(5, when).bind(6, jsonText(m.stats.toJson())).bind(7, statusName(m.status));
    if (Status s = stmt->run(); !s)
        return Result<qint64>::error("Cannot import the message: " + s.message());
    const qint64 id = m_db->lastInsertId();
    if (Status s = touchChat(chatId, when); !s) return s;
    if (Status s = tx.commit(); !s) return s;
    return id;
}

Status ChatStore::selectLeaf(qint64 chatId, qint64 leafId) {
    auto owner = chatOfMessage(leafId);
    if (!owner) return owner.status();
    if (*owner != chatId)
        return Status::error("Message " + std::to_string(leafId) + " belongs to another chat");
    return setLeaf(chatId, leafId);
}

}  // namespace hearth::storage
