// Instant resume across processes: app_chat_driver (a ChatController in its own process) has
// a turn in a chat and quits; a new process on the same data folder restores the chat's saved
// KV cache, and its generation report shows that only the new message was computed. Without
// the saved file the same turn computes the whole conversation.
#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "controller_fixture.h"

class RestartTest : public QObject {
    Q_OBJECT

    // One turn in its own process; the report, or an empty object on failure.
    QJsonObject turn(const QString& dataDir, qint64 chatId, const QString& text) {
        QProcess p;
        p.setProcessChannelMode(QProcess::SeparateChannels);
        p.start(QStringLiteral(HEARTH_CHAT_DRIVER),
                {dataDir, hearth::test::tinyModelPath(), QString::number(chatId), text});
        if (!p.waitForFinished(120000)) return {};
        if (p.exitCode() != 0) {
            qWarning("driver exit %d: %s", p.exitCode(), p.readAllStandardError().constData());
            return {};
        }
        return QJsonDocument::fromJson(p.readAllStandardOutput().trimmed()).object();
    }

private slots:
    void nextTurnAfterARestartComputesOnlyTheNewMessage() {
        if (hearth::test::tinyModelPath().isEmpty())
            QSKIP("../shared/models/stories260K.gguf not found (set HEARTH_SHARED_DIR)");
        QTemporaryDir dir;
        const QJsonObject first =
            turn(dir.path(), 0, QStringLiteral("Tom had a red ball. He liked to play with it."));
        QVERIFY(!first.isEmpty());
        const qint64 chatId = first.value("chatId").toInteger();
        QVERIFY(chatId > 0);
        QCOMPARE(first.value("restoredTokens").toInteger(), 0);
        QCOMPARE(first.value("reusedTokens").toInteger(), 0);
        // The first process saved the chat when it quit.
        QCOMPARE(QDir(dir.filePath("kv")).entryList({"chat-*.hkv"}, QDir::Files).size(), 1);

        const QJsonObject second = turn(dir.path(), chatId, QStringLiteral("What did Tom do?"));
        QVERIFY(!second.isEmpty());
        const qint64 firstPrompt = first.value("promptTokens").toInteger();
        const qint64 prompt = second.value("promptTokens").toInteger();
        const qint64 reused = second.value("reusedTokens").toInteger();
        const qint64 computed = second.value("computedTokens").toInteger();
        QVERIFY2(second.value("restoredTokens").toInteger() >= firstPrompt,
                 qPrintable(QJsonDocument(second).toJson()));
        QVERIFY(reused >= firstPrompt);
        QCOMPARE(computed, prompt - reused);
        // Only the new message (and the markup around it) was computed, not the history.
        QVERIFY2(computed < prompt - firstPrompt, qPrintable(QJsonDocument(second).toJson()));

        // The same turn without the saved file recomputes everything.
        QDir(dir.filePath("kv")).removeRecursively();
        const QJsonObject cold = turn(dir.path(), chatId, QStringLiteral("What did Tom do?"));
        QVERIFY(!cold.isEmpty());
        QCOMPARE(cold.value("restoredTokens").toInteger(), 0);
        QCOMPARE(cold.value("computedTokens").toInteger(), cold.value("promptTokens").toInteger());
    }
};

QTEST_GUILESS_MAIN(RestartTest)
#include "restart_test.moc"
