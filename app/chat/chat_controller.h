// ChatController: what QML talks to. Owns the settings, the list models (GUI thread only),
// the DB thread (StoreThread) and the engine thread (EngineWorker). Every call returns at once;
// results arrive through properties and signals.
#pragma once

#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QThread>
#include <QTimer>
#include <QUrl>
#include <QVariantList>
#include <QVariantMap>

#include <memory>

#include "app_settings.h"
#include "chat_list_model.h"
#include "connections.h"
#include "engine_types.h"
#include "message_model.h"
#include "model_library.h"

namespace hearth::app {

class EngineWorker;

// The global sampling with a chat's overrides ({"temperature": 0.2, ...}) on top.
SamplingConfig withOverrides(SamplingConfig s, const QJsonObject& overrides);
class StoreThread;

class ChatController : public QObject {
    Q_OBJECT
    Q_PROPERTY(QString dataDir READ dataDir WRITE setDataDir NOTIFY dataDirChanged)
    Q_PROPERTY(bool ready READ ready NOTIFY readyChanged)
    Q_PROPERTY(hearth::app::AppSettings* settings READ settings NOTIFY dataDirChanged)
    Q_PROPERTY(hearth::app::ChatListModel* chats READ chats CONSTANT)
    Q_PROPERTY(hearth::app::MessageModel* messages READ messages CONSTANT)
    // The models in the chosen folders and the recent ones, with the fit estimate.
    Q_PROPERTY(hearth::app::ModelLibrary* library READ library NOTIFY dataDirChanged)
    // "none", "loading" or "ready".
    Q_PROPERTY(QString modelState READ modelState NOTIFY modelChanged)
    Q_PROPERTY(double loadFraction READ loadFraction NOTIFY loadProgressChanged)
    Q_PROPERTY(QString loadBytesText READ loadBytesText NOTIFY loadProgressChanged)
    // "converting" (making 4-bit weights) or "loading"; loadText: "Loading… 40%" etc.
    Q_PROPERTY(QString loadPhase READ loadPhase NOTIFY loadProgressChanged)
    Q_PROPERTY(QString loadText READ loadText NOTIFY loadProgressChanged)
    // What the last "Clear 4-bit cache" did (empty until then).
    Q_PROPERTY(QString int4CacheNote READ int4CacheNote NOTIFY int4CacheCleared)
    // The chats' saved KV caches on disk ("<data dir>/kv"): "1.2 GB" (refreshed by
    // refreshSavedContext() and after clearSavedContext()).
    Q_PROPERTY(QString savedContextText READ savedContextText NOTIFY savedContextChanged)
    // name, path, fileBytes, sizeText, architecture, backend, device, backends[], backendTip...
    Q_PROPERTY(QVariantMap modelInfo READ modelInfo NOTIFY modelChanged)
    Q_PROPERTY(QString modelError READ modelError NOTIFY modelErrorChanged)
    // The last load was refused by the fit check: loadModelAnyway() loads it regardless.
    Q_PROPERTY(bool modelTooLarge READ modelTooLarge NOTIFY modelErrorChanged)
    Q_PROPERTY(QString templateNote READ templateNote NOTIFY templateNoteChanged)
    Q_PROPERTY(bool reloadNeeded READ reloadNeeded NOTIFY reloadNeededChanged)
    // The settings changed since the model was loaded that apply on reload ("backend",
    // "int4Weights"), in the order they were changed.
    Q_PROPERTY(QStringList reloadSettings READ reloadSettings NOTIFY reloadNeededChanged)
    Q_PROPERTY(bool generating READ generating NOTIFY generatingChanged)
    Q_PROPERTY(qint64 currentChatId READ currentChatId NOTIFY currentChatChanged)
    Q_PROPERTY(QString currentChatTitle READ currentChatTitle NOTIFY currentChatChanged)
    // tokensPerSecond, promptTokensPerSecond, ttftMs, contextUsed, contextSize, memoryBytes
    Q_PROPERTY(QVariantMap stats READ stats NOTIFY statsChanged)
    Q_PROPERTY(QVariantList searchResults READ searchResults NOTIFY searchResultsChanged)
    Q_PROPERTY(QString notice READ notice NOTIFY noticeChanged)
    // Whether the notice reports something that went wrong (shown in the error style).
    Q_PROPERTY(bool noticeIsError READ noticeIsError NOTIFY noticeChanged)
    // The chat a reply is being written into (0: none). It keeps going when another chat is
    // opened or a new one started.
    Q_PROPERTY(qint64 generatingChatId READ generatingChatId NOTIFY generatingChanged)
    // Chats in the trash: [{chatId, title, deletedAt (ms), daysLeft}], newest first.
    Q_PROPERTY(QVariantList trash READ trash NOTIFY trashChanged)
    // The message a search result opened (scrolled to and highlighted; 0: none).
    Q_PROPERTY(qint64 highlightedMessageId READ highlightedMessageId NOTIFY highlightChanged)
    Q_PROPERTY(QString undoTitle READ undoTitle NOTIFY undoChanged)
    // The open chat's own settings: systemPrompt, and the sampling keys it overrides
    // (temperature, topK, topP, minP, repeatPenalty, maxTokens); others follow Settings.
    Q_PROPERTY(QVariantMap chatSettings READ chatSettings NOTIFY chatSettingsChanged)
    // Overflow: the id of the newest message the model no longer sees in this chat (0: none);
    // the chat shows a quiet notice after it.
    Q_PROPERTY(qint64 contextDroppedUpTo READ contextDroppedUpTo NOTIFY contextNoticeChanged)
    // Named system prompts: [{name, prompt}], by name.
    Q_PROPERTY(QVariantList presets READ presets NOTIFY presetsChanged)
    // The local API server (Settings: apiServerEnabled, apiServerPort, apiServerKey): whether it
    // listens, its base URL, why it is not running, and the requests it serves now (refreshed
    // every second while it runs).
    Q_PROPERTY(bool apiServerRunning READ apiServerRunning NOTIFY apiServerChanged)
    Q_PROPERTY(QString apiServerUrl READ apiServerUrl NOTIFY apiServerChanged)
    Q_PROPERTY(QString apiServerError READ apiServerError NOTIFY apiServerChanged)
    Q_PROPERTY(int apiActiveRequests READ apiActiveRequests NOTIFY apiServerChanged)
    // Remote endpoints (app/remote): their list, tests and served models.
    Q_PROPERTY(hearth::app::Connections* connections READ connections CONSTANT)
    // The model in use is on a server (modelInfo: name, host, connectionName, baseUrl): the
    // local-only settings (INT4, KV type, GPU layers, ...) do not apply.
    Q_PROPERTY(bool modelRemote READ modelIsRemote NOTIFY modelChanged)

public:
    explicit ChatController(QObject* parent = nullptr);
    ~ChatController() override;

