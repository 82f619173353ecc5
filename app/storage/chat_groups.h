// The sidebar's date groups. Pure functions of (updated, now) so tests pin "now".
#pragma once

#include <QDateTime>
#include <QList>

#include "chat_types.h"

namespace hearth::storage {

enum class ChatGroup { Today, Yesterday, Previous7Days, Older };

// Calendar days in now's time zone: Today is now's date (or later, for a clock that moved
// back), Yesterday the day before, Previous 7 days 2 to 7 days ago, Older the rest.
ChatGroup chatGroup(const QDateTime& updated, const QDateTime& now);

struct ChatSection {
    ChatGroup group;
    QList<Chat> chats;
};

// Splits chats (already newest first, as ChatStore::listChats returns them) into non-empty
// sections in display order. Titles are the UI's job (they are translated there).
QList<ChatSection> groupChats(const QList<Chat>& chats, const QDateTime& now);

}  // namespace hearth::storage
