#include "chat_export.h"

#include <QCoreApplication>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QSet>

namespace hearth::app {

using hearth::storage::Message;
using hearth::storage::MessageStatus;
using hearth::storage::Role;

namespace {

const char* who(Role role) {
    return role == Role::User ? "User" : role == Role::Assistant ? "Assistant" : "System";
}

bool emptyReply(const Message& m) {
    return m.role == Role::Assistant && m.content.trimmed().isEmpty();
}

}  // namespace

QString chatToMarkdown(const hearth::storage::Chat& chat, const QList<Message>& messages) {
    QString out = QStringLiteral("# %1\n\n").arg(chat.title);
    if (!chat.modelName.isEmpty()) out += QStringLiteral("*Model: %1*\n\n").arg(chat.modelName);
    if (!chat.systemPrompt.isEmpty())
        out += QStringLiteral("> **System:** %1\n\n").arg(chat.systemPrompt);
    for (const auto& m : messages) {
        if (emptyReply(m)) continue;
        out += QStringLiteral("## %1\n\n%2\n\n").arg(QLatin1String(who(m.role)), m.content);
    }
    return out;
}

QString chatToPlainText(const hearth::storage::Chat& chat, const QList<Message>& messages) {
    QString out;
    if (!chat.title.isEmpty()) out += chat.title + QStringLiteral("\n\n");
    if (!chat.systemPrompt.isEmpty())
        out += QStringLiteral("System: %1\n\n").arg(chat.systemPrompt);
    for (const auto& m : messages) {
        if (emptyReply(m)) continue;
        out += QStringLiteral("%1: %2\n\n").arg(QLatin1String(who(m.role)), m.content);
    }
    return out.trimmed() + QLatin1Char('\n');
}

QByteArray chatTreeToJson(const hearth::storage::Chat& chat, const QList<Message>& all) {
    QHash<qint64, int> fileId;  // store id -> 1..N
    QSet<qint64> dropped;
    QJsonArray list;
    int selected = 0;
    for (const Message& m : all) {  // oldest first: parents come before children
        if (emptyReply(m) || dropped.contains(m.parentId)) {
            dropped.insert(m.id);
            continue;
        }
        const int id = static_cast<int>(list.size()) + 1;
        fileId.insert(m.id, id);
        if (m.id == chat.selectedLeafId) selected = id;
        QJsonObject o{{QStringLiteral("id"), id},
                      {QStringLiteral("parent"),
                       m.parentId == 0 ? QJsonValue() : QJsonValue(fileId.value(m.parentId))},
                      {QStringLiteral("role"), hearth::storage::roleName(m.role)},
                      {QStringLiteral("content"), m.content},
                      {QStringLiteral("created"), m.createdAt.toString(Qt::ISODateWithMs)},
                      {QStringLiteral("status"), m.status == MessageStatus::Interrupted
                                                     ? QStringLiteral("interrupted")
                                                     : QStringLiteral("complete")}};
        if (m.role == Role::Assistant &&
            (m.stats.generatedTokens > 0 || !m.stats.stopReason.isEmpty()))
            o.insert(QStringLiteral("stats"), m.stats.toJson());
        list.append(o);
    }
    QJsonObject root{{QStringLiteral("format"), QLatin1String(kChatFormat)},
                     {QStringLiteral("version"), kChatFormatVersion},
                     {QStringLiteral("title"), chat.title},
                     {QStringLiteral("model"), chat.modelName},
                     {QStringLiteral("created"), chat.createdAt.toString(Qt::ISODateWithMs)},
                     {QStringLiteral("systemPrompt"), chat.systemPrompt},
                     {QStringLiteral("sampling"), chat.samplingOverrides},
                     {QStringLiteral("messages"), list}};
    if (selected > 0) root.insert(QStringLiteral("selected"), selected);
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

Result<ImportedChat> parseChatJson(const QByteArray& bytes) {
    using R = Result<ImportedChat>;
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    if (doc.isNull()) return R::error("not JSON: " + error.errorString().toStdString());
    if (!doc.isObject()) return R::error("not a Hearth chat (the file is not a JSON object)");
    const QJsonObject root = doc.object();
    const bool versioned = root.contains(QStringLiteral("format"));
    if (versioned) {
        if (root.value(QStringLiteral("format")).toString() != QLatin1String(kChatFormat))
            return R::error("not a Hearth chat (format is not \"hearth-chat\")");
        const QJsonValue v = root.value(QStringLiteral("version"));
        if (!v.isDouble() || v.toDouble() < 1 || v.toDouble() != std::floor(v.toDouble()))
            return R::error("the chat file has no valid version");
        if (v.toInt() > kChatFormatVersion)
            return R::error("the chat was exported by a newer Hearth (format version " +
                            std::to_string(v.toInt()) + "); update Hearth to import it");
    }
    const QJsonValue msgs = root.value(QStringLiteral("messages"));
    if (!msgs.isArray()) return R::error("not a Hearth chat (no \"messages\" list)");
    ImportedChat out;
    out.chat.title = root.value(QStringLiteral("title")).toString();
    out.chat.modelName = root.value(QStringLiteral("model")).toString();
    out.chat.systemPrompt = root.value(QStringLiteral("systemPrompt")).toString();
    out.chat.samplingOverrides = root.value(QStringLiteral("sampling")).toObject();
    QSet<qint64> seen;
    qint64 previous = 0;
    const QJsonArray list = msgs.toArray();
    for (qsizetype i = 0; i < list.size(); ++i) {
        const std::string where = "message " + std::to_string(i + 1);
        if (!list[i].isObject()) return R::error(where + " is not an object");
        const QJsonObject o = list[i].toObject();
        Message m;
        const auto role = hearth::storage::roleFromName(o.value(QStringLiteral("role")).toString());
        if (!role) return R::error(where + " has no valid role (system, user, assistant)");
        m.role = *role;
        if (!o.value(QStringLiteral("content")).isString())
            return R::error(where + " has no text (\"content\")");
        m.content = o.value(QStringLiteral("content")).toString();
        m.createdAt =
            QDateTime::fromString(o.value(QStringLiteral("created")).toString(), Qt::ISODateWithMs);
        m.stats =
            hearth::storage::GenerationStats::fromJson(o.value(QStringLiteral("stats")).toObject());
        if (versioned) {
            const QJsonValue id = o.value(QStringLiteral("id"));
            const QJsonValue parent = o.value(QStringLiteral("parent"));
            if (!id.isDouble() || id.toInteger() < 1 || seen.contains(id.toInteger()))
                return R::error(where + " has no id, or one used twice");
            m.id = id.toInteger();
            if (!parent.isNull() && !parent.isUndefined()) {
                if (!parent.isDouble() || !seen.contains(parent.toInteger()))
                    return R::error(where + " names a parent that does not come before it");
                m.parentId = parent.toInteger();
            }
            const QString status = o.value(QStringLiteral("status")).toString();
            m.status = status == QLatin1String("interrupted") ? MessageStatus::Interrupted
                                                              : MessageStatus::Complete;
        } else {  // earlier exports: the selected branch, one message after the other
            m.id = i + 1;
            m.parentId = previous;
        }
        seen.insert(m.id);
        previous = m.id;
        if (emptyReply(m)) continue;  // never an answer (children would be orphaned: refuse)
        out.messages.append(m);
    }
    // A message below a left-out empty reply would have no parent.
    QSet<qint64> kept;
    for (const Message& m : out.messages) kept.insert(m.id);
    for (const Message& m : out.messages)
        if (m.parentId != 0 && !kept.contains(m.parentId))
            return R::error("message " + std::to_string(m.id) + " follows an empty reply");
    out.selected = root.value(QStringLiteral("selected")).toInteger();
    if (out.selected != 0 && !kept.contains(out.selected)) out.selected = 0;
    if (out.chat.title.trimmed().isEmpty())
        out.chat.title = QCoreApplication::translate("ChatExport", "Imported chat");
    return out;
}

Result<qint64> importChat(hearth::storage::ChatStore& store, const ImportedChat& in) {
    hearth::storage::Transaction tx = store.beginBatch();
    auto chatId = store.createChat(in.chat);
    if (!chatId) return chatId.status();
    QHash<qint64, qint64> ids;  // file id -> store id
    qint64 newest = 0;
    for (const Message& m : in.messages) {
        auto id = store.importMessage(*chatId, m.parentId == 0 ? 0 : ids.value(m.parentId), m);
        if (!id) return id.status();
        ids.insert(m.id, *id);
        newest = *id;
    }
    if (newest != 0) {
        const qint64 leaf = in.selected != 0 ? ids.value(in.selected) : newest;
        auto selected = store.selectBranch(leaf);  // the newest leaf below it
        if (!selected) return selected.status();
    }
    if (Status s = tx.commit(); !s) return s;
    return chatId;
}

QString writeChatExport(const hearth::storage::Chat& chat, const QList<Message>& path,
                        const QList<Message>& all, const QString& file, const QString& format) {
    QByteArray bytes;
    if (format == QLatin1String("json"))
        bytes = chatTreeToJson(chat, all);
    else if (format == QLatin1String("markdown"))
        bytes = chatToMarkdown(chat, path).toUtf8();
    else if (format == QLatin1String("text"))
        bytes = chatToPlainText(chat, path).toUtf8();
    else
        return QStringLiteral("unknown export format %1").arg(format);
    QSaveFile out(file);
    if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size() || !out.commit())
        return out.errorString();
    return {};
}

}  // namespace hearth::app
