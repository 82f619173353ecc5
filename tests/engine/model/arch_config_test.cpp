// The family switches, expert counts and parameter counts read from the tiny models of
// ../shared/models/archs (figures from its README), and tensor sets broken on purpose.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "gguf/gguf_file.h"
#include "model/model_config.h"
#include "model/model_stats.h"
#include "test_data.h"

namespace hearth::model {
namespace {

ModelConfig load(const std::string& name, const gguf::GgufFile** keep = nullptr) {
    static std::map<std::string, std::unique_ptr<gguf::GgufFile>> files;
    auto path = hearth::test::shared_file("models/archs/" + name + ".gguf");
    EXPECT_TRUE(path.has_value());
    if (!path) return {};
    auto f = gguf::GgufFile::open(*path);
    EXPECT_TRUE(f.is_ok());
    if (!f) return {};
    auto c = load_model_config(**f);
    EXPECT_TRUE(c.is_ok()) << c.error_message();
    files[name] = std::move(f.value());
    if (keep) *keep = files[name].get();
    return c ? *c : ModelConfig{};
}

TEST(ArchConfig, FamilySwitchesFromTheFiles) {
    HEARTH_REQUIRE_SHARED(dir, "models/archs/qwen3.gguf");
    const ModelConfig q = load("qwen3");
    EXPECT_EQ(q.arch, Arch::Qwen3);
    EXPECT_TRUE(q.qk_norm);
    EXPECT_EQ(q.head_dim, 32u);
    EXPECT_TRUE(q.tied_embeddings);
    EXPECT_EQ(q.rope.mode, RopeMode::RotateHalf);

    const ModelConfig g2 = load("gemma2");
    EXPECT_TRUE(g2.post_norms && g2.gelu_ffn && g2.embd_scale && !g2.qk_norm);
    EXPECT_EQ(g2.attn_softcap, 5.0f);
    EXPECT_EQ(g2.final_softcap, 8.0f);
    EXPECT_EQ(g2.n_swa, 16u);
    EXPECT_EQ(g2.swa_period, 2u);

    const ModelConfig g3 = load("gemma3");
    EXPECT_TRUE(g3.qk_norm && g3.post_norms);
    EXPECT_EQ(g3.attn_softcap, 0.0f);
    EXPECT_EQ(g3.swa_period, 6u);
    EXPECT_EQ(g3.rope.freq_base, 1e6f);
    EXPECT_EQ(g3.rope_swa.freq_base, 10000.0f);
    EXPECT_EQ(g3.rope.freq_scale, 0.125f);

    const ModelConfig p = load("phi3");
    EXPECT_TRUE(p.fused_qkv && p.fused_gate_up);
    EXPECT_EQ(p.rope.n_rot, 12);
    EXPECT_EQ(p.rope_long_factors.size(), 6u);
    EXPECT_EQ(p.rope_short_factors.size(), 6u);
    EXPECT_NEAR(p.rope.attn_factor, 1.2247449f, 1e-6f);
    EXPECT_EQ(p.rope_orig_ctx, 256u);
    EXPECT_EQ(p.swa_period, 0u);  // phi3's sliding_window key is ignored, as in llama.cpp

    const ModelConfig m = load("qwen3moe");
    EXPECT_EQ(m.n_expert, 4u);
    EXPECT_EQ(m.n_expert_used, 2u);
    EXPECT_EQ(m.n_ff_exp, 64u);  // expert_feed_forward_length, not feed_forward_length (192)

    const ModelConfig l = load("llama-moe");
    EXPECT_EQ(l.arch, Arch::Llama);
    EXPECT_EQ(l.n_expert, 4u);
    EXPECT_EQ(l.n_ff_exp, 96u);  // llama: the expert width is feed_forward_length
}

// Parameter counts from the config equal the tensors in the file (README's table), and MoE
// models count only the used experts as active.
TEST(ArchConfig, ParameterCounts) {
    HEARTH_REQUIRE_SHARED(dir, "models/archs/qwen3.gguf");
    const struct {
        const char* name;
        uint64_t params;
    } cases[] = {{"qwen3", 217728},  {"qwen3moe", 213952}, {"gemma2", 230464},
                 {"gemma3", 292800}, {"phi3", 176588},     {"llama-moe", 238400}};
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        const gguf::GgufFile* f = nullptr;
        const ModelConfig cfg = load(c.name, &f);
        ASSERT_TRUE(f);
        EXPECT_EQ(parameter_count(*f), c.params);
        EXPECT_EQ(parameter_count(cfg), c.params);
        if (cfg.n_expert == 0) {
            EXPECT_EQ(active_parameter_count(cfg), c.params);
        } else {
            // Two of four experts' gate, up and down per layer are inactive.
            const uint64_t idle =
                static_cast<uint64_t>(cfg.n_layer * (cfg.n_expert - cfg.n_expert_used)) * 3 *
                cfg.n_embd * cfg.n_ff_exp;
            EXPECT_EQ(active_parameter_count(cfg), c.params - idle);
        }
    }
}

}  // namespace
}  // namespace hearth::model
