// ChatController with the real engine on stories260K: streaming into the history, stop,
// regenerate (a sibling), edit (a branch), restart, and prefix reuse on the next turn.
#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

#include "chat_store.h"
#include "controller_fixture.h"
#include "demo_chat.h"
#include "engine_worker.h"
#include "hearth/engine.h"
#include "message_model.h"
#include "model/synthetic_model.h"

using hearth::app::ChatController;
using hearth::app::MessageModel;
using hearth::storage::ChatStore;
using hearth::storage::MessageStatus;
using hearth::storage::Role;

class ChatControllerTest : public QObject {
    Q_OBJECT

private:
    int intRole(const ChatController& c, int row, int role) {
        return c.messages()->data(c.messages()->index(row), role).toInt();
    }

private slots:
    void sendStreamsAnswerAndStoresIt() {
        REQUIRE_MODEL();
        QTemporaryDir dir;
        qint64 chatId = 0;
        QString answer;
        {
            auto c = hearth::test::openController(dir.path());
            QVERIFY(c);
            QAbstractItemModelTester messagesTester(c->messages());
            QAbstractItemModelTester chatsTester(c->chats());
            QVERIFY(hearth::test::loadTinyModel(*c));
            QCOMPARE(c->modelState(), QStringLiteral("ready"));
            QCOMPARE(c->modelInfo().value("architecture").toString(), QStringLiteral("llama"));

            QSignalSpy streamed(c->messages(), &QAbstractItemModel::dataChanged);
            QVERIFY(c->send(QStringLiteral("Once upon a time")));
            QVERIFY(!c->send(QStringLiteral("again")));  // one reply at a time
            const QString reason = hearth::test::waitForReply(*c);
            QVERIFY(!reason.isEmpty());
            QVERIFY(reason != QLatin1String("error"));
            QCOMPARE(c->messages()->rowCount(), 2);
            answer = hearth::test::messageText(*c, 1);
            QVERIFY2(!answer.isEmpty(), "the tiny model answered nothing");
            QVERIFY(streamed.count() >= 1);
            QCOMPARE(c->lastReport().generatedTokens > 0, true);
            // No template in the file: the fallback was used, and the app says so.
            QVERIFY(!c->templateNote().isEmpty());
            chatId = c->currentChatId();
            QVERIFY(chatId > 0);
            QTRY_COMPARE(c->chats()->rowCount(), 1);
        }
        // The controller is gone; every write has landed.
        auto opened = ChatStore::open(ChatStore::databasePath(dir.path()));
        QVERIFY(opened);
        auto path = opened.store->selectedPath(chatId);
        QVERIFY(path);
        QCOMPARE(path->size(), 2);
        QCOMPARE(path->at(0).content, QStringLiteral("Once upon a time"));
        QCOMPARE(path->at(1).role, Role::Assistant);
        QCOMPARE(path->at(1).content, answer);
        QCOMPARE(path->at(1).status, MessageStatus::Complete);
        QVERIFY(path->at(1).stats.generatedTokens > 0);
    }

    void secondTurnPrefillsOnlyTheNewTokens() {
        REQUIRE_MODEL();
        QTemporaryDir dir;
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        QVERIFY(hearth::test::loadTinyModel(*c));
        QVERIFY(c->send(QStringLiteral("Tom had a red ball.")));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        const auto first = c->lastReport();
        QCOMPARE(first.reusedTokens, 0);
        QCOMPARE(first.computedTokens, first.promptTokens);

        QVERIFY(c->send(QStringLiteral("What did Tom do?")));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        const auto second = c->lastReport();
        // The whole first turn (its prompt at least) came from the cache ...
        QVERIFY2(second.reusedTokens >= first.promptTokens,
                 qPrintable(QStringLiteral("reused %1 of %2")
                                .arg(second.reusedTokens)
                                .arg(first.promptTokens)));
        // ... and the engine evaluated only the rest.
        QCOMPARE(second.computedTokens, second.promptTokens - second.reusedTokens);
        QVERIFY(second.computedTokens < second.promptTokens);
        // The engine's own counter of forward-pass tokens agrees: far fewer than the whole
        // conversation (at most one token left pending by the previous reply on top).
        const quint64 delta = second.tokensComputedTotal - first.tokensComputedTotal;
        QVERIFY2(delta <= quint64(second.computedTokens + second.generatedTokens + 1),
                 qPrintable(QString::number(delta)));
        QVERIFY(delta < quint64(second.promptTokens));
    }

