#include "chat_list_model.h"

#include "chat_groups.h"

namespace hearth::app {

using hearth::storage::ChatGroup;

namespace {

QString groupTitle(ChatGroup group) {
    switch (group) {
        case ChatGroup::Today:
            return ChatListModel::tr("Today");
        case ChatGroup::Yesterday:
            return ChatListModel::tr("Yesterday");
        case ChatGroup::Previous7Days:
            return ChatListModel::tr("Previous 7 days");
        case ChatGroup::Older:
            return ChatListModel::tr("Older");
    }
    return {};
}

}  // namespace

ChatListModel::ChatListModel(QObject* parent)
    : QAbstractListModel(parent), m_clock([] { return QDateTime::currentDateTime(); }) {}

int ChatListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

QVariant ChatListModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = m_rows.at(index.row());
    switch (role) {
        case Qt::DisplayRole:
        case TitleRole:
            return row.chat.title;
        case ChatIdRole:
            return row.chat.id;
        case SectionRole:
            return row.section;
        case UpdatedRole:
            return row.chat.updatedAt;
        case ModelNameRole:
            return row.chat.modelName;
        default:
            return {};
    }
}

QHash<int, QByteArray> ChatListModel::roleNames() const {
    return {{ChatIdRole, "chatId"},
            {TitleRole, "title"},
            {SectionRole, "section"},
            {UpdatedRole, "updated"},
            {ModelNameRole, "modelName"}};
}

void ChatListModel::setChats(const QList<hearth::storage::Chat>& chats) {
    const QDateTime now = m_clock();
    QList<Row> rows;
    for (const auto& section : hearth::storage::groupChats(chats, now)) {
        const QString title = groupTitle(section.group);
        for (const auto& chat : section.chats) rows.append({chat, title});
    }
    const bool countChanges = rows.size() != m_rows.size();
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
    if (countChanges) emit countChanged();
}

int ChatListModel::indexOf(qint64 chatId) const {
    for (int i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].chat.id == chatId) return i;
    return -1;
}

QString ChatListModel::titleOf(qint64 chatId) const {
    const int i = indexOf(chatId);
    return i < 0 ? QString() : m_rows[i].chat.title;
}

}  // namespace hearth::app
