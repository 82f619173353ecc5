// Speculative decoding inside the continuous-batching scheduler. On stories260K: every
// sequence's greedy output equals a plain recomputation on the contiguous Context, alone or
// batched with sequences that do not speculate, for prompt lengths across KV block boundaries,
// with prompt lookup, a draft model and scripted drafts accepted in full or rejected at the
// first token; preemption of a speculating sequence and cancellation leave the block pool
// consistent (PagedKvCache::check) and every block free; prefix blocks shared with another
// request are not changed by rolled-back drafts. Sampled requests give the same tokens for a
// seed alone, batched and preempted; on a 12-token synthetic model, the second and third
// tokens (decided by verification) follow the model's exact marginals (chi-square).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "cpu/cpu_weights.h"
#include "hearth/scheduler.h"
#include "hearth/speculative.h"
#include "model/synthetic_model.h"
#include "spec_test_support.h"
#include "stories_scheduler_test.h"
#include "test_data.h"

namespace hearth {
namespace {

using test::Outcome;

GenerationRequest request(std::vector<int32_t> p, int32_t n, Outcome& out,
                          std::shared_ptr<Drafter> drafter = nullptr) {
    GenerationRequest r;
    r.prompt = std::move(p);
    r.max_tokens = n;
    r.sampling.temperature = 0.f;
    r.stop_at_end_of_generation = false;
    r.drafter = std::move(drafter);
    r.on_event = test::record_into(out);
    return r;
}

void drain(Scheduler& s, int max_steps = 20000) {
    test::drain(s, max_steps);
}

std::shared_ptr<Drafter> lookup(int32_t draft_max = 8, bool adaptive = true) {
    return make_lookup_drafter(
        {.ngram_min = 1, .ngram_max = 3, .draft_max = draft_max, .adaptive = adaptive});
}

// Drafts the known greedy continuation (accepted in full) or the same with a wrong first
// token (rejected at once, so every step rolls back k rows).
class ScriptedDrafter final : public Drafter {
public:
    ScriptedDrafter(std::vector<int32_t> reference, bool wrong, int32_t k, int32_t n_vocab)
        : ref_(std::move(reference)), wrong_(wrong), k_(k), n_vocab_(n_vocab) {}
    std::string_view name() const override { return "scripted"; }
    int32_t draft_size() override { return k_; }
    Result<Draft> draft(std::span<const int32_t> ctx, int32_t max_tokens,
                        const SamplingParams&) override {
        Draft d;
        for (size_t i = ctx.size(); i < ref_.size() && d.tokens.size() < size_t(max_tokens); ++i)
            d.tokens.push_back(ref_[i]);
        if (wrong_ && !d.tokens.empty()) d.tokens[0] = (d.tokens[0] + 1) % n_vocab_;
        return d;
    }

private:
    std::vector<int32_t> ref_;
    bool wrong_;
    int32_t k_, n_vocab_;
};

class SchedulerSpec : public test::StoriesSchedulerTest {
protected:
    static void expect_idle(const Scheduler& s) {
        const SchedulerStats st = s.stats();
        EXPECT_EQ(st.running, 0);
        EXPECT_EQ(st.kv_blocks_free, st.kv_blocks);  // every block released
        EXPECT_TRUE(s.check().is_ok()) << s.check().message();
    }

