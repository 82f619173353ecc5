// ChatStore: the chat history in SQLite (<data dir>/chats.db). Chats hold messages as a tree
// (parent id), so edits and regenerations keep every branch, and each chat remembers the leaf
// of its selected branch. Every public call is one transaction: it happens completely or not
// at all, and failures come back as values, never exceptions or crashes.
//
// Threading: a ChatStore is NOT thread-safe. The app creates it, calls it and destroys it on
// one DB thread (a QThread owned by the controller); other threads talk to that thread with
// queued signals. It is a plain class (no QObject, no QML) so it can live anywhere.
#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <functional>
#include <limits>
#include <memory>

#include "chat_types.h"
#include "hearth/result.h"
#include "transaction.h"

namespace hearth::storage {

class Database;

class ChatStore {
public:
    enum class OpenFailure {
        None,
        Corrupt,   // not a database, or damaged: openOrRecover moves it aside
        TooNew,    // written by a newer Hearth: left alone, the person must update
        ReadOnly,  // the folder or the file cannot be written
        Other,     // I/O, permissions, a foreign SQLite file, ...
    };
    struct OpenResult {
        std::unique_ptr<ChatStore> store;  // null on failure
        OpenFailure failure = OpenFailure::None;
        std::string error;       // what went wrong, for a person
        QString movedAsidePath;  // openOrRecover: where the broken file went (else empty)
        explicit operator bool() const { return store != nullptr; }
    };

    // "<dataDir>/chats.db".
    static QString databasePath(const QString& dataDir);

    // Opens or creates the database, upgrades its schema, and marks replies left streaming by
    // a crash as interrupted (their last checkpointed text is kept). Runs a quick integrity
    // check, so a damaged file is reported here rather than midway through a session.
    static OpenResult open(const QString& path);
    // open(); if the file is corrupt, renames it (and its -wal/-shm) to
    // "<path>.corrupt-<yyyyMMdd-hhmmss>" and starts a fresh database. A too-new database is
    // never moved. The caller should tell the person where the old file went.
    static OpenResult openOrRecover(const QString& path);

    ~ChatStore();
    ChatStore(const ChatStore&) = delete;
    ChatStore& operator=(const ChatStore&) = delete;

    QString path() const { return m_path; }
    int schemaVersion() const { return m_schemaVersion; }
    // How many streaming replies open() found and marked interrupted.
    int interruptedOnOpen() const { return m_interruptedOnOpen; }

    // Groups several calls into one transaction (each call then becomes a savepoint). Commit
    // it; if it dies uncommitted, everything since is rolled back.
    Transaction beginBatch();

    // --- Chats -----------------------------------------------------------------------------
    struct NewChat {
        QString title;
        QString modelPath;
        QString modelName;
        QString systemPrompt;
        QJsonObject samplingOverrides;
    };
    Result<qint64> createChat(const NewChat& chat);
    Result<Chat> chat(qint64 chatId);
    // Chats not in the trash, most recently updated first.
    Result<QList<Chat>> listChats();
    Status renameChat(qint64 chatId, const QString& title);
    Status setChatModel(qint64 chatId, const QString& modelPath, const QString& modelName);
    Status setSystemPrompt(qint64 chatId, const QString& systemPrompt);
    Status setSamplingOverrides(qint64 chatId, const QJsonObject& overrides);

    // Moves a chat to the trash: it vanishes from lists and search until restoreChat (undo,
    // or Restore in the trash) or purgeDeletedChats removes it for good. The app purges chats
    // that have been in the trash longer than kTrashKeepDays at startup (purgeExpiredTrash).
    Status deleteChat(qint64 chatId);
    Status restoreChat(qint64 chatId);
    // Chats in the trash (deletedAt set), most recently deleted first.
    Result<QList<Chat>> listTrash();
    // Permanently removes trashed chats (with their messages) deleted before deletedBeforeMs
    // (milliseconds since the epoch; the default: all of them). Returns how many.
    Result<int> purgeDeletedChats(qint64 deletedBeforeMs = std::numeric_limits<qint64>::max());
    // Removes one chat from the trash for good (not a chat outside the trash).
    Status purgeChat(qint64 chatId);
    // purgeDeletedChats for the chats trashed more than kTrashKeepDays ago (by the clock).
    static constexpr int kTrashKeepDays = 30;
    Result<int> purgeExpiredTrash();

