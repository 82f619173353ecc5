// The pre-tokenizer regex sets: known splits, and every name in the table either compiles or
// is refused with a reason.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/pre_tokenizer_rules.h"

namespace hearth::tokenizer {
namespace {

std::vector<std::string> split(std::string_view pre, std::string_view text) {
    auto p = PreTokenizer::for_name(pre);
    EXPECT_TRUE(p.is_ok()) << p.error_message();
    if (!p) return {};
    PreTokenizer::Scratch scratch;
    std::vector<TextSpan> spans;
    (*p)->split(text, spans, scratch);
    std::vector<std::string> out;
    size_t covered = 0;
    for (const auto& s : spans) {
        EXPECT_EQ(s.offset, covered);  // pieces are contiguous and cover the text
        covered += s.length;
        out.emplace_back(text.substr(s.offset, s.length));
    }
    EXPECT_EQ(covered, text.size());
    return out;
}

using V = std::vector<std::string>;

TEST(PreTokenizer, Gpt2) {
    EXPECT_EQ(split("gpt-2", "Hello world's 1234!!  \n x"),
              (V{"Hello", " world", "'s", " 1234", "!!", "  \n", " x"}));
    EXPECT_EQ(split("gpt-2", ""), V{});
}

TEST(PreTokenizer, Llama3GroupsDigitsByThree) {
    EXPECT_EQ(split("llama-bpe", "abc 1234567 I'M ok\n\n"),
              (V{"abc", " ", "123", "456", "7", " I", "'M", " ok", "\n\n"}));
}

TEST(PreTokenizer, Qwen2SplitsEveryDigit) {
    EXPECT_EQ(split("qwen2", "x 2024"), (V{"x", " ", "2", "0", "2", "4"}));
}

TEST(PreTokenizer, UnicodeCategoriesComeFromPcre2) {
    // Cyrillic and CJK are letters (\p{L}); U+00BD is a number (\p{N}).
    EXPECT_EQ(split("gpt-2", "нещо 世界 ½"), (V{"нещо", " 世界", " ½"}));
    // DeepSeek's CJK class splits a Han run out of Latin text.
    EXPECT_EQ(split("deepseek-llm", "ab世界"), (V{"ab", "世界"}));
}

TEST(PreTokenizer, UnknownAndUnsupportedNamesAreErrors) {
    auto unknown = PreTokenizer::for_name("no-such-pre");
    ASSERT_FALSE(unknown.is_ok());
    EXPECT_NE(unknown.error_message().find("no-such-pre"), std::string::npos);
    auto unsupported = PreTokenizer::for_name("afmoe");
    ASSERT_FALSE(unsupported.is_ok());
    EXPECT_NE(unsupported.error_message().find("not supported"), std::string::npos);
    auto bad = PreTokenizer::from_regexes({"(unclosed"});
    EXPECT_FALSE(bad.is_ok());
}

TEST(PreTokenizer, EveryNameCompilesOrSaysWhyNot) {
    size_t ok = 0, refused = 0;
    for (const auto& rule : pre_name_rules()) {
        auto p = PreTokenizer::for_name(rule.name);
        if (p) {
            ++ok;
            PreTokenizer::Scratch scratch;
            std::vector<TextSpan> spans;
            (*p)->split("Hello, 世界 123 'll\n", spans, scratch);
            EXPECT_FALSE(spans.empty()) << rule.name;
        } else {
            ++refused;
            EXPECT_NE(p.error_message().find("not supported"), std::string::npos)
                << rule.name << ": " << p.error_message();
        }
    }
    EXPECT_GE(ok, 75u);
    EXPECT_LE(refused, 10u);
}

TEST(PreTokenizer, LongRunsDoNotExhaustTheMatcher) {
    const std::string spaces(200000, ' ');
    const auto pieces = split("llama-bpe", spaces + "x");
    ASSERT_EQ(pieces.size(), 2u);
    EXPECT_EQ(pieces[0].size(), spaces.size() - 1);
    EXPECT_EQ(pieces[1], " x");
}

}  // namespace
}  // namespace hearth::tokenizer
