// The values ChatStore reads and writes: plain structs, copied freely between threads.
#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace hearth::storage {

enum class Role { System, User, Assistant };
enum class MessageStatus {
    Complete,     // finished normally (including a person pressing Stop)
    Streaming,    // being generated right now
    Interrupted,  // was streaming when the app died; holds the last checkpointed text
};

QString roleName(Role role);  // "system", "user", "assistant": the stored form
std::optional<Role> roleFromName(const QString& name);
QString statusName(MessageStatus status);
std::optional<MessageStatus> statusFromName(const QString& name);

// What the engine reports when a reply ends; stored as JSON so new fields need no migration.
struct GenerationStats {
    int promptTokens = 0;
    int reusedTokens = 0;    // of the prompt, taken from the KV cache this turn
    int computedTokens = 0;  // of the prompt, evaluated this turn
    int generatedTokens = 0;
    double promptTokensPerSecond = 0;
    double tokensPerSecond = 0;
    double timeToFirstTokenMs = 0;
    QString stopReason;  // e.g. "eos", "length", "stopped"

    QJsonObject toJson() const;
    static GenerationStats fromJson(const QJsonObject& json);
    bool operator==(const GenerationStats&) const = default;
};

// A named system prompt.
struct Preset {
    QString name;
    QString prompt;
};

struct Chat {
    qint64 id = 0;
    QString title;
    QDateTime createdAt;
    QDateTime updatedAt;
    QString modelPath;
    QString modelName;
    QString systemPrompt;
    QJsonObject samplingOverrides;  // only the settings this chat changes, e.g. {"temperature":0.2}
    qint64 selectedLeafId = 0;      // 0: no messages yet
    QDateTime deletedAt;            // when it went to the trash; invalid when not in it
};

struct Message {
    qint64 id = 0;
    qint64 chatId = 0;
    qint64 parentId = 0;  // 0 for a root message
    Role role = Role::User;
    QString content;
    QDateTime createdAt;
    GenerationStats stats;
    MessageStatus status = MessageStatus::Complete;
    // Place among the messages sharing this parent, for the ‹ 2/3 › switcher: index is 0-based
    // in creation order. Filled by ChatStore::selectedPath and pathTo.
    int siblingIndex = 0;
    int siblingCount = 1;
};

struct SearchHit {
    qint64 chatId = 0;
    qint64 messageId = 0;
    QString chatTitle;
    Role role = Role::User;
    // Text around the match; matched terms are wrapped in SearchMarkers (see snippetToHtml).
    QString snippet;
};

// Wraps matched terms in search snippets. The defaults are control characters that never occur
// in chat text, so the UI can escape the snippet safely before turning them into markup.
struct SearchMarkers {
    QString open = QStringLiteral("\x02");
    QString close = QStringLiteral("\x03");
    QString ellipsis = QStringLiteral("…");
};

// A snippet with the default markers as HTML: text escaped, matches in <b>...</b>.
QString snippetToHtml(const QString& snippet, const SearchMarkers& markers = {});

}  // namespace hearth::storage
