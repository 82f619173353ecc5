// ChatController: the chat list's housekeeping: rename, trash (delete, undo, restore, purge)
// and search.
#include <QDateTime>
#include <QHash>

#include <algorithm>
#include <utility>

#include "chat_controller.h"
#include "engine_worker.h"
#include "queued_call.h"
#include "store_thread.h"

namespace hearth::app {

using hearth::storage::ChatStore;

void ChatController::renameChat(qint64 chatId, const QString& rawTitle) {
    const QString title = rawTitle.simplified();
    if (!m_ready || title.isEmpty()) return;
    m_store->write([chatId, title](ChatStore& s) { return s.renameChat(chatId, title); });
    if (chatId == m_chatId) {
        m_chatTitle = title;
        emit currentChatChanged();
    }
    refreshChats();
}

void ChatController::refreshTrash() {
    if (!m_store) return;
    m_store->run(
        [](ChatStore& s) { return s.listTrash(); },
        [this](const Result<QList<hearth::storage::Chat>>& chats) {
            if (!chats) return;
            m_trash.clear();
            const QDateTime now = QDateTime::currentDateTimeUtc();
            for (const auto& c : *chats) {
                const qint64 days = ChatStore::kTrashKeepDays - c.deletedAt.daysTo(now);
                m_trash.append(QVariantMap{
                    {QStringLiteral("chatId"), c.id},
                    {QStringLiteral("title"), c.title.isEmpty() ? tr("Untitled chat") : c.title},
                    {QStringLiteral("deletedAt"), c.deletedAt.toMSecsSinceEpoch()},
                    {QStringLiteral("daysLeft"), std::max<qint64>(days, 0)}});
            }
            emit trashChanged();
        });
}

void ChatController::restoreChat(qint64 chatId) {
    if (!m_ready) return;
    if (chatId == m_undoChatId) {
        undoDelete();
        return;
    }
    m_store->write([chatId](ChatStore& s) { return s.restoreChat(chatId); });
    refreshChats();
    refreshTrash();
}

void ChatController::purgeChat(qint64 chatId) {
    if (!m_ready) return;
    if (chatId == m_undoChatId) {
        m_undoChatId = 0;
        m_undoTitle.clear();
        m_undoTimer.stop();
        emit undoChanged();
    }
    m_store->write([chatId](ChatStore& s) { return s.purgeChat(chatId); });
    refreshTrash();
}

void ChatController::emptyTrash() {
    if (!m_ready) return;
    m_undoChatId = 0;
    m_undoTitle.clear();
    m_undoTimer.stop();
    emit undoChanged();
    m_store->write([](ChatStore& s) {
        auto purged = s.purgeDeletedChats();
        return purged ? Status::ok() : purged.status();
    });
    refreshTrash();
}

void ChatController::deleteChat(qint64 chatId) {
    if (!m_ready) return;
    if (m_generating && m_replyChatId == chatId) stop();
    m_store->write([chatId](ChatStore& s) { return s.deleteChat(chatId); });
    m_undoChatId = chatId;
    m_undoTitle = m_chats->titleOf(chatId);
    if (m_undoTitle.isEmpty()) m_undoTitle = tr("Untitled chat");
    emit undoChanged();
    m_undoTimer.start();
    postQueued(m_worker.get(), [w = m_worker.get(), chatId] { w->forgetChat(chatId); });
    if (chatId == m_chatId) newChat();
    refreshChats();
    refreshTrash();
}

void ChatController::undoDelete() {
    if (m_undoChatId == 0) return;
    const qint64 id = std::exchange(m_undoChatId, 0);
    m_undoTitle.clear();
    m_undoTimer.stop();
    emit undoChanged();
    m_store->write([id](ChatStore& s) { return s.restoreChat(id); });
    refreshChats();
    refreshTrash();
    openChat(id);
}

void ChatController::search(const QString& query) {
    const qint64 serial = ++m_searchSerial;
    if (!m_ready || query.trimmed().isEmpty()) {
        m_searchResults.clear();
        emit searchResultsChanged();
        return;
    }
    m_store->run(
        [query](ChatStore& s) { return s.search(query, 30); },
        [this, serial](const Result<QList<hearth::storage::SearchHit>>& hits) {
            if (serial != m_searchSerial) return;  // a newer query is on its way
            m_searchResults.clear();
            if (hits) {
                // One entry per chat, in the order of each chat's best match.
                QList<qint64> order;
                QHash<qint64, QVariantMap> groups;
                for (const auto& h : *hits) {
                    if (!groups.contains(h.chatId)) {
                        order.append(h.chatId);
                        groups[h.chatId] = QVariantMap{{QStringLiteral("chatId"), h.chatId},
                                                       {QStringLiteral("title"), h.chatTitle},
                                                       {QStringLiteral("hits"), QVariantList()}};
                    }
                    QVariantMap& g = groups[h.chatId];
                    QVariantList list = g.value(QStringLiteral("hits")).toList();
                    list.append(QVariantMap{
                        {QStringLiteral("messageId"), h.messageId},
                        {QStringLiteral("role"), hearth::storage::roleName(h.role)},
                        {QStringLiteral("snippet"), hearth::storage::snippetToHtml(h.snippet)}});
                    g[QStringLiteral("hits")] = list;
                }
                for (qint64 id : order) m_searchResults.append(groups.value(id));
            }
            emit searchResultsChanged();
        });
}

}  // namespace hearth::app
