#include "tokenizer/spm_encoder.h"

#include <algorithm>

#include "tokenizer/utf8.h"

namespace hearth::tokenizer {
namespace {

// Heap order: best score on top; equal scores merge the leftmost pair first.
bool lower_priority(const SpmEncoder::Bigram& a, const SpmEncoder::Bigram& b) {
    return a.score < b.score || (a.score == b.score && a.left > b.left);
}

}  // namespace

void SpmEncoder::try_pair(std::string_view text, Scratch& s, int32_t left, int32_t right) const {
    if (left < 0 || right < 0) return;
    const Symbol& l = s.symbols[static_cast<size_t>(left)];
    const Symbol& r = s.symbols[static_cast<size_t>(right)];
    const int32_t id = vocab_.find_piece(text.substr(l.start, l.len + r.len));
    if (id < 0) return;
    s.heap.push_back({vocab_.score(id), static_cast<uint32_t>(left), static_cast<uint32_t>(right),
                      l.len + r.len});
    std::push_heap(s.heap.begin(), s.heap.end(), lower_priority);
}

void SpmEncoder::encode(std::string_view text, std::vector<int32_t>& out, Scratch& s) const {
    if (!vocab_.spm_words_independent()) {
        encode_chunk(text, out, s);
        return;
    }
    // No mergeable token holds U+2581 after another character, so no merge can join text
    // across the start of a space-led word: each word is encoded alone, with the same result
    // and a much smaller working set.
    static constexpr std::string_view kSpace = "\xE2\x96\x81";
    size_t start = 0;
    for (size_t i = 1; i + kSpace.size() <= text.size(); ++i) {
        if (text.compare(i, kSpace.size(), kSpace) != 0) continue;
        if (i >= kSpace.size() && text.compare(i - kSpace.size(), kSpace.size(), kSpace) == 0)
            continue;
        encode_chunk(text.substr(start, i - start), out, s);
        start = i;
        i += kSpace.size() - 1;
    }
    encode_chunk(text.substr(start), out, s);
}

void SpmEncoder::encode_chunk(std::string_view text, std::vector<int32_t>& out, Scratch& s) const {
    if (text.empty()) return;
    // Symbol offsets are 32-bit: a gigabyte-sized run is encoded in character-aligned parts.
    constexpr size_t kMax = size_t{1} << 30;
    while (text.size() > kMax) {
        size_t cut = kMax;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
        encode_chunk(text.substr(0, cut), out, s);
        text.remove_prefix(cut);
    }
    s.symbols.clear();
    s.heap.clear();
    for (size_t i = 0; i < text.size();) {
        const size_t n =
            std::min(utf8::sequence_length(static_cast<unsigned char>(text[i])), text.size() - i);
        const auto idx = static_cast<int32_t>(s.symbols.size());
        s.symbols.push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(n), idx - 1,
                             i + n < text.size() ? idx + 1 : -1});
        i += n;
    }
    for (size_t i = 1; i < s.symbols.size(); ++i)
        try_pair(text, s, static_cast<int32_t>(i - 1), static_cast<int32_t>(i));

    while (!s.heap.empty()) {
        std::pop_heap(s.heap.begin(), s.heap.end(), lower_priority);
        const Bigram b = s.heap.back();
        s.heap.pop_back();
        Symbol& l = s.symbols[b.left];
        Symbol& r = s.symbols[b.right];
        // Stale: one side was merged away, or the pair has grown since it was queued.
        if (l.len == 0 || r.len == 0 || l.len + r.len != b.len) continue;
        l.len += r.len;
        r.len = 0;
        l.next = r.next;
        if (r.next >= 0) s.symbols[static_cast<size_t>(r.next)].prev = static_cast<int32_t>(b.left);
        try_pair(text, s, l.prev, static_cast<int32_t>(b.left));
        try_pair(text, s, static_cast<int32_t>(b.left), l.next);
    }

    for (int32_t i = 0; i >= 0; i = s.symbols[static_cast<size_t>(i)].next) {
        const Symbol& sym = s.symbols[static_cast<size_t>(i)];
        const std::string_view piece = text.substr(sym.start, sym.len);
        const int32_t id = vocab_.find_piece(piece);
        if (id >= 0) {
            out.push_back(id);
            continue;
        }
        // Merged symbols are always tokens, so this is one character the vocabulary lacks.
        bool bytes = true;
        for (char c : piece) bytes = bytes && vocab_.byte_token(static_cast<uint8_t>(c)) >= 0;
        if (bytes) {
            for (char c : piece) out.push_back(vocab_.byte_token(static_cast<uint8_t>(c)));
        } else if (vocab_.unk() >= 0) {
            out.push_back(vocab_.unk());
        }
    }
}

}  // namespace hearth::tokenizer
