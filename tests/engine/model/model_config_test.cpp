// ModelConfig from metadata and tensor-set validation: a real model, and files broken on purpose.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"
#include "model/model_config.h"
#include "test_data.h"

namespace hearth::model {
namespace {

TEST(ModelConfig, Stories260K) {
    HEARTH_REQUIRE_SHARED(path, "models/stories260K.gguf");
    auto f = gguf::GgufFile::open(path);
    ASSERT_TRUE(f.is_ok()) << f.error_message();
    auto c = load_model_config(**f);
    ASSERT_TRUE(c.is_ok()) << c.error_message();
    // Figures from ../shared/models/README.md.
    EXPECT_EQ(c->arch, Arch::Llama);
    EXPECT_EQ(c->n_embd, 64u);
    EXPECT_EQ(c->n_layer, 5u);
    EXPECT_EQ(c->n_head, 8u);
    EXPECT_EQ(c->n_head_kv, 4u);
    EXPECT_EQ(c->n_ff, 172u);
    EXPECT_EQ(c->n_vocab, 512u);
    EXPECT_EQ(c->n_ctx_train, 128u);
    EXPECT_EQ(c->head_dim, 8u);
    EXPECT_EQ(c->rope.n_rot, 8u);
    EXPECT_EQ(c->rope.freq_base, 10000.0f);  // no key: the default
    EXPECT_EQ(c->rope.mode, RopeMode::Adjacent);
    EXPECT_EQ(c->rope.freq_scale, 1.0f);
    EXPECT_FALSE(c->tied_embeddings);
    EXPECT_FALSE(c->has_qkv_bias);
    EXPECT_TRUE(c->rope_freq_factors.empty());
    EXPECT_GT(c->rms_eps, 0.0f);
}

// A tiny llama/qwen2 file whose metadata and tensor list a test may change before writing.
struct TinyModel {
    std::string arch = "llama";
    std::map<std::string, std::function<void(gguf::GgufWriter&, const std::string&)>> keys;
    std::vector<std::pair<std::string, std::vector<uint64_t>>> tensors;

    TinyModel(std::string a = "llama", bool bias = false) : arch(std::move(a)) {
        const std::string p = arch + ".";
        auto u32 = [](uint32_t v) {
            return [v](gguf::GgufWriter& w, const std::string& k) { w.set_u32(k, v); };
        };
        keys["general.architecture"] = [this](gguf::GgufWriter& w, const std::string& k) {
            w.set_string(k, arch);
        };
        keys[p + "context_length"] = u32(256);
        keys[p + "embedding_length"] = u32(64);
        keys[p + "block_count"] = u32(2);
        keys[p + "feed_forward_length"] = u32(96);
        keys[p + "attention.head_count"] = u32(4);
        keys[p + "attention.head_count_kv"] = u32(2);
        keys[p + "vocab_size"] = u32(40);
        keys[p + "attention.layer_norm_rms_epsilon"] =
            [](gguf::GgufWriter& w, const std::string& k) { w.set_f32(k, 1e-6f); };
        tensors = {{"token_embd.weight", {64, 40}}, {"output_norm.weight", {64}}};
        for (int i = 0; i < 2; ++i) {
            const std::string b = "blk." + std::to_string(i) + ".";
            tensors.push_back({b + "attn_norm.weight", {64}});
            tensors.push_back({b + "attn_q.weight", {64, 64}});
            tensors.push_back({b + "attn_k.weight", {64, 32}});
            tensors.push_back({b + "attn_v.weight", {64, 32}});
            tensors.push_back({b + "attn_output.weight", {64, 64}});
            tensors.push_back({b + "ffn_norm.weight", {64}});
            tensors.push_back({b + "ffn_gate.weight", {64, 96}});
            tensors.push_back({b + "ffn_up.weight", {64, 96}});
            tensors.push_back({b + "ffn_down.weight", {96, 64}});
            if (bias) {
                tensors.push_back({b + "attn_q.bias", {64}});
                tensors.push_back({b + "attn_k.bias", {32}});
                tensors.push_back({b + "attn_v.bias", {32}});
            }
        }
    }
    void remove_tensor(const std::string& name) {
        std::erase_if(tensors, [&](const auto& t) { return t.first == name; });
    }
    void set_shape(const std::string& name, std::vector<uint64_t> ne) {
        for (auto& t : tensors)
            if (t.first == name) t.second = std::move(ne);
    }

