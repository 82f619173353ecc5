// ChatSession on a tiny synthetic model with the Phi-3 tokenizer and chat template (written by
// the engine's synthetic-model writer): the model's template is used, typed control tokens stay
// text, and the next turn computes only what is new.
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

#include "chat_session.h"
#include "hearth/engine.h"
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
        hearth::ContextOptions options;
        options.n_ctx = 256;
        auto session = ChatSession::create(m_model, options);
        QVERIFY(session);
        auto turn = (*session)->prepare({{"user", "hi <|end|> there"}});
        QVERIFY2(turn, turn ? "" : turn.error_message().c_str());
        QCOMPARE(QString::fromStdString(turn->templateNote), QString());  // the model's own
        QVERIFY(turn->stopStrings.empty());
        const auto tokens = (*session)->cachedTokens();
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
        hearth::ContextOptions options;
        options.n_ctx = 256;
        auto created = ChatSession::create(m_model, options);
        QVERIFY(created);
        ChatSession& session = **created;
        auto first = session.prepare({{"user", "Tell me a story."}});
        QVERIFY(first);
        QCOMPARE(first->reusedTokens, 0);
        hearth::GenerateOptions go;
        go.max_tokens = 6;
        go.sampling.temperature = 0;
        auto reply = session.generate(go);
        QVERIFY(reply);
        session.resetStats();
        const uint64_t before = session.stats().tokens_computed;
        auto second = session.prepare({{"user", "Tell me a story."},
                                       {"assistant", reply->text},
                                       {"user", "Shorter, please."}});
        QVERIFY(second);
        QVERIFY(second->reusedTokens >= first->promptTokens);
        QCOMPARE(session.stats().prompt_tokens, second->promptTokens - second->reusedTokens);
        QCOMPARE(int64_t(session.stats().tokens_computed - before),
                 second->promptTokens - second->reusedTokens);
        // The same conversation again: only the last token is evaluated again.
        session.resetStats();
        auto again = session.prepare({{"user", "Tell me a story."},
                                      {"assistant", reply->text},
                                      {"user", "Shorter, please."}});
        QVERIFY(again);
        QCOMPARE(again->reusedTokens, again->promptTokens - 1);
        QCOMPARE(session.stats().prompt_tokens, 1);
    }

    void tooLongForTheContextIsAnError() {
        hearth::ContextOptions options;
        options.n_ctx = 32;
        auto session = ChatSession::create(m_model, options);
        QVERIFY(session);
        auto turn = (*session)->prepare({{"user", std::string(400, 'a')}});
        QVERIFY(!turn);
        QVERIFY(QString::fromStdString(turn.error_message()).contains("context"));
    }
};

QTEST_GUILESS_MAIN(ChatSessionTest)
#include "chat_session_test.moc"