    // Item 6 of issue 24: while a reply streams, the live speed is a real number (it read 0.0
    // for the whole reply), and each reply's statistics say how many prompt tokens came from
    // the cache and how many were computed, at what prompt speed; they are stored with it.
    void liveSpeedWhileStreamingAndPromptReuseInTheStats() {
        REQUIRE_MODEL();
        QTemporaryDir dir;
        qint64 chatId = 0;
        hearth::app::GenerationReport second;
        {
            auto c = hearth::test::openController(dir.path());
            QVERIFY(c);
            QVERIFY(hearth::test::loadTinyModel(*c));
            double liveSpeed = 0;
            qint64 liveTokens = 0;
            connect(c.get(), &ChatController::statsChanged, this, [&] {
                if (!c->generating()) return;
                const QVariantMap s = c->stats();
                const qint64 n = s.value(QStringLiteral("generatedTokens")).toLongLong();
                if (n <= 0) return;
                liveTokens = std::max(liveTokens, n);
                liveSpeed =
                    std::max(liveSpeed, s.value(QStringLiteral("tokensPerSecond")).toDouble());
            });
            QVERIFY(c->send(QStringLiteral("Tom had a red ball.")));
            QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
            QVERIFY2(liveTokens > 0, "no progress report while the reply streamed");
            QVERIFY2(liveSpeed > 0, "the live speed stayed 0 while streaming");

            QVERIFY(c->send(QStringLiteral("What did Tom do?")));
            QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
            second = c->lastReport();
            QVERIFY(second.reusedTokens > 0);
            QVERIFY(second.computedTokens > 0);
            QCOMPARE(c->messages()->rowCount(), 4);
            const QString stats =
                c->messages()->data(c->messages()->index(3), MessageModel::StatsRole).toString();
            const QString expected = QStringLiteral("prompt %1 tokens: %2 reused, %3 computed at ")
                                         .arg(second.promptTokens)
                                         .arg(second.reusedTokens)
                                         .arg(second.computedTokens);
            QVERIFY2(stats.contains(expected), qPrintable(stats));
            QVERIFY2(stats.contains(QStringLiteral("first token ")), qPrintable(stats));
            chatId = c->currentChatId();
        }
        auto opened = ChatStore::open(ChatStore::databasePath(dir.path()));
        QVERIFY(opened);
        auto path = opened.store->selectedPath(chatId);
        QVERIFY(path);
        QCOMPARE(path->size(), 4);
        QCOMPARE(path->at(3).stats.reusedTokens, static_cast<int>(second.reusedTokens));
        QCOMPARE(path->at(3).stats.computedTokens, static_cast<int>(second.computedTokens));
        QCOMPARE(path->at(1).stats.reusedTokens, 0);
    }

    // Ten chats in a KV cache of 1 MiB (stories260K: 640 bytes a position, about 100 blocks of
    // 16): colder chats are saved to disk and closed, and every chat still continues from its
    // cache (in memory or restored), never from scratch.
    void tenChatsUnderASmallKvBudgetStayUsable() {
        REQUIRE_MODEL();
        QTemporaryDir dir;
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        c->settings()->insert(QStringLiteral("kvMemoryMB"), 1);
        c->settings()->insert(QStringLiteral("maxTokens"), 32);
        QVERIFY(hearth::test::loadTinyModel(*c));
        QList<qint64> chats;
        const QString story = QStringLiteral(
            "Lily and Tom went to the park with their dog. They played with a big red ball and "
            "ran under the trees until the sun went down and it was time to go home. ");
        for (int i = 0; i < 10; ++i) {
            c->newChat();
            QVERIFY(c->send(QStringLiteral("Story %1. ").arg(i) + story + story));
            QCOMPARE(hearth::test::waitForReply(*c) == QLatin1String("error"), false);
            chats.append(c->currentChatId());
        }
        const QStringList saved =
            QDir(dir.filePath("kv")).entryList({QStringLiteral("chat-*.hkv")}, QDir::Files);
        QVERIFY2(!saved.isEmpty(), "no chat was evicted to disk");
        int restoredChats = 0;
        for (qint64 id : chats) {
            QSignalSpy opened(c.get(), &ChatController::chatOpened);
            c->openChat(id);
            QVERIFY(opened.wait(10000) || !opened.isEmpty());
            QVERIFY(c->send(QStringLiteral("More")));
            const QString reason = hearth::test::waitForReply(*c);
            QVERIFY2(!reason.isEmpty() && reason != QLatin1String("error"),
                     qPrintable(c->notice()));
            const auto r = c->lastReport();
            QVERIFY2(r.reusedTokens > 0, qPrintable(QString::number(id)));
            QCOMPARE(r.computedTokens, r.promptTokens - r.reusedTokens);
            if (r.restoredTokens > 0) ++restoredChats;
        }
        QVERIFY(restoredChats > 0);
        QCOMPARE(c->lastReport().kvType, QStringLiteral("f16"));
    }

