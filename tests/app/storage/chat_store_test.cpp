// ChatStore: chats, the message tree (edit → branch, regenerate → sibling, branch switching),
// streaming, search, delete with undo, batches, and bad ids.
#include <QTemporaryDir>
#include <QTest>
#include <QTimeZone>

#include "chat_groups.h"
#include "chat_store.h"
#include "sqlite_db.h"

using namespace hearth::storage;

namespace {

QStringList contents(const QList<Message>& path) {
    QStringList out;
    for (const Message& m : path) out.append(m.content);
    return out;
}

QDateTime utc(int y, int mo, int d, int h = 12, int mi = 0) {
    return QDateTime(QDate(y, mo, d), QTime(h, mi), QTimeZone::utc());
}

}  // namespace

class ChatStoreTest : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<ChatStore> m_store;
    qint64 m_clockMs = 0;

    QString dbPath() const { return ChatStore::databasePath(m_dir.path()); }

    // A pinned clock that advances one second per reading, so ordering never ties.
    void pinClock(ChatStore& store) {
        m_clockMs = utc(2026, 11, 20).toMSecsSinceEpoch();
        store.setClock([this] {
            m_clockMs += 1000;
            return QDateTime::fromMSecsSinceEpoch(m_clockMs, QTimeZone::utc());
        });
    }

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
        return contents(*path);
    }