    QString dataDir() const { return m_dataDir; }
    // Opens settings and history in dir (once; later calls are ignored).
    void setDataDir(const QString& dir);
    bool ready() const { return m_ready; }
    AppSettings* settings() const { return m_settings.get(); }
    ChatListModel* chats() const { return m_chats; }
    MessageModel* messages() const { return m_messages; }
    ModelLibrary* library() const { return m_library.get(); }
    QString modelState() const { return m_modelState; }
    double loadFraction() const { return m_loadFraction; }
    QString loadBytesText() const { return m_loadBytesText; }
    QString loadPhase() const { return m_loadPhase; }
    QString loadText() const;
    QString int4CacheNote() const { return m_int4CacheNote; }
    QString savedContextText() const { return m_savedContextText; }
    // Where chats' KV caches are saved: "<data dir>/kv".
    QString savedContextDir() const;
    // Where 4-bit conversions are cached: "<data dir>/cache".
    QString int4CacheDir() const;
    QVariantMap modelInfo() const { return m_modelInfo; }
    QString modelError() const { return m_modelError; }
    bool modelTooLarge() const { return m_modelTooLarge; }
    QString templateNote() const { return m_templateNote; }
    bool reloadNeeded() const { return m_reloadNeeded; }
    QStringList reloadSettings() const { return m_reloadNeeded ? m_reloadSettings : QStringList(); }
    bool generating() const { return m_generating; }
    qint64 currentChatId() const { return m_chatId; }
    QString currentChatTitle() const { return m_chatTitle; }
    QVariantMap stats() const { return m_stats; }
    QVariantList searchResults() const { return m_searchResults; }
    QString notice() const { return m_notice; }
    bool noticeIsError() const { return m_noticeIsError; }
    qint64 generatingChatId() const { return m_generating ? m_replyChatId : 0; }
    QVariantList trash() const { return m_trash; }
    qint64 highlightedMessageId() const { return m_highlightedId; }
    QString undoTitle() const { return m_undoTitle; }
    QVariantMap chatSettings() const { return m_chatSettings; }
    qint64 contextDroppedUpTo() const { return m_droppedUpTo; }
    QVariantList presets() const { return m_presets; }
    bool apiServerRunning() const { return m_apiRunning; }
    QString apiServerUrl() const { return m_apiUrl; }
    QString apiServerError() const { return m_apiError; }
    int apiActiveRequests() const { return m_apiActive; }
    // The statistics of the last finished reply (tests read the engine's numbers here).
    GenerationReport lastReport() const { return m_lastReport; }