    // The same system prompt in two chats is computed once.
    void twoChatsShareTheSystemPrompt() {
        REQUIRE_MODEL();
        QTemporaryDir dir;
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        QString system;
        for (int i = 0; i < 6; ++i)
            system += QStringLiteral("You tell short happy stories about animals and children. ");
        c->settings()->insert(QStringLiteral("systemPrompt"), system);
        QVERIFY(hearth::test::loadTinyModel(*c));
        QVERIFY(c->send(QStringLiteral("A story about a cat.")));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        const auto a = c->lastReport();
        QCOMPARE(a.reusedTokens, 0);
        c->newChat();
        QVERIFY(c->send(QStringLiteral("A story about a frog.")));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        const auto b = c->lastReport();
        QVERIFY2(b.sharedPrefixBlocks >= 3, qPrintable(QStringLiteral("shared %1 reused %2 of %3")
                                                           .arg(b.sharedPrefixBlocks)
                                                           .arg(b.reusedTokens)
                                                           .arg(b.promptTokens)));
        QVERIFY(b.reusedTokens >= b.sharedPrefixBlocks * 16);
        QCOMPARE(b.computedTokens, b.promptTokens - b.reusedTokens);
    }

    // Saved files are only trusted for the chat they were made from: a file of another model
    // put in place, or a chat whose earlier message was edited, is rejected and deleted.
    void foreignOrStaleSavedContextIsRejectedAndDeleted() {
        REQUIRE_MODEL();
        auto vocab = hearth::test::shared_file("testdata/vocab/ggml-vocab-phi-3.gguf");
        if (!vocab) QSKIP("../shared/testdata/vocab/ggml-vocab-phi-3.gguf not found");
        QTemporaryDir dir;
        const QString other = dir.filePath("tiny-phi3.gguf");
        QVERIFY(hearth::model::write_synthetic_model({}, *vocab, other.toStdString()));
        auto c = hearth::test::openController(dir.filePath("data"));
        QVERIFY(c);
        const QDir kv(dir.filePath("data/kv"));
        QVERIFY(hearth::test::loadTinyModel(*c));
        QVERIFY(c->send(QStringLiteral("Sam found a box")));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        const qint64 chatId = c->currentChatId();
        c->unloadModel();  // saves
        QTRY_COMPARE(kv.entryList({"chat-*.hkv"}, QDir::Files).size(), 1);
        const QString mine = kv.filePath(kv.entryList({"chat-*.hkv"}, QDir::Files).first());

        // The other model has a turn in the same chat; its file replaces stories260K's.
        QSignalSpy loaded(c.get(), &ChatController::modelLoaded);
        QVERIFY(c->loadModel(QUrl::fromLocalFile(other)));
        QVERIFY(loaded.wait(30000) || !loaded.isEmpty());
        QVERIFY(c->send(QStringLiteral("And then?")));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        QCOMPARE(c->lastReport().restoredTokens, 0);
        c->unloadModel();
        QTRY_VERIFY(kv.entryList({"chat-*.hkv"}, QDir::Files).size() == 1 &&
                    kv.filePath(kv.entryList({"chat-*.hkv"}, QDir::Files).first()) != mine);
        const QString theirs = kv.filePath(kv.entryList({"chat-*.hkv"}, QDir::Files).first());
        // The engine's file appears first, the app's record of its messages after it.
        QTRY_VERIFY(QFileInfo::exists(theirs + ".json"));
        QVERIFY(QFile::rename(theirs, mine));
        QVERIFY(QFile::rename(theirs + ".json", mine + ".json"));

        QVERIFY(hearth::test::loadTinyModel(*c));
        QVERIFY(c->send(QStringLiteral("Where is the box?")));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        QCOMPARE(c->lastReport().restoredTokens, 0);  // refused by the engine ...
        QCOMPARE(c->lastReport().reusedTokens, 0);
        QVERIFY(!QFileInfo::exists(mine));  // ... and deleted
        c->unloadModel();                   // this chat is saved anew
        QTRY_COMPARE(kv.entryList({"chat-*.hkv"}, QDir::Files).size(), 1);

        // An earlier message edited: the saved file no longer fits and is deleted.
        QVERIFY(hearth::test::loadTinyModel(*c));
        QSignalSpy opened(c.get(), &ChatController::chatOpened);
        c->openChat(chatId);
        QVERIFY(opened.wait(10000) || !opened.isEmpty());
        const qint64 firstUser =
            c->messages()->data(c->messages()->index(0), MessageModel::MessageIdRole).toLongLong();
        QVERIFY(c->editMessage(firstUser, QStringLiteral("Sam lost a box")));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        QCOMPARE(c->lastReport().restoredTokens, 0);
        QVERIFY(kv.entryList({"chat-*.hkv"}, QDir::Files).isEmpty());
    }

