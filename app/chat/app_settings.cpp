#include "app_settings.h"

#include <QDir>
#include <QFile>
#include <QStringDecoder>

#include "queued_call.h"

namespace hearth::app {

namespace {

struct Default {
    const char* key;
    QVariant value;
};

const QList<Default>& defaults() {
    static const QList<Default> list = {
        {"backend", QStringLiteral("auto")},  // auto, cuda, vulkan, cpu
        // Layers on the GPU: "auto" or a number.
        {"gpuLayers", QStringLiteral("auto")},
        {"kvType", QStringLiteral("f16")},  // f16, f32, q8, q4
        {"int4Weights", false},             // convert 16/8-bit models to 4-bit on load
        {"contextLength", 2048},            // tokens; 0: the model's (at most 4096)
        // Keep a context longer than the model's training context (else it is clamped).
        {"contextBeyondTraining", false},
        {"threads", 0},                 // 0: all
        {"kvMemoryMB", 0},              // the KV cache all chats share; 0: automatic
        {"savedContextLimitMB", 4096},  // chats' KV files on disk; LRU past this
        // Speculative decoding: off, lookup or draft (draftModel: the draft model's file).
        {"speculative", QStringLiteral("off")},
        {"draftModel", QString()},
        {"temperature", 0.8},
        {"topK", 40},
        {"topP", 0.95},
        {"minP", 0.05},
        {"repeatPenalty", 1.1},
        {"maxTokens", 512},
        {"systemPrompt", QString()},
        {"theme", QStringLiteral("system")},     // light, dark, system
        {"language", QStringLiteral("system")},  // system, en, zh_CN (applies after restart)
        {"fontScale", 1.0},
        {"reloadLastModel", true},        // load the model of the last session at start
        {"lastModel", QString()},         // its path (kept by Restore defaults)
        {"modelFolders", QStringList()},  // folders the model library lists
        {"apiServerEnabled", false},      // the local OpenAI-compatible API server (127.0.0.1)
        {"apiServerPort", 8080},
        {"apiServerKey", QString()},  // empty: no key (the server listens on this machine only)
    };
    return list;
}

QVariant coerce(const QVariant& stored, const QVariant& fallback) {
    QVariant v = stored;
    if (v.canConvert(fallback.metaType()) && v.convert(fallback.metaType())) return v;
    return fallback;
}

}  // namespace

QString AppSettings::filePath(const QString& dataDir) {
    return QDir(dataDir).filePath(QStringLiteral("settings.ini"));
}

// A settings file QSettings cannot parse (binary junk, a half-written line) is renamed to
// settings.ini.bad before QSettings opens the path, so the defaults apply, the next change
// writes a clean file, and the person's old file is kept to look at. Returns the message.
QString AppSettings::setAsideIfUnreadable(const QString& file) {
    QFile in(file);
    if (!in.exists()) return {};
    // QSettings reads binary junk without complaint (it skips what it cannot parse), so a file
    // that is not UTF-8 text, or holds NUL bytes, counts as unreadable too.
    bool bad = !in.open(QIODevice::ReadOnly);
    if (!bad) {
        const QByteArray bytes = in.readAll();
        in.close();
        QStringDecoder utf8(QStringDecoder::Utf8);
        const QString text = utf8(bytes);
        Q_UNUSED(text);  // decoding it is what sets hasError()
        bad = utf8.hasError() || bytes.contains('\0');
    }
    if (!bad) bad = QSettings(file, QSettings::IniFormat).status() != QSettings::NoError;
    if (!bad) return {};
    const QString aside = file + QStringLiteral(".bad");
    QFile::remove(aside);
    const bool moved = QFile::rename(file, aside);
    return moved ? QObject::tr(
                       "The settings file %1 could not be read, so the defaults are in "
                       "use; the old file was kept as %2.")
                       .arg(file, aside)
                 : QObject::tr(
                       "The settings file %1 could not be read, so the defaults are in "
                       "use.")
                       .arg(file);
}

AppSettings::AppSettings(const QString& dataDir, QObject* parent)
    : QQmlPropertyMap(this, parent),
      m_loadProblem(setAsideIfUnreadable(filePath(dataDir))),
      m_settings(filePath(dataDir), QSettings::IniFormat) {
    if (!m_loadProblem.isEmpty()) qWarning("%s", qPrintable(m_loadProblem));
    for (const Default& d : defaults()) {
        const QString key = QString::fromLatin1(d.key);
        insert(key, coerce(m_settings.value(key, d.value), d.value));
    }
    insert(QStringLiteral("recentModels"),
           m_settings.value(QStringLiteral("recentModels")).toStringList());
}

bool AppSettings::needsReload(const QString& key) {
    return key == QLatin1String("backend") || key == QLatin1String("int4Weights") ||
           key == QLatin1String("gpuLayers") || key == QLatin1String("contextBeyondTraining");
}

bool AppSettings::needsNewContext(const QString& key) {
    return key == QLatin1String("kvType") || key == QLatin1String("contextLength") ||
           key == QLatin1String("threads") || key == QLatin1String("kvMemoryMB") ||
           key == QLatin1String("savedContextLimitMB") || key == QLatin1String("speculative") ||
           key == QLatin1String("draftModel");
}

QVariant AppSettings::updateValue(const QString& key, const QVariant& input) {
    QVariant v = input;
    for (const Default& d : defaults()) {
        if (key == QLatin1String(d.key)) v = coerce(input, d.value);
    }
    store(key, v);
    return v;
}

void AppSettings::store(const QString& key, const QVariant& value) {
    m_settings.setValue(key, value);
    m_settings.sync();
    // valueChanged is only emitted for QML writes; settingChanged for every change. Queued so
    // listeners read the new value, which QQmlPropertyMap stores after updateValue returns.
    postQueued(this, [this, key] { emit settingChanged(key); });
}

void AppSettings::addRecentModel(const QString& path) {
    QStringList recent = value(QStringLiteral("recentModels")).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > 8) recent.removeLast();
    insert(QStringLiteral("recentModels"), recent);
    store(QStringLiteral("recentModels"), recent);
}

