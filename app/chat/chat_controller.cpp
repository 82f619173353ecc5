// ChatController: chats, turns and streaming. Model loading is in chat_controller_model.cpp,
// per-chat settings and presets in chat_controller_settings.cpp, rename / trash / search in
// chat_controller_library.cpp.
#include "chat_controller.h"

#include <QClipboard>
#include <QDir>
#include <QEvent>
#include <QGuiApplication>
#include <QJsonObject>

#include "chat_export.h"
#include "connections.h"
#include "engine_worker.h"
#include "model_probe.h"
#include "queued_call.h"
#include "store_thread.h"

namespace hearth::app {

using hearth::storage::ChatStore;
using hearth::storage::Message;
using hearth::storage::MessageStatus;
using hearth::storage::Role;

// What a DB job hands back when a reply is about to be generated.
struct ChatController::Turn {
    QString error;
    qint64 chatId = 0;
    qint64 replyId = 0;
    QString title;
    QString systemPrompt;
    QJsonObject samplingOverrides;  // the chat's own sampling settings
    QList<Message> path;            // root → the new (empty, streaming) reply

    static Turn fail(const std::string& message) {
        Turn t;
        t.error = QString::fromStdString(message);
        return t;
    }

    // The chat's title, system prompt and selected path after a change, with replyId the
    // message being generated (0 when none).
    static Turn forChat(ChatStore& s, qint64 chatId, qint64 replyId) {
        auto chat = s.chat(chatId);
        if (!chat) return fail(chat.error_message());
        auto path = s.selectedPath(chatId);
        if (!path) return fail(path.error_message());
        Turn t;
        t.chatId = chatId;
        t.replyId = replyId;
        t.title = chat->title;
        t.systemPrompt = chat->systemPrompt;
        t.samplingOverrides = chat->samplingOverrides;
        t.path = *path;
        return t;
    }
    static Turn forChatOf(ChatStore& s, qint64 messageId, qint64 replyId) {
        auto msg = s.message(messageId);
        if (!msg) return fail(msg.error_message());
        return forChat(s, msg->chatId, replyId);
    }
};

namespace {

constexpr int kCheckpointMs = 1000;
constexpr int kUndoMs = 10000;

}  // namespace

// The global sampling with the chat's own values on top (keys as in AppSettings).
SamplingConfig withOverrides(SamplingConfig s, const QJsonObject& o) {
    auto num = [&](const char* key, auto& dst) {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isDouble()) dst = static_cast<std::decay_t<decltype(dst)>>(v.toDouble());
    };
    num("temperature", s.temperature);
    num("topK", s.topK);
    num("topP", s.topP);
    num("minP", s.minP);
    num("repeatPenalty", s.repeatPenalty);
    num("maxTokens", s.maxTokens);
    return s;
}

namespace {

QString titleFrom(const QString& text) {
    QString t = text.simplified();
    if (t.size() > 48) t = t.left(47) + QStringLiteral("…");
    return t;
}

}  // namespace

