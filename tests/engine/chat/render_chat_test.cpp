// render_chat(): the system-message polyfill, the fallback formats and the reasons given.
#include <gtest/gtest.h>

#include <ctime>
#include <string>
#include <vector>

#include "chat/render_chat.h"

namespace hearth::chat {
namespace {

ChatInputs conversation() {
    ChatInputs in;
    in.messages = {
        {"system", "S", {}}, {"user", "U1", {}}, {"assistant", "A1", {}}, {"user", "U2", {}}};
    in.bos_token = "<s>";
    in.eos_token = "</s>";
    return in;
}

TEST(RenderChat, TemplateThatWorksIsUsedAsIs) {
    ChatRenderResult r = render_chat(
        "{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}", conversation());
    EXPECT_EQ(r.format, ChatFormat::Template);
    EXPECT_FALSE(r.system_merged);
    EXPECT_EQ(r.note, "");
    EXPECT_EQ(r.prompt.text, "<system>S<user>U1<assistant>A1<user>U2");
}

TEST(RenderChat, TemplateRejectingSystemGetsItMerged) {
    const char* gemma_like =
        "{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}"
        "{% endif %}{% for m in messages %}[{{ m.role }}:{{ m.content }}]{% endfor %}";
    ChatRenderResult r = render_chat(gemma_like, conversation());
    EXPECT_EQ(r.format, ChatFormat::Template);
    EXPECT_TRUE(r.system_merged);
    EXPECT_EQ(r.prompt.text, "[user:S\nU1][assistant:A1][user:U2]");
    EXPECT_EQ(r.note,
              "the chat template rejects the system message (line 1, column 59: "
              "raise_exception: System role not supported); it was merged into the first user "
              "message");
}

TEST(RenderChat, TemplateDroppingSystemGetsItMerged) {
    const char* phi3_like =
        "{% for m in messages %}{% if m.role == 'user' %}<|user|>{{ m.content }}{% elif m.role == "
        "'assistant' %}<|assistant|>{{ m.content }}{% endif %}{% endfor %}";
    ChatRenderResult r = render_chat(phi3_like, conversation());
    EXPECT_TRUE(r.system_merged);
    EXPECT_EQ(r.prompt.text, "<|user|>S\nU1<|assistant|>A1<|user|>U2");
    EXPECT_EQ(r.note,
              "the chat template drops the system message; it was merged into the first user "
              "message");
}

// Mistral's tool templates put the system text in the last user turn only. A conversation that
// ends on an assistant turn renders without it, which is what transformers gives: no merge.
TEST(RenderChat, SystemInLastUserTurnIsNotMergedWhenTheConversationEndsOnTheAssistant) {
    const char* mistral_like =
        "{%- if messages[0]['role'] == 'system' %}{% set system = messages[0]['content'] %}"
        "{% set loop_messages = messages[1:] %}{% else %}{% set loop_messages = messages %}"
        "{% endif %}{{ bos_token }}{% for m in loop_messages %}{% if m.role == 'user' %}"
        "{% if loop.last and system is defined %}[INST]{{ system }}\n\n{{ m.content }}[/INST]"
        "{% else %}[INST]{{ m.content }}[/INST]{% endif %}{% else %}{{ m.content }}{{ eos_token }}"
        "{% endif %}{% endfor %}";
    ChatInputs in = conversation();
    in.messages.pop_back();  // ends on the assistant turn: the template shows no system text
    in.add_generation_prompt = false;
    ChatRenderResult r = render_chat(mistral_like, in);
    EXPECT_EQ(r.format, ChatFormat::Template);
    EXPECT_FALSE(r.system_merged);
    EXPECT_EQ(r.note, "");
    EXPECT_EQ(r.prompt.text, "<s>[INST]U1[/INST]A1</s>");
    // Ending on a user turn, the system text is in that turn.
    r = render_chat(mistral_like, conversation());
    EXPECT_FALSE(r.system_merged);
    EXPECT_EQ(r.prompt.text, "<s>[INST]U1[/INST]A1</s>[INST]S\n\nU2[/INST]");
}

// A template that shows the system message but fails on this conversation for another reason
// (here: roles must alternate) gets no merge; the failure is reported and a built-in format
// is used.
TEST(RenderChat, TemplateFailingForAnotherReasonIsNotMerged) {
    const char* strict =
        "{% for m in messages %}{% if m.role == 'user' and loop.previtem is defined and "
        "loop.previtem.role == 'user' %}{{ raise_exception('roles must alternate') }}{% endif %}"
        "<{{ m.role }}>{{ m.content }}{% endfor %}";
    ChatInputs in = conversation();
    in.messages.push_back({"user", "U3", {}});
    ChatRenderResult r = render_chat(strict, in);
    EXPECT_NE(r.format, ChatFormat::Template);
    EXPECT_FALSE(r.system_merged);
    EXPECT_NE(r.note.find("roles must alternate"), std::string::npos) << r.note;
}

// As transformers: tools and documents are always defined, None unless the caller gives them.
TEST(RenderChat, ToolsAndDocumentsAreNoneUnlessGiven) {
    auto t = ChatTemplate::parse(
        "{{ tools is defined }}|{{ tools is none }}|{{ documents is none }}|{{ tools | tojson }}");
    ASSERT_TRUE(t) << t.error_message();
    ChatInputs in = conversation();
    auto r = t->render(in);
    ASSERT_TRUE(r) << r.error_message();
    EXPECT_EQ(r->text, "True|True|True|null");
    in.context.emplace_back("tools", Value::list({Value::string("t")}));
    r = t->render(in);
    ASSERT_TRUE(r) << r.error_message();
    EXPECT_EQ(r->text, "True|False|True|[\"t\"]");
}

TEST(RenderChat, MergeSystemMessage) {
    ChatInputs merged = merge_system_message(conversation());
    ASSERT_EQ(merged.messages.size(), 3u);
    EXPECT_EQ(merged.messages[0].role, "user");
    EXPECT_EQ(merged.messages[0].content, "S\nU1");
    ChatInputs only_system;
    only_system.messages = {{"system", "S", {}}};
    merged = merge_system_message(only_system);
    ASSERT_EQ(merged.messages.size(), 1u);
    EXPECT_EQ(merged.messages[0].role, "user");
    ChatInputs no_system;
    no_system.messages = {{"user", "U", {}}};
    EXPECT_EQ(merge_system_message(no_system).messages[0].content, "U");
}

TEST(RenderChat, NoTemplateFallsBackToChatMLAndSaysWhy) {
    ChatRenderResult r = render_chat("", conversation());
    EXPECT_EQ(r.format, ChatFormat::ChatML);
    EXPECT_EQ(r.prompt.text,
              "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU1<|im_end|>\n"
              "<|im_start|>assistant\nA1<|im_end|>\n<|im_start|>user\nU2<|im_end|>\n"
              "<|im_start|>assistant\n");
    EXPECT_EQ(r.note,
              "the model has no chat template; using the built-in ChatML format (no known "
              "marker, ChatML is the most common format)");
    // Contents are input, markup is not.
    ASSERT_GE(r.prompt.segments.size(), 2u);
    EXPECT_EQ(r.prompt.segments[0].text, "<|im_start|>system\n");
    EXPECT_FALSE(r.prompt.segments[0].from_input);
    EXPECT_EQ(r.prompt.segments[1].text, "S");
    EXPECT_TRUE(r.prompt.segments[1].from_input);
}

TEST(RenderChat, FallbackChosenByVocabularyTokens) {
    std::vector<std::string> vocab = {"<unk>", "<|begin_of_text|>", "<|start_header_id|>",
                                      "<|end_header_id|>", "<|eot_id|>"};
    ChatRenderResult r = render_chat("", conversation(), vocab);
    EXPECT_EQ(r.format, ChatFormat::Llama3);
    EXPECT_EQ(r.prompt.text,
              "<s><|start_header_id|>system<|end_header_id|>\n\nS<|eot_id|>"
              "<|start_header_id|>user<|end_header_id|>\n\nU1<|eot_id|>"
              "<|start_header_id|>assistant<|end_header_id|>\n\nA1<|eot_id|>"
              "<|start_header_id|>user<|end_header_id|>\n\nU2<|eot_id|>"
              "<|start_header_id|>assistant<|end_header_id|>\n\n");
    EXPECT_NE(r.note.find("special token '<|start_header_id|>' in the vocabulary"),
              std::string::npos);
}

TEST(RenderChat, BrokenTemplateFallsBackByItsMarkers) {
    ChatRenderResult r = render_chat("<start_of_turn>{% if %}", conversation());
    EXPECT_EQ(r.format, ChatFormat::Gemma);
    EXPECT_EQ(r.note,
              "the chat template does not parse (line 1, column 22: expected an expression, "
              "found '%}'); using the built-in Gemma format (marker '<start_of_turn>' in the "
              "template)");
    r = render_chat("{{ raise_exception('nope') }}[INST]", conversation());
    EXPECT_EQ(r.format, ChatFormat::Mistral);
    EXPECT_EQ(r.note,
              "the chat template failed (line 1, column 19: raise_exception: nope); using the "
              "built-in Mistral format (marker '[INST]' in the template)");
}

TEST(RenderChat, EveryFallbackFormat) {
    struct Case {
        ChatFormat format;
        const char* expected;
    } cases[] = {
        {ChatFormat::Llama2,
         "<s>[INST] <<SYS>>\nS\n<</SYS>>\n\nU1 [/INST] A1 </s><s>[INST] U2 [/INST]"},
        {ChatFormat::Mistral, "<s>[INST] S\n\nU1 [/INST]A1</s>[INST] U2 [/INST]"},
        {ChatFormat::Gemma,
         "<s><start_of_turn>user\nS\n\nU1<end_of_turn>\n<start_of_turn>model\nA1<end_of_turn>\n"
         "<start_of_turn>user\nU2<end_of_turn>\n<start_of_turn>model\n"},
        {ChatFormat::Phi3,
         "<|system|>\nS<|end|>\n<|user|>\nU1<|end|>\n<|assistant|>\nA1<|end|>\n<|user|>\nU2<|end|>"
         "\n"
         "<|assistant|>\n"},
        {ChatFormat::Zephyr,
         "<|system|>\nS</s>\n<|user|>\nU1</s>\n<|assistant|>\nA1</s>\n<|user|>\nU2</s>\n"
         "<|assistant|>\n"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(std::string(format_name(c.format)));
        RenderedPrompt p = render_fallback(c.format, conversation());
        EXPECT_EQ(p.text, c.expected);
        std::string input;
        for (const auto& s : p.segments)
            if (s.from_input) input += s.text;
        EXPECT_EQ(input, "SU1A1U2");
    }
}

TEST(RenderChat, MarkersPickTheRightFormat) {
    struct Case {
        const char* text;
        ChatFormat format;
    } cases[] = {
        {"{{ '<|im_start|>' }}", ChatFormat::ChatML},
        {"<|start_header_id|>", ChatFormat::Llama3},
        {"<start_of_turn>", ChatFormat::Gemma},
        {"[INST] <<SYS>>", ChatFormat::Llama2},
        {"[INST]", ChatFormat::Mistral},
        {"<|user|> <|end|>", ChatFormat::Phi3},
        {"<|user|> </s>", ChatFormat::Zephyr},
        {"plain", ChatFormat::ChatML},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.text);
        EXPECT_EQ(choose_fallback(c.text, {}).format, c.format);
    }
}

TEST(RenderChat, StrftimeNowUsesTheGivenTime) {
    ChatInputs in = conversation();
    in.now = 1700000000;
    std::tm tm{};
    localtime_r(&*in.now, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%d %b %Y", &tm);
    ChatRenderResult r = render_chat("Today: {{ strftime_now('%d %b %Y') }}", in);
    EXPECT_EQ(r.prompt.text, std::string("Today: ") + buf);
}

TEST(RenderChat, GenerationTagAndExtraContext) {
    ChatInputs in = conversation();
    in.add_generation_prompt = false;
    in.context.emplace_back("tools", Value::list({Value::string("t1")}));
    ChatRenderResult r = render_chat(
        "{% if tools %}{{ tools | tojson }}{% endif %}{% generation %}{{ add_generation_prompt }}"
        "{% endgeneration %}",
        in);
    EXPECT_EQ(r.prompt.text, "[\"t1\"]False");
}

}  // namespace
}  // namespace hearth::chat
