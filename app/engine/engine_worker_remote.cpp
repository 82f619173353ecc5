// EngineWorker's remote model (app/remote): requests go to RemoteEngine, whose answers leave
// through the worker's own signals, so the controller cannot tell them from local ones.
#include "engine_worker.h"
#include "engine_worker_api.h"
#include "remote_engine.h"

namespace hearth::app {

void EngineWorker::useRemote(qint64 loadId, const RemoteTarget& target) {
    m_loadingId.store(loadId);
    if (loadId <= m_cancelLoadUpTo.load()) {
        if (m_model || m_remoteTarget) send(&EngineWorker::modelKept, loadId, describeModel());
        send(&EngineWorker::modelLoadFailed, loadId, target.model, QStringLiteral("cancelled"));
        return;
    }
    dropRemote();
    stopApiServer();  // it serves the local model only
    dropSessions(/*save=*/true);
    m_draftModel.reset();
    m_model.reset();
    m_remoteTarget = target;
    if (!m_remote) {
        m_remote = std::make_unique<RemoteEngine>([this](qint64 id) { return stopRequested(id); });
        connect(
            m_remote.get(), &RemoteEngine::tokens, this,
            [this](qint64 id, const QString& delta) { send(&EngineWorker::tokens, id, delta); });
        connect(m_remote.get(), &RemoteEngine::progress, this,
                [this](qint64 id, const GenerationReport& report) {
                    send(&EngineWorker::progress, id, report);
                });
        connect(m_remote.get(), &RemoteEngine::finished, this,
                [this](qint64 id, const QString& text, const GenerationReport& report) {
                    send(&EngineWorker::finished, id, text, report);
                });
        connect(m_remote.get(), &RemoteEngine::failed, this,
                [this](qint64 id, const QString& message) {
                    send(&EngineWorker::failed, id, message);
                });
    }
    send(&EngineWorker::modelLoaded, loadId, describeRemote());
}

void EngineWorker::dropRemote() {
    if (m_remote) m_remote->abort();
    m_remoteTarget.reset();
}

void EngineWorker::releaseNetwork() {
    dropRemote();
    m_remote.reset();
}

void EngineWorker::generateRemote(const GenerationRequest& request) {
    m_remote->start(request, *m_remoteTarget);
}

QVariantMap EngineWorker::describeRemote() const {
    const RemoteTarget& t = *m_remoteTarget;
    return {{QStringLiteral("name"), t.model},
            {QStringLiteral("path"), QString()},
            {QStringLiteral("remote"), true},
            {QStringLiteral("host"), t.host()},
            {QStringLiteral("baseUrl"), t.baseUrl},
            {QStringLiteral("connectionId"), t.connectionId},
            {QStringLiteral("connectionName"), t.connectionName},
            {QStringLiteral("backend"), QStringLiteral("remote")},
            {QStringLiteral("device"), t.host()}};
}

}  // namespace hearth::app
