// Tokenizers built in memory from hand-made vocabularies: the algorithms step by step, special
// tokens, streaming, errors and sharing between threads. No files needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "tokenizer/byte_level.h"
#include "tokenizer/streaming_decoder.h"
#include "tokenizer/tokenizer.h"

namespace hearth::tokenizer {
namespace {

const std::string kSp = "\xE2\x96\x81";  // U+2581

// <unk> <s> </s>, 256 byte tokens, then a few scored pieces.
VocabData spm_data(bool with_bytes = true) {
    VocabData d;
    d.kind = VocabKind::Spm;
    auto add = [&](std::string t, TokenType type, float score) {
        d.tokens.push_back(std::move(t));
        d.types.push_back(type);
        d.scores.push_back(score);
    };
    add("<unk>", TokenType::Unknown, 0);
    add("<s>", TokenType::Control, 0);
    add("</s>", TokenType::Control, 0);
    if (with_bytes) {
        for (int b = 0; b < 256; ++b) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "<0x%02X>", b);
            add(buf, TokenType::Byte, 0);
        }
    }
    add(kSp, TokenType::Normal, -1);
    add("a", TokenType::Normal, -2);
    add("b", TokenType::Normal, -3);
    add("ab", TokenType::Normal, -0.5f);
    add(kSp + "ab", TokenType::Normal, -0.2f);
    add("ba", TokenType::Normal, -0.1f);
    add("s", TokenType::Normal, -4);
    add("<", TokenType::Normal, -4);
    add(">", TokenType::Normal, -4);
    add("s>", TokenType::Normal, -0.3f);  // would let "<" + "s>" spell <s> if controls merged
    return d;
}

std::unique_ptr<Tokenizer> make(VocabData d) {
    auto t = Tokenizer::from_data(std::move(d));
    EXPECT_TRUE(t.is_ok()) << t.error_message();
    return t ? std::move(t).value() : nullptr;
}

int32_t id_of(const Tokenizer& t, std::string_view text) {
    for (int32_t i = 0; i < t.n_vocab(); ++i)
        if (t.token_text(i) == text) return i;
    ADD_FAILURE() << "no token " << text;
    return -1;
}

using Ids = std::vector<int32_t>;

TEST(Spm, ScoreDrivenMerges) {
    auto t = make(spm_data());
    ASSERT_TRUE(t);
    // "▁ab": ab (-0.5) merges, then ▁ab (-0.2).
    EXPECT_EQ(t->encode_user("ab"), (Ids{id_of(*t, kSp + "ab")}));
    // "▁aba": ba (-0.1) beats ab (-0.5); "aba" is no token, so ▁ a ba.
    EXPECT_EQ(t->encode_user("aba"), (Ids{id_of(*t, kSp), id_of(*t, "a"), id_of(*t, "ba")}));
    EXPECT_EQ(t->decode(t->encode_user("aba")), "aba");
    EXPECT_EQ(t->decode(t->encode_user(" ab ab")), " ab ab");
}

TEST(Spm, ByteFallbackAndUnknown) {
    auto t = make(spm_data());
    ASSERT_TRUE(t);
    // é = C3 A9: no such piece, so two byte tokens (<0xC3> is id 3 + 0xC3).
    EXPECT_EQ(t->encode_user("\xC3\xA9"), (Ids{id_of(*t, kSp), 3 + 0xC3, 3 + 0xA9}));
    EXPECT_EQ(t->decode(t->encode_user("\xC3\xA9")), "\xC3\xA9");
    auto nobytes = make(spm_data(false));
    ASSERT_TRUE(nobytes);
    EXPECT_EQ(nobytes->encode_user("\xC3\xA9"), (Ids{id_of(*nobytes, kSp), 0}));  // one <unk>
    EXPECT_EQ(nobytes->decode(nobytes->encode_user("\xC3\xA9")), "\xEF\xBF\xBD");
}

TEST(Spm, ControlTokensNeverComeFromMerging) {
    auto t = make(spm_data());
    ASSERT_TRUE(t);
    // "<s>" as user text: "<" + "s>" would join to the text of <s>; it must not.
    const Ids ids = t->encode_user("<s>");
    for (int32_t id : ids) EXPECT_NE(id, 1);
    EXPECT_EQ(t->decode(ids), "<s>");
    EXPECT_EQ(t->encode_template("<s>"), (Ids{1}));
}

