// Sessions on the paged KV cache (stories260K): greedy outputs equal a full recomputation on
// the contiguous Context; per-turn computed-token counts; forks; eviction; overflow; files.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>

#include "hearth/session.h"
#include "test_data.h"

namespace hearth {
namespace {

GenerateOptions greedy(int32_t n) {
    GenerateOptions o;
    o.max_tokens = n;
    o.sampling.temperature = 0.f;
    o.stop_at_end_of_generation = false;
    return o;
}

struct Fixture {
    std::shared_ptr<Model> model;
    std::vector<int32_t> tok(const std::string& text, bool bos = false) const {
        auto t = model->tokenize(text, bos, false);
        EXPECT_TRUE(t.is_ok());
        return t ? *t : std::vector<int32_t>{};
    }
    // Full recomputation on the contiguous cache: the reference every session must match.
    std::vector<int32_t> reference(std::span<const int32_t> prompt, int32_t n,
                                   KvType kv = KvType::F16) const {
        auto ctx = Context::create(model, {.n_ctx = 512, .kv_type = kv, .n_threads = 2});
        EXPECT_TRUE(ctx.is_ok());
        EXPECT_TRUE((*ctx)->feed(prompt).is_ok());
        auto r = (*ctx)->generate(greedy(n));
        EXPECT_TRUE(r.is_ok());
        return r ? r->tokens : std::vector<int32_t>{};
    }
    std::shared_ptr<KvStore> store(KvType kv = KvType::F16, int64_t n_ctx = 512,
                                   uint64_t budget = 0) const {
        auto s = KvStore::create(model, {.kv_type = kv, .n_ctx = n_ctx, .budget_bytes = budget});
        EXPECT_TRUE(s.is_ok()) << (s ? "" : s.error_message());
        return s ? *s : nullptr;
    }
    std::unique_ptr<Session> session(std::shared_ptr<KvStore> st, int64_t reserve = 64) const {
        auto s = Session::create(std::move(st),
                                 {.n_threads = 2, .n_batch = 64, .reply_reserve = reserve});
        EXPECT_TRUE(s.is_ok());
        return s ? std::move(*s) : nullptr;
    }
};

// The chats here run in 512-position contexts, past the 128 stories260K was trained on: the
// model is loaded with ctx_beyond_training so that they are not clamped.
#define STORIES_OR_SKIP(f)                                         \
    HEARTH_REQUIRE_SHARED(model_path_, "models/stories260K.gguf"); \
    Fixture f;                                                     \
    {                                                              \
        LoadOptions lo_;                                           \
        lo_.ctx_beyond_training = true;                            \
        auto m_ = Model::load(model_path_, lo_);                   \
        ASSERT_TRUE(m_.is_ok());                                   \
        f.model = *m_;                                             \
    }

const char* kUser[] = {"Tom saw a dog.",       "The cat was happy.", "Lily had a red ball.",
                       "Ben ran to the park.", "The sun was hot.",   "Mia found a box."};

// A chat: system prompt, then (user, reply) pairs; turns point into `store`.
struct Chat {
    std::vector<std::vector<int32_t>> parts;
    std::vector<bool> keep;
    std::vector<Turn> turns() const {
        std::vector<Turn> t;
        for (size_t i = 0; i < parts.size(); ++i) t.push_back({parts[i], keep[i]});
        return t;
    }
    std::vector<int32_t> flat() const {
        std::vector<int32_t> f;
        for (const auto& p : parts) f.insert(f.end(), p.begin(), p.end());
        return f;
    }
    void add(std::vector<int32_t> p, bool k = false) {
        parts.push_back(std::move(p));
        keep.push_back(k);
    }
};

TEST(Session, TurnsReuseThePrefixAndMatchFullRecomputation) {
    STORIES_OR_SKIP(f);
    auto store = f.store();
    auto s = f.session(store);
    Chat chat;
    chat.add(f.tok("Once upon a time, there was a little girl.", true), true);
    for (int turn = 0; turn < 4; ++turn) {
        chat.add(f.tok(std::string(" ") + kUser[turn]));
        const size_t cached = s->tokens().size();
        const uint64_t before = s->tokens_computed();
        auto rep = s->prefill(chat.turns());
        ASSERT_TRUE(rep.is_ok()) << rep.error_message();
        const auto want = chat.flat();
        // Only the tail after what the session already held is computed: the new user turn
        // plus, after turn 0, the reply's last token (sampled, not evaluated yet).
        const size_t expect_new = turn == 0 ? want.size() : chat.parts.back().size() + 1;
        EXPECT_EQ(want.size() - cached, expect_new);
        EXPECT_EQ(s->tokens_computed() - before, expect_new) << "turn " << turn;
        EXPECT_EQ(uint64_t(rep->n_computed), expect_new);
        auto gen = s->generate(greedy(10));
        ASSERT_TRUE(gen.is_ok());
        EXPECT_EQ(gen->tokens, f.reference(want, 10)) << "turn " << turn;
        chat.add(gen->tokens);
    }
    EXPECT_TRUE(store->check().is_ok());
}

TEST(Session, RegenerateEditAndNewChatComputeOnlyNewTokens) {
    STORIES_OR_SKIP(f);
    auto store = f.store();
    auto s = f.session(store);
    Chat chat;
    chat.add(f.tok("Once upon a time, there was a little girl named Lily. She liked cats.", true),
             true);
    chat.add(f.tok(" Tom saw a dog."));
    ASSERT_TRUE(s->prefill(chat.turns()).is_ok());
    auto first = s->generate(greedy(8));
    ASSERT_TRUE(first.is_ok());

    // Regenerate: the same turns again: nothing is computed (the prefill logits are kept).
    uint64_t before = s->tokens_computed();
    auto rep = s->prefill(chat.turns());
    ASSERT_TRUE(rep.is_ok());
    EXPECT_EQ(s->tokens_computed() - before, 0u);
    auto again = s->generate(greedy(8));
    ASSERT_TRUE(again.is_ok());
    EXPECT_EQ(again->tokens, first->tokens);

    // Edit of the last user message: only the edited message's differing tail is computed.
    Chat edited = chat;
    edited.parts.back() = f.tok(" Tom saw a big frog.");
    const auto old_flat = chat.flat(), new_flat = edited.flat();
    size_t common = 0;
    while (common < old_flat.size() && common < new_flat.size() &&
           old_flat[common] == new_flat[common])
        ++common;
    before = s->tokens_computed();
    ASSERT_TRUE(s->prefill(edited.turns()).is_ok());
    EXPECT_EQ(s->tokens_computed() - before, new_flat.size() - common);
    auto e = s->generate(greedy(8));
    ASSERT_TRUE(e.is_ok());
    EXPECT_EQ(e->tokens, f.reference(new_flat, 8));

    // New chat with the same system prompt: another session reuses the cached history (whole
    // blocks shared, the block where the prompt ends copied up to the shared prefix), so it
    // computes exactly the tokens after the common prefix.
    auto s2 = f.session(store);
    Chat other;
    other.add(chat.parts[0], true);
    other.add(f.tok(" The cat was happy."));
    const auto first_flat = chat.flat(), other_flat = other.flat();
    size_t lcp = 0;
    while (lcp < first_flat.size() && lcp < other_flat.size() && first_flat[lcp] == other_flat[lcp])
        ++lcp;
    EXPECT_GE(lcp, chat.parts[0].size());
    auto r2 = s2->prefill(other.turns());
    ASSERT_TRUE(r2.is_ok());
    EXPECT_EQ(r2->n_reused, int64_t(lcp));
    EXPECT_EQ(s2->tokens_computed(), other_flat.size() - lcp);
    EXPECT_GT(store->stats().partial_hits, 0u);
    auto g2 = s2->generate(greedy(8));
    ASSERT_TRUE(g2.is_ok());
    EXPECT_EQ(g2->tokens, f.reference(other.flat(), 8));
    EXPECT_GT(store->stats().prefix_hit_blocks, 0u);
    EXPECT_TRUE(store->check().is_ok());
}

TEST(Session, ForkedBranchesShareThePrefixAndStayCorrect) {
    STORIES_OR_SKIP(f);
    auto store = f.store();
    auto a = f.session(store);
    Chat chat;
    chat.add(f.tok("Once upon a time, there was a boy named Tim who had a big red car.", true),
             true);
    chat.add(f.tok(" He drove to the park."));
    ASSERT_TRUE(a->prefill(chat.turns()).is_ok());
    const int64_t fork_at = int64_t(chat.parts[0].size());  // the start of the user turn
    auto b = a->fork(fork_at);
    ASSERT_TRUE(b.is_ok()) << b.error_message();
    Chat edited;
    edited.add(chat.parts[0], true);
    edited.add(f.tok(" She sang a song."));
    const uint64_t before = (*b)->tokens_computed();
    ASSERT_TRUE((*b)->prefill(edited.turns()).is_ok());
    EXPECT_EQ((*b)->tokens_computed() - before, edited.parts[1].size());
    // Both branches continue correctly: B's writes into the shared partial block were copied.
    auto gb = (*b)->generate(greedy(12));
    auto ga = a->generate(greedy(12));
    ASSERT_TRUE(ga.is_ok() && gb.is_ok());
    EXPECT_EQ(ga->tokens, f.reference(chat.flat(), 12));
    EXPECT_EQ(gb->tokens, f.reference(edited.flat(), 12));
    EXPECT_GT(store->stats().cow_copies, 0u);
    EXPECT_TRUE(store->check().is_ok());
}

TEST(Session, PagedMatchesContiguousForEveryKvType) {
    STORIES_OR_SKIP(f);
    const auto prompt = f.tok("Once upon a time, there was a little dog named Max.", true);
    for (KvType kv : {KvType::F32, KvType::F16, KvType::Q8_0, KvType::Q4_0}) {
        SCOPED_TRACE(kv_type_name(kv));
        auto s = f.session(f.store(kv));
        ASSERT_TRUE(s->prefill(std::span<const int32_t>(prompt)).is_ok());
        auto g = s->generate(greedy(40));
        ASSERT_TRUE(g.is_ok());
        EXPECT_EQ(g->tokens, f.reference(prompt, 40, kv));
    }
}

TEST(Session, EvictionUnderASmallBudgetKeepsResultsCorrect) {
    STORIES_OR_SKIP(f);
    // 20 blocks = 320 positions for n_ctx 256: every new chat evicts older cached blocks.
    auto probe = f.store(KvType::F16, 256);
    const uint64_t per_block = probe->stats().block_bytes;
    auto store = f.store(KvType::F16, 256, per_block * 20);
    ASSERT_EQ(store->stats().n_blocks, 20);
    const auto sys = f.tok("Once upon a time, there was a happy frog who lived by a pond.", true);
    std::vector<std::vector<int32_t>> outputs;
    for (int round = 0; round < 2; ++round)
        for (int c = 0; c < 6; ++c) {
            auto s = f.session(store);
            Chat chat;
            chat.add(sys, true);
            for (int k = 0; k < 4; ++k) chat.add(f.tok(std::string(" ") + kUser[(c + k) % 6]));
            ASSERT_TRUE(s->prefill(chat.turns()).is_ok());
            auto g = s->generate(greedy(30));
            ASSERT_TRUE(g.is_ok()) << g.error_message();
            if (round == 0)
                outputs.push_back(g->tokens);
            else
                EXPECT_EQ(g->tokens, outputs[size_t(c)]) << "chat " << c;
            if (round == 0 && c < 2) {
                EXPECT_EQ(g->tokens, f.reference(chat.flat(), 30));
            }
            ASSERT_TRUE(store->check().is_ok());
        }
    EXPECT_GT(store->stats().evictions, 0u);
    // Two live sessions that need more than the budget get an error, not a crash.
    auto s1 = f.session(store), s2 = f.session(store);
    std::vector<int32_t> long_a(200, 5), long_b(200, 7);
    ASSERT_TRUE(s1->prefill(std::span<const int32_t>(long_a)).is_ok());
    auto r = s2->prefill(std::span<const int32_t>(long_b));
    ASSERT_FALSE(r.is_ok());
    EXPECT_NE(r.error_message().find("budget"), std::string::npos) << r.error_message();
    EXPECT_TRUE(store->check().is_ok());
}

TEST(Session, OverflowKeepsTheSystemPromptAndDropsWholeTurns) {
    STORIES_OR_SKIP(f);
    auto store = f.store(KvType::F16, 512);
    auto s = f.session(store, 64);
    Chat chat;
    chat.add(f.tok("Once upon a time, there was a wise old owl.", true), true);
    int drops = 0;
    size_t dropped_before = 0;
    for (int turn = 0; turn < 30; ++turn) {
        chat.add(f.tok(std::string(" ") + kUser[turn % 6] + " " + kUser[(turn * 5 + 1) % 6]));
        auto rep = s->prefill(chat.turns());
        ASSERT_TRUE(rep.is_ok()) << rep.error_message();
        // Drops are sticky: the report lists every turn left out, growing at each new drop.
        ASSERT_GE(rep->dropped_turns.size(), dropped_before);
        drops += rep->dropped_turns.size() > dropped_before ? 1 : 0;
        dropped_before = rep->dropped_turns.size();
        // The sequence is the system prompt plus whole, undropped turns, within the context.
        std::vector<int32_t> expect;
        for (size_t i = 0, j = 0; i < chat.parts.size(); ++i) {
            if (j < rep->dropped_turns.size() && rep->dropped_turns[j] == i) {
                ++j;
                continue;
            }
            expect.insert(expect.end(), chat.parts[i].begin(), chat.parts[i].end());
        }
        ASSERT_EQ(std::vector<int32_t>(s->tokens().begin(), s->tokens().end()), expect);
        EXPECT_LE(s->tokens().size(), 512u - 64u);
        EXPECT_TRUE(std::equal(chat.parts[0].begin(), chat.parts[0].end(), s->tokens().begin()));
        for (size_t d : rep->dropped_turns) EXPECT_NE(d, 0u);
        auto g = s->generate(greedy(16));
        ASSERT_TRUE(g.is_ok());
        EXPECT_EQ(g->tokens, f.reference(expect, 16)) << "turn " << turn;
        chat.add(g->tokens);
    }
    EXPECT_GT(drops, 0);
    EXPECT_LE(drops, 6);  // a drop frees a quarter of the context: room for several turns
    // One message longer than the context: a clear error.
    Chat huge;
    huge.add(chat.parts[0], true);
    huge.add(std::vector<int32_t>(600, 9));
    auto r = s->prefill(huge.turns());
    ASSERT_FALSE(r.is_ok());
    EXPECT_NE(r.error_message().find("does not fit the context"), std::string::npos);
}

TEST(Session, SaveRestoreRoundTripAndRejections) {
    STORIES_OR_SKIP(f);
    const auto dir = std::filesystem::temp_directory_path() / "hearth_session_test";
    std::filesystem::create_directories(dir);
    const auto file = dir / "chat.hkv";
    auto store = f.store();
    auto s = f.session(store);
    Chat chat;
    chat.add(f.tok("Once upon a time, there was a little girl who loved to read books.", true),
             true);
    for (int k = 0; k < 3; ++k) chat.add(f.tok(std::string(" ") + kUser[k]));
    ASSERT_TRUE(s->prefill(chat.turns()).is_ok());
    ASSERT_TRUE(s->save(file).is_ok());
    auto expect = f.reference(chat.flat(), 20);

    // Round trip into a fresh store: one token is computed (for the logits), output equal.
    auto s2 = f.session(f.store());
    auto n = s2->restore(file);
    ASSERT_TRUE(n.is_ok()) << n.error_message();
    EXPECT_EQ(*n, int64_t(chat.flat().size()));
    EXPECT_EQ(s2->tokens_computed(), 1u);
    auto g = s2->generate(greedy(20));
    ASSERT_TRUE(g.is_ok());
    EXPECT_EQ(g->tokens, expect);

    auto rejected = [&](const std::filesystem::path& p, std::shared_ptr<KvStore> st,
                        const std::string& why) {
        auto sx = f.session(st);
        auto r = sx->restore(p);
        ASSERT_FALSE(r.is_ok());
        EXPECT_NE(r.error_message().find(why), std::string::npos) << r.error_message();
        EXPECT_TRUE(sx->tokens().empty());
        // Falls back to recomputation.
        ASSERT_TRUE(sx->prefill(chat.turns()).is_ok());
        auto gx = sx->generate(greedy(20));
        ASSERT_TRUE(gx.is_ok());
        if (st->kv_type() == KvType::F16) {
            EXPECT_EQ(gx->tokens, expect);
        }
    };
    rejected(file, f.store(KvType::Q8_0), "another KV cache type");
    std::string bytes = test::read_file(file);
    auto write = [&](const std::string& name, const std::string& content) {
        std::ofstream(dir / name, std::ios::binary) << content;
        return dir / name;
    };
    std::string flipped = bytes;
    flipped[bytes.size() / 2] = char(flipped[bytes.size() / 2] ^ 0x40);
    rejected(write("flipped.hkv", flipped), f.store(), "damaged");
    rejected(write("short.hkv", bytes.substr(0, bytes.size() / 3)), f.store(), "damaged");
    rejected(write("empty.hkv", ""), f.store(), "truncated");
    rejected(dir / "missing.hkv", f.store(), "cannot open");
    // Another model: the same file read by a store of a model with another identity.
    std::string other = bytes;
    const auto at = other.find("gguf:");
    ASSERT_NE(at, std::string::npos);
    other[at + 6] = other[at + 6] == '1' ? '2' : '1';  // a different file size in the identity
    // Recompute the checksum so only the identity differs.
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i + 8 < other.size(); ++i) {
        h ^= static_cast<uint8_t>(other[i]);
        h *= 0x100000001b3ull;
    }
    std::memcpy(other.data() + other.size() - 8, &h, 8);
    rejected(write("other.hkv", other), f.store(), "another model");
    std::filesystem::remove_all(dir);
}

// A request's cancel token is only read: set before the call, the call stops at once (the
// session's own cancel() would have been cleared by the call's start); set during a prefill,
// what was computed stays in the sequence and the next request reuses it.
TEST(Session, CancelTokenIsNeverResetAndAStoppedPrefillKeepsItsWork) {
    STORIES_OR_SKIP(f);
    auto st = f.store();
    auto s = f.session(st);
    std::string text;
    for (int i = 0; i < 3; ++i)
        text +=
            "Once upon a time there was a little girl named Lily who loved to play outside "
            "in the sun with her dog and her friends every day. ";
    const auto prompt = f.tok(text, true);
    ASSERT_GT(prompt.size(), 64u);  // more than one batch of 64
    auto early = std::make_shared<std::atomic<bool>>(true);
    s->set_cancel_token(early);
    auto r = s->prefill(prompt);
    ASSERT_FALSE(r.is_ok());
    EXPECT_NE(r.error_message().find("cancelled"), std::string::npos);
    EXPECT_EQ(s->tokens_computed(), 0u);
    EXPECT_TRUE(early->load());  // still set: the engine never clears it
    auto g = s->generate(greedy(4));
    EXPECT_FALSE(g.is_ok() && !g->tokens.empty());

    // Set from on_token of a generation: no further token is sampled.
    auto tok = std::make_shared<std::atomic<bool>>(false);
    s->set_cancel_token(tok);
    ASSERT_TRUE(s->prefill(prompt).is_ok());
    auto opts = greedy(8);
    int seen = 0;
    opts.on_token = [&](int32_t t, std::string_view) {
        if (t >= 0 && ++seen == 2) tok->store(true);
        return true;
    };
    auto out = s->generate(opts);
    ASSERT_TRUE(out.is_ok());
    EXPECT_EQ(out->reason, StopReason::Cancelled);
    EXPECT_EQ(out->tokens.size(), 2u);

    // Stopped after the first batch of a prefill: the batch stays and is reused.
    auto fresh = f.session(st);
    auto mid = std::make_shared<std::atomic<bool>>(false);
    fresh->set_cancel_token(mid);
    std::vector<int32_t> other = prompt;
    other[1] = other[1] == 5 ? 6 : 5;  // no cached prefix past the first token
    // The first batch is computed, then the token is set and the rest is asked for.
    ASSERT_TRUE(fresh->prefill(std::span(other).first(64)).is_ok());
    mid->store(true);
    auto cut = fresh->prefill(other);
    ASSERT_FALSE(cut.is_ok());
    EXPECT_EQ(fresh->tokens().size(), 64u);  // truncated to what was computed, not reset
    auto next = std::make_shared<std::atomic<bool>>(false);
    fresh->set_cancel_token(next);
    auto rep = fresh->prefill(other);
    ASSERT_TRUE(rep.is_ok()) << rep.error_message();
    EXPECT_EQ(rep->n_reused, 64);
    EXPECT_EQ(rep->n_computed, static_cast<int64_t>(other.size()) - 64);
    EXPECT_TRUE(st->check().is_ok());
}

}  // namespace
}  // namespace hearth
