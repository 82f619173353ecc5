// ChatController: models on servers of the OpenAI API (app/remote). The connections live
// here on the GUI thread; choosing a remote model checks it is served (GET /v1/models, so a
// wrong key or URL is told at once), then the engine worker sends the chats there.
#include <QUrl>

#include "chat_controller.h"
#include "connections.h"
#include "engine_worker.h"
#include "queued_call.h"

namespace hearth::app {

Connections* ChatController::connections() const {
    return m_connections.get();
}

bool ChatController::modelIsRemote() const {
    return m_modelInfo.value(QStringLiteral("remote")).toBool();
}

bool ChatController::loadRemoteModel(const QString& connectionId, const QString& model) {
    const RemoteTarget probe = m_connections->target(connectionId, model);
    if (!probe.valid()) {
        setModelError(tr("That connection no longer exists."));
        emit modelLoadFailed(m_modelError);
        return false;
    }
    if (m_generating) stop();
    setModelError({});
    const qint64 loadId = ++m_loadId;
    m_worker->cancelLoad(loadId - 1);
    const QVariantMap previous = m_modelInfo;
    const QString previousState = m_modelState;
    m_modelState = QStringLiteral("loading");
    m_modelInfo = {{QStringLiteral("name"), model},
                   {QStringLiteral("remote"), true},
                   {QStringLiteral("host"), probe.host()}};
    m_loadFraction = 0;
    m_loadPhase = QStringLiteral("connecting");
    emit modelChanged();
    emit loadProgressChanged();
    auto once = std::make_shared<QMetaObject::Connection>();
    *once = connect(
        m_connections.get(), &Connections::tested, this,
        [=, this](const QString& id, bool ok, const QString& message) {
            if (id != connectionId) return;
            disconnect(*once);
            if (loadId != m_loadId) return;  // another load or unload came first
            const bool served = ok && m_connections->remoteModelsOf(connectionId).contains(model);
            if (!served) {
                m_modelInfo = previous;
                m_modelState = previousState;
                emit modelChanged();
                const QString why =
                    ok ? tr("The server does not serve a model of that name any more.") : message;
                setModelError(tr("“%1” on %2 could not be used. %3").arg(model, probe.host(), why));
                emit modelLoadFailed(why);
                return;
            }
            const RemoteTarget target = m_connections->target(connectionId, model);
            postQueued(m_worker.get(),
                       [w = m_worker.get(), loadId, target] { w->useRemote(loadId, target); });
        });
    m_connections->test(connectionId);
    return true;
}

}  // namespace hearth::app
