#include "message_model.h"

namespace hearth::app {

using hearth::storage::Message;
using hearth::storage::MessageStatus;
using hearth::storage::Role;

MessageModel::MessageModel(QObject* parent) : QAbstractListModel(parent) {}

int MessageModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_messages.size());
}

QString MessageModel::statsText(const hearth::storage::GenerationStats& s) {
    if (s.generatedTokens <= 0) return {};
    QString text =
        tr("%1 tokens · %2 tok/s").arg(s.generatedTokens).arg(s.tokensPerSecond, 0, 'f', 1);
    // The prompt: how much of it came from the cache and how much was computed this turn.
    if (s.promptTokens > 0)
        text += QStringLiteral(" · ") + tr("prompt %1 tokens: %2 reused, %3 computed at %4 tok/s")
                                            .arg(s.promptTokens)
                                            .arg(s.reusedTokens)
                                            .arg(s.computedTokens)
                                            .arg(s.promptTokensPerSecond, 0, 'f', 0);
    if (s.timeToFirstTokenMs > 0)
        text +=
            QStringLiteral(" · ") + tr("first token %1 ms").arg(s.timeToFirstTokenMs, 0, 'f', 0);
    return text;
}

QString MessageModel::stateOf(const Message& m) {
    if (m.role != Role::Assistant) return {};
    if (m.status == MessageStatus::Streaming) return QStringLiteral("streaming");
    if (m.status == MessageStatus::Interrupted) return QStringLiteral("interrupted");
    const QString& r = m.stats.stopReason;
    // A remote reply whose stream broke keeps its text, as one cut off by a crash.
    if (r == QLatin1String("interrupted")) return r;
    if (r == QLatin1String("stopped") || r == QLatin1String("length") ||
        r == QLatin1String("context-full") || r == QLatin1String("error"))
        return r;
    return {};
}

QVariant MessageModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Message& m = m_messages.at(index.row());
    switch (role) {
        case Qt::DisplayRole:
        case ContentRole:
            return m.content;
        case MessageIdRole:
            return m.id;
        case RoleRole:
            return hearth::storage::roleName(m.role);
        case StreamingRole:
            return m.status == MessageStatus::Streaming;
        case InterruptedRole:
            return m.status == MessageStatus::Interrupted;
        case SiblingIndexRole:
            return m.siblingIndex;
        case SiblingCountRole:
            return m.siblingCount;
        case StatsRole:
            return statsText(m.stats);
        case StateRole:
            return stateOf(m);
        case CanContinueRole: {
            const QString state = stateOf(m);
            return m.role == Role::Assistant &&
                   (state == QLatin1String("stopped") || state == QLatin1String("length") ||
                    state == QLatin1String("interrupted"));
        }
        default:
            return {};
    }
}

QHash<int, QByteArray> MessageModel::roleNames() const {
    return {{MessageIdRole, "messageId"},       {RoleRole, "role"},
            {ContentRole, "content"},           {StreamingRole, "streaming"},
            {InterruptedRole, "interrupted"},   {SiblingIndexRole, "siblingIndex"},
            {SiblingCountRole, "siblingCount"}, {StatsRole, "stats"},
            {StateRole, "replyState"},          {CanContinueRole, "canContinue"}};
}

void MessageModel::setMessages(const QList<Message>& messages) {
    const bool countChanges = messages.size() != m_messages.size();
    beginResetModel();
    m_messages = messages;
    endResetModel();
    if (countChanges) emit countChanged();
}

void MessageModel::clear() {
    setMessages({});
}

int MessageModel::indexOf(qint64 messageId) const {
    for (int i = static_cast<int>(m_messages.size()) - 1; i >= 0; --i)
        if (m_messages[i].id == messageId) return i;
    return -1;
}

void MessageModel::appendText(qint64 messageId, const QString& delta) {
    const int row = indexOf(messageId);
    if (row < 0 || delta.isEmpty()) return;
    m_messages[row].content += delta;
    const QModelIndex i = index(row);
    emit dataChanged(i, i, {ContentRole});
}

void MessageModel::updateMessage(const Message& message) {
    const int row = indexOf(message.id);
    if (row < 0) return;
    Message& m = m_messages[row];
    m.content = message.content;
    m.status = message.status;
    m.stats = message.stats;
    const QModelIndex i = index(row);
    emit dataChanged(
        i, i, {ContentRole, StreamingRole, InterruptedRole, StatsRole, StateRole, CanContinueRole});
}

QString MessageModel::lastAssistantText() const {
    for (int i = static_cast<int>(m_messages.size()) - 1; i >= 0; --i)
        if (m_messages[i].role == Role::Assistant) return m_messages[i].content;
    return {};
}

}  // namespace hearth::app
