// A damaged chats.db (random bytes, truncated, a broken header) is reported as corrupt, and
// openOrRecover moves it aside (with its write-ahead log) and starts a fresh database.
#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include "chat_store.h"
#include "migrations.h"

using namespace hearth::storage;

namespace {

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeAll(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

QByteArray randomBytes(int size, quint32 seed) {
    QRandomGenerator gen(seed);
    QByteArray bytes(size, Qt::Uninitialized);
    for (char& b : bytes) b = char(gen.bounded(256));
    return bytes;
}

}  // namespace

class RecoveryTest : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<QTemporaryDir> m_dir;

    QString dbPath() const { return ChatStore::databasePath(m_dir->path()); }

    // A real database with enough messages to span many pages, closed cleanly (the WAL is
    // checkpointed into the main file and removed).
    QByteArray healthyDatabase() {
        auto opened = ChatStore::open(dbPath());
        if (!opened) qFatal("%s", opened.error.c_str());
        ChatStore& store = *opened.store;
        const qint64 chat = *store.createChat({"big", {}, {}, {}, {}});
        qint64 parent = 0;
        for (int i = 0; i < 200; ++i) {
            parent = *store.addMessage(chat, parent, i % 2 ? Role::Assistant : Role::User,
                                       QString("message %1 ").arg(i).repeated(40));
        }
        opened.store.reset();
        if (QFile::exists(dbPath() + "-wal")) qFatal("WAL left after a clean close");
        return readAll(dbPath());
    }

    // Checks that `bytes` as chats.db (with `wal` as its write-ahead log) is reported corrupt,
    // then recovered from, the files moved aside unchanged.
    void expectRecovery(const QByteArray& bytes, const QByteArray& wal = {}) {
        QVERIFY(writeAll(dbPath(), bytes));
        QFile::remove(dbPath() + "-shm");
        QFile::remove(dbPath() + "-wal");
        if (!wal.isEmpty()) QVERIFY(writeAll(dbPath() + "-wal", wal));

        auto plain = ChatStore::open(dbPath());
        QVERIFY(!plain);
        QCOMPARE(plain.failure, ChatStore::OpenFailure::Corrupt);
        QVERIFY2(plain.error.find(dbPath().toStdString()) != std::string::npos,
                 plain.error.c_str());
        qInfo("reported: %s", plain.error.c_str());
        QCOMPARE(readAll(dbPath()), bytes);  // plain open() never moves anything
        if (!wal.isEmpty()) QCOMPARE(readAll(dbPath() + "-wal"), wal);

        auto recovered = ChatStore::openOrRecover(dbPath());
        QVERIFY2(recovered, recovered.error.c_str());
        QVERIFY(!recovered.movedAsidePath.isEmpty());
        QVERIFY2(QFileInfo(recovered.movedAsidePath)
                     .fileName()
                     .startsWith(QStringLiteral("chats.db.corrupt-")),
                 qPrintable(recovered.movedAsidePath));
        QCOMPARE(readAll(recovered.movedAsidePath), bytes);
        if (!wal.isEmpty()) QCOMPARE(readAll(recovered.movedAsidePath + "-wal"), wal);
        QVERIFY(!recovered.error.empty());  // why the old file was set aside

        ChatStore& store = *recovered.store;
        QCOMPARE(store.listChats()->size(), 0);
        const qint64 chat = *store.createChat({"fresh start", {}, {}, {}, {}});
        QVERIFY(store.addMessage(chat, 0, Role::User, "hello again"));
        QCOMPARE(*store.integrityCheck(), QStringLiteral("ok"));
    }

private slots:
    void init() {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
    }

    void randomBytes() { expectRecovery(::randomBytes(64 * 1024, 9)); }