private slots:
    void init() {
        QVERIFY(m_dir.isValid());
        QFile::remove(dbPath());
        QFile::remove(dbPath() + "-wal");
        QFile::remove(dbPath() + "-shm");
        auto opened = ChatStore::open(dbPath());
        QVERIFY2(opened, opened.error.c_str());
        m_store = std::move(opened.store);
        pinClock(*m_store);
    }

    void cleanup() {
        if (m_store) {
            auto verdict = m_store->integrityCheck();
            QVERIFY(verdict);
            QCOMPARE(*verdict, QStringLiteral("ok"));
        }
        m_store.reset();
    }

    void databaseLivesInTheDataDir() {
        QCOMPARE(ChatStore::databasePath("/data/hearth"), QStringLiteral("/data/hearth/chats.db"));
        QCOMPARE(m_store->path(), dbPath());
        QVERIFY(QFile::exists(dbPath()));
    }

    void chatsAreListedNewestFirstWithTheirSettings() {
        const qint64 a = newChat("first");
        auto b = m_store->createChat({"second", "/models/tiny.gguf", "tiny", "Be brief.",
                                      QJsonObject{{"temperature", 0.2}, {"top_k", 5}}});
        QVERIFY(b);
        const qint64 c = newChat("third");
        add(a, 0, Role::User, "bump a");  // a is now the most recently updated

        auto chats = m_store->listChats();
        QVERIFY(chats);
        QCOMPARE(chats->size(), 3);
        QCOMPARE(chats->at(0).id, a);
        QCOMPARE(chats->at(1).id, c);
        QCOMPARE(chats->at(2).id, *b);
        const Chat& second = chats->at(2);
        QCOMPARE(second.modelPath, QStringLiteral("/models/tiny.gguf"));
        QCOMPARE(second.modelName, QStringLiteral("tiny"));
        QCOMPARE(second.systemPrompt, QStringLiteral("Be brief."));
        QCOMPARE(second.samplingOverrides.value("temperature").toDouble(), 0.2);
        QCOMPARE(second.samplingOverrides.value("top_k").toInt(), 5);
        QVERIFY(chats->at(0).updatedAt > chats->at(0).createdAt);

        QVERIFY(m_store->renameChat(c, "renamed"));
        QVERIFY(m_store->setChatModel(c, "/m/other.gguf", "other"));
        QVERIFY(m_store->setSystemPrompt(c, "You are a pirate."));
        QVERIFY(m_store->setSamplingOverrides(c, QJsonObject{{"min_p", 0.05}}));
        auto changed = m_store->chat(c);
        QVERIFY(changed);
        QCOMPARE(changed->title, QStringLiteral("renamed"));
        QCOMPARE(changed->modelName, QStringLiteral("other"));
        QCOMPARE(changed->systemPrompt, QStringLiteral("You are a pirate."));
        QCOMPARE(changed->samplingOverrides, (QJsonObject{{"min_p", 0.05}}));
    }

    void unknownIdsAreErrorsNotCrashes() {
        const qint64 chat = newChat("x");
        QVERIFY(!m_store->chat(999));
        QVERIFY(!m_store->renameChat(999, "x"));
        QVERIFY(!m_store->deleteChat(999));
        QVERIFY(!m_store->restoreChat(chat));  // not in the trash
        QVERIFY(!m_store->addMessage(999, 0, Role::User, "x"));
        QVERIFY(!m_store->addMessage(chat, 999, Role::User, "x"));
        QVERIFY(!m_store->message(999));
        QVERIFY(!m_store->pathTo(999));
        QVERIFY(!m_store->siblings(999));
        QVERIFY(!m_store->selectBranch(999));
        QVERIFY(!m_store->editUserMessage(999, "x"));
        QVERIFY(!m_store->regenerate(999));
        QVERIFY(!m_store->beginAssistantMessage(999));
        QVERIFY(!m_store->checkpointMessage(999, "x"));
        QVERIFY(!m_store->finishMessage(999, "x", {}));
        auto missing = m_store->selectedPath(999);
        QVERIFY(!missing);
        QVERIFY2(missing.error_message().find("999") != std::string::npos,
                 missing.error_message().c_str());
        auto none = m_store->selectedPath(chat);
        QVERIFY(none);
        QVERIFY(none->isEmpty());
    }

    void aParentMustBelongToTheSameChat() {
        const qint64 a = newChat("a");
        const qint64 b = newChat("b");
        const qint64 inA = add(a, 0, Role::User, "hello");
        auto wrong = m_store->addMessage(b, inA, Role::User, "cross-chat");
        QVERIFY(!wrong);
        QVERIFY2(wrong.error_message().find("another chat") != std::string::npos,
                 wrong.error_message().c_str());
        QVERIFY(selected(b).isEmpty());  // nothing half-written
    }

    void editCreatesABranchAndBranchesCanBeSwitched() {
        const qint64 chat = newChat("tree");
        const qint64 sys = add(chat, 0, Role::System, "You help.");
        const qint64 u1 = add(chat, sys, Role::User, "What is 2+2?");
        const qint64 a1 = add(chat, u1, Role::Assistant, "4");
        const qint64 u2 = add(chat, a1, Role::User, "And 3+3?");
        add(chat, u2, Role::Assistant, "6");
        QCOMPARE(selected(chat), (QStringList{"You help.", "What is 2+2?", "4", "And 3+3?", "6"}));

        // Editing the first question starts a new branch from the system message.
        auto edited = m_store->editUserMessage(u1, "What is 2+3?");
        QVERIFY(edited);
        QCOMPARE(selected(chat), (QStringList{"You help.", "What is 2+3?"}));
        auto reply = m_store->beginAssistantMessage(*edited);
        QVERIFY(reply);
        QVERIFY(m_store->finishMessage(*reply, "5", {}));
        QCOMPARE(selected(chat), (QStringList{"You help.", "What is 2+3?", "5"}));

        auto sibs = m_store->siblings(u1);
        QVERIFY(sibs);
        QCOMPARE(*sibs, (QList<qint64>{u1, *edited}));
        auto path = m_store->selectedPath(chat);
        QVERIFY(path);
        QCOMPARE(path->at(1).siblingIndex, 1);  // shown as ‹ 2/2 ›
        QCOMPARE(path->at(1).siblingCount, 2);
        QCOMPARE(path->at(0).siblingCount, 1);
        QCOMPARE(path->at(2).siblingCount, 1);

        // ‹: back to the first question; its branch's newest leaf is selected again.
        auto leaf = m_store->selectBranch(u1);
        QVERIFY(leaf);
        QCOMPARE(selected(chat), (QStringList{"You help.", "What is 2+2?", "4", "And 3+3?", "6"}));
        auto chatRow = m_store->chat(chat);
        QVERIFY(chatRow);
        QCOMPARE(chatRow->selectedLeafId, *leaf);
        path = m_store->selectedPath(chat);
        QCOMPARE(path->at(1).siblingIndex, 0);  // ‹ 1/2 ›
        QCOMPARE(path->at(1).parentId, sys);

        QVERIFY(m_store->selectBranch(*edited));
        QCOMPARE(selected(chat), (QStringList{"You help.", "What is 2+3?", "5"}));

        // Only user messages are edited.
        auto bad = m_store->editUserMessage(a1, "five");
        QVERIFY(!bad);
        QVERIFY2(bad.error_message().find("user") != std::string::npos,
                 bad.error_message().c_str());
    }

    void editingARootMessageMakesSiblingRoots() {
        const qint64 chat = newChat("roots");
        const qint64 u1 = add(chat, 0, Role::User, "hi");
        auto u1b = m_store->editUserMessage(u1, "hello");
        QVERIFY(u1b);
        auto sibs = m_store->siblings(*u1b);
        QVERIFY(sibs);
        QCOMPARE(*sibs, (QList<qint64>{u1, *u1b}));
        auto msg = m_store->message(*u1b);
        QVERIFY(msg);
        QCOMPARE(msg->parentId, qint64(0));
        QCOMPARE(msg->siblingIndex, 1);
        QCOMPARE(msg->siblingCount, 2);
    }

    void regenerateAddsAnAssistantSibling() {
        const qint64 chat = newChat("regen");
        const qint64 u = add(chat, 0, Role::User, "Tell me a story.");
        auto a1 = m_store->beginAssistantMessage(u);
        QVERIFY(a1);
        QVERIFY(m_store->finishMessage(*a1, "Once upon a time.", {}));
        auto a2 = m_store->regenerate(*a1);
        QVERIFY(a2);
        auto streaming = m_store->message(*a2);
        QVERIFY(streaming);
        QCOMPARE(streaming->status, MessageStatus::Streaming);
        QCOMPARE(streaming->parentId, u);
        QCOMPARE(streaming->role, Role::Assistant);
        QVERIFY(m_store->finishMessage(*a2, "Long ago.", {}));
        auto a3 = m_store->regenerate(*a1);
        QVERIFY(a3);
        QVERIFY(m_store->finishMessage(*a3, "In a land far away.", {}));

        QCOMPARE(*m_store->siblings(*a1), (QList<qint64>{*a1, *a2, *a3}));
        QCOMPARE(selected(chat), (QStringList{"Tell me a story.", "In a land far away."}));
        auto path = m_store->selectedPath(chat);
        QCOMPARE(path->last().siblingIndex, 2);  // ‹ 3/3 ›
        QCOMPARE(path->last().siblingCount, 3);
        QVERIFY(m_store->selectBranch(*a2));
        QCOMPARE(selected(chat), (QStringList{"Tell me a story.", "Long ago."}));

        QVERIFY(!m_store->regenerate(u));  // a user message is edited, not regenerated
    }

    void selectBranchPicksTheNewestLeafBelow() {
        const qint64 chat = newChat("deep");
        const qint64 u1 = add(chat, 0, Role::User, "q1");
        const qint64 a1 = add(chat, u1, Role::Assistant, "a1");
        const qint64 u2 = add(chat, a1, Role::User, "q2");
        const qint64 a2 = add(chat, u2, Role::Assistant, "a2");
        const qint64 u2b = *m_store->editUserMessage(u2, "q2b");
        const qint64 a2b = add(chat, u2b, Role::Assistant, "a2b");
        // Back on the older branch, then continue it: its leaf becomes the newest.
        QCOMPARE(*m_store->selectBranch(u2), a2);
        const qint64 u3 = add(chat, a2, Role::User, "q3");
        QCOMPARE(*m_store->selectBranch(u1), u3);
        QCOMPARE(*m_store->selectBranch(u2b), a2b);
        QCOMPARE(*m_store->selectBranch(a2b), a2b);  // a leaf selects itself
        auto to = m_store->pathTo(u3);
        QVERIFY(to);
        QCOMPARE(contents(*to), (QStringList{"q1", "a1", "q2", "a2", "q3"}));
    }

    void streamingCheckpointsAndFinishes() {
        const qint64 chat = newChat("stream");
        const qint64 u = add(chat, 0, Role::User, "Count.");
        const QDateTime before = m_store->chat(chat)->updatedAt;
        auto a = m_store->beginAssistantMessage(u);
        QVERIFY(a);
        QCOMPARE(m_store->message(*a)->status, MessageStatus::Streaming);
        QCOMPARE(m_store->message(*a)->content, QString());
        QVERIFY(m_store->checkpointMessage(*a, "one two"));
        QVERIFY(m_store->appendToMessage(*a, " three"));
        QCOMPARE(m_store->message(*a)->content, QStringLiteral("one two three"));

        GenerationStats stats;
        stats.promptTokens = 12;
        stats.generatedTokens = 3;
        stats.promptTokensPerSecond = 250.5;
        stats.tokensPerSecond = 41.25;
        stats.timeToFirstTokenMs = 87.5;
        stats.stopReason = "eos";
        QVERIFY(m_store->finishMessage(*a, "one two three four", stats));
        auto done = m_store->message(*a);
        QVERIFY(done);
        QCOMPARE(done->status, MessageStatus::Complete);
        QCOMPARE(done->content, QStringLiteral("one two three four"));
        QCOMPARE(done->stats, stats);
        QVERIFY(m_store->chat(chat)->updatedAt > before);

        // A finished reply is no longer streaming: late checkpoints are refused.
        QVERIFY(!m_store->checkpointMessage(*a, "late"));
        QVERIFY(!m_store->appendToMessage(*a, "late"));
        QVERIFY(!m_store->finishMessage(*a, "again", stats));
        QCOMPARE(m_store->message(*a)->content, QStringLiteral("one two three four"));
    }

    void aReplyLeftStreamingIsInterruptedOnReopen() {
        const qint64 chat = newChat("crash");
        const qint64 u = add(chat, 0, Role::User, "Go.");
        const qint64 a = *m_store->beginAssistantMessage(u);
        QVERIFY(m_store->checkpointMessage(a, "partial answer"));
        QCOMPARE(m_store->interruptedOnOpen(), 0);
        m_store.reset();  // the app goes away without finishing

        auto reopened = ChatStore::open(dbPath());
        QVERIFY2(reopened, reopened.error.c_str());
        m_store = std::move(reopened.store);
        QCOMPARE(m_store->interruptedOnOpen(), 1);
        auto msg = m_store->message(a);
        QVERIFY(msg);
        QCOMPARE(msg->status, MessageStatus::Interrupted);
        QCOMPARE(msg->content, QStringLiteral("partial answer"));
        QVERIFY(!m_store->checkpointMessage(a, "more"));
        // The person can regenerate it.
        auto again = m_store->regenerate(a);
        QVERIFY(again);
        QCOMPARE(*m_store->siblings(a), (QList<qint64>{a, *again}));
    }

    void searchFindsMessagesWithHighlightedSnippets() {
        const qint64 a = newChat("Tokenizers");
        const qint64 b = newChat("Cooking");
        add(a, 0, Role::User, "How does a byte-pair tokenizer merge pairs?");
        const qint64 ans = add(b, 0, Role::Assistant, "Bake the café crème at 180 degrees.");

        auto hits = m_store->search("tokeniz");  // prefix
        QVERIFY(hits);
        QCOMPARE(hits->size(), 1);
        QCOMPARE(hits->at(0).chatId, a);
        QCOMPARE(hits->at(0).chatTitle, QStringLiteral("Tokenizers"));
        QCOMPARE(hits->at(0).role, Role::User);
        QVERIFY2(hits->at(0).snippet.contains(QStringLiteral("\x02tokenizer\x03")),
                 qPrintable(hits->at(0).snippet));

        auto both = m_store->search("cafe CRÈME");  // diacritics and case folded, words ANDed
        QVERIFY(both);
        QCOMPARE(both->size(), 1);
        QCOMPARE(both->at(0).messageId, ans);
        QCOMPARE(both->at(0).chatId, b);
        QCOMPARE(snippetToHtml(both->at(0).snippet),
                 QStringLiteral("Bake the <b>café</b> <b>crème</b> at 180 degrees."));
        QCOMPARE(m_store->search("cafe tokenizer")->size(), 0);

        SearchMarkers brackets{"[", "]", "..."};
        auto custom = m_store->search("pairs", 10, brackets);
        QVERIFY(custom);
        QCOMPARE(custom->size(), 1);
        QVERIFY2(custom->at(0).snippet.contains("merge [pairs]?"),
                 qPrintable(custom->at(0).snippet));

        // Query syntax typed by a person is literal text, never an FTS5 error.
        for (const char* q : {"\"", "a\"b", "AND", "OR NOT", "NEAR(", "*", "-x", "col:x", "(",
                              "^start", "--", "   "}) {
            auto r = m_store->search(QString::fromUtf8(q));
            QVERIFY2(r, (std::string(q) + ": " + (r ? "" : r.error_message())).c_str());
        }
        QCOMPARE(m_store->search("")->size(), 0);
    }

    void searchFollowsEditsCheckpointsAndTheTrash() {
        const qint64 chat = newChat("live");
        const qint64 u = add(chat, 0, Role::User, "question");
        const qint64 a = *m_store->beginAssistantMessage(u);
        QVERIFY(m_store->checkpointMessage(a, "the walrus"));
        QCOMPARE(m_store->search("walrus")->size(), 1);
        QVERIFY(m_store->finishMessage(a, "the narwhal", {}));
        QCOMPARE(m_store->search("walrus")->size(), 0);
        QCOMPARE(m_store->search("narwhal")->size(), 1);

        QVERIFY(m_store->deleteChat(chat));
        QCOMPARE(m_store->search("narwhal")->size(), 0);
        QVERIFY(m_store->restoreChat(chat));
        QCOMPARE(m_store->search("narwhal")->size(), 1);
    }

    void snippetHtmlEscapesMessageText() {
        QCOMPARE(snippetToHtml(QStringLiteral("<script>&\"\x02x\x03\"")),
                 QStringLiteral("&lt;script&gt;&amp;&quot;<b>x</b>&quot;"));
    }

    void ftsQueryQuotesEveryWord() {
        QCOMPARE(ChatStore::toFtsQuery("foo  bar"), QStringLiteral("\"foo\"* \"bar\"*"));
        QCOMPARE(ChatStore::toFtsQuery("say \"hi\""), QStringLiteral("\"say\"* \"\"\"hi\"\"\"*"));
        QCOMPARE(ChatStore::toFtsQuery("-- !!"), QString());
    }

    void deleteCanBeUndoneUntilPurged() {
        const qint64 keep = newChat("keep");
        const qint64 gone = newChat("gone");
        const qint64 u = add(gone, 0, Role::User, "ephemeral words");
        add(gone, u, Role::Assistant, "reply");

        QVERIFY(m_store->deleteChat(gone));
        QCOMPARE(m_store->listChats()->size(), 1);
        QVERIFY(!m_store->deleteChat(gone));  // already in the trash

        QVERIFY(m_store->restoreChat(gone));  // undo
        auto chats = m_store->listChats();
        QCOMPARE(chats->size(), 2);
        QCOMPARE(selected(gone), (QStringList{"ephemeral words", "reply"}));

        QVERIFY(m_store->deleteChat(gone));
        auto purged = m_store->purgeDeletedChats();
        QVERIFY(purged);
        QCOMPARE(*purged, 1);
        QVERIFY(!m_store->restoreChat(gone));
        QVERIFY(!m_store->message(u));
        QCOMPARE(m_store->listChats()->size(), 1);
        QCOMPARE(m_store->listChats()->at(0).id, keep);
        QCOMPARE(*m_store->purgeDeletedChats(), 0);

        // The search index lost the purged messages too (external-content FTS check).
        auto db = Database::open(dbPath(), false);
        QVERIFY(db);
        QVERIFY((*db)->exec("INSERT INTO messages_fts (messages_fts) VALUES ('integrity-check')"));
        QCOMPARE(*(*db)->queryInt("SELECT count(*) FROM messages_fts"), qint64(0));
    }

    void aBatchIsOneTransaction() {
        {
            Transaction batch = m_store->beginBatch();
            QVERIFY(batch.begun());
            const qint64 c = newChat("rolled back");
            add(c, 0, Role::User, "never stored");
            // batch dies uncommitted
        }
        QCOMPARE(m_store->listChats()->size(), 0);
        {
            Transaction batch = m_store->beginBatch();
            const qint64 c = newChat("kept");
            add(c, 0, Role::User, "stored");
            QVERIFY(batch.commit());
        }
        QCOMPARE(m_store->listChats()->size(), 1);
        QCOMPARE(m_store->search("stored")->size(), 1);
    }

    void chatGroupsFollowCalendarDays() {
        const QDateTime now = utc(2026, 11, 29, 9, 30);
        QCOMPARE(chatGroup(utc(2026, 11, 29, 0, 0), now), ChatGroup::Today);
        QCOMPARE(chatGroup(utc(2026, 11, 30, 8, 0), now), ChatGroup::Today);  // clock skew
        QCOMPARE(chatGroup(utc(2026, 11, 28, 23, 59), now), ChatGroup::Yesterday);
        QCOMPARE(chatGroup(utc(2026, 11, 28, 0, 0), now), ChatGroup::Yesterday);
        QCOMPARE(chatGroup(utc(2026, 11, 27, 23, 0), now), ChatGroup::Previous7Days);
        QCOMPARE(chatGroup(utc(2026, 11, 22, 0, 0), now), ChatGroup::Previous7Days);
        QCOMPARE(chatGroup(utc(2026, 11, 21, 23, 59), now), ChatGroup::Older);
        QCOMPARE(chatGroup(utc(2025, 1, 1), now), ChatGroup::Older);

        // Days are counted in now's time zone: 20:00 UTC on the 28th is the 29th in UTC+8.
        const QTimeZone plus8(8 * 3600);
        const QDateTime nowPlus8 = QDateTime(QDate(2026, 11, 29), QTime(9, 0), plus8);
        QCOMPARE(chatGroup(utc(2026, 11, 28, 20, 0), nowPlus8), ChatGroup::Today);
        QCOMPARE(chatGroup(utc(2026, 11, 28, 20, 0), now), ChatGroup::Yesterday);

        QList<Chat> chats(5);
        const QDateTime times[] = {utc(2026, 11, 29, 8), utc(2026, 11, 29, 7), utc(2026, 11, 28),
                                   utc(2026, 11, 1), utc(2026, 10, 1)};
        for (int i = 0; i < 5; ++i) {
            chats[i].id = i + 1;
            chats[i].updatedAt = times[i];
        }
        const QList<ChatSection> sections = groupChats(chats, now);
        QCOMPARE(sections.size(), 3);
        QCOMPARE(sections[0].group, ChatGroup::Today);
        QCOMPARE(sections[0].chats.size(), 2);
        QCOMPARE(sections[1].group, ChatGroup::Yesterday);
        QCOMPARE(sections[2].group, ChatGroup::Older);
        QCOMPARE(sections[2].chats.size(), 2);
        QVERIFY(groupChats({}, now).isEmpty());
    }
};

QTEST_GUILESS_MAIN(ChatStoreTest)
#include "chat_store_test.moc"
