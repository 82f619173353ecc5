#include "model_library.h"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QPointer>
#include <QThread>
#include <QUrl>

#include <algorithm>

#include "app_settings.h"
#include "model_probe.h"
#include "queued_call.h"

namespace hearth::app {

ModelLibrary::ModelLibrary(AppSettings* settings, std::function<QVariantMap()> loadedInfo,
                           QObject* parent)
    : QObject(parent), m_settings(settings), m_loadedInfo(std::move(loadedInfo)) {}

ModelLibrary::~ModelLibrary() = default;

QStringList ModelLibrary::folders() const {
    return m_settings ? m_settings->value(QStringLiteral("modelFolders")).toStringList()
                      : QStringList();
}

QStringList ModelLibrary::findModels(const QStringList& folders, const QStringList& recent) {
    QStringList found;
    for (const QString& folder : folders) {
        const QString root = QDir(folder).absolutePath();
        const int rootDepth = static_cast<int>(root.count(QLatin1Char('/')));
        QDirIterator it(root, {QStringLiteral("*.gguf"), QStringLiteral("*.GGUF")}, QDir::Files,
                        QDirIterator::Subdirectories | QDirIterator::FollowSymlinks);
        while (it.hasNext()) {
            const QString path = it.next();
            if (path.count(QLatin1Char('/')) - rootDepth > 3) continue;
            found.append(QFileInfo(path).absoluteFilePath());
        }
    }
    for (const QString& path : recent)
        if (QFileInfo(path).isFile()) found.append(QFileInfo(path).absoluteFilePath());
    found.removeDuplicates();
    return found;
}

void ModelLibrary::refresh() {
    if (!m_settings) return;
    if (m_scanning) {
        m_again = true;
        return;
    }
    m_scanning = true;
    emit scanningChanged();
    const QStringList dirs = folders();
    const QStringList recent = m_settings->value(QStringLiteral("recentModels")).toStringList();
    const EngineConfig config = m_settings->engineConfig();
    const QVariantMap loaded = m_loadedInfo ? m_loadedInfo() : QVariantMap();
    const QString loadedPath = loaded.value(QStringLiteral("path")).toString();
    const qint64 freed = loaded.value(QStringLiteral("fileBytes")).toLongLong();
    const qint64 serial = ++m_serial;
    QPointer<ModelLibrary> self(this);
    QThread* thread = QThread::create([=] {
        QVariantList list;
        for (const QString& path : findModels(dirs, recent)) {
            // The model in use is already in memory: loading it again frees nothing more.
            const bool isLoaded = path == QFileInfo(loadedPath).absoluteFilePath();
            QVariantMap m = probeModel(path, config.contextLength, config.contextBeyondTraining,
                                       config.kvType, isLoaded ? 0 : freed)
                                .toMap();
            m[QStringLiteral("recent")] = recent.contains(path);
            m[QStringLiteral("loaded")] = isLoaded;
            if (m.value(QStringLiteral("name")).toString().isEmpty())
                m[QStringLiteral("name")] = QFileInfo(path).completeBaseName();
            list.append(m);
        }
        std::sort(list.begin(), list.end(), [](const QVariant& a, const QVariant& b) {
            return a.toMap()
                       .value(QStringLiteral("name"))
                       .toString()
                       .compare(b.toMap().value(QStringLiteral("name")).toString(),
                                Qt::CaseInsensitive) < 0;
        });
        postQueued(qApp, [self, serial, list] {
            if (!self || serial != self->m_serial) return;
            self->m_models = list;
            self->m_scanning = false;
            emit self->modelsChanged();
            emit self->scanningChanged();
            if (std::exchange(self->m_again, false)) self->refresh();
        });
    });
    thread->setObjectName(QStringLiteral("hearth-library"));
    connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    thread->start();
}

void ModelLibrary::addFolder(const QUrl& folder) {
    const QString path =
        QDir(folder.isLocalFile() ? folder.toLocalFile() : folder.toString()).absolutePath();
    if (!m_settings || !QFileInfo(path).isDir()) return;
    QStringList list = folders();
    if (list.contains(path)) return;
    list.append(path);
    m_settings->set(QStringLiteral("modelFolders"), list);
    emit foldersChanged();
    refresh();
}

void ModelLibrary::removeFolder(const QString& folder) {
    QStringList list = folders();
    if (!m_settings || !list.removeAll(folder)) return;
    m_settings->set(QStringLiteral("modelFolders"), list);
    emit foldersChanged();
    refresh();
}

}  // namespace hearth::app