    void randomBytesWithAStaleWriteAheadLog() {
        // SQLite itself discards a log that does not belong to a database; only check that
        // recovery copes with one being there.
        QVERIFY(writeAll(dbPath() + "-wal", ::randomBytes(4096, 11)));
        QVERIFY(writeAll(dbPath(), ::randomBytes(8192, 10)));
        auto recovered = ChatStore::openOrRecover(dbPath());
        QVERIFY2(recovered, recovered.error.c_str());
        QVERIFY(!recovered.movedAsidePath.isEmpty());
        QVERIFY(recovered.store->createChat({"ok", {}, {}, {}, {}}));
        QCOMPARE(*recovered.store->integrityCheck(), QStringLiteral("ok"));
    }

    // The state a crash leaves: recent commits still in chats.db-wal. The main file is then
    // damaged; both files must be set aside byte for byte (no checkpoint into a broken file).
    void damagedWithRecentCommitsInTheLog() {
        const QByteArray base = healthyDatabase();
        auto opened = ChatStore::open(dbPath());
        QVERIFY(opened);
        const qint64 chat = opened.store->listChats()->at(0).id;
        QVERIFY(opened.store->addMessage(chat, 0, Role::User, "only in the log"));
        const QByteArray wal = readAll(dbPath() + "-wal");
        QVERIFY(wal.size() > 32);
        QByteArray main = readAll(dbPath());
        opened.store.reset();
        const QByteArray noise = ::randomBytes(3 * 4096, 15);
        main.replace(4 * 4096, noise.size(), noise);
        expectRecovery(main, wal);
    }

    void truncatedToHalf() {
        const QByteArray good = healthyDatabase();
        QVERIFY(good.size() > 64 * 1024);
        expectRecovery(good.left(good.size() / 2));
    }

    void truncatedInsideTheHeader() {
        const QByteArray good = healthyDatabase();
        expectRecovery(good.left(60));
    }

    void damagedHeader() {
        QByteArray bad = healthyDatabase();
        bad.replace(0, 16, QByteArray(16, 'x'));
        expectRecovery(bad);
    }

    void damagedPagesInTheMiddle() {
        QByteArray bad = healthyDatabase();
        const QByteArray noise = ::randomBytes(3 * 4096, 12);
        bad.replace(4 * 4096, noise.size(), noise);
        expectRecovery(bad);
    }

    void twoRecoveriesInOneSecondKeepBothFiles() {
        expectRecovery(::randomBytes(4096, 13));
        expectRecovery(::randomBytes(4096, 14));
        const QStringList aside =
            QDir(m_dir->path()).entryList({"chats.db.corrupt-*"}, QDir::Files);
        QVERIFY2(aside.filter(QRegularExpression("^chats\\.db\\.corrupt-[0-9-]+$")).size() == 2,
                 qPrintable(aside.join(", ")));
    }

    void anUnusablePathIsAnErrorNotCorruption() {
        const QString dir = m_dir->filePath("a-directory");
        QVERIFY(QDir().mkpath(dir));
        auto r = ChatStore::openOrRecover(dir);  // a folder where the file should be
        QVERIFY(!r);
        QCOMPARE(r.failure, ChatStore::OpenFailure::Other);
        QVERIFY(QFileInfo(dir).isDir());

        const QString blocked = m_dir->filePath("file-not-dir");
        QVERIFY(writeAll(blocked, "x"));
        auto r2 = ChatStore::openOrRecover(blocked + "/chats.db");
        QVERIFY(!r2);
        QCOMPARE(r2.failure, ChatStore::OpenFailure::Other);
        QVERIFY2(!r2.error.empty(), "needs a message");
    }

    void anEmptyFileIsANewDatabase() {
        QVERIFY(writeAll(dbPath(), {}));
        auto r = ChatStore::openOrRecover(dbPath());
        QVERIFY2(r, r.error.c_str());
        QVERIFY(r.movedAsidePath.isEmpty());
        QCOMPARE(r.store->schemaVersion(), latestSchemaVersion());
    }
};

QTEST_GUILESS_MAIN(RecoveryTest)
#include "recovery_test.moc"
