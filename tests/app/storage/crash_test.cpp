// Crash safety: a child process streams a reply with a checkpoint every 10 words (~100 ms) and
// is killed with SIGKILL mid-stream, sometimes while a checkpoint commits. Reopening must give
// a consistent database, the reply marked interrupted, and at most one checkpoint interval
// (10 words) lost.
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "chat_store.h"
#include "sqlite_db.h"

using namespace hearth::storage;

namespace {

constexpr int kWordsPerCheckpoint = 10;  // crash_helper.cpp's interval

struct ChildLog {
    qint64 replyId = 0;
    long long lastWord = 0;   // the newest word the child had in memory
    long long lastSaved = 0;  // the newest checkpoint it saw commit
    long long holding = 0;    // hold mode: the checkpoint written but not yet committed
};

void parseLine(const QByteArray& line, ChildLog& log) {
    const QList<QByteArray> parts = line.trimmed().split(' ');
    if (parts.size() != 2) return;
    const long long n = parts[1].toLongLong();
    if (parts[0] == "begin") log.replyId = n;
    if (parts[0] == "word") log.lastWord = std::max(log.lastWord, n);
    if (parts[0] == "saved") log.lastSaved = std::max(log.lastSaved, n);
    if (parts[0] == "holding") log.holding = std::max(log.holding, n);
}

}  // namespace

class CrashTest : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_round = 0;
    long long m_maxLost = 0;

private slots:
    void killedMidStreamLosesAtMostOneCheckpoint_data() {
        QTest::addColumn<int>("killAtWord");
        QTest::addColumn<bool>("hold");
        // Multiples of 10 race the checkpoint the child is just starting to commit; the others
        // land between checkpoints.
        for (int w : {20, 35, 50, 67}) QTest::addRow("word %d", w) << w << false;
        // Killed while a checkpoint's transaction is open: that checkpoint must vanish whole.
        for (int w : {20, 40}) QTest::addRow("inside checkpoint %d", w) << w << true;
    }

    void killedMidStreamLosesAtMostOneCheckpoint() {
        QFETCH(int, killAtWord);
        QFETCH(bool, hold);
        QVERIFY(m_dir.isValid());
        const QString path = ChatStore::databasePath(m_dir.path());

        QProcess child;
        child.setProcessChannelMode(QProcess::SeparateChannels);
        QStringList args{path};
        if (hold) args << QStringLiteral("hold");
        child.start(QStringLiteral(HEARTH_CRASH_HELPER), args);
        QVERIFY2(child.waitForStarted(), qPrintable(child.errorString()));
        ChildLog log;
        while (hold ? log.holding < killAtWord : log.lastWord < killAtWord) {
            if (!child.canReadLine() && !child.waitForReadyRead(30000)) {
                QFAIL(qPrintable("the helper stopped talking: " + child.readAllStandardError()));
            }
            while (child.canReadLine()) parseLine(child.readLine(), log);
        }
        child.kill();  // SIGKILL: no destructors, no SQLite cleanup
        QVERIFY(child.waitForFinished(30000));
        QCOMPARE(child.exitStatus(), QProcess::CrashExit);
        // Lines the child wrote before dying are still in the pipe.
        for (const QByteArray& line : child.readAllStandardOutput().split('\n')) {
            parseLine(line, log);
        }
        QVERIFY(log.replyId > 0);

        auto reopened = ChatStore::open(path);
        QVERIFY2(reopened, reopened.error.c_str());
        ChatStore& store = *reopened.store;
        QCOMPARE(*store.integrityCheck(), QStringLiteral("ok"));
        QCOMPARE(store.interruptedOnOpen(), 1);
        auto reply = store.message(log.replyId);
        QVERIFY(reply);
        QCOMPARE(reply->status, MessageStatus::Interrupted);

        // The stored text is exactly words 1..n from some checkpoint.
        const QStringList words = reply->content.split(' ', Qt::SkipEmptyParts);
        for (int i = 0; i < words.size(); ++i) {
            QCOMPARE(words[i], QStringLiteral("w%1").arg(i + 1));
        }
        const long long stored = words.size();
        QCOMPARE(stored % kWordsPerCheckpoint, 0LL);
        QVERIFY2(stored >= log.lastSaved, "a checkpoint that committed was lost");
        QVERIFY(stored <= log.lastWord);
        const long long lost = log.lastWord - stored;
        QVERIFY2(lost <= kWordsPerCheckpoint,
                 qPrintable(QStringLiteral("lost %1 words").arg(lost)));
        if (hold && log.lastSaved < killAtWord) {
            // Killed inside the transaction: the previous checkpoint, nothing of this one.
            QCOMPARE(stored, killAtWord - kWordsPerCheckpoint);
        }

        QString produced;
        for (long long n = 1; n <= log.lastWord; ++n) produced += QStringLiteral("w%1 ").arg(n);
        qInfo(
            "round %d%s: killed after word %lld; last committed checkpoint seen %lld; stored %lld "
            "words (%lld chars); lost %lld words = %lld chars (~%lld ms at 10 ms/word)",
            ++m_round, hold ? " (inside a checkpoint)" : "", log.lastWord, log.lastSaved, stored,
            qint64(reply->content.size()), lost, qint64(produced.size() - reply->content.size()),
            lost * 10);
        m_maxLost = std::max(m_maxLost, lost);

        // The search index matches the table after the crash too.
        reopened.store.reset();
        auto db = Database::open(path, false);
        QVERIFY(db);
        QVERIFY((*db)->exec("INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')"));
    }

    void cleanupTestCase() {
        qInfo("most words lost in any round: %lld (checkpoint interval %d)", m_maxLost,
              kWordsPerCheckpoint);
    }
};

QTEST_GUILESS_MAIN(CrashTest)
#include "crash_test.moc"
