#include "engine_worker.h"

#include <QFile>
#include <QFileInfo>
#include <QThread>

#include <algorithm>
#include <filesystem>

#include "chat_session.h"
#include "engine_worker_api.h"
#include "hearth/engine.h"
#include "hearth/session.h"
#include "hearth/speculative.h"
#include "model_probe.h"
#include "remote_engine.h"
#include "saved_contexts.h"
#include "scheduled_chat.h"

namespace hearth::app {

namespace {

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
    m_api = std::make_unique<ApiServerState>();
}

EngineWorker::~EngineWorker() {
    // The app is quitting (the engine thread has stopped): chats continue after a restart.
    dropSessions(/*save=*/true);
}

qint64 automaticKvMemory(qint64 contextBytes) {
    qint64 available = 0;
    QFile meminfo(QStringLiteral("/proc/meminfo"));
    if (meminfo.open(QIODevice::ReadOnly)) {
        for (const QByteArray& line : meminfo.readAll().split('\n')) {
            if (line.startsWith("MemAvailable:")) {
                const QList<QByteArray> parts = line.simplified().split(' ');
                if (parts.size() >= 2) available = parts[1].toLongLong() * 1024;
            }
        }
    }
    if (available <= 0 || contextBytes <= 0) return 0;  // the engine's default: two contexts
    return std::clamp(available / 4, 2 * contextBytes, 8 * contextBytes);
}

void EngineWorker::requestStop(qint64 requestId) {
    raiseTo(m_stopUpTo, requestId);
    std::lock_guard lock(m_activeMutex);
    if (m_activeToken && m_activeId <= requestId) m_activeToken->store(true);
}

void EngineWorker::cancelLoad(qint64 loadId) {
    raiseTo(m_cancelLoadUpTo, loadId);
    if (m_loadingId.load() <= loadId) m_loadCancelFlag.store(true);
}

bool EngineWorker::stopRequested(qint64 requestId) const {
    return requestId <= m_stopUpTo.load();
}

void EngineWorker::loadModel(qint64 loadId, const QString& path, const EngineConfig& config) {
    m_loadingId.store(loadId);
    m_loadCancelFlag.store(loadId <= m_cancelLoadUpTo.load());
    // The model in use stays until the new one is in: a file that fails any check, a load that
    // fails or is cancelled (an INT4 reload included) leaves it loaded.
    auto refuse = [&](const QString& message) {
        if (m_model || m_remoteTarget) send(&EngineWorker::modelKept, loadId, describeModel());
        send(&EngineWorker::modelLoadFailed, loadId, path, message);
    };
    if (m_loadCancelFlag.load()) return refuse(QStringLiteral("cancelled"));
    // Header, metadata and the memory estimate, before anything in use is touched.
    const qint64 freed = m_model ? static_cast<qint64>(m_model->info().file_bytes) : 0;
    const ModelProbe probe =
        probeModel(path, config.contextLength, config.contextBeyondTraining, config.kvType, freed);
    if (!probe.ok()) return refuse(probe.error);
    if (probe.physicalBytes > 0 && probe.estimateBytes > probe.physicalBytes) {
        return refuse(
            tr("not enough memory: it needs about %1, this computer has %2")
                .arg(formatFileSize(probe.estimateBytes), formatFileSize(probe.physicalBytes)));
    }

    dropRemote();
    stopApiServer();
    dropSessions(/*save=*/true);
    // The weights are memory-mapped, so holding the previous model while the new one loads
    // costs address space, not a second copy in memory.
    std::shared_ptr<Model> previous = std::move(m_model);
    setConfig(config);

    LoadOptions options;
    options.backend = config.backend.toStdString();
    bool layersOk = false;
    const int layers = config.gpuLayers.toInt(&layersOk);
    options.gpu_layers = layersOk && layers >= 0 ? layers : kGpuLayersAuto;
    options.force = config.forceLoad;
    // The fit check and the automatic layer count plan for the context the chats will use.
    options.n_ctx = config.contextLength;
    options.ctx_beyond_training = config.contextBeyondTraining;
    if (const auto kv = parse_kv_type(config.kvType.toStdString())) options.kv_type = *kv;
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
        send(&EngineWorker::loadProgress, loadId, QString::fromStdString(p.phase), p.fraction,
             static_cast<qint64>(p.bytes_done), static_cast<qint64>(p.bytes_total));
    };
    auto model = Model::load(path.toStdString(), options);
    if (!model) {
        m_model = std::move(previous);
        startApiServer();  // back on the model still in use
        return refuse(QString::fromStdString(model.error_message()));
    }
    previous.reset();
    // The draft model is checked against the new model's vocabulary when next needed.
    m_draftModel.reset();
    m_model = std::move(*model);
    send(&EngineWorker::modelLoaded, loadId, describeModel());
    startApiServer();
}

