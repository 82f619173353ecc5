#include "model_picker.h"

#include <QFile>
#include <QFileInfo>

#include "model_probe.h"

ModelPicker::ModelPicker(QObject* parent) : QObject(parent) {}

QString ModelPicker::fileName() const {
    return QFileInfo(m_path).fileName();
}

QString ModelPicker::sizeText() const {
    return hasModel() ? formatBytes(m_size) : QString();
}

QString ModelPicker::formatBytes(qint64 bytes) {
    return hearth::app::formatFileSize(bytes);
}

bool ModelPicker::offer(const QUrl& url) {
    const QString path = url.isLocalFile() ? url.toLocalFile() : url.toString();
    const QFileInfo info(path);
    const QString name = info.fileName().isEmpty() ? path : info.fileName();

    if (!url.isLocalFile() && !url.scheme().isEmpty()) {
        reject(tr("“%1” is not a file on this computer. Download the model first, then drop "
                  "the .gguf file here.")
                   .arg(url.toString()));
        return false;
    }
    if (info.suffix().compare(QLatin1String("gguf"), Qt::CaseInsensitive) != 0) {
        reject(tr("“%1” is not a model file. Hearth opens GGUF models, files whose names end "
                  "in .gguf.")
                   .arg(name));
        return false;
    }
    if (!info.exists()) {
        reject(tr("“%1” could not be found. It may have been moved or deleted.").arg(name));
        return false;
    }
    if (!info.isFile()) {
        reject(tr("“%1” is a folder, not a model file.").arg(name));
        return false;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        reject(tr("“%1” could not be opened: %2").arg(name, file.errorString()));
        return false;
    }
    if (file.read(4) != QByteArrayLiteral("GGUF")) {
        reject(tr("“%1” ends in .gguf but is not a GGUF model: it does not start with the GGUF "
                  "signature. The download may be incomplete.")
                   .arg(name));
        return false;
    }

    m_path = info.absoluteFilePath();
    m_size = info.size();
    m_error.clear();
    emit changed();
    return true;
}

void ModelPicker::clearError() {
    if (m_error.isEmpty()) return;
    m_error.clear();
    emit changed();
}

void ModelPicker::reject(const QString& message) {
    m_error = message;
    emit changed();
    emit rejected(message);
}
