// ModelLibrary: the .gguf files in the folders the person chose (modelFolders setting, their
// sub-folders three levels deep) and the recent models, each described without loading it:
// name, architecture, size, quantization, training context, and whether it fits in the memory
// free now ("fits", "tight", "wont-fit", from the engine's estimate). Files are read on a
// thread of their own; `models` changes when the scan is done. GUI thread only.
#pragma once

#include <QObject>
#include <QStringList>
#include <QVariantList>

#include <functional>

namespace hearth::app {

class AppSettings;

class ModelLibrary : public QObject {
    Q_OBJECT
    // [{path, fileName, name, architecture, quantization, fileBytes, sizeText, contextTrained,
    //   estimateText, availableText, fit, error, recent, loaded}], by name.
    Q_PROPERTY(QVariantList models READ models NOTIFY modelsChanged)
    Q_PROPERTY(QStringList folders READ folders NOTIFY foldersChanged)
    Q_PROPERTY(bool scanning READ scanning NOTIFY scanningChanged)

public:
    // loadedInfo: the model in use now (path, fileBytes), for its "loaded" mark and because
    // replacing it frees its memory.
    ModelLibrary(AppSettings* settings, std::function<QVariantMap()> loadedInfo,
                 QObject* parent = nullptr);
    ~ModelLibrary() override;

    QVariantList models() const { return m_models; }
    QStringList folders() const;
    bool scanning() const { return m_scanning; }

    Q_INVOKABLE void refresh();
    Q_INVOKABLE void addFolder(const QUrl& folder);
    Q_INVOKABLE void removeFolder(const QString& folder);

    // The .gguf files under the folders (three levels deep) and the recent files that exist.
    static QStringList findModels(const QStringList& folders, const QStringList& recent);

signals:
    void modelsChanged();
    void foldersChanged();
    void scanningChanged();

private:
    AppSettings* m_settings;
    std::function<QVariantMap()> m_loadedInfo;
    QVariantList m_models;
    bool m_scanning = false;
    bool m_again = false;  // refresh() during a scan: scan once more when it ends
    qint64 m_serial = 0;
};

}  // namespace hearth::app