void EngineWorker::unloadModel() {
    dropRemote();
    stopApiServer();
    dropSessions(/*save=*/true);
    m_draftModel.reset();
    m_model.reset();
    send(&EngineWorker::modelUnloaded);
}

void EngineWorker::clearInt4Cache(const QString& dir) {
    const uint64_t freed = clear_int4_cache(
        dir.isEmpty() ? std::filesystem::path() : std::filesystem::path(dir.toStdString()));
    send(&EngineWorker::int4CacheCleared, static_cast<qint64>(freed));
}

void EngineWorker::clearSavedContext() {
    const qint64 freed = m_saved ? m_saved->clear() : 0;
    // What is in memory is still valid; it is written again when next evicted.
    for (SessionSlot& slot : m_sessions) slot.dirty = true;
    send(&EngineWorker::savedContextCleared, freed);
}

void EngineWorker::setConfig(const EngineConfig& config) {
    const bool rebuild = !config.sameContext(m_config);
    const bool newDir = config.savedContextDir != m_config.savedContextDir;
    if (rebuild || newDir) dropSessions(/*save=*/true);
    if (config.speculative != m_config.speculative ||
        config.draftModelPath != m_config.draftModelPath) {
        m_drafter.reset();
        m_drafterNote.clear();
    }
    if (config.draftModelPath != m_config.draftModelPath) m_draftModel.reset();
    m_config = config;
    if (newDir)
        m_saved = config.savedContextDir.isEmpty()
                      ? nullptr
                      : std::make_unique<SavedContexts>(config.savedContextDir,
                                                        config.savedContextLimitBytes);
    if (m_saved) {
        m_saved->setLimit(config.savedContextLimitBytes);
        m_saved->enforceLimit();
    }
}

QString EngineWorker::kvTypeName() const {
    return m_store ? QString::fromLatin1(kv_type_name(m_store->kv_type())) : QString();
}

void EngineWorker::saveSlot(SessionSlot& slot) {
    if (!m_saved || !m_store || !slot.dirty || slot.session->tokensInCache() == 0) return;
    const QString path = m_saved->pathFor(slot.chatId, m_modelKey, kvTypeName());
    if (Status s = slot.session->save(std::filesystem::path(path.toStdString())); !s) {
        qWarning("hearth: saving the context of chat %lld failed: %s",
                 static_cast<long long>(slot.chatId), s.message().c_str());
        return;
    }
    if (m_saved->recordSaved(path, slot.messages)) slot.dirty = false;
}

void EngineWorker::saveAll() {
    for (SessionSlot& slot : m_sessions) saveSlot(slot);
}

void EngineWorker::dropSessions(bool save) {
    if (save) saveAll();
    m_sessions.clear();
    m_drafter.reset();  // its context follows the store's
    m_drafterNote.clear();
    m_store.reset();
}

Drafter* EngineWorker::drafter(QString& note) {
    note = m_drafterNote;
    if (m_drafter || !m_drafterNote.isEmpty() || !m_model || !m_store) return m_drafter.get();
    if (m_config.speculative == QLatin1String("lookup")) {
        m_drafter = make_lookup_drafter();
    } else if (m_config.speculative == QLatin1String("draft")) {
        if (m_config.draftModelPath.isEmpty()) {
            m_drafterNote = tr("no draft model is chosen");
        } else {
            if (!m_draftModel) {
                LoadOptions options;
                options.backend = m_config.backend.toStdString();
                auto model = Model::load(m_config.draftModelPath.toStdString(), options);
                if (model)
                    m_draftModel = std::move(*model);
                else
                    m_drafterNote = tr("the draft model could not be loaded: %1")
                                        .arg(QString::fromStdString(model.error_message()));
            }
            if (m_draftModel) {
                DraftModelOptions options;
                options.n_ctx = m_store->n_ctx();
                options.kv_type = m_store->kv_type();
                options.n_threads = m_config.threads;
                auto d = make_model_drafter(*m_model, m_draftModel, options);
                if (d)
                    m_drafter = std::move(*d);
                else
                    m_drafterNote = QString::fromStdString(d.error_message());
            }
        }
    }
    note = m_drafterNote;
    return m_drafter.get();
}

