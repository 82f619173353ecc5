// Synthetic models: shapes, types, reproducibility, and values checked against references.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "gguf/gguf_file.h"
#include "model/model_config.h"
#include "model/model_stats.h"
#include "model/synthetic_model.h"
#include "quant/quant_ref.h"
#include "test_data.h"

namespace hearth::model {
namespace {

std::vector<float> dequant(const gguf::TensorInfo& t) {
    std::vector<float> out(t.n_elements());
    EXPECT_TRUE(quant::dequantize(t.type, t.data, out).is_ok());
    return out;
}

struct Made {
    test::TempDir dir;
    std::unique_ptr<gguf::GgufFile> file;
    ModelConfig config;
};

std::unique_ptr<Made> make(const std::string& shape, WeightType type, const std::string& vocab,
                           uint64_t seed = 1, unsigned threads = 2) {
    auto m = std::make_unique<Made>();
    auto v = test::shared_file(vocab);
    if (!v) return nullptr;
    SyntheticSpec spec{shape, type, seed, threads};
    const auto path = m->dir.path() / "m.gguf";
    Status s = write_synthetic_model(spec, *v, path);
    EXPECT_TRUE(s.is_ok()) << s.message();
    if (!s) return nullptr;
    auto f = gguf::GgufFile::open(path);
    EXPECT_TRUE(f.is_ok()) << f.error_message();
    m->file = std::move(f.value());
    auto c = load_model_config(*m->file);
    EXPECT_TRUE(c.is_ok()) << c.error_message();
    m->config = c.value();
    return m;
}

// stories260K carries a 512-token SentencePiece vocabulary: small models, fast tests.
const std::string kSmallVocab = "models/stories260K.gguf";

#define MAKE_OR_SKIP(var, ...)                                   \
    auto var = make(__VA_ARGS__);                                \
    if (!var) {                                                  \
        if (HasFailure()) return;                                \
        GTEST_SKIP() << "reference data not found in ../shared"; \
    }

TEST(SyntheticModel, NormalRngIsStandardNormalAndPinned) {
    NormalRng rng(42);
    double sum = 0, sq = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
        const double x = rng.next();
        sum += x;
        sq += x * x;
    }
    EXPECT_NEAR(sum / n, 0.0, 0.01);
    EXPECT_NEAR(std::sqrt(sq / n), 1.0, 0.01);
    // The stream must be the same on every platform. These values come from an independent
    // Python model (MT19937-64 + the polar Box-Muller with math.log), printed with %.17g.
    NormalRng a(7);
    EXPECT_EQ(a.next(), -0.97256287765187455);
    EXPECT_EQ(a.next(), 0.87269516693547422);
    EXPECT_EQ(a.next(), 1.4551781605998848);
}

TEST(SyntheticModel, TinyLlamaF32) {
    MAKE_OR_SKIP(m, "tiny-llama", WeightType::F32, kSmallVocab);
    const ModelConfig& c = m->config;
    EXPECT_EQ(c.arch, Arch::Llama);
    EXPECT_EQ(c.n_embd, 64u);
    EXPECT_EQ(c.n_layer, 2u);
    EXPECT_EQ(c.n_head, 4u);
    EXPECT_EQ(c.n_head_kv, 2u);
    EXPECT_EQ(c.n_ff, 160u);
    EXPECT_EQ(c.n_vocab, 512u);  // the vocab file's size
    EXPECT_FALSE(c.tied_embeddings);
    EXPECT_EQ(parameter_count(c), parameter_count(*m->file));
    EXPECT_EQ(m->file->get_u64("general.file_type"), 0u);
    EXPECT_EQ(m->file->find("general.quantization_version"), nullptr);
    // Tokenizer copied.
    EXPECT_EQ(m->file->get_string("tokenizer.ggml.model"), "llama");
    EXPECT_EQ(m->file->find("tokenizer.ggml.tokens")->string_at(1), "<s>");
    // Norms are exactly 1, weights look like N(0, 0.02).
    for (const auto& t : m->file->tensors()) {
        const auto v = dequant(t);
        if (t.n_dims == 1) {
            for (float x : v) ASSERT_EQ(x, 1.0f) << t.name;
            continue;
        }
        double sum = 0, sq = 0;
        for (float x : v) {
            sum += x;
            sq += double(x) * x;
        }
        EXPECT_NEAR(sum / v.size(), 0.0, 0.002) << t.name;
        EXPECT_NEAR(std::sqrt(sq / v.size()), 0.02, 0.001) << t.name;
    }
}

TEST(SyntheticModel, ReproducibleAcrossThreadCountsAndSeeds) {
    MAKE_OR_SKIP(a, "tiny-llama", WeightType::Q8_0, kSmallVocab, 5, 1);
    MAKE_OR_SKIP(b, "tiny-llama", WeightType::Q8_0, kSmallVocab, 5, 3);
    MAKE_OR_SKIP(c, "tiny-llama", WeightType::Q8_0, kSmallVocab, 6, 2);
    const auto x = a->file->bytes(), y = b->file->bytes(), z = c->file->bytes();
    EXPECT_TRUE(std::equal(x.begin(), x.end(), y.begin(), y.end()));
    EXPECT_FALSE(std::equal(x.begin(), x.end(), z.begin(), z.end()));
}

TEST(SyntheticModel, QuantizedValuesMatchTheF32Model) {
    // The random values do not depend on the type: a Q8_0 model decodes close to the F32 one.
    MAKE_OR_SKIP(f, "tiny-llama", WeightType::F32, kSmallVocab, 3);
    MAKE_OR_SKIP(q, "tiny-llama", WeightType::Q8_0, kSmallVocab, 3);
    const auto* tf = f->file->find_tensor("blk.1.ffn_down.weight");
    const auto* tq = q->file->find_tensor("blk.1.ffn_down.weight");
    ASSERT_EQ(tq->type, quant::Type::Q8_0);
    const auto vf = dequant(*tf), vq = dequant(*tq);
    double max_err = 0;
    for (size_t i = 0; i < vf.size(); ++i)
        max_err = std::max(max_err, double(std::fabs(vf[i] - vq[i])));
    EXPECT_GT(max_err, 0.0);
    EXPECT_LT(max_err, 0.0012);  // half a Q8_0 step for |x| <= ~0.1
}

TEST(SyntheticModel, Bf16KeepsTheF32ValuesToBf16Rounding) {
    MAKE_OR_SKIP(f, "tiny-llama", WeightType::F32, kSmallVocab, 3);
    MAKE_OR_SKIP(b, "tiny-llama", WeightType::BF16, kSmallVocab, 3);
    EXPECT_EQ(b->file->get_u64("general.file_type"), 32u);  // LLAMA_FTYPE_MOSTLY_BF16
    EXPECT_EQ(b->file->find_tensor("blk.0.attn_norm.weight")->type, quant::Type::F32);
    const auto* tf = f->file->find_tensor("blk.1.ffn_down.weight");
    const auto* tb = b->file->find_tensor("blk.1.ffn_down.weight");
    ASSERT_EQ(tb->type, quant::Type::BF16);
    const auto vf = dequant(*tf), vb = dequant(*tb);
    size_t changed = 0;
    for (size_t i = 0; i < vf.size(); ++i) {
        // Round to nearest: within half a unit of BF16's 8-bit significand.
        ASSERT_LE(std::fabs(vf[i] - vb[i]), std::ldexp(std::fabs(vf[i]), -8)) << i;
        changed += vf[i] != vb[i];
    }
    EXPECT_GT(changed, vf.size() / 2);
}

TEST(SyntheticModel, TinyQwen2HasBiasesAndTiedEmbeddings) {
    MAKE_OR_SKIP(m, "tiny-qwen2", WeightType::F16, "testdata/vocab/ggml-vocab-qwen2.gguf");
    const ModelConfig& c = m->config;
    EXPECT_EQ(c.arch, Arch::Qwen2);
    EXPECT_EQ(c.rope.mode, RopeMode::RotateHalf);
    EXPECT_TRUE(c.has_qkv_bias);
    EXPECT_TRUE(c.tied_embeddings);
    EXPECT_EQ(c.rope.freq_base, 1000000.0f);
    EXPECT_EQ(c.n_vocab, 151936u);
    EXPECT_EQ(m->file->find_tensor("output.weight"), nullptr);
    EXPECT_EQ(m->file->find_tensor("blk.0.attn_q.bias")->type, quant::Type::F32);
    EXPECT_EQ(m->file->find_tensor("blk.0.attn_q.weight")->type, quant::Type::F16);
    EXPECT_EQ(m->file->find("qwen2.context_length")->type(), gguf::ValueType::U32);
    EXPECT_EQ(m->file->find("qwen2.rope.freq_base")->type(), gguf::ValueType::F32);
    EXPECT_EQ(parameter_count(c), parameter_count(*m->file));
}

TEST(SyntheticModel, TinyLlama3RopeFreqsMatchFloat64Reference) {
    MAKE_OR_SKIP(m, "tiny-llama3", WeightType::F32, "testdata/vocab/ggml-vocab-llama-bpe.gguf");
    const ModelConfig& c = m->config;
    ASSERT_EQ(c.rope_freq_factors.size(), size_t(c.rope.n_rot / 2));
    EXPECT_TRUE(c.tied_embeddings);
    EXPECT_EQ(c.family, "llama3");
    // Llama 3.1 scaling, written out independently: factor 32, low 1, high 4, original 8192.
    for (int32_t i = 0; i < c.rope.n_rot / 2; ++i) {
        const double freq = std::pow(500000.0, -2.0 * i / c.rope.n_rot);
        const double wavelen = 2 * M_PI / freq;
        double expect;
        if (wavelen < 8192.0 / 4)
            expect = 1;
        else if (wavelen > 8192.0 / 1)
            expect = 32;
        else {
            const double smooth = (8192.0 / wavelen - 1) / (4 - 1);
            expect = 1 / ((1 - smooth) / 32 + smooth);
        }
        EXPECT_NEAR(c.rope_freq_factors[i], expect, 1e-6 * expect) << i;
    }
    EXPECT_EQ(c.rope_freq_factors.front(), 1.0f);
    EXPECT_EQ(c.rope_freq_factors.back(), 32.0f);
}

TEST(SyntheticModel, Llama3RopeFactorsForTheRealShapeHaveABlendRegion) {
    const auto f = llama3_rope_factors(64, 500000.0f);
    ASSERT_EQ(f.size(), 32u);
    int ones = 0, blends = 0, full = 0;
    for (float x : f) {
        if (x == 1.0f)
            ++ones;
        else if (x == 32.0f)
            ++full;
        else
            ++blends;
    }
    EXPECT_GT(ones, 0);
    EXPECT_GT(blends, 0);
    EXPECT_GT(full, 0);
    for (size_t i = 1; i < f.size(); ++i) EXPECT_GE(f[i], f[i - 1]);
}

// The 8B-class GPU benchmark shape (scripts/gpu-check.sh): Llama 3.1 8B's widths.
TEST(SyntheticModel, Llama3_8bShape) {
    const SyntheticShape* s = find_synthetic_shape("llama3-8b");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->arch, Arch::Llama);
    EXPECT_EQ(s->n_embd, 4096u);
    EXPECT_EQ(s->n_layer, 32u);
    EXPECT_EQ(s->n_head, 32u);
    EXPECT_EQ(s->n_head_kv, 8u);
    EXPECT_EQ(s->n_ff, 14336u);
    EXPECT_EQ(s->n_vocab, 128256u);
    EXPECT_FALSE(s->tied);
    EXPECT_TRUE(s->llama3_rope);
}

