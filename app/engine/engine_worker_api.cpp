// EngineWorker's local API server: hearth::server::ApiServer over its own Scheduler on the
// loaded model (the weights are shared; the server's sequences have their own KV memory).
#include <algorithm>

#include "engine_worker_api.h"

namespace hearth::app {

void EngineWorker::setApiServer(bool enabled, int port, const QString& key) {
    const bool changed = enabled != m_api->enabled || port != m_api->port || key != m_api->key;
    m_api->enabled = enabled;
    m_api->port = port;
    m_api->key = key;
    if (!changed && (m_api->server != nullptr) == (enabled && m_model != nullptr)) return;
    stopApiServer();
    startApiServer();
}

void EngineWorker::startApiServer() {
    if (!m_api->enabled || !m_model || m_api->server) {
        if (!m_api->enabled) send(&EngineWorker::apiServerChanged, false, {}, {});
        return;
    }
    SchedulerOptions so;
    so.n_threads = m_config.threads;
    // The chats' context length; up to four requests at once (more wait in a queue of 16), with
    // KV memory for four full contexts beside the chats' own.
    so.n_ctx = m_config.contextLength > 0 ? m_config.contextLength
                                          : std::min<int64_t>(m_model->info().n_ctx_train, 4096);
    if (so.n_ctx <= 0) so.n_ctx = 4096;
    so.max_running = 4;
    so.max_queued = 16;
    auto kv = parse_kv_type(m_config.kvType.toStdString());
    if (kv) so.kv_type = *kv;
    auto sched = Scheduler::create(m_model, so);
    if (!sched) {
        send(&EngineWorker::apiServerChanged, false, {},
             QString::fromStdString(sched.error_message()));
        return;
    }
    std::shared_ptr<Scheduler> scheduler = std::move(*sched);
    server::ServerOptions opt;
    opt.host = "127.0.0.1";  // this machine only; the key is optional here
    opt.port = m_api->port;
    opt.api_key = m_api->key.toStdString();
    auto srv = server::ApiServer::create(scheduler, opt);
    if (!srv) {
        send(&EngineWorker::apiServerChanged, false, {},
             QString::fromStdString(srv.error_message()));
        return;
    }
    if (Status s = (*srv)->start(); !s) {
        send(&EngineWorker::apiServerChanged, false, {}, QString::fromStdString(s.message()));
        return;
    }
    scheduler->start();
    const QString url = QString::fromStdString((*srv)->base_url());
    {
        std::lock_guard lock(m_api->mu);
        m_api->scheduler = std::move(scheduler);
        m_api->server = std::move(*srv);
    }
    send(&EngineWorker::apiServerChanged, true, url, {});
}

void EngineWorker::stopApiServer() {
    std::unique_ptr<server::ApiServer> srv;
    std::shared_ptr<Scheduler> scheduler;
    {
        std::lock_guard lock(m_api->mu);
        srv = std::move(m_api->server);
        scheduler = std::move(m_api->scheduler);
    }
    if (!srv) return;
    srv->stop();
    scheduler->stop();
    send(&EngineWorker::apiServerChanged, false, {}, {});
}

int EngineWorker::apiActiveRequests() const {
    std::lock_guard lock(m_api->mu);
    return m_api->server ? m_api->server->stats().active_requests : 0;
}

}  // namespace hearth::app
