// EngineWorker's local API server: hearth::server::ApiServer over its own Scheduler on the
// loaded model (the weights are shared; the server's sequences have their own KV memory), and
// the chats' turns on that scheduler while it runs (scheduled_chat.h).
#include <algorithm>

#include "chat_session.h"
#include "engine_worker_api.h"
#include "scheduled_chat.h"

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

bool EngineWorker::generateOnScheduler(const GenerationRequest& request, const RenderedChat& chat,
                                       GenerationReport& report, const CancelToken& token,
                                       const QElapsedTimer& sinceStart) {
    Scheduler& scheduler = *m_api->scheduler;
    const qint64 id = request.requestId;
    const auto clearActive = [this] {
        std::lock_guard lock(m_activeMutex);
        m_activeToken.reset();
    };
    const SamplingConfig& s = request.sampling;
    const int64_t n_ctx = scheduler.n_ctx();
    // The same room for the reply as a chat's own session keeps.
    auto prompt = fitScheduledPrompt(chat, n_ctx, std::clamp<int64_t>(n_ctx / 8, 16, 256));
    if (!prompt) {
        clearActive();
        send(&EngineWorker::failed, id, QString::fromStdString(prompt.error_message()));
        return true;
    }
    auto events = std::make_shared<ScheduledEvents>();
    hearth::GenerationRequest g;
    g.prompt = prompt->tokens;
    g.max_tokens = std::max(1, s.maxTokens);
    g.sampling = samplingParams(s);
    g.stop_strings = chat.stopStrings;
    g.cancel = token;
    g.on_event = [events](const StreamEvent& e) { events->push(e); };
    // Prompt lookup runs per sequence inside the scheduler's steps; a draft model does not
    // (it would need a context of its own per chat beside the server's).
    const bool lookup = m_config.speculative == QLatin1String("lookup");
    if (lookup) g.drafter = make_lookup_drafter();
    const SubmitResult sub = scheduler.submit(std::move(g));
    if (sub.error == SubmitError::QueueFull) return false;
    if (!sub.ok()) {
        clearActive();
        send(&EngineWorker::failed, id, QString::fromStdString(sub.message));
        return true;
    }
    report.promptTokens = static_cast<qint64>(prompt->tokens.size());
    for (size_t i : prompt->droppedMessages) report.droppedMessages.append(static_cast<int>(i));
    report.contextSize = n_ctx;
    if (m_config.speculative == QLatin1String("draft"))
        report.speculativeNote =
            tr("The draft model is not used while the local API server is on: chats run in the "
               "server's batched steps, where only prompt lookup drafts.");

    std::string text, pending;
    int64_t generated = 0;
    QElapsedTimer generateClock, sinceFlush;
    sinceFlush.start();
    bool flushedOnce = false;
    const auto fillLive = [&] {
        report.generatedTokens = generated;
        report.contextUsed = report.promptTokens + generated;
        const double seconds =
            generateClock.isValid() ? static_cast<double>(generateClock.nsecsElapsed()) / 1e9 : 0;
        report.tokensPerSecond = seconds > 0 ? static_cast<double>(generated) / seconds : 0;
    };
    const auto flush = [&] {
        if (pending.empty()) return;
        flushedOnce = true;
        send(&EngineWorker::tokens, id, QString::fromStdString(pending));
        pending.clear();
        fillLive();
        send(&EngineWorker::progress, id, report);
        sinceFlush.restart();
    };
    for (;;) {
        // Stop is read from the token by the scheduler; the wait only bounds the flush delay.
        auto ev = events->next(std::chrono::milliseconds(kFlushMs));
        if (stopRequested(id)) token->store(true);
        if (!ev) {
            if (sinceFlush.elapsed() >= kFlushMs) flush();
            continue;
        }
        if (ev->token >= 0) {
            if (generated == 0) {
                report.timeToFirstTokenMs = static_cast<double>(sinceStart.nsecsElapsed()) / 1e6;
                generateClock.start();
            }
            ++generated;
        }
        pending += ev->text;
        text += ev->text;
        if (!ev->done) {
            // The first text is shown at once, later text in batches (as with a session).
            if (!flushedOnce || sinceFlush.elapsed() >= kFlushMs) flush();
            continue;
        }
        flush();
        clearActive();
        if (!ev->error.empty()) {
            send(&EngineWorker::failed, id, QString::fromStdString(ev->error));
            return true;
        }
        const RequestUsage& u = ev->usage;
        fillLive();
        report.promptTokens = u.prompt_tokens;
        report.reusedTokens = u.cached_tokens;
        report.computedTokens = u.prompt_tokens - u.cached_tokens;
        report.generatedTokens = u.completion_tokens;
        report.tokensComputedTotal = static_cast<quint64>(report.computedTokens + generated);
        const double prefill = u.ttft_seconds - u.queue_seconds;
        report.promptTokensPerSecond =
            prefill > 0 ? static_cast<double>(report.computedTokens) / prefill : 0;
        if (lookup) {
            report.drafter = QStringLiteral("lookup");
            report.drafted = u.draft_tokens;
            report.accepted = u.draft_accepted;
            // Tokens per decode step: the kept drafts and the model's own token of each.
            report.meanAcceptedLength =
                u.draft_steps > 0
                    ? static_cast<double>(u.draft_accepted + u.draft_steps) / double(u.draft_steps)
                    : 0;
        }
        report.memoryBytes = residentMemoryBytes();
        report.stopReason = token->load() || stopRequested(id) ? QStringLiteral("stopped")
                                                               : stopReasonText(ev->reason);
        send(&EngineWorker::finished, id, QString::fromStdString(text), report);
        return true;
    }
}

int EngineWorker::apiActiveRequests() const {
    std::lock_guard lock(m_api->mu);
    return m_api->server ? m_api->server->stats().active_requests : 0;
}

}  // namespace hearth::app
