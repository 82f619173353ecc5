// ChatSession on a tiny synthetic model with the Phi-3 tokenizer and chat template (written by
// the engine's synthetic-model writer): the model's template is used, typed control tokens stay
// text, the next turn computes only what is new, chats share prefix blocks, overflow drops
// whole old messages and keeps the system prompt.
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

#include "chat_session.h"
#include "hearth/chat_prompt.h"
#include "hearth/engine.h"
#include "hearth/session.h"
#include "model/synthetic_model.h"
#include "test_data.h"

using hearth::app::ChatSession;
using hearth::app::SessionMessage;

class ChatSessionTest : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::shared_ptr<hearth::Model> m_model;

    int32_t tokenOf(const std::string& special) {
        auto ids = m_model->tokenize(special, false, true);
        return ids && ids->size() == 1 ? ids->front() : -1;
    }
    std::shared_ptr<hearth::KvStore> store(int64_t nCtx) {
        auto st = hearth::KvStore::create(m_model, {.kv_type = hearth::KvType::F16, .n_ctx = nCtx});
        return st ? *st : nullptr;
    }
    std::unique_ptr<ChatSession> session(std::shared_ptr<hearth::KvStore> st,
                                         int64_t reserve = 64) {
        auto s = ChatSession::create(m_model, std::move(st),
                                     {.n_threads = 2, .n_batch = 64, .reply_reserve = reserve});
        return s ? std::move(*s) : nullptr;
    }
    static hearth::GenerateOptions greedy(int n) {
        hearth::GenerateOptions go;
        go.max_tokens = n;
        go.sampling.temperature = 0;
        return go;
    }

