// The 36 real-model cases from ../shared/testdata/chat_templates.json: each template rendered
// on the fixed conversation must equal expected_output byte for byte.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "chat/render_chat.h"
#include "json_value.h"
#include "test_data.h"

namespace hearth::chat {
namespace {

using Json = nlohmann::ordered_json;

ChatInputs inputs_for(const Json& c) {
    ChatInputs in;
    for (const auto& m : c["messages"]) {
        ChatMessage msg;
        msg.role = m["role"].get<std::string>();
        msg.content = m["content"].get<std::string>();
        in.messages.push_back(std::move(msg));
    }
    in.add_generation_prompt = c["add_generation_prompt"].get<bool>();
    in.bos_token = c["bos"].get<std::string>();
    in.eos_token = c["eos"].get<std::string>();
    return in;
}

Json load_cases() {
    auto path = ::hearth::test::shared_file("testdata/chat_templates.json");
    if (!path) return Json();
    return Json::parse(::hearth::test::read_file(*path));
}

TEST(ChatTemplateCases, AllRealTemplatesRenderExactly) {
    HEARTH_REQUIRE_SHARED(path, "testdata/chat_templates.json");
    Json data = Json::parse(::hearth::test::read_file(path));
    const Json& cases = data["cases"];
    ASSERT_EQ(cases.size(), 36u);
    int passed = 0, expected_failures = 0;
    for (const auto& c : cases) {
        SCOPED_TRACE(c["name"].get<std::string>());
        std::string source = c["template"].get<std::string>();
        ChatInputs in = inputs_for(c);
        bool polyfill = c.value("system_message_polyfill", false);
        if (c["expected_output"].is_null()) {
            // The template needs variables the test does not supply: it must fail cleanly,
            // naming the line and column, and render_chat must fall back.
            auto t = ChatTemplate::parse(source);
            ASSERT_TRUE(t) << t.error_message();
            auto r = t->render(in);
            ASSERT_FALSE(r);
            EXPECT_NE(r.error_message().find("line "), std::string::npos) << r.error_message();
            ChatRenderResult fb = render_chat(source, in);
            EXPECT_NE(fb.format, ChatFormat::Template);
            EXPECT_FALSE(fb.note.empty());
            ++expected_failures;
            continue;
        }
        std::string expected = c["expected_output"].get<std::string>();
        ChatRenderResult r = render_chat(source, in);
        EXPECT_EQ(r.format, ChatFormat::Template) << r.note;
        EXPECT_EQ(r.system_merged, polyfill) << r.note;
        EXPECT_EQ(r.prompt.text, expected);
        std::string joined;
        for (const auto& s : r.prompt.segments) joined += s.text;
        EXPECT_EQ(joined, r.prompt.text);
        if (!polyfill) {
            // Without the polyfill the plain renderer must give the same bytes.
            auto t = ChatTemplate::parse(source);
            ASSERT_TRUE(t) << t.error_message();
            auto plain = t->render(in);
            ASSERT_TRUE(plain) << plain.error_message();
            EXPECT_EQ(plain->text, expected);
        }
        if (r.prompt.text == expected) ++passed;
    }
    EXPECT_EQ(passed, 35);
    EXPECT_EQ(expected_failures, 1);
    std::printf("chat template cases: %d of %zu render exactly, %d fail as expected\n", passed,
                cases.size(), expected_failures);
}

// Message contents are input: every byte of every content string lies in an input segment.
TEST(ChatTemplateCases, MessageContentsAreInputSegments) {
    Json data = load_cases();
    if (data.is_null()) GTEST_SKIP() << "reference data not found (set HEARTH_SHARED_DIR)";
    for (const auto& c : data["cases"]) {
        if (c["expected_output"].is_null()) continue;
        SCOPED_TRACE(c["name"].get<std::string>());
        ChatInputs in = inputs_for(c);
        ChatRenderResult r = render_chat(c["template"].get<std::string>(), in);
        std::string markup;
        for (const auto& s : r.prompt.segments)
            if (!s.from_input) markup += s.text;
        // "Hello" and "Another question" come only from user messages.
        EXPECT_EQ(markup.find("Hello"), std::string::npos) << markup;
        EXPECT_EQ(markup.find("Another question"), std::string::npos) << markup;
    }
}

}  // namespace
}  // namespace hearth::chat