    void stopEndsTheReplyAndKeepsIt() {
        REQUIRE_MODEL();
        QTemporaryDir dir;
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        c->settings()->insert(QStringLiteral("maxTokens"), 400);
        QVERIFY(hearth::test::loadTinyModel(*c));
        QSignalSpy done(c.get(), &ChatController::replyFinished);
        QVERIFY(c->send(QStringLiteral("Lily and Tom went to the park.")));
        QVERIFY(c->generating());
        c->stop();
        QVERIFY(done.wait(30000) || !done.isEmpty());
        QCOMPARE(done.first().at(1).toString(), QStringLiteral("stopped"));
        QVERIFY(!c->generating());
        // Stopped before its first token: no empty reply is kept (only the question stays).
        QTRY_COMPARE(c->messages()->rowCount(), 1);
        QCOMPARE(c->messages()->data(c->messages()->index(0), MessageModel::RoleRole).toString(),
                 QStringLiteral("user"));
        // A new turn works after a stop.
        c->settings()->insert(QStringLiteral("maxTokens"), 8);
        QVERIFY(c->send(QStringLiteral("And then?")));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        QCOMPARE(c->messages()->rowCount(), 3);
    }

    // Stop before the prompt is processed: nothing is computed. Stop while tokens stream: the
    // reply ends early, and what was computed stays for the next turn.
    void stopBeforePrefillAndDuringGeneration() {
        REQUIRE_MODEL();
        QTemporaryDir dir;
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        c->settings()->insert(QStringLiteral("maxTokens"), 400);
        QVERIFY(hearth::test::loadTinyModel(*c));
        QVERIFY(c->send(QStringLiteral("Lily and Tom went to the park.")));
        c->stop();
        QCOMPARE(hearth::test::waitForReply(*c), QStringLiteral("stopped"));
        QCOMPARE(c->lastReport().computedTokens, 0);
        QCOMPARE(c->lastReport().generatedTokens, 0);

        QSignalSpy done(c.get(), &ChatController::replyFinished);
        connect(c.get(), &ChatController::statsChanged, c.get(), [&] {
            if (c->generating()) c->stop();
        });
        QVERIFY(c->send(QStringLiteral("Tom had a red ball.")));
        QVERIFY(done.wait(60000) || !done.isEmpty());
        QCOMPARE(done.first().at(1).toString(), QStringLiteral("stopped"));
        const auto stopped = c->lastReport();
        QVERIFY(stopped.generatedTokens > 0);
        QVERIFY(stopped.generatedTokens < 400);
        disconnect(c.get(), &ChatController::statsChanged, c.get(), nullptr);
        c->settings()->insert(QStringLiteral("maxTokens"), 8);
        QVERIFY(c->send(QStringLiteral("And then?")));
        QCOMPARE(hearth::test::waitForReply(*c), QStringLiteral("length"));
        QVERIFY2(c->lastReport().reusedTokens >= stopped.promptTokens,
                 qPrintable(QStringLiteral("reused %1, the stopped turn's prompt %2")
                                .arg(c->lastReport().reusedTokens)
                                .arg(stopped.promptTokens)));
    }

