#include "single_instance.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocalServer>
#include <QLocalSocket>
#include <QTimer>

namespace hearth::app {

namespace {

// One request per connection: a JSON object on one line, {"open": "/abs/path"}; the answer is
// "ok\n" once the request has been taken.
constexpr qint64 kMaxRequestBytes = 64 * 1024;
constexpr int kServeTimeoutMs = 2000;

}  // namespace

SingleInstance::SingleInstance(const QString& dataDir, QObject* parent)
    : QObject(parent), m_name(serverName(dataDir)) {}

SingleInstance::~SingleInstance() = default;

QString SingleInstance::serverName(const QString& dataDir) {
    QFileInfo info(dataDir);
    QString canonical = info.canonicalFilePath();
    if (canonical.isEmpty()) canonical = QDir::cleanPath(info.absoluteFilePath());
    const QByteArray hash =
        QCryptographicHash::hash(canonical.toUtf8(), QCryptographicHash::Sha256).toHex();
    return QStringLiteral("hearth-") + QString::fromLatin1(hash.left(24));
}

bool SingleInstance::handOff(const QString& modelPath, int timeoutMs) const {
    QLocalSocket socket;
    socket.connectToServer(m_name);
    if (!socket.waitForConnected(timeoutMs)) return false;
    QJsonObject request;
    request.insert(QStringLiteral("open"),
                   modelPath.isEmpty() ? QString() : QFileInfo(modelPath).absoluteFilePath());
    socket.write(QJsonDocument(request).toJson(QJsonDocument::Compact) + '\n');
    if (!socket.waitForBytesWritten(timeoutMs)) return false;
    while (!socket.canReadLine()) {
        if (!socket.waitForReadyRead(timeoutMs)) return false;
    }
    return socket.readLine().trimmed() == "ok";
}

bool SingleInstance::listen() {
    // Qt sets up a socket with access options beside the name and renames it into place, which
    // would silently take the name from a live instance: ask first whether one answers.
    {
        QLocalSocket probe;
        probe.connectToServer(m_name);
        if (probe.waitForConnected(500)) {
            probe.abort();
            m_error = QStringLiteral("another Hearth is running on this data folder");
            return false;
        }
    }
    m_server = std::make_unique<QLocalServer>();
    m_server->setSocketOptions(QLocalServer::UserAccessOption);
    bool ok = m_server->listen(m_name);
    if (!ok && m_server->serverError() == QAbstractSocket::AddressInUseError) {
        // A socket file with nobody behind it (a crash, a kill -9) is safe to take over.
        QLocalServer::removeServer(m_name);
        ok = m_server->listen(m_name);
    }
    if (!ok) {
        m_error = m_server->errorString();
        m_server.reset();
        return false;
    }
    connect(m_server.get(), &QLocalServer::newConnection, this, &SingleInstance::readRequest);
    return true;
}

void SingleInstance::readRequest() {
    while (QLocalSocket* socket = m_server->nextPendingConnection()) {
        connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
        // Reads as bytes arrive; a client that sends nothing useful is dropped after a while.
        auto serve = [this, socket]() {
            if (socket->bytesAvailable() > kMaxRequestBytes) {
                socket->abort();
                return;
            }
            if (!socket->canReadLine()) return;
            const QJsonDocument doc = QJsonDocument::fromJson(socket->readLine());
            if (!doc.isObject()) {
                socket->write("error\n");
                socket->disconnectFromServer();
                return;
            }
            const QString path = doc.object().value(QStringLiteral("open")).toString();
            socket->write("ok\n");
            socket->flush();
            socket->disconnectFromServer();
            emit openRequested(path);
        };
        connect(socket, &QLocalSocket::readyRead, this, serve);
        QTimer::singleShot(kServeTimeoutMs, socket, [socket]() { socket->abort(); });
        serve();
    }
}

}  // namespace hearth::app
