// The app core (ChatController + EngineWorker, no GUI) with a model on a server: Hearth's own
// `hearth-cli serve` on stories260K, on 127.0.0.1 with a key. Connections list its models, a
// reply streams into the message model with its time to first token and speed, and is the same
// text as the local engine writes (greedy); Stop, Regenerate, a wrong key, the server killed
// mid-reply (the partial reply kept and marked interrupted) and Continue once it is back.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "message_model.h"
#include "remote_fixture.h"

using hearth::app::ChatController;
using hearth::app::MessageModel;
using namespace hearth::test;

namespace {

QString lastAssistant(ChatController& c) {
    return c.messages()->lastAssistantText();
}

qint64 lastAssistantId(ChatController& c) {
    MessageModel* m = c.messages();
    for (int i = m->rowCount() - 1; i >= 0; --i)
        if (m->data(m->index(i), MessageModel::RoleRole).toString() == QLatin1String("assistant"))
            return m->data(m->index(i), MessageModel::MessageIdRole).toLongLong();
    return 0;
}

QVariant lastAssistantData(ChatController& c, int role) {
    MessageModel* m = c.messages();
    const int row = m->indexOfMessage(lastAssistantId(c));
    return row < 0 ? QVariant() : m->data(m->index(row), role);
}

// Waits until the reply in flight (streaming, the last row) has some text.
bool waitForText(ChatController& c) {
    return QTest::qWaitFor(
        [&] {
            MessageModel* m = c.messages();
            if (m->rowCount() == 0) return false;
            const QModelIndex last = m->index(m->rowCount() - 1);
            return m->data(last, MessageModel::StreamingRole).toBool() &&
                   !m->data(last, MessageModel::ContentRole).toString().isEmpty();
        },
        30000);
}

}  // namespace

class RemoteChatTest : public QObject {
    Q_OBJECT

private slots:
    void init() {
        if (tinyModelPath().isEmpty())
            QSKIP("../shared/models/stories260K.gguf not found (set HEARTH_SHARED_DIR)");
    }

    void listsStreamsStopsAndRegenerates() {
        ServeProcess server;
        QVERIFY(server.start(QStringLiteral("sk-remote")));
        QTemporaryDir dir;
        auto c = openController(dir.path());
        QVERIFY(c);
        bool ok = false;
        QString message;
        const QString id =
            addConnection(*c, server.base, QStringLiteral("sk-remote"), &ok, &message);
        QVERIFY(!id.isEmpty());
        QVERIFY2(ok, qPrintable(message));
        const QVariantList models = c->connections()->remoteModels();
        QCOMPARE(models.size(), 1);
        QCOMPARE(models.first().toMap().value("model").toString(), server.model);
        QCOMPARE(models.first().toMap().value("host").toString(), QStringLiteral("127.0.0.1"));

        QVERIFY(useRemote(*c, id, server.model));
        QVERIFY(c->modelIsRemote());
        QCOMPARE(c->modelState(), QStringLiteral("ready"));
        QCOMPARE(c->modelInfo().value("host").toString(), QStringLiteral("127.0.0.1"));

        // A reply streams in (more than one text delta), with the stream's statistics.
        QSignalSpy grew(c->messages(), &QAbstractItemModel::dataChanged);
        QVERIFY(c->send(QStringLiteral("Once upon a time")));
        QCOMPARE(waitForReply(*c), QStringLiteral("length"));
        QVERIFY(grew.count() >= 2);
        const QString remoteText = lastAssistant(*c);
        QVERIFY(!remoteText.isEmpty());
        const auto report = c->lastReport();
        QCOMPARE(report.generatedTokens, 24);                  // maxTokens, from the server's usage
        QVERIFY(report.contextUsed > report.generatedTokens);  // the prompt, from usage
        QVERIFY(report.timeToFirstTokenMs > 0);
        QVERIFY(report.tokensPerSecond > 0);
        QCOMPARE(report.backend, QStringLiteral("remote"));

        // Regenerate: a second reply beside the first, through the server again.
        const qint64 first = lastAssistantId(*c);
        QVERIFY(c->regenerate(first));
        QCOMPARE(waitForReply(*c), QStringLiteral("length"));
        QVERIFY(lastAssistantId(*c) != first);
        QCOMPARE(lastAssistantData(*c, MessageModel::SiblingCountRole).toInt(), 2);
        QCOMPARE(lastAssistant(*c), remoteText);  // greedy: the same text

        // Stop mid-stream: the stream is closed, the text so far kept.
        c->settings()->insert(QStringLiteral("maxTokens"), 4000);
        QVERIFY(c->send(QStringLiteral("Tell me a long story")));
        QVERIFY(waitForText(*c));
        c->stop();
        QCOMPARE(waitForReply(*c), QStringLiteral("stopped"));
        QVERIFY(c->lastReport().generatedTokens < 4000);
        QCOMPARE(lastAssistantData(*c, MessageModel::StateRole).toString(),
                 QStringLiteral("stopped"));

        // The same chat on the local engine writes the same words (both apply the model's
        // template; greedy).
        c->settings()->insert(QStringLiteral("maxTokens"), 24);
        QVERIFY(loadTinyModel(*c));
        QVERIFY(!c->modelIsRemote());
        c->newChat();
        QVERIFY(c->send(QStringLiteral("Once upon a time")));
        QCOMPARE(waitForReply(*c), QStringLiteral("length"));
        QCOMPARE(lastAssistant(*c), remoteText);
    }