ChatController::ChatController(QObject* parent)
    : QObject(parent),
      m_chats(new ChatListModel(this)),
      m_messages(new MessageModel(this)),
      m_worker(std::make_unique<EngineWorker>()),
      m_connections(std::make_unique<Connections>()) {
    m_engineThread.setObjectName(QStringLiteral("hearth-engine"));
    m_worker->moveToThread(&m_engineThread);
    connect(m_worker.get(), &EngineWorker::loadProgress, this,
            [this](qint64 id, const QString& phase, double fraction, qint64 done, qint64 total) {
                if (id != m_loadId) return;
                m_loadPhase = phase;
                m_loadFraction = fraction;
                m_loadBytesText = tr("%1 of %2").arg(formatFileSize(done), formatFileSize(total));
                emit loadProgressChanged();
            });
    connect(m_worker.get(), &EngineWorker::int4CacheCleared, this, [this](qint64 freed) {
        m_int4CacheNote = tr("Freed %1.").arg(formatFileSize(freed));
        emit int4CacheCleared(freed);
    });
    connect(m_worker.get(), &EngineWorker::savedContextCleared, this, [this](qint64 freed) {
        refreshSavedContext();
        emit savedContextCleared(freed);
    });
    connect(m_worker.get(), &EngineWorker::modelLoaded, this, &ChatController::onModelLoaded);
    connect(m_worker.get(), &EngineWorker::apiServerChanged, this,
            &ChatController::onApiServerChanged);
    connect(&m_apiPoll, &QTimer::timeout, this, &ChatController::pollApiServer);
    connect(m_worker.get(), &EngineWorker::modelLoadFailed, this,
            &ChatController::onModelLoadFailed);
    connect(m_worker.get(), &EngineWorker::modelKept, this, &ChatController::onModelKept);
    connect(m_worker.get(), &EngineWorker::tokens, this, &ChatController::onTokens);
    connect(m_worker.get(), &EngineWorker::progress, this, &ChatController::onProgress);
    connect(m_worker.get(), &EngineWorker::finished, this, &ChatController::onFinished);
    connect(m_worker.get(), &EngineWorker::failed, this, &ChatController::onFailed);
    connect(m_worker.get(), &EngineWorker::templateNote, this, &ChatController::onTemplateNote);
    m_engineThread.start();

    m_checkpointTimer.setInterval(kCheckpointMs);
    connect(&m_checkpointTimer, &QTimer::timeout, this, &ChatController::checkpoint);
    m_undoTimer.setSingleShot(true);
    m_undoTimer.setInterval(kUndoMs);
    // The undo offer ends; the chat stays in the trash (Restore there) for 30 days.
    connect(&m_undoTimer, &QTimer::timeout, this, [this] {
        m_undoChatId = 0;
        m_undoTitle.clear();
        emit undoChanged();
    });
}

bool ChatController::event(QEvent* e) {
    if (e->type() == QEvent::MetaCall) {
        const QueuedFence seen;
    }
    return QObject::event(e);
}

ChatController::~ChatController() {
    m_worker->requestStop(std::numeric_limits<qint64>::max());
    m_worker->cancelLoad(std::numeric_limits<qint64>::max());
    // Everything already posted to the worker runs first; the wait is also the edge that tells
    // ThreadSanitizer the worker's last use of its state happens before it is destroyed here.
    callAndWait(m_worker.get(), [w = m_worker.get()] { w->releaseNetwork(); });
    m_engineThread.quit();
    m_engineThread.wait();
    m_worker.reset();
    // A reply cut off by closing keeps its text (the DB thread finishes every posted job).
    if (m_generating && m_store) {
        const qint64 id = m_replyId;
        const QString text = m_replyText;
        m_store->write([id, text](ChatStore& s) {
            if (text.trimmed().isEmpty()) return s.discardEmptyReply(id);
            hearth::storage::GenerationStats st;
            st.stopReason = QStringLiteral("stopped");
            return s.finishMessage(id, text, st);
        });
    }
    m_store.reset();
}

void ChatController::setDataDir(const QString& dir) {
    if (!m_dataDir.isEmpty() || dir.isEmpty()) return;
    m_dataDir = dir;
    QDir().mkpath(dir);
    m_settings = std::make_unique<AppSettings>(dir);
    m_connections->open(dir);
    if (!m_settings->loadProblem().isEmpty()) setError(m_settings->loadProblem());
    connect(m_settings.get(), &AppSettings::settingChanged, this,
            &ChatController::onSettingChanged);
    m_library = std::make_unique<ModelLibrary>(m_settings.get(), [this] {
        return m_modelState == QLatin1String("ready") ? m_modelInfo : QVariantMap();
    });
    const EngineConfig config = engineConfig();
    postQueued(m_worker.get(), [w = m_worker.get(), config] { w->setConfig(config); });
    applyApiServerSettings();
    refreshSavedContext();
    m_store = std::make_unique<StoreThread>();
    connect(m_store.get(), &StoreThread::writeFailed, this, [this](const QString& message) {
        setError(tr("Saving the chat failed: %1").arg(message));
    });
    m_store->open(dir, [this](const QString& error, const QString& notice) {
        if (!error.isEmpty()) {
            setError(error);
            emit errorOccurred(error);
            return;
        }
        if (!notice.isEmpty()) setNotice(notice);
        m_ready = true;
        emit readyChanged();
        refreshChats();
        refreshPresets();
        refreshTrash();
        if (m_pendingOpen != 0) openChat(std::exchange(m_pendingOpen, 0));
    });
    emit dataDirChanged();
}

