// The vocabulary as a byte trie, stored in preorder so that constrained decoding finds every
// token a byte recognizer accepts in one forward scan: a node whose byte is refused skips its
// whole subtree (a refused prefix refuses every token that starts with it).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::runtime {

class TokenTrie {
public:
    // pieces[id]: the bytes token id adds to the text; an empty piece is never offered.
    explicit TokenTrie(std::span<const std::string> pieces);

    size_t n_vocab() const { return n_vocab_; }
    size_t n_nodes() const { return nodes_.size(); }
    size_t max_depth() const { return max_depth_; }

    // Calls accept(token) for every token whose bytes the recognizer R (copyable, with
    // bool feed(uint8_t)) accepts from `start` on, in order of their bytes.
    template <class R, class F>
    void walk(const R& start, F&& accept) const {
        std::vector<R>& at = depth_states<R>();
        at[0] = start;
        for (size_t i = 0; i < nodes_.size();) {
            const Node& n = nodes_[i];
            R r = at[n.depth - 1];
            if (!r.feed(n.byte)) {
                i += n.size;
                continue;
            }
            at[n.depth] = r;
            for (uint32_t t = n.tok_begin; t < n.tok_end; ++t) accept(tokens_[t]);
            ++i;
        }
    }

private:
    struct Node {
        uint32_t size = 1;                    // nodes in its subtree, itself included
        uint32_t tok_begin = 0, tok_end = 0;  // tokens_ whose bytes end here
        uint16_t depth = 1;                   // bytes from the root (which is not stored)
        uint8_t byte = 0;
    };
    template <class R>
    std::vector<R>& depth_states() const {
        thread_local std::vector<R> states;
        if (states.size() < max_depth_ + 1) states.resize(max_depth_ + 1);
        return states;
    }

    std::vector<Node> nodes_;
    std::vector<int32_t> tokens_;  // token ids in the order of their bytes
    size_t n_vocab_ = 0;
    size_t max_depth_ = 0;
};

}  // namespace hearth::runtime