private slots:
    void initTestCase() {
        auto vocab = hearth::test::shared_file("testdata/vocab/ggml-vocab-phi-3.gguf");
        if (!vocab) QSKIP("../shared/testdata/vocab/ggml-vocab-phi-3.gguf not found");
        const std::string out = m_dir.filePath("tiny-phi3.gguf").toStdString();
        hearth::model::SyntheticSpec spec;
        spec.shape = "tiny-llama";
        QVERIFY(hearth::model::write_synthetic_model(spec, *vocab, out));
        auto model = hearth::Model::load(out);
        QVERIFY2(model, model ? "" : model.error_message().c_str());
        m_model = *model;
        QVERIFY(m_model->info().has_chat_template);
        QVERIFY(tokenOf("<|end|>") >= 0);
    }

    void typedControlTokensStayText() {
        auto session = this->session(store(256));
        QVERIFY(session);
        auto turn = session->prepare({{"user", "hi <|end|> there"}}, nullptr);
        QVERIFY2(turn, turn ? "" : turn.error_message().c_str());
        QCOMPARE(QString::fromStdString(turn->templateNote), QString());  // the model's own
        QVERIFY(turn->stopStrings.empty());
        const auto tokens = session->cachedTokens();
        QCOMPARE(int64_t(tokens.size()), turn->promptTokens);
        const int32_t end = tokenOf("<|end|>");
        // The template writes <|end|> once; the one the person typed is plain text.
        QCOMPARE(std::count(tokens.begin(), tokens.end(), end), 1);
        // Tokenizing Phi-3's rendered text as a whole would have let it through.
        auto naive =
            m_model->tokenize("<|user|>\nhi <|end|> there<|end|>\n<|assistant|>\n", false, true);
        QVERIFY(naive);
        QCOMPARE(std::count(naive->begin(), naive->end(), end), 2);
    }

    void nextTurnComputesOnlyTheNewTokens() {
        auto created = this->session(store(256));
        QVERIFY(created);
        ChatSession& session = *created;
        auto first = session.prepare({{"user", "Tell me a story."}}, nullptr);
        QVERIFY(first);
        QCOMPARE(first->reusedTokens, 0);
        auto reply = session.generate(greedy(6), nullptr);
        QVERIFY(reply);
        session.resetStats();
        const uint64_t before = session.stats().tokens_computed;
        auto second = session.prepare({{"user", "Tell me a story."},
                                       {"assistant", reply->text},
                                       {"user", "Shorter, please."}},
                                      nullptr);
        QVERIFY(second);
        QVERIFY(second->reusedTokens >= first->promptTokens);
        QCOMPARE(session.stats().prompt_tokens, second->promptTokens - second->reusedTokens);
        QCOMPARE(int64_t(session.stats().tokens_computed - before),
                 second->promptTokens - second->reusedTokens);
        // The same conversation again: only the last token is evaluated again.
        session.resetStats();
        auto again = session.prepare({{"user", "Tell me a story."},
                                      {"assistant", reply->text},
                                      {"user", "Shorter, please."}},
                                     nullptr);
        QVERIFY(again);
        QCOMPARE(again->reusedTokens, again->promptTokens);
        QCOMPARE(again->computedTokens, 0);
        QCOMPARE(session.stats().prompt_tokens, 0);
    }

    void tooLongForTheContextIsAnError() {
        auto session = this->session(store(32), 8);
        QVERIFY(session);
        auto turn = session->prepare({{"user", std::string(400, 'a')}}, nullptr);
        QVERIFY(!turn);
        QVERIFY(QString::fromStdString(turn.error_message()).contains("context"));
    }

    // The slices cover the prompt in order, one per message, and cut where a message begins.
    void renderCutsAtMessageBoundaries() {
        const std::vector<SessionMessage> chat = {
            {"system", "You are terse."}, {"user", "Hi"}, {"assistant", "Hello."}, {"user", "Bye"}};
        auto r = ChatSession::render(*m_model, chat);
        QVERIFY(r);
        QCOMPARE(r->turns.size(), chat.size());
        // Phi-3's template has no system turn: the system prompt is merged into the first user
        // message, and both are kept on overflow.
        QCOMPARE(r->keep, size_t(2));
        std::vector<int32_t> flat;
        for (const auto& t : r->turns) {
            QVERIFY(!t.empty());
            flat.insert(flat.end(), t.begin(), t.end());
        }
        std::vector<hearth::ChatTurn> turns;
        for (const auto& m : chat) turns.push_back({m.role, m.content});
        auto whole = hearth::build_chat_prompt(*m_model, turns, true);
        QVERIFY(whole);
        QVERIFY(flat == whole->tokens);
        // The first two slices are exactly the first exchange as the template renders it alone.
        auto head = hearth::build_chat_prompt(*m_model, std::span(turns).first(3), false);
        QVERIFY(head);
        std::vector<int32_t> firstThree;
        for (size_t i = 0; i < 3; ++i)
            firstThree.insert(firstThree.end(), r->turns[i].begin(), r->turns[i].end());
        QVERIFY(std::equal(firstThree.begin(), firstThree.end(), head->tokens.begin(),
                           head->tokens.end()));
    }

    // Two chats with the same system prompt: the second computes only what follows the
    // blocks the first one published.
    void chatsShareTheSystemPromptBlocks() {
        auto st = store(512);
        auto a = session(st);
        auto b = session(st);
        const std::string system(300, 'x');  // well over a few blocks of 16
        auto first = a->prepare({{"system", system}, {"user", "Tell me a story."}}, nullptr);
        QVERIFY(first);
        QCOMPARE(first->reusedTokens, 0);
        const auto hits = st->stats().prefix_hit_blocks;
        auto second = b->prepare({{"system", system}, {"user", "A poem instead."}}, nullptr);
        QVERIFY(second);
        auto alone = hearth::build_chat_prompt(
            *m_model, std::vector<hearth::ChatTurn>{{"system", system}}, false);
        QVERIFY(alone);
        const int64_t systemBlocks = static_cast<int64_t>(alone->tokens.size()) / 16;
        QVERIFY(systemBlocks >= 2);
        QVERIFY2(second->reusedTokens >= systemBlocks * 16,
                 qPrintable(QString::number(second->reusedTokens)));
        QVERIFY(int64_t(st->stats().prefix_hit_blocks - hits) >= systemBlocks);
        QCOMPARE(second->computedTokens, second->promptTokens - second->reusedTokens);
        QVERIFY(st->check().is_ok());
    }

    // Over the context: the oldest whole messages go, the system prompt stays.
    void overflowDropsOldMessagesAndKeepsTheSystemPrompt() {
        auto s = session(store(256), 32);
        std::vector<SessionMessage> chat = {{"system", "Be brief."}};
        for (int i = 0; i < 12; ++i) {
            chat.push_back(
                {"user", "Message number " + std::to_string(i) + " " + std::string(40, 'y')});
            chat.push_back({"assistant", "Answer " + std::to_string(i)});
        }
        chat.push_back({"user", "Last question"});
        auto turn = s->prepare(chat, nullptr);
        QVERIFY2(turn, turn ? "" : turn.error_message().c_str());
        QVERIFY(!turn->droppedMessages.empty());
        QVERIFY(turn->droppedMessages.front() >= 1);              // never the system prompt
        QVERIFY(turn->droppedMessages.back() < chat.size() - 1);  // never the new message
        QVERIFY(turn->promptTokens <= 256 - 32);
        QVERIFY(turn->droppedMessages.front() >= 2);  // merged with the first user message
        // The system prompt is still at the start of what the model sees.
        auto head = hearth::build_chat_prompt(
            *m_model,
            std::vector<hearth::ChatTurn>{{"system", "Be brief."}, {chat[1].role, chat[1].content}},
            false);
        QVERIFY(head);
        const auto cached = s->cachedTokens();
        QVERIFY(cached.size() >= head->tokens.size());
        QVERIFY(std::equal(head->tokens.begin(), head->tokens.end(), cached.begin()));
    }
};

QTEST_GUILESS_MAIN(ChatSessionTest)
#include "chat_session_test.moc"