TEST(SyntheticModel, Q4KMMix) {
    MAKE_OR_SKIP(m, "small-llama", WeightType::Q4_K_M, kSmallVocab);
    auto type = [&](const char* n) { return m->file->find_tensor(n)->type; };
    EXPECT_EQ(type("output.weight"), quant::Type::Q6_K);
    EXPECT_EQ(type("token_embd.weight"), quant::Type::Q4_K);
    EXPECT_EQ(type("blk.0.attn_v.weight"), quant::Type::Q6_K);
    EXPECT_EQ(type("blk.1.attn_v.weight"), quant::Type::Q4_K);
    EXPECT_EQ(type("blk.0.ffn_down.weight"), quant::Type::Q6_K);
    EXPECT_EQ(type("blk.1.ffn_down.weight"), quant::Type::Q4_K);
    EXPECT_EQ(type("blk.0.attn_q.weight"), quant::Type::Q4_K);
    EXPECT_EQ(type("blk.0.attn_norm.weight"), quant::Type::F32);
    EXPECT_EQ(m->file->get_u64("general.file_type"), 15u);
    EXPECT_EQ(m->file->get_u64("general.quantization_version"), 2u);
}

TEST(SyntheticModel, TensorTypeRules) {
    EXPECT_EQ(tensor_type_for(WeightType::Q4_K, "blk.0.attn_q.weight", 896, false),
              quant::Type::Q5_0);  // 896 is not a multiple of 256
    EXPECT_EQ(tensor_type_for(WeightType::Q6_K, "blk.0.attn_q.weight", 64, false),
              quant::Type::Q8_0);
    EXPECT_EQ(tensor_type_for(WeightType::Q4_K_M, "token_embd.weight", 256, true),
              quant::Type::Q6_K);  // tied: the embedding is the output
    EXPECT_EQ(tensor_type_for(WeightType::Q4_0, "x", 48, false), quant::Type::F16);
    EXPECT_EQ(weight_type_from_name("q4_k_m"), WeightType::Q4_K_M);
    EXPECT_EQ(weight_type_from_name("bf16"), WeightType::BF16);
    EXPECT_EQ(weight_type_from_name("q5_k"), std::nullopt);
}

