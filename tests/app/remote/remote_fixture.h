// Helpers for the remote-engine tests: Hearth's own `hearth-cli serve` on the tiny model as the
// real peer (127.0.0.1, a key, a free port chosen by the server), and a replay server that
// answers GET /v1/models and streams a recorded SSE transcript (tests/server/transcripts) or a
// canned error, so the app reads vLLM's and llama.cpp's stream shapes through its own path.
#pragma once

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <cctype>

#include "chat_controller.h"
#include "controller_fixture.h"

namespace hearth::test {

class ServeProcess {
public:
    ~ServeProcess() { kill(); }

    // port 0: the server picks one (read back from its first line).
    bool start(const QString& key, int port = 0) {
        kill();
        m_proc.setProcessChannelMode(QProcess::SeparateChannels);
        // The server's default context (4096) is kept past the 128 positions stories260K was
        // trained on: the tests stop long replies mid-stream.
        m_proc.start(QStringLiteral(HEARTH_CLI),
                     {QStringLiteral("serve"), QStringLiteral("-m"), tinyModelPath(),
                      QStringLiteral("--port"), QString::number(port), QStringLiteral("-t"),
                      QStringLiteral("2"), QStringLiteral("--api-key"), key,
                      QStringLiteral("--ctx-beyond-training")});
        if (!m_proc.waitForStarted(10000)) return false;
        QByteArray line;
        QElapsedTimer t;
        t.start();
        while (!line.contains('\n') && t.elapsed() < 30000) {
            m_proc.waitForReadyRead(500);
            line += m_proc.readAllStandardOutput();
            if (m_proc.state() != QProcess::Running) break;
        }
        static const QRegularExpression re(
            QStringLiteral("listening on (http://[^ ]+/v1) \\(model ([^,]+),"));
        const auto m = re.match(QString::fromUtf8(line));
        if (!m.hasMatch()) {
            qWarning() << "serve did not start:" << line << m_proc.readAllStandardError();
            return false;
        }
        base = m.captured(1);
        model = m.captured(2);
        return true;
    }
    void kill() {
        if (m_proc.state() == QProcess::NotRunning) return;
        m_proc.kill();
        m_proc.waitForFinished(10000);
    }
    int port() const { return QUrl(base).port(); }

    QString base;
    QString model;

private:
    QProcess m_proc;
};

// Answers each connection once: GET .../models with one model, POST .../chat/completions with
// `head` + `stream` written in small pieces (then the connection is closed), or nothing at
// all when `silent` (for timeouts). Base: QTcpServer, or QSslServer for HTTPS.
template <class Base>
class ReplayServerOn : public Base {
public:
    QByteArray head =
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
    QByteArray stream;
    bool silent = false;
    QByteArray lastBody;  // the last request's body

    bool start() {
        auto drain = [this] {
            while (QTcpSocket* s = this->nextPendingConnection()) {
                QObject::connect(s, &QTcpSocket::readyRead, s, [this, s] { onData(s); });
                QObject::connect(s, &QTcpSocket::disconnected, s, &QObject::deleteLater);
            }
        };
        QObject::connect(this, &QTcpServer::newConnection, this, drain);
        QObject::connect(this, &QTcpServer::pendingConnectionAvailable, this, drain);
        return this->listen(QHostAddress::LocalHost, 0);
    }
    QString base(const char* scheme = "http") const {
        return QStringLiteral("%1://127.0.0.1:%2/v1")
            .arg(QString::fromLatin1(scheme))
            .arg(this->serverPort());
    }

    static QByteArray transcript(const QString& name) {
        QFile f(QStringLiteral(HEARTH_TRANSCRIPTS_DIR "/") + name);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }

private:
    void onData(QTcpSocket* s) {
        QByteArray& buf = m_buffers[s];
        buf += s->readAll();
        if (!buf.isEmpty() && !std::isalpha(static_cast<unsigned char>(buf.front()))) {
            // Not HTTP (a TLS ClientHello): answered as a plain HTTP server does.
            s->write("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
            s->disconnectFromHost();
            m_buffers.remove(s);
            return;
        }
        const qsizetype end = buf.indexOf("\r\n\r\n");
        if (end < 0) return;
        const QByteArray headers = buf.left(end);
        static const QRegularExpression len(QStringLiteral("(?i)content-length: *(\\d+)"));
        const auto m = len.match(QString::fromLatin1(headers));
        const qsizetype want = m.hasMatch() ? m.captured(1).toLongLong() : 0;
        if (buf.size() - end - 4 < want) return;
        lastBody = buf.mid(end + 4, want);
        m_buffers.remove(s);
        if (silent) return;
        if (headers.startsWith("GET")) {
            const QByteArray body =
                R"({"object":"list","data":[{"id":"replayed","object":"model"}]})";
            s->write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                     QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
            s->disconnectFromHost();
            return;
        }
        s->write(head);
        for (qsizetype at = 0; at < stream.size(); at += 37) {  // cut anywhere
            s->write(stream.mid(at, 37));
            s->flush();
        }
        s->disconnectFromHost();
    }
    QHash<QTcpSocket*, QByteArray> m_buffers;
};
using ReplayServer = ReplayServerOn<QTcpServer>;

// Adds a connection and waits for its test; returns its id.
inline QString addConnection(app::ChatController& c, const QString& url, const QString& key,
                             bool* ok = nullptr, QString* message = nullptr, int timeout = 120) {
    QSignalSpy tested(c.connections(), &app::Connections::tested);
    const QString id = c.connections()->add(QStringLiteral("Test server"), url, key, timeout);
    if (id.isEmpty()) return id;
    auto mine = [&]() -> const QList<QVariant>* {
        for (const QList<QVariant>& t : tested)
            if (t.at(0).toString() == id) return &t;
        return nullptr;
    };
    if (!QTest::qWaitFor([&] { return mine() != nullptr; }, 30000)) return {};
    if (ok) *ok = mine()->at(1).toBool();
    if (message) *message = mine()->at(2).toString();
    return id;
}

inline bool useRemote(app::ChatController& c, const QString& id, const QString& model) {
    QSignalSpy loaded(&c, &app::ChatController::modelLoaded);
    if (!c.loadRemoteModel(id, model)) return false;
    return loaded.wait(30000) || !loaded.isEmpty();
}

}  // namespace hearth::test
