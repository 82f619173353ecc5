// The app core's remote path on recorded streams and broken networks: vLLM and llama.cpp SSE
// transcripts (tests/server/transcripts) replayed over loopback HTTP reach the message model as
// the same text (reasoning as a <think> block), with the stop reason; a stream cut or an error
// inside it keeps the partial reply, marked interrupted; 429/404/500 in OpenAI's error shape,
// connection refused, an unknown host, a TLS handshake with a plain-HTTP server and a server
// that never answers each end with a clear message and lose nothing.
#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslServer>
#include <QSslSocket>
#include <QTemporaryDir>
#include <QTest>

#include "message_model.h"
#include "remote_fixture.h"
#include "remote_http.h"

using hearth::app::ChatController;
using hearth::app::MessageModel;
using namespace hearth::test;

namespace {

int freePort() {
    QTcpServer probe;
    return probe.listen(QHostAddress::LocalHost, 0) ? probe.serverPort() : 0;
}

QString replyState(ChatController& c) {
    MessageModel* m = c.messages();
    for (int i = m->rowCount() - 1; i >= 0; --i)
        if (m->data(m->index(i), MessageModel::RoleRole).toString() == QLatin1String("assistant"))
            return m->data(m->index(i), MessageModel::StateRole).toString();
    return QStringLiteral("<none>");
}

}  // namespace