    // --- Model -----------------------------------------------------------------------------
    // Checks the file (a .gguf that exists and starts with the signature), then loads it on
    // the engine thread. Returns false (and sets modelError) when the file is refused.
    Q_INVOKABLE bool loadModel(const QUrl& url);
    Q_INVOKABLE bool loadModelFile(const QString& path) {
        return loadModel(QUrl::fromLocalFile(path));
    }
    Q_INVOKABLE void cancelLoad();
    Q_INVOKABLE void unloadModel();
    Q_INVOKABLE void reloadModel();
    Q_INVOKABLE void loadModelAnyway();
    Q_INVOKABLE void clearModelError();
    Q_INVOKABLE void clearTemplateNote();
    Q_INVOKABLE void clearNotice();
    // Deletes the cached 4-bit conversions (on the engine thread); int4CacheCleared follows.
    Q_INVOKABLE void clearInt4Cache();
    // Deletes the chats' saved KV caches (on the engine thread); savedContextCleared follows.
    Q_INVOKABLE void clearSavedContext();
    Q_INVOKABLE void refreshSavedContext();

    // Uses `model` of connection `connectionId` for the chats (chat_controller_remote.cpp):
    // checks it is served, then modelLoaded (or modelLoadFailed with modelError saying why).
    Q_INVOKABLE bool loadRemoteModel(const QString& connectionId, const QString& model);
    Connections* connections() const;
    bool modelIsRemote() const;

