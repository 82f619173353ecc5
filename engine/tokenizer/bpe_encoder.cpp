#include "tokenizer/bpe_encoder.h"

#include <algorithm>

#include "tokenizer/byte_level.h"

namespace hearth::tokenizer {
namespace {

// Heap order: lowest rank on top; equal ranks merge the leftmost pair first.
bool lower_priority(const BpeEncoder::Pair& a, const BpeEncoder::Pair& b) {
    return a.rank > b.rank || (a.rank == b.rank && a.left > b.left);
}

}  // namespace

void BpeEncoder::try_pair(Scratch& s, int32_t left, int32_t right) const {
    if (left < 0 || right < 0) return;
    const int32_t l = s.symbols[static_cast<size_t>(left)].id;
    const int32_t r = s.symbols[static_cast<size_t>(right)].id;
    if (l < 0 || r < 0) return;
    const Vocab::Merge* m = vocab_.find_merge(l, r);
    if (!m) return;
    s.heap.push_back(
        {m->rank, static_cast<uint32_t>(left), static_cast<uint32_t>(right), l, r, m->result});
    std::push_heap(s.heap.begin(), s.heap.end(), lower_priority);
}

void BpeEncoder::encode_word(std::string_view word, std::vector<int32_t>& out, Scratch& s) const {
    if (word.empty()) return;
    // Symbol indexes are 32-bit: a gigabyte-sized word is encoded in parts.
    constexpr size_t kMax = size_t{1} << 30;
    while (word.size() > kMax) {
        encode_word(word.substr(0, kMax), out, s);
        word.remove_prefix(kMax);
    }
    if (vocab_.ignore_merges() && word.size() > 1) {
        s.spelled.clear();
        ByteLevel::get().encode_append(s.spelled, word);
        if (const int32_t id = vocab_.find_piece(s.spelled); id >= 0) {
            out.push_back(id);
            return;
        }
    }
    s.symbols.clear();
    s.heap.clear();
    const auto n = static_cast<int32_t>(word.size());
    for (int32_t i = 0; i < n; ++i)
        s.symbols.push_back({vocab_.byte_token(static_cast<uint8_t>(word[static_cast<size_t>(i)])),
                             i - 1, i + 1 < n ? i + 1 : -1, true});
    for (int32_t i = 1; i < n; ++i) try_pair(s, i - 1, i);

    while (!s.heap.empty()) {
        std::pop_heap(s.heap.begin(), s.heap.end(), lower_priority);
        const Pair p = s.heap.back();
        s.heap.pop_back();
        Symbol& l = s.symbols[p.left];
        Symbol& r = s.symbols[p.right];
        // Stale: a side was merged away or has changed since the pair was queued.
        if (!l.alive || !r.alive || l.next != static_cast<int32_t>(p.right) || l.id != p.left_id ||
            r.id != p.right_id)
            continue;
        l.id = p.result;
        r.alive = false;
        l.next = r.next;
        if (r.next >= 0) s.symbols[static_cast<size_t>(r.next)].prev = static_cast<int32_t>(p.left);
        try_pair(s, l.prev, static_cast<int32_t>(p.left));
        try_pair(s, static_cast<int32_t>(p.left), l.next);
    }
    for (int32_t i = 0; i >= 0; i = s.symbols[static_cast<size_t>(i)].next) {
        const int32_t id = s.symbols[static_cast<size_t>(i)].id;
        if (id >= 0)
            out.push_back(id);
        else if (vocab_.unk() >= 0)
            out.push_back(vocab_.unk());
    }
}

}  // namespace hearth::tokenizer
