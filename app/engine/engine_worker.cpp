#include "engine_worker.h"

#include <QFile>
#include <QFileInfo>
#include <QThread>

#include <algorithm>
#include <filesystem>
#include <random>

#include "chat_session.h"
#include "hearth/engine.h"

namespace hearth::app {

namespace {

QString stopReasonText(StopReason reason) {
    switch (reason) {
        case StopReason::MaxTokens:
            return QStringLiteral("length");
        case StopReason::EndOfGeneration:
            return QStringLiteral("eos");
        case StopReason::StopString:
            return QStringLiteral("stop");
        case StopReason::ContextFull:
            return QStringLiteral("context-full");
        case StopReason::Cancelled:
            return QStringLiteral("stopped");
    }
    return QStringLiteral("eos");
}

template <class T>
void raiseTo(std::atomic<T>& value, T to) {
    T now = value.load();
    while (now < to && !value.compare_exchange_weak(now, to)) {
    }
}

}  // namespace

qint64 residentMemoryBytes() {
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly)) return 0;
    for (const QByteArray& line : status.readAll().split('\n')) {
        if (line.startsWith("VmRSS:")) {
            const QList<QByteArray> parts = line.simplified().split(' ');
            if (parts.size() >= 2) return parts[1].toLongLong() * 1024;
        }
    }
    return 0;
}

EngineWorker::EngineWorker(QObject* parent) : QObject(parent) {
    qRegisterMetaType<hearth::app::EngineConfig>();
    qRegisterMetaType<hearth::app::GenerationRequest>();
    qRegisterMetaType<hearth::app::GenerationReport>();
}

EngineWorker::~EngineWorker() = default;

void EngineWorker::requestStop(qint64 requestId) {
    raiseTo(m_stopUpTo, requestId);
    std::lock_guard lock(m_activeMutex);
    if (m_active) m_active->cancel();
}

void EngineWorker::cancelLoad(qint64 loadId) {
    raiseTo(m_cancelLoadUpTo, loadId);
    if (m_loadingId.load() <= loadId) m_loadCancelFlag.store(true);
}

bool EngineWorker::stopRequested(qint64 requestId) const {
    return requestId <= m_stopUpTo.load();
}

void EngineWorker::loadModel(qint64 loadId, const QString& path, const EngineConfig& config) {
    dropSessions();
    m_model.reset();  // free the old weights before reading the new ones
    m_config = config;
    m_loadingId.store(loadId);
    m_loadCancelFlag.store(loadId <= m_cancelLoadUpTo.load());

    LoadOptions options;
    options.backend = config.backend.toStdString();
    options.cancel = &m_loadCancelFlag;
    options.int4_weights = config.int4Weights;
    if (!config.int4CacheDir.isEmpty())
        options.int4_cache_dir = std::filesystem::path(config.int4CacheDir.toStdString());
    QElapsedTimer sinceReport;
    sinceReport.start();
    std::string lastPhase;
    options.on_progress = [&](const LoadProgress& p) {
        // A new phase is reported at once so the text never lags behind what is happening.
        if (p.phase == lastPhase && sinceReport.elapsed() < kFlushMs && p.fraction < 1.0) return;
        sinceReport.restart();
        lastPhase = p.phase;
        emit loadProgress(loadId, QString::fromStdString(p.phase), p.fraction,
                          static_cast<qint64>(p.bytes_done), static_cast<qint64>(p.bytes_total));
    };
    auto model = Model::load(path.toStdString(), options);
    if (!model) {
        emit modelLoadFailed(loadId, path, QString::fromStdString(model.error_message()));
        return;
    }
    m_model = std::move(*model);
    emit modelLoaded(loadId, describeModel());
}

void EngineWorker::unloadModel() {
    dropSessions();
    m_model.reset();
    emit modelUnloaded();
}

void EngineWorker::clearInt4Cache(const QString& dir) {
    const uint64_t freed = clear_int4_cache(
        dir.isEmpty() ? std::filesystem::path() : std::filesystem::path(dir.toStdString()));
    emit int4CacheCleared(static_cast<qint64>(freed));
}

void EngineWorker::setConfig(const EngineConfig& config) {
    m_config = config;
    dropSessions();
}

void EngineWorker::dropSessions() {
    std::lock_guard lock(m_activeMutex);
    m_active = nullptr;
    m_sessions.clear();
}

void EngineWorker::forgetChat(qint64 chatId) {
    std::lock_guard lock(m_activeMutex);
    m_sessions.remove_if([&](const SessionSlot& s) { return s.chatId == chatId; });
}

ChatSession* EngineWorker::sessionFor(qint64 chatId, QString& error) {
    auto it = std::find_if(m_sessions.begin(), m_sessions.end(),
                           [&](const SessionSlot& s) { return s.chatId == chatId; });
    if (it != m_sessions.end()) {
        m_sessions.splice(m_sessions.begin(), m_sessions, it);
        return m_sessions.front().session.get();
    }
    ContextOptions options;
    options.n_ctx = m_config.contextLength;
    options.n_threads = m_config.threads;
    // An unknown name (an old or hand-edited settings file) falls back to the default F16.
    auto kv = parse_kv_type(m_config.kvType.toStdString());
    options.kv_type = kv ? *kv : KvType::F16;
    auto session = ChatSession::create(m_model, options);
    if (!session) {
        error = QString::fromStdString(session.error_message());
        return nullptr;
    }
    std::lock_guard lock(m_activeMutex);
    while (static_cast<int>(m_sessions.size()) >= kMaxSessions) m_sessions.pop_back();
    m_sessions.push_front({chatId, std::move(*session)});
    return m_sessions.front().session.get();
}

