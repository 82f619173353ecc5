// Issue 24 part B on the real engine and stories260K: the trash, error notices, reply states
// (stopped, empty, Continue), replies that keep going in the background, safe model
// switching, grouped search that opens the matching branch, export/import round trips, the
// model's display name and fit estimate, and the settings the reload banner names.
#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "chat_store.h"
#include "controller_fixture.h"
#include "demo_chat.h"
#include "message_model.h"
#include "model_library.h"
#include "model_probe.h"

using hearth::app::ChatController;
using hearth::app::MessageModel;
using hearth::storage::ChatStore;
using hearth::storage::Role;

namespace {

// Opens the data folder's store directly (no controller may hold it at the time).
std::unique_ptr<ChatStore> openStore(const QString& dir) {
    auto opened = ChatStore::open(ChatStore::databasePath(dir));
    return std::move(opened.store);
}

QVariant role(const ChatController& c, int row, int r) {
    return c.messages()->data(c.messages()->index(row), r);
}

}  // namespace

class ChatStatesTest : public QObject {
    Q_OBJECT

private slots:
    // Item 3: two chats deleted one after the other are both in the trash and both restored;
    // they are still there after a restart (nothing is purged before 30 days).
    void deletingTwoChatsLosesNeither() {
        QTemporaryDir dir;
        qint64 a = 0, b = 0;
        {
            auto s = openStore(dir.path());
            QVERIFY(s);
            a = *s->createChat({"first", {}, {}, {}, {}});
            b = *s->createChat({"second", {}, {}, {}, {}});
            QVERIFY(s->addMessage(a, 0, Role::User, "one"));
            QVERIFY(s->addMessage(b, 0, Role::User, "two"));
        }
        {
            auto c = hearth::test::openController(dir.path());
            QVERIFY(c);
            QTRY_COMPARE(c->chats()->rowCount(), 2);
            c->deleteChat(a);
            c->deleteChat(b);
            QCOMPARE(c->undoTitle(), QStringLiteral("second"));
            QTRY_COMPARE(c->chats()->rowCount(), 0);
            QTRY_COMPARE(c->trash().size(), 2);
        }
        auto c = hearth::test::openController(dir.path());  // a restart
        QVERIFY(c);
        QTRY_COMPARE(c->trash().size(), 2);
        QCOMPARE(c->trash().at(0).toMap().value("daysLeft").toInt(), 30);
        c->restoreChat(a);
        c->restoreChat(b);
        QTRY_COMPARE(c->chats()->rowCount(), 2);
        QTRY_COMPARE(c->trash().size(), 0);
        c->deleteChat(a);
        QTRY_COMPARE(c->trash().size(), 1);
        c->emptyTrash();
        QTRY_COMPARE(c->trash().size(), 0);
        QCOMPARE(c->chats()->rowCount(), 1);
    }

    // Item 4: failures are errors (error style), successes are not.
    void errorsAreMarkedAsErrors() {
        QTemporaryDir dir;
        const qint64 id = hearth::app::seedDemoChat(dir.path(), nullptr);
        QVERIFY(id > 0);
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        QSignalSpy notice(c.get(), &ChatController::noticeChanged);
        c->exportChat(id, QUrl::fromLocalFile(dir.filePath("no/such/folder/x.json")), "json");
        QVERIFY(notice.wait(5000) || !notice.isEmpty());
        QVERIFY(c->noticeIsError());
        notice.clear();
        c->exportChat(id, QUrl::fromLocalFile(dir.filePath("x.json")), "json");
        QVERIFY(notice.wait(5000) || !notice.isEmpty());
        QVERIFY(!c->noticeIsError());
        QVERIFY(c->notice().contains("x.json"));
        c->importChat(QUrl::fromLocalFile(dir.filePath("missing.json")));
        QVERIFY(c->noticeIsError());
    }

    // Item 5: a reply stopped before its first token leaves no empty answer behind.
    void stopBeforeTheFirstTokenKeepsNoEmptyReply() {
        REQUIRE_MODEL();
        QTemporaryDir dir;
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        QVERIFY(hearth::test::loadTinyModel(*c));
        QVERIFY(c->send("Lily and Tom went to the park."));
        c->stop();
        QCOMPARE(hearth::test::waitForReply(*c), QStringLiteral("stopped"));
        QTRY_COMPARE(c->messages()->rowCount(), 1);  // only the question
        QCOMPARE(role(*c, 0, MessageModel::RoleRole).toString(), QStringLiteral("user"));
        QVERIFY(!c->noticeIsError());
        QVERIFY(c->notice().contains("nothing to keep"));
        const qint64 chat = c->currentChatId();
        // The store agrees, also after a restart; the next turn answers the same question.
        c->settings()->insert("maxTokens", 8);
        QVERIFY(c->send("And then?"));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        c.reset();
        auto s = openStore(dir.path());
        auto path = s->selectedPath(chat);
        QVERIFY(path);
        QCOMPARE(path->size(), 3);
        QCOMPARE(path->at(0).role, Role::User);
        QCOMPARE(path->at(1).role, Role::User);
        QVERIFY(!path->at(2).content.isEmpty());
    }