void EngineWorker::forgetChat(qint64 chatId) {
    m_sessions.remove_if([&](const SessionSlot& s) { return s.chatId == chatId; });
    if (m_saved) m_saved->removeChat(chatId);
}

bool EngineWorker::ensureStore(QString& error) {
    if (m_store) return true;
    KvStoreOptions options;
    auto kv = parse_kv_type(m_config.kvType.toStdString());
    if (!kv) {
        error = tr("The KV cache type “%1” in Settings is not known (f16, f32, q8_0, q4_0).")
                    .arg(m_config.kvType);
        return false;
    }
    options.kv_type = *kv;
    const ModelInfo& info = m_model->info();
    options.n_ctx = m_config.contextLength > 0 ? m_config.contextLength
                    : info.n_ctx_train > 0     ? std::min<int64_t>(info.n_ctx_train, 4096)
                                               : 4096;
    if (m_config.kvMemoryBytes > 0) {
        options.budget_bytes = static_cast<uint64_t>(m_config.kvMemoryBytes);
    } else {
        // One position of every layer's K and V, in bytes of the KV type.
        const double perValue = *kv == KvType::F32    ? 4.0
                                : *kv == KvType::F16  ? 2.0
                                : *kv == KvType::Q8_0 ? 34.0 / 32
                                                      : 18.0 / 32;
        const int64_t kvWidth =
            info.n_head > 0 ? info.n_embd / info.n_head * std::max<int64_t>(info.n_head_kv, 1) : 0;
        const auto contextBytes =
            static_cast<qint64>(2.0 * perValue * double(info.n_layer * kvWidth * options.n_ctx));
        options.budget_bytes = static_cast<uint64_t>(automaticKvMemory(contextBytes));
    }
    auto store = KvStore::create(m_model, options);
    if (!store) {
        error = QString::fromStdString(store.error_message());
        return false;
    }
    m_store = std::move(*store);
    m_modelKey = SavedContexts::modelKey(m_store->model_identity());
    return true;
}

void EngineWorker::evictFor(int64_t blocks, const SessionSlot* keep) {
    while (m_store && m_store->stats().n_free < blocks) {
        auto victim = std::find_if(m_sessions.rbegin(), m_sessions.rend(),
                                   [&](const SessionSlot& s) { return &s != keep; });
        if (victim == m_sessions.rend()) return;
        saveSlot(*victim);
        m_sessions.erase(std::next(victim).base());
    }
}

EngineWorker::SessionSlot* EngineWorker::slotFor(qint64 chatId, const QList<QByteArray>& messages,
                                                 const CancelToken& cancel, qint64& restored,
                                                 QString& error) {
    auto it = std::find_if(m_sessions.begin(), m_sessions.end(),
                           [&](const SessionSlot& s) { return s.chatId == chatId; });
    if (it != m_sessions.end()) {
        m_sessions.splice(m_sessions.begin(), m_sessions, it);
        return &m_sessions.front();
    }
    SessionOptions options;
    options.n_threads = m_config.threads;
    // Room left for the reply when old turns must be dropped: an eighth of the context (a
    // longer reply stops at the context's end and the next turn drops more).
    options.reply_reserve = std::clamp<int64_t>(m_store->n_ctx() / 8, 16, 256);
    auto session = ChatSession::create(m_model, m_store, options);
    if (!session) {
        error = QString::fromStdString(session.error_message());
        return nullptr;
    }
    m_sessions.push_front({chatId, std::move(*session), {}, false});
    SessionSlot& slot = m_sessions.front();
    if (!m_saved) return &slot;
    QString why;
    const auto path = m_saved->find(chatId, m_modelKey, kvTypeName(), messages, &why);
    if (!path) return &slot;
    // Room for the saved chat: colder chats are saved and closed first.
    evictFor(static_cast<int64_t>(
                 QFileInfo(*path).size() /
                 std::max<qint64>(1, static_cast<qint64>(m_store->stats().block_bytes))) +
                 1,
             &slot);
    auto n = slot.session->restore(std::filesystem::path(path->toStdString()), cancel);
    if (!n) {
        // Another model or KV type, damaged, or no room: never trusted, recomputed instead.
        qWarning("hearth: the saved context of chat %lld was not used: %s",
                 static_cast<long long>(chatId), n.error_message().c_str());
        if (!cancel || !cancel->load()) SavedContexts::remove(*path);
        return &slot;
    }
    SavedContexts::touch(*path);
    restored = *n;
    return &slot;
}

