// Fault injection for the chat database, through the crash helper (a real child process):
//  - 50 SIGKILLs at random moments of a child that opens the store and streams a reply with
//    checkpoints: after each, the database passes integrity_check, every reply verified in an
//    earlier round is unchanged, and the newest reply lost at most one checkpoint interval;
//  - SIGKILLs during a schema migration: the old chats are there afterwards, at the latest
//    schema;
//  - a full disk, as a file size limit (RLIMIT_FSIZE in the child: EFBIG on write): a clear
//    message, nothing saved lost;
//  - a really full disk (ENOSPC): a small tmpfs mounted in a user namespace (unshare -Urm);
//    skipped where the kernel or container forbids unprivileged mounts;
//  - another process holding the write lock, and a read-only data folder: a clear message.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMap>
#include <QProcess>
#include <QRandomGenerator>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <unistd.h>

#include <map>

#include "chat_store.h"
#include "migrations.h"
#include "sqlite_db.h"

using namespace hearth::storage;

namespace {

constexpr int kWordsPerCheckpoint = 10;  // crash_helper.cpp's interval

struct ChildLog {
    qint64 replyId = 0;
    long long lastWord = 0;
    long long lastSaved = 0;
};

void parseLine(const QByteArray& line, ChildLog& log) {
    const QList<QByteArray> parts = line.trimmed().split(' ');
    if (parts.size() != 2) return;
    const long long n = parts[1].toLongLong();
    if (parts[0] == "begin") log.replyId = n;
    if (parts[0] == "word") log.lastWord = std::max(log.lastWord, n);
    if (parts[0] == "saved") log.lastSaved = std::max(log.lastSaved, n);
}

// Runs the helper to completion (modes that exit by themselves).
struct Finished {
    int exitCode = -1;
    QByteArray out, err;
};
Finished runHelper(const QStringList& args,
                   const QString& program = QStringLiteral(HEARTH_CRASH_HELPER),
                   const QStringList& prefix = {}) {
    QProcess p;
    p.start(prefix.isEmpty() ? program : prefix.first(),
            prefix.isEmpty() ? args : prefix.mid(1) + QStringList{program} + args);
    Finished f;
    if (!p.waitForFinished(60000)) {
        p.kill();
        p.waitForFinished();
    }
    f.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    f.out = p.readAllStandardOutput();
    f.err = p.readAllStandardError();
    return f;
}

}  // namespace