void ChatController::refreshChats() {
    if (!m_store) return;
    m_store->run([](ChatStore& s) { return s.listChats(); },
                 [this](const Result<QList<hearth::storage::Chat>>& chats) {
                     if (chats) m_chats->setChats(*chats);
                 });
}

void ChatController::showPath(qint64 chatId, const QList<Message>& path, const QString& title) {
    const bool changed = chatId != m_chatId || title != m_chatTitle;
    const bool otherChat = chatId != m_chatId;
    m_chatId = chatId;
    m_chatTitle = title;
    m_messages->setMessages(path);
    if (otherChat) {
        m_droppedUpTo = 0;
        emit contextNoticeChanged();
        loadChatSettings();
    }
    if (changed) emit currentChatChanged();
}

// A reply being written keeps going when another chat is opened or a new one started (it
// lands in its own chat, and the sidebar shows it is still being written): stopping it
// silently would lose work the person asked for.
void ChatController::newChat() {
    m_messages->clear();
    clearHighlight();
    if (m_chatId != 0 || !m_chatTitle.isEmpty()) {
        m_chatId = 0;
        m_chatTitle.clear();
        m_droppedUpTo = 0;
        emit contextNoticeChanged();
        emit currentChatChanged();
    }
    loadChatSettings();
}

void ChatController::openChat(qint64 chatId) {
    if (!m_ready) {
        m_pendingOpen = chatId;
        return;
    }
    if (chatId != m_chatId) clearHighlight();
    m_store->run([chatId](ChatStore& s) { return Turn::forChat(s, chatId, 0); },
                 [this](const Turn& t) {
                     if (!t.error.isEmpty()) {
                         setError(tr("The chat could not be opened: %1").arg(t.error));
                         return;
                     }
                     QList<Message> path = t.path;
                     // A reply still streaming shows its live text, not the last checkpoint.
                     for (Message& m : path)
                         if (m_generating && m.id == m_replyId) m.content = m_replyText;
                     showPath(t.chatId, path, t.title);
                     emit chatOpened(t.chatId);
                 });
}

bool ChatController::canStartTurn() const {
    return m_ready && !m_generating && m_modelState == QLatin1String("ready");
}

bool ChatController::send(const QString& rawText) {
    const QString text = rawText.trimmed();
    if (text.isEmpty() || !canStartTurn()) return false;
    setGenerating(true);
    const qint64 chatId = m_chatId;
    const QString modelPath = m_modelInfo.value(QStringLiteral("path")).toString();
    const QString modelName = m_modelInfo.value(QStringLiteral("name")).toString();
    const QString systemPrompt = m_settings->value(QStringLiteral("systemPrompt")).toString();
    m_store->run(
        [=](ChatStore& s) {
            hearth::storage::Transaction tx = s.beginBatch();
            qint64 id = chatId;
            if (id == 0) {
                auto created =
                    s.createChat({titleFrom(text), modelPath, modelName, systemPrompt, {}});
                if (!created) return Turn::fail(created.error_message());
                id = *created;
            }
            auto chat = s.chat(id);
            if (!chat) return Turn::fail(chat.error_message());
            auto user = s.addMessage(id, chat->selectedLeafId, Role::User, text);
            if (!user) return Turn::fail(user.error_message());
            auto reply = s.beginAssistantMessage(*user);
            if (!reply) return Turn::fail(reply.error_message());
            Turn t = Turn::forChat(s, id, *reply);
            if (!t.error.isEmpty()) return t;
            if (Status c = tx.commit(); !c) return Turn::fail(c.message());
            return t;
        },
        [this](const Turn& t) { startGeneration(t); });
    return true;
}