void EngineWorker::generate(const GenerationRequest& request) {
    const qint64 id = request.requestId;
    if (m_remoteTarget) return generateRemote(request);
    if (!m_model) {
        send(&EngineWorker::failed, id, tr("No model is loaded."));
        return;
    }
    GenerationReport report;
    report.sampling = request.sampling;
    QElapsedTimer sinceStart;
    sinceStart.start();
    auto token = std::make_shared<std::atomic<bool>>(false);
    {
        std::lock_guard lock(m_activeMutex);
        m_activeId = id;
        m_activeToken = token;
    }
    // A Stop raised before the token was registered.
    if (stopRequested(id)) token->store(true);
    auto clearActive = [this] {
        std::lock_guard lock(m_activeMutex);
        m_activeToken.reset();
    };
    auto stopped = [&] {
        clearActive();
        report.stopReason = QStringLiteral("stopped");
        send(&EngineWorker::finished, id, QString(), report);
    };
    if (token->load()) return stopped();
    QString error;
    if (!ensureStore(error)) {
        clearActive();
        send(&EngineWorker::failed, id, error);
        return;
    }
    report.kvType = kvTypeName();
    report.backend = QString::fromStdString(
        m_model->info().device.empty() ? std::string("cpu") : m_model->info().device);
    for (const BackendReport& b : m_model->info().backends)
        if (b.used) report.backend = QString::fromStdString(b.name);
    report.kvMemoryBytes = static_cast<qint64>(m_store->stats().bytes);

    std::vector<SessionMessage> messages;
    QList<QByteArray> keys;
    for (const PromptEntry& m : request.messages) {
        messages.push_back({m.role.toStdString(), m.content.toStdString()});
        keys.append(SavedContexts::messageKey(m.role, m.content));
    }
    auto chat = ChatSession::render(*m_model, messages);
    if (!chat) {
        clearActive();
        send(&EngineWorker::failed, id, QString::fromStdString(chat.error_message()));
        return;
    }
    if (!chat->templateNote.empty())
        send(&EngineWorker::templateNote, request.chatId,
             QString::fromStdString(chat->templateNote));
    if (!request.continueText.isEmpty() && !chat->turns.empty()) {
        // Continue: the reply so far follows the assistant header as plain text, so the model
        // writes on from where it stopped.
        auto more = m_model->tokenize(request.continueText.toStdString(), /*add_special=*/false,
                                      /*parse_special=*/false);
        if (!more) {
            clearActive();
            send(&EngineWorker::failed, id, QString::fromStdString(more.error_message()));
            return;
        }
        chat->turns.back().insert(chat->turns.back().end(), more->begin(), more->end());
        chat->n_tokens += static_cast<int64_t>(more->size());
    }

    // While the API server is on, chats are requests of its scheduler.
    if (m_api->scheduler && generateOnScheduler(request, *chat, report, token, sinceStart)) return;

    SessionSlot* slot = slotFor(request.chatId, keys, token, report.restoredTokens, error);
    if (!slot) {
        clearActive();
        send(&EngineWorker::failed, id, error);
        return;
    }
    ChatSession* session = slot->session.get();
    session->resetStats();
    const auto hitsBefore = m_store->stats().prefix_hit_blocks;
    // Room for the new part and the reply; colder chats are saved and closed first.
    {
        const auto cached = session->cachedTokens();
        std::vector<int32_t> flat;
        for (const auto& t : chat->turns) flat.insert(flat.end(), t.begin(), t.end());
        const auto mis = std::mismatch(cached.begin(), cached.end(), flat.begin(), flat.end());
        const int64_t fresh =
            static_cast<int64_t>(flat.end() - mis.second) + std::max(1, request.sampling.maxTokens);
        evictFor(std::min<int64_t>(fresh / 16 + 2, m_store->stats().n_blocks), slot);
    }
    auto turn = session->prefill(*chat, token);
    // The cache may still be short of blocks when others' prefixes were counted as free.
    while (!turn && turn.error_message().find("exhausted") != std::string::npos &&
           m_sessions.size() > 1 && !token->load()) {
        evictFor(m_store->stats().n_free + 1, slot);
        turn = session->prefill(*chat, token);
    }
    slot->dirty = true;
    slot->messages = keys;

    // While the reply streams the session's stats are not taken yet (they are, once generate()
    // returns): the live count and speed come from the tokens seen here and a clock started
    // with generate(), the same span the session measures.
    QElapsedTimer generateClock;
    int64_t liveGenerated = 0;
    bool streamingNow = false;
    auto fillReport = [&] {
        const GenerationStats& st = session->stats();
        report.computedTokens = st.prompt_tokens;
        report.generatedTokens = st.generated_tokens;
        report.promptTokensPerSecond = st.prompt_tokens_per_second();
        report.tokensPerSecond = st.generate_tokens_per_second();
        if (streamingNow && generateClock.isValid()) {
            const double seconds = static_cast<double>(generateClock.nsecsElapsed()) / 1e9;
            report.generatedTokens = liveGenerated;
            report.tokensPerSecond = seconds > 0 ? static_cast<double>(liveGenerated) / seconds : 0;
        }
        report.contextUsed = session->tokensInCache();
        report.contextSize = session->contextSize();
        report.tokensComputedTotal = st.tokens_computed;
        report.sharedPrefixBlocks =
            static_cast<qint64>(m_store->stats().prefix_hit_blocks - hitsBefore);
    };
    if (!turn) {
        fillReport();
        if (token->load() || stopRequested(id)) {
            // What was computed before the Stop stays in the cache for the next turn.
            return stopped();
        }
        clearActive();
        send(&EngineWorker::failed, id, QString::fromStdString(turn.error_message()));
        return;
    }
    report.promptTokens = turn->promptTokens;
    report.reusedTokens = turn->reusedTokens;
    for (size_t i : turn->droppedMessages) report.droppedMessages.append(static_cast<int>(i));

    GenerateOptions options;
    const SamplingConfig& s = request.sampling;
    options.max_tokens = std::max(1, s.maxTokens);
    options.sampling = samplingParams(s);
    options.stop_strings = turn->stopStrings;

    std::string pending;
    QElapsedTimer sinceFlush;
    sinceFlush.start();
    bool flushedOnce = false;
    auto flush = [&] {
        if (pending.empty()) return;
        flushedOnce = true;
        send(&EngineWorker::tokens, id, QString::fromStdString(pending));
        pending.clear();
        fillReport();
        send(&EngineWorker::progress, id, report);
        sinceFlush.restart();
    };
    bool first = true;
    options.on_token = [&](int32_t tok, std::string_view delta) {
        if (first && tok >= 0) {
            // From the request's arrival: restore, prompt and the first token.
            report.timeToFirstTokenMs = static_cast<double>(sinceStart.nsecsElapsed()) / 1e6;
            first = false;
        }
        if (tok >= 0) ++liveGenerated;
        pending.append(delta);
        // The first text is shown at once (it is what the person waited for), later text in
        // batches.
        if (!flushedOnce || sinceFlush.elapsed() >= kFlushMs) flush();
        return !stopRequested(id);
    };
    Drafter* draft = drafter(report.speculativeNote);
    if (draft) draft->reset_stats();
    streamingNow = true;
    generateClock.start();
    auto result = session->generate(options, token, draft);
    streamingNow = false;
    if (draft) {
        const SpeculativeStats& ss = draft->stats();
        report.drafter = QString::fromUtf8(draft->name().data(), qsizetype(draft->name().size()));
        report.drafted = ss.drafted;
        report.accepted = ss.accepted;
        report.meanAcceptedLength = ss.mean_accepted_length();
    }
    flush();
    clearActive();
    if (!result) {
        send(&EngineWorker::failed, id, QString::fromStdString(result.error_message()));
        return;
    }
    fillReport();
    report.memoryBytes = residentMemoryBytes();
    report.stopReason =
        stopRequested(id) ? QStringLiteral("stopped") : stopReasonText(result->reason);
    // The reply is part of the chat the session holds (for the saved file's message list).
    slot->messages.append(SavedContexts::messageKey(
        QStringLiteral("assistant"), request.continueText + QString::fromStdString(result->text)));
    send(&EngineWorker::finished, id, QString::fromStdString(result->text), report);
}