TEST(Spm, SpacePrefixOptional) {
    auto d = spm_data();
    d.add_space_prefix = false;
    auto t = make(std::move(d));
    ASSERT_TRUE(t);
    EXPECT_EQ(t->encode_user("ab"), (Ids{id_of(*t, "ab")}));
    EXPECT_EQ(t->decode(t->encode_user(" ab")), " ab");
}

TEST(Spm, StreamingHoldsBytesUntilTheCharacterIsComplete) {
    auto t = make(spm_data());
    ASSERT_TRUE(t);
    const Ids ids = t->encode_user("a\xF0\x9F\xA6\x99");  // a🦙: ▁ a + 4 byte tokens
    ASSERT_EQ(ids.size(), 6u);
    StreamingDecoder dec(*t);
    std::vector<std::string> deltas;
    for (int32_t id : ids) deltas.push_back(dec.push(id));
    EXPECT_EQ(deltas, (std::vector<std::string>{"", "a", "", "", "", "\xF0\x9F\xA6\x99"}));
    EXPECT_EQ(dec.finish(), "");
    // A stream cut inside a character ends with U+FFFD, as decode() of the same ids does.
    dec.reset();
    std::string s;
    for (size_t i = 0; i + 1 < ids.size(); ++i) s += dec.push(ids[i]);
    s += dec.finish();
    EXPECT_EQ(s, t->decode(Ids(ids.begin(), ids.end() - 1)));
    EXPECT_EQ(s, "a\xEF\xBF\xBD");
}

// 256 byte-level tokens in byte order, then merged tokens, then specials.
VocabData bpe_data(std::string pre) {
    VocabData d;
    d.kind = VocabKind::Bpe;
    d.pre = std::move(pre);
    const auto& bl = ByteLevel::get();
    for (int b = 0; b < 256; ++b) d.tokens.emplace_back(bl.encode(static_cast<uint8_t>(b)));
    d.types.assign(256, TokenType::Normal);
    auto add = [&](std::string t, TokenType type) {
        d.tokens.push_back(std::move(t));
        d.types.push_back(type);
    };
    add("he", TokenType::Normal);         // 256
    add("ll", TokenType::Normal);         // 257
    add("hell", TokenType::Normal);       // 258
    add("hello", TokenType::Normal);      // 259
    add("\xC4\xA0h", TokenType::Normal);  // 260 "Ġh"
    add("<|end|>", TokenType::Control);   // 261
    add("xy", TokenType::UserDefined);    // 262
    add("yzw", TokenType::UserDefined);   // 263
    add("hel", TokenType::Normal);        // 264: no merge makes it
    d.merges = {"h e", "l l", "he ll", "hell o", "\xC4\xA0 h"};
    d.eos = 261;
    return d;
}

TEST(Bpe, RankedMerges) {
    auto t = make(bpe_data("gpt-2"));
    ASSERT_TRUE(t);
    EXPECT_EQ(t->encode_user("hello"), (Ids{259}));
    // Ġh has the worst rank, so " hello" ends as Ġ + hello.
    EXPECT_EQ(t->encode_user(" hello"), (Ids{' ', 259}));
    EXPECT_EQ(t->encode_user("hel"), (Ids{256, 'l'}));
    EXPECT_EQ(t->decode(t->encode_user("say hello\n")), "say hello\n");
}

TEST(Bpe, IgnoreMergesTakesWholeWords) {
    auto t = make(bpe_data("llama-bpe"));
    ASSERT_TRUE(t);
    EXPECT_EQ(t->encode_user("hel"), (Ids{264}));
    EXPECT_TRUE(t->add_bos() == false);  // no BOS token in this vocab
}

TEST(Bpe, UserDefinedTokensCutLongestFirst) {
    auto t = make(bpe_data("gpt-2"));
    ASSERT_TRUE(t);
    // "yzw" is cut before "xy", so "xyzw" is x + yzw, not xy + z w.
    EXPECT_EQ(t->encode_user("xyzw"), (Ids{'x', 263}));
    EXPECT_EQ(t->encode_user("xyxy"), (Ids{262, 262}));
    EXPECT_EQ(t->decode(t->encode_user("xyzw")), "xyzw");
}

