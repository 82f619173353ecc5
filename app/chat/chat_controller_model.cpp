// ChatController: loading and unloading models, settings that affect the engine, statistics.
#include <QDir>
#include <QFileInfo>
#include <QLocale>

#include "backend_label.h"
#include "chat_controller.h"
#include "engine_worker.h"
#include "model_picker.h"
#include "model_probe.h"
#include "queued_call.h"

namespace hearth::app {

namespace {

// The engine's fit check refused the model before reading it (it can be loaded anyway).
bool isFitRefusal(const QString& message) {
    return message.contains(QLatin1String(" available; try INT4 weights or a shorter context"));
}

// Turns the engine's message into one a person can act on, keeping the engine's words.
QString explainLoadFailure(const QString& file, const QString& message) {
    const QString lower = message.toLower();
    QString what;
    if (isFitRefusal(message))
        what = ChatController::tr("It needs more memory than this computer has available.");
    else if (lower.contains(QLatin1String("architecture")))
        what = ChatController::tr("This model's architecture is not supported yet.");
    else if (lower.contains(QLatin1String("memory")) || lower.contains(QLatin1String("alloc")))
        what = ChatController::tr("There is not enough memory to load this model.");
    else
        what = ChatController::tr("The file may be damaged or incomplete.");
    return ChatController::tr("“%1” could not be loaded. %2\nDetails: %3").arg(file, what, message);
}

}  // namespace

bool ChatController::loadModel(const QUrl& url) {
    ModelPicker picker;
    if (!picker.offer(url)) {
        setModelError(picker.errorMessage());
        emit modelLoadFailed(picker.errorMessage());
        return false;
    }
    if (m_generating) stop();
    setModelError({});
    if (m_modelState == QLatin1String("ready")) m_reloadNeededBefore = m_reloadNeeded;
    m_reloadNeeded = false;
    emit reloadNeededChanged();
    const qint64 loadId = ++m_loadId;
    m_modelState = QStringLiteral("loading");
    m_modelInfo = {{QStringLiteral("name"), picker.fileName()},
                   {QStringLiteral("path"), picker.filePath()},
                   {QStringLiteral("sizeText"), picker.sizeText()}};
    m_loadFraction = 0;
    m_loadPhase = QStringLiteral("loading");
    m_loadBytesText.clear();
    emit modelChanged();
    emit loadProgressChanged();
    const QString path = picker.filePath();
    EngineConfig config = engineConfig();
    config.forceLoad = m_forceNextLoad;
    m_forceNextLoad = false;
    if (m_modelTooLarge) {
        m_modelTooLarge = false;
        emit modelErrorChanged();
    }
    // A load or 4-bit conversion still running is abandoned for this one.
    m_worker->cancelLoad(loadId - 1);
    postQueued(m_worker.get(),
               [w = m_worker.get(), loadId, path, config] { w->loadModel(loadId, path, config); });
    return true;
}

QString ChatController::loadText() const {
    const int percent = qRound(m_loadFraction * 100);
    if (m_loadPhase == QLatin1String("connecting"))
        return tr("Connecting to %1…").arg(m_modelInfo.value(QStringLiteral("host")).toString());
    if (m_loadPhase == QLatin1String("converting"))
        return tr("Converting to 4-bit… %1%").arg(percent);
    if (m_loadPhase == QLatin1String("preparing"))
        return tr("Preparing the weights… %1%").arg(percent);
    return tr("Loading… %1%").arg(percent);
}

QString ChatController::int4CacheDir() const {
    return m_dataDir.isEmpty() ? QString() : QDir(m_dataDir).filePath(QStringLiteral("cache"));
}

EngineConfig ChatController::engineConfig() const {
    EngineConfig config = m_settings ? m_settings->engineConfig() : EngineConfig{};
    config.int4CacheDir = int4CacheDir();
    config.savedContextDir = savedContextDir();
    return config;
}

QString ChatController::savedContextDir() const {
    return m_dataDir.isEmpty() ? QString() : QDir(m_dataDir).filePath(QStringLiteral("kv"));
}

void ChatController::refreshSavedContext() {
    qint64 bytes = 0;
    const QDir dir(savedContextDir());
    if (!m_dataDir.isEmpty())
        for (const QFileInfo& fi : dir.entryInfoList(QDir::Files)) bytes += fi.size();
    m_savedContextText = formatFileSize(bytes);
    emit savedContextChanged();
}

void ChatController::clearSavedContext() {
    postQueued(m_worker.get(), [w = m_worker.get()] { w->clearSavedContext(); });
}

void ChatController::clearInt4Cache() {
    const QString dir = int4CacheDir();
    postQueued(m_worker.get(), [w = m_worker.get(), dir] { w->clearInt4Cache(dir); });
}

void ChatController::cancelLoad() {
    if (m_modelState == QLatin1String("loading")) m_worker->cancelLoad(m_loadId);
}

void ChatController::unloadModel() {
    if (m_generating) stop();
    ++m_loadId;  // a load still running is forgotten
    m_worker->cancelLoad(m_loadId - 1);
    postQueued(m_worker.get(), [w = m_worker.get()] { w->unloadModel(); });
    m_modelState = QStringLiteral("none");
    m_modelInfo.clear();
    m_modelKept = false;
    m_reloadNeeded = false;
    emit reloadNeededChanged();
    emit modelChanged();
}

void ChatController::loadModelAnyway() {
    if (m_failedPath.isEmpty()) return;
    m_forceNextLoad = true;
    loadModel(QUrl::fromLocalFile(m_failedPath));
}

void ChatController::reloadModel() {
    if (modelIsRemote()) {
        loadRemoteModel(m_modelInfo.value(QStringLiteral("connectionId")).toString(),
                        m_modelInfo.value(QStringLiteral("name")).toString());
        return;
    }
    const QString path = m_modelInfo.value(QStringLiteral("path")).toString();
    if (!path.isEmpty()) loadModel(QUrl::fromLocalFile(path));
}

void ChatController::onModelLoaded(qint64 loadId, const QVariantMap& info) {
    if (loadId != m_loadId) return;
    applyModelInfo(info);
    m_reloadNeededBefore = false;
    m_templateNotesShown.clear();  // a new model: its notes are new
    if (m_settings && !modelIsRemote()) {
        m_settings->addRecentModel(info.value(QStringLiteral("path")).toString());
        m_settings->setLastModel(info.value(QStringLiteral("path")).toString());
    }
    m_templateNote.clear();
    emit templateNoteChanged();
    emit loadProgressChanged();
    emit modelChanged();
    emit modelLoaded();
}

// A load failed or was cancelled and the engine kept the model it had: that one is in use.
void ChatController::onModelKept(qint64 loadId, const QVariantMap& info) {
    if (loadId != m_loadId) return;
    applyModelInfo(info);
    m_modelKept = true;
    if (m_reloadNeededBefore != m_reloadNeeded) {
        m_reloadNeeded = m_reloadNeededBefore;
        emit reloadNeededChanged();
    }
    emit loadProgressChanged();
    emit modelChanged();
}

void ChatController::applyModelInfo(const QVariantMap& info) {
    m_modelInfo = info;
    const qint64 bytes = info.value(QStringLiteral("fileBytes")).toLongLong();
    m_modelInfo[QStringLiteral("sizeText")] = ModelPicker::formatBytes(bytes);
    const QString used = info.value(QStringLiteral("backend")).toString();
    m_modelInfo[QStringLiteral("backendLabel")] =
        badgeLabel(used, info.value(QStringLiteral("device")).toString());
    QStringList why;
    QVariantMap available;
    for (const QVariant& v : info.value(QStringLiteral("backends")).toList()) {
        const QVariantMap b = v.toMap();
        const QString name = b.value(QStringLiteral("name")).toString();
        const QString reason = b.value(QStringLiteral("reason")).toString();
        available[name] = reason;
        if (b.value(QStringLiteral("used")).toBool())
            why << tr("%1: in use (%2)")
                       .arg(backendLabel(name), info.value(QStringLiteral("device")).toString());
        else
            why << tr("%1: %2").arg(backendLabel(name),
                                    reason.isEmpty() ? tr("available, not chosen") : reason);
    }
    const qint64 gpuLayers = info.value(QStringLiteral("gpuLayers")).toLongLong();
    if (gpuLayers > 0)  // a CPU + accelerator split
        why.prepend(tr("%1 of %2 layers on %3, the rest on the CPU")
                        .arg(gpuLayers)
                        .arg(info.value(QStringLiteral("layers")).toLongLong())
                        .arg(backendLabel(used)));
    m_modelInfo[QStringLiteral("backendTip")] = why.join(QLatin1Char('\n'));
    m_modelInfo[QStringLiteral("backendReasons")] = available;
    if (info.value(QStringLiteral("int4Converted")).toBool()) {
        const QString from = info.value(QStringLiteral("int4SourceTypes")).toString();
        m_modelInfo[QStringLiteral("weightsTip")] =
            from.isEmpty() ? tr("4-bit (converted)") : tr("4-bit (converted from %1)").arg(from);
    }
    if (info.value(QStringLiteral("remote")).toBool()) {  // a model on a server
        const QString host = info.value(QStringLiteral("host")).toString();
        m_modelInfo[QStringLiteral("sizeText")] = QString();
        m_modelInfo[QStringLiteral("backendLabel")] = tr("Remote · %1").arg(host);
        m_modelInfo[QStringLiteral("backendTip")] =
            tr("Runs on the server “%1” (%2); each message is sent there.")
                .arg(info.value(QStringLiteral("connectionName")).toString(),
                     info.value(QStringLiteral("baseUrl")).toString());
    }
    m_modelState = QStringLiteral("ready");
    m_loadFraction = 1;
}

void ChatController::onModelLoadFailed(qint64 loadId, const QString& path, const QString& message) {
    if (loadId != m_loadId) return;
    if (!std::exchange(m_modelKept, false)) {  // else the previous model is still in use
        m_modelState = QStringLiteral("none");
        m_modelInfo.clear();
        emit modelChanged();
    }
    if (message.contains(QLatin1String("cancelled"))) return;  // the person asked for it
    m_failedPath = path;
    m_modelTooLarge = isFitRefusal(message);
    setModelError(explainLoadFailure(QFileInfo(path).fileName(), message));
    emit modelErrorChanged();
    emit modelLoadFailed(message);
}

namespace {

// The engine's reason in words a person can act on (the engine's text is for bug reports).
QString plainTemplateNote(const QString& note) {
    if (note.contains(QLatin1String("system message")))
        return ChatController::tr(
            "This model has no separate place for a system prompt, so Hearth puts it at the "
            "start of your first message.");
    if (note.contains(QLatin1String("built-in")))
        return ChatController::tr(
            "This model's own chat format could not be used, so Hearth uses a standard one. "
            "Replies may be a little off; a newer file of this model may fix it.");
    return ChatController::tr("Hearth adjusted this model's chat format.");
}

}  // namespace

void ChatController::onTemplateNote(qint64 chatId, const QString& note) {
    // Once per model, not with every reply.
    if (chatId != m_replyChatId || m_templateNotesShown.contains(note)) return;
    m_templateNotesShown.append(note);
    m_templateNote = plainTemplateNote(note);
    emit templateNoteChanged();
}

void ChatController::onSettingChanged(const QString& key) {
    if (key.startsWith(QLatin1String("apiServer"))) applyApiServerSettings();
    if (AppSettings::needsReload(key) && m_modelState == QLatin1String("ready") &&
        !modelIsRemote()) {
        if (!m_reloadNeeded) m_reloadSettings.clear();
        if (!m_reloadSettings.contains(key)) m_reloadSettings.append(key);
        m_reloadNeeded = true;
        emit reloadNeededChanged();
    }
    if (AppSettings::needsNewContext(key)) {
        const EngineConfig config = engineConfig();
        postQueued(m_worker.get(), [w = m_worker.get(), config] { w->setConfig(config); });
    }
}

void ChatController::setStatsFrom(const GenerationReport& r) {
    m_stats = {
        {QStringLiteral("tokensPerSecond"), r.tokensPerSecond},
        {QStringLiteral("generatedTokens"), r.generatedTokens},
        {QStringLiteral("promptTokens"), r.promptTokens},
        {QStringLiteral("promptTokensPerSecond"), r.promptTokensPerSecond},
        {QStringLiteral("ttftMs"), r.timeToFirstTokenMs},
        {QStringLiteral("contextUsed"), r.contextUsed},
        {QStringLiteral("contextSize"), r.contextSize},
        {QStringLiteral("reusedTokens"), r.reusedTokens},
        {QStringLiteral("computedTokens"), r.computedTokens},
        {QStringLiteral("restoredTokens"), r.restoredTokens},
        {QStringLiteral("kvType"), r.kvType},
        {QStringLiteral("backend"), backendLabel(r.backend)},
        {QStringLiteral("memoryText"),
         r.memoryBytes > 0 ? formatFileSize(r.memoryBytes) : QString()},
        {QStringLiteral("drafter"), r.drafter},
        {QStringLiteral("acceptance"),
         r.drafted > 0 ? double(r.accepted) / double(r.drafted) : 0.0},
        {QStringLiteral("meanAcceptedLength"), r.meanAcceptedLength},
        {QStringLiteral("speculativeNote"), r.speculativeNote},
    };
    emit statsChanged();
}

void ChatController::setModelError(const QString& message) {
    if (m_modelError == message) return;
    m_modelError = message;
    emit modelErrorChanged();
}

void ChatController::clearModelError() {
    setModelError({});
}

void ChatController::clearTemplateNote() {
    m_templateNote.clear();
    emit templateNoteChanged();
}

}  // namespace hearth::app