QVariantMap EngineWorker::describeModel() const {
    if (!m_model && m_remoteTarget) return describeRemote();
    const ModelInfo& info = m_model->info();
    QVariantList backends;
    QString used;
    for (const BackendReport& b : info.backends) {
        backends.append(QVariantMap{{QStringLiteral("name"), QString::fromStdString(b.name)},
                                    {QStringLiteral("used"), b.used},
                                    {QStringLiteral("reason"), QString::fromStdString(b.reason)}});
    }
    // With a split the accelerator is named (the CPU runs the rest).
    used = QString::fromStdString(info.accel_device.empty() ? "cpu" : info.accel_device);
    // The context the chats ask for (as ensureStore does) and what the engine gives them.
    const int64_t asked = m_config.contextLength > 0 ? m_config.contextLength
                          : info.n_ctx_train > 0     ? std::min<int64_t>(info.n_ctx_train, 4096)
                                                     : 4096;
    const ContextLength chatContext =
        resolve_context_length(asked, info.n_ctx_train, info.ctx_beyond_training);
    QString contextNote;
    if (chatContext.clamped)
        contextNote = tr("This model was trained on %1 tokens, so chats use %1, not the %2 set "
                         "here (“Beyond the training length” keeps %2).")
                          .arg(info.n_ctx_train)
                          .arg(asked);
    else if (chatContext.beyond_training)
        contextNote = tr("Chats use %1 tokens, more than the %2 this model was trained on: "
                         "replies may lose coherence past %2.")
                          .arg(asked)
                          .arg(info.n_ctx_train);
    return {
        // The file the person chose (recent models, reload); weightsPath is the file in use,
        // the cached conversion when the weights were converted to 4-bit.
        {QStringLiteral("path"),
         QString::fromStdString(info.source_path.empty() ? info.path : info.source_path)},
        {QStringLiteral("weightsPath"), QString::fromStdString(info.path)},
        {QStringLiteral("name"),
         displayModelName(
             QString::fromStdString(info.name), QString::fromStdString(info.architecture),
             QString::fromStdString(info.source_path.empty() ? info.path : info.source_path))},
        {QStringLiteral("generalName"), QString::fromStdString(info.name)},
        {QStringLiteral("architecture"), QString::fromStdString(info.architecture)},
        {QStringLiteral("fileBytes"), static_cast<qint64>(info.file_bytes)},
        {QStringLiteral("parameters"), static_cast<qint64>(info.n_params)},
        {QStringLiteral("activeParameters"), static_cast<qint64>(info.n_params_active)},
        {QStringLiteral("experts"), static_cast<qint64>(info.n_expert)},
        {QStringLiteral("expertsUsed"), static_cast<qint64>(info.n_expert_used)},
        {QStringLiteral("contextTrained"), static_cast<qint64>(info.n_ctx_train)},
        // The context chats get and, when it differs from the setting or exceeds what the
        // model was trained on, why.
        {QStringLiteral("contextLength"), static_cast<qint64>(chatContext.n_ctx)},
        {QStringLiteral("contextNote"), contextNote},
        {QStringLiteral("weightTypes"), QString::fromStdString(info.weight_types)},
        {QStringLiteral("device"), QString::fromStdString(info.device)},
        {QStringLiteral("backend"), used.isEmpty() ? QStringLiteral("cpu") : used},
        {QStringLiteral("backends"), backends},
        {QStringLiteral("gpuLayers"), static_cast<qint64>(info.gpu_layers)},
        {QStringLiteral("layers"), static_cast<qint64>(info.n_layer)},
        {QStringLiteral("hasChatTemplate"), info.has_chat_template},
        {QStringLiteral("memoryBytes"), residentMemoryBytes()},
        {QStringLiteral("int4Converted"), info.int4_converted},
        {QStringLiteral("int4CacheHit"), info.int4_cache_hit},
        {QStringLiteral("int4SourceTypes"), QString::fromStdString(info.int4_source_types)},
    };
}

}  // namespace hearth::app