    int32_t n_vocab() const { return static_cast<int32_t>(model_->info().n_vocab); }
};

TEST_F(SchedulerSpec, GreedyOutputEqualsPlainAloneAndBatchedWithOthers) {
    // Step budget 64 for 8 sequences: up to 7 drafted tokens each. Prompts end before, at and
    // after block boundaries (16 positions), and drafts cross them.
    const size_t lengths[] = {5, 15, 16, 17, 31, 33, 47, 75};
    const int32_t n_gen = 40;
    std::vector<std::vector<int32_t>> prompts, refs;
    for (size_t i = 0; i < std::size(lengths); ++i) {
        prompts.push_back(prompt(lengths[i], static_cast<uint32_t>(i * 7)));
        refs.push_back(reference(prompts.back(), n_gen));
    }
    const SchedulerOptions opt{.max_running = 8, .step_tokens = 64};
    // Alone, each with prompt lookup.
    int64_t drafted = 0, accepted = 0;
    for (size_t i = 0; i < prompts.size(); ++i) {
        auto s = scheduler(opt);
        EXPECT_EQ(s->max_draft_tokens(), 7);
        Outcome o;
        ASSERT_TRUE(s->submit(request(prompts[i], n_gen, o, lookup())).ok());
        drain(*s);
        ASSERT_TRUE(o.done && o.error.empty()) << o.error;
        EXPECT_EQ(o.tokens, refs[i]) << "alone, prompt of " << lengths[i];
        drafted += o.usage.draft_tokens;
        accepted += o.usage.draft_accepted;
        EXPECT_EQ(o.usage.draft_steps, s->stats().draft_steps);
        expect_idle(*s);
    }
    EXPECT_GT(accepted, 15);            // lookup drafts were kept ...
    EXPECT_GT(drafted - accepted, 10);  // ... and rejected (rolled back)
    // Batched: the even ones speculate (lookup; one with stories260K drafting for itself),
    // the odd ones decode plainly, all in the same steps.
    auto s = scheduler(opt);
    std::vector<Outcome> outs(prompts.size());
    for (size_t i = 0; i < prompts.size(); ++i) {
        std::shared_ptr<Drafter> d;
        if (i == 2) {
            auto dm = make_model_drafter(*model_, model_, {.draft_max = 4, .n_ctx = 512});
            ASSERT_TRUE(dm.is_ok()) << dm.error_message();
            d = std::move(*dm);
        } else if (i % 2 == 0) {
            d = lookup();
        }
        ASSERT_TRUE(s->submit(request(prompts[i], n_gen, outs[i], d)).ok());
    }
    drain(*s);
    for (size_t i = 0; i < prompts.size(); ++i) {
        ASSERT_TRUE(outs[i].done && outs[i].error.empty()) << outs[i].error;
        EXPECT_EQ(outs[i].tokens, refs[i]) << "batched, prompt of " << lengths[i];
        EXPECT_EQ(outs[i].usage.completion_tokens, n_gen);
        if (i % 2 == 1) {
            EXPECT_EQ(outs[i].usage.draft_tokens, 0);
        }
    }
    // The draft model is the model itself: every drafted token is kept.
    EXPECT_GT(outs[2].usage.draft_tokens, 20);
    EXPECT_EQ(outs[2].usage.draft_accepted, outs[2].usage.draft_tokens);
    const SchedulerStats st = s->stats();
    EXPECT_GT(st.draft_accepted, 0u);
    EXPECT_LE(st.draft_accepted, st.draft_tokens);
    expect_idle(*s);
}

TEST_F(SchedulerSpec, AcceptAllAndRejectAtFirstAcrossBlockBoundaries) {
    const int32_t n_gen = 45, k = 6;
    for (size_t len : {14u, 16u, 30u, 47u}) {
        SCOPED_TRACE("prompt " + std::to_string(len));
        const auto p = prompt(len, static_cast<uint32_t>(len));
        const auto want = reference(p, n_gen);
        std::vector<int32_t> full(p.begin(), p.end());
        full.insert(full.end(), want.begin(), want.end());
        for (bool wrong : {false, true}) {
            auto s = scheduler({.max_running = 2, .step_tokens = 32});
            auto d = std::make_shared<ScriptedDrafter>(full, wrong, k, n_vocab());
            // Beside it, a plain sequence with the same prompt: they share its full blocks.
            Outcome o, plain;
            ASSERT_TRUE(s->submit(request(p, n_gen, o, d)).ok());
            ASSERT_TRUE(s->submit(request(p, n_gen, plain)).ok());
            drain(*s);
            ASSERT_TRUE(o.done && o.error.empty()) << o.error;
            EXPECT_EQ(o.tokens, want) << (wrong ? "rejected" : "accepted");
            EXPECT_EQ(plain.tokens, want) << "the sequence beside it";
            const SpeculativeStats& ds = d->stats();
            if (!wrong) {
                EXPECT_EQ(ds.accepted, ds.drafted);
                // The draft rides on the prompt's last chunk too: 45 tokens, up to 7 a step.
                EXPECT_EQ(ds.steps, 7);
            } else {
                EXPECT_EQ(ds.accepted, 0);
                EXPECT_EQ(ds.steps, n_gen);
                EXPECT_GT(ds.drafted, 5 * (n_gen - 8));
            }
            expect_idle(*s);
            // The cached blocks (the prompt's and the replies') still hold what they claim:
            // a third request on the same prompt adopts them and continues identically.
            Outcome again;
            ASSERT_TRUE(s->submit(request(p, n_gen, again)).ok());
            drain(*s);
            EXPECT_EQ(again.tokens, want);
            EXPECT_GE(again.usage.cached_tokens, int64_t((len - 1) / 16 * 16));
            expect_idle(*s);
        }
    }
}

TEST_F(SchedulerSpec, PreemptionInTheMiddleOfASpeculativeSequence) {
    // Four speculating sequences that grow to 100 tokens (7 blocks each) in a pool of 17
    // blocks: the newest are preempted (their drafts too) and recomputed.
    const int32_t n_gen = 60;
    std::vector<std::vector<int32_t>> prompts, refs;
    for (uint32_t i = 0; i < 4; ++i) {
        prompts.push_back(prompt(40, i * 11 + 1));
        refs.push_back(reference(prompts.back(), n_gen));
    }
    auto s = scheduler({.n_ctx = 256, .max_running = 4, .step_tokens = 64, .kv_budget_bytes = 1});
    std::vector<Outcome> outs(prompts.size());
    for (size_t i = 0; i < prompts.size(); ++i)
        ASSERT_TRUE(s->submit(request(prompts[i], n_gen, outs[i], lookup())).ok());
    drain(*s);
    bool preempted_while_drafting = false;
    for (size_t i = 0; i < prompts.size(); ++i) {
        ASSERT_TRUE(outs[i].done && outs[i].error.empty()) << outs[i].error;
        EXPECT_EQ(outs[i].tokens, refs[i]) << "sequence " << i;
        if (outs[i].usage.preemptions > 0 && outs[i].usage.draft_accepted > 0)
            preempted_while_drafting = true;
    }
    EXPECT_TRUE(preempted_while_drafting);
    EXPECT_GT(s->stats().preemptions, 0u);
    expect_idle(*s);
}

TEST_F(SchedulerSpec, CancelledSpeculativeSequenceFreesItsBlocks) {
    auto s = scheduler({.max_running = 4, .step_tokens = 64});
    Outcome a, b;
    const auto id_a = s->submit(request(prompt(40, 1), 300, a, lookup()));
    ASSERT_TRUE(id_a.ok());
    ASSERT_TRUE(s->submit(request(prompt(20, 3), 300, b, lookup())).ok());
    for (int i = 0; i < 12; ++i) ASSERT_TRUE(s->step().is_ok());
    ASSERT_FALSE(a.done);
    EXPECT_GT(a.tokens.size(), 0u);
    EXPECT_LT(s->stats().kv_blocks_free, s->stats().kv_blocks);
    s->cancel(id_a.id);
    ASSERT_TRUE(s->step().is_ok());
    EXPECT_TRUE(a.done);
    EXPECT_EQ(a.reason, StopReason::Cancelled);
    EXPECT_TRUE(s->check().is_ok());
    drain(*s);
    EXPECT_EQ(b.tokens, reference(prompt(20, 3), 300));
    expect_idle(*s);
}

TEST_F(SchedulerSpec, SeededSamplingIsTheSameAloneBatchedAndPreempted) {
    const auto make = [&](size_t i, Outcome& o) {
        auto r = request(prompt(30, uint32_t(i)), 50, o, lookup());
        r.sampling = SamplingParams{};  // temperature 0.8, top-k 40, top-p 0.95
        r.sampling.seed = 1234 + i;
        r.sampling.frequency_penalty = 0.3f;
        return r;
    };
    const auto run = [&](SchedulerOptions opt, size_t copies, bool others) {
        auto s = scheduler(opt);
        std::vector<Outcome> outs(copies), plain(others ? copies : 0);
        for (size_t i = 0; i < copies; ++i) {
            EXPECT_TRUE(s->submit(make(i, outs[i])).ok());
            if (others) {  // a plain greedy sequence beside each
                EXPECT_TRUE(s->submit(request(prompt(20, uint32_t(i + 9)), 50, plain[i])).ok());
            }
        }
        drain(*s);
        expect_idle(*s);
        std::vector<std::vector<int32_t>> toks;
        int32_t preempted = 0;
        for (auto& o : outs) {
            toks.push_back(o.tokens);
            EXPECT_GT(o.usage.draft_tokens, 0);
            preempted += o.usage.preemptions;
        }
        if (opt.kv_budget_bytes == 1) {
            EXPECT_GT(preempted, 0);
        }
        return toks;
    };
    // 32 tokens a step for up to 3 sequences: drafts of up to 9 tokens, above the drafter's
    // own maximum (8), so the step budget never shortens a draft.
    const SchedulerOptions wide{.max_running = 3, .step_tokens = 32};
    const auto alone = run(wide, 1, false);
    const auto batched = run(wide, 3, false);
    const auto mixed = run(wide, 3, true);
    EXPECT_EQ(alone[0], batched[0]);
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(batched[i], mixed[i]) << i;
        EXPECT_EQ(batched[i].size(), 50u) << i;
    }
    // Preempted (9 blocks for three sequences of 5-6): the recomputed positions come from
    // other batch shapes; the CPU kernels are batch invariant, so their K and V are the same
    // bits and so are the draws, with an F16 cache (the default) as with an F32 one.
    for (KvType kv : {KvType::F16, KvType::F32}) {
        SchedulerOptions roomy_opt = wide;
        roomy_opt.kv_type = kv;
        SchedulerOptions tight = roomy_opt;
        tight.n_ctx = 128;
        tight.kv_budget_bytes = 1;
        const auto roomy = run(roomy_opt, 3, false);
        const auto preempted = run(tight, 3, false);
        for (size_t i = 0; i < 3; ++i) EXPECT_EQ(roomy[i], preempted[i]) << kv_type_name(kv) << i;
    }
}

// The same promises on quantized and half weights (synthetic small-llama, whose random weights
// give near-tied logits that any batch-dependent rounding would flip): greedy output equals
// the contiguous Context's alone and batched with three other sequences, plainly and with
// prompt lookup. Q4_0 / Q8_0 packed (the CPU's default) and Q4_0 in the file format.
struct QuantCase {
    model::WeightType type;
    bool repack;
};

std::string quant_case_name(const QuantCase& c) {
    return std::string(model::weight_type_name(c.type)) + (c.repack ? "" : "_unpacked");
}

class SchedulerQuantized : public ::testing::TestWithParam<QuantCase> {
protected:
    void SetUp() override {
        namespace fs = std::filesystem;
        dir_ = fs::temp_directory_path() /
               ("hearth-sched-q-" + std::to_string(::getpid()) + "-" + quant_case_name(GetParam()));
        fs::create_directories(dir_);
        model::SyntheticSpec spec;
        spec.shape = "small-llama";
        spec.type = GetParam().type;
        spec.seed = 9;
        const auto vocab = test::write_vocab(dir_ / "v256.gguf", {});
        ASSERT_TRUE(model::write_synthetic_model(spec, vocab, dir_ / "m.gguf").is_ok());
        LoadOptions lo;
        lo.backend = "cpu";
        const bool had = backend::cpu_set_repack(GetParam().repack);  // decided at load
        auto m = Model::load(dir_ / "m.gguf", lo);
        backend::cpu_set_repack(had);
        ASSERT_TRUE(m.is_ok()) << m.error_message();
        model_ = *m;
    }
    void TearDown() override {
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    // Ids in [3, 256) with repeated stretches (lookup finds n-grams), after BOS.
    static std::vector<int32_t> prompt(size_t n, uint32_t salt) {
        std::vector<int32_t> p = {1};
        uint32_t x = 777 + salt;
        while (p.size() < n) {
            x = x * 1103515245u + 12345u;
            if (p.size() > 8 && (x >> 16) % 3 == 0)
                p.push_back(p[p.size() - 6]);
            else
                p.push_back(3 + static_cast<int32_t>((x >> 16) % 253));
        }
        return p;
    }
    std::vector<int32_t> reference(std::span<const int32_t> p, int32_t n) const {
        return test::greedy_reference(model_, p, n, 256);
    }
    std::unique_ptr<Scheduler> scheduler() const {
        SchedulerOptions o{.max_running = 4, .step_tokens = 32};
        o.n_threads = 2;
        o.n_ctx = 256;
        auto s = Scheduler::create(model_, o);
        EXPECT_TRUE(s.is_ok()) << s.error_message();
        return s ? std::move(*s) : nullptr;
    }
    std::filesystem::path dir_;
    std::shared_ptr<Model> model_;
};

TEST_P(SchedulerQuantized, GreedyOutputIsTheSameAloneAndBatchedWithThreeOthers) {
    const size_t lengths[] = {9, 17, 30, 44};
    const int32_t n_gen = 32;
    std::vector<std::vector<int32_t>> prompts, refs;
    for (size_t i = 0; i < std::size(lengths); ++i) {
        prompts.push_back(prompt(lengths[i], static_cast<uint32_t>(i)));
        refs.push_back(reference(prompts.back(), n_gen));
        ASSERT_EQ(refs.back().size(), size_t(n_gen));
    }
    for (bool speculate : {false, true}) {
        SCOPED_TRACE(speculate ? "with prompt lookup" : "plain");
        for (size_t i = 0; i < prompts.size(); ++i) {
            auto s = scheduler();
            Outcome o;
            ASSERT_TRUE(
                s->submit(request(prompts[i], n_gen, o, speculate ? lookup() : nullptr)).ok());
            drain(*s);
            ASSERT_TRUE(o.done && o.error.empty()) << o.error;
            EXPECT_EQ(o.tokens, refs[i]) << "alone, prompt of " << lengths[i];
        }
        auto s = scheduler();
        std::vector<Outcome> outs(prompts.size());
        for (size_t i = 0; i < prompts.size(); ++i)
            ASSERT_TRUE(
                s->submit(request(prompts[i], n_gen, outs[i], speculate ? lookup() : nullptr))
                    .ok());
        drain(*s);
        int64_t drafted = 0;
        for (size_t i = 0; i < prompts.size(); ++i) {
            ASSERT_TRUE(outs[i].done && outs[i].error.empty()) << outs[i].error;
            EXPECT_EQ(outs[i].tokens, refs[i]) << "batched, prompt of " << lengths[i];
            drafted += outs[i].usage.draft_tokens;
        }
        if (speculate) {
            EXPECT_GT(drafted, 0);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Formats, SchedulerQuantized,
                         ::testing::Values(QuantCase{model::WeightType::Q4_0, true},
                                           QuantCase{model::WeightType::Q8_0, true},
                                           QuantCase{model::WeightType::Q4_0, false},
                                           QuantCase{model::WeightType::F16, true}),
                         [](const auto& info) { return quant_case_name(info.param); });

// On a 12-token synthetic model the exact marginals of the first three generated tokens are
// enumerable; lookup drafts 2 tokens on the prompt's last chunk and after, so each of them is
// decided by verification (kept, replaced or the bonus token) in a batched step.
TEST(SchedulerSpecDistribution, SampledTokensFollowTheModelsDistribution) {
    namespace fs = std::filesystem;
    const fs::path dir =
        fs::temp_directory_path() / ("hearth-sched-spec-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const auto vocab = test::write_vocab(dir / "v12.gguf", {.n = 12});
    model::SyntheticSpec spec;
    spec.shape = "tiny-llama";
    spec.type = model::WeightType::F32;
    spec.seed = 11;
    ASSERT_TRUE(model::write_synthetic_model(spec, vocab, dir / "tiny.gguf").is_ok());
    LoadOptions lo;
    lo.backend = "cpu";
    auto loaded = Model::load(dir / "tiny.gguf", lo);
    ASSERT_TRUE(loaded.is_ok()) << loaded.error_message();
    std::shared_ptr<Model> model = *loaded;
    const int V = 12;
    const float temp = 0.08f;  // the random weights' logits are small: sharpen them
    const std::vector<int32_t> prompt = {1, 5, 6, 7, 8, 5, 6, 7, 8, 5, 6, 7};

    auto ctx = Context::create(model, {.n_ctx = 64, .n_threads = 2});
    ASSERT_TRUE(ctx.is_ok());
    const auto probs_after = [&](std::span<const int32_t> toks) {
        (*ctx)->reset();
        EXPECT_TRUE((*ctx)->feed(toks).is_ok());
        std::vector<double> p(static_cast<size_t>(V));
        double mx = -1e300, sum = 0;
        for (float l : (*ctx)->logits()) mx = std::max(mx, double(l) / temp);
        for (int i = 0; i < V; ++i)
            sum += (p[size_t(i)] = std::exp(double((*ctx)->logits()[size_t(i)]) / temp - mx));
        for (double& v : p) v /= sum;
        return p;
    };
    std::vector<double> m2(V), m3(V);
    const auto p1 = probs_after(prompt);
    for (int a = 0; a < V; ++a) {
        auto pa = prompt;
        pa.push_back(a);
        const auto p2 = probs_after(pa);
        for (int b = 0; b < V; ++b) {
            m2[size_t(b)] += p1[size_t(a)] * p2[size_t(b)];
            auto pab = pa;
            pab.push_back(b);
            const auto p3 = probs_after(pab);
            for (int c = 0; c < V; ++c)
                m3[size_t(c)] += p1[size_t(a)] * p2[size_t(b)] * p3[size_t(c)];
        }
    }

    constexpr int64_t kN = 6000;
    auto sched = Scheduler::create(model, {.n_threads = 2,
                                           .n_ctx = 64,
                                           .max_running = 16,
                                           .step_tokens = 64,
                                           .max_queued = int32_t(kN)});
    ASSERT_TRUE(sched.is_ok()) << sched.error_message();
    Scheduler& s = **sched;
    std::vector<Outcome> outs(static_cast<size_t>(kN));
    for (int64_t i = 0; i < kN; ++i) {
        auto r = request(prompt, 4, outs[size_t(i)],
                         make_lookup_drafter(
                             {.ngram_min = 1, .ngram_max = 2, .draft_max = 2, .adaptive = false}));
        r.sampling = {.temperature = temp, .top_k = 0, .top_p = 1.f, .min_p = 0.f};
        r.sampling.seed = uint64_t(1000 + i);
        ASSERT_TRUE(s.submit(std::move(r)).ok());
    }
    drain(s, 1000000);
    std::vector<int64_t> o1(V), o2(V), o3(V);
    for (const Outcome& o : outs) {
        ASSERT_TRUE(o.done && o.error.empty()) << o.error;
        ASSERT_EQ(o.tokens.size(), 4u);
        ++o1[size_t(o.tokens[0])];
        ++o2[size_t(o.tokens[1])];
        ++o3[size_t(o.tokens[2])];
    }
    const SchedulerStats st = s.stats();
    EXPECT_GT(st.draft_accepted, uint64_t(kN / 20));                    // drafts were kept ...
    EXPECT_GT(st.draft_tokens - st.draft_accepted, uint64_t(kN / 20));  // ... and rejected
    const auto [c1, k1] = test::chi_square(p1, o1, kN);
    const auto [c2, k2] = test::chi_square(m2, o2, kN);
    const auto [c3, k3] = test::chi_square(m3, o3, kN);
    std::printf(
        "drafted %llu, accepted %llu; chi-square token 1: %.1f (dof %d, bound %.1f), "
        "token 2: %.1f (dof %d, bound %.1f), token 3: %.1f (dof %d, bound %.1f)\n",
        static_cast<unsigned long long>(st.draft_tokens),
        static_cast<unsigned long long>(st.draft_accepted), c1, k1, test::chi_square_bound(k1), c2,
        k2, test::chi_square_bound(k2), c3, k3, test::chi_square_bound(k3));
    EXPECT_LT(c1, test::chi_square_bound(k1)) << "token 1, dof " << k1;
    EXPECT_LT(c2, test::chi_square_bound(k2)) << "token 2, dof " << k2;
    EXPECT_LT(c3, test::chi_square_bound(k3)) << "token 3, dof " << k3;
    EXPECT_TRUE(s.check().is_ok());
    std::error_code ec;
    fs::remove_all(dir, ec);
}

// OpenAI's predicted outputs: a lookup drafter with the reply as its reference drafts it from
// the start, so nearly every token comes from accepted drafts; a wrong prediction is rejected
// and changes nothing; a prediction that is right only after its first tokens is picked up
// once the reply reaches the part it has right.
TEST_F(SchedulerSpec, PredictedOutputsDraftFromTheReference) {
    const auto p = prompt(20, 5);
    const int32_t n_gen = 40;
    const auto ref = reference(p, n_gen);
    const SchedulerOptions opt{.max_running = 4, .step_tokens = 64};
    auto run = [&](std::vector<int32_t> prediction, Outcome& o) {
        auto s = scheduler(opt);
        ASSERT_TRUE(s->submit(request(p, n_gen, o,
                                      make_lookup_drafter(
                                          {.draft_max = 7, .reference = std::move(prediction)})))
                        .ok());
        drain(*s);
        ASSERT_TRUE(o.done && o.error.empty()) << o.error;
    };
    Outcome right, wrong, late, none;
    run(ref, right);
    EXPECT_EQ(right.tokens, ref);
    EXPECT_GE(right.usage.draft_accepted, n_gen - 8) << "drafted " << right.usage.draft_tokens;
    EXPECT_LE(right.usage.draft_steps, 10);
    std::vector<int32_t> reversed(ref.rbegin(), ref.rend());
    run(reversed, wrong);
    EXPECT_EQ(wrong.tokens, ref);
    // The prediction's first 4 tokens wrong: after the model's own first tokens, lookup finds
    // the reply's tail in the rest of the prediction.
    std::vector<int32_t> off = ref;
    for (size_t i = 0; i < 4; ++i) off[i] = (off[i] + 1) % 512;
    run(off, late);
    EXPECT_EQ(late.tokens, ref);
    run({}, none);  // no reference: plain prompt lookup
    EXPECT_EQ(none.tokens, ref);
    EXPECT_GT(late.usage.draft_accepted, none.usage.draft_accepted);
}

}  // namespace
}  // namespace hearth
