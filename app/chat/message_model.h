// The messages of the selected branch of the open chat, root first, each with its place
// among its siblings for the ‹ 2/3 › switcher. A streaming reply grows through appendText.
// GUI thread only.
#pragma once

#include <QAbstractListModel>

#include "chat_types.h"

namespace hearth::app {

class MessageModel : public QAbstractListModel {
    Q_OBJECT
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)

public:
    enum Roles {
        MessageIdRole = Qt::UserRole + 1,  // qint64
        RoleRole,                          // QString: "user", "assistant", "system"
        ContentRole,                       // QString (Markdown for replies)
        StreamingRole,                     // bool: still being generated
        InterruptedRole,                   // bool: cut off by a crash
        SiblingIndexRole,                  // int, 0-based
        SiblingCountRole,                  // int
        StatsRole,                         // QString: "12.3 tok/s · 45 tokens", empty if none
        // QString: how the reply ended, "" for a normal end; "streaming", "stopped" (by the
        // person), "length" (the reply-length limit), "context-full", "error", "interrupted"
        // (Hearth closed or crashed while writing it).
        StateRole,
        CanContinueRole,  // bool: a reply that Continue can write on (stopped, length, interrupted)
    };
    // The state names above for a stored message.
    static QString stateOf(const hearth::storage::Message& message);

    explicit MessageModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    void setMessages(const QList<hearth::storage::Message>& messages);
    void clear();
    // Appends streamed text to the message (no-op when it is not shown).
    void appendText(qint64 messageId, const QString& delta);
    // Replaces a message in place (its final text, status and statistics).
    void updateMessage(const hearth::storage::Message& message);
    int indexOf(qint64 messageId) const;
    Q_INVOKABLE int indexOfMessage(qint64 messageId) const { return indexOf(messageId); }
    const QList<hearth::storage::Message>& messages() const { return m_messages; }
    Q_INVOKABLE QString lastAssistantText() const;

    static QString statsText(const hearth::storage::GenerationStats& stats);

signals:
    void countChanged();

private:
    QList<hearth::storage::Message> m_messages;
};

}  // namespace hearth::app