    // A second model dropped while the first is being converted to 4-bit: the conversion is
    // abandoned (nothing of it is cached) and the second model is loaded.
    void newLoadCancelsAnInt4ConversionInProgress() {
        REQUIRE_MODEL();
        auto vocab = hearth::test::shared_file("testdata/vocab/ggml-vocab-phi-3.gguf");
        if (!vocab) QSKIP("../shared/testdata/vocab/ggml-vocab-phi-3.gguf not found");
        QTemporaryDir dir;
        const QString second = dir.filePath("tiny-phi3.gguf");
        QVERIFY(hearth::model::write_synthetic_model({}, *vocab, second.toStdString()));
        auto c = hearth::test::openController(dir.filePath("data"));
        QVERIFY(c);
        c->settings()->insert(QStringLiteral("int4Weights"), true);
        QSignalSpy loaded(c.get(), &ChatController::modelLoaded);
        QVERIFY(c->loadModel(QUrl::fromLocalFile(hearth::test::tinyModelPath())));
        QVERIFY(c->loadModel(QUrl::fromLocalFile(second)));
        QVERIFY(loaded.wait(30000) || !loaded.isEmpty());
        QCOMPARE(loaded.size(), 1);
        QCOMPARE(c->modelInfo().value("path").toString(), second);
        QVERIFY(c->modelInfo().value("int4Converted").toBool());
        // Only the second model's conversion is in the cache.
        const QStringList cached =
            QDir(c->int4CacheDir() + "/int4").entryList({"*.gguf"}, QDir::Files);
        QCOMPARE(cached.size(), 1);
        QCOMPARE(QDir(c->int4CacheDir() + "/int4").filePath(cached.first()),
                 c->modelInfo().value("weightsPath").toString());
        QCOMPARE(c->modelError(), QString());
    }

    // A chat's own system prompt and sampling survive a restart and are what the engine gets;
    // a new chat takes the global settings.
    void perChatSettingsPersistAndReachTheEngine() {
        REQUIRE_MODEL();
        QTemporaryDir dir;
        qint64 chatId = 0;
        {
            auto c = hearth::test::openController(dir.path());
            QVERIFY(c);
            QVERIFY(hearth::test::loadTinyModel(*c));
            QVERIFY(c->send(QStringLiteral("Tom had a red ball.")));
            QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
            chatId = c->currentChatId();
            QCOMPARE(c->lastReport().sampling.temperature, 0.0);  // the global value
            QSignalSpy changed(c.get(), &ChatController::chatSettingsChanged);
            c->setChatSampling(QStringLiteral("temperature"), 0.5);
            c->setChatSampling(QStringLiteral("maxTokens"), 3);
            c->setChatSystemPrompt(QStringLiteral("You only talk about balls."));
            QCOMPARE(c->chatSettings().value("temperature").toDouble(), 0.5);
            c->savePreset(QStringLiteral("Balls"), QStringLiteral("You only talk about balls."));
            QTRY_COMPARE(c->presets().size(), 1);
        }
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        QSignalSpy opened(c.get(), &ChatController::chatOpened);
        c->openChat(chatId);
        QVERIFY(opened.wait(10000) || !opened.isEmpty());
        QTRY_COMPARE(c->chatSettings().value("temperature").toDouble(), 0.5);
        QCOMPARE(c->chatSettings().value("maxTokens").toInt(), 3);
        QCOMPARE(c->chatSettings().value("systemPrompt").toString(),
                 QStringLiteral("You only talk about balls."));
        QVERIFY(!c->chatSettings().contains("topK"));  // follows Settings
        QTRY_COMPARE(c->presets().size(), 1);
        QCOMPARE(c->presets().first().toMap().value("prompt").toString(),
                 QStringLiteral("You only talk about balls."));
        QVERIFY(hearth::test::loadTinyModel(*c));
        QVERIFY(c->send(QStringLiteral("More")));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        const auto r = c->lastReport();
        QCOMPARE(r.sampling.temperature, 0.5);
        QCOMPARE(r.sampling.maxTokens, 3);
        QCOMPARE(r.sampling.topK, c->settings()->samplingConfig().topK);
        QVERIFY(r.generatedTokens <= 3);
        // The new system prompt leads the conversation, so nothing before it was reusable.
        QCOMPARE(r.restoredTokens, 0);
        QCOMPARE(r.reusedTokens, 0);

        // Back to Settings for this chat; a new chat has no overrides.
        c->setChatSampling(QStringLiteral("temperature"), QVariant());
        QVERIFY(!c->chatSettings().contains("temperature"));
        c->newChat();
        QVERIFY(c->send(QStringLiteral("Hello")));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        QCOMPARE(c->lastReport().sampling.temperature, 0.0);
        QCOMPARE(c->lastReport().sampling.maxTokens, 24);
    }