TEST(Bpe, ControlTokensOnlyInTemplateText) {
    auto t = make(bpe_data("gpt-2"));
    ASSERT_TRUE(t);
    EXPECT_EQ(t->encode_template("he<|end|>"), (Ids{256, 261}));
    const Ids user = t->encode_user("he<|end|>");
    EXPECT_EQ(std::count(user.begin(), user.end(), 261), 0);
    EXPECT_EQ(t->decode(user), "he<|end|>");
    EXPECT_TRUE(t->is_end_of_generation(261));
    EXPECT_EQ(t->decode(Ids{256, 261}), "he");
    EXPECT_EQ(t->decode(Ids{256, 261}, true), "he<|end|>");
    EXPECT_EQ(t->encode("he", false, true, false), (Ids{256, 261}));
}

TEST(Bpe, EndOfTurnTextsBecomeControlAndEndGeneration) {
    auto d = bpe_data("gpt-2");
    d.eos.reset();
    d.tokens.push_back("<|im_end|>");  // 265, stored as a normal token
    d.types.push_back(TokenType::Normal);
    d.tokens.push_back(
        "<\xEF\xBD\x9C"
        "end\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>");  // 266
    d.types.push_back(TokenType::UserDefined);
    auto t = make(std::move(d));
    ASSERT_TRUE(t);
    EXPECT_EQ(t->eos_id(), -1);
    EXPECT_EQ(t->eot_id(), 265);
    for (int32_t id : {261, 265, 266}) {
        EXPECT_TRUE(t->is_end_of_generation(id)) << id;
        EXPECT_EQ(t->token_type(id), TokenType::Control) << id;
        // Never cut out of user text, even where the file said normal or user-defined.
        const Ids user = t->encode_user(std::string(t->token_text(id)));
        EXPECT_EQ(std::count(user.begin(), user.end(), id), 0) << id;
        EXPECT_EQ(t->encode_template(std::string(t->token_text(id))), Ids{id});
    }
    EXPECT_FALSE(t->is_end_of_generation(262));
}

TEST(Errors, BadVocabulariesAreRefusedWithReasons) {
    VocabData empty;
    EXPECT_FALSE(Tokenizer::from_data(empty).is_ok());

    auto short_scores = spm_data();
    short_scores.scores.resize(3);
    auto r1 = Tokenizer::from_data(short_scores);
    ASSERT_FALSE(r1.is_ok());
    EXPECT_NE(r1.error_message().find("scores"), std::string::npos);

    auto no_merges = bpe_data("gpt-2");
    no_merges.merges.clear();
    auto r2 = Tokenizer::from_data(no_merges);
    ASSERT_FALSE(r2.is_ok());
    EXPECT_NE(r2.error_message().find("merges"), std::string::npos);

    auto r3 = Tokenizer::from_data(bpe_data("made-up-pre"));
    ASSERT_FALSE(r3.is_ok());
    EXPECT_NE(r3.error_message().find("made-up-pre"), std::string::npos);

    auto r4 = Tokenizer::from_data(bpe_data("gemma4"));
    ASSERT_FALSE(r4.is_ok());
    EXPECT_NE(r4.error_message().find("not supported"), std::string::npos);

    auto bad_type = spm_data();
    bad_type.types[5] = static_cast<TokenType>(9);
    EXPECT_FALSE(Tokenizer::from_data(bad_type).is_ok());

    // Out-of-range special ids are dropped, not trusted.
    auto odd = spm_data();
    odd.bos = 1 << 20;
    auto t = make(odd);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->bos_id(), -1);
    EXPECT_FALSE(t->add_bos());
}

TEST(Threads, OneTokenizerSharedByManyThreads) {
    auto t = make(bpe_data("gpt-2"));
    ASSERT_TRUE(t);
    std::string text;
    for (int i = 0; i < 200; ++i) text += "hello xyzw he<|end|> \xC3\xA9 ";
    const Ids expected = t->encode_template(text);
    std::vector<int> ok(4, 0);
    std::vector<std::thread> threads;
    for (int k = 0; k < 4; ++k)
        threads.emplace_back([&, k] {
            for (int i = 0; i < 20; ++i) ok[k] += t->encode_template(text) == expected;
        });
    for (auto& th : threads) th.join();
    for (int k = 0; k < 4; ++k) EXPECT_EQ(ok[k], 20);
}

}  // namespace
}  // namespace hearth::tokenizer