    // Item 5: a stopped reply says so and Continue writes on from its end.
    void stoppedReplyIsLabelledAndContinues() {
        REQUIRE_MODEL();
        QTemporaryDir dir;
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        c->settings()->insert("maxTokens", 400);
        QVERIFY(hearth::test::loadTinyModel(*c));
        QSignalSpy done(c.get(), &ChatController::replyFinished);
        auto conn = connect(c.get(), &ChatController::statsChanged, c.get(), [&] {
            if (c->generating() && c->lastReport().generatedTokens == 0) c->stop();
        });
        QVERIFY(c->send("Tom had a red ball."));
        QVERIFY(done.wait(60000) || !done.isEmpty());
        disconnect(conn);
        QCOMPARE(done.first().at(1).toString(), QStringLiteral("stopped"));
        QTRY_COMPARE(c->messages()->rowCount(), 2);
        const QString before = role(*c, 1, MessageModel::ContentRole).toString();
        QVERIFY(!before.isEmpty());
        QCOMPARE(role(*c, 1, MessageModel::StateRole).toString(), QStringLiteral("stopped"));
        QVERIFY(role(*c, 1, MessageModel::CanContinueRole).toBool());

        c->settings()->insert("maxTokens", 6);
        const qint64 id = role(*c, 1, MessageModel::MessageIdRole).toLongLong();
        QVERIFY(c->continueReply(id));
        QCOMPARE(hearth::test::waitForReply(*c), QStringLiteral("length"));
        QCOMPARE(c->messages()->rowCount(), 2);  // the same reply, longer
        const QString after = role(*c, 1, MessageModel::ContentRole).toString();
        QVERIFY2(after.startsWith(before) && after.size() > before.size(), qPrintable(after));
        QCOMPARE(role(*c, 1, MessageModel::StateRole).toString(), QStringLiteral("length"));
        // Stored as one reply with the whole text.
        const qint64 chat = c->currentChatId();
        c.reset();
        auto s = openStore(dir.path());
        QCOMPARE(s->message(id)->content, after);
        QCOMPARE(s->selectedPath(chat)->size(), 2);
    }

    // Item 15: the chat-template note is plain language and shown once per model.
    void templateNoteIsShownOnce() {
        REQUIRE_MODEL();
        QTemporaryDir dir;
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        c->settings()->insert("maxTokens", 4);
        c->settings()->insert("systemPrompt", "Be kind.");
        QVERIFY(hearth::test::loadTinyModel(*c));
        QSignalSpy note(c.get(), &ChatController::templateNoteChanged);
        QVERIFY(c->send("Hello"));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        if (c->templateNote().isEmpty()) QSKIP("the model's template needs no note");
        QVERIFY2(!c->templateNote().contains("built-in") && !c->templateNote().contains("format ("),
                 qPrintable(c->templateNote()));
        c->clearTemplateNote();
        note.clear();
        QVERIFY(c->send("Again"));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        QCOMPARE(c->templateNote(), QString());
        QCOMPARE(note.size(), 0);
    }