    // Over the context: old messages are left out, the system prompt stays, and the chat
    // names the newest message no longer seen.
    void overflowKeepsTheSystemPromptAndShowsTheNotice() {
        REQUIRE_MODEL();
        QTemporaryDir dir;
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        c->settings()->insert(QStringLiteral("contextLength"), 256);
        c->settings()->insert(QStringLiteral("maxTokens"), 8);
        c->settings()->insert(QStringLiteral("systemPrompt"), QStringLiteral("Tell tales."));
        QVERIFY(hearth::test::loadTinyModel(*c));
        for (int i = 0; i < 8 && c->contextDroppedUpTo() == 0; ++i) {
            QVERIFY(c->send(QStringLiteral("Turn %1: Lily and Tom went to the park with their "
                                           "dog and played until the sun went down.")
                                .arg(i)));
            const QString reason = hearth::test::waitForReply(*c);
            QVERIFY2(!reason.isEmpty() && reason != QLatin1String("error"),
                     qPrintable(c->notice()));
        }
        QVERIFY(c->contextDroppedUpTo() != 0);
        const auto r = c->lastReport();
        QVERIFY(!r.droppedMessages.isEmpty());
        QVERIFY(!r.droppedMessages.contains(0));  // the system prompt
        QVERIFY(r.promptTokens <= 256);
        // The message named is one of the chat's (the newest of those left out).
        const qint64 upTo = c->contextDroppedUpTo();
        bool found = false;
        for (int row = 0; row < c->messages()->rowCount(); ++row)
            found = found || c->messages()
                                     ->data(c->messages()->index(row), MessageModel::MessageIdRole)
                                     .toLongLong() == upTo;
        QVERIFY(found);
        QVERIFY(c->stats().value("contextUsed").toLongLong() <= 256);
        QCOMPARE(c->stats().value("contextSize").toLongLong(), 256);
    }

    // Regenerate samples again from the cached prompt; an edit of the second message reuses
    // everything before it; switching back to the first branch reuses its cached blocks.
    void editRegenerateAndBranchSwitchReuseTheSharedPrefix() {
        REQUIRE_MODEL();
        QTemporaryDir dir;
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        QVERIFY(hearth::test::loadTinyModel(*c));
        QVERIFY(c->send(QStringLiteral("Lily and Tom went to the park with their big dog.")));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        const auto first = c->lastReport();
        QVERIFY(c->send(QStringLiteral("What did they find under the old green tree there?")));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        const auto second = c->lastReport();

        const qint64 reply =
            c->messages()->data(c->messages()->index(3), MessageModel::MessageIdRole).toLongLong();
        QVERIFY(c->regenerate(reply));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        QCOMPARE(c->lastReport().computedTokens, 0);
        QCOMPARE(c->lastReport().reusedTokens, second.promptTokens);

        const qint64 user =
            c->messages()->data(c->messages()->index(2), MessageModel::MessageIdRole).toLongLong();
        QVERIFY(c->editMessage(user, QStringLiteral("Where did they go after the park?")));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        const auto edited = c->lastReport();
        QVERIFY2(edited.reusedTokens >= first.promptTokens,
                 qPrintable(QString::number(edited.reusedTokens)));
        QCOMPARE(edited.computedTokens, edited.promptTokens - edited.reusedTokens);

        // Back to the first version of the second message, and one more turn there: the old
        // branch's full blocks are still cached, so more than the shared part is reused.
        c->switchBranch(user, -1);
        QTRY_COMPARE(hearth::test::messageText(*c, 2),
                     QStringLiteral("What did they find under the old green tree there?"));
        QVERIFY(c->send(QStringLiteral("And then?")));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        const auto back = c->lastReport();
        QVERIFY2(back.reusedTokens >= (second.promptTokens / 16) * 16,
                 qPrintable(QStringLiteral("reused %1, second prompt %2")
                                .arg(back.reusedTokens)
                                .arg(second.promptTokens)));
        QVERIFY(back.sharedPrefixBlocks > 0);
    }