TEST(SyntheticModel, PadsTheVocabularyToTheShape) {
    MAKE_OR_SKIP(m, "tiny-llama-1k", WeightType::F32, kSmallVocab);
    EXPECT_EQ(m->config.n_vocab, 1024u);
    const auto* tokens = m->file->find("tokenizer.ggml.tokens");
    const auto* types = m->file->find("tokenizer.ggml.token_type");
    const auto* scores = m->file->find("tokenizer.ggml.scores");
    ASSERT_EQ(tokens->array_size(), 1024u);
    ASSERT_EQ(types->array_size(), 1024u);
    ASSERT_EQ(scores->array_size(), 1024u);
    EXPECT_EQ(tokens->string_at(1), "<s>");
    EXPECT_EQ(tokens->string_at(512), "[PAD512]");
    EXPECT_EQ(tokens->string_at(1023), "[PAD1023]");
    EXPECT_EQ(types->int_at(1), 3);    // control, copied
    EXPECT_EQ(types->int_at(700), 5);  // unused
    EXPECT_EQ(scores->float_at(700), 0.0);
    EXPECT_EQ(m->file->find_tensor("token_embd.weight")->ne[1], 1024u);
}

TEST(SyntheticModel, Errors) {
    HEARTH_REQUIRE_SHARED(spm, "testdata/vocab/ggml-vocab-llama-spm.gguf");
    HEARTH_REQUIRE_SHARED(qwen, "testdata/vocab/ggml-vocab-qwen2.gguf");
    test::TempDir dir;
    Status s = write_synthetic_model({"nope", WeightType::F32, 1, 1}, spm, dir.path() / "x.gguf");
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("unknown shape 'nope' (known: tinyllama-1.1b"), std::string::npos);
    // 151936 tokens do not fit TinyLlama's 32000 rows.
    s = write_synthetic_model({"tinyllama-1.1b", WeightType::F32, 1, 1}, qwen,
                              dir.path() / "x.gguf");
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("use ggml-vocab-llama-spm.gguf"), std::string::npos) << s.message();
    s = write_synthetic_model({"tiny-llama", WeightType::F32, 1, 1}, dir.path() / "missing.gguf",
                              dir.path() / "x.gguf");
    EXPECT_FALSE(s.is_ok());
    // The copying construction needs heads of 64 and room for five slots of codes.
    s = write_synthetic_model({"tiny-llama", WeightType::F32, 1, 1, true}, spm,
                              dir.path() / "x.gguf");
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("copying weights need heads of 64 (shape 'tiny-llama')"),
              std::string::npos)
        << s.message();
    s = write_synthetic_model({"qwen2.5-0.5b", WeightType::F32, 1, 1, true}, qwen,
                              dir.path() / "x.gguf");
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("a llama shape with its own output head"), std::string::npos)
        << s.message();
}

