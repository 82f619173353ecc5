#include "runtime/token_trie.h"

#include <algorithm>
#include <limits>

namespace hearth::runtime {

TokenTrie::TokenTrie(std::span<const std::string> pieces) : n_vocab_(pieces.size()) {
    // Tokens sorted by their bytes are the trie's terminal nodes in preorder: each token adds
    // the nodes of its bytes past what it shares with the one before.
    std::vector<int32_t> order;
    for (size_t id = 0; id < pieces.size(); ++id)
        if (!pieces[id].empty() && pieces[id].size() < std::numeric_limits<uint16_t>::max())
            order.push_back(static_cast<int32_t>(id));
    std::stable_sort(order.begin(), order.end(),
                     [&](int32_t a, int32_t b) { return pieces[size_t(a)] < pieces[size_t(b)]; });
    tokens_ = order;
    std::vector<uint32_t> open;  // open[d]: the node at depth d + 1 on the current path
    std::string_view prev;
    for (size_t t = 0; t < order.size(); ++t) {
        const std::string_view p = pieces[size_t(order[t])];
        size_t common = 0;
        while (common < p.size() && common < prev.size() && p[common] == prev[common]) ++common;
        // Close the nodes below the shared prefix: their subtrees are complete.
        while (open.size() > common) {
            Node& n = nodes_[open.back()];
            n.size = static_cast<uint32_t>(nodes_.size() - open.back());
            open.pop_back();
        }
        for (size_t d = common; d < p.size(); ++d) {
            Node n;
            n.depth = static_cast<uint16_t>(d + 1);
            n.byte = static_cast<uint8_t>(p[d]);
            n.tok_begin = n.tok_end = static_cast<uint32_t>(t);
            open.push_back(static_cast<uint32_t>(nodes_.size()));
            nodes_.push_back(n);
        }
        // This token ends at the deepest open node (a repeated piece adds to the same one).
        Node& end = nodes_[open.back()];
        if (end.tok_end == end.tok_begin) end.tok_begin = static_cast<uint32_t>(t);
        end.tok_end = static_cast<uint32_t>(t + 1);
        max_depth_ = std::max(max_depth_, p.size());
        prev = p;
    }
    while (!open.empty()) {
        Node& n = nodes_[open.back()];
        n.size = static_cast<uint32_t>(nodes_.size() - open.back());
        open.pop_back();
    }
}

}  // namespace hearth::runtime
