// EngineWorker: owns the engine (one Model, a few ChatSessions) on its own thread. The GUI
// talks to it only through queued calls of its slots and its signals; token text comes out
// coalesced (at most one signal per ~33 ms), never one signal per token. Stopping and
// cancelling a load are thread-safe calls that set atomics the engine checks between steps.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QVariantMap>

#include <atomic>
#include <list>
#include <memory>
#include <mutex>

#include "engine_types.h"

namespace hearth {
class Model;
}

namespace hearth::app {

class ChatSession;

class EngineWorker : public QObject {
    Q_OBJECT

public:
    explicit EngineWorker(QObject* parent = nullptr);
    ~EngineWorker() override;

    // Thread-safe. Stops every generation request with an id up to requestId.
    void requestStop(qint64 requestId);
    // Thread-safe. Abandons every load request with an id up to loadId.
    void cancelLoad(qint64 loadId);

    // How many chat sessions are kept (least recently used are dropped).
    static constexpr int kMaxSessions = 3;
    // Token deltas are held back at most this long.
    static constexpr int kFlushMs = 33;

public slots:
    void loadModel(qint64 loadId, const QString& path, const hearth::app::EngineConfig& config);
    void unloadModel();
    // New context settings: sessions are rebuilt on their next turn.
    void setConfig(const hearth::app::EngineConfig& config);
    void generate(const hearth::app::GenerationRequest& request);
    void forgetChat(qint64 chatId);
    // Deletes the cached 4-bit conversions under dir; answers with int4CacheCleared.
    void clearInt4Cache(const QString& dir);

signals:
    // phase: "converting" (making 4-bit weights) or "loading".
    void loadProgress(qint64 loadId, const QString& phase, double fraction, qint64 bytesDone,
                      qint64 bytesTotal);
    void modelLoaded(qint64 loadId, const QVariantMap& info);
    void modelLoadFailed(qint64 loadId, const QString& path, const QString& message);
    void modelUnloaded();
    void int4CacheCleared(qint64 bytesFreed);
    void tokens(qint64 requestId, const QString& delta);
    void progress(qint64 requestId, const hearth::app::GenerationReport& report);
    void templateNote(qint64 chatId, const QString& note);
    void finished(qint64 requestId, const QString& text,
                  const hearth::app::GenerationReport& report);
    void failed(qint64 requestId, const QString& message);

private:
    struct SessionSlot {
        qint64 chatId = 0;
        std::unique_ptr<ChatSession> session;
    };
    ChatSession* sessionFor(qint64 chatId, QString& error);
    bool stopRequested(qint64 requestId) const;
    QVariantMap describeModel() const;
    void dropSessions();

    std::shared_ptr<Model> m_model;
    EngineConfig m_config;
    std::list<SessionSlot> m_sessions;  // most recently used first

    std::atomic<qint64> m_stopUpTo{0};
    std::atomic<qint64> m_cancelLoadUpTo{0};
    std::atomic<bool> m_loadCancelFlag{false};
    std::atomic<qint64> m_loadingId{0};
    std::mutex m_activeMutex;  // guards m_active against stop() from the GUI thread
    ChatSession* m_active = nullptr;
};

// Resident memory of this process in bytes (0 where unknown).
qint64 residentMemoryBytes();

}  // namespace hearth::app