class FaultTest : public QObject {
    Q_OBJECT

private slots:
    void fiftyRandomKillsWhileStreaming() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = ChatStore::databasePath(dir.path());
        std::map<qint64, QString> verified;  // reply id -> content seen after its crash
        auto* rng = QRandomGenerator::global();
        int withReply = 0;
        long long maxLost = 0;
        for (int round = 0; round < 50; ++round) {
            const bool hold = rng->bounded(3) == 0;
            QProcess child;
            child.start(QStringLiteral(HEARTH_CRASH_HELPER),
                        hold ? QStringList{path, "hold"} : QStringList{path});
            QVERIFY2(child.waitForStarted(), qPrintable(child.errorString()));
            // Anywhere from start-up (opening, creating the chat) to a few checkpoints in.
            QThread::msleep(rng->bounded(450));
            child.kill();
            QVERIFY(child.waitForFinished(30000));
            ChildLog log;
            for (const QByteArray& line : child.readAllStandardOutput().split('\n'))
                parseLine(line, log);

            auto reopened = ChatStore::open(path);
            QVERIFY2(reopened, reopened.error.c_str());
            ChatStore& store = *reopened.store;
            QCOMPARE(*store.integrityCheck(), QStringLiteral("ok"));
            for (const auto& [id, content] : verified) {
                auto m = store.message(id);
                QVERIFY(m);
                QCOMPARE(m->content, content);  // nothing saved earlier is lost
            }
            if (log.replyId == 0) continue;
            ++withReply;
            auto reply = store.message(log.replyId);
            QVERIFY(reply);
            QCOMPARE(reply->status, MessageStatus::Interrupted);
            const QStringList words = reply->content.split(' ', Qt::SkipEmptyParts);
            for (int i = 0; i < words.size(); ++i)
                QCOMPARE(words[i], QStringLiteral("w%1").arg(i + 1));
            const long long stored = words.size();
            QCOMPARE(stored % kWordsPerCheckpoint, 0LL);
            QVERIFY2(stored >= log.lastSaved, "a checkpoint that committed was lost");
            const long long lost = std::max(0LL, log.lastWord - stored);
            QVERIFY2(lost <= kWordsPerCheckpoint,
                     qPrintable(QStringLiteral("lost %1 words").arg(lost)));
            maxLost = std::max(maxLost, lost);
            verified[log.replyId] = reply->content;
        }
        qInfo("50 kills: %d had begun a reply; at most %lld words lost (interval %d)", withReply,
              maxLost, kWordsPerCheckpoint);
        QVERIFY2(withReply >= 10, "too few rounds reached the streaming phase to mean anything");
    }

    void killsDuringAMigrationKeepTheOldChats() {
        auto steps = builtinMigrations();
        QVERIFY(steps);
        auto* rng = QRandomGenerator::global();
        int migrated = 0;
        for (int round = 0; round < 12; ++round) {
            QTemporaryDir dir;
            const QString path = ChatStore::databasePath(dir.path());
            {
                auto db = Database::open(path, true);
                QVERIFY(db);
                QVERIFY(migrate(**db, *steps, 1));
                QVERIFY((*db)->exec(
                    "INSERT INTO chats (id, title, created_at, updated_at, model_path, "
                    "model_name, system_prompt) VALUES (1, 'Old chat', 1000, 5000, '', '', '');"
                    "INSERT INTO messages (id, chat_id, parent_id, role, content, created_at, "
                    "stats, status) VALUES (1, 1, NULL, 'user', 'Where do penguins live?', "
                    "1000, '{}', 'complete')"));
            }
            QProcess child;
            child.start(QStringLiteral(HEARTH_CRASH_HELPER), {path, "open"});
            QVERIFY(child.waitForStarted());
            QThread::msleep(rng->bounded(60));
            child.kill();
            QVERIFY(child.waitForFinished(30000));
            if (child.readAllStandardOutput().startsWith("opened")) ++migrated;
            auto reopened = ChatStore::open(path);
            QVERIFY2(reopened, reopened.error.c_str());
            QCOMPARE(reopened.store->schemaVersion(), latestSchemaVersion());
            QCOMPARE(*reopened.store->integrityCheck(), QStringLiteral("ok"));
            auto m = reopened.store->message(1);
            QVERIFY(m);
            QCOMPARE(m->content, QStringLiteral("Where do penguins live?"));
        }
        qInfo("12 kills around a migration (%d after it had finished)", migrated);
    }

    void aFullDiskGivesAClearMessageAndKeepsWhatWasSaved() {
        QTemporaryDir dir;
        const QString path = ChatStore::databasePath(dir.path());
        qint64 saved = 0;
        {
            auto opened = ChatStore::open(path);
            QVERIFY(opened);
            auto chat = opened.store->createChat({"before", {}, {}, {}, {}});
            QVERIFY(chat);
            auto m = opened.store->addMessage(*chat, 0, Role::User, "saved before the disk filled");
            QVERIFY(m);
            saved = *m;
        }
        const Finished f = runHelper({path, "diskfull"});
        QCOMPARE(f.exitCode, 0);
        const QList<QByteArray> lines = f.out.trimmed().split('\n');
        QVERIFY2(lines.size() >= 2, f.out.constData());  // some rows fit, then the error
        // RLIMIT_FSIZE stands in for a full disk (EFBIG where a full disk gives ENOSPC).
        QVERIFY2(lines.last().startsWith("error A file size limit (ulimit -f) stops the chat "
                                         "database from growing; what was saved before is kept."),
                 lines.last().constData());
        auto reopened = ChatStore::open(path);
        QVERIFY2(reopened, reopened.error.c_str());
        QCOMPARE(*reopened.store->integrityCheck(), QStringLiteral("ok"));
        auto m = reopened.store->message(saved);
        QVERIFY(m);
        QCOMPARE(m->content, QStringLiteral("saved before the disk filled"));
        // Every row the child reported as added is there.
        const long long added = lines[lines.size() - 2].split(' ').last().toLongLong();
        reopened.store.reset();
        auto db = Database::open(path, false);
        QVERIFY(db);
        auto n = (*db)->queryInt("SELECT count(*) FROM messages WHERE length(content) = 4096");
        QVERIFY(n);
        QCOMPARE(*n, qint64(added));
        qInfo("disk full after %lld messages: %s", added, lines.last().constData());
    }

    void aReallyFullDiskGivesAClearMessageAndKeepsWhatWasSaved() {
        if (QStandardPaths::findExecutable("unshare").isEmpty())
            QSKIP("unshare (util-linux) is not installed: no tmpfs to fill");
        QTemporaryDir dir;
        const QString path = ChatStore::databasePath(dir.filePath("src"));
        QVERIFY(QDir().mkpath(dir.filePath("src")) && QDir().mkpath(dir.filePath("mnt")));
        {
            auto opened = ChatStore::open(path);
            QVERIFY(opened);
            auto chat = opened.store->createChat({"before", {}, {}, {}, {}});
            QVERIFY(chat);
            QVERIFY(opened.store->addMessage(*chat, 0, Role::User, "saved before the disk filled"));
        }
        // The tmpfs lives only in the child's mount namespace, so filling it and checking what
        // is left both run in there: "fill" adds 4 KiB messages until a write fails with ENOSPC,
        // "check" reopens the copy on the full file system.
        const qint64 sizeKiB = QFileInfo(path).size() / 1024 + 1024;
        const QString script = QStringLiteral(
                                   "mount -t tmpfs -o size=%1k hearth-full \"$1\" || exit 77\n"
                                   "cp \"$2\" \"$1/chats.db\" && \"$3\" \"$1/chats.db\" fill && "
                                   "\"$3\" \"$1/chats.db\" check")
                                   .arg(sizeKiB);
        const Finished f = runHelper({"-Urm", "sh", "-c", script, "sh", dir.filePath("mnt"), path,
                                      QStringLiteral(HEARTH_CRASH_HELPER)},
                                     QStringLiteral("unshare"));
        if (f.exitCode == 77 || f.err.startsWith("unshare:"))
            QSKIP(qPrintable("no unprivileged tmpfs mount here: " + f.err.trimmed()));
        QVERIFY2(f.exitCode == 0, f.err.constData());
        QMap<QByteArray, QByteArray> last;  // the last line of each kind
        qint64 added = 0;
        for (const QByteArray& line : f.out.trimmed().split('\n')) {
            const qsizetype space = line.indexOf(' ');
            last[line.left(space)] = line.mid(space + 1);
            if (line.startsWith("added ")) added = line.mid(6).toLongLong();
        }
        QVERIFY2(added > 0, f.out.constData());  // some rows fit before the disk filled
        QVERIFY2(last.value("error").startsWith(
                     "The disk is full; what was saved before is kept. Free some space"),
                 last.value("error").constData());
        QCOMPARE(last.value("integrity"), QByteArray("ok"));
        QCOMPARE(last.value("big").toLongLong(), added);  // every row reported added is there
        QCOMPARE(last.value("marker"), QByteArray("1"));
        qInfo("tmpfs of %lld KiB full after %lld messages: %s", sizeKiB, added,
              last.value("error").constData());
    }

    void aDatabaseLockedByAnotherProcessGivesAClearMessage() {
        QTemporaryDir dir;
        const QString path = ChatStore::databasePath(dir.path());
        { QVERIFY(ChatStore::open(path)); }
        QProcess holder;
        holder.start(QStringLiteral(HEARTH_CRASH_HELPER), {path, "lock"});
        QVERIFY(holder.waitForStarted());
        QVERIFY(holder.waitForReadyRead(30000));
        QVERIFY(holder.readLine().startsWith("locked"));
        auto r = ChatStore::open(path);  // waits out the busy timeout, then says why
        holder.kill();
        holder.waitForFinished();
        QVERIFY(!r);
        QVERIFY2(r.error.find("in use by another program") != std::string::npos, r.error.c_str());
        auto again = ChatStore::open(path);  // the lock died with its process
        QVERIFY2(again, again.error.c_str());
    }

    void aReadOnlyDataFolderGivesAClearMessage() {
        QTemporaryDir dir;
        const QString data = dir.filePath("data");
        QVERIFY(QDir().mkpath(data));
        const QString path = ChatStore::databasePath(data);
        { QVERIFY(ChatStore::open(path)); }
        QFile::setPermissions(dir.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner |
                                              QFile::ReadOther | QFile::ExeOther);
        QFile::setPermissions(
            data, QFile::ReadOwner | QFile::ExeOwner | QFile::ReadOther | QFile::ExeOther);
        QFile::setPermissions(path, QFile::ReadOwner | QFile::ReadOther);
        // Root ignores permissions: run the helper as nobody then (setpriv, util-linux).
        QStringList prefix;
        if (::geteuid() == 0) {
            if (QStandardPaths::findExecutable("setpriv").isEmpty())
                QSKIP("running as root without setpriv: permissions cannot be tested");
            prefix = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
        }
        const Finished f = runHelper({path, "open"}, QStringLiteral(HEARTH_CRASH_HELPER), prefix);
        QFile::setPermissions(data, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        QCOMPARE(f.exitCode, 1);
        QVERIFY2(f.err.contains("is read-only, so Hearth cannot keep chats there"),
                 f.err.constData());
    }
};

QTEST_GUILESS_MAIN(FaultTest)
#include "fault_test.moc"
