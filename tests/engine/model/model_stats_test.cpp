// Parameter counts against the published sizes of real models, and KV-cache sizes by hand.
#include <gtest/gtest.h>

#include "model/model_config.h"
#include "model/model_stats.h"

namespace hearth::model {
namespace {

ModelConfig config(uint32_t embd, uint32_t layers, uint32_t heads, uint32_t kv, uint32_t ff,
                   uint32_t vocab, bool tied, bool bias) {
    ModelConfig c;
    c.n_embd = embd;
    c.n_layer = layers;
    c.n_head = heads;
    c.n_head_kv = kv;
    c.head_dim = c.head_dim_v = embd / heads;
    c.n_ff = ff;
    c.n_vocab = vocab;
    c.tied_embeddings = tied;
    c.has_qkv_bias = bias;
    c.n_ctx_train = 2048;
    return c;
}

TEST(ModelStats, ParameterCountsOfKnownModels) {
    // Published parameter counts (Hugging Face model cards / safetensors metadata).
    EXPECT_EQ(parameter_count(config(2048, 22, 32, 4, 5632, 32000, false, false)),
              1100048384u);  // TinyLlama-1.1B
    EXPECT_EQ(parameter_count(config(896, 24, 14, 2, 4864, 151936, true, true)),
              494032768u);  // Qwen2.5-0.5B
    EXPECT_EQ(parameter_count(config(2048, 16, 32, 8, 8192, 128256, true, false)),
              1235814400u);  // Llama-3.2-1B
}

TEST(ModelStats, KvCacheBytes) {
    const ModelConfig c = config(2048, 22, 32, 4, 5632, 32000, false, false);
    // K and V: 22 layers x 4 KV heads x 64 dims x 2, per token.
    const uint64_t elems = 2ull * 22 * 4 * 64 * 2048;
    EXPECT_EQ(kv_cache_bytes(c, 2048, KvType::F16), elems * 2);  // 44 MiB, as llama.cpp says
    EXPECT_EQ(kv_cache_bytes(c, 2048, KvType::F16), 44ull << 20);
    EXPECT_EQ(kv_cache_bytes(c, 2048, KvType::F32), elems * 4);
    EXPECT_EQ(kv_cache_bytes(c, 2048, KvType::Q8_0), elems / 32 * 34);
    EXPECT_EQ(kv_cache_bytes(c, 2048, KvType::Q4_0), elems / 32 * 18);
    const MemoryEstimate m = estimate_memory(c, 1000, 2048, KvType::F16);
    EXPECT_EQ(m.weights, 1000u);
    EXPECT_EQ(m.kv_cache, elems * 2);
    EXPECT_GT(m.compute, 0u);
    EXPECT_EQ(m.total(), m.weights + m.kv_cache + m.compute);
}

TEST(ModelStats, DefaultContextAndNames) {
    ModelConfig c = config(64, 1, 4, 2, 64, 10, false, false);
    c.n_ctx_train = 131072;
    EXPECT_EQ(default_context(c), 4096u);
    c.n_ctx_train = 512;
    EXPECT_EQ(default_context(c), 512u);
    EXPECT_EQ(kv_type_from_name("q8_0"), KvType::Q8_0);
    EXPECT_EQ(kv_type_from_name("F16"), KvType::F16);
    EXPECT_EQ(kv_type_from_name("q4_k"), std::nullopt);
}

}  // namespace
}  // namespace hearth::model
