#include "chat_types.h"

namespace hearth::storage {

QString roleName(Role role) {
    switch (role) {
        case Role::System:
            return QStringLiteral("system");
        case Role::User:
            return QStringLiteral("user");
        case Role::Assistant:
            return QStringLiteral("assistant");
    }
    return {};
}

std::optional<Role> roleFromName(const QString& name) {
    for (Role r : {Role::System, Role::User, Role::Assistant}) {
        if (roleName(r) == name) return r;
    }
    return std::nullopt;
}

QString statusName(MessageStatus status) {
    switch (status) {
        case MessageStatus::Complete:
            return QStringLiteral("complete");
        case MessageStatus::Streaming:
            return QStringLiteral("streaming");
        case MessageStatus::Interrupted:
            return QStringLiteral("interrupted");
    }
    return {};
}

std::optional<MessageStatus> statusFromName(const QString& name) {
    for (MessageStatus s :
         {MessageStatus::Complete, MessageStatus::Streaming, MessageStatus::Interrupted}) {
        if (statusName(s) == name) return s;
    }
    return std::nullopt;
}

QJsonObject GenerationStats::toJson() const {
    QJsonObject json;
    json[QStringLiteral("prompt_tokens")] = promptTokens;
    json[QStringLiteral("reused_tokens")] = reusedTokens;
    json[QStringLiteral("computed_tokens")] = computedTokens;
    json[QStringLiteral("generated_tokens")] = generatedTokens;
    json[QStringLiteral("prompt_tokens_per_second")] = promptTokensPerSecond;
    json[QStringLiteral("tokens_per_second")] = tokensPerSecond;
    json[QStringLiteral("ttft_ms")] = timeToFirstTokenMs;
    if (!stopReason.isEmpty()) json[QStringLiteral("stop_reason")] = stopReason;
    return json;
}

GenerationStats GenerationStats::fromJson(const QJsonObject& json) {
    GenerationStats s;
    s.promptTokens = json.value(QStringLiteral("prompt_tokens")).toInt();
    s.reusedTokens = json.value(QStringLiteral("reused_tokens")).toInt();
    s.computedTokens = json.value(QStringLiteral("computed_tokens")).toInt();
    s.generatedTokens = json.value(QStringLiteral("generated_tokens")).toInt();
    s.promptTokensPerSecond = json.value(QStringLiteral("prompt_tokens_per_second")).toDouble();
    s.tokensPerSecond = json.value(QStringLiteral("tokens_per_second")).toDouble();
    s.timeToFirstTokenMs = json.value(QStringLiteral("ttft_ms")).toDouble();
    s.stopReason = json.value(QStringLiteral("stop_reason")).toString();
    return s;
}

QString snippetToHtml(const QString& snippet, const SearchMarkers& markers) {
    QString html;
    html.reserve(snippet.size() + 32);
    qsizetype i = 0;
    while (i < snippet.size()) {
        if (!markers.open.isEmpty() && QStringView(snippet).mid(i).startsWith(markers.open)) {
            html += QStringLiteral("<b>");
            i += markers.open.size();
        } else if (!markers.close.isEmpty() &&
                   QStringView(snippet).mid(i).startsWith(markers.close)) {
            html += QStringLiteral("</b>");
            i += markers.close.size();
        } else {
            const QChar c = snippet.at(i++);
            if (c == u'<')
                html += QStringLiteral("&lt;");
            else if (c == u'>')
                html += QStringLiteral("&gt;");
            else if (c == u'&')
                html += QStringLiteral("&amp;");
            else if (c == u'"')
                html += QStringLiteral("&quot;");
            else
                html += c;
        }
    }
    return html;
}

}  // namespace hearth::storage
