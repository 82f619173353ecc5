// What EngineWorker keeps for the local API server: the wanted settings and, while a model is
// loaded and the server is on, the server and its scheduler (internal to app/engine).
#pragma once

#include <QString>

#include <memory>
#include <mutex>

#include "api_server.h"
#include "engine_worker.h"
#include "hearth/scheduler.h"

namespace hearth::app {

struct EngineWorker::ApiServerState {
    bool enabled = false;
    int port = 8080;
    QString key;
    mutable std::mutex mu;  // guards `server` for apiActiveRequests() on other threads
    std::shared_ptr<Scheduler> scheduler;
    std::unique_ptr<server::ApiServer> server;  // declared last: stopped first

    ~ApiServerState() {
        if (server) server->stop();
        if (scheduler) scheduler->stop();
    }
};

}  // namespace hearth::app