bool ChatController::regenerate(qint64 assistantMessageId) {
    if (!canStartTurn()) return false;
    setGenerating(true);
    m_store->run(
        [assistantMessageId](ChatStore& s) {
            auto reply = s.regenerate(assistantMessageId);
            if (!reply) return Turn::fail(reply.error_message());
            return Turn::forChatOf(s, *reply, *reply);
        },
        [this](const Turn& t) { startGeneration(t); });
    return true;
}

bool ChatController::editMessage(qint64 userMessageId, const QString& rawText) {
    const QString text = rawText.trimmed();
    if (text.isEmpty() || !canStartTurn()) return false;
    setGenerating(true);
    m_store->run(
        [userMessageId, text](ChatStore& s) {
            hearth::storage::Transaction tx = s.beginBatch();
            auto user = s.editUserMessage(userMessageId, text);
            if (!user) return Turn::fail(user.error_message());
            auto reply = s.beginAssistantMessage(*user);
            if (!reply) return Turn::fail(reply.error_message());
            Turn t = Turn::forChatOf(s, *user, *reply);
            if (!t.error.isEmpty()) return t;
            if (Status c = tx.commit(); !c) return Turn::fail(c.message());
            return t;
        },
        [this](const Turn& t) { startGeneration(t); });
    return true;
}

bool ChatController::continueReply(qint64 assistantMessageId) {
    if (!canStartTurn()) return false;
    setGenerating(true);
    m_store->run(
        [assistantMessageId](ChatStore& s) {
            if (Status r = s.resumeReply(assistantMessageId); !r) return Turn::fail(r.message());
            return Turn::forChatOf(s, assistantMessageId, assistantMessageId);
        },
        [this](const Turn& t) { startGeneration(t); });
    return true;
}

void ChatController::startGeneration(const Turn& t) {
    if (!t.error.isEmpty()) {
        setGenerating(false);
        setError(tr("The message could not be saved: %1").arg(t.error));
        emit errorOccurred(t.error);
        return;
    }
    // The reply's chat is known from here (a new chat's id only now): set before the view
    // changes, so anything reacting to it sees where the reply goes.
    m_replyId = t.replyId;
    m_replyChatId = t.chatId;
    emit generatingChanged();
    clearHighlight();
    showPath(t.chatId, t.path, t.title);
    refreshChats();
    GenerationRequest request;
    request.requestId = ++m_requestId;
    request.chatId = t.chatId;
    m_requestMessageIds.clear();
    if (!t.systemPrompt.trimmed().isEmpty()) {
        request.messages.append({QStringLiteral("system"), t.systemPrompt});
        m_requestMessageIds.append(0);
    }
    m_continuePrefix.clear();
    for (const Message& m : t.path) {
        if (m.id == t.replyId) {
            m_continuePrefix = m.content;  // Continue: the text so far (empty for a new reply)
            break;
        }
        request.messages.append({hearth::storage::roleName(m.role), m.content});
        m_requestMessageIds.append(m.id);
    }
    request.continueText = m_continuePrefix;
    request.sampling = withOverrides(m_settings->samplingConfig(), t.samplingOverrides);
    m_replyText = m_continuePrefix;
    m_checkpointedLength = static_cast<int>(m_replyText.size());
    m_requestSent = true;
    if (std::exchange(m_stopBeforeStart, false)) m_worker->requestStop(request.requestId);
    postQueued(m_worker.get(), [w = m_worker.get(), request] { w->generate(request); });
    m_checkpointTimer.start();
}