    // Item 8: a new chat (Ctrl+N) or another chat during a reply does not stop it: the reply
    // ends normally in its own chat.
    void replyKeepsGoingWhenAnotherChatOpens() {
        REQUIRE_MODEL();
        QTemporaryDir dir;
        const qint64 other = hearth::app::seedDemoChat(dir.path(), nullptr);
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        c->settings()->insert("maxTokens", 40);
        QVERIFY(hearth::test::loadTinyModel(*c));
        QSignalSpy done(c.get(), &ChatController::replyFinished);
        // The moment the new chat shows (its reply is just being sent to the engine): Ctrl+N,
        // then another chat.
        qint64 chat = 0, during = -1;
        connect(c.get(), &ChatController::currentChatChanged, c.get(), [&] {
            if (chat != 0 || c->currentChatId() == 0) return;
            chat = c->currentChatId();
            c->newChat();
            during = c->generatingChatId();
            c->openChat(other);
        });
        QVERIFY(c->send("Once upon a time"));
        QVERIFY(done.wait(60000) || !done.isEmpty());
        disconnect(c.get(), &ChatController::currentChatChanged, c.get(), nullptr);
        QVERIFY(chat != 0);
        QCOMPARE(during, chat);  // still being written after Ctrl+N
        QVERIFY2(done.first().at(1).toString() != "stopped",
                 qPrintable(done.first().at(1).toString()));
        QTRY_COMPARE(c->currentChatId(), other);
        QCOMPARE(c->generatingChatId(), 0);
        c->openChat(chat);
        QTRY_COMPARE(c->currentChatId(), chat);
        QTRY_COMPARE(c->messages()->rowCount(), 2);
        QVERIFY(role(*c, 1, MessageModel::ContentRole).toString().size() > 10);
        QCOMPARE(role(*c, 1, MessageModel::StateRole).toString(),
                 QString(done.first().at(1).toString() == "length" ? "length" : ""));
    }

    // Item 7: a damaged file, a file that is no model, and a cancelled 4-bit reload all
    // leave the model in use loaded.
    void failedOrCancelledLoadsKeepTheModel() {
        REQUIRE_MODEL();
        QTemporaryDir dir;
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        c->settings()->insert("maxTokens", 4);
        QVERIFY(hearth::test::loadTinyModel(*c));
        const QString tiny = hearth::test::tinyModelPath();

        // A header that passes the quick check, then garbage.
        const QString bad = dir.filePath("broken.gguf");
        {
            QFile f(bad);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray("GGUF\x03\x00\x00\x00", 8) + QByteArray(64, '\xff'));
        }
        // The real model cut in half: the header reads, the weights are missing.
        const QString cut = dir.filePath("cut.gguf");
        {
            QFile in(tiny), out(cut);
            QVERIFY(in.open(QIODevice::ReadOnly) && out.open(QIODevice::WriteOnly));
            out.write(in.read(in.size() / 2));
        }
        for (const QString& file : {bad, cut}) {
            QSignalSpy failed(c.get(), &ChatController::modelLoadFailed);
            QVERIFY(c->loadModel(QUrl::fromLocalFile(file)));
            QVERIFY(failed.wait(20000) || !failed.isEmpty());
            QCOMPARE(c->modelState(), QStringLiteral("ready"));
            QCOMPARE(c->modelInfo().value("path").toString(), tiny);
            QVERIFY(c->modelError().contains(QFileInfo(file).fileName()));
            QVERIFY(c->send("Hello"));  // the kept model answers
            QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        }

