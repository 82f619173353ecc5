// ChatStore: opening, recovery, configuration and the chat-level operations. Message tree,
// streaming and search live in chat_store_messages.cpp and chat_store_search.cpp.
#include "chat_store.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>

#include <sqlite3.h>

#include "chat_store_rows.h"
#include "migrations.h"
#include "sqlite_db.h"

namespace hearth::storage {
namespace {

// How long a write waits for another connection's lock (e.g. a backup tool) before failing.
constexpr int kBusyTimeoutMs = 5000;

ChatStore::OpenResult failed(ChatStore::OpenFailure kind, std::string message) {
    ChatStore::OpenResult r;
    r.failure = kind;
    r.error = std::move(message);
    return r;
}

ChatStore::OpenResult failedFrom(Database& db, const std::string& what, const Status& s) {
    db.keepFilesOnClose();
    if (isCorruptionCode(db.lastErrorCode())) {
        return failed(ChatStore::OpenFailure::Corrupt,
                      what + ": the file is damaged or is not a database (" + s.message() + ")");
    }
    return failed(ChatStore::OpenFailure::Other, what + ": " + s.message());
}

// Connection settings. WAL lets readers run beside the writer and makes each commit one
// append; synchronous=NORMAL is durable against an app crash (a power cut may lose the last
// commits but never corrupts), which is the failure we promise about.
Status configure(Database& db) {
    sqlite3_busy_timeout(db.handle(), kBusyTimeoutMs);
    if (Status s = db.exec("PRAGMA foreign_keys = ON"); !s) return s;
    auto stmt = db.prepare("PRAGMA journal_mode = WAL");
    if (!stmt) return stmt.status();
    auto row = stmt->step();
    if (!row) return row.status();
    if (!*row || stmt->text(0).compare(QLatin1String("wal"), Qt::CaseInsensitive) != 0) {
        return Status::error("the database refused write-ahead logging (journal mode " +
                             (*row ? stmt->text(0).toStdString() : std::string("?")) + ")");
    }
    return db.exec("PRAGMA synchronous = NORMAL");
}

// quick_check reads every page (not the index cross-checks of integrity_check): milliseconds
// for a chat history, and it turns a truncated file into an error now instead of later.
Status quickCheck(Database& db) {
    auto stmt = db.prepare("PRAGMA quick_check(1)");
    if (!stmt) return stmt.status();
    auto row = stmt->step();
    if (!row) return row.status();
    const QString verdict = *row ? stmt->text(0) : QStringLiteral("no answer");
    if (verdict != QLatin1String("ok")) {
        return db.fail(SQLITE_CORRUPT, "the database is damaged (" + verdict.toStdString() + ")");
    }
    return Status::ok();
}

}  // namespace

QString ChatStore::databasePath(const QString& dataDir) {
    return QDir(dataDir).filePath(QStringLiteral("chats.db"));
}

ChatStore::ChatStore(std::unique_ptr<Database> db, QString path)
    : m_db(std::move(db)), m_path(std::move(path)) {}

ChatStore::~ChatStore() = default;

ChatStore::OpenResult ChatStore::open(const QString& path) {
    const QFileInfo info(path);
    if (!QDir().mkpath(info.absolutePath())) {
        return failed(OpenFailure::Other,
                      "Cannot create the folder " + info.absolutePath().toStdString());
    }
    // SQLite would say only "unable to open database file" (WAL needs its side files in the
    // folder) or fail at the first write; say what is wrong before anything is touched.
    const QFileInfo folder(info.absolutePath());
    if (!folder.isWritable()) {
        return failed(OpenFailure::ReadOnly,
                      "The folder " + info.absolutePath().toStdString() +
                          " is read-only, so Hearth cannot keep chats there. Make it writable "
                          "or choose another folder (--data-dir).");
    }
    if (info.exists() && !info.isWritable()) {
        return failed(OpenFailure::ReadOnly,
                      "The chat database " + path.toStdString() +
                          " is read-only. Make it writable or choose another folder "
                          "(--data-dir).");
    }
    return openExisting(path);
}

ChatStore::OpenResult ChatStore::openExisting(const QString& path) {
    const std::string where = "Cannot open the chat database " + path.toStdString();
    auto opened = Database::open(path, /*create=*/true);
    if (!opened) return failed(OpenFailure::Other, opened.error_message());
    Database& db = **opened;

    if (Status s = configure(db); !s) return failedFrom(db, where, s);
    if (Status s = quickCheck(db); !s) return failedFrom(db, where, s);

    auto found = readSchemaVersion(db);
    if (!found) return failedFrom(db, where, found.status());
    const int latest = latestSchemaVersion();
    if (found->compatible > latest) {
        return failed(OpenFailure::TooNew, tooNewMessage(*found, latest));
    }
    int version = found->version;
    if (version < latest) {
        auto steps = builtinMigrations();
        if (!steps) return failed(OpenFailure::Other, steps.error_message());
        auto reached = migrate(db, *steps, latest);
        if (!reached) return failedFrom(db, where, reached.status());
        version = *reached;
    }

    // Replies that were streaming when the app last died keep their last checkpoint.
    if (Status s = db.exec("UPDATE messages SET status = 'interrupted' "
                           "WHERE status = 'streaming'");
        !s) {
        return failedFrom(db, where, s);
    }
    const int interrupted = db.changes();

    OpenResult r;
    r.store.reset(new ChatStore(std::move(*opened), path));
    r.store->m_schemaVersion = version;
    r.store->m_interruptedOnOpen = interrupted;
    return r;
}

ChatStore::OpenResult ChatStore::openOrRecover(const QString& path) {
    OpenResult first = open(path);
    if (first || first.failure != OpenFailure::Corrupt) return first;

    // The connection is closed (first.store is null), so the files can move.
    const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-hhmmss"));
    QString aside = path + QStringLiteral(".corrupt-") + stamp;
    for (int n = 2; QFile::exists(aside); ++n) {
        aside = path + QStringLiteral(".corrupt-") + stamp + QLatin1Char('-') + QString::number(n);
    }
    if (!QFile::rename(path, aside)) {
        return failed(OpenFailure::Corrupt, first.error + "; moving it aside to " +
                                                aside.toStdString() + " failed as well");
    }
    // A stale write-ahead log must not be replayed into the fresh database.
    for (const char* suffix : {"-wal", "-shm"}) {
        const QString side = path + QLatin1String(suffix);
        if (QFile::exists(side) && !QFile::rename(side, aside + QLatin1String(suffix))) {
            QFile::remove(side);
        }
    }
    OpenResult fresh = open(path);
    if (!fresh) return fresh;
    fresh.movedAsidePath = aside;
    fresh.error = first.error;  // why the old file was set aside, for the person
    return fresh;
}

Transaction ChatStore::beginBatch() {
    return Transaction(*m_db);
}

qint64 ChatStore::nowMs() const {
    return (m_clock ? m_clock() : QDateTime::currentDateTimeUtc()).toMSecsSinceEpoch();
}

Status ChatStore::touchChat(qint64 chatId, qint64 whenMs) {
    auto stmt = m_db->prepare("UPDATE chats SET updated_at = max(updated_at, ?2) WHERE id = ?1");
    if (!stmt) return stmt.status();
    return stmt->bind(1, chatId).bind(2, whenMs).run();
}

Status ChatStore::setLeaf(qint64 chatId, qint64 leafId) {
    auto stmt = m_db->prepare("UPDATE chats SET selected_leaf_id = ?2 WHERE id = ?1");
    if (!stmt) return stmt.status();
    return stmt->bind(1, chatId).bind(2, leafId).run();
}

Result<qint64> ChatStore::createChat(const NewChat& c) {
    const qint64 now = nowMs();
    auto stmt = m_db->prepare(
        "INSERT INTO chats (title, created_at, updated_at, model_path, model_name, "
        "system_prompt, sampling_overrides) VALUES (?1, ?2, ?2, ?3, ?4, ?5, ?6)");
    if (!stmt) return stmt.status();
    stmt->bind(1, c.title).bind(2, now).bind(3, c.modelPath).bind(4, c.modelName);
    stmt->bind(5, c.systemPrompt).bind(6, jsonText(c.samplingOverrides));
    if (Status s = stmt->run(); !s)
        return Result<qint64>::error("Cannot create a chat: " + s.message());
    return m_db->lastInsertId();
}

Result<Chat> ChatStore::chat(qint64 chatId) {
    auto stmt = m_db->prepare("SELECT " HEARTH_CHAT_COLUMNS " FROM chats WHERE id = ?1");
    if (!stmt) return stmt.status();
    stmt->bind(1, chatId);
    auto row = stmt->step();
    if (!row) return row.status();
    if (!*row) return Result<Chat>::error("No chat with id " + std::to_string(chatId));
    return readChat(*stmt);
}

Result<QList<Chat>> ChatStore::listChats() {
    auto stmt = m_db->prepare("SELECT " HEARTH_CHAT_COLUMNS
                              " FROM chats WHERE deleted_at IS NULL "
                              "ORDER BY updated_at DESC, id DESC");
    if (!stmt) return stmt.status();
    QList<Chat> chats;
    for (;;) {
        auto row = stmt->step();
        if (!row) return row.status();
        if (!*row) break;
        chats.append(readChat(*stmt));
    }
    return chats;
}

Status ChatStore::updateChatField(const char* sql, qint64 chatId, const QString& value) {
    auto stmt = m_db->prepare(sql);
    if (!stmt) return stmt.status();
    if (Status s = stmt->bind(1, chatId).bind(2, value).run(); !s) return s;
    if (m_db->changes() == 0) return Status::error("No chat with id " + std::to_string(chatId));
    return Status::ok();
}

Status ChatStore::renameChat(qint64 chatId, const QString& title) {
    return updateChatField("UPDATE chats SET title = ?2 WHERE id = ?1", chatId, title);
}

Status ChatStore::setSystemPrompt(qint64 chatId, const QString& systemPrompt) {
    return updateChatField("UPDATE chats SET system_prompt = ?2 WHERE id = ?1", chatId,
                           systemPrompt);
}

Status ChatStore::setSamplingOverrides(qint64 chatId, const QJsonObject& overrides) {
    return updateChatField("UPDATE chats SET sampling_overrides = ?2 WHERE id = ?1", chatId,
                           jsonText(overrides));
}

Status ChatStore::setChatModel(qint64 chatId, const QString& modelPath, const QString& modelName) {
    auto stmt = m_db->prepare("UPDATE chats SET model_path = ?2, model_name = ?3 WHERE id = ?1");
    if (!stmt) return stmt.status();
    if (Status s = stmt->bind(1, chatId).bind(2, modelPath).bind(3, modelName).run(); !s) return s;
    if (m_db->changes() == 0) return Status::error("No chat with id " + std::to_string(chatId));
    return Status::ok();
}

Status ChatStore::deleteChat(qint64 chatId) {
    auto stmt =
        m_db->prepare("UPDATE chats SET deleted_at = ?2 WHERE id = ?1 AND deleted_at IS NULL");
    if (!stmt) return stmt.status();
    if (Status s = stmt->bind(1, chatId).bind(2, nowMs()).run(); !s) return s;
    if (m_db->changes() == 0) {
        return Status::error("No chat with id " + std::to_string(chatId) + " to delete");
    }
    return Status::ok();
}

Status ChatStore::restoreChat(qint64 chatId) {
    auto stmt = m_db->prepare(
        "UPDATE chats SET deleted_at = NULL WHERE id = ?1 AND deleted_at IS NOT NULL");
    if (!stmt) return stmt.status();
    if (Status s = stmt->bind(1, chatId).run(); !s) return s;
    if (m_db->changes() == 0) {
        return Status::error("Chat " + std::to_string(chatId) +
                             " is not in the trash (already purged?)");
    }
    return Status::ok();
}

Result<QList<Chat>> ChatStore::listTrash() {
    auto stmt = m_db->prepare("SELECT " HEARTH_CHAT_COLUMNS
                              " FROM chats WHERE deleted_at IS NOT NULL "
                              "ORDER BY deleted_at DESC, id DESC");
    if (!stmt) return stmt.status();
    QList<Chat> chats;
    for (;;) {
        auto row = stmt->step();
        if (!row) return row.status();
        if (!*row) break;
        chats.append(readChat(*stmt));
    }
    return chats;
}

Result<int> ChatStore::purgeDeletedChats(qint64 deletedBeforeMs) {
    // One statement: the cascade removes the messages, and their triggers the search index.
    auto stmt = m_db->prepare("DELETE FROM chats WHERE deleted_at IS NOT NULL AND deleted_at < ?1");
    if (!stmt) return stmt.status();
    if (Status s = stmt->bind(1, deletedBeforeMs).run(); !s) {
        return Result<int>::error("Cannot empty the trash: " + s.message());
    }
    return m_db->changes();
}

Result<int> ChatStore::purgeExpiredTrash() {
    constexpr qint64 kKeepMs = qint64(kTrashKeepDays) * 24 * 60 * 60 * 1000;
    return purgeDeletedChats(nowMs() - kKeepMs);
}

Status ChatStore::purgeChat(qint64 chatId) {
    auto stmt = m_db->prepare("DELETE FROM chats WHERE id = ?1 AND deleted_at IS NOT NULL");
    if (!stmt) return stmt.status();
    if (Status s = stmt->bind(1, chatId).run(); !s) return s;
    if (m_db->changes() == 0)
        return Status::error("Chat " + std::to_string(chatId) + " is not in the trash");
    return Status::ok();
}

Result<QString> ChatStore::integrityCheck() {
    auto stmt = m_db->prepare("PRAGMA integrity_check");
    if (!stmt) return stmt.status();
    QStringList lines;
    for (;;) {
        auto row = stmt->step();
        if (!row) return row.status();
        if (!*row) break;
        lines.append(stmt->text(0));
    }
    return lines.join(QLatin1Char('\n'));
}

}  // namespace hearth::storage
