// libFuzzer target: arbitrary bytes through every encode entry point and back. Nothing may
// crash; for valid UTF-8 the round trip must give the text back, and streaming must equal
// decode.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/gguf_file.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/streaming_decoder.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8.h"

namespace {

using namespace hearth::tokenizer;

std::unique_ptr<Tokenizer> must(hearth::Result<std::unique_ptr<Tokenizer>> r) {
    if (!r) {
        std::fprintf(stderr, "fuzz setup: %s\n", r.error_message().c_str());
        std::abort();
    }
    return std::move(r).value();
}

std::unique_ptr<Tokenizer> small_spm() {
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
    for (int b = 0; b < 256; ++b) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "<0x%02X>", b);
        add(buf, TokenType::Byte, 0);
    }
    const char* pieces[] = {"\xE2\x96\x81",
                            "a",
                            "b",
                            "ab",
                            ("\xE2\x96\x81"
                             "a"),
                            "ba",
                            "<",
                            "s>",
                            "\xE4\xB8\x96",
                            "\xE2\x96\x81\xE2\x96\x81"};
    float score = -1;
    for (const char* p : pieces) add(p, TokenType::Normal, score -= 0.5f);
    return must(Tokenizer::from_data(std::move(d)));
}

std::unique_ptr<Tokenizer> small_bpe() {
    VocabData d;
    d.kind = VocabKind::Bpe;
    d.pre = "llama-bpe";
    for (int b = 0; b < 256; ++b)
        d.tokens.emplace_back(ByteLevel::get().encode(static_cast<uint8_t>(b)));
    d.types.assign(256, TokenType::Normal);
    auto add = [&](std::string t, TokenType type) {
        d.tokens.push_back(std::move(t));
        d.types.push_back(type);
    };
    add("ab", TokenType::Normal);
    add("abb", TokenType::Normal);
    add("\xC4\xA0"
        "a",
        TokenType::Normal);
    add("<|end|>", TokenType::Control);
    add("  ", TokenType::UserDefined);
    add("<|x|>", TokenType::UserDefined);
    d.merges = {"a b", "ab b", "\xC4\xA0 a"};
    return must(Tokenizer::from_data(std::move(d)));
}

std::unique_ptr<Tokenizer> env_vocab() {
    const char* path = std::getenv("HEARTH_FUZZ_VOCAB");
    if (!path || !*path) return nullptr;
    auto f = hearth::gguf::GgufFile::open(path);
    if (!f) {
        std::fprintf(stderr, "fuzz setup: %s\n", f.error_message().c_str());
        std::abort();
    }
    return must(Tokenizer::from_gguf(**f));
}

void check(const Tokenizer& tok, std::string_view text, unsigned mode, bool lossless_user) {
    std::string clean;
    hearth::tokenizer::utf8::append_sanitized(clean, text);
    std::vector<int32_t> ids;
    bool render = false;
    switch (mode % 3) {
        case 0:
            ids = tok.encode_user(text);
            for (int32_t id : ids)
                if (tok.token_type(id) == TokenType::Control) __builtin_trap();
            if (lossless_user && tok.decode(ids) != clean) __builtin_trap();
            break;
        case 1:
            ids = tok.encode_template(text);
            render = true;
            if (lossless_user && tok.decode(ids, true) != clean) __builtin_trap();
            break;
        default: {
            const size_t half = text.size() / 2;
            const TextSegment segs[] = {{text.substr(0, half), true}, {text.substr(half), false}};
            ids = tok.encode_segments(segs, tok.add_bos(), true);
            break;
        }
    }
    for (int32_t id : ids)
        if (!tok.valid_id(id)) __builtin_trap();
    StreamingDecoder dec(tok, render);
    std::string streamed;
    for (int32_t id : ids) streamed += dec.push(id);
    streamed += dec.finish();
    if (streamed != tok.decode(ids, render)) __builtin_trap();
    if (!hearth::tokenizer::utf8::is_valid(streamed)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const auto spm = small_spm();
    static const auto bpe = small_bpe();
    static const auto real = env_vocab();
    if (size == 0) return 0;
    const unsigned mode = data[0];
    const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
    // SentencePiece spells a space as U+2581, so that character itself reads back as a space.
    const bool has_2581 = text.find("\xE2\x96\x81") != std::string_view::npos;
    check(*spm, text, mode, !has_2581);
    check(*bpe, text, mode >> 2, true);
    if (real) check(*real, text, mode >> 4, real->kind() == VocabKind::Bpe);
    // The input read as token ids: decode must cope with any of them.
    std::vector<int32_t> ids;
    for (size_t i = 0; i + 4 <= text.size(); i += 4) {
        int32_t v;
        std::memcpy(&v, text.data() + i, 4);
        ids.push_back(v % (bpe->n_vocab() + 8));
    }
    (void)bpe->decode(ids, mode & 1);
    (void)spm->decode(ids, mode & 2);
    return 0;
}
