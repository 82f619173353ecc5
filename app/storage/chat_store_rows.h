// Internal to ChatStore: the column lists its queries select and the readers that turn a row
// into a Chat or Message. The macros are string literals so they can be concatenated into the
// literal SQL that keys the statement cache.
#pragma once

#include <QJsonDocument>
#include <QJsonObject>

#include "chat_types.h"
#include "sqlite_db.h"

#define HEARTH_CHAT_COLUMNS                                                      \
    "id, title, created_at, updated_at, model_path, model_name, system_prompt, " \
    "sampling_overrides, selected_leaf_id, deleted_at"

// Messages are selected as `m`; sibling position comes from two correlated counts.
#define HEARTH_MESSAGE_COLUMNS                                                           \
    "m.id, m.chat_id, m.parent_id, m.role, m.content, m.created_at, m.stats, m.status, " \
    "(SELECT count(*) FROM messages AS s WHERE s.chat_id = m.chat_id "                   \
    "AND s.parent_id IS m.parent_id AND s.id < m.id), "                                  \
    "(SELECT count(*) FROM messages AS s WHERE s.chat_id = m.chat_id "                   \
    "AND s.parent_id IS m.parent_id)"

namespace hearth::storage {

inline QString jsonText(const QJsonObject& json) {
    return QString::fromUtf8(QJsonDocument(json).toJson(QJsonDocument::Compact));
}

// Unreadable JSON reads as empty: a damaged stats blob must not hide the message.
inline QJsonObject jsonObject(const QString& text) {
    return QJsonDocument::fromJson(text.toUtf8()).object();
}

inline QDateTime fromMs(qint64 ms) {
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC);
}

inline Chat readChat(const Statement& row) {
    Chat c;
    c.id = row.int64(0);
    c.title = row.text(1);
    c.createdAt = fromMs(row.int64(2));
    c.updatedAt = fromMs(row.int64(3));
    c.modelPath = row.text(4);
    c.modelName = row.text(5);
    c.systemPrompt = row.text(6);
    c.samplingOverrides = jsonObject(row.text(7));
    c.selectedLeafId = row.isNull(8) ? 0 : row.int64(8);
    if (!row.isNull(9)) c.deletedAt = fromMs(row.int64(9));
    return c;
}

inline Message readMessage(const Statement& row) {
    Message m;
    m.id = row.int64(0);
    m.chatId = row.int64(1);
    m.parentId = row.isNull(2) ? 0 : row.int64(2);
    // The schema's CHECK constraints keep role and status to the known names.
    m.role = roleFromName(row.text(3)).value_or(Role::User);
    m.content = row.text(4);
    m.createdAt = fromMs(row.int64(5));
    m.stats = GenerationStats::fromJson(jsonObject(row.text(6)));
    m.status = statusFromName(row.text(7)).value_or(MessageStatus::Complete);
    m.siblingIndex = int(row.int64(8));
    m.siblingCount = int(row.int64(9));
    return m;
}

}  // namespace hearth::storage