    void wrongKeyIsToldClearly() {
        ServeProcess server;
        QVERIFY(server.start(QStringLiteral("sk-right")));
        QTemporaryDir dir;
        auto c = openController(dir.path());
        QVERIFY(c);
        bool ok = true;
        QString message;
        const QString id =
            addConnection(*c, server.base, QStringLiteral("sk-wrong"), &ok, &message);
        QVERIFY(!id.isEmpty());
        QVERIFY(!ok);
        QVERIFY2(message.contains("401") && message.contains("API key"), qPrintable(message));
        QSignalSpy failed(c.get(), &ChatController::modelLoadFailed);
        QVERIFY(c->loadRemoteModel(id, server.model));
        QVERIFY(failed.wait(30000));
        QVERIFY2(c->modelError().contains("API key"), qPrintable(c->modelError()));
        QCOMPARE(c->modelState(), QStringLiteral("none"));

        // The right key (edited) works; the key is kept across a restart of the app.
        QSignalSpy tested(c->connections(), &hearth::app::Connections::tested);
        QVERIFY(c->connections()->edit(id, "Test server", server.base, "sk-right", true, 120));
        QVERIFY(tested.wait(30000));
        QVERIFY(tested.last().at(1).toBool());
        const QVariantMap entry = c->connections()->list().first().toMap();
        QTRY_VERIFY(entry.value("keyStorage") != QStringLiteral("none") ||
                    c->connections()->list().first().toMap().value("keyStorage") !=
                        QStringLiteral("none"));
        const QString storage =
            c->connections()->list().first().toMap().value("keyStorage").toString();
        qInfo() << "API key kept in:" << storage;
        if (storage == QLatin1String("file"))  // no credential store here: said so
            QVERIFY(!c->connections()->keyWarning().isEmpty());
        c.reset();
        auto again = openController(dir.path());
        QVERIFY(again);
        QTRY_COMPARE_WITH_TIMEOUT(
            again->connections()->list().first().toMap().value("state").toString(),
            QStringLiteral("ok"), 30000);
    }

    void serverKilledMidStreamThenContinue() {
        ServeProcess server;
        QVERIFY(server.start(QStringLiteral("sk-remote")));
        QTemporaryDir dir;
        auto c = openController(dir.path());
        QVERIFY(c);
        const QString id = addConnection(*c, server.base, QStringLiteral("sk-remote"));
        QVERIFY(useRemote(*c, id, server.model));
        c->settings()->insert(QStringLiteral("maxTokens"), 4000);
        QVERIFY(c->send(QStringLiteral("Once upon a time")));
        QVERIFY(waitForText(*c));
        const int port = server.port();
        server.kill();
        QCOMPARE(waitForReply(*c), QStringLiteral("interrupted"));
        const QString partial = lastAssistant(*c);
        QVERIFY(!partial.isEmpty());
        QCOMPARE(lastAssistantData(*c, MessageModel::StateRole).toString(),
                 QStringLiteral("interrupted"));
        QVERIFY(lastAssistantData(*c, MessageModel::CanContinueRole).toBool());
        QVERIFY(c->noticeIsError());
        QVERIFY2(c->notice().contains("cut off"), qPrintable(c->notice()));

        // While it is down, Continue fails with a clear message and keeps the text.
        const qint64 reply = lastAssistantId(*c);
        QSignalSpy errors(c.get(), &ChatController::errorOccurred);
        QVERIFY(c->continueReply(reply));
        waitForReply(*c);
        QVERIFY(!errors.isEmpty());
        QVERIFY2(errors.last().at(0).toString().contains("connection refused"),
                 qPrintable(errors.last().at(0).toString()));
        QCOMPARE(lastAssistant(*c), partial);

        // Back on the same port: Continue writes on from the end of the partial reply.
        QVERIFY(server.start(QStringLiteral("sk-remote"), port));
        c->settings()->insert(QStringLiteral("maxTokens"), 8);
        QVERIFY(c->continueReply(reply));
        QCOMPARE(waitForReply(*c), QStringLiteral("length"));
        const QString full = lastAssistant(*c);
        QVERIFY2(full.startsWith(partial) && full.size() > partial.size(), qPrintable(full));
        QCOMPARE(lastAssistantId(*c), reply);
    }
};

QTEST_MAIN(RemoteChatTest)
#include "remote_chat_test.moc"
