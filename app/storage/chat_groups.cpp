#include "chat_groups.h"

#include <QTimeZone>

namespace hearth::storage {

ChatGroup chatGroup(const QDateTime& updated, const QDateTime& now) {
    const QDate today = now.date();
    const QDate day = updated.toTimeZone(now.timeZone()).date();
    const qint64 daysAgo = day.daysTo(today);
    if (daysAgo <= 0) return ChatGroup::Today;
    if (daysAgo == 1) return ChatGroup::Yesterday;
    if (daysAgo <= 7) return ChatGroup::Previous7Days;
    return ChatGroup::Older;
}

QList<ChatSection> groupChats(const QList<Chat>& chats, const QDateTime& now) {
    QList<ChatSection> sections;
    for (const Chat& chat : chats) {
        const ChatGroup group = chatGroup(chat.updatedAt, now);
        // Input is sorted, so equal groups are adjacent; a new section starts on change.
        if (sections.isEmpty() || sections.last().group != group) sections.append({group, {}});
        sections.last().chats.append(chat);
    }
    return sections;
}

}  // namespace hearth::storage
