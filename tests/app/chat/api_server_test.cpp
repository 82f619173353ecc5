// Settings → Local API server with the real engine on stories260K: off by default; switched on
// it serves the loaded model on 127.0.0.1 (models, a chat completion, the key), the chat keeps
// working beside it, and switching it off closes the port.
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "controller_fixture.h"

using hearth::app::ChatController;

namespace {

int freePort() {
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0)) return 0;
    return probe.serverPort();
}

struct Reply {
    int status = 0;  // 0: no HTTP answer (connection refused)
    QJsonObject body;
};

Reply request(const QString& url, const QByteArray& key, const QJsonObject* post = nullptr) {
    QNetworkAccessManager nam;
    QNetworkRequest req{QUrl(url)};
    req.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    if (!key.isEmpty()) req.setRawHeader("Authorization", "Bearer " + key);
    QNetworkReply* r = post ? nam.post(req, QJsonDocument(*post).toJson()) : nam.get(req);
    QEventLoop loop;
    QObject::connect(r, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(60000, &loop, &QEventLoop::quit);
    loop.exec();
    Reply out;
    out.status = r->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    out.body = QJsonDocument::fromJson(r->readAll()).object();
    r->deleteLater();
    return out;
}

}  // namespace

class ApiServerTest : public QObject {
    Q_OBJECT

private slots:
    void offByDefaultThenServesTheLoadedModel() {
        if (hearth::test::tinyModelPath().isEmpty())
            QSKIP("../shared/models/stories260K.gguf not found (set HEARTH_SHARED_DIR)");
        QTemporaryDir dir;
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        QCOMPARE(c->settings()->value("apiServerEnabled").toBool(), false);
        QVERIFY(hearth::test::loadTinyModel(*c));
        QTest::qWait(200);
        QVERIFY(!c->apiServerRunning());

        const int port = freePort();
        QVERIFY(port > 0);
        c->settings()->insert("apiServerPort", port);
        c->settings()->insert("apiServerKey", QStringLiteral("sk-app"));
        c->settings()->insert("apiServerEnabled", true);
        emit c->settings()->settingChanged("apiServerEnabled");  // as a QML write does
        QTRY_VERIFY_WITH_TIMEOUT(c->apiServerRunning(), 20000);
        QCOMPARE(c->apiServerUrl(), QStringLiteral("http://127.0.0.1:%1/v1").arg(port));
        QVERIFY(c->apiServerError().isEmpty());

        const QString base = c->apiServerUrl();
        QCOMPARE(request(base + "/models", "").status, 401);
        const Reply models = request(base + "/models", "sk-app");
        QCOMPARE(models.status, 200);
        const QString id = models.body["data"].toArray().at(0).toObject()["id"].toString();
        QCOMPARE(id, QStringLiteral("stories260K"));
        const QJsonObject chat{
            {"model", id},
            {"max_tokens", 8},
            {"temperature", 0},
            {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "Once upon"}}}}};
        const Reply done = request(base + "/chat/completions", "sk-app", &chat);
        QCOMPARE(done.status, 200);
        QCOMPARE(done.body["usage"].toObject()["completion_tokens"].toInt(), 8);

        // The app's own chat still answers while the server runs.
        QVERIFY(c->send(QStringLiteral("Once upon a time")));
        const QString reason = hearth::test::waitForReply(*c);
        QVERIFY(!reason.isEmpty() && reason != QLatin1String("error"));

        c->settings()->insert("apiServerEnabled", false);
        emit c->settings()->settingChanged("apiServerEnabled");
        QTRY_VERIFY_WITH_TIMEOUT(!c->apiServerRunning(), 20000);
        QCOMPARE(request(base + "/models", "sk-app").status, 0);  // nothing listens
    }
};

QTEST_MAIN(ApiServerTest)
#include "api_server_test.moc"
