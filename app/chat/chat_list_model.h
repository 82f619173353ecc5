// The sidebar's chats, newest first, with a translated date-group `section` for ListView
// sections (Today / Yesterday / Previous 7 days / Older). GUI thread only.
#pragma once

#include <QAbstractListModel>
#include <QDateTime>
#include <functional>

#include "chat_types.h"

namespace hearth::app {

class ChatListModel : public QAbstractListModel {
    Q_OBJECT
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)

public:
    enum Roles {
        ChatIdRole = Qt::UserRole + 1,  // qint64
        TitleRole,                      // QString
        SectionRole,                    // QString, translated group name
        UpdatedRole,                    // QDateTime
        ModelNameRole,                  // QString
    };

    explicit ChatListModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    // Replaces the list (as ChatStore::listChats returns it), grouped against now.
    void setChats(const QList<hearth::storage::Chat>& chats);
    void setClock(std::function<QDateTime()> clock) { m_clock = std::move(clock); }
    Q_INVOKABLE int indexOf(qint64 chatId) const;
    Q_INVOKABLE QString titleOf(qint64 chatId) const;

signals:
    void countChanged();

private:
    struct Row {
        hearth::storage::Chat chat;
        QString section;
    };
    QList<Row> m_rows;
    std::function<QDateTime()> m_clock;
};

}  // namespace hearth::app
