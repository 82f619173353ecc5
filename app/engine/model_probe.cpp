#include "model_probe.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <filesystem>
#include <map>

#include "gguf/gguf_file.h"
#include "hearth/engine.h"
#include "model/model_info.h"
#include "quant/quant_type.h"

namespace hearth::app {

namespace {

// MemAvailable and MemTotal from /proc/meminfo, in bytes (0 where unknown).
std::pair<qint64, qint64> memoryNow() {
    qint64 available = 0, total = 0;
    QFile meminfo(QStringLiteral("/proc/meminfo"));
    if (meminfo.open(QIODevice::ReadOnly)) {
        for (const QByteArray& line : meminfo.readAll().split('\n')) {
            const QList<QByteArray> parts = line.simplified().split(' ');
            if (parts.size() < 2) continue;
            if (parts[0] == "MemAvailable:") available = parts[1].toLongLong() * 1024;
            if (parts[0] == "MemTotal:") total = parts[1].toLongLong() * 1024;
        }
    }
    return {available, total};
}

}  // namespace

QString formatFileSize(qint64 bytes) {
    static const char* const units[] = {"B", "KB", "MB", "GB", "TB"};
    double value = static_cast<double>(std::max<qint64>(bytes, 0));
    int unit = 0;
    while (value >= 1000.0 && unit < 4) {
        value /= 1000.0;
        ++unit;
    }
    if (unit == 0) return QStringLiteral("%1 B").arg(std::max<qint64>(bytes, 0));
    return QStringLiteral("%1 %2").arg(value, 0, 'f', 1).arg(QLatin1String(units[unit]));
}

QString displayModelName(const QString& generalName, const QString& architecture,
                         const QString& filePath) {
    static const QStringList generic = {
        QStringLiteral("llama"), QStringLiteral("model"),   QStringLiteral("models"),
        QStringLiteral("gguf"),  QStringLiteral("unknown"), QStringLiteral("untitled"),
        QStringLiteral("hf"),    QStringLiteral("base"),    QStringLiteral("test")};
    const QString name = generalName.trimmed();
    const bool isGeneric = name.isEmpty() || name.compare(architecture, Qt::CaseInsensitive) == 0 ||
                           generic.contains(name.toLower());
    if (!isGeneric) return name;
    QString file = QFileInfo(filePath).fileName();
    if (file.endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive)) file.chop(5);
    return file.isEmpty() ? name : file;
}

QVariantMap ModelProbe::toMap() const {
    return {{QStringLiteral("error"), error},
            {QStringLiteral("path"), path},
            {QStringLiteral("fileName"), QFileInfo(path).fileName()},
            {QStringLiteral("name"), displayName},
            {QStringLiteral("architecture"), architecture},
            {QStringLiteral("quantization"), quantization},
            {QStringLiteral("fileBytes"), fileBytes},
            {QStringLiteral("sizeText"), formatFileSize(fileBytes)},
            {QStringLiteral("contextTrained"), contextTrained},
            {QStringLiteral("estimateBytes"), estimateBytes},
            {QStringLiteral("estimateText"), formatFileSize(estimateBytes)},
            {QStringLiteral("availableText"), formatFileSize(availableBytes)},
            {QStringLiteral("fit"), fit}};
}

ModelProbe probeModel(const QString& path, int contextLength, bool beyondTraining,
                      const QString& kvType, qint64 freedBytes) {
    ModelProbe p;
    p.path = path;
    p.fileBytes = QFileInfo(path).size();
    auto file = hearth::gguf::GgufFile::open(std::filesystem::path(path.toStdString()));
    if (!file) {
        p.error = QString::fromStdString(file.error_message());
        return p;
    }
    const auto kv = hearth::model::kv_type_from_name(kvType.toUpper().toStdString());
    // The context EngineWorker opens: the setting, else the training context up to 4096.
    const auto& f = **file;
    auto info = hearth::model::describe_model(f, 0, kv.value_or(hearth::model::KvType::F16));
    p.architecture = QString::fromStdString(info.arch);
    p.displayName = displayModelName(QString::fromStdString(info.name), p.architecture, path);
    std::map<std::string, uint64_t> bytesByType;
    for (const auto& t : f.tensors())
        bytesByType[std::string(hearth::quant::traits(t.type).name)] += t.nbytes;
    const auto most = std::max_element(bytesByType.begin(), bytesByType.end(),
                                       [](auto& a, auto& b) { return a.second < b.second; });
    if (most != bytesByType.end()) p.quantization = QString::fromStdString(most->first);
    if (!info.config) {
        p.error = info.config_error.empty()
                      ? QCoreApplication::translate("ModelProbe", "the file holds no model weights")
                      : QString::fromStdString(info.config_error);
        return p;
    }
    p.contextTrained = info.config->n_ctx_train;
    // The context the chats will get: the setting (0: the model's, at most 4096), clamped to
    // the training context unless allowed beyond it (as the engine does).
    const int64_t asked =
        contextLength > 0
            ? contextLength
            : std::min<int64_t>(info.config->n_ctx_train > 0 ? info.config->n_ctx_train : 4096,
                                4096);
    const auto ctx = static_cast<uint32_t>(
        hearth::resolve_context_length(asked, info.config->n_ctx_train, beyondTraining).n_ctx);
    if (ctx != info.context)
        info = hearth::model::describe_model(f, ctx, kv.value_or(hearth::model::KvType::F16));
    if (info.memory) p.estimateBytes = static_cast<qint64>(info.memory->total());
    const auto [available, total] = memoryNow();
    p.physicalBytes = total;
    if (available > 0 && p.estimateBytes > 0) {
        p.availableBytes = available + std::max<qint64>(freedBytes, 0);
        if (p.estimateBytes * 4 <= p.availableBytes * 3)
            p.fit = QStringLiteral("fits");
        else if (p.estimateBytes <= p.availableBytes)
            p.fit = QStringLiteral("tight");
        else
            p.fit = QStringLiteral("wont-fit");
    }
    return p;
}

}  // namespace hearth::app
