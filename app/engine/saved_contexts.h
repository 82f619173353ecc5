// SavedContexts: the chats' KV caches on disk, next to the database ("<data dir>/kv"), so a
// chat reopened after an eviction, a model reload or a restart continues without re-reading
// its history. One file per chat, model identity and KV type
// ("chat-<id>-<model key>-<kv type>.hkv", written by the engine: temporary file + rename,
// checksummed) with a small JSON beside it naming the messages it holds. A file is only used
// when the messages it was made from are still the start of the chat (a reply may be
// regenerated); a file for another model or KV type, a damaged one, or one whose messages
// changed is deleted, never trusted. The folder is kept under a byte limit, least recently
// used files deleted first. Used on the engine thread only.
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

namespace hearth::app {

class SavedContexts {
public:
    SavedContexts(QString dir, qint64 limitBytes);

    // Identifies one message for the tree check (role and text).
    static QByteArray messageKey(const QString& role, const QString& content);
    // A short stable name for a model identity (hearth::KvStore::model_identity()).
    static QString modelKey(const std::string& identity);

    QString dir() const { return m_dir; }
    void setLimit(qint64 bytes) { m_limit = bytes; }
    QString pathFor(qint64 chatId, const QString& modelKey, const QString& kvType) const;

    // Records which messages the file at path (just written) holds, then keeps the folder
    // under the limit.
    bool recordSaved(const QString& path, const QList<QByteArray>& messages);
    // The file to restore for a chat whose conversation is now `messages`, if there is one
    // that fits; a file that no longer fits is deleted, and so are the chat's files for other
    // models or KV types. why: what was wrong, for the log.
    std::optional<QString> find(qint64 chatId, const QString& modelKey, const QString& kvType,
                                const QList<QByteArray>& messages, QString* why = nullptr);
    // Marks the file as used now (the limit deletes least recently used first).
    static void touch(const QString& path);
    static void remove(const QString& path);
    void removeChat(qint64 chatId);
    qint64 totalBytes() const;
    // Deletes every saved context; returns the bytes freed.
    qint64 clear();
    void enforceLimit();

private:
    QString m_dir;
    qint64 m_limit = 0;
};

}  // namespace hearth::app