void ChatController::stop() {
    if (!m_generating) return;
    // Before the request exists (the DB is still saving the message) the Stop waits for it.
    if (!m_requestSent) m_stopBeforeStart = true;
    m_worker->requestStop(m_requestId);
}

void ChatController::onTokens(qint64 requestId, const QString& delta) {
    if (requestId != m_requestId || !m_generating) return;
    m_replyText += delta;
    if (m_chatId == m_replyChatId) m_messages->appendText(m_replyId, delta);
}

void ChatController::onProgress(qint64 requestId, const GenerationReport& report) {
    if (requestId == m_requestId) setStatsFrom(report);
}

void ChatController::onFinished(qint64 requestId, const QString& text,
                                const GenerationReport& report) {
    if (requestId != m_requestId || !m_generating) return;
    finishReply(m_continuePrefix + text, report);
    if (report.stopReason == QLatin1String("interrupted"))
        setError(tr("The reply was cut off: %1 What arrived is kept; Continue writes on from it.")
                     .arg(report.interruption));
}

void ChatController::onFailed(qint64 requestId, const QString& message) {
    if (requestId != m_requestId || !m_generating) return;
    GenerationReport report;
    // A remote reply that already has text (a Continue whose server is down) stays
    // continuable: the failure was the network's, not the reply's.
    report.stopReason = modelIsRemote() && !m_replyText.trimmed().isEmpty()
                            ? QStringLiteral("interrupted")
                            : QStringLiteral("error");
    finishReply(m_replyText, report);
    setError(tr("The reply could not be generated: %1").arg(message));
    emit errorOccurred(message);
}

void ChatController::finishReply(const QString& text, const GenerationReport& report) {
    m_checkpointTimer.stop();
    m_requestSent = false;
    m_stopBeforeStart = false;
    hearth::storage::GenerationStats st;
    st.promptTokens = static_cast<int>(report.promptTokens);
    st.reusedTokens = static_cast<int>(report.reusedTokens);
    st.computedTokens = static_cast<int>(report.computedTokens);
    st.generatedTokens = static_cast<int>(report.generatedTokens);
    st.promptTokensPerSecond = report.promptTokensPerSecond;
    st.tokensPerSecond = report.tokensPerSecond;
    st.timeToFirstTokenMs = report.timeToFirstTokenMs;
    st.stopReason = report.stopReason;
    const qint64 id = m_replyId;
    m_lastReport = report;
    if (text.trimmed().isEmpty()) {
        // Nothing was written: not an answer, so nothing is stored as one.
        discardEmptyReply(id, m_replyChatId, report.stopReason);
        m_replyText.clear();
        m_continuePrefix.clear();
        setGenerating(false);
        refreshChats();
        emit replyFinished(id, report.stopReason);
        return;
    }
    m_store->write([id, text, st](ChatStore& s) { return s.finishMessage(id, text, st); });
    Message done;
    done.id = id;
    done.content = text;
    done.stats = st;
    done.status = MessageStatus::Complete;
    m_messages->updateMessage(done);
    if (report.generatedTokens > 0 || report.promptTokens > 0) setStatsFrom(report);
    if (m_replyChatId == m_chatId) {
        qint64 upTo = 0;
        for (int i : report.droppedMessages)
            if (i >= 0 && i < m_requestMessageIds.size()) upTo = m_requestMessageIds.at(i);
        if (upTo != m_droppedUpTo) {
            m_droppedUpTo = upTo;
            emit contextNoticeChanged();
        }
    }
    m_replyText.clear();
    m_continuePrefix.clear();
    setGenerating(false);
    refreshChats();
    emit replyFinished(id, report.stopReason);
}