    // A KV type the engine does not know is an error with the reply, not a silent F16.
    void unknownKvTypeIsAnError() {
        REQUIRE_MODEL();
        QTemporaryDir dir;
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        c->settings()->insert(QStringLiteral("kvType"), QStringLiteral("q5_9"));
        QVERIFY(hearth::test::loadTinyModel(*c));
        QSignalSpy failed(c.get(), &ChatController::errorOccurred);
        QVERIFY(c->send(QStringLiteral("Hello")));
        QCOMPARE(hearth::test::waitForReply(*c), QStringLiteral("error"));
        QVERIFY(c->notice().contains(QStringLiteral("q5_9")));
        QCOMPARE(failed.size(), 1);
    }

    void regenerateCreatesASibling() {
        REQUIRE_MODEL();
        QTemporaryDir dir;
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        QVERIFY(hearth::test::loadTinyModel(*c));
        QVERIFY(c->send(QStringLiteral("The cat sat")));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        const qint64 firstReply =
            c->messages()->data(c->messages()->index(1), MessageModel::MessageIdRole).toLongLong();
        QVERIFY(c->regenerate(firstReply));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        QCOMPARE(c->messages()->rowCount(), 2);
        QCOMPARE(intRole(*c, 1, MessageModel::SiblingCountRole), 2);
        QCOMPARE(intRole(*c, 1, MessageModel::SiblingIndexRole), 1);
        // ‹ back to the first answer.
        const qint64 second =
            c->messages()->data(c->messages()->index(1), MessageModel::MessageIdRole).toLongLong();
        QVERIFY(second != firstReply);
        c->switchBranch(second, -1);
        QTRY_COMPARE(
            c->messages()->data(c->messages()->index(1), MessageModel::MessageIdRole).toLongLong(),
            firstReply);
        QCOMPARE(intRole(*c, 1, MessageModel::SiblingIndexRole), 0);
    }

    void editCreatesABranch() {
        REQUIRE_MODEL();
        QTemporaryDir dir;
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        QVERIFY(hearth::test::loadTinyModel(*c));
        QVERIFY(c->send(QStringLiteral("A dog ran")));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        const qint64 userId =
            c->messages()->data(c->messages()->index(0), MessageModel::MessageIdRole).toLongLong();
        QVERIFY(c->editMessage(userId, QStringLiteral("A bird flew")));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        QCOMPARE(c->messages()->rowCount(), 2);
        QCOMPARE(hearth::test::messageText(*c, 0), QStringLiteral("A bird flew"));
        QCOMPARE(intRole(*c, 0, MessageModel::SiblingCountRole), 2);
        QCOMPARE(intRole(*c, 0, MessageModel::SiblingIndexRole), 1);
        QCOMPARE(intRole(*c, 1, MessageModel::SiblingCountRole), 1);
    }

    void restartRestoresChatsAndTheNextTurnWorks() {
        REQUIRE_MODEL();
        QTemporaryDir dir;
        qint64 chatId = 0;
        qint64 firstPrompt = 0;
        {
            auto c = hearth::test::openController(dir.path());
            QVERIFY(c);
            QVERIFY(hearth::test::loadTinyModel(*c));
            QVERIFY(c->send(QStringLiteral("Sam found a box")));
            QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
            chatId = c->currentChatId();
            firstPrompt = c->lastReport().promptTokens;
        }
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        QTRY_COMPARE(c->chats()->rowCount(), 1);
        QCOMPARE(c->chats()->titleOf(chatId), QStringLiteral("Sam found a box"));
        QSignalSpy opened(c.get(), &ChatController::chatOpened);
        c->openChat(chatId);
        QVERIFY(opened.wait(10000) || !opened.isEmpty());
        QCOMPARE(c->messages()->rowCount(), 2);
        QVERIFY(hearth::test::loadTinyModel(*c));
        QVERIFY(c->send(QStringLiteral("What was inside?")));
        QVERIFY(!hearth::test::waitForReply(*c).isEmpty());
        QCOMPARE(c->messages()->rowCount(), 4);
        // The chat's KV cache was saved when the first controller quit and is restored: only
        // the new message is computed.
        const auto r = c->lastReport();
        QVERIFY(r.restoredTokens > 0);
        QVERIFY(r.reusedTokens >= firstPrompt);
        QCOMPARE(r.computedTokens, r.promptTokens - r.reusedTokens);
        QVERIFY(r.computedTokens < r.promptTokens - firstPrompt);
    }

