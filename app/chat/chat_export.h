// Export and import of chats. JSON holds the whole tree (every branch) in a versioned format
// that importChat reads back; Markdown and plain text hold the selected branch, for reading.
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include "chat_store.h"
#include "chat_types.h"
#include "hearth/result.h"

namespace hearth::app {

// The JSON export's "format" and "version" fields. A reader refuses another format and any
// version newer than the one it knows.
inline constexpr const char* kChatFormat = "hearth-chat";
inline constexpr int kChatFormatVersion = 1;

QString chatToMarkdown(const hearth::storage::Chat& chat,
                       const QList<hearth::storage::Message>& messages);
QString chatToPlainText(const hearth::storage::Chat& chat,
                        const QList<hearth::storage::Message>& messages);
// {"format": "hearth-chat", "version": 1, "title", "model", "created", "systemPrompt",
//  "sampling": {...}, "selected": ID, "messages": [{"id", "parent" (null for a root), "role",
//  "content", "created", "status" ("complete" | "interrupted"), "stats"?}]} with every branch.
// Ids are numbered 1..N in the file, parents before children. Replies without text (and
// anything below them) are left out.
QByteArray chatTreeToJson(const hearth::storage::Chat& chat,
                          const QList<hearth::storage::Message>& all);

struct ImportedChat {
    hearth::storage::ChatStore::NewChat chat;
    QList<hearth::storage::Message> messages;  // id and parentId are the file's numbers
    qint64 selected = 0;                       // the file's id of the selected leaf (0: newest)
};
// Reads chatTreeToJson's output (and the unversioned export of earlier Hearth versions, one
// branch). Errors name what is wrong.
Result<ImportedChat> parseChatJson(const QByteArray& bytes);
// Adds the chat to the store in one transaction. Returns its id.
Result<qint64> importChat(hearth::storage::ChatStore& store, const ImportedChat& chat);

// Writes the export to path; format "json" (all: every message of the chat), "markdown" or
// "text" (path: the selected branch). Returns an error text, or empty.
QString writeChatExport(const hearth::storage::Chat& chat,
                        const QList<hearth::storage::Message>& path,
                        const QList<hearth::storage::Message>& all, const QString& file,
                        const QString& format);

}  // namespace hearth::app