class RemoteFailuresTest : public QObject {
    Q_OBJECT

private slots:
    void transcripts_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("stopReason");
        QTest::addColumn<int>("generated");
        QTest::newRow("vLLM") << "vllm_chat.sse" << QString::fromUtf8("Hello, wörld ✓") << "eos"
                              << 4;
        QTest::newRow("vLLM reasoning")
            << "vllm_reasoning.sse"
            << "<think>The user greets me. I should greet back.</think>\n\nHi there!"
            << "length" << 12;
        QTest::newRow("llama.cpp") << "llamacpp_chat.sse"
                                   << "Once upon a time"
                                   << "eos" << 3;
        QTest::newRow("llama.cpp reasoning") << "llamacpp_reasoning.sse"
                                             << "<think>Two plus two is four.</think>\n\n4"
                                             << "eos" << 7;
        QTest::newRow("keep-alive comments") << "keepalive_comments.sse"
                                             << "AB"
                                             << "eos" << 2;
        QTest::newRow("cut mid-way") << "cut_midway.sse"
                                     << "Partial reply"
                                     << "interrupted" << 2;
        QTest::newRow("error mid-way") << "error_midway.sse"
                                       << "Some"
                                       << "interrupted" << 1;
    }
    void transcripts() {
        QFETCH(QString, file);
        QFETCH(QString, text);
        QFETCH(QString, stopReason);
        QFETCH(int, generated);
        ReplayServer server;
        QVERIFY(server.start());
        server.stream = ReplayServer::transcript(file);
        QVERIFY(!server.stream.isEmpty());
        QTemporaryDir dir;
        auto c = openController(dir.path());
        QVERIFY(c);
        bool ok = false;
        QString message;
        const QString id = addConnection(*c, server.base(), {}, &ok, &message);
        QVERIFY2(ok, qPrintable(message));
        QVERIFY(useRemote(*c, id, QStringLiteral("replayed")));
        QVERIFY(c->send(QStringLiteral("Hello")));
        QCOMPARE(waitForReply(*c), stopReason);
        QCOMPARE(c->messages()->lastAssistantText(), text);
        QCOMPARE(replyState(*c), stopReason == QLatin1String("eos") ? QString() : stopReason);
        QCOMPARE(c->lastReport().generatedTokens, generated);
        if (stopReason == QLatin1String("interrupted")) {
            QVERIFY(c->noticeIsError());
            if (file.startsWith(QLatin1String("error")))
                QVERIFY2(c->notice().contains("CUDA out of memory"), qPrintable(c->notice()));
        }
        // The request: the chat as messages, streamed, the settings' sampling.
        const QJsonObject body = QJsonDocument::fromJson(server.lastBody).object();
        QCOMPARE(body.value("model").toString(), QStringLiteral("replayed"));
        QCOMPARE(body.value("stream").toBool(), true);
        QCOMPARE(body.value("messages").toArray().last().toObject().value("content").toString(),
                 QStringLiteral("Hello"));
        QCOMPARE(body.value("max_tokens").toInt(), 24);
        QCOMPARE(body.value("temperature").toDouble(), 0.0);
    }

    // A chat's own sampling settings reach the request (global values for the rest).
    void chatSamplingMapsToTheRequest() {
        ReplayServer server;
        QVERIFY(server.start());
        server.stream = ReplayServer::transcript(QStringLiteral("vllm_chat.sse"));
        QTemporaryDir dir;
        auto c = openController(dir.path());
        QVERIFY(c);
        const QString id = addConnection(*c, server.base(), QStringLiteral("sk-x"));
        QVERIFY(useRemote(*c, id, QStringLiteral("replayed")));
        c->settings()->insert(QStringLiteral("systemPrompt"), QStringLiteral("Be brief."));
        QVERIFY(c->send(QStringLiteral("Hello")));
        QCOMPARE(waitForReply(*c), QStringLiteral("eos"));
        c->setChatSampling(QStringLiteral("topP"), 0.5);
        c->setChatSampling(QStringLiteral("maxTokens"), 7);
        c->setChatSampling(QStringLiteral("repeatPenalty"), 1.2);
        QVERIFY(c->send(QStringLiteral("Again")));
        QCOMPARE(waitForReply(*c), QStringLiteral("eos"));
        const QJsonObject body = QJsonDocument::fromJson(server.lastBody).object();
        QCOMPARE(body.value("top_p").toDouble(), 0.5);
        QCOMPARE(body.value("max_tokens").toInt(), 7);
        QCOMPARE(body.value("repetition_penalty").toDouble(), 1.2);
        QCOMPARE(body.value("temperature").toDouble(), 0.0);  // the global setting
        const QJsonArray messages = body.value("messages").toArray();
        QCOMPARE(messages.size(), 4);  // system, user, assistant, user
        QCOMPARE(messages.at(0).toObject().value("role").toString(), QStringLiteral("system"));
        QCOMPARE(messages.at(2).toObject().value("content").toString(),
                 QString::fromUtf8("Hello, wörld ✓"));
    }

    void httpErrorsInOpenAiShape_data() {
        QTest::addColumn<QByteArray>("status");
        QTest::addColumn<QString>("expect");
        QTest::newRow("429") << QByteArray("429 Too Many Requests") << "busy";
        QTest::newRow("404") << QByteArray("404 Not Found") << "base URL";
        QTest::newRow("500") << QByteArray("500 Internal Server Error") << "server failed";
    }
    void httpErrorsInOpenAiShape() {
        QFETCH(QByteArray, status);
        QFETCH(QString, expect);
        ReplayServer server;
        QVERIFY(server.start());
        QTemporaryDir dir;
        auto c = openController(dir.path());
        QVERIFY(c);
        const QString id = addConnection(*c, server.base(), {});
        QVERIFY(useRemote(*c, id, QStringLiteral("replayed")));
        server.head = "HTTP/1.1 " + status +
                      "\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n";
        server.stream =
            R"({"error":{"message":"the server says no","type":"x","param":null,"code":null}})";
        QSignalSpy errors(c.get(), &ChatController::errorOccurred);
        QVERIFY(c->send(QStringLiteral("Hello")));
        QCOMPARE(waitForReply(*c), QStringLiteral("error"));
        QCOMPARE(errors.size(), 1);
        const QString message = errors.first().at(0).toString();
        QVERIFY2(message.contains(QString::fromLatin1(status.left(3))) &&
                     message.contains(expect) && message.contains("the server says no"),
                 qPrintable(message));
        // The question stays; no empty answer is stored.
        QTRY_COMPARE(c->messages()->rowCount(), 1);
        QCOMPARE(c->generating(), false);
    }

    void networkFailuresAreTold() {
        QTemporaryDir dir;
        auto c = openController(dir.path());
        QVERIFY(c);
        bool ok = true;
        QString message;
        QVERIFY(!addConnection(*c, QStringLiteral("http://127.0.0.1:%1/v1").arg(freePort()), {},
                               &ok, &message)
                     .isEmpty());
        QVERIFY(!ok);
        QVERIFY2(message.contains("connection refused"), qPrintable(message));

        QVERIFY(!addConnection(*c, QStringLiteral("http://no-such-host.invalid:8000/v1"), {}, &ok,
                               &message)
                     .isEmpty());
        QVERIFY(!ok);
        QVERIFY2(message.contains("could not be found") || message.contains("in time"),
                 qPrintable(message));

        ReplayServer plain;
        QVERIFY(plain.start());
        QVERIFY(!addConnection(*c,
                               QStringLiteral("https://127.0.0.1:%1/v1").arg(plain.serverPort()),
                               {}, &ok, &message)
                     .isEmpty());
        QVERIFY(!ok);
        QVERIFY2(message.contains("TLS") || message.contains("secure"), qPrintable(message));

        ReplayServer silent;
        QVERIFY(silent.start());
        silent.silent = true;
        QVERIFY(!addConnection(*c, silent.base(), {}, &ok, &message, /*timeout=*/1).isEmpty());
        QVERIFY(!ok);
        QVERIFY2(message.contains("did not answer in time"), qPrintable(message));
    }

    void aServerThatStopsAnsweringTimesOut() {
        ReplayServer server;
        QVERIFY(server.start());
        QTemporaryDir dir;
        auto c = openController(dir.path());
        QVERIFY(c);
        const QString id = addConnection(*c, server.base(), {}, nullptr, nullptr, /*timeout=*/1);
        QVERIFY(useRemote(*c, id, QStringLiteral("replayed")));
        server.silent = true;
        QSignalSpy errors(c.get(), &ChatController::errorOccurred);
        QVERIFY(c->send(QStringLiteral("Hello")));
        QCOMPARE(waitForReply(*c), QStringLiteral("error"));
        QVERIFY(!errors.isEmpty());
        QVERIFY2(errors.first().at(0).toString().contains("in time"),
                 qPrintable(errors.first().at(0).toString()));
        QTRY_COMPARE(c->messages()->rowCount(), 1);  // the question is kept
    }

    // HTTPS to a server with a self-signed certificate: refused with its fingerprint until the
    // person trusts exactly that certificate for that connection; then models and chat work.
    void selfSignedCertificateNeedsAnExplicitException() {
        if (!QSslSocket::supportsSsl()) QSKIP("Qt has no TLS backend here");
        QTemporaryDir certDir;
        const QString cert = certDir.filePath("cert.pem"), key = certDir.filePath("key.pem");
        QProcess openssl;
        openssl.start("openssl", {"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                                  "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1"});
        if (!openssl.waitForFinished(60000) || openssl.exitCode() != 0)
            QSKIP("the openssl command is not available to make a test certificate");
        QFile cf(cert), kf(key);
        QVERIFY(cf.open(QIODevice::ReadOnly) && kf.open(QIODevice::ReadOnly));
        const QSslCertificate certificate(&cf, QSsl::Pem);
        const QSslKey privateKey(&kf, QSsl::Rsa, QSsl::Pem);
        QVERIFY(!certificate.isNull() && !privateKey.isNull());
        QSslConfiguration config = QSslConfiguration::defaultConfiguration();
        config.setLocalCertificate(certificate);
        config.setPrivateKey(privateKey);
        config.setPeerVerifyMode(QSslSocket::VerifyNone);
        ReplayServerOn<QSslServer> server;
        server.setSslConfiguration(config);
        QVERIFY(server.start());
        server.stream = ReplayServer::transcript(QStringLiteral("vllm_chat.sse"));

        QTemporaryDir dir;
        auto c = openController(dir.path());
        QVERIFY(c);
        bool ok = true;
        QString message;
        const QString id = addConnection(*c, server.base("https"), {}, &ok, &message);
        QVERIFY(!id.isEmpty());
        QVERIFY(!ok);
        const QString fingerprint =
            hearth::app::formatFingerprint(certificate.digest(QCryptographicHash::Sha256).toHex());
        QVERIFY2(message.contains(fingerprint), qPrintable(message));
        QCOMPARE(c->connections()->list().first().toMap().value("seenCert").toString(),
                 fingerprint);
        QSignalSpy tested(c->connections(), &hearth::app::Connections::tested);
        c->connections()->trustSeenCertificate(id, true);
        QVERIFY(tested.wait(30000));
        QVERIFY2(tested.last().at(1).toBool(), qPrintable(tested.last().at(2).toString()));
        QCOMPARE(c->connections()->list().first().toMap().value("trustedCert").toString(),
                 fingerprint);
        QVERIFY(useRemote(*c, id, QStringLiteral("replayed")));
        QVERIFY(c->send(QStringLiteral("Hello")));
        QCOMPARE(waitForReply(*c), QStringLiteral("eos"));
        QCOMPARE(c->messages()->lastAssistantText(), QString::fromUtf8("Hello, wörld ✓"));

        // The exception belongs to that connection: another one to the same server is refused.
        addConnection(*c, server.base("https"), {}, &ok, &message);
        QVERIFY(!ok);
        QVERIFY2(message.contains(fingerprint), qPrintable(message));
    }

    void urlsAreCheckedAndNormalized() {
        QTemporaryDir dir;
        auto c = openController(dir.path());
        QVERIFY(c);
        auto* conns = c->connections();
        QVERIFY(!conns->checkUrl(QString()).isEmpty());
        QVERIFY(!conns->checkUrl(QStringLiteral("ftp://host/v1")).isEmpty());
        QVERIFY(!conns->checkUrl(QStringLiteral("not a url")).isEmpty());
        QVERIFY(conns->add(QStringLiteral("x"), QStringLiteral("ftp://host/v1"), {}).isEmpty());
        QVERIFY(!conns->lastError().isEmpty());
        const QString id = conns->add(QString(), QStringLiteral(" http://127.0.0.1:1/ "), {}, 5);
        QVERIFY(!id.isEmpty());
        const QVariantMap e = conns->list().first().toMap();
        QCOMPARE(e.value("baseUrl").toString(), QStringLiteral("http://127.0.0.1:1/v1"));
        QCOMPARE(e.value("name").toString(), QStringLiteral("127.0.0.1"));  // the host by default
        conns->remove(id);
        QVERIFY(conns->list().isEmpty());
        // Removed for good: a new controller on the same folder has none.
        c.reset();
        auto again = openController(dir.path());
        QVERIFY(again);
        QVERIFY(again->connections()->list().isEmpty());
    }
};

QTEST_MAIN(RemoteFailuresTest)
#include "remote_failures_test.moc"