void ChatController::discardEmptyReply(qint64 id, qint64 chatId, const QString& stopReason) {
    m_store->run(
        [id, chatId](ChatStore& s) {
            if (Status d = s.discardEmptyReply(id); !d) return Turn::fail(d.message());
            return Turn::forChat(s, chatId, 0);
        },
        [this](const Turn& t) {
            if (!t.error.isEmpty()) {
                setError(tr("Saving the chat failed: %1").arg(t.error));
                return;
            }
            if (t.chatId == m_chatId) showPath(t.chatId, t.path, t.title);
        });
    if (stopReason == QLatin1String("stopped"))
        setNotice(tr("Stopped before the reply began, so there is nothing to keep."));
    else if (stopReason == QLatin1String("context-full"))
        setError(
            tr("This chat fills the model's whole context, so there was no room for a "
               "reply. Start a new chat or raise the context length in Settings."));
    else if (stopReason != QLatin1String("error"))  // an error has its own message
        setNotice(tr("The model ended its reply without writing anything. Try Regenerate."));
}

void ChatController::checkpoint() {
    if (!m_generating || m_replyText.size() == m_checkpointedLength) return;
    m_checkpointedLength = static_cast<int>(m_replyText.size());
    const qint64 id = m_replyId;
    const QString text = m_replyText;
    m_store->write([id, text](ChatStore& s) { return s.checkpointMessage(id, text); });
}

void ChatController::switchBranch(qint64 messageId, int delta) {
    if (!m_ready || m_generating) return;
    m_store->run(
        [messageId, delta](ChatStore& s) {
            auto sibs = s.siblings(messageId);
            if (!sibs) return Turn::fail(sibs.error_message());
            const qsizetype at = sibs->indexOf(messageId);
            const qsizetype to = std::clamp<qsizetype>(at + delta, 0, sibs->size() - 1);
            if (auto sel = s.selectBranch(sibs->at(to)); !sel)
                return Turn::fail(sel.error_message());
            return Turn::forChatOf(s, messageId, 0);
        },
        [this](const Turn& t) {
            if (t.error.isEmpty()) showPath(t.chatId, t.path, t.title);
        });
}

void ChatController::openSearchResult(qint64 chatId, qint64 messageId) {
    if (!m_ready) return;
    // The branch that holds the message is selected (unless a reply is being written into
    // this chat: then its branch stays and the message is shown if it is on it).
    const bool keepBranch = m_generating && chatId == m_replyChatId;
    m_store->run(
        [chatId, messageId, keepBranch](ChatStore& s) {
            if (!keepBranch) {
                if (auto sel = s.selectBranch(messageId); !sel)
                    return Turn::fail(sel.error_message());
            }
            return Turn::forChat(s, chatId, 0);
        },
        [this, messageId](const Turn& t) {
            if (!t.error.isEmpty()) {
                setError(tr("The chat could not be opened: %1").arg(t.error));
                return;
            }
            QList<Message> path = t.path;
            for (Message& m : path)
                if (m_generating && m.id == m_replyId) m.content = m_replyText;
            m_highlightedId = messageId;  // before the view resets, so it does not jump to the end
            showPath(t.chatId, path, t.title);
            emit highlightChanged();
            emit chatOpened(t.chatId);
        });
}

void ChatController::clearHighlight() {
    if (m_highlightedId == 0) return;
    m_highlightedId = 0;
    emit highlightChanged();
}

void ChatController::copyText(const QString& text) {
    if (auto* clipboard = QGuiApplication::clipboard()) clipboard->setText(text);
}

void ChatController::copyLastAnswer() {
    copyText(m_messages->lastAssistantText());
}

void ChatController::setGenerating(bool on) {
    if (!on) m_stopBeforeStart = false;  // a Stop for this reply must not reach the next
    if (m_generating == on) return;
    m_generating = on;
    emit generatingChanged();
}

void ChatController::setNotice(const QString& message, bool isError) {
    if (m_notice == message && m_noticeIsError == isError) return;
    m_notice = message;
    m_noticeIsError = isError && !message.isEmpty();
    emit noticeChanged();
}

void ChatController::clearNotice() {
    setNotice({});
}

}  // namespace hearth::app
