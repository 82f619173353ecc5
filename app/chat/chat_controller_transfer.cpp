// ChatController: export, import and copying a whole conversation.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>

#include "chat_controller.h"
#include "chat_export.h"
#include "store_thread.h"

namespace hearth::app {

using hearth::storage::ChatStore;

void ChatController::exportChat(qint64 chatId, const QUrl& file, const QString& format) {
    if (!m_ready) return;
    const QString path = file.isLocalFile() ? file.toLocalFile() : file.toString();
    m_store->run(
        [chatId, path, format](ChatStore& s) -> QString {
            auto chat = s.chat(chatId);
            if (!chat) return QString::fromStdString(chat.error_message());
            auto branch = s.selectedPath(chatId);
            if (!branch) return QString::fromStdString(branch.error_message());
            auto all = s.allMessages(chatId);
            if (!all) return QString::fromStdString(all.error_message());
            return writeChatExport(*chat, *branch, *all, path, format);
        },
        [this, path](const QString& error) {
            if (error.isEmpty())
                setNotice(tr("Chat exported to %1").arg(path));
            else
                setError(tr("The chat could not be exported: %1").arg(error));
        });
}

QString ChatController::exportFileName(qint64 chatId, const QString& format) const {
    QString title = m_chats->titleOf(chatId);
    if (chatId == m_chatId && !m_chatTitle.isEmpty()) title = m_chatTitle;
    // Letters, digits and a few marks survive; the rest (slashes, colons, ...) become '-'.
    static const QRegularExpression unsafe(QStringLiteral("[^\\w\\- .()]+"));
    title = title.replace(unsafe, QStringLiteral("-")).simplified().left(60).trimmed();
    if (title.isEmpty()) title = tr("chat");
    const QString ext = format == QLatin1String("markdown") ? QStringLiteral("md")
                        : format == QLatin1String("text")   ? QStringLiteral("txt")
                                                            : QStringLiteral("json");
    return title + QLatin1Char('.') + ext;
}

QString ChatController::defaultExportFolder() const {
    const QString docs = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    return !docs.isEmpty() && QFileInfo(docs).isDir() ? docs : QDir::homePath();
}

bool ChatController::fileExists(const QString& path) const {
    return QFileInfo(path).isFile();
}

void ChatController::importChat(const QUrl& file) {
    if (!m_ready) return;
    const QString path = file.isLocalFile() ? file.toLocalFile() : file.toString();
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        setError(tr("The chat could not be imported: %1").arg(f.errorString()));
        return;
    }
    auto parsed = parseChatJson(f.read(64 << 20));
    if (!parsed) {
        setError(tr("The chat could not be imported: %1")
                     .arg(QString::fromStdString(parsed.error_message())));
        return;
    }
    ImportedChat chat = std::move(*parsed);
    m_store->run([chat](ChatStore& s) { return hearth::app::importChat(s, chat); },
                 [this](const Result<qint64>& id) {
                     if (!id) {
                         setError(tr("The chat could not be imported: %1")
                                      .arg(QString::fromStdString(id.error_message())));
                         return;
                     }
                     refreshChats();
                     openChat(*id);
                     setNotice(tr("Chat imported."));
                     emit chatImported(*id);
                 });
}

void ChatController::copyConversation() {
    hearth::storage::Chat chat;
    chat.title = m_chatTitle;
    chat.systemPrompt = m_chatSettings.value(QStringLiteral("systemPrompt")).toString();
    copyText(chatToPlainText(chat, m_messages->messages()));
}

}  // namespace hearth::app
