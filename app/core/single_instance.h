// One Hearth per data folder. The first start listens on a local socket named after its data
// folder; a later start on the same folder hands its model file to the first (which opens it
// and comes to the front) and exits, so a double-click on a .gguf never starts a second app
// writing to the same chats.
#pragma once

#include <QObject>
#include <QString>
#include <memory>

class QLocalServer;

namespace hearth::app {

class SingleInstance : public QObject {
    Q_OBJECT
public:
    explicit SingleInstance(const QString& dataDir, QObject* parent = nullptr);
    ~SingleInstance() override;

    // The socket name for a data folder: the same folder (however it is spelled) gives the
    // same name, different folders different names.
    static QString serverName(const QString& dataDir);

    // Asks a running instance to open `modelPath` (empty: just come to the front). True when
    // an instance answered; false when none runs (or it did not answer within `timeoutMs`).
    bool handOff(const QString& modelPath, int timeoutMs = 3000) const;

    // Starts answering later starts. A socket left behind by a crashed instance is replaced.
    // False, with errorString(), when the socket cannot be created.
    bool listen();
    QString errorString() const { return m_error; }
    QString name() const { return m_name; }

signals:
    // A later start asked to open this file (already absolute), or only to be shown (empty).
    void openRequested(const QString& modelPath);

private:
    void readRequest();

    QString m_name;
    QString m_error;
    std::unique_ptr<QLocalServer> m_server;
};

}  // namespace hearth::app