void EngineWorker::generate(const GenerationRequest& request) {
    const qint64 id = request.requestId;
    if (!m_model) {
        emit failed(id, tr("No model is loaded."));
        return;
    }
    GenerationReport report;
    if (stopRequested(id)) {
        report.stopReason = QStringLiteral("stopped");
        emit finished(id, QString(), report);
        return;
    }
    QString error;
    ChatSession* session = sessionFor(request.chatId, error);
    if (!session) {
        emit failed(id, error);
        return;
    }
    {
        std::lock_guard lock(m_activeMutex);
        m_active = session;
    }
    auto clearActive = [this] {
        std::lock_guard lock(m_activeMutex);
        m_active = nullptr;
    };

    std::vector<SessionMessage> messages;
    for (const PromptEntry& m : request.messages)
        messages.push_back({m.role.toStdString(), m.content.toStdString()});
    session->resetStats();
    auto turn = session->prepare(messages);
    if (!turn) {
        clearActive();
        if (stopRequested(id)) {
            report.stopReason = QStringLiteral("stopped");
            emit finished(id, QString(), report);
        } else {
            emit failed(id, QString::fromStdString(turn.error_message()));
        }
        return;
    }
    if (!turn->templateNote.empty())
        emit templateNote(request.chatId, QString::fromStdString(turn->templateNote));

    auto fillReport = [&] {
        const GenerationStats& st = session->stats();
        report.promptTokens = turn->promptTokens;
        report.reusedTokens = turn->reusedTokens;
        report.computedTokens = st.prompt_tokens;
        report.generatedTokens = st.generated_tokens;
        report.promptTokensPerSecond = st.prompt_tokens_per_second();
        report.tokensPerSecond = st.generate_tokens_per_second();
        report.timeToFirstTokenMs = st.time_to_first_token * 1000.0;
        report.contextUsed = session->tokensInCache();
        report.contextSize = session->contextSize();
        report.tokensComputedTotal = st.tokens_computed;
    };

    GenerateOptions options;
    const SamplingConfig& s = request.sampling;
    options.max_tokens = std::max(1, s.maxTokens);
    options.sampling.temperature = static_cast<float>(s.temperature);
    options.sampling.top_k = s.topK;
    options.sampling.top_p = static_cast<float>(s.topP);
    options.sampling.min_p = static_cast<float>(s.minP);
    options.sampling.repeat_penalty = static_cast<float>(s.repeatPenalty);
    options.sampling.seed = s.seed != 0 ? s.seed : std::random_device{}();
    options.stop_strings = turn->stopStrings;

    std::string pending;
    QElapsedTimer sinceFlush;
    sinceFlush.start();
    auto flush = [&] {
        if (pending.empty()) return;
        emit tokens(id, QString::fromStdString(pending));
        pending.clear();
        fillReport();
        emit progress(id, report);
        sinceFlush.restart();
    };
    options.on_token = [&](int32_t, std::string_view delta) {
        pending.append(delta);
        if (sinceFlush.elapsed() >= kFlushMs) flush();
        return !stopRequested(id);
    };
    auto result = session->generate(options);
    flush();
    clearActive();
    if (!result) {
        emit failed(id, QString::fromStdString(result.error_message()));
        return;
    }
    fillReport();
    report.memoryBytes = residentMemoryBytes();
    report.stopReason =
        stopRequested(id) ? QStringLiteral("stopped") : stopReasonText(result->reason);
    emit finished(id, QString::fromStdString(result->text), report);
}

QVariantMap EngineWorker::describeModel() const {
    const ModelInfo& info = m_model->info();
    QVariantList backends;
    QString used;
    for (const BackendReport& b : info.backends) {
        backends.append(QVariantMap{{QStringLiteral("name"), QString::fromStdString(b.name)},
                                    {QStringLiteral("used"), b.used},
                                    {QStringLiteral("reason"), QString::fromStdString(b.reason)}});
        if (b.used) used = QString::fromStdString(b.name);
    }
    return {
        // The file the person chose (recent models, reload); weightsPath is the file in use,
        // the cached conversion when the weights were converted to 4-bit.
        {QStringLiteral("path"),
         QString::fromStdString(info.source_path.empty() ? info.path : info.source_path)},
        {QStringLiteral("weightsPath"), QString::fromStdString(info.path)},
        {QStringLiteral("name"), QString::fromStdString(info.name)},
        {QStringLiteral("architecture"), QString::fromStdString(info.architecture)},
        {QStringLiteral("fileBytes"), static_cast<qint64>(info.file_bytes)},
        {QStringLiteral("parameters"), static_cast<qint64>(info.n_params)},
        {QStringLiteral("activeParameters"), static_cast<qint64>(info.n_params_active)},
        {QStringLiteral("experts"), static_cast<qint64>(info.n_expert)},
        {QStringLiteral("expertsUsed"), static_cast<qint64>(info.n_expert_used)},
        {QStringLiteral("contextTrained"), static_cast<qint64>(info.n_ctx_train)},
        {QStringLiteral("weightTypes"), QString::fromStdString(info.weight_types)},
        {QStringLiteral("device"), QString::fromStdString(info.device)},
        {QStringLiteral("backend"), used.isEmpty() ? QStringLiteral("cpu") : used},
        {QStringLiteral("backends"), backends},
        {QStringLiteral("hasChatTemplate"), info.has_chat_template},
        {QStringLiteral("memoryBytes"), residentMemoryBytes()},
        {QStringLiteral("int4Converted"), info.int4_converted},
        {QStringLiteral("int4CacheHit"), info.int4_cache_hit},
        {QStringLiteral("int4SourceTypes"), QString::fromStdString(info.int4_source_types)},
    };
}

}  // namespace hearth::app
