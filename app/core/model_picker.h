// Checks a file the person dropped or chose before anything tries to load it: a friendly
// message for anything that is not a GGUF model, the name and size for one that is.
#pragma once

#include <QObject>
#include <QString>
#include <QUrl>

class ModelPicker : public QObject {
    Q_OBJECT
    Q_PROPERTY(bool hasModel READ hasModel NOTIFY changed)
    Q_PROPERTY(QString fileName READ fileName NOTIFY changed)
    Q_PROPERTY(QString filePath READ filePath NOTIFY changed)
    Q_PROPERTY(qint64 fileSize READ fileSize NOTIFY changed)
    Q_PROPERTY(QString sizeText READ sizeText NOTIFY changed)
    Q_PROPERTY(QString errorMessage READ errorMessage NOTIFY changed)

public:
    explicit ModelPicker(QObject* parent = nullptr);

    bool hasModel() const { return !m_path.isEmpty(); }
    QString fileName() const;
    QString filePath() const { return m_path; }
    qint64 fileSize() const { return m_size; }
    QString sizeText() const;
    QString errorMessage() const { return m_error; }

    // Offers a dropped or chosen file. Returns true when it is a GGUF model; otherwise the
    // previous model stays and errorMessage says why this one was refused.
    Q_INVOKABLE bool offer(const QUrl& url);
    Q_INVOKABLE void clearError();

    // "1.2 GB", "512.0 KB": decimal units with one decimal, as file managers show them.
    static QString formatBytes(qint64 bytes);

signals:
    void changed();
    void rejected(const QString& message);

private:
    void reject(const QString& message);

    QString m_path;
    qint64 m_size = 0;
    QString m_error;
};
