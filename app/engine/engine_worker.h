// EngineWorker: owns the engine on its own thread: one Model, one KvStore (the paged KV cache
// all chats share, sized by the "KV memory" setting) and a ChatSession per chat in use. When
// the cache is full the least recently used chat is saved to disk (SavedContexts) and closed;
// chats are saved as well when the model is unloaded or replaced and when the app quits, and
// restored when they are used again, also in a new process. The GUI talks to it only through
// queued calls of its slots and its signals; token text comes out coalesced (at most one signal
// per ~33 ms). Stopping and cancelling a load are thread-safe calls: each request has its own
// cancel token that the engine reads and never resets.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QVariantMap>

#include <atomic>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>

#include "engine_types.h"
#include "queued_call.h"
#include "remote_types.h"

#include "hearth/engine.h"

namespace hearth {
class Drafter;
class KvStore;
}  // namespace hearth

namespace hearth::app {

class ChatSession;
class RemoteEngine;
class SavedContexts;
struct RenderedChat;

class EngineWorker : public QObject {
    Q_OBJECT

public:
    explicit EngineWorker(QObject* parent = nullptr);
    ~EngineWorker() override;

    // Thread-safe. Stops every generation request with an id up to requestId.
    void requestStop(qint64 requestId);
    // Thread-safe. Abandons every load request with an id up to loadId.
    void cancelLoad(qint64 loadId);

    // Token deltas are held back at most this long.
    static constexpr int kFlushMs = 33;

public slots:
    void loadModel(qint64 loadId, const QString& path, const hearth::app::EngineConfig& config);
    void unloadModel();
    // Chats go to a model on a server of the OpenAI API (app/remote) instead of a local file:
    // the local model is unloaded (its chats saved) and modelLoaded answers with the remote
    // model's description ({remote: true, name, host, ...}). Ends with the next load or unload.
    void useRemote(qint64 loadId, const hearth::app::RemoteTarget& target);
    // Ends network use on the engine thread (its QNetworkAccessManager is destroyed there);
    // called before the thread stops.
    void releaseNetwork();
    // New context settings: sessions are rebuilt on their next turn.
    void setConfig(const hearth::app::EngineConfig& config);
    void generate(const hearth::app::GenerationRequest& request);
    void forgetChat(qint64 chatId);
    // Deletes the cached 4-bit conversions under dir; answers with int4CacheCleared.
    void clearInt4Cache(const QString& dir);
    // Saves every chat's KV cache that changed since it was last saved (also on destruction).
    void saveAll();
    // Deletes the saved KV files; answers with savedContextCleared.
    void clearSavedContext();
    // The local API server (server/, OpenAI-compatible) over the loaded model, with its own
    // scheduler and KV memory, which the chats' turns use too while it runs: started now when a
    // model is loaded, else with the next one; stopped while a model is replaced. Answers with
    // apiServerChanged.
    void setApiServer(bool enabled, int port, const QString& key);

public:
    // Thread-safe: generation requests the API server is serving now (0 when it is off).
    int apiActiveRequests() const;

signals:
    // phase: "converting" (making 4-bit weights) or "loading".
    void loadProgress(qint64 loadId, const QString& phase, double fraction, qint64 bytesDone,
                      qint64 bytesTotal);
    void modelLoaded(qint64 loadId, const QVariantMap& info);
    void modelLoadFailed(qint64 loadId, const QString& path, const QString& message);
    // Sent just before modelLoadFailed when the model in use stays loaded (its description).
    void modelKept(qint64 loadId, const QVariantMap& info);
    void modelUnloaded();
    void int4CacheCleared(qint64 bytesFreed);
    void savedContextCleared(qint64 bytesFreed);
    void tokens(qint64 requestId, const QString& delta);
    void progress(qint64 requestId, const hearth::app::GenerationReport& report);
    void templateNote(qint64 chatId, const QString& note);
    void finished(qint64 requestId, const QString& text,
                  const hearth::app::GenerationReport& report);
    void failed(qint64 requestId, const QString& message);
    // running: listening at baseUrl ("http://127.0.0.1:8080/v1"); error: why it is not.
    void apiServerChanged(bool running, const QString& baseUrl, const QString& error);

private:
    // Emits a signal for another thread with QueuedFence held (see queued_call.h).
    template <class... Params>
    void send(void (EngineWorker::*signal)(Params...), std::type_identity_t<Params>... args) {
        const QueuedFence fence;
        (this->*signal)(args...);
    }

    struct ApiServerState;  // engine_worker_api.h
    void startApiServer();
    void stopApiServer();
    // A chat turn as a request of the API server's scheduler (while the server is on), in the
    // same batched steps as the API clients' requests. Returns false, having sent nothing, when
    // the scheduler's queue is full: the turn then runs on the chat's own session.
    bool generateOnScheduler(const GenerationRequest& request, const RenderedChat& chat,
                             GenerationReport& report, const CancelToken& token,
                             const QElapsedTimer& sinceStart);
    struct SessionSlot {
        qint64 chatId = 0;
        std::unique_ptr<ChatSession> session;
        QList<QByteArray> messages;  // SavedContexts keys of what the session holds
        bool dirty = false;          // changed since it was last saved
    };
    SessionSlot* slotFor(qint64 chatId, const QList<QByteArray>& messages,
                         const CancelToken& cancel, qint64& restored, QString& error);
    bool ensureStore(QString& error);
    // Saves and closes least recently used chats (never `keep`) until `blocks` are free.
    void evictFor(int64_t blocks, const SessionSlot* keep);
    void saveSlot(SessionSlot& slot);
    bool stopRequested(qint64 requestId) const;
    QVariantMap describeModel() const;
    QVariantMap describeRemote() const;
    void generateRemote(const GenerationRequest& request);  // engine_worker_remote.cpp
    // Leaves the remote model (a request in flight ends as stopped).
    void dropRemote();
    // Saves (when asked) and closes every chat, and the KV store.
    void dropSessions(bool save);
    QString kvTypeName() const;
    // The drafter the speculative setting asks for (made on first use; nullptr: off, or it
    // could not be made and `note` says why).
    Drafter* drafter(QString& note);

    std::shared_ptr<Model> m_model;
    std::shared_ptr<KvStore> m_store;
    std::unique_ptr<ApiServerState> m_api;  // destroyed before the model
    QString m_modelKey;
    EngineConfig m_config;
    std::unique_ptr<SavedContexts> m_saved;
    std::list<SessionSlot> m_sessions;    // most recently used first
    std::shared_ptr<Model> m_draftModel;  // for speculative decoding with a draft model
    std::unique_ptr<Drafter> m_drafter;
    QString m_drafterNote;  // why the drafter could not be made (kept until the setting changes)
    std::optional<RemoteTarget> m_remoteTarget;  // set: chats go to this remote model
    std::unique_ptr<RemoteEngine> m_remote;      // made on first use, on the engine thread

    std::atomic<qint64> m_stopUpTo{0};
    std::atomic<qint64> m_cancelLoadUpTo{0};
    std::atomic<bool> m_loadCancelFlag{false};
    std::atomic<qint64> m_loadingId{0};
    std::mutex m_activeMutex;  // guards the active request's token against requestStop()
    qint64 m_activeId = 0;
    CancelToken m_activeToken;
};

// The automatic KV memory: a quarter of the free memory, at most eight full contexts of
// contextBytes, at least two.
qint64 automaticKvMemory(qint64 contextBytes);

// Resident memory of this process in bytes (0 where unknown).
qint64 residentMemoryBytes();

}  // namespace hearth::app