    // Writes the file and returns load_model_config's result (config_from_metadata's with
    // metadata_only: the tensors are not checked).
    Result<ModelConfig> load(bool metadata_only = false) {
        test::TempDir dir;
        gguf::GgufWriter w;
        for (const auto& [k, fn] : keys) fn(w, k);
        for (const auto& [name, ne] : tensors)
            EXPECT_TRUE(w.add_tensor(name, quant::Type::F32, ne).is_ok()) << name;
        const auto path = dir.path() / "m.gguf";
        EXPECT_TRUE(w.begin(path).is_ok());
        for (size_t i = 0; i < w.tensor_count(); ++i)
            EXPECT_TRUE(w.write_tensor_data(std::vector<std::byte>(w.tensor_nbytes(i))).is_ok());
        EXPECT_TRUE(w.finish().is_ok());
        auto f = gguf::GgufFile::open(path);
        if (!f) return f.status();
        return metadata_only ? config_from_metadata(**f) : load_model_config(**f);
    }
};

void expect_error(TinyModel& m, const std::string& message) {
    auto c = m.load();
    ASSERT_FALSE(c.is_ok()) << "expected: " << message;
    EXPECT_EQ(c.error_message(), message);
}

TEST(ModelConfig, TinyLlamaAndQwen2Load) {
    TinyModel llama;
    auto c = llama.load();
    ASSERT_TRUE(c.is_ok()) << c.error_message();
    EXPECT_TRUE(c->tied_embeddings);
    EXPECT_EQ(c->head_dim, 16u);
    EXPECT_EQ(c->kv_width(), 32u);
    EXPECT_EQ(c->rms_eps, 1e-6f);
    EXPECT_EQ(c->family, "llama");

    TinyModel qwen("qwen2", true);
    qwen.tensors.push_back({"output.weight", {64, 40}});
    auto q = qwen.load();
    ASSERT_TRUE(q.is_ok()) << q.error_message();
    EXPECT_EQ(q->arch, Arch::Qwen2);
    EXPECT_EQ(q->rope.mode, RopeMode::RotateHalf);
    EXPECT_TRUE(q->has_qkv_bias);
    EXPECT_FALSE(q->tied_embeddings);
    EXPECT_EQ(q->family, "qwen2");
}

TEST(ModelConfig, FamilyFromNameAndVocabulary) {
    const std::pair<const char*, const char*> cases[] = {
        {"TinyLlama 1.1B Chat v1.0", "tinyllama"},
        {"Mistral 7B Instruct v0.2", "mistral"},
        {"SmolLM2 360M Instruct", "smollm"},
        {"Some Llama", "llama"},
    };
    for (const auto& [name, family] : cases) {
        TinyModel m;
        m.keys["general.name"] = [n = std::string(name)](gguf::GgufWriter& w,
                                                         const std::string& k) {
            w.set_string(k, n);
        };
        auto c = m.load();
        ASSERT_TRUE(c.is_ok()) << c.error_message();
        EXPECT_EQ(c->family, family) << name;
        EXPECT_EQ(c->name, name);
    }
    TinyModel l3;
    l3.keys["tokenizer.ggml.pre"] = [](gguf::GgufWriter& w, const std::string& k) {
        w.set_string(k, "llama-bpe");
    };
    auto c = l3.load();
    ASSERT_TRUE(c.is_ok()) << c.error_message();
    EXPECT_EQ(c->family, "llama3");
}

TEST(ModelConfig, UnsupportedArchitecture) {
    TinyModel m("falcon");
    expect_error(m,
                 "architecture 'falcon' is not supported yet (supported: llama, qwen2, qwen3, "
                 "qwen3moe, gemma2, gemma3, phi3)");
    TinyModel none;
    none.keys.erase("general.architecture");
    expect_error(none, "general.architecture is missing: not a model file");
}

// Gemma's query scale: 1/sqrt(head_dim), except the 27B models (46 or 62 layers), which use
// 1/sqrt(n_embd / n_head); an attention.scale key wins over both.
TEST(ModelConfig, GemmaQueryScale) {
    for (auto [arch, layers, want] : {std::tuple<const char*, uint32_t, float>{"gemma2", 2, 0.f},
                                      {"gemma2", 46, 0.25f},
                                      {"gemma3", 46, 0.f},
                                      {"gemma3", 62, 0.25f},
                                      {"qwen3", 62, 0.f}}) {
        SCOPED_TRACE(std::string(arch) + " " + std::to_string(layers));
        TinyModel m(arch);
        const std::string p = std::string(arch) + ".";
        m.keys[p + "block_count"] = [layers](gguf::GgufWriter& w, const std::string& k) {
            w.set_u32(k, layers);
        };
        m.keys[p + "attention.key_length"] = [](gguf::GgufWriter& w, const std::string& k) {
            w.set_u32(k, 32);  // 64 wide / 4 heads = 16: the 27B rule gives 1/sqrt(16)
        };
        auto c = m.load(/*metadata_only=*/true);
        ASSERT_TRUE(c.is_ok()) << c.error_message();
        EXPECT_EQ(c->attn_scale, want);
        m.keys[p + "attention.scale"] = [](gguf::GgufWriter& w, const std::string& k) {
            w.set_f32(k, 0.125f);
        };
        c = m.load(true);
        ASSERT_TRUE(c.is_ok());
        EXPECT_EQ(c->attn_scale, 0.125f);
    }
}

TEST(ModelConfig, ExpertKeysAndTensors) {
    TinyModel m("qwen3moe");
    expect_error(m, "qwen3moe without qwen3moe.expert_count");
    auto u32 = [](uint32_t v) {
        return [v](gguf::GgufWriter& w, const std::string& k) { w.set_u32(k, v); };
    };
    m.keys["qwen3moe.expert_count"] = u32(4);
    m.keys["qwen3moe.expert_used_count"] = u32(5);
    expect_error(m, "qwen3moe.expert_used_count must be between 1 and expert_count (4)");
    m.keys["qwen3moe.expert_used_count"] = u32(2);
    m.keys["qwen3moe.expert_feed_forward_length"] = u32(48);
    // The dense FFN tensors are no part of it; the expert tensors are required.
    expect_error(m, "blk.0.attn_q_norm.weight: missing (expected shape [16])");
    for (int i = 0; i < 2; ++i) {
        const std::string b = "blk." + std::to_string(i) + ".";
        m.tensors.push_back({b + "attn_q_norm.weight", {16}});
        m.tensors.push_back({b + "attn_k_norm.weight", {16}});
    }
    expect_error(m, "blk.0.ffn_gate_inp.weight: missing (expected shape [64, 4])");
    for (int i = 0; i < 2; ++i) {
        const std::string b = "blk." + std::to_string(i) + ".";
        for (const char* t : {"ffn_gate.weight", "ffn_up.weight", "ffn_down.weight"})
            m.remove_tensor(b + t);
        m.tensors.push_back({b + "ffn_gate_inp.weight", {64, 4}});
        m.tensors.push_back({b + "ffn_gate_exps.weight", {64, 48, 4}});
        m.tensors.push_back({b + "ffn_up_exps.weight", {64, 48, 4}});
        m.tensors.push_back({b + "ffn_down_exps.weight", {48, 64, 3}});
    }
    expect_error(m, "blk.0.ffn_down_exps.weight: expected [48, 64, 4], file has [48, 64, 3]");
    for (int i = 0; i < 2; ++i)
        m.set_shape("blk." + std::to_string(i) + ".ffn_down_exps.weight", {48, 64, 4});
    auto c = m.load();
    ASSERT_TRUE(c.is_ok()) << c.error_message();
    EXPECT_EQ(c->n_expert, 4u);
    EXPECT_EQ(c->n_ff_exp, 48u);
    // Experts on an architecture that has none in llama.cpp are refused.
    TinyModel q("qwen2");
    q.keys["qwen2.expert_count"] = u32(4);
    expect_error(q,
                 "qwen2.expert_count is set, but experts are supported only for llama and "
                 "qwen3moe");
}

TEST(ModelConfig, StrictKeyTypes) {
    TinyModel m;
    m.keys["llama.embedding_length"] = [](gguf::GgufWriter& w, const std::string& k) {
        w.set_u64(k, 64);
    };
    expect_error(m, "key 'llama.embedding_length' has wrong type UINT64, expected UINT32");
    TinyModel f;
    f.keys["llama.rope.freq_base"] = [](gguf::GgufWriter& w, const std::string& k) {
        w.set_f64(k, 10000.0);
    };
    expect_error(f, "key 'llama.rope.freq_base' has wrong type FLOAT64, expected FLOAT32");
    TinyModel a;
    a.keys["general.architecture"] = [](gguf::GgufWriter& w, const std::string& k) {
        w.set_u32(k, 1);
    };
    expect_error(a, "key 'general.architecture' has wrong type UINT32, expected STRING");
}

TEST(ModelConfig, PerLayerArrays) {
    TinyModel m;
    m.keys["llama.attention.head_count_kv"] = [](gguf::GgufWriter& w, const std::string& k) {
        const uint32_t v[] = {2, 2};
        w.set_array(k, std::span<const uint32_t>(v));
    };
    auto c = m.load();
    ASSERT_TRUE(c.is_ok()) << c.error_message();
    EXPECT_EQ(c->n_head_kv, 2u);
    m.keys["llama.attention.head_count_kv"] = [](gguf::GgufWriter& w, const std::string& k) {
        const uint32_t v[] = {2, 4};
        w.set_array(k, std::span<const uint32_t>(v));
    };
    expect_error(m,
                 "key 'llama.attention.head_count_kv' differs between layers; per-layer sizes "
                 "are not supported yet");
}

TEST(ModelConfig, MissingAndInconsistentKeys) {
    TinyModel eps;
    eps.keys.erase("llama.attention.layer_norm_rms_epsilon");
    expect_error(eps, "required key 'llama.attention.layer_norm_rms_epsilon' is missing");
    TinyModel kv;
    kv.keys["llama.attention.head_count_kv"] = [](gguf::GgufWriter& w, const std::string& k) {
        w.set_u32(k, 3);
    };
    expect_error(kv, "attention.head_count 4 is not a multiple of attention.head_count_kv 3");
    TinyModel rot;
    rot.keys["llama.rope.dimension_count"] = [](gguf::GgufWriter& w, const std::string& k) {
        w.set_u32(k, 8);
    };
    expect_error(rot,
                 "invalid n_rot: llama.rope.dimension_count is 8 but the head dimension is 16");
    TinyModel layers;
    layers.keys["llama.block_count"] = [](gguf::GgufWriter& w, const std::string& k) {
        w.set_u32(k, 0);
    };
    expect_error(layers, "llama.block_count is 0");
}

TEST(ModelConfig, RopeScalingKeys) {
    TinyModel m;
    m.keys["llama.rope.scaling.type"] = [](gguf::GgufWriter& w, const std::string& k) {
        w.set_string(k, "linear");
    };
    m.keys["llama.rope.scaling.factor"] = [](gguf::GgufWriter& w, const std::string& k) {
        w.set_f32(k, 4.0f);
    };
    auto c = m.load();
    ASSERT_TRUE(c.is_ok()) << c.error_message();
    EXPECT_EQ(c->rope_scaling, RopeScaling::Linear);
    EXPECT_EQ(c->rope.freq_scale, 0.25f);
    EXPECT_EQ(c->rope_orig_ctx, 256u);
    m.keys["llama.rope.scaling.type"] = [](gguf::GgufWriter& w, const std::string& k) {
        w.set_string(k, "wobbly");
    };
    expect_error(m, "unknown llama.rope.scaling.type 'wobbly'");
}

TEST(ModelConfig, TensorSetMessages) {
    TinyModel shape;
    shape.set_shape("blk.1.attn_q.weight", {64, 32});
    expect_error(shape, "blk.1.attn_q.weight: expected [64, 64], file has [64, 32]");
    TinyModel missing;
    missing.remove_tensor("blk.1.ffn_up.weight");
    expect_error(missing, "blk.1.ffn_up.weight: missing (expected shape [64, 96])");
    TinyModel extra;
    extra.tensors.push_back({"blk.7.attn_q.weight", {64, 64}});
    expect_error(extra,
                 "unexpected tensor 'blk.7.attn_q.weight' [64, 64]: not part of this architecture");
    TinyModel bias("qwen2", true);
    bias.remove_tensor("blk.1.attn_k.bias");
    expect_error(bias, "blk.1.attn_q/k/v.bias: some but not all are present");
    TinyModel half("qwen2", true);
    for (const char* n : {"blk.1.attn_q.bias", "blk.1.attn_k.bias", "blk.1.attn_v.bias"})
        half.remove_tensor(n);
    expect_error(half, "attn_q/k/v.bias are present in some layers but not in others");
    TinyModel out;
    out.tensors.push_back({"output.weight", {64, 41}});
    expect_error(out, "output.weight: expected [64, 40], file has [64, 41]");
    TinyModel rf;
    rf.tensors.push_back({"rope_freqs.weight", {16}});
    expect_error(rf, "rope_freqs.weight: expected [8], file has [16]");
}

// block_count is untrusted: before the layer loop stopped at its first error and the count was
// checked against the tensors, a claim of 2^32 - 1 layers ran billions of name lookups (the
// model_file fuzzer's 37-second unit); both now end at once with a message about the count.
TEST(ModelConfig, HugeBlockCountFailsFast) {
    auto layers = [](uint32_t n) {
        return [n](gguf::GgufWriter& w, const std::string& k) { w.set_u32(k, n); };
    };
    TinyModel huge;
    huge.keys["llama.block_count"] = layers(0xFFFFFFFFu);
    expect_error(huge, "block_count 4294967295 is more layers than the file has tensors (20)");
    // Fewer layers than tensors, but more than the file holds: the first missing one is named.
    TinyModel more;
    more.keys["llama.block_count"] = layers(19);
    expect_error(more, "blk.2.attn_norm.weight: missing (expected shape [64])");
}

}  // namespace
}  // namespace hearth::model