// The copying construction's file: its RoPE base, and the values its comment promises.
TEST(SyntheticModel, CopyingWeightsLayout) {
    HEARTH_REQUIRE_SHARED(vocab, "models/stories260K.gguf");
    test::TempDir dir;
    SyntheticSpec spec{"copy-llama", WeightType::F32, 1, 1, true};
    ASSERT_TRUE(write_synthetic_model(spec, vocab, dir.path() / "c.gguf").is_ok());
    auto f = gguf::GgufFile::open(dir.path() / "c.gguf");
    ASSERT_TRUE(f.is_ok());
    auto c = load_model_config(**f);
    ASSERT_TRUE(c.is_ok()) << c.error_message();
    EXPECT_EQ(c->rope.freq_base, 1e20f);
    const auto embd = dequant(*(*f)->find_tensor("token_embd.weight"));
    // Row 7: a unit code in slot A (dims 0-63), the bias column (320) 1, the rest 0.
    double n2 = 0;
    for (size_t i = 0; i < 64; ++i) n2 += double(embd[7 * 384 + i]) * embd[7 * 384 + i];
    EXPECT_NEAR(n2, 1.0, 1e-5);
    EXPECT_EQ(embd[7 * 384 + 320], 1.0f);
    for (size_t i = 64; i < 384; ++i) {
        if (i == 320) continue;
        EXPECT_EQ(embd[7 * 384 + i], 0.0f) << i;
    }
    // The output head reads the same code from slot C (dims 256-319), scaled.
    const auto out = dequant(*(*f)->find_tensor("output.weight"));
    for (size_t i = 0; i < 64; ++i)
        EXPECT_FLOAT_EQ(out[7 * 384 + 256 + i], 30.0f * embd[7 * 384 + i]);
    // Layers from 4 on would be zero; with 4 layers, every FFN is.
    for (const char* t : {"blk.0.ffn_down.weight", "blk.3.ffn_gate.weight"})
        for (float v : dequant(*(*f)->find_tensor(t))) {
            ASSERT_EQ(v, 0.0f) << t;
        }
}

}  // namespace
}  // namespace hearth::model
