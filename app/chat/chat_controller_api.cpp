// ChatController's side of the local API server: the settings go to the engine thread, which
// runs the server over the loaded model; the state comes back for Settings and the status line.
#include "chat_controller.h"
#include "engine_worker.h"
#include "queued_call.h"

namespace hearth::app {

void ChatController::applyApiServerSettings() {
    if (!m_settings) return;
    const bool enabled = m_settings->value(QStringLiteral("apiServerEnabled")).toBool();
    const int port = m_settings->value(QStringLiteral("apiServerPort")).toInt();
    const QString key = m_settings->value(QStringLiteral("apiServerKey")).toString();
    postQueued(m_worker.get(),
               [w = m_worker.get(), enabled, port, key] { w->setApiServer(enabled, port, key); });
}

void ChatController::onApiServerChanged(bool running, const QString& url, const QString& error) {
    m_apiRunning = running;
    m_apiUrl = url;
    m_apiError = error;
    m_apiActive = 0;
    if (running)
        m_apiPoll.start(1000);
    else
        m_apiPoll.stop();
    emit apiServerChanged();
}

void ChatController::pollApiServer() {
    const int active = m_worker->apiActiveRequests();  // thread-safe
    if (active == m_apiActive) return;
    m_apiActive = active;
    emit apiServerChanged();
}

}  // namespace hearth::app
