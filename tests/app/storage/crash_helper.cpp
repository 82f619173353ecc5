// Child process for crash_test: opens the store, starts an assistant reply and streams it
// forever, one word every 10 ms, checkpointing every 10 words (~100 ms), until it is killed.
// With "hold", each checkpoint is written inside a transaction that stays open for 300 ms
// before committing, so the parent can kill it in the middle of a checkpoint.
// Protocol on stdout, one line each, flushed at once:
//   open <replies found interrupted>   begin <message id>
//   word <n>     (word n exists in memory; printed before any checkpoint that includes it)
//   holding <n>  (hold mode: words 1..n written, transaction not committed yet)
//   saved <n>    (a checkpoint holding words 1..n has committed)
//
// Other modes for fault_test (argv[2]):
//   open      opens the store (migrating it), prints "opened <schema version>" or the error on
//             stderr with exit status 1, and exits
//   lock      opens the store, takes the write lock (BEGIN IMMEDIATE), prints "locked" and
//             sleeps until killed: another process holding the database
//   diskfull  opens the store, limits the size of any file it writes to the current size of the
//             database plus 64 KiB (RLIMIT_FSIZE; SIGXFSZ ignored so writes fail with EFBIG as
//             on a full disk), then adds 4 KiB messages until one fails: prints "added <n>"
//             for each, then "error <message>" and exits 0
//   fill      the same without a size limit: for a store on a small file system that fills up
//             (fault_test mounts a tmpfs in a user namespace): a real ENOSPC
//   check     opens the store, prints "integrity <integrity_check result>", "big <number of
//             4 KiB messages>" and "marker <number of messages saying 'saved before the disk
//             filled'>", and exits 0
#include <QCoreApplication>
#include <QFileInfo>
#include <QThread>

#include <sys/resource.h>

#include <csignal>
#include <cstdio>
#include <optional>

#include "chat_store.h"
#include "sqlite_db.h"

using namespace hearth::storage;

static void say(const char* what, long long n) {
    std::printf("%s %lld\n", what, n);
    std::fflush(stdout);
}

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const QByteArray mode = argc == 3 ? QByteArray(argv[2]) : QByteArray();
    if (argc < 2 || argc > 3 ||
        (argc == 3 && mode != "hold" && mode != "open" && mode != "lock" && mode != "diskfull" &&
         mode != "fill" && mode != "check")) {
        std::fprintf(stderr, "usage: %s <chats.db> [hold|open|lock|diskfull|fill|check]\n",
                     argv[0]);
        return 2;
    }
    const bool hold = mode == "hold";
    auto opened = ChatStore::open(QString::fromLocal8Bit(argv[1]));
    if (!opened) {
        std::fprintf(stderr, "open: %s\n", opened.error.c_str());
        return 1;
    }
    ChatStore& store = *opened.store;
    if (mode == "open") {
        say("opened", store.schemaVersion());
        return 0;
    }
    if (mode == "lock") {
        Transaction tx = store.beginBatch();
        if (!tx.begun()) {
            std::fprintf(stderr, "lock: %s\n", tx.begun().message().c_str());
            return 1;
        }
        say("locked", 1);
        for (;;) QThread::sleep(1);
    }
    if (mode == "check") {
        auto integrity = store.integrityCheck();
        std::printf("integrity %s\n", integrity ? integrity->toUtf8().constData()
                                                : integrity.error_message().c_str());
        opened.store.reset();
        auto db = Database::open(QString::fromLocal8Bit(argv[1]), false);
        if (!db) return 1;
        auto big = (*db)->queryInt("SELECT count(*) FROM messages WHERE length(content) = 4096");
        auto marker = (*db)->queryInt(
            "SELECT count(*) FROM messages WHERE content = 'saved before the disk filled'");
        say("big", big ? *big : -1);
        say("marker", marker ? *marker : -1);
        return 0;
    }
    if (mode == "diskfull" || mode == "fill") {
        if (mode == "diskfull") {
            std::signal(SIGXFSZ, SIG_IGN);
            const rlim_t limit = rlim_t(QFileInfo(QString::fromLocal8Bit(argv[1])).size()) + 65536;
            const rlimit rl{limit, limit};
            if (setrlimit(RLIMIT_FSIZE, &rl) != 0) return 1;
        }
        auto chat = store.createChat({"disk full", {}, {}, {}, {}});
        const QString big(4096, QLatin1Char('x'));
        for (long long n = 1; chat; ++n) {
            auto added = store.addMessage(*chat, 0, Role::User, big);
            if (!added) {
                std::printf("error %s\n", added.error_message().c_str());
                return 0;
            }
            say("added", n);
        }
        std::printf("error %s\n", chat.error_message().c_str());
        return 0;
    }
    say("open", store.interruptedOnOpen());
    auto chat = store.createChat({"crash test", {}, {}, {}, {}});
    auto question = chat ? store.addMessage(*chat, 0, Role::User, "Count for me.")
                         : hearth::Result<qint64>(chat.status());
    auto reply = question ? store.beginAssistantMessage(*question) : question;
    if (!reply) {
        std::fprintf(stderr, "setup: %s\n", reply.error_message().c_str());
        return 1;
    }
    say("begin", *reply);

    QString text;
    for (long long n = 1;; ++n) {
        text += QStringLiteral("w%1 ").arg(n);
        say("word", n);
        if (n % 10 == 0) {
            // As the app does it: one statement, its own transaction. In hold mode the same
            // call runs inside a batch kept open before committing.
            std::optional<Transaction> tx;
            if (hold) tx.emplace(store.beginBatch());
            hearth::Status s = tx ? tx->begun() : hearth::Status::ok();
            if (s) s = store.checkpointMessage(*reply, text);
            if (s && tx) {
                say("holding", n);
                QThread::msleep(300);
                s = tx->commit();
            }
            if (!s) {
                std::fprintf(stderr, "checkpoint: %s\n", s.message().c_str());
                return 1;
            }
            say("saved", n);
        }
        QThread::msleep(10);
    }
}