        // 4-bit on, reload, cancel: the F32 model stays, and the reload is still offered.
        c->clearModelError();
        c->settings()->set("int4Weights", true);  // as the Settings switch does
        QTRY_VERIFY(c->reloadNeeded());
        QCOMPARE(c->reloadSettings(), QStringList{"int4Weights"});
        c->reloadModel();
        QCOMPARE(c->modelState(), QStringLiteral("loading"));
        c->cancelLoad();
        QTRY_COMPARE(c->modelState(), QStringLiteral("ready"));
        QVERIFY(!c->modelInfo().value("int4Converted").toBool());
        QCOMPARE(c->modelError(), QString());  // the person asked for it: no error
        QVERIFY(c->reloadNeeded());
        QVERIFY(c->send("Hello"));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
    }

    // Item 11: hits are grouped per chat; opening one selects its branch and highlights it.
    void searchGroupsAndOpensTheMatchingBranch() {
        QTemporaryDir dir;
        qint64 chat = 0, a1 = 0;
        {
            auto s = openStore(dir.path());
            chat = *s->createChat({"zoo", {}, {}, {}, {}});
            const qint64 u = *s->addMessage(chat, 0, Role::User, "tell me about the zebra");
            a1 = *s->addMessage(chat, u, Role::Assistant, "a zebra has stripes");
            const qint64 a2 = *s->regenerate(a1);
            QVERIFY(s->finishMessage(a2, "horses run", {}));
        }
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        QSignalSpy results(c.get(), &ChatController::searchResultsChanged);
        c->search("zebra");
        QVERIFY(results.wait(5000) || !results.isEmpty());
        QCOMPARE(c->searchResults().size(), 1);  // one chat ...
        const QVariantMap group = c->searchResults().first().toMap();
        QCOMPARE(group.value("chatId").toLongLong(), chat);
        QCOMPARE(group.value("hits").toList().size(), 2);  // ... with both matches
        c->openSearchResult(chat, a1);
        QTRY_COMPARE(c->highlightedMessageId(), a1);
        QCOMPARE(c->currentChatId(), chat);
        QCOMPARE(c->messages()->indexOf(a1), 1);  // the branch that holds it
        QCOMPARE(role(*c, 1, MessageModel::ContentRole).toString(),
                 QStringLiteral("a zebra has stripes"));
        c->newChat();
        QCOMPARE(c->highlightedMessageId(), 0);
    }

    // Item 12: JSON export holds every branch and imports back as the same tree; Markdown and
    // text hold the branch; Copy conversation puts the branch on the clipboard.
    void exportImportRoundTrip() {
        QTemporaryDir dir;
        qint64 chat = 0;
        {
            auto s = openStore(dir.path());
            chat = *s->createChat({"Round: trip/test", {}, {}, "Be brief.", {}});
            const qint64 u = *s->addMessage(chat, 0, Role::User, "question");
            const qint64 a1 = *s->addMessage(chat, u, Role::Assistant, "first");
            const qint64 a2 = *s->regenerate(a1);
            QVERIFY(s->finishMessage(a2, "second", {}));
            const qint64 empty = *s->regenerate(a1);  // stopped before any text
            hearth::storage::GenerationStats st;
            st.stopReason = "stopped";
            QVERIFY(s->finishMessage(empty, "", st));
            QVERIFY(s->selectBranch(a2));
        }
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        QTRY_COMPARE(c->chats()->rowCount(), 1);
        const QString name = c->exportFileName(chat, "json");
        QVERIFY2(name.endsWith(".json") && !name.contains('/') && !name.contains(':'),
                 qPrintable(name));
        QCOMPARE(c->exportFileName(chat, "markdown").right(3), QStringLiteral(".md"));
        const QString file = dir.filePath(name);
        QSignalSpy notice(c.get(), &ChatController::noticeChanged);
        c->exportChat(chat, QUrl::fromLocalFile(file), "json");
        QVERIFY(notice.wait(5000) || !notice.isEmpty());
        QVERIFY2(!c->noticeIsError(), qPrintable(c->notice()));

        QSignalSpy imported(c.get(), &ChatController::chatImported);
        c->importChat(QUrl::fromLocalFile(file));
        QVERIFY(imported.wait(5000) || !imported.isEmpty());
        const qint64 copy = imported.first().at(0).toLongLong();
        QTRY_COMPARE(c->currentChatId(), copy);
        QTRY_COMPARE(c->messages()->rowCount(), 2);
        QCOMPARE(role(*c, 1, MessageModel::ContentRole).toString(), QStringLiteral("second"));
        QCOMPARE(role(*c, 1, MessageModel::SiblingCountRole).toInt(), 2);  // no empty one
        // The chat's settings come from the store thread apart from its messages.
        QTRY_COMPARE(c->chatSettings().value("systemPrompt").toString(),
                     QStringLiteral("Be brief."));

        c->copyConversation();
        const QString text = QGuiApplication::clipboard()->text();
        QVERIFY2(text.contains("User: question") && text.contains("Assistant: second") &&
                     !text.contains("first"),
                 qPrintable(text));
        c.reset();
        auto s = openStore(dir.path());
        QCOMPARE(s->allMessages(copy)->size(), 3);
        QCOMPARE(s->chat(copy)->title, QStringLiteral("Round: trip/test"));
    }

    // Item 15: the name a person recognises; the fit estimate of a real file.
    void displayNameAndFitEstimate() {
        using hearth::app::displayModelName;
        QCOMPARE(displayModelName("llama", "llama", "/m/TinyStories-Q4_K.gguf"),
                 QStringLiteral("TinyStories-Q4_K"));
        QCOMPARE(displayModelName("", "qwen2", "/m/x.gguf"), QStringLiteral("x"));
        QCOMPARE(displayModelName("Qwen2.5 7B Instruct", "qwen2", "/m/x.gguf"),
                 QStringLiteral("Qwen2.5 7B Instruct"));
        QCOMPARE(hearth::app::formatFileSize(4368439296LL), QStringLiteral("4.4 GB"));
        REQUIRE_MODEL();
        const auto p = hearth::app::probeModel(hearth::test::tinyModelPath(), 256, false, "f16", 0);
        QVERIFY2(p.ok(), qPrintable(p.error));
        // 256 is past the 128 positions stories260K was trained on: the estimate is for the
        // clamped context, as the engine will use, unless the override keeps 256.
        QCOMPARE(hearth::app::probeModel(hearth::test::tinyModelPath(), 128, false, "f16", 0)
                     .estimateBytes,
                 p.estimateBytes);
        QVERIFY(hearth::app::probeModel(hearth::test::tinyModelPath(), 256, true, "f16", 0)
                    .estimateBytes > p.estimateBytes);
        QCOMPARE(p.architecture, QStringLiteral("llama"));
        QCOMPARE(p.quantization, QStringLiteral("F32"));
        QVERIFY(p.estimateBytes > 0);
        QVERIFY(p.contextTrained > 0);
        QCOMPARE(p.fit, QStringLiteral("fits"));  // a 1 MB model
        QTemporaryDir dir;
        QFile f(dir.filePath("bad.gguf"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("GGUF junk");
        f.close();
        QVERIFY(!hearth::app::probeModel(f.fileName(), 0, false, "f16", 0).ok());
    }

    // Item 15: the library lists the models in a chosen folder (sub-folders too) and the
    // recent ones, each with its facts and fit label; a file that is no model says why.
    void modelLibraryListsFoldersAndRecentFiles() {
        REQUIRE_MODEL();
        QTemporaryDir dir;
        const QString models = dir.filePath("models");
        QVERIFY(QDir().mkpath(models + "/nested"));
        QVERIFY(QFile::copy(hearth::test::tinyModelPath(), models + "/nested/tiny.gguf"));
        {
            QFile junk(models + "/junk.gguf");
            QVERIFY(junk.open(QIODevice::WriteOnly));
            junk.write("GGUF but not really");
        }
        auto c = hearth::test::openController(dir.filePath("data"));
        QVERIFY(c);
        QVERIFY(hearth::test::loadTinyModel(*c));  // a recent file, in use
        auto* lib = c->library();
        QSignalSpy changed(lib, &hearth::app::ModelLibrary::modelsChanged);
        lib->addFolder(QUrl::fromLocalFile(models));
        QCOMPARE(lib->folders(), QStringList{QDir(models).absolutePath()});
        QVERIFY(changed.wait(20000) || !changed.isEmpty());
        QTRY_VERIFY(!lib->scanning());
        const QVariantList list = lib->models();
        QCOMPARE(list.size(), 3);
        int ok = 0, bad = 0, loaded = 0;
        for (const QVariant& v : list) {
            const QVariantMap m = v.toMap();
            if (m.value("error").toString().isEmpty()) {
                ++ok;
                QCOMPARE(m.value("architecture").toString(), QStringLiteral("llama"));
                QCOMPARE(m.value("quantization").toString(), QStringLiteral("F32"));
                QCOMPARE(m.value("fit").toString(), QStringLiteral("fits"));
                QVERIFY(m.value("contextTrained").toLongLong() > 0);
                QVERIFY(m.value("sizeText").toString().endsWith(" MB"));
                if (m.value("loaded").toBool()) {
                    ++loaded;
                    QVERIFY(m.value("recent").toBool());
                }
            } else {
                ++bad;
                QCOMPARE(QFileInfo(m.value("path").toString()).fileName(),
                         QStringLiteral("junk.gguf"));
            }
        }
        QCOMPARE(ok, 2);
        QCOMPARE(bad, 1);
        QCOMPARE(loaded, 1);
        changed.clear();
        lib->removeFolder(QDir(models).absolutePath());
        QVERIFY(changed.wait(20000) || !changed.isEmpty());
        QTRY_COMPARE(lib->models().size(), 1);  // the recent one stays
    }

    // Item 15: the model in use is remembered for the next start (a setting, on by default).
    void lastModelIsRemembered() {
        REQUIRE_MODEL();
        QTemporaryDir dir;
        {
            auto c = hearth::test::openController(dir.path());
            QVERIFY(c);
            QCOMPARE(c->settings()->modelToReload(), QString());
            QVERIFY(hearth::test::loadTinyModel(*c));
        }
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        QCOMPARE(c->settings()->modelToReload(), hearth::test::tinyModelPath());
        c->settings()->insert("reloadLastModel", false);
        QCOMPARE(c->settings()->modelToReload(), QString());
    }
};

int main(int argc, char** argv) {
    QGuiApplication app(argc, argv);
    ChatStatesTest test;
    return QTest::qExec(&test, argc, argv);
}
#include "chat_states_test.moc"
