// ChatStore: full-text search over message text (FTS5, kept in sync by triggers).
#include <QRegularExpression>

#include "chat_store.h"
#include "chat_store_rows.h"
#include "sqlite_db.h"

namespace hearth::storage {
namespace {

// snippet()'s window, in tokens (FTS5 allows at most 64).
constexpr int kSnippetTokens = 16;

bool hasWordCharacter(const QString& word) {
    for (QChar c : word) {
        if (c.isLetterOrNumber()) return true;
    }
    return false;
}

}  // namespace

QString ChatStore::toFtsQuery(const QString& text) {
    static const QRegularExpression whitespace(QStringLiteral("\\s+"));
    QStringList phrases;
    for (QString word : text.split(whitespace, Qt::SkipEmptyParts)) {
        // A word of only punctuation tokenizes to nothing and would make the AND match nothing.
        if (!hasWordCharacter(word)) continue;
        // Inside an FTS5 string, "" is a literal quote; everything else is literal already,
        // so AND/OR/NEAR, *, ^, : and - typed by the person are just text.
        word.replace(QLatin1Char('"'), QLatin1String("\"\""));
        phrases.append(QLatin1Char('"') + word + QLatin1String("\"*"));
    }
    return phrases.join(QLatin1Char(' '));
}

Result<QList<SearchHit>> ChatStore::search(const QString& query, int limit,
                                           const SearchMarkers& markers) {
    const QString fts = toFtsQuery(query);
    if (fts.isEmpty() || limit <= 0) return QList<SearchHit>{};
    auto stmt = m_db->prepare(
        "SELECT m.chat_id, m.id, c.title, m.role, snippet(messages_fts, 0, ?2, ?3, ?4, ?5) "
        "FROM messages_fts "
        "JOIN messages AS m ON m.id = messages_fts.rowid "
        "JOIN chats AS c ON c.id = m.chat_id "
        "WHERE messages_fts MATCH ?1 AND c.deleted_at IS NULL "
        "ORDER BY messages_fts.rank, m.id DESC LIMIT ?6");
    if (!stmt) return stmt.status();
    stmt->bind(1, fts).bind(2, markers.open).bind(3, markers.close).bind(4, markers.ellipsis);
    stmt->bind(5, kSnippetTokens).bind(6, limit);
    QList<SearchHit> hits;
    for (;;) {
        auto row = stmt->step();
        if (!row) return Result<QList<SearchHit>>::error("Search failed: " + row.error_message());
        if (!*row) break;
        SearchHit hit;
        hit.chatId = stmt->int64(0);
        hit.messageId = stmt->int64(1);
        hit.chatTitle = stmt->text(2);
        hit.role = roleFromName(stmt->text(3)).value_or(Role::User);
        hit.snippet = stmt->text(4);
        hits.append(hit);
    }
    return hits;
}

}  // namespace hearth::storage
