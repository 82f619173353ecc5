// The CPU + accelerator split with the reference device plugin (hearth-backend-ref) standing in
// for a GPU: every split point gives the CPU's greedy tokens and logits (a synthetic model and
// stories260K), a chat session reuses its KV cache across turns with a split, a cancelled
// upload leaves nothing loaded, supports() keeps layers off a device that cannot run them, the
// automatic layer count follows the device's (fake) memory, and the fit check refuses a model
// larger than the (test-overridden) available memory unless forced.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "cpu/cpu_device.h"
#include "hearth/engine.h"
#include "hearth/scheduler.h"
#include "hearth/session.h"
#include "ref/ref_device.h"
#include "registry.h"
#include "runtime/forward.h"
#include "runtime/kv_cache.h"
#include "runtime/placement.h"
#include "scoped_env.h"
#include "synthetic_model.h"
#include "test_data.h"

namespace hearth::runtime::test {
namespace {

using backend::DType;

std::unique_ptr<backend::Device> ref_plugin_device() {
    auto d = backend::Registry::probe().create("ref");
    EXPECT_TRUE(d.is_ok()) << (d ? "" : d.error_message());
    return d ? std::move(d.value()) : nullptr;
}

// Scoped environment variable.
using hearth::test::ScopedEnv;

class SplitByArch : public ::testing::TestWithParam<Arch> {};

TEST_P(SplitByArch, EverySplitPointMatchesTheCpu) {
    // qwen2's embeddings are tied: the output head on the accelerator gets its own copy.
    const auto m = make_synthetic(GetParam(), quant::Type::F32, 7);
    auto cpu = backend::make_cpu_device();
    auto ref = ref_plugin_device();
    ASSERT_TRUE(ref);
    const std::vector<int32_t> prompt = {1, 17, 299, 42, 42, 5, 128, 0, 250, 77, 3};
    const SplitRun base = run_split(m, *cpu, nullptr, 0, false, prompt, 8);
    ASSERT_EQ(base.tokens.size(), 8u);
    for (int64_t n = 0; n <= m.params.n_layer; ++n) {
        for (bool head : {false, true}) {
            if (head && n != m.params.n_layer) continue;
            SCOPED_TRACE("layers on ref: " + std::to_string(n) + (head ? " + output" : ""));
            const SplitRun r = run_split(m, *cpu, ref.get(), n, head, prompt, 8);
            EXPECT_EQ(r.tokens, base.tokens);
            ASSERT_EQ(r.logits.size(), base.logits.size());
            for (size_t i = 0; i < r.logits.size(); ++i)
                EXPECT_LT(rel_diff(r.logits[i], base.logits[i]), 1e-4) << "step " << i;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Archs, SplitByArch, ::testing::Values(Arch::Llama, Arch::Qwen2),
                         [](const auto& info) {
                             return std::string(model::arch_name(info.param));
                         });

TEST(Split, UploadsEachAcceleratorTensorOnce) {
    const auto m = make_synthetic(Arch::Llama, quant::Type::F32, 3);
    auto cpu = backend::make_cpu_device();
    auto ref = ref_plugin_device();
    ASSERT_TRUE(ref);
    Placement pl{cpu.get(), ref.get(), 1, false};
    uint64_t reported = 0;
    int calls = 0;
    UploadProgress up;
    up.total = upload_bytes(m.params, m.source, pl);
    up.on_tensor = [&](uint64_t done, uint64_t total) {
        EXPECT_EQ(total, up.total);
        EXPECT_GT(done, reported);
        reported = done;
        ++calls;
        return true;
    };
    auto w = bind_weights(m.params, m.source, pl, up);
    ASSERT_TRUE(w.is_ok()) << w.error_message();
    EXPECT_EQ(w->uploaded_bytes, up.total);
    EXPECT_EQ(reported, up.total);
    EXPECT_EQ(up.total,
              layer_weight_bytes(m.source, 0) + m.source.find("rope_freqs.weight")->bytes());
    EXPECT_GE(calls, 9);  // every tensor of blk.0, and the rope factors
    // Layer 0 is in the accelerator's own memory, layer 1 in the CPU's view of the file.
    EXPECT_NE(w->layers[0].wq.buffer, w->buffers.front().get());
    EXPECT_EQ(w->layers[1].wq.buffer, w->buffers.front().get());
    // A cancelled upload fails and keeps nothing.
    up.on_tensor = [](uint64_t, uint64_t) { return false; };
    auto cancelled = bind_weights(m.params, m.source, pl, up);
    ASSERT_FALSE(cancelled.is_ok());
    EXPECT_EQ(cancelled.error_message(), "loading cancelled");
}

// A device that runs everything the reference device runs except Q8_0 matrices.
class NoQ8Device final : public backend::Device {
public:
    NoQ8Device() : ref_(backend::make_ref_device()) {}
    std::string name() const override { return "noq8"; }
    std::string description() const override { return "reference ops without Q8_0"; }
    backend::MemoryInfo memory() const override { return {uint64_t(1) << 30, uint64_t(1) << 30}; }
    bool supports(const backend::Node& n) const override {
        return !(n.op == backend::Op::MatMul && n.src[0].type == DType::Q8_0);
    }
    Result<std::unique_ptr<backend::Buffer>> allocate(size_t b) override {
        return ref_->allocate(b);
    }
    Result<std::unique_ptr<backend::Buffer>> import_host(std::span<const std::byte> b) override {
        return ref_->import_host(b);
    }
    Result<std::unique_ptr<backend::Stream>> create_stream(
        const backend::StreamOptions& o) override {
        return ref_->create_stream(o);
    }

private:
    std::unique_ptr<backend::Device> ref_;
};

TEST(Split, SupportsDecidesPlacement) {
    auto cpu = backend::make_cpu_device();
    NoQ8Device dev;
    const auto f32 = make_synthetic(Arch::Llama, quant::Type::F32, 3);
    const auto all = plan_placement(f32.params, f32.source, *cpu, &dev, {kGpuLayersAll, 64});
    EXPECT_EQ(all.n_accel, 2);
    EXPECT_TRUE(all.output_on_accel);
    EXPECT_TRUE(all.notes.empty());
    const auto q8 = make_synthetic(Arch::Llama, quant::Type::Q8_0, 3);
    const auto plan = plan_placement(q8.params, q8.source, *cpu, &dev, {kGpuLayersAll, 64});
    EXPECT_EQ(plan.n_accel, 0);
    EXPECT_FALSE(plan.output_on_accel);
    ASSERT_EQ(plan.notes.size(), 1u);
    EXPECT_EQ(plan.notes[0],
              "layers 0-1 stay on the cpu: noq8 cannot run mat_mul with Q8_0 weights (blk.0)");
}

TEST(Split, AutomaticLayerCountFollowsDeviceMemory) {
    HEARTH_REQUIRE_SHARED(path, "models/stories260K.gguf");
    auto file = gguf::GgufFile::open(path);
    ASSERT_TRUE(file.is_ok());
    auto params = load_supported_config(**file);
    ASSERT_TRUE(params.is_ok());
    const auto src = TensorSource::from_gguf(**file);
    const int64_t n_ctx = 256;
    // A fake device memory with room for exactly three layers after the margin and buffers.
    const uint64_t margin = uint64_t(16) << 20;  // 5% of under 320 MiB is less than 16 MiB
    const uint64_t per_layer =
        layer_weight_bytes(src, 0) + kv_layer_bytes(*params, n_ctx, DType::F16);
    const uint64_t mem = margin + compute_bytes(*params, 256) + 3 * per_layer + per_layer / 2;
    ScopedEnv env("HEARTH_REF_MEMORY", std::to_string(mem));
    auto cpu = backend::make_cpu_device();
    auto ref = ref_plugin_device();
    ASSERT_TRUE(ref);
    EXPECT_EQ(ref->memory().free_bytes, mem);
    const auto plan = plan_placement(*params, src, *cpu, ref.get(), {kGpuLayersAuto, n_ctx});
    EXPECT_EQ(plan.n_accel, 3);
    EXPECT_FALSE(plan.output_on_accel);
    ASSERT_FALSE(plan.notes.empty());
    EXPECT_EQ(plan.notes.back().substr(0, 22), "3 of 5 layers fit in r");
    // An explicit count overrides the memory; the whole model through the engine API.
    LoadOptions lo;
    lo.backend = "ref";
    lo.n_ctx = n_ctx;
    auto model = Model::load(path, lo);
    ASSERT_TRUE(model.is_ok()) << model.error_message();
    EXPECT_EQ((*model)->info().gpu_layers, 3);
    EXPECT_EQ((*model)->info().accel_device, "ref");
    lo.gpu_layers = kGpuLayersAll;
    auto every = Model::load(path, lo);
    ASSERT_TRUE(every.is_ok()) << every.error_message();
    EXPECT_EQ((*every)->info().gpu_layers, 5);
    EXPECT_TRUE((*every)->info().output_on_accel);
}

GenerateOptions greedy(int32_t n) {
    GenerateOptions o;
    o.max_tokens = n;
    o.sampling.temperature = 0;
    o.stop_at_end_of_generation = false;
    return o;
}

struct Generated {
    std::vector<int32_t> tokens;
    std::vector<float> prompt_logits;
};

Generated generate(const std::filesystem::path& path, const LoadOptions& lo) {
    auto model = Model::load(path, lo);
    EXPECT_TRUE(model.is_ok()) << (model ? "" : model.error_message());
    if (!model) return {};
    auto ctx = Context::create(*model, {.n_ctx = 256, .kv_type = KvType::F32, .n_threads = 2});
    EXPECT_TRUE(ctx.is_ok());
    EXPECT_TRUE((*ctx)->feed_text("Once upon a time").is_ok());
    Generated g;
    g.prompt_logits.assign((*ctx)->logits().begin(), (*ctx)->logits().end());
    auto res = (*ctx)->generate(greedy(40));
    EXPECT_TRUE(res.is_ok());
    if (res) g.tokens = res->tokens;
    return g;
}

TEST(Split, Stories260kEverySplitPointMatchesTheCpu) {
    HEARTH_REQUIRE_SHARED(path, "models/stories260K.gguf");
    LoadOptions cpu_opt;
    cpu_opt.backend = "cpu";
    const Generated base = generate(path, cpu_opt);
    ASSERT_EQ(base.tokens.size(), 40u);
    for (int64_t n = 0; n <= 6; ++n) {  // 6: more than the 5 layers, i.e. all + output
        SCOPED_TRACE("gpu layers " + std::to_string(n));
        LoadOptions lo;
        lo.backend = "ref";
        lo.gpu_layers = n == 6 ? kGpuLayersAll : n;
        const Generated g = generate(path, lo);
        EXPECT_EQ(g.tokens, base.tokens);
        ASSERT_EQ(g.prompt_logits.size(), base.prompt_logits.size());
        EXPECT_LT(rel_diff(g.prompt_logits, base.prompt_logits), 1e-4);
    }
}

TEST(Split, SessionReusesItsCacheAcrossTurns) {
    HEARTH_REQUIRE_SHARED(path, "models/stories260K.gguf");
    auto chat = [&](const std::string& backend) {
        LoadOptions lo;
        lo.backend = backend;
        lo.gpu_layers = 3;
        auto model = Model::load(path, lo);
        EXPECT_TRUE(model.is_ok()) << (model ? "" : model.error_message());
        auto store = KvStore::create(*model, {.kv_type = KvType::F32, .n_ctx = 256});
        EXPECT_TRUE(store.is_ok());
        auto s = Session::create(*store, {.n_threads = 2});
        EXPECT_TRUE(s.is_ok());
        auto t1 = *(*model)->tokenize("Once upon a time", true, false);
        EXPECT_TRUE((*s)->prefill(t1).is_ok());
        auto r1 = (*s)->generate(greedy(16));
        EXPECT_TRUE(r1.is_ok());
        std::vector<int32_t> all = t1;
        all.insert(all.end(), r1->tokens.begin(), r1->tokens.end());
        auto t2 = *(*model)->tokenize(" The cat", false, false);
        all.insert(all.end(), t2.begin(), t2.end());
        auto rep = (*s)->prefill(all);
        EXPECT_TRUE(rep.is_ok());
        EXPECT_GE(rep->n_reused, int64_t(t1.size()));  // the first turn is not recomputed
        auto r2 = (*s)->generate(greedy(16));
        EXPECT_TRUE(r2.is_ok());
        std::vector<int32_t> out = r1->tokens;
        out.insert(out.end(), r2->tokens.begin(), r2->tokens.end());
        return out;
    };
    const auto cpu = chat("cpu");
    ASSERT_EQ(cpu.size(), 32u);
    EXPECT_EQ(chat("ref"), cpu);
}

TEST(Split, CancelDuringUploadLeavesNothingLoaded) {
    HEARTH_REQUIRE_SHARED(path, "models/stories260K.gguf");
    std::atomic<bool> cancel{false};
    int uploads = 0;
    LoadOptions lo;
    lo.backend = "ref";
    lo.gpu_layers = kGpuLayersAll;
    lo.cancel = &cancel;
    lo.on_progress = [&](const LoadProgress& p) {
        if (p.phase == "uploading" && ++uploads == 3) cancel.store(true);
    };
    auto model = Model::load(path, lo);
    ASSERT_FALSE(model.is_ok());
    EXPECT_NE(model.error_message().find("cancelled"), std::string::npos) << model.error_message();
    EXPECT_EQ(uploads, 3);
    cancel.store(false);
    lo.on_progress = nullptr;
    EXPECT_TRUE(Model::load(path, lo).is_ok());  // a later load of the same file works
}

TEST(FitCheck, ModelLargerThanAvailableMemoryIsRefusedUnlessForced) {
    HEARTH_REQUIRE_SHARED(path, "models/stories260K.gguf");
    ScopedEnv env("HEARTH_HOST_MEMORY_AVAILABLE", "500000");  // 0.5 MB: less than the weights
    LoadOptions lo;
    lo.backend = "cpu";
    lo.n_ctx = 512;
    lo.ctx_beyond_training = true;  // the estimate for all 512 positions
    auto refused = Model::load(path, lo);
    ASSERT_FALSE(refused.is_ok());
    const std::string& msg = refused.error_message();
    // KV cache: 2 (K, V) x 512 positions x 32 (kv width) x 2 bytes (F16) x 5 layers.
    EXPECT_NE(msg.find("the model needs 2.3 MB on the cpu (weights 1.2 MB, KV cache 327.7 KB, "
                       "compute "),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("500.0 KB available; try INT4 weights or a shorter context"),
              std::string::npos)
        << msg;
    // Without the override the context is clamped to the 128 training positions, and so is
    // the estimate: a quarter of the KV cache.
    lo.ctx_beyond_training = false;
    auto clamped = Model::load(path, lo);
    ASSERT_FALSE(clamped.is_ok());
    EXPECT_NE(clamped.error_message().find("(weights 1.2 MB, KV cache 81.9 KB, compute "),
              std::string::npos)
        << clamped.error_message();
    lo.force = true;
    EXPECT_TRUE(Model::load(path, lo).is_ok());
}

TEST(FitCheck, AcceleratorMemoryIsCheckedForAnExplicitLayerCount) {
    HEARTH_REQUIRE_SHARED(path, "models/stories260K.gguf");
    ScopedEnv env("HEARTH_REF_MEMORY", "100000");
    LoadOptions lo;
    lo.backend = "ref";
    lo.gpu_layers = kGpuLayersAll;
    auto refused = Model::load(path, lo);
    ASSERT_FALSE(refused.is_ok());
    EXPECT_NE(refused.error_message().find("on the ref"), std::string::npos)
        << refused.error_message();
    lo.gpu_layers = kGpuLayersAuto;  // automatic: nothing fits, everything on the CPU
    auto fallback = Model::load(path, lo);
    ASSERT_TRUE(fallback.is_ok()) << fallback.error_message();
    EXPECT_EQ((*fallback)->info().gpu_layers, 0);
}

TEST(Context, ZeroMeansTheTrainingContext) {
    HEARTH_REQUIRE_SHARED(path, "models/stories260K.gguf");
    auto model = Model::load(path);
    ASSERT_TRUE(model.is_ok());
    auto ctx = Context::create(*model, {.n_ctx = 0, .n_threads = 1});
    ASSERT_TRUE(ctx.is_ok());
    EXPECT_EQ((*ctx)->n_ctx(), (*model)->info().n_ctx_train);
    EXPECT_EQ((*ctx)->n_ctx(), 128);
    auto store = KvStore::create(*model, {});
    ASSERT_TRUE(store.is_ok());
    EXPECT_EQ((*store)->n_ctx(), 128);
}

TEST(Context, LengthResolution) {
    EXPECT_EQ(resolve_context_length(0, 128, false).n_ctx, 128);  // 0: the training context
    EXPECT_TRUE(resolve_context_length(0, 128, false).note.empty());
    EXPECT_EQ(resolve_context_length(0, 0, false).n_ctx, 4096);  // the file does not say
    EXPECT_EQ(resolve_context_length(100, 128, false).n_ctx, 100);
    EXPECT_TRUE(resolve_context_length(128, 128, false).note.empty());
    EXPECT_EQ(resolve_context_length(512, 0, false).n_ctx, 512);  // nothing to clamp to
    const ContextLength clamped = resolve_context_length(2048, 128, false);
    EXPECT_EQ(clamped.n_ctx, 128);
    EXPECT_TRUE(clamped.clamped);
    EXPECT_EQ(clamped.note,
              "context 2048 is longer than the 128 tokens this model was trained on; using 128");
    const ContextLength kept = resolve_context_length(2048, 128, true);
    EXPECT_EQ(kept.n_ctx, 2048);
    EXPECT_TRUE(kept.beyond_training);
    EXPECT_FALSE(kept.clamped);
    EXPECT_NE(kept.note.find("may lose coherence"), std::string::npos) << kept.note;
}

// An explicit context longer than the training context (stories260K: 128) is clamped for
// Context, KvStore and Scheduler alike, and the load plans (fit check) and reports that;
// ctx_beyond_training keeps what was asked for.
TEST(Context, LongerThanTrainingIsClampedUnlessAllowed) {
    HEARTH_REQUIRE_SHARED(path, "models/stories260K.gguf");
    LoadOptions lo;
    lo.n_ctx = 512;
    auto model = Model::load(path, lo);
    ASSERT_TRUE(model.is_ok());
    const ModelInfo& info = (*model)->info();
    EXPECT_EQ(info.n_ctx, 128);
    EXPECT_NE(info.context_note.find("using 128"), std::string::npos) << info.context_note;
    auto ctx = Context::create(*model, {.n_ctx = 512, .n_threads = 1});
    ASSERT_TRUE(ctx.is_ok());
    EXPECT_EQ((*ctx)->n_ctx(), 128);
    auto store = KvStore::create(*model, {.n_ctx = 2048});
    ASSERT_TRUE(store.is_ok());
    EXPECT_EQ((*store)->n_ctx(), 128);
    auto sched = Scheduler::create(*model, {.n_ctx = 300});
    ASSERT_TRUE(sched.is_ok()) << sched.error_message();
    EXPECT_EQ((*sched)->n_ctx(), 128);
    auto zero = Scheduler::create(*model, {});  // 0: the training context, as everywhere
    ASSERT_TRUE(zero.is_ok());
    EXPECT_EQ((*zero)->n_ctx(), 128);

    lo.ctx_beyond_training = true;
    auto beyond = Model::load(path, lo);
    ASSERT_TRUE(beyond.is_ok());
    EXPECT_EQ((*beyond)->info().n_ctx, 512);
    EXPECT_NE((*beyond)->info().context_note.find("may lose coherence"), std::string::npos);
    auto long_ctx = Context::create(*beyond, {.n_ctx = 512, .n_threads = 1});
    ASSERT_TRUE(long_ctx.is_ok());
    EXPECT_EQ((*long_ctx)->n_ctx(), 512);
    auto long_store = KvStore::create(*beyond, {.n_ctx = 2048});
    ASSERT_TRUE(long_store.is_ok());
    EXPECT_EQ((*long_store)->n_ctx(), 2048);
    auto within = Context::create(*beyond, {.n_ctx = 0, .n_threads = 1});
    ASSERT_TRUE(within.is_ok());
    EXPECT_EQ((*within)->n_ctx(), 128);  // 0 is still the training context
}

// A model with Qwen2's 152k vocabulary and tiny layers, all weights zero except the norms.
SyntheticModel wide_vocab_model() {
    SyntheticModel m;
    ModelConfig& p = m.params;
    p.arch = Arch::Llama;
    p.arch_name = "llama";
    p.n_vocab = 152064;
    p.n_embd = 32;
    p.n_layer = 1;
    p.n_head = 2;
    p.n_head_kv = 1;
    p.head_dim = p.head_dim_v = 16;
    p.n_ff = 64;
    p.n_ctx_train = 128;
    p.rope.n_rot = 16;
    struct T {
        std::string name;
        int64_t a, b;
    };
    const int64_t E = p.n_embd, Q = p.q_width(), KV = p.kv_width(), F = p.n_ff;
    const std::vector<T> ts = {{"token_embd.weight", E, p.n_vocab}, {"output_norm.weight", E, 1},
                               {"blk.0.attn_norm.weight", E, 1},    {"blk.0.attn_q.weight", E, Q},
                               {"blk.0.attn_k.weight", E, KV},      {"blk.0.attn_v.weight", E, KV},
                               {"blk.0.attn_output.weight", Q, E},  {"blk.0.ffn_norm.weight", E, 1},
                               {"blk.0.ffn_gate.weight", E, F},     {"blk.0.ffn_up.weight", E, F},
                               {"blk.0.ffn_down.weight", F, E}};
    size_t off = 0;
    for (const auto& t : ts) {
        TensorSource::Entry e;
        e.name = t.name;
        e.type = quant::Type::F32;
        e.ne[0] = t.a;
        e.ne[1] = t.b;
        e.offset = off;
        off += e.bytes();
        m.source.tensors.push_back(e);
    }
    m.blob.resize(off);
    m.source.bytes = m.blob;
    return m;
}

TEST(ForwardMemory, DecodeOfA152kVocabularyAllocatesOneLogitsRow) {
    const auto m = wide_vocab_model();
    auto cpu = backend::make_cpu_device();
    auto w = bind_weights(m.params, m.source, *cpu);
    ASSERT_TRUE(w.is_ok()) << w.error_message();
    auto kv = KvCache::create(*cpu, m.params, 64, DType::F16);
    ASSERT_TRUE(kv.is_ok());
    auto fw = Forward::create(*cpu, m.params, *w, 64, 256, 1);
    ASSERT_TRUE(fw.is_ok()) << fw.error_message();
    const size_t row = 152064 * sizeof(float);
    EXPECT_EQ((*fw)->logits_bytes(), row);  // not max_batch (256) rows
    const std::vector<int32_t> prompt = {1, 2, 3, 4, 5, 6};
    auto out = (*fw)->step(prompt, **kv);  // a prefill samples its last row only
    ASSERT_TRUE(out.is_ok());
    EXPECT_EQ(out->size(), 152064u);
    EXPECT_EQ((*fw)->logits_bytes(), row);
    const int32_t next = 7;
    ASSERT_TRUE((*fw)->step(std::span(&next, 1), **kv).is_ok());
    EXPECT_EQ((*fw)->logits_bytes(), row);
    // Every row's logits (a speculative verification of 3 tokens): 16 rows, not 256.
    const std::vector<int32_t> verify = {8, 9, 10};
    auto all = (*fw)->step(verify, **kv, true);
    ASSERT_TRUE(all.is_ok()) << all.error_message();
    EXPECT_EQ(all->size(), 3 * 152064u);
    EXPECT_EQ((*fw)->logits_bytes(), 16 * row);
    const std::vector<int32_t> longer(20, 11);  // 20 rows: 32
    ASSERT_TRUE((*fw)->step(longer, **kv, true).is_ok());
    EXPECT_EQ((*fw)->logits_bytes(), 32 * row);
    ASSERT_TRUE((*fw)->step(verify, **kv, true).is_ok());  // never shrinks
    EXPECT_EQ((*fw)->logits_bytes(), 32 * row);
}

// Greedy sampling on the device: a decode step of the 152k-vocabulary model reads back one
// int32 and no logits row; a sampling step still reads its row.
TEST(ForwardMemory, GreedyDecodeReadsBackOneTokenIdAndNoLogits) {
    const auto m = wide_vocab_model();
    auto cpu = backend::make_cpu_device();
    auto w = bind_weights(m.params, m.source, *cpu);
    ASSERT_TRUE(w.is_ok()) << w.error_message();
    auto kv = KvCache::create(*cpu, m.params, 64, DType::F16);
    ASSERT_TRUE(kv.is_ok());
    auto fw = Forward::create(*cpu, m.params, *w, 64, 256, 1);
    ASSERT_TRUE(fw.is_ok()) << fw.error_message();
    const std::vector<int32_t> prompt = {1, 2, 3, 4, 5, 6};
    ASSERT_TRUE((*fw)->step(prompt, **kv).is_ok());
    EXPECT_EQ((*fw)->read_back().logits_rows, 1u);
    const int32_t next = 7;
    auto picked = (*fw)->step_argmax(std::span(&next, 1), **kv);
    ASSERT_TRUE(picked.is_ok()) << picked.error_message();
    EXPECT_EQ(*picked, 0);  // all-zero weights: every logit is 0, the first index wins
    EXPECT_EQ((*fw)->read_back().logits_rows, 1u);  // unchanged: no row came back
    EXPECT_EQ((*fw)->read_back().token_ids, 1u);
    EXPECT_EQ((*fw)->logits_bytes(), 152064 * sizeof(float));
    ASSERT_TRUE((*fw)->step(std::span(&next, 1), **kv).is_ok());  // a sampling step
    EXPECT_EQ((*fw)->read_back().logits_rows, 2u);
    EXPECT_EQ((*fw)->read_back().token_ids, 1u);
}

// step_batch with a greedy sequence, a sampling one and one still in its prompt: the greedy
// one gets the index of its largest logit (what the host would pick from the row), the sampling
// one its row, and only one row and one id come back.
TEST(ForwardMemory, BatchReadsBackRowsOnlyForSamplingSequences) {
    const auto m = make_synthetic(Arch::Llama, quant::Type::F32, 11);
    auto cpu = backend::make_cpu_device();
    auto w = bind_weights(m.params, m.source, *cpu);
    ASSERT_TRUE(w.is_ok()) << w.error_message();
    const size_t V = static_cast<size_t>(m.params.n_vocab);
    // Three sequences of 32 positions in one cache: blocks {0,1}, {2,3}, {4,5}.
    auto run = [&](bool greedy_a, std::vector<float>& logits_a, std::vector<float>& logits_b,
                   int32_t& token_a, ReadBackCounts& counts) {
        auto kv = KvCache::create(*cpu, m.params, 96, DType::F32);
        ASSERT_TRUE(kv.is_ok());
        auto fw = Forward::create(*cpu, m.params, *w, 96, 16, 2);
        ASSERT_TRUE(fw.is_ok());
        const std::vector<int32_t> ta = {0, 1}, tb = {2, 3}, tc = {4, 5};
        const std::vector<int32_t> pa = {1, 17, 299, 42}, pb = {5, 128, 0}, pc = {250, 77, 3, 9};
        std::vector<BatchSeq> prefill = {{pa, ta, 0, true}, {pb, tb, 0, true}, {pc, tc, 0, false}};
        auto p =
            (*fw)->step_batch(prefill, (*kv)->k_all(), (*kv)->v_all(), KvCache::kBlockSize, 32);
        ASSERT_TRUE(p.is_ok()) << p.error_message();
        ASSERT_EQ(p->logits.size(), 2 * V);
        const int32_t da = 7, db = 8;
        const std::vector<int32_t> pc2 = {11, 12};
        std::vector<BatchSeq> decode = {{std::span(&da, 1), ta, 4, true, greedy_a},
                                        {std::span(&db, 1), tb, 3, true, false},
                                        {pc2, tc, 4, false}};
        const ReadBackCounts before = (*fw)->read_back();
        auto d = (*fw)->step_batch(decode, (*kv)->k_all(), (*kv)->v_all(), KvCache::kBlockSize, 32);
        ASSERT_TRUE(d.is_ok()) << d.error_message();
        counts.logits_rows = (*fw)->read_back().logits_rows - before.logits_rows;
        counts.token_ids = (*fw)->read_back().token_ids - before.token_ids;
        if (greedy_a) {
            ASSERT_EQ(d->logits.size(), V);
            ASSERT_EQ(d->tokens.size(), 1u);
            token_a = d->tokens[0];
            logits_b.assign(d->logits.begin(), d->logits.end());
        } else {
            ASSERT_EQ(d->logits.size(), 2 * V);
            EXPECT_TRUE(d->tokens.empty());
            logits_a.assign(d->logits.begin(), d->logits.begin() + std::ptrdiff_t(V));
            logits_b.assign(d->logits.begin() + std::ptrdiff_t(V), d->logits.end());
        }
    };
    std::vector<float> host_a, host_b, unused, dev_b;
    int32_t token = -1, none = -1;
    ReadBackCounts sampled, greedy;
    run(false, host_a, host_b, none, sampled);
    run(true, unused, dev_b, token, greedy);
    EXPECT_EQ(sampled.logits_rows, 2u);
    EXPECT_EQ(sampled.token_ids, 0u);
    EXPECT_EQ(greedy.logits_rows, 1u);
    EXPECT_EQ(greedy.token_ids, 1u);
    ASSERT_EQ(host_a.size(), V);
    const auto best = std::max_element(host_a.begin(), host_a.end()) - host_a.begin();
    EXPECT_EQ(token, static_cast<int32_t>(best));
    EXPECT_LT(rel_diff(dev_b, host_b), 1e-6);
}

}  // namespace
}  // namespace hearth::runtime::test
