// UTF-8 helpers and the GPT-2 byte alphabet, against hand-checked values.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tokenizer/byte_level.h"
#include "tokenizer/utf8.h"

namespace hearth::tokenizer {
namespace {

std::string sanitized(std::string_view s) {
    std::string out;
    utf8::append_sanitized(out, s);
    return out;
}

TEST(Utf8, ValidSequences) {
    EXPECT_TRUE(utf8::is_valid(""));
    EXPECT_TRUE(utf8::is_valid("plain ascii"));
    EXPECT_TRUE(utf8::is_valid("\xC3\xA4\xE4\xB8\x96\xF0\x9F\xA6\x99"));  // ä 世 🦙
    EXPECT_TRUE(utf8::is_valid("\xF4\x8F\xBF\xBF"));                      // U+10FFFF
    EXPECT_FALSE(utf8::is_valid("\xC0\xAF"));                             // overlong '/'
    EXPECT_FALSE(utf8::is_valid("\xE0\x80\xAF"));                         // overlong
    EXPECT_FALSE(utf8::is_valid("\xED\xA0\x80"));                         // surrogate
    EXPECT_FALSE(utf8::is_valid("\xF4\x90\x80\x80"));                     // > U+10FFFF
    EXPECT_FALSE(utf8::is_valid("\xE4\xB8"));                             // cut short
    EXPECT_FALSE(utf8::is_valid("\x80"));                                 // lone continuation
}

TEST(Utf8, SanitizeReplacesMaximalSubparts) {
    const std::string r = "\xEF\xBF\xBD";
    EXPECT_EQ(sanitized("ok"), "ok");
    EXPECT_EQ(sanitized("a\xFF"
                        "b"),
              "a" + r + "b");
    EXPECT_EQ(sanitized("\xE4\xB8"
                        "a"),
              r + "a");                               // one U+FFFD for a cut sequence
    EXPECT_EQ(sanitized("\xF0\x9F\xA6"), r);          // cut at the end
    EXPECT_EQ(sanitized("\xC0\xAF"), r + r);          // C0 never starts a sequence
    EXPECT_EQ(sanitized("\xED\xA0\x80"), r + r + r);  // surrogate: each byte
    EXPECT_EQ(sanitized("\xE2\x82\xE2\x82\xAC"), r + "\xE2\x82\xAC");  // then a valid euro
}

TEST(Utf8, CompletePrefixHoldsOnlyUnfinishedCharacters) {
    EXPECT_EQ(utf8::complete_prefix_length(""), 0u);
    EXPECT_EQ(utf8::complete_prefix_length("abc"), 3u);
    EXPECT_EQ(utf8::complete_prefix_length("ab\xF0\x9F"), 2u);
    EXPECT_EQ(utf8::complete_prefix_length("ab\xF0\x9F\xA6"), 2u);
    EXPECT_EQ(utf8::complete_prefix_length("ab\xF0\x9F\xA6\x99"), 6u);
    EXPECT_EQ(utf8::complete_prefix_length("ab\xFF"), 3u);      // invalid: never completes
    EXPECT_EQ(utf8::complete_prefix_length("ab\xE2\x41"), 4u);  // broken already
}

TEST(ByteLevel, Gpt2Alphabet) {
    const auto& bl = ByteLevel::get();
    EXPECT_EQ(bl.encode(' '), "\xC4\xA0");   // U+0120 'Ġ'
    EXPECT_EQ(bl.encode('\n'), "\xC4\x8A");  // U+010A 'Ċ'
    EXPECT_EQ(bl.encode('A'), "A");
    EXPECT_EQ(bl.encode(0xAD), "\xC5\x83");  // soft hyphen is remapped (U+0143)
    EXPECT_EQ(bl.encode(0xE9), "\xC3\xA9");  // printable Latin-1 keeps its code point
    std::set<std::string> seen;
    std::string all;
    for (int b = 0; b < 256; ++b) {
        seen.insert(std::string(bl.encode(static_cast<uint8_t>(b))));
        all.push_back(static_cast<char>(b));
    }
    EXPECT_EQ(seen.size(), 256u);
    std::string spelled;
    bl.encode_append(spelled, all);
    EXPECT_EQ(bl.decode(spelled), all);
    EXPECT_FALSE(bl.decode("\xE4\xB8\x96").has_value());  // not in the alphabet
    EXPECT_FALSE(bl.decode(" ").has_value());             // a raw space is never spelled
}

}  // namespace
}  // namespace hearth::tokenizer