    // --- Chats -----------------------------------------------------------------------------
    Q_INVOKABLE void newChat();
    Q_INVOKABLE void openChat(qint64 chatId);
    Q_INVOKABLE bool send(const QString& text);
    Q_INVOKABLE void stop();
    Q_INVOKABLE bool regenerate(qint64 assistantMessageId);
    // Continues a reply that was stopped, cut at the length limit or interrupted: its text
    // stays and the model writes on from its end.
    Q_INVOKABLE bool continueReply(qint64 assistantMessageId);
    Q_INVOKABLE bool editMessage(qint64 userMessageId, const QString& text);
    Q_INVOKABLE void switchBranch(qint64 messageId, int delta);
    Q_INVOKABLE void renameChat(qint64 chatId, const QString& title);
    // The open chat's own system prompt and sampling (an invalid value: back to Settings').
    // Saved at once; applied from the next message.
    Q_INVOKABLE void setChatSystemPrompt(const QString& text);
    Q_INVOKABLE void setChatSampling(const QString& key, const QVariant& value);
    // Saves (or replaces) a named system prompt; deletes one.
    Q_INVOKABLE void savePreset(const QString& name, const QString& prompt);
    Q_INVOKABLE void deletePreset(const QString& name);
    // Moves the chat to the trash (kept 30 days); undoDelete brings the last one back.
    Q_INVOKABLE void deleteChat(qint64 chatId);
    Q_INVOKABLE void undoDelete();
    Q_INVOKABLE void refreshTrash();
    Q_INVOKABLE void restoreChat(qint64 chatId);
    Q_INVOKABLE void purgeChat(qint64 chatId);
    Q_INVOKABLE void emptyTrash();
    // Results grouped per chat: [{chatId, title, hits: [{messageId, role, snippet}]}], the
    // chat with the best match first.
    Q_INVOKABLE void search(const QString& query);
    // Opens the chat on the branch that holds the message and highlights it.
    Q_INVOKABLE void openSearchResult(qint64 chatId, qint64 messageId);
    Q_INVOKABLE void clearHighlight();
    // Writes a chat to a file: "json" (every branch, versioned, importable), "markdown" or
    // "text" (the selected branch).
    Q_INVOKABLE void exportChat(qint64 chatId, const QUrl& file, const QString& format);
    // exportChat to a local path (a file name may hold '#', '?' or spaces).
    Q_INVOKABLE void exportChatToPath(qint64 chatId, const QString& path, const QString& format) {
        exportChat(chatId, QUrl::fromLocalFile(path), format);
    }
    // A file name for the export: the chat's title made safe, with the format's extension.
    Q_INVOKABLE QString exportFileName(qint64 chatId, const QString& format) const;
    // Where the export dialog starts: the Documents folder, else home.
    Q_INVOKABLE QString defaultExportFolder() const;
    Q_INVOKABLE bool fileExists(const QString& path) const;
    // Reads a chat written by exportChat(..., "json") into a new chat and opens it.
    Q_INVOKABLE void importChat(const QUrl& file);
    // The open chat's selected branch as plain text on the clipboard.
    Q_INVOKABLE void copyConversation();
    Q_INVOKABLE void copyText(const QString& text);
    Q_INVOKABLE void copyLastAnswer();

signals:
    void dataDirChanged();
    void readyChanged();
    void modelChanged();
    void loadProgressChanged();
    void modelErrorChanged();
    void templateNoteChanged();
    void reloadNeededChanged();
    void generatingChanged();
    void currentChatChanged();
    void statsChanged();
    void searchResultsChanged();
    void noticeChanged();
    void undoChanged();
    void chatSettingsChanged();
    void contextNoticeChanged();
    void presetsChanged();
    void trashChanged();
    void highlightChanged();
    void chatImported(qint64 chatId);
    void apiServerChanged();
    // For tests and QML reactions.
    void modelLoaded();
    void modelLoadFailed(const QString& message);
    void int4CacheCleared(qint64 bytesFreed);
    void savedContextChanged();
    void savedContextCleared(qint64 bytesFreed);
    void replyFinished(qint64 messageId, const QString& stopReason);
    void chatOpened(qint64 chatId);
    void errorOccurred(const QString& message);

protected:
    // Takes QueuedFence before a queued signal from the engine thread is delivered (TSan).
    bool event(QEvent* e) override;

private:
    struct Turn;  // the result of the DB job that prepares a reply
    void startGeneration(const Turn& turn);
    void onModelLoaded(qint64 loadId, const QVariantMap& info);
    void onModelLoadFailed(qint64 loadId, const QString& path, const QString& message);
    void onModelKept(qint64 loadId, const QVariantMap& info);
    void applyModelInfo(const QVariantMap& info);
    void onTemplateNote(qint64 chatId, const QString& note);
    void discardEmptyReply(qint64 id, qint64 chatId, const QString& stopReason);
    void onTokens(qint64 requestId, const QString& delta);
    void onProgress(qint64 requestId, const GenerationReport& report);
    void onFinished(qint64 requestId, const QString& text, const GenerationReport& report);
    void onFailed(qint64 requestId, const QString& message);
    void onSettingChanged(const QString& key);
    void finishReply(const QString& text, const GenerationReport& report);
    void checkpoint();
    void refreshChats();
    void showPath(qint64 chatId, const QList<hearth::storage::Message>& path, const QString& title);
    void setGenerating(bool on);
    void setModelError(const QString& message);
    void setNotice(const QString& message, bool isError = false);
    void setError(const QString& message) { setNotice(message, true); }
    void setStatsFrom(const GenerationReport& report);
    void loadChatSettings();
    void refreshPresets();
    bool canStartTurn() const;
    EngineConfig engineConfig() const;
    // chat_controller_api.cpp
    void applyApiServerSettings();
    void onApiServerChanged(bool running, const QString& url, const QString& error);
    void pollApiServer();

