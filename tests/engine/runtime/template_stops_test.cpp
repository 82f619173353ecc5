// add_template_stop_tokens: the turn end a chat template writes becomes an end-of-generation
// token even when the vocabulary's EOS is another token.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "runtime/template_stops.h"
#include "tokenizer/vocab_data.h"

namespace hearth::runtime {
namespace {

using tokenizer::TokenType;

std::unique_ptr<tokenizer::Tokenizer> cohere_like_vocab() {
    tokenizer::VocabData d;
    d.kind = tokenizer::VocabKind::Spm;
    auto add = [&](std::string t, TokenType type) {
        d.tokens.push_back(std::move(t));
        d.types.push_back(type);
        d.scores.push_back(0);
    };
    add("<unk>", TokenType::Unknown);
    add("<s>", TokenType::Control);
    add("</s>", TokenType::Control);                     // EOS (id 2)
    add("<|START_OF_TURN_TOKEN|>", TokenType::Control);  // 3
    add("<|END_OF_TURN_TOKEN|>", TokenType::Control);    // 4: not a known end text
    add("<|USER_TOKEN|>", TokenType::Control);           // 5
    add("<|CHATBOT_TOKEN|>", TokenType::Control);        // 6
    add("a", TokenType::Normal);
    d.bos = 1;
    d.eos = 2;
    auto t = tokenizer::Tokenizer::from_data(std::move(d));
    EXPECT_TRUE(t.is_ok()) << t.error_message();
    return t ? std::move(t).value() : nullptr;
}

constexpr const char* kCohereLike =
    "{{ bos_token }}{% for m in messages %}<|START_OF_TURN_TOKEN|>{% if m.role == 'user' %}"
    "<|USER_TOKEN|>{% else %}<|CHATBOT_TOKEN|>{% endif %}{{ m.content }}<|END_OF_TURN_TOKEN|>"
    "{% endfor %}{% if add_generation_prompt %}<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>{% endif %}";

TEST(TemplateStops, TheTemplatesTurnEndStopsGeneration) {
    auto tok = cohere_like_vocab();
    ASSERT_TRUE(tok);
    ASSERT_EQ(tok->eos_id(), 2);
    EXPECT_FALSE(tok->is_end_of_generation(4));
    EXPECT_EQ(add_template_stop_tokens(*tok, kCohereLike), 1);
    EXPECT_TRUE(tok->is_end_of_generation(4));
    EXPECT_TRUE(tok->is_end_of_generation(2));   // EOS still ends generation
    EXPECT_FALSE(tok->is_end_of_generation(3));  // the turn start does not
    EXPECT_FALSE(tok->is_end_of_generation(7));
    EXPECT_EQ(add_template_stop_tokens(*tok, kCohereLike), 0);  // already marked
}

TEST(TemplateStops, NoTemplateOrNoMarkerChangesNothing) {
    auto tok = cohere_like_vocab();
    ASSERT_TRUE(tok);
    EXPECT_EQ(add_template_stop_tokens(*tok, ""), 0);
    EXPECT_EQ(
        add_template_stop_tokens(*tok, "{% for m in messages %}{{ m.content }}\n{% endfor %}"), 0);
    EXPECT_EQ(add_template_stop_tokens(*tok, "{% if %}"), 0);  // does not parse
    for (int32_t id = 3; id < tok->n_vocab(); ++id) EXPECT_FALSE(tok->is_end_of_generation(id));
}

}  // namespace
}  // namespace hearth::runtime
