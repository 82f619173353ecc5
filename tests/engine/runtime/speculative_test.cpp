// Speculative decoding: greedy output equals plain decoding for every drafter (prompt lookup,
// draft models that agree often or rarely, scripted drafts accepted in full or rejected at the
// first token) across KV block boundaries and KV types; the KV cache after a rollback is the
// cache without the rejected tokens; sampled output has the target's distribution (chi-square
// on a 12-token vocabulary, seeded so it cannot flake); drafts from another vocabulary are
// refused with the reason. Models are synthetic (seeded random weights) with a small
// vocabulary written here, so nothing depends on shared data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "cpu/cpu_weights.h"
#include "gguf/gguf_writer.h"
#include "hearth/session.h"
#include "hearth/speculative.h"
#include "model/synthetic_model.h"
#include "runtime/spec_verify.h"
#include "spec_test_support.h"

namespace hearth {
namespace {

namespace fs = std::filesystem;
using test::chi_square;
using test::chi_square_bound;
using test::write_vocab;

class Speculative : public ::testing::Test {
public:
    static void SetUpTestSuite() {
        dir_ = fs::temp_directory_path() / ("hearth-spec-" + std::to_string(::getpid()));
        fs::create_directories(dir_);
        const auto v256 = write_vocab(dir_ / "v256.gguf", {});
        const auto v12 = write_vocab(dir_ / "v12.gguf", {.n = 12});
        make(v256, model::WeightType::F16, 1, "target.gguf");
        make(v256, model::WeightType::Q8_0, 1, "same_q8.gguf");  // agrees nearly always
        make(v256, model::WeightType::F16, 7, "other.gguf");     // agrees rarely
        make(v12, model::WeightType::F32, 11, "tiny_target.gguf");
        make(v12, model::WeightType::F32, 12, "tiny_draft.gguf");
        make(write_vocab(dir_ / "renamed.gguf", {.renamed = 5}), model::WeightType::F16, 1,
             "renamed.gguf");
        make(write_vocab(dir_ / "eos.gguf", {.eos = 3}), model::WeightType::F16, 1, "eos.gguf");
        make(write_vocab(dir_ / "v255.gguf", {.n = 255}), model::WeightType::F16, 1, "v255.gguf");
        // Quantized targets with n_embd 256: random weights give near-tied logits, so any
        // rounding that depends on the number of tokens in a step flips greedy choices.
        make(v256, model::WeightType::Q4_0, 5, "small_q4_0.gguf", "small-llama");
        make(v256, model::WeightType::Q8_0, 5, "small_q8_0.gguf", "small-llama");
        // Hand-built weights that copy (model/copying_weights.h), for drafts that agree.
        make(v256, model::WeightType::F16, 3, "copy.gguf", "copy-llama", true);
        make(v256, model::WeightType::Q4_0, 3, "copy_q4_0.gguf", "copy-llama", true);
    }
    static void TearDownTestSuite() {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }
    static void make(const fs::path& vocab, model::WeightType t, uint64_t seed, const char* name,
                     const char* shape = "tiny-llama", bool copying = false) {
        model::SyntheticSpec spec;
        spec.shape = shape;
        spec.type = t;
        spec.seed = seed;
        spec.copying = copying;
        ASSERT_TRUE(model::write_synthetic_model(spec, vocab, dir_ / name).is_ok()) << name;
    }
    static std::shared_ptr<Model> load(const char* name, bool repack = true) {
        LoadOptions lo;
        lo.backend = "cpu";
        // Whether the CPU packs Q4_0 / Q8_0 matrices is decided when they are imported (load).
        const bool had = backend::cpu_set_repack(repack);
        auto m = Model::load(dir_ / name, lo);
        backend::cpu_set_repack(had);
        EXPECT_TRUE(m.is_ok()) << name << ": " << (m ? "" : m.error_message());
        return m ? *m : nullptr;
    }
    static std::unique_ptr<Session> session(std::shared_ptr<Model> m, KvType kv = KvType::F16) {
        auto st = KvStore::create(m, {.kv_type = kv, .n_ctx = 256});
        EXPECT_TRUE(st.is_ok());
        auto s = Session::create(*st, {.n_threads = 2, .n_batch = 64});
        EXPECT_TRUE(s.is_ok());
        return s ? std::move(*s) : nullptr;
    }
    static inline fs::path dir_;
};

GenerateOptions greedy(int32_t n) {
    GenerateOptions o;
    o.max_tokens = n;
    o.sampling.temperature = 0.f;
    o.stop_at_end_of_generation = false;
    return o;
}

// A prompt with some repetition (so lookup finds n-grams), ids in [3, 256).
std::vector<int32_t> prompt_of(size_t n) {
    std::vector<int32_t> p = {1};
    uint32_t x = 12345;
    while (p.size() < n) {
        x = x * 1103515245u + 12345u;
        if (p.size() > 8 && (x >> 16) % 3 == 0) {
            p.push_back(p[p.size() - 6]);  // repeats a recent stretch token by token
        } else {
            p.push_back(3 + static_cast<int32_t>((x >> 16) % 253));
        }
    }
    return p;
}

std::vector<int32_t> plain(std::shared_ptr<Model> m, KvType kv, std::span<const int32_t> prompt,
                           int32_t n) {
    auto s = Speculative::session(m, kv);
    EXPECT_TRUE(s->prefill(prompt).is_ok());
    auto r = s->generate(greedy(n));
    EXPECT_TRUE(r.is_ok());
    return r ? r->tokens : std::vector<int32_t>{};
}

// Drafts the known greedy continuation (accept-all) or a wrong first token (reject-first).
class ScriptedDrafter final : public Drafter {
public:
    ScriptedDrafter(std::vector<int32_t> reference, bool wrong, int32_t k)
        : ref_(std::move(reference)), wrong_(wrong), k_(k) {}
    std::string_view name() const override { return "scripted"; }
    int32_t draft_size() override { return k_; }
    Result<Draft> draft(std::span<const int32_t> ctx, int32_t max_tokens,
                        const SamplingParams&) override {
        Draft d;
        for (size_t i = ctx.size(); i < ref_.size() && d.tokens.size() < size_t(max_tokens); ++i)
            d.tokens.push_back(ref_[i]);
        if (wrong_ && !d.tokens.empty()) d.tokens[0] = 3 + (d.tokens[0] - 3 + 1) % 253;
        return d;
    }

private:
    std::vector<int32_t> ref_;
    bool wrong_;
    int32_t k_;
};

TEST_F(Speculative, GreedyOutputEqualsPlainForEveryDrafterKvTypeAndBlockBoundary) {
    auto target = load("target.gguf");
    auto same = load("same_q8.gguf");
    auto other = load("other.gguf");
    ASSERT_TRUE(target && same && other);
    constexpr int32_t kGen = 40;
    int64_t lookup_accepted = 0, same_accepted = 0, other_rejected = 0;
    for (KvType kv : {KvType::F16, KvType::Q8_0, KvType::Q4_0}) {
        for (size_t len : {15u, 16u, 17u, 31u, 33u}) {
            SCOPED_TRACE(std::string(kv_type_name(kv)) + ", prompt " + std::to_string(len));
            const auto prompt = prompt_of(len);
            const auto want = plain(target, kv, prompt, kGen);
            ASSERT_EQ(want.size(), size_t(kGen));
            std::vector<std::unique_ptr<Drafter>> drafters;
            drafters.push_back(
                make_lookup_drafter({.ngram_min = 1, .ngram_max = 3, .adaptive = false}));
            for (const auto& dm : {same, other}) {
                auto d = make_model_drafter(*target, dm,
                                            {.adaptive = false, .n_ctx = 256, .kv_type = kv});
                ASSERT_TRUE(d.is_ok()) << d.error_message();
                drafters.push_back(std::move(*d));
            }
            for (size_t i = 0; i < drafters.size(); ++i) {
                auto s = session(target, kv);
                ASSERT_TRUE(s->prefill(prompt).is_ok());
                auto r = s->generate(greedy(kGen), *drafters[i]);
                ASSERT_TRUE(r.is_ok()) << r.error_message();
                EXPECT_EQ(r->tokens, want) << drafters[i]->name() << " drafter " << i;
                // The sequence left behind: the prompt and every token but the last.
                std::vector<int32_t> seq(prompt.begin(), prompt.end());
                seq.insert(seq.end(), want.begin(), want.end() - 1);
                EXPECT_TRUE(std::ranges::equal(s->tokens(), seq));
                const auto& st = drafters[i]->stats();
                EXPECT_EQ(st.emitted + 1, kGen);  // the first token comes before any step
                if (i == 0) lookup_accepted += st.accepted;
                if (i == 1) same_accepted += st.accepted;
                if (i == 2) other_rejected += st.drafted - st.accepted;
            }
        }
    }
    // Each path was exercised: lookup drafts accepted, the Q8_0 twin mostly agreeing, the
    // other seed's model rejected.
    EXPECT_GT(lookup_accepted, 0);
    EXPECT_GT(same_accepted, 100);
    EXPECT_GT(other_rejected, 50);
}

// Penalties change the target's choice by history: verification applies them token by
// token as plain decoding does.
TEST_F(Speculative, GreedyWithPenaltiesEqualsPlain) {
    auto target = load("target.gguf");
    auto same = load("same_q8.gguf");
    ASSERT_TRUE(target && same);
    GenerateOptions o = greedy(48);
    o.sampling.repeat_penalty = 1.5f;
    o.sampling.frequency_penalty = 0.2f;
    o.sampling.penalty_last_n = 16;
    const auto prompt = prompt_of(33);
    auto ref = session(target);
    ASSERT_TRUE(ref->prefill(prompt).is_ok());
    const auto want = ref->generate(o);
    ASSERT_TRUE(want.is_ok());
    std::vector<std::unique_ptr<Drafter>> drafters;
    drafters.push_back(make_lookup_drafter({.ngram_min = 1, .adaptive = false}));
    auto d = make_model_drafter(*target, same, {.adaptive = false, .n_ctx = 256});
    ASSERT_TRUE(d.is_ok());
    drafters.push_back(std::move(*d));
    for (auto& dr : drafters) {
        auto s = session(target);
        ASSERT_TRUE(s->prefill(prompt).is_ok());
        auto r = s->generate(o, *dr);
        ASSERT_TRUE(r.is_ok());
        EXPECT_EQ(r->tokens, want->tokens) << dr->name();
        EXPECT_GT(dr->stats().accepted, 0) << dr->name();
    }
}

TEST_F(Speculative, AcceptAllAndRejectAtFirst) {
    auto target = load("target.gguf");
    ASSERT_TRUE(target);
    constexpr int32_t kGen = 45, kDraft = 6;
    for (size_t len : {14u, 16u, 30u}) {
        SCOPED_TRACE("prompt " + std::to_string(len));
        const auto prompt = prompt_of(len);
        const auto want = plain(target, KvType::F16, prompt, kGen);
        std::vector<int32_t> ref(prompt.begin(), prompt.end());
        ref.insert(ref.end(), want.begin(), want.end());
        for (bool wrong : {false, true}) {
            ScriptedDrafter d(ref, wrong, kDraft);
            auto s = session(target);
            ASSERT_TRUE(s->prefill(prompt).is_ok());
            auto r = s->generate(greedy(kGen), d);
            ASSERT_TRUE(r.is_ok());
            EXPECT_EQ(r->tokens, want);
            const auto& st = d.stats();
            if (!wrong) {
                EXPECT_EQ(st.accepted, st.drafted);
                // 44 tokens after the first in steps of up to 7 (6 drafted + the target's).
                EXPECT_EQ(st.steps, 7);
                EXPECT_GT(st.mean_accepted_length(), 6.0);
            } else {
                EXPECT_EQ(st.accepted, 0);
                EXPECT_EQ(st.steps, kGen - 1);
                EXPECT_GT(st.drafted, 5 * (kGen - 8));
            }
        }
    }
}

// The copying construction does what it is built for: after a passage and the repeat of its
// first tokens, greedy decoding (F16, and Q4_0 with its rounded codes) continues the passage;
// prompt lookup and the Q4_0 draft then agree with it nearly always, and the output is the same.
TEST_F(Speculative, CopyingModelContinuesAPassageAndDraftsAgreeWithIt) {
    auto target = load("copy.gguf");
    auto q4 = load("copy_q4_0.gguf");
    ASSERT_TRUE(target && q4);
    std::vector<int32_t> passage;
    uint32_t x = 777;
    while (passage.size() < 120) {
        x = x * 1103515245u + 12345u;
        passage.push_back(3 + static_cast<int32_t>((x >> 16) % 253));
    }
    std::vector<int32_t> prompt = {1};
    prompt.insert(prompt.end(), passage.begin(), passage.begin() + 100);
    prompt.insert(prompt.end(), passage.begin(), passage.begin() + 4);
    const std::vector<int32_t> want(passage.begin() + 4, passage.begin() + 64);
    EXPECT_EQ(plain(target, KvType::F16, prompt, 60), want);
    EXPECT_EQ(plain(q4, KvType::F16, prompt, 60), want);
    EXPECT_EQ(plain(target, KvType::Q8_0, prompt, 60), want);

    auto d = make_model_drafter(*target, q4, {.adaptive = false, .n_ctx = 256});
    ASSERT_TRUE(d.is_ok()) << d.error_message();
    std::vector<std::unique_ptr<Drafter>> drafters;
    drafters.push_back(make_lookup_drafter({.draft_max = 8, .adaptive = false}));
    drafters.push_back(std::move(*d));
    for (auto& dr : drafters) {
        SCOPED_TRACE(std::string(dr->name()));
        auto s = session(target);
        ASSERT_TRUE(s->prefill(prompt).is_ok());
        auto r = s->generate(greedy(60), *dr);
        ASSERT_TRUE(r.is_ok());
        EXPECT_EQ(r->tokens, want);
        EXPECT_GT(dr->stats().acceptance_rate(), 0.9);
        EXPECT_GT(dr->stats().mean_accepted_length(), 5.0);
        // Both sides of a step were timed (bench --spec's split); a draft model decodes.
        EXPECT_GT(dr->stats().target_seconds, 0.0);
        EXPECT_GT(dr->stats().draft_seconds, 0.0);
    }
}

// Greedy equality is exact on quantized weights too (the CPU kernels are batch invariant:
// cpu/kernels/kernels.h): prompt lookup, and scripted drafts kept in full or rejected at the
// first token, on Q4_0 and Q8_0 targets whose near-tied logits expose any rounding difference
// between a token decoded alone and the same token verified among k + 1; with the CPU's
// packed Q4_0 / Q8_0 kernels (the default) and with the file-format ones.
TEST_F(Speculative, GreedyOutputEqualsPlainOnQuantizedTargets) {
    constexpr int32_t kGen = 40, kDraft = 5;
    for (const auto& [name, repack] : {std::pair{"small_q4_0.gguf", true},
                                       {"small_q8_0.gguf", true},
                                       {"small_q4_0.gguf", false},
                                       {"small_q8_0.gguf", false}}) {
        auto target = load(name, repack);
        ASSERT_TRUE(target);
        for (size_t len : {15u, 17u, 33u}) {
            SCOPED_TRACE(std::string(name) + (repack ? " packed" : " unpacked") + ", prompt " +
                         std::to_string(len));
            const auto prompt = prompt_of(len);
            const auto want = plain(target, KvType::F16, prompt, kGen);
            ASSERT_EQ(want.size(), size_t(kGen));
            std::vector<int32_t> ref(prompt.begin(), prompt.end());
            ref.insert(ref.end(), want.begin(), want.end());
            std::vector<std::unique_ptr<Drafter>> drafters;
            drafters.push_back(
                make_lookup_drafter({.ngram_min = 1, .ngram_max = 3, .adaptive = false}));
            drafters.push_back(std::make_unique<ScriptedDrafter>(ref, false, kDraft));
            drafters.push_back(std::make_unique<ScriptedDrafter>(ref, true, kDraft));
            for (auto& d : drafters) {
                auto s = session(target);
                ASSERT_TRUE(s->prefill(prompt).is_ok());
                auto r = s->generate(greedy(kGen), *d);
                ASSERT_TRUE(r.is_ok()) << r.error_message();
                EXPECT_EQ(r->tokens, want) << d->name();
            }
            EXPECT_EQ(drafters[1]->stats().accepted, drafters[1]->stats().drafted);
            EXPECT_GT(drafters[1]->stats().accepted, kGen / 2);
        }
    }
}

// After a rejection the cache holds exactly the kept tokens: two sessions that verified
// different rejected tails (in the same batch shape) continue bit for bit alike, and so does a
// session that never saw a tail (fewer rows in its step).
TEST_F(Speculative, KvAfterRollbackEqualsRunWithoutTheRejectedTokens) {
    auto target = load("target.gguf");
    ASSERT_TRUE(target);
    for (KvType kv : {KvType::F16, KvType::Q4_0}) {
        for (size_t len : {13u, 20u}) {  // the tail crosses into a new block / stays in one
            SCOPED_TRACE(std::string(kv_type_name(kv)) + ", prompt " + std::to_string(len));
            const auto prompt = prompt_of(len);
            const std::vector<int32_t> kept = {40, 41};
            auto run = [&](std::vector<int32_t> tail, std::vector<float>& after,
                           std::vector<float>& next, KvStoreStats& stats) {
                auto st = KvStore::create(target, {.kv_type = kv, .n_ctx = 256});
                ASSERT_TRUE(st.is_ok());
                auto s = Session::create(*st, {.n_threads = 2, .n_batch = 64});
                ASSERT_TRUE(s.is_ok());
                Session& ses = **s;
                ASSERT_TRUE(ses.prefill(prompt).is_ok());
                std::vector<int32_t> batch = kept;
                batch.insert(batch.end(), tail.begin(), tail.end());
                auto rows = ses.evaluate(batch);
                ASSERT_TRUE(rows.is_ok());
                const size_t V = rows->size() / batch.size();
                ASSERT_TRUE(ses.rollback(int64_t(len + kept.size()),
                                         rows->subspan((kept.size() - 1) * V, V))
                                .is_ok());
                after.assign(ses.logits().begin(), ses.logits().end());
                const int32_t more[] = {50, 51, 52};
                ASSERT_TRUE(ses.append(more).is_ok());
                next.assign(ses.logits().begin(), ses.logits().end());
                ASSERT_EQ(ses.tokens().size(), len + kept.size() + 3);
                EXPECT_TRUE((*st)->check().is_ok());
                stats = (*st)->stats();
            };
            std::vector<float> a1, a2, b1, b2, c1, c2;
            KvStoreStats sa, sb, sc;
            run({60, 61, 62, 63, 64, 65}, a1, a2, sa);
            run({70, 71, 72, 73, 74, 75}, b1, b2, sb);
            run({}, c1, c2, sc);
            EXPECT_EQ(a1, b1);
            EXPECT_EQ(a2, b2);                // the rejected tails left nothing behind
            EXPECT_EQ(sa.n_free, sc.n_free);  // their blocks were released
            // A run that never saw a tail verified fewer rows in its step; the kernels are batch
            // invariant, so it agrees bit for bit too.
            EXPECT_EQ(a1, c1) << "vs a run without the tail";
            EXPECT_EQ(a2, c2) << "vs a run without the tail";
        }
    }
}

std::vector<double> softmax(std::span<const float> logits, float temp) {
    std::vector<double> p(logits.size());
    double mx = -1e300, sum = 0;
    for (float l : logits) mx = std::max(mx, double(l) / temp);
    for (size_t i = 0; i < p.size(); ++i) sum += (p[i] = std::exp(double(logits[i]) / temp - mx));
    for (double& v : p) v /= sum;
    return p;
}

// The rule alone: x ~ q, judged against p, gives p; skipping the judgement gives q.
TEST(SpeculativeRule, RejectionSamplingGivesTheTargetDistribution) {
    const std::vector<double> p = {0.05, 0.30, 0.10, 0.25, 0.20, 0.10};
    const std::vector<float> q = {0.30f, 0.05f, 0.20f, 0.15f, 0.10f, 0.20f};
    std::vector<float> logits;
    for (double v : p) logits.push_back(static_cast<float>(std::log(v)));
    SamplingParams sp{.temperature = 1.f, .top_k = 0, .top_p = 1.f, .min_p = 0.f, .seed = 99};
    runtime::Verifier v(sp, {});
    std::mt19937_64 rng(5);
    constexpr int64_t kN = 200000;
    std::vector<int64_t> got(p.size()), naive(p.size());
    for (int64_t i = 0; i < kN; ++i) {
        const double r = static_cast<double>(rng() >> 11) * 0x1.0p-53;
        int32_t x = 0;
        for (double cum = q[0]; r >= cum && x + 1 < int32_t(q.size()); cum += q[size_t(++x)]) {
        }
        ++naive[size_t(x)];
        const auto verdict = v.check(logits, x, q);
        ++got[size_t(verdict.token)];
    }
    const auto [stat, dof] = chi_square(p, got, kN);
    EXPECT_LT(stat, chi_square_bound(dof)) << "dof " << dof;
    const auto [bad, bad_dof] = chi_square(p, naive, kN);
    EXPECT_GT(bad, 100 * chi_square_bound(bad_dof)) << "the test would not notice a wrong rule";
}

// On a model: the second and third tokens (decided by verification) follow the target's
// marginals, computed exactly by enumerating the first (and second) token.
TEST_F(Speculative, SampledOutputHasTheTargetDistribution) {
    auto target = load("tiny_target.gguf");
    auto draft = load("tiny_draft.gguf");
    ASSERT_TRUE(target && draft);
    const int V = 12;
    const float temp = 0.08f;  // logits of these random weights are small: sharpen them
    const std::vector<int32_t> prompt = {1, 5, 6, 7, 8, 5, 6, 7, 8, 5, 6, 7};
    auto s = session(target);
    auto probs_after = [&](std::span<const int32_t> toks) {
        EXPECT_TRUE(s->prefill(toks).is_ok());
        return softmax(s->logits(), temp);
    };
    // Exact marginals of tokens 2 and 3.
    std::vector<double> m2(V), m3(V);
    const auto p1 = probs_after(prompt);
    for (int a = 0; a < V; ++a) {
        std::vector<int32_t> pa = prompt;
        pa.push_back(a);
        const auto p2 = probs_after(pa);
        for (int b = 0; b < V; ++b) {
            m2[size_t(b)] += p1[size_t(a)] * p2[size_t(b)];
            std::vector<int32_t> pab = pa;
            pab.push_back(b);
            const auto p3 = probs_after(pab);
            for (int c = 0; c < V; ++c)
                m3[size_t(c)] += p1[size_t(a)] * p2[size_t(b)] * p3[size_t(c)];
        }
    }
    std::vector<std::unique_ptr<Drafter>> drafters;
    auto dm = make_model_drafter(*target, draft, {.draft_max = 2, .adaptive = false, .n_ctx = 256});
    ASSERT_TRUE(dm.is_ok()) << dm.error_message();
    drafters.push_back(std::move(*dm));
    drafters.push_back(
        make_lookup_drafter({.ngram_min = 1, .ngram_max = 2, .draft_max = 2, .adaptive = false}));
    constexpr int64_t kN = 6000;
    for (auto& d : drafters) {
        SCOPED_TRACE(std::string(d->name()));
        std::vector<int64_t> o2(V), o3(V);
        GenerateOptions o;
        o.max_tokens = 4;  // the first step then drafts 2: tokens 2 and 3 are verified
        o.stop_at_end_of_generation = false;
        o.sampling = {.temperature = temp, .top_k = 0, .top_p = 1.f, .min_p = 0.f};
        for (int64_t i = 0; i < kN; ++i) {
            o.sampling.seed = uint64_t(1000 + i);
            ASSERT_TRUE(s->prefill(prompt).is_ok());
            auto r = s->generate(o, *d);
            ASSERT_TRUE(r.is_ok()) << r.error_message();
            ASSERT_EQ(r->tokens.size(), 4u);
            ++o2[size_t(r->tokens[1])];
            ++o3[size_t(r->tokens[2])];
        }
        const auto& st = d->stats();
        EXPECT_GT(st.accepted, kN / 20);               // drafts were kept ...
        EXPECT_GT(st.drafted - st.accepted, kN / 20);  // ... and rejected
        const auto [c2, k2] = chi_square(m2, o2, kN);
        const auto [c3, k3] = chi_square(m3, o3, kN);
        std::printf(
            "%s: drafted %lld, accepted %lld; chi-square token 2: %.1f (dof %d, bound "
            "%.1f), token 3: %.1f (dof %d, bound %.1f)\n",
            std::string(d->name()).c_str(), static_cast<long long>(st.drafted),
            static_cast<long long>(st.accepted), c2, k2, chi_square_bound(k2), c3, k3,
            chi_square_bound(k3));
        EXPECT_LT(c2, chi_square_bound(k2)) << "token 2, dof " << k2;
        EXPECT_LT(c3, chi_square_bound(k3)) << "token 3, dof " << k3;
    }
}

TEST_F(Speculative, DraftWithAnotherVocabularyIsRefusedWithTheReason) {
    auto target = load("target.gguf");
    ASSERT_TRUE(target);
    const struct {
        const char* file;
        const char* reason;
    } cases[] = {{"renamed.gguf", "token 5 is '\xE2\x96\x81t5x' there and '\xE2\x96\x81t5' here"},
                 {"eos.gguf", "EOS token is 3, the model's 2"},
                 {"v255.gguf", "it has 255 vocabulary rows, the model 256"}};
    for (const auto& c : cases) {
        auto d = load(c.file);
        ASSERT_TRUE(d);
        auto r = make_model_drafter(*target, d);
        ASSERT_FALSE(r.is_ok()) << c.file;
        EXPECT_NE(r.error_message().find("cannot draft for this model"), std::string::npos);
        EXPECT_NE(r.error_message().find(c.reason), std::string::npos) << r.error_message();
    }
    EXPECT_TRUE(check_draft_vocabulary(*target, *load("same_q8.gguf")).is_ok());
}

TEST(SpeculativeLookup, ProposesWhatFollowedTheLongestRecentMatch) {
    auto d = make_lookup_drafter({.ngram_min = 1, .ngram_max = 3, .draft_max = 4});
    const SamplingParams sp;
    const std::vector<int32_t> ctx = {9, 1, 2, 3, 7, 8, 5, 1, 2, 3, 4, 6, 2, 3};
    auto r = d->draft(ctx, 4, sp);  // no earlier "6 2 3"; "2 3" last came before "4 6"
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r->tokens, (std::vector<int32_t>{4, 6, 2, 3}));
    r = d->draft(ctx, 2, sp);
    EXPECT_EQ(r->tokens, (std::vector<int32_t>{4, 6}));
    const std::vector<int32_t> none = {1, 2, 3, 4, 5};
    r = d->draft(none, 4, sp);
    EXPECT_TRUE(r->tokens.empty());
    const std::vector<int32_t> three = {1, 2, 3, 9, 0, 2, 3, 8, 1, 2, 3};  // 3-gram beats 2-gram
    r = d->draft(three, 1, sp);
    EXPECT_EQ(r->tokens, (std::vector<int32_t>{9}));
}

// The definition, written out: n from ngram_max down to ngram_min, the most recent earlier
// occurrence of the last n tokens that some token follows.
std::vector<int32_t> lookup_reference(const std::vector<int32_t>& ctx, int n_min, int n_max,
                                      size_t max_tokens) {
    const size_t len = ctx.size();
    for (int n = n_max; n >= n_min; --n) {
        const auto N = static_cast<size_t>(n);
        if (len <= N) continue;
        for (size_t at = len - N; at-- > 0;) {
            if (!std::equal(ctx.end() - long(N), ctx.end(), ctx.begin() + long(at))) continue;
            const size_t from = at + N;
            return {ctx.begin() + long(from), ctx.begin() + long(std::min(len, from + max_tokens))};
        }
    }
    return {};
}

TEST(SpeculativeLookup, OnePassFindsWhatTheNgramByNgramSearchFinds) {
    std::mt19937 rng(11);
    const SamplingParams sp;
    int found = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        const int n_min = 1 + int(rng() % 3), n_max = n_min + int(rng() % 4);
        const int vocab = 2 + int(rng() % 6);  // few tokens: many partial matches
        std::vector<int32_t> ctx(rng() % 60);
        for (auto& t : ctx) t = int32_t(rng() % unsigned(vocab));
        const int32_t k = 1 + int32_t(rng() % 8);
        auto d = make_lookup_drafter({.ngram_min = n_min, .ngram_max = n_max, .draft_max = 8});
        auto r = d->draft(ctx, k, sp);
        ASSERT_TRUE(r.is_ok());
        const auto want = lookup_reference(ctx, n_min, n_max, size_t(k));
        ASSERT_EQ(r->tokens, want) << "trial " << trial << ", n " << n_min << ".." << n_max;
        found += !want.empty();
    }
    EXPECT_GT(found, 1000);  // the comparison covered drafts, not only empty ones
}

}  // namespace
}  // namespace hearth