    void badFileShowsTheEnginesMessage() {
        QTemporaryDir dir;
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        const QString bad = dir.filePath(QStringLiteral("broken.gguf"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray("GGUF\x03\x00\x00\x00", 8) + QByteArray(64, '\xff'));
        f.close();
        QSignalSpy failed(c.get(), &ChatController::modelLoadFailed);
        QVERIFY(c->loadModel(QUrl::fromLocalFile(bad)));  // passes the quick check
        QVERIFY(failed.wait(10000) || !failed.isEmpty());
        QCOMPARE(c->modelState(), QStringLiteral("none"));
        QVERIFY(c->modelError().contains(QStringLiteral("broken.gguf")));
        QVERIFY(c->modelError().contains(failed.first().at(0).toString()));
        QVERIFY(!c->send(QStringLiteral("hello")));  // no model, no turn
    }

    void searchRenameDeleteAndUndo() {
        QTemporaryDir dir;
        QString error;
        const qint64 id = hearth::app::seedDemoChat(dir.path(), &error);
        QVERIFY2(id > 0, qPrintable(error));
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        QTRY_COMPARE(c->chats()->rowCount(), 1);

        QSignalSpy results(c.get(), &ChatController::searchResultsChanged);
        c->search(QStringLiteral("revers"));
        QVERIFY(results.wait(5000) || !results.isEmpty());
        QVERIFY(!c->searchResults().isEmpty());
        const QVariantMap group = c->searchResults().first().toMap();
        QCOMPARE(group.value("chatId").toLongLong(), id);
        const QVariantMap hit = group.value("hits").toList().first().toMap();
        QVERIFY(hit.value("snippet").toString().contains(QStringLiteral("<b>")));
        results.clear();
        c->search(QStringLiteral("zebra"));
        QVERIFY(results.wait(5000) || !results.isEmpty());
        QVERIFY(c->searchResults().isEmpty());

        c->openChat(id);
        QTRY_COMPARE(c->currentChatId(), id);
        c->renameChat(id, QStringLiteral("  Strings   in C++ "));
        QCOMPARE(c->currentChatTitle(), QStringLiteral("Strings in C++"));
        QTRY_COMPARE(c->chats()->titleOf(id), QStringLiteral("Strings in C++"));

        c->deleteChat(id);
        QCOMPARE(c->undoTitle(), QStringLiteral("Strings in C++"));
        QCOMPARE(c->currentChatId(), 0);  // the open chat closed
        QTRY_COMPARE(c->chats()->rowCount(), 0);
        c->undoDelete();
        QVERIFY(c->undoTitle().isEmpty());
        QTRY_COMPARE(c->chats()->rowCount(), 1);
        QTRY_COMPARE(c->currentChatId(), id);
        QCOMPARE(c->messages()->rowCount(), 2);
    }

    void exportWritesTheFile() {
        QTemporaryDir dir;
        const qint64 id = hearth::app::seedDemoChat(dir.path(), nullptr);
        QVERIFY(id > 0);
        auto c = hearth::test::openController(dir.path());
        QVERIFY(c);
        const QString file = dir.filePath(QStringLiteral("out.json"));
        QSignalSpy notice(c.get(), &ChatController::noticeChanged);
        c->exportChat(id, QUrl::fromLocalFile(file), QStringLiteral("json"));
        QVERIFY(notice.wait(5000) || !notice.isEmpty());
        QVERIFY(c->notice().contains(file));
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.readAll().contains("std::reverse"));
    }
};

int main(int argc, char** argv) {
    QGuiApplication app(argc, argv);
    ChatControllerTest test;
    return QTest::qExec(&test, argc, argv);
}
#include "chat_controller_test.moc"