    QString m_dataDir;
    bool m_ready = false;
    std::unique_ptr<AppSettings> m_settings;
    std::unique_ptr<ModelLibrary> m_library;
    ChatListModel* m_chats;
    MessageModel* m_messages;
    std::unique_ptr<StoreThread> m_store;
    QThread m_engineThread;
    std::unique_ptr<EngineWorker> m_worker;
    std::unique_ptr<Connections> m_connections;

    QString m_modelState = QStringLiteral("none");
    double m_loadFraction = 0;
    QString m_loadBytesText;
    QString m_loadPhase = QStringLiteral("loading");
    QString m_int4CacheNote;
    QString m_savedContextText;
    QVariantMap m_modelInfo;
    QString m_modelError;
    QString m_failedPath;  // the model the last failed load was for
    bool m_modelTooLarge = false;
    bool m_forceNextLoad = false;
    QString m_templateNote;
    bool m_reloadNeeded = false;
    qint64 m_loadId = 0;

    qint64 m_chatId = 0;
    QString m_chatTitle;
    qint64 m_pendingOpen = 0;  // a chat to open once the store is ready

    bool m_generating = false;
    bool m_stopBeforeStart = false;  // Stop pressed while the reply was being set up
    bool m_requestSent = false;      // the reply's request is with the engine
    qint64 m_requestId = 0;
    qint64 m_replyId = 0;
    qint64 m_replyChatId = 0;
    QString m_replyText;
    int m_checkpointedLength = 0;
    QTimer m_checkpointTimer;
    GenerationReport m_lastReport;
    QVariantMap m_stats;

    QVariantList m_searchResults;
    qint64 m_searchSerial = 0;
    QString m_notice;
    bool m_noticeIsError = false;
    QVariantList m_trash;
    qint64 m_highlightedId = 0;
    QString m_continuePrefix;          // Continue: the reply's text before this request
    QStringList m_templateNotesShown;  // for the model loaded now: each shown once
    bool m_modelKept = false;          // the failed load left the previous model loaded
    bool m_reloadNeededBefore = false;
    QStringList m_reloadSettings;
    qint64 m_undoChatId = 0;
    QString m_undoTitle;
    QTimer m_undoTimer;
    QVariantMap m_chatSettings;
    QVariantList m_presets;
    qint64 m_droppedUpTo = 0;
    QList<qint64> m_requestMessageIds;  // the request's messages (0: the system prompt)
    bool m_apiRunning = false;
    QString m_apiUrl;
    QString m_apiError;
    int m_apiActive = 0;
    QTimer m_apiPoll;
};

}  // namespace hearth::app