QVariant AppSettings::set(const QString& key, const QVariant& value) {
    const QVariant stored = updateValue(key, value);
    insert(key, stored);
    return stored;
}

void AppSettings::setLastModel(const QString& path) {
    insert(QStringLiteral("lastModel"), path);
    store(QStringLiteral("lastModel"), path);
}

QString AppSettings::modelToReload() const {
    if (!value(QStringLiteral("reloadLastModel")).toBool()) return {};
    const QString path = value(QStringLiteral("lastModel")).toString();
    return !path.isEmpty() && QFile::exists(path) ? path : QString();
}

void AppSettings::removeRecentModel(const QString& path) {
    QStringList recent = value(QStringLiteral("recentModels")).toStringList();
    recent.removeAll(path);
    insert(QStringLiteral("recentModels"), recent);
    store(QStringLiteral("recentModels"), recent);
}

void AppSettings::resetToDefaults() {
    for (const Default& d : defaults()) {
        const QString key = QString::fromLatin1(d.key);
        if (key == QLatin1String("lastModel") || key == QLatin1String("modelFolders")) continue;
        if (value(key) == d.value) continue;
        insert(key, d.value);
        store(key, d.value);
    }
}

EngineConfig AppSettings::engineConfig() const {
    EngineConfig c;
    c.backend = value(QStringLiteral("backend")).toString();
    c.gpuLayers = value(QStringLiteral("gpuLayers")).toString();
    c.contextLength = value(QStringLiteral("contextLength")).toInt();
    c.contextBeyondTraining = value(QStringLiteral("contextBeyondTraining")).toBool();
    c.kvType = value(QStringLiteral("kvType")).toString();
    c.threads = value(QStringLiteral("threads")).toInt();
    c.int4Weights = value(QStringLiteral("int4Weights")).toBool();
    c.kvMemoryBytes = value(QStringLiteral("kvMemoryMB")).toLongLong() << 20;
    c.savedContextLimitBytes = value(QStringLiteral("savedContextLimitMB")).toLongLong() << 20;
    c.speculative = value(QStringLiteral("speculative")).toString();
    c.draftModelPath = value(QStringLiteral("draftModel")).toString();
    return c;
}

SamplingConfig AppSettings::samplingConfig() const {
    SamplingConfig s;
    s.temperature = value(QStringLiteral("temperature")).toDouble();
    s.topK = value(QStringLiteral("topK")).toInt();
    s.topP = value(QStringLiteral("topP")).toDouble();
    s.minP = value(QStringLiteral("minP")).toDouble();
    s.repeatPenalty = value(QStringLiteral("repeatPenalty")).toDouble();
    s.maxTokens = value(QStringLiteral("maxTokens")).toInt();
    return s;
}

}  // namespace hearth::app