    // --- Messages: the tree ----------------------------------------------------------------
    // Adds a complete message under parentId (0: a root) and selects it as the chat's leaf.
    Result<qint64> addMessage(qint64 chatId, qint64 parentId, Role role, const QString& content);
    Result<Message> message(qint64 messageId);
    // Root → leaf of the chat's selected branch (empty for a chat without messages).
    Result<QList<Message>> selectedPath(qint64 chatId);
    // Root → the given message.
    Result<QList<Message>> pathTo(qint64 messageId);
    // Ids of the messages sharing this one's parent (itself included), oldest first.
    Result<QList<qint64>> siblings(qint64 messageId);
    // Selects the newest leaf below messageId (itself if it has no children), e.g. after the
    // person picks another sibling in ‹ 2/3 ›. Returns the leaf selected.
    Result<qint64> selectBranch(qint64 messageId);
    // Edits a user message by adding a sibling with the new text (the old branch stays).
    // Returns the new message, now the selected leaf; the app then generates a reply to it.
    Result<qint64> editUserMessage(qint64 messageId, const QString& newContent);

    // --- Streaming replies -----------------------------------------------------------------
    // Starts an empty assistant reply under parentId, status streaming, selected.
    Result<qint64> beginAssistantMessage(qint64 parentId);
    // Regenerates: starts a new streaming assistant sibling of an assistant message.
    Result<qint64> regenerate(qint64 assistantMessageId);
    // Saves the text so far (the whole text, or a piece to add). The app calls one of these
    // about once a second; a crash loses at most what came after the last call.
    Status checkpointMessage(qint64 messageId, const QString& fullContent);
    Status appendToMessage(qint64 messageId, const QString& delta);
    // Ends a streaming reply with its final text and statistics; status becomes complete.
    Status finishMessage(qint64 messageId, const QString& finalContent,
                         const GenerationStats& stats);
    // A reply that ended without any text (stopped before its first token, failed) is not an
    // answer: removes that assistant leaf and selects the newest branch left under its parent.
    // Refused for a message with text, with replies below it, or not from the assistant.
    Status discardEmptyReply(qint64 messageId);
    // Continue: reopens a finished or interrupted assistant leaf for streaming, keeping its
    // text (the app appends to it and finishes it again).
    Status resumeReply(qint64 messageId);

    // --- Whole chats (export / import) -------------------------------------------------------
    // Every message of the chat, all branches, oldest first (siblingIndex/Count filled).
    Result<QList<Message>> allMessages(qint64 chatId);
    // Adds a finished message as it was (its time, text, statistics, status complete or
    // interrupted) under parentId (0: a root) without touching the selected branch.
    Result<qint64> importMessage(qint64 chatId, qint64 parentId, const Message& message);
    // Selects a leaf of the chat as its branch (import; the leaf must belong to the chat).
    Status selectLeaf(qint64 chatId, qint64 leafId);

    // --- Search ----------------------------------------------------------------------------
    // Full-text search over message text (all branches) of chats not in the trash, best match
    // first. Words in `query` must all occur (prefix match: "tok" finds "tokens"); quotes and
    // operators are taken literally, so any text is a valid query.
    Result<QList<SearchHit>> search(const QString& query, int limit = 50,
                                    const SearchMarkers& markers = {});
    // The FTS5 query search() runs for a person's text: each word quoted as a prefix phrase,
    // words without letters or digits dropped. Empty when nothing is left to search for.
    static QString toFtsQuery(const QString& text);

    // --- System prompt presets (schema 4) ----------------------------------------------------
    // By name. Saving an existing name replaces its prompt; names are trimmed, never empty.
    Result<QList<Preset>> listPresets();
    Status savePreset(const QString& name, const QString& prompt);
    Status deletePreset(const QString& name);

    // For tests and diagnostics: PRAGMA integrity_check's verdict, "ok" when healthy.
    Result<QString> integrityCheck();
    // The clock used for timestamps; tests pin it.
    void setClock(std::function<QDateTime()> clock) { m_clock = std::move(clock); }

private:
    explicit ChatStore(std::unique_ptr<Database> db, QString path);
    static OpenResult openExisting(const QString& path);
    qint64 nowMs() const;
    Status touchChat(qint64 chatId, qint64 whenMs);
    Status setLeaf(qint64 chatId, qint64 leafId);
    Result<qint64> insertMessage(qint64 chatId, qint64 parentId, Role role, const QString& content,
                                 MessageStatus status);
    Result<qint64> chatOfMessage(qint64 messageId);
    Result<qint64> newestLeafBelow(qint64 messageId);
    Result<QList<Message>> pathFrom(qint64 leafId);
    Status updateChatField(const char* sql, qint64 chatId, const QString& value);
    Status updateStreaming(qint64 messageId, const char* sql, const QString& text);

    std::unique_ptr<Database> m_db;
    QString m_path;
    int m_schemaVersion = 0;
    int m_interruptedOnOpen = 0;
    std::function<QDateTime()> m_clock;
};

}  // namespace hearth::storage
