// ChatStore: the message tree (paths, siblings, branches) and streaming replies.
#include "chat_store.h"
#include "chat_store_rows.h"
#include "sqlite_db.h"

namespace hearth::storage {
namespace {

std::string noMessage(qint64 id) {
    return "No message with id " + std::to_string(id);
}

}  // namespace

Result<qint64> ChatStore::chatOfMessage(qint64 messageId) {
    auto stmt = m_db->prepare("SELECT chat_id FROM messages WHERE id = ?1");
    if (!stmt) return stmt.status();
    stmt->bind(1, messageId);
    auto row = stmt->step();
    if (!row) return row.status();
    if (!*row) return Result<qint64>::error(noMessage(messageId));
    return stmt->int64(0);
}

Result<qint64> ChatStore::insertMessage(qint64 chatId, qint64 parentId, Role role,
                                        const QString& content, MessageStatus status) {
    if (parentId != 0) {
        auto parentChat = chatOfMessage(parentId);
        if (!parentChat) return parentChat.status();
        if (*parentChat != chatId) {
            return Result<qint64>::error("Message " + std::to_string(parentId) +
                                         " belongs to another chat");
        }
    } else if (auto c = chat(chatId); !c) {
        return c.status();
    }
    const qint64 now = nowMs();
    auto stmt = m_db->prepare(
        "INSERT INTO messages (chat_id, parent_id, role, content, created_at, status) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    if (!stmt) return stmt.status();
    stmt->bind(1, chatId).bindIdOrNull(2, parentId).bind(3, roleName(role)).bind(4, content);
    stmt->bind(5, now).bind(6, statusName(status));
    if (Status s = stmt->run(); !s) return s;
    const qint64 id = m_db->lastInsertId();
    if (Status s = setLeaf(chatId, id); !s) return s;
    if (Status s = touchChat(chatId, now); !s) return s;
    return id;
}

Result<qint64> ChatStore::addMessage(qint64 chatId, qint64 parentId, Role role,
                                     const QString& content) {
    Transaction tx(*m_db);
    if (!tx.begun()) return tx.begun();
    auto id = insertMessage(chatId, parentId, role, content, MessageStatus::Complete);
    if (!id) return Result<qint64>::error("Cannot save the message: " + id.error_message());
    if (Status s = tx.commit(); !s) return s;
    return id;
}

Result<Message> ChatStore::message(qint64 messageId) {
    auto stmt =
        m_db->prepare("SELECT " HEARTH_MESSAGE_COLUMNS " FROM messages AS m WHERE m.id = ?1");
    if (!stmt) return stmt.status();
    stmt->bind(1, messageId);
    auto row = stmt->step();
    if (!row) return row.status();
    if (!*row) return Result<Message>::error(noMessage(messageId));
    return readMessage(*stmt);
}

Result<QList<Message>> ChatStore::pathFrom(qint64 leafId) {
    // Walks parent links up from the leaf; the depth cap stops a (corrupt) cycle.
    auto stmt = m_db->prepare(
        "WITH RECURSIVE path (id, depth) AS ("
        "  SELECT id, 0 FROM messages WHERE id = ?1"
        "  UNION ALL"
        "  SELECT m.parent_id, p.depth + 1 FROM messages AS m JOIN path AS p ON m.id = p.id"
        "  WHERE m.parent_id IS NOT NULL AND p.depth < 1000000)"
        " SELECT " HEARTH_MESSAGE_COLUMNS
        " FROM path JOIN messages AS m ON m.id = path.id ORDER BY path.depth DESC");
    if (!stmt) return stmt.status();
    stmt->bind(1, leafId);
    QList<Message> path;
    for (;;) {
        auto row = stmt->step();
        if (!row) return row.status();
        if (!*row) break;
        path.append(readMessage(*stmt));
    }
    return path;
}

Result<QList<Message>> ChatStore::pathTo(qint64 messageId) {
    auto path = pathFrom(messageId);
    if (path && path->isEmpty()) return Result<QList<Message>>::error(noMessage(messageId));
    return path;
}

Result<QList<Message>> ChatStore::selectedPath(qint64 chatId) {
    auto c = chat(chatId);
    if (!c) return c.status();
    if (c->selectedLeafId != 0) return pathFrom(c->selectedLeafId);
    // No selection recorded: the newest leaf, if the chat has messages at all.
    auto stmt = m_db->prepare(
        "SELECT m.id FROM messages AS m WHERE m.chat_id = ?1 AND NOT EXISTS "
        "(SELECT 1 FROM messages AS c WHERE c.parent_id = m.id) ORDER BY m.id DESC LIMIT 1");
    if (!stmt) return stmt.status();
    stmt->bind(1, chatId);
    auto row = stmt->step();
    if (!row) return row.status();
    if (!*row) return QList<Message>{};
    const qint64 leaf = stmt->int64(0);
    return pathFrom(leaf);
}

Result<QList<qint64>> ChatStore::siblings(qint64 messageId) {
    auto stmt = m_db->prepare(
        "SELECT s.id FROM messages AS m JOIN messages AS s "
        "ON s.chat_id = m.chat_id AND s.parent_id IS m.parent_id "
        "WHERE m.id = ?1 ORDER BY s.id");
    if (!stmt) return stmt.status();
    stmt->bind(1, messageId);
    QList<qint64> ids;
    for (;;) {
        auto row = stmt->step();
        if (!row) return row.status();
        if (!*row) break;
        ids.append(stmt->int64(0));
    }
    if (ids.isEmpty()) return Result<QList<qint64>>::error(noMessage(messageId));
    return ids;
}

Result<qint64> ChatStore::newestLeafBelow(qint64 messageId) {
    auto stmt = m_db->prepare(
        "WITH RECURSIVE below (id, depth) AS ("
        "  SELECT id, 0 FROM messages WHERE id = ?1"
        "  UNION ALL"
        "  SELECT m.id, b.depth + 1 FROM messages AS m JOIN below AS b ON m.parent_id = b.id"
        "  WHERE b.depth < 1000000)"
        " SELECT b.id FROM below AS b WHERE NOT EXISTS "
        "(SELECT 1 FROM messages AS c WHERE c.parent_id = b.id) ORDER BY b.id DESC LIMIT 1");
    if (!stmt) return stmt.status();
    stmt->bind(1, messageId);
    auto row = stmt->step();
    if (!row) return row.status();
    if (!*row) return Result<qint64>::error(noMessage(messageId));
    return stmt->int64(0);
}

Result<qint64> ChatStore::selectBranch(qint64 messageId) {
    Transaction tx(*m_db);
    if (!tx.begun()) return tx.begun();
    auto chatId = chatOfMessage(messageId);
    if (!chatId) return chatId.status();
    auto leaf = newestLeafBelow(messageId);
    if (!leaf) return leaf.status();
    if (Status s = setLeaf(*chatId, *leaf); !s) return s;
    if (Status s = tx.commit(); !s) return s;
    return leaf;
}

Result<qint64> ChatStore::editUserMessage(qint64 messageId, const QString& newContent) {
    Transaction tx(*m_db);
    if (!tx.begun()) return tx.begun();
    auto old = message(messageId);
    if (!old) return old.status();
    if (old->role != Role::User) {
        return Result<qint64>::error("Only a user message can be edited (message " +
                                     std::to_string(messageId) + " is " +
                                     roleName(old->role).toStdString() + ")");
    }
    auto id =
        insertMessage(old->chatId, old->parentId, Role::User, newContent, MessageStatus::Complete);
    if (!id) return Result<qint64>::error("Cannot save the edit: " + id.error_message());
    if (Status s = tx.commit(); !s) return s;
    return id;
}

Result<qint64> ChatStore::beginAssistantMessage(qint64 parentId) {
    Transaction tx(*m_db);
    if (!tx.begun()) return tx.begun();
    auto chatId = chatOfMessage(parentId);
    if (!chatId) return chatId.status();
    auto id =
        insertMessage(*chatId, parentId, Role::Assistant, QString(), MessageStatus::Streaming);
    if (!id) return Result<qint64>::error("Cannot start the reply: " + id.error_message());
    if (Status s = tx.commit(); !s) return s;
    return id;
}

Result<qint64> ChatStore::regenerate(qint64 assistantMessageId) {
    Transaction tx(*m_db);
    if (!tx.begun()) return tx.begun();
    auto old = message(assistantMessageId);
    if (!old) return old.status();
    if (old->role != Role::Assistant) {
        return Result<qint64>::error("Only an assistant message can be regenerated (message " +
                                     std::to_string(assistantMessageId) + " is " +
                                     roleName(old->role).toStdString() + ")");
    }
    auto id = insertMessage(old->chatId, old->parentId, Role::Assistant, QString(),
                            MessageStatus::Streaming);
    if (!id) return Result<qint64>::error("Cannot start the reply: " + id.error_message());
    if (Status s = tx.commit(); !s) return s;
    return id;
}

Status ChatStore::updateStreaming(qint64 messageId, const char* sql, const QString& text) {
    // One statement is its own transaction; the search-index trigger runs inside it.
    auto stmt = m_db->prepare(sql);
    if (!stmt) return stmt.status();
    if (Status s = stmt->bind(1, messageId).bind(2, text).run(); !s) {
        return Status::error("Cannot save the reply: " + s.message());
    }
    if (m_db->changes() == 0) {
        return Status::error("Message " + std::to_string(messageId) + " is not streaming");
    }
    return Status::ok();
}

Status ChatStore::checkpointMessage(qint64 messageId, const QString& fullContent) {
    return updateStreaming(
        messageId, "UPDATE messages SET content = ?2 WHERE id = ?1 AND status = 'streaming'",
        fullContent);
}

Status ChatStore::appendToMessage(qint64 messageId, const QString& delta) {
    return updateStreaming(
        messageId,
        "UPDATE messages SET content = content || ?2 WHERE id = ?1 AND status = 'streaming'",
        delta);
}

Status ChatStore::finishMessage(qint64 messageId, const QString& finalContent,
                                const GenerationStats& stats) {
    Transaction tx(*m_db);
    if (!tx.begun()) return tx.begun();
    if (Status s = updateStreaming(messageId,
                                   "UPDATE messages SET content = ?2, status = 'complete' "
                                   "WHERE id = ?1 AND status = 'streaming'",
                                   finalContent);
        !s) {
        return s;
    }
    auto stmt = m_db->prepare("UPDATE messages SET stats = ?2 WHERE id = ?1");
    if (!stmt) return stmt.status();
    if (Status s = stmt->bind(1, messageId).bind(2, jsonText(stats.toJson())).run(); !s) return s;
    auto chatId = chatOfMessage(messageId);
    if (!chatId) return chatId.status();
    if (Status s = touchChat(*chatId, nowMs()); !s) return s;
    return tx.commit();
}

Status ChatStore::discardEmptyReply(qint64 messageId) {
    Transaction tx(*m_db);
    if (!tx.begun()) return tx.begun();
    auto m = message(messageId);
    if (!m) return m.status();
    if (m->role != Role::Assistant || !m->content.trimmed().isEmpty()) {
        return Status::error("Message " + std::to_string(messageId) +
                             " is not an empty reply; it is kept");
    }
    auto children = m_db->prepare("SELECT count(*) FROM messages WHERE parent_id = ?1");
    if (!children) return children.status();
    children->bind(1, messageId);
    auto row = children->step();
    if (!row) return row.status();
    if (*row && children->int64(0) > 0) {
        return Status::error("Message " + std::to_string(messageId) + " has replies below it");
    }
    auto owner = chat(m->chatId);
    if (!owner) return owner.status();
    const bool wasSelected = owner->selectedLeafId == messageId;
    auto del = m_db->prepare("DELETE FROM messages WHERE id = ?1");
    if (!del) return del.status();
    if (Status s = del->bind(1, messageId).run(); !s) return s;
    // The branch it hung off: the newest leaf left under its parent (the parent itself when
    // it has no other reply); a root reply leaves the chat empty.
    qint64 leaf = 0;
    if (wasSelected && m->parentId != 0) {
        auto below = newestLeafBelow(m->parentId);
        if (!below) return below.status();
        leaf = *below;
    }
    if (wasSelected) {
        auto sel = m_db->prepare("UPDATE chats SET selected_leaf_id = ?2 WHERE id = ?1");
        if (!sel) return sel.status();
        if (Status s = sel->bind(1, m->chatId).bindIdOrNull(2, leaf).run(); !s) return s;
    }
    return tx.commit();
}

Status ChatStore::resumeReply(qint64 messageId) {
    auto m = message(messageId);
    if (!m) return m.status();
    if (m->role != Role::Assistant)
        return Status::error("Only a reply can be continued (message " + std::to_string(messageId) +
                             ")");
    auto stmt = m_db->prepare(
        "UPDATE messages SET status = 'streaming' WHERE id = ?1 AND status <> 'streaming' "
        "AND NOT EXISTS (SELECT 1 FROM messages AS c WHERE c.parent_id = ?1)");
    if (!stmt) return stmt.status();
    if (Status s = stmt->bind(1, messageId).run(); !s) return s;
    if (m_db->changes() == 0)
        return Status::error("Message " + std::to_string(messageId) +
                             " cannot be continued (it is streaming or has replies below it)");
    return Status::ok();
}

}  // namespace hearth::storage
