#include "chat_export.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace hearth::app {

using hearth::storage::Role;

QString chatToMarkdown(const hearth::storage::Chat& chat,
                       const QList<hearth::storage::Message>& messages) {
    QString out = QStringLiteral("# %1\n\n").arg(chat.title);
    if (!chat.modelName.isEmpty()) out += QStringLiteral("*Model: %1*\n\n").arg(chat.modelName);
    if (!chat.systemPrompt.isEmpty())
        out += QStringLiteral("> **System:** %1\n\n").arg(chat.systemPrompt);
    for (const auto& m : messages) {
        const char* who = m.role == Role::User        ? "User"
                          : m.role == Role::Assistant ? "Assistant"
                                                      : "System";
        out += QStringLiteral("## %1\n\n%2\n\n").arg(QLatin1String(who), m.content);
    }
    return out;
}

QByteArray chatToJson(const hearth::storage::Chat& chat,
                      const QList<hearth::storage::Message>& messages) {
    QJsonArray list;
    for (const auto& m : messages) {
        QJsonObject o{{QStringLiteral("role"), hearth::storage::roleName(m.role)},
                      {QStringLiteral("content"), m.content},
                      {QStringLiteral("created"), m.createdAt.toString(Qt::ISODateWithMs)}};
        if (m.role == Role::Assistant && m.stats.generatedTokens > 0)
            o.insert(QStringLiteral("stats"), m.stats.toJson());
        list.append(o);
    }
    QJsonObject root{{QStringLiteral("title"), chat.title},
                     {QStringLiteral("model"), chat.modelName},
                     {QStringLiteral("created"), chat.createdAt.toString(Qt::ISODateWithMs)},
                     {QStringLiteral("systemPrompt"), chat.systemPrompt},
                     {QStringLiteral("messages"), list}};
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

QString writeChatExport(const hearth::storage::Chat& chat,
                        const QList<hearth::storage::Message>& messages, const QString& path,
                        const QString& format) {
    QByteArray bytes;
    if (format == QLatin1String("json"))
        bytes = chatToJson(chat, messages);
    else if (format == QLatin1String("markdown"))
        bytes = chatToMarkdown(chat, messages).toUtf8();
    else
        return QStringLiteral("unknown export format %1").arg(format);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit())
        return file.errorString();
    return {};
}

}  // namespace hearth::app
