#include "tokenizer/special_matcher.h"

#include <algorithm>

namespace hearth::tokenizer {

SpecialMatcher::SpecialMatcher(const Vocab& vocab, const std::vector<int32_t>& ids)
    : vocab_(vocab), ids_(ids) {
    for (uint32_t r = 0; r < ids_.size(); ++r) {
        const std::string_view t = vocab_.text(ids_[r]);
        if (t.empty()) continue;
        const auto b0 = static_cast<uint8_t>(t[0]);
        first_byte_[b0] = true;
        if (t.size() == 1) {
            single_[b0].push_back(r);
        } else {
            const auto key = static_cast<uint16_t>(b0 << 8 | static_cast<uint8_t>(t[1]));
            by_prefix_[key].push_back(r);
        }
    }
}

void SpecialMatcher::split(std::string_view text, std::vector<Fragment>& out,
                           Scratch& scratch) const {
    // Pass 1: which tokens occur at all (a cheap scan keyed by the first two bytes).
    auto& present = scratch.present;
    present.assign(ids_.size(), 0);
    bool any = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const auto b0 = static_cast<uint8_t>(text[i]);
        if (!first_byte_[b0]) continue;
        for (uint32_t r : single_[b0]) present[r] = 1, any = true;
        if (i + 1 >= text.size()) continue;
        const auto key = static_cast<uint16_t>(b0 << 8 | static_cast<uint8_t>(text[i + 1]));
        auto it = by_prefix_.find(key);
        if (it == by_prefix_.end()) continue;
        const std::string_view rest = text.substr(i);
        for (uint32_t r : it->second)
            if (!present[r] && rest.starts_with(vocab_.text(ids_[r]))) present[r] = 1, any = true;
    }
    if (!any) {
        if (!text.empty()) out.push_back({0, text.size(), -1});
        return;
    }
    // Pass 2: longest token first; each is cut left to right wherever none of its bytes were
    // cut already. The cost is proportional to the number of distinct tokens present.
    auto& claimed = scratch.claimed;
    claimed.assign(text.size(), 0);
    auto& hits = scratch.hits;
    hits.clear();
    for (uint32_t r = 0; r < ids_.size(); ++r) {
        if (!present[r]) continue;
        const std::string_view t = vocab_.text(ids_[r]);
        size_t pos = 0;
        while ((pos = text.find(t, pos)) != std::string_view::npos) {
            const auto first = claimed.begin() + static_cast<std::ptrdiff_t>(pos);
            if (std::find(first, first + static_cast<std::ptrdiff_t>(t.size()), uint8_t{1}) !=
                first + static_cast<std::ptrdiff_t>(t.size())) {
                ++pos;
                continue;
            }
            std::fill(first, first + static_cast<std::ptrdiff_t>(t.size()), uint8_t{1});
            hits.push_back({pos, ids_[r]});
            pos += t.size();
        }
    }
    std::sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) { return a.pos < b.pos; });
    size_t at = 0;
    for (const auto& h : hits) {
        if (h.pos > at) out.push_back({at, h.pos - at, -1});
        const size_t len = vocab_.text(h.token).size();
        out.push_back({h.pos, len, h.token});
        at = h.pos + len;
    }
    if (at < text.size()) out.push_back({at, text.size() - at, -1});
}

}  // namespace hearth::tokenizer
