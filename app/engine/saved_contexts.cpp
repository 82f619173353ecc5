#include "saved_contexts.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include <algorithm>

namespace hearth::app {

namespace {

QString metaPath(const QString& kvPath) {
    return kvPath + QStringLiteral(".json");
}

QStringList kvFiles(const QString& dir) {
    return QDir(dir).entryList({QStringLiteral("chat-*.hkv")}, QDir::Files);
}

}  // namespace

SavedContexts::SavedContexts(QString dir, qint64 limitBytes)
    : m_dir(std::move(dir)), m_limit(limitBytes) {
    QDir().mkpath(m_dir);
    // Leftovers of a save cut short (the engine writes FILE.part, then renames).
    for (const QString& f : QDir(m_dir).entryList({QStringLiteral("*.part")}, QDir::Files))
        QFile::remove(QDir(m_dir).filePath(f));
}

QByteArray SavedContexts::messageKey(const QString& role, const QString& content) {
    QCryptographicHash h(QCryptographicHash::Sha1);
    h.addData(role.toUtf8());
    h.addData(QByteArrayView("\0", 1));
    h.addData(content.toUtf8());
    return h.result().left(12).toHex();
}

QString SavedContexts::modelKey(const std::string& identity) {
    return QString::fromLatin1(
        QCryptographicHash::hash(QByteArray::fromStdString(identity), QCryptographicHash::Sha1)
            .left(8)
            .toHex());
}

QString SavedContexts::pathFor(qint64 chatId, const QString& modelKey,
                               const QString& kvType) const {
    return QDir(m_dir).filePath(
        QStringLiteral("chat-%1-%2-%3.hkv").arg(chatId).arg(modelKey, kvType));
}

bool SavedContexts::recordSaved(const QString& path, const QList<QByteArray>& messages) {
    QJsonArray keys;
    for (const QByteArray& k : messages) keys.append(QString::fromLatin1(k));
    QSaveFile meta(metaPath(path));
    if (!meta.open(QIODevice::WriteOnly)) return false;
    meta.write(QJsonDocument(QJsonObject{{QStringLiteral("messages"), keys}}).toJson());
    if (!meta.commit()) return false;
    touch(path);
    enforceLimit();
    return true;
}

std::optional<QString> SavedContexts::find(qint64 chatId, const QString& modelKey,
                                           const QString& kvType, const QList<QByteArray>& messages,
                                           QString* why) {
    const QString path = pathFor(chatId, modelKey, kvType);
    // The chat's files for another model or KV type are never used again for it.
    const QString prefix = QStringLiteral("chat-%1-").arg(chatId);
    for (const QString& f : kvFiles(m_dir)) {
        const QString other = QDir(m_dir).filePath(f);
        if (f.startsWith(prefix) && other != path) remove(other);
    }
    if (!QFileInfo::exists(path)) return std::nullopt;
    auto reject = [&](const QString& reason) -> std::optional<QString> {
        if (why) *why = reason;
        remove(path);
        return std::nullopt;
    };
    QFile meta(metaPath(path));
    if (!meta.open(QIODevice::ReadOnly)) return reject(QStringLiteral("no message list"));
    const QJsonArray keys = QJsonDocument::fromJson(meta.readAll())
                                .object()
                                .value(QStringLiteral("messages"))
                                .toArray();
    if (keys.isEmpty()) return reject(QStringLiteral("empty message list"));
    qsizetype common = 0;
    while (common < keys.size() && common < messages.size() &&
           keys[common].toString().toLatin1() == messages[common])
        ++common;
    // Every saved message must still be there, except that the last (the reply) may be
    // generated again.
    if (common < keys.size() - 1) return reject(QStringLiteral("the chat's messages changed"));
    return path;
}

void SavedContexts::touch(const QString& path) {
    QFile f(path);
    if (f.open(QIODevice::ReadWrite))
        f.setFileTime(QDateTime::currentDateTimeUtc(), QFileDevice::FileModificationTime);
}

void SavedContexts::remove(const QString& path) {
    QFile::remove(path);
    QFile::remove(metaPath(path));
}

void SavedContexts::removeChat(qint64 chatId) {
    const QString prefix = QStringLiteral("chat-%1-").arg(chatId);
    for (const QString& f : kvFiles(m_dir))
        if (f.startsWith(prefix)) remove(QDir(m_dir).filePath(f));
}

qint64 SavedContexts::totalBytes() const {
    qint64 total = 0;
    for (const QFileInfo& fi : QDir(m_dir).entryInfoList(QDir::Files)) total += fi.size();
    return total;
}

qint64 SavedContexts::clear() {
    const qint64 bytes = totalBytes();
    for (const QFileInfo& fi : QDir(m_dir).entryInfoList(QDir::Files))
        QFile::remove(fi.absoluteFilePath());
    return bytes - totalBytes();
}

void SavedContexts::enforceLimit() {
    if (m_limit <= 0) return;
    QFileInfoList files =
        QDir(m_dir).entryInfoList({QStringLiteral("chat-*.hkv")}, QDir::Files, QDir::Time);
    qint64 total = totalBytes();
    // QDir::Time: newest first; delete from the back.
    while (total > m_limit && !files.isEmpty()) {
        const QFileInfo oldest = files.takeLast();
        const qint64 bytes = oldest.size() + QFileInfo(metaPath(oldest.absoluteFilePath())).size();
        remove(oldest.absoluteFilePath());
        total -= bytes;
    }
}

}  // namespace hearth::app
