// A local OpenAI-compatible HTTP API over one loaded model: /v1/models, /v1/chat/completions,
// /v1/completions (both streaming as server-sent events), /health, /tokenize, /detokenize.
// Requests go through a Scheduler (continuous batching); a client that disconnects cancels its
// sequence. Safe by default: loopback only unless a key is set, the key compared in constant
// time, limits on body size and prompt length, timeouts for slow clients, no CORS headers.
// Plain C++ (no Qt); the HTTP protocol is cpp-httplib's, used only inside api_server.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "hearth/result.h"
#include "hearth/scheduler.h"

namespace hearth::server {

struct ServerOptions {
    std::string host = "127.0.0.1";
    int port = 8080;       // 0: any free port (port() says which)
    std::string api_key;   // required when host is not a loopback address
    std::string model_id;  // the name in /v1/models; empty: the model file's name without .gguf
    size_t max_body_bytes = size_t(1) << 20;  // larger bodies get 413
    int64_t max_prompt_tokens = 0;            // 0: the context length - 1
    int timeout_seconds = 30;                 // read/write timeout for slow clients
    std::string cors_origin;    // empty: no CORS headers, so browsers refuse cross-origin calls
    int threads = 0;            // HTTP worker threads; 0: running + queued requests + 4
    bool log_requests = false;  // one line per request on stderr
    // Speculative decoding by prompt lookup for requests that do not say ("speculative":
    // "lookup" | "off" in the body), with at most draft_max drafted tokens a step.
    bool lookup = false;
    int32_t draft_max = 8;
};

struct ServerStats {
    int32_t active_requests = 0;  // generation requests being served now
    uint64_t requests_total = 0;  // every HTTP request answered
};

class ApiServer {
public:
    // Refuses a non-loopback host without a key.
    static Result<std::unique_ptr<ApiServer>> create(std::shared_ptr<Scheduler> scheduler,
                                                     ServerOptions options);
    ~ApiServer();
    ApiServer(const ApiServer&) = delete;
    ApiServer& operator=(const ApiServer&) = delete;

    // Binds (an error says why, e.g. the port is in use) and serves on a thread of its own.
    Status start();
    // Stops accepting and ends the responses in progress. The scheduler keeps running.
    void stop();

    int port() const;              // the bound port
    std::string base_url() const;  // "http://127.0.0.1:8080/v1"
    const std::string& model_id() const;
    ServerStats stats() const;

    struct Impl;

private:
    explicit ApiServer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace hearth::server
