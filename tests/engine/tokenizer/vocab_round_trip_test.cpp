// Round trips on every vocab, including baichuan and gpt-neox, which have no vectors:
// decode(encode(s)) == s on every test string, and single tokens re-encode to themselves.
#include <gtest/gtest.h>

#include <cstdio>
#include <unordered_set>

#include "gguf/gguf_file.h"
#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/utf8.h"
#include "tokenizer/vocab.h"
#include "tokenizer/vocab_gguf.h"
#include "vocab_files.h"

namespace hearth::tokenizer {
namespace {

std::string display_name(const ::testing::TestParamInfo<std::string>& info) {
    std::string n = info.param;
    for (char& c : n)
        if (c == '-') c = '_';
    return n;
}

class RoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(RoundTrip, TestStrings) {
    const std::string name = GetParam();
    HEARTH_REQUIRE_SHARED(inp, "testdata/vocab/ggml-vocab-llama-spm.gguf.inp");
    std::string error;
    const Tokenizer* tok = test::load_vocab(name, &error);
    ASSERT_NE(tok, nullptr) << name << ": " << error;
    size_t pass = 0;
    const auto inputs = test::read_inputs(inp);
    for (const std::string& s : inputs) {
        const auto ids = tok->encode_user(s);
        EXPECT_EQ(tok->decode(ids), s) << name;
        // With BOS (hidden when decoding) the text is the same.
        const auto with_bos = tok->encode(s, true, false, false);
        EXPECT_EQ(tok->decode(with_bos), s) << name;
        if (tok->decode(ids) == s) ++pass;
    }
    std::printf("[ roundtrip] %-15s %zu/%zu strings\n", name.c_str(), pass, inputs.size());
}

// Every normal token's piece encodes back to that token wherever that is defined. It is not
// defined when (a) the pre-tokenizer splits the piece into several words, (b) the piece holds
// the text of a user-defined token, which is cut out first, or (c) no merge can produce the
// token (BPE: no merge rule yields it; SPM: it is not the join of two tokens). Every miss must
// have one of these reasons. SPM is checked without the space prefix, so pieces that do not
// start with a space count too.
TEST_P(RoundTrip, SingleTokens) {
    const std::string name = GetParam();
    auto path = test::vocab_path(name);
    if (!path) GTEST_SKIP() << "vocab " << name << " not found";
    auto file = gguf::GgufFile::open(*path);
    ASSERT_TRUE(file.is_ok()) << file.error_message();
    auto data = read_vocab_data(**file);
    ASSERT_TRUE(data.is_ok()) << data.error_message();
    data->add_space_prefix = false;
    std::unordered_set<std::string> merge_results;
    for (const std::string& m : data->merges) {
        const size_t sp = m.find(' ', 1);
        if (sp != std::string::npos) merge_results.insert(m.substr(0, sp) + m.substr(sp + 1));
    }
    auto made = Tokenizer::from_data(std::move(data).value());
    ASSERT_TRUE(made.is_ok()) << made.error_message();
    const Tokenizer& tok = **made;
    const Vocab& vocab = tok.vocab();
    std::unique_ptr<const PreTokenizer> pre;
    if (tok.kind() == VocabKind::Bpe) {
        auto p = PreTokenizer::for_name(tok.pre());
        ASSERT_TRUE(p.is_ok()) << p.error_message();
        pre = std::move(p).value();
    }
    PreTokenizer::Scratch scratch;
    std::vector<TextSpan> words;

    size_t checked = 0, same = 0, split = 0, shadowed = 0, unreachable = 0;
    for (int32_t id = 0; id < tok.n_vocab(); ++id) {
        if (tok.token_type(id) != TokenType::Normal) continue;
        const std::string piece = tok.token_to_piece(id);
        // A byte-level token may hold part of a character: not text, so not encodable.
        if (!utf8::is_valid(piece)) continue;
        ++checked;
        const auto ids = tok.encode_user(piece);
        EXPECT_EQ(tok.decode(ids), piece) << name << " token " << id;  // lossless, always
        if (ids.size() == 1 && ids[0] == id) {
            ++same;
            continue;
        }
        if (pre) {
            pre->split(piece, words, scratch);
            if (words.size() > 1) {
                ++split;
                continue;
            }
        }
        bool has_user_token = false;
        for (int32_t u : vocab.user_specials())
            has_user_token = has_user_token || piece.find(vocab.text(u)) != std::string::npos;
        if (has_user_token) {
            ++shadowed;
            continue;
        }
        const std::string_view text = vocab.text(id);
        bool producible = false;
        if (tok.kind() == VocabKind::Bpe) {
            producible = merge_results.count(std::string(text)) > 0;
        } else {
            for (size_t k = 1; k < text.size() && !producible; ++k)
                producible = vocab.find_piece(text.substr(0, k)) >= 0 &&
                             vocab.find_piece(text.substr(k)) >= 0;
        }
        if (!producible) {
            ++unreachable;
            continue;
        }
        ADD_FAILURE() << name << ": token " << id << " '" << text << "' re-encodes to "
                      << ::testing::PrintToString(ids);
    }
    std::printf(
        "[ singles  ] %-15s %zu/%zu re-encode to themselves; not defined: %zu split by "
        "the pre-tokenizer, %zu hold a user-defined token, %zu cannot be merged\n",
        name.c_str(), same, checked, split, shadowed, unreachable);
    EXPECT_GT(same, checked * 9 / 10) << name;
}

INSTANTIATE_TEST_SUITE_P(Vocab, RoundTrip, ::testing::ValuesIn(test::all_vocabs()), display_name);

}  // namespace
}  // namespace hearth::tokenizer
