// ChatStore: the trash (kept 30 days, restore, purge one), replies without text never kept as
// answers, Continue reopening a reply, and the whole tree read and written back (import).
#include <QTemporaryDir>
#include <QTest>
#include <QTimeZone>

#include "chat_store.h"

using namespace hearth::storage;

class ChatStoreStatesTest : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<ChatStore> m_store;
    qint64 m_clockMs = 0;

    qint64 newChat(const QString& title) {
        auto id = m_store->createChat({title, {}, {}, {}, {}});
        if (!id) qFatal("createChat: %s", id.error_message().c_str());
        return *id;
    }
    qint64 add(qint64 chat, qint64 parent, Role role, const QString& text) {
        auto id = m_store->addMessage(chat, parent, role, text);
        if (!id) qFatal("addMessage: %s", id.error_message().c_str());
        return *id;
    }
    QStringList selected(qint64 chat) {
        auto path = m_store->selectedPath(chat);
        if (!path) qFatal("selectedPath: %s", path.error_message().c_str());
        QStringList out;
        for (const Message& m : *path) out.append(m.content);
        return out;
    }
    void advanceDays(int days) { m_clockMs += qint64(days) * 24 * 3600 * 1000; }

private slots:
    void init() {
        QVERIFY(m_dir.isValid());
        QFile::remove(ChatStore::databasePath(m_dir.path()));
        auto opened = ChatStore::open(ChatStore::databasePath(m_dir.path()));
        QVERIFY2(opened, opened.error.c_str());
        m_store = std::move(opened.store);
        m_clockMs =
            QDateTime(QDate(2026, 11, 1), QTime(12, 0), QTimeZone::utc()).toMSecsSinceEpoch();
        m_store->setClock([this] {
            m_clockMs += 1000;
            return QDateTime::fromMSecsSinceEpoch(m_clockMs, QTimeZone::utc());
        });
    }
    void cleanup() {
        m_store.reset();
        QFile::remove(ChatStore::databasePath(m_dir.path()));
    }

    // Two chats deleted one after the other are both in the trash and both come back; only
    // chats trashed more than 30 days ago are purged.
    void trashKeepsChatsThirtyDays() {
        const qint64 a = newChat("first");
        add(a, 0, Role::User, "alpha words");
        const qint64 b = newChat("second");
        add(b, 0, Role::User, "beta words");
        QVERIFY(m_store->deleteChat(a));
        QVERIFY(m_store->deleteChat(b));
        auto trash = m_store->listTrash();
        QVERIFY(trash);
        QCOMPARE(trash->size(), 2);
        QCOMPARE(trash->at(0).id, b);  // the last deleted first
        QVERIFY(trash->at(0).deletedAt.isValid());
        QVERIFY(m_store->listChats()->isEmpty());
        QVERIFY(m_store->search("alpha")->isEmpty());

        QCOMPARE(*m_store->purgeExpiredTrash(), 0);  // a moment later: both kept
        QVERIFY(m_store->restoreChat(a));
        QCOMPARE(m_store->listChats()->size(), 1);
        QCOMPARE(m_store->listTrash()->size(), 1);

        advanceDays(29);
        QCOMPARE(*m_store->purgeExpiredTrash(), 0);
        advanceDays(2);
        QCOMPARE(*m_store->purgeExpiredTrash(), 1);  // b: 31 days in the trash
        QVERIFY(m_store->listTrash()->isEmpty());
        QVERIFY(!m_store->chat(b));
        QCOMPARE(selected(a), QStringList{"alpha words"});  // a was restored: never purged

        // Purging one chat: only from the trash.
        QVERIFY(!m_store->purgeChat(a));
        QVERIFY(m_store->deleteChat(a));
        QVERIFY(m_store->purgeChat(a));
        QVERIFY(!m_store->chat(a));
    }

    // A reply stopped before its first token is not kept; the branch it hung off is selected.
    void emptyRepliesAreDiscarded() {
        const qint64 c = newChat("c");
        const qint64 u = add(c, 0, Role::User, "question");
        const qint64 first = add(c, u, Role::Assistant, "first answer");
        auto second = m_store->regenerate(first);
        QVERIFY(second);
        QCOMPARE(selected(c), (QStringList{"question", ""}));
        QVERIFY(m_store->discardEmptyReply(*second));
        QCOMPARE(selected(c), (QStringList{"question", "first answer"}));
        QVERIFY(!m_store->message(*second));
        QCOMPARE(*m_store->siblings(first), QList<qint64>{first});

        // The only reply: the user message becomes the leaf.
        const qint64 u2 = add(c, first, Role::User, "again");
        auto empty = m_store->beginAssistantMessage(u2);
        QVERIFY(empty);
        QVERIFY(m_store->discardEmptyReply(*empty));
        QCOMPARE(selected(c), (QStringList{"question", "first answer", "again"}));

        // Text, a user message or replies below: refused, nothing removed.
        QVERIFY(!m_store->discardEmptyReply(first));
        QVERIFY(!m_store->discardEmptyReply(u2));
        auto withChild = m_store->beginAssistantMessage(u2);
        QVERIFY(withChild);
        add(c, *withChild, Role::User, "below");
        QVERIFY(!m_store->discardEmptyReply(*withChild));
        QVERIFY(m_store->message(*withChild));
    }

    // Continue: a finished or interrupted reply is reopened for streaming with its text.
    void resumeReopensAFinishedReply() {
        const qint64 c = newChat("c");
        const qint64 u = add(c, 0, Role::User, "tell a story");
        auto r = m_store->beginAssistantMessage(u);
        QVERIFY(r);
        QVERIFY(m_store->checkpointMessage(*r, "Once upon"));
        GenerationStats st;
        st.stopReason = "stopped";
        QVERIFY(m_store->finishMessage(*r, "Once upon", st));
        QVERIFY(!m_store->resumeReply(u));  // not a reply
        QVERIFY(m_store->resumeReply(*r));
        QVERIFY(!m_store->resumeReply(*r));  // already streaming
        QCOMPARE(m_store->message(*r)->status, MessageStatus::Streaming);
        QVERIFY(m_store->appendToMessage(*r, " a time"));
        QVERIFY(m_store->finishMessage(*r, "Once upon a time", {}));
        QCOMPARE(m_store->message(*r)->content, QStringLiteral("Once upon a time"));
        add(c, *r, Role::User, "more");
        QVERIFY(!m_store->resumeReply(*r));  // it has a reply below it now
    }

    // Every branch comes out in order; importMessage keeps times, stats and status.
    void wholeTreeOutAndBackIn() {
        const qint64 c = newChat("tree");
        const qint64 u = add(c, 0, Role::User, "q");
        const qint64 a1 = add(c, u, Role::Assistant, "a1");
        auto a2 = m_store->regenerate(a1);
        QVERIFY(a2);
        QVERIFY(m_store->finishMessage(*a2, "a2", {}));
        auto all = m_store->allMessages(c);
        QVERIFY(all);
        QCOMPARE(all->size(), 3);
        QCOMPARE(all->at(2).siblingCount, 2);
        QVERIFY(!m_store->allMessages(9999));

        const qint64 copy = newChat("copy");
        Message m = all->at(0);
        m.createdAt = QDateTime(QDate(2020, 1, 2), QTime(3, 4), QTimeZone::utc());
        auto nu = m_store->importMessage(copy, 0, m);
        QVERIFY(nu);
        Message r = all->at(1);
        r.status = MessageStatus::Interrupted;
        r.stats.generatedTokens = 7;
        auto nr = m_store->importMessage(copy, *nu, r);
        QVERIFY(nr);
        QCOMPARE(m_store->message(*nu)->createdAt, m.createdAt);
        QCOMPARE(m_store->message(*nr)->status, MessageStatus::Interrupted);
        QCOMPARE(m_store->message(*nr)->stats.generatedTokens, 7);
        QVERIFY(!m_store->importMessage(copy, a1, r));  // a parent in another chat
        Message streaming = r;
        streaming.status = MessageStatus::Streaming;
        QVERIFY(!m_store->importMessage(copy, *nu, streaming));
        QVERIFY(m_store->selectLeaf(copy, *nr));
        QVERIFY(!m_store->selectLeaf(copy, a1));
        QCOMPARE(selected(copy), (QStringList{"q", "a1"}));
    }
};

QTEST_GUILESS_MAIN(ChatStoreStatesTest)
#include "chat_store_states_test.moc"
