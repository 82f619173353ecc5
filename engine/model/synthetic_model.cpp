// The synthetic-model generator: plans the tensors of a shape, writes metadata copied from a
// vocab GGUF, then generates, quantizes (on several threads) and streams each tensor.
#include "model/synthetic_model.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"
#include "model/copying_weights.h"
#include "quant/quant_ref.h"

// Keep a*b+c as two rounded operations so every compiler and CPU gives the same numbers (GCC
// and MSVC do not contract in standard C++ mode; clang needs telling).
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

namespace hearth::model {

namespace {

constexpr std::array kShapes = {
    SyntheticShape{"tinyllama-1.1b", Arch::Llama, 2048, 22, 32, 4, 5632, 32000, false, false,
                   10000.0f, false, 2048, 1e-5f, "ggml-vocab-llama-spm.gguf"},
    SyntheticShape{"qwen2.5-0.5b", Arch::Qwen2, 896, 24, 14, 2, 4864, 151936, true, true,
                   1000000.0f, false, 32768, 1e-6f, "ggml-vocab-qwen2.gguf"},
    SyntheticShape{"llama3.2-1b", Arch::Llama, 2048, 16, 32, 8, 8192, 128256, false, true,
                   500000.0f, true, 131072, 1e-5f, "ggml-vocab-llama-bpe.gguf"},
    // Llama 3.1 8B's shape (separate output head): the 8B-class GPU benchmark.
    SyntheticShape{"llama3-8b", Arch::Llama, 4096, 32, 32, 8, 14336, 128256, false, false,
                   500000.0f, true, 131072, 1e-5f, "ggml-vocab-llama-bpe.gguf"},
    SyntheticShape{"tiny-llama", Arch::Llama, 64, 2, 4, 2, 160, 0, false, false, 10000.0f, false,
                   512, 1e-5f, "ggml-vocab-llama-spm.gguf"},
    SyntheticShape{"tiny-qwen2", Arch::Qwen2, 64, 2, 4, 2, 160, 0, true, true, 1000000.0f, false,
                   512, 1e-6f, "ggml-vocab-qwen2.gguf"},
    SyntheticShape{"tiny-llama3", Arch::Llama, 64, 2, 4, 2, 160, 0, false, true, 500000.0f, true,
                   512, 1e-5f, "ggml-vocab-llama-bpe.gguf"},
    // 1024 vocabulary rows whatever the vocab file has: exercises token-array padding.
    SyntheticShape{"tiny-llama-1k", Arch::Llama, 64, 2, 4, 2, 160, 1024, false, false, 10000.0f,
                   false, 512, 1e-5f, "stories260K.gguf"},
    // The smallest shape the copying weights fit (make-model --weights copying): 5 slots of 64.
    SyntheticShape{"copy-llama", Arch::Llama, 384, 4, 6, 1, 128, 0, false, false, 10000.0f, false,
                   2048, 1e-5f, "stories260K.gguf"},
    // Rows of 256 so the K-quants apply without fallback.
    SyntheticShape{"small-llama", Arch::Llama, 256, 2, 4, 2, 512, 0, false, false, 10000.0f, false,
                   1024, 1e-5f, "ggml-vocab-llama-spm.gguf"},
    // Qwen3-0.6B (all 28 layers), Gemma 3 1B (all 26 layers; the vocabulary padded to Gemma's
    // 262144 rows) and the widths of Qwen3-30B-A3B (128 experts of 768, 8 used) with 2 of its
    // 48 layers so that it fits a small machine.
    SyntheticShape{"qwen3-0.6b", Arch::Qwen3, 1024, 28, 16, 8, 3072, 151936, false, true,
                   1000000.0f, false, 40960, 1e-6f, "ggml-vocab-qwen2.gguf", 128},
    SyntheticShape{"gemma3-1b", Arch::Gemma3, 1152, 26, 4, 1, 6912, 262144, false, true, 1000000.0f,
                   false, 32768, 1e-6f, "ggml-vocab-llama-spm.gguf", 256, 0, 0, 512},
    SyntheticShape{"qwen3-moe-small", Arch::Qwen3Moe, 2048, 2, 32, 4, 768, 151936, false, false,
                   1000000.0f, false, 40960, 1e-6f, "ggml-vocab-qwen2.gguf", 128, 128, 8},
};

constexpr uint64_t kChunkRows = 16;  // RNG stream granularity; fixed so output is reproducible

// Natural log from frexp (exact) and the atanh series, using only +, *, / (correctly rounded).
double portable_log(double x) {
    int e = 0;
    double m = std::frexp(x, &e);  // x = m * 2^e, m in [0.5, 1)
    if (m < 0.70710678118654752440) {
        m *= 2.0;
        e -= 1;
    }
    const double t = (m - 1.0) / (m + 1.0), t2 = t * t;  // |t| <= 0.172
    double term = t, sum = 0.0;
    for (int k = 1; k <= 25; k += 2) {
        sum += term / k;
        term *= t2;
    }
    return 2.0 * sum + e * 0.69314718055994530942;
}

enum class Fill { Normal, Ones, RopeFreqs, Copying };

struct Plan {
    std::string name;
    std::vector<uint64_t> ne;
    quant::Type type;
    Fill fill;
};

std::vector<Plan> plan_tensors(const SyntheticShape& s, uint32_t n_vocab, WeightType wt) {
    std::vector<Plan> p;
    const uint64_t E = s.n_embd, V = n_vocab, F = s.n_ff;
    const uint64_t hd = s.head_dim ? s.head_dim : s.n_embd / s.n_head;
    const bool qk_norm =
        s.arch == Arch::Qwen3 || s.arch == Arch::Qwen3Moe || s.arch == Arch::Gemma3;
    const bool post_norms = s.arch == Arch::Gemma2 || s.arch == Arch::Gemma3;
    const uint64_t q = s.n_head * hd, kv = s.n_head_kv * hd;
    auto add = [&](std::string name, std::vector<uint64_t> ne, Fill fill) {
        const quant::Type t =
            ne.size() == 1 ? quant::Type::F32 : tensor_type_for(wt, name, ne[0], s.tied);
        p.push_back({std::move(name), std::move(ne), t, fill});
    };
    if (s.llama3_rope) add("rope_freqs.weight", {hd / 2}, Fill::RopeFreqs);
    add("token_embd.weight", {E, V}, Fill::Normal);
    for (uint32_t i = 0; i < s.n_layer; ++i) {
        const std::string b = "blk." + std::to_string(i) + ".";
        add(b + "attn_norm.weight", {E}, Fill::Ones);
        add(b + "attn_q.weight", {E, q}, Fill::Normal);
        add(b + "attn_k.weight", {E, kv}, Fill::Normal);
        add(b + "attn_v.weight", {E, kv}, Fill::Normal);
        if (s.qkv_bias) {
            add(b + "attn_q.bias", {q}, Fill::Normal);
            add(b + "attn_k.bias", {kv}, Fill::Normal);
            add(b + "attn_v.bias", {kv}, Fill::Normal);
        }
        if (qk_norm) {
            add(b + "attn_q_norm.weight", {hd}, Fill::Ones);
            add(b + "attn_k_norm.weight", {hd}, Fill::Ones);
        }
        add(b + "attn_output.weight", {q, E}, Fill::Normal);
        if (post_norms) {
            add(b + "post_attention_norm.weight", {E}, Fill::Ones);
            add(b + "post_ffw_norm.weight", {E}, Fill::Ones);
        }
        add(b + "ffn_norm.weight", {E}, Fill::Ones);
        if (s.n_expert > 0) {
            const uint64_t X = s.n_expert;
            add(b + "ffn_gate_inp.weight", {E, X}, Fill::Normal);
            add(b + "ffn_gate_exps.weight", {E, F, X}, Fill::Normal);
            add(b + "ffn_up_exps.weight", {E, F, X}, Fill::Normal);
            add(b + "ffn_down_exps.weight", {F, E, X}, Fill::Normal);
            continue;
        }
        add(b + "ffn_gate.weight", {E, F}, Fill::Normal);
        add(b + "ffn_up.weight", {E, F}, Fill::Normal);
        add(b + "ffn_down.weight", {F, E}, Fill::Normal);
    }
    add("output_norm.weight", {E}, Fill::Ones);
    if (!s.tied) add("output.weight", {E, V}, Fill::Normal);
    return p;
}

// Fills and encodes chunks [c0, c1) of a tensor into dst (row bytes laid end to end); `shape`
// places Fill::Copying's values.
Status make_chunks(const Plan& t, const SyntheticShape& shape, uint64_t seed, uint64_t tensor_index,
                   uint64_t c0, uint64_t c1, uint64_t n_rows, std::byte* dst) {
    const uint64_t row = t.ne[0];
    const size_t row_bytes = quant::row_bytes(t.type, row);
    std::vector<float> buf;
    for (uint64_t c = c0; c < c1; ++c) {
        const uint64_t r0 = c * kChunkRows, r1 = std::min(n_rows, r0 + kChunkRows);
        buf.resize((r1 - r0) * row);
        if (t.fill == Fill::Copying) {
            fill_copying_rows(shape, t.name, seed, r0, r1, row, buf);
        } else if (t.fill == Fill::Ones) {
            std::fill(buf.begin(), buf.end(), 1.0f);
        } else {
            NormalRng rng(splitmix(seed ^ splitmix(tensor_index * 0x100000000ull + c)));
            for (auto& v : buf) v = static_cast<float>(0.02 * rng.next());
        }
        auto s = quant::quantize(
            t.type, buf,
            std::span<std::byte>(dst + (r0 - c0 * kChunkRows) * row_bytes, (r1 - r0) * row_bytes));
        if (!s) return s;
    }
    return Status::ok();
}

// Generates one tensor in batches; each batch is split across threads, then written in order.
Status stream_tensor(gguf::GgufWriter& w, const Plan& t, const SyntheticShape& shape, uint64_t seed,
                     uint64_t index, unsigned threads) {
    uint64_t n_rows = 1;
    for (size_t d = 1; d < t.ne.size(); ++d) n_rows *= t.ne[d];
    if (t.fill == Fill::RopeFreqs) {
        // Filled by the caller's config: never reached.
        return Status::error("internal: rope_freqs is written separately");
    }
    const uint64_t n_chunks = (n_rows + kChunkRows - 1) / kChunkRows;
    const uint64_t chunk_elems = kChunkRows * t.ne[0];
    // At most about 4M elements per thread per batch keeps memory small; a tensor smaller than
    // a batch is shared out evenly so that every thread has some of it.
    const unsigned n_threads = std::max(1u, threads);
    const uint64_t per_thread =
        std::clamp<uint64_t>((n_chunks + n_threads - 1) / n_threads, 1,
                             std::max<uint64_t>(1, (uint64_t{4} << 20) / chunk_elems));
    const uint64_t batch = per_thread * n_threads;
    const size_t row_bytes = quant::row_bytes(t.type, t.ne[0]);
    std::vector<std::byte> out;
    for (uint64_t b0 = 0; b0 < n_chunks; b0 += batch) {
        const uint64_t b1 = std::min(n_chunks, b0 + batch);
        const uint64_t rows = std::min(n_rows, b1 * kChunkRows) - b0 * kChunkRows;
        out.resize(rows * row_bytes);
        std::vector<Status> status(n_threads);
        std::vector<std::thread> pool;
        for (unsigned th = 0; th < n_threads; ++th) {
            const uint64_t c0 = std::min(b1, b0 + th * per_thread);
            const uint64_t c1 = std::min(b1, c0 + per_thread);
            if (c0 >= c1) break;
            std::byte* dst = out.data() + (c0 - b0) * kChunkRows * row_bytes;
            auto job = [&, th, c0, c1, dst] {
                status[th] = make_chunks(t, shape, seed, index, c0, c1, n_rows, dst);
            };
            if (th + 1 == n_threads || c1 == b1)
                job();
            else
                pool.emplace_back(job);
            if (c1 == b1) break;
        }
        for (auto& th : pool) th.join();
        for (const auto& s : status)
            if (!s) return s;
        if (auto s = w.write_tensor_data(out); !s) return s;
    }
    return Status::ok();
}

std::string upper(std::string_view s) {
    std::string r(s);
    for (auto& c : r) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return r;
}

}  // namespace

uint64_t splitmix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

int layer_of(std::string_view name) {
    if (name.rfind("blk.", 0) != 0) return -1;
    int n = 0;
    for (size_t i = 4; i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])); ++i) {
        if (n > 100000000) return -1;  // no real layer index; avoids int overflow
        n = n * 10 + (name[i] - '0');
    }
    return n;
}

NormalRng::NormalRng(uint64_t seed) : rng_(seed) {}

double NormalRng::next() {
    if (has_spare_) {
        has_spare_ = false;
        return spare_;
    }
    double u, v, s;
    do {
        u = static_cast<double>(rng_() >> 11) * 0x1.0p-53 * 2.0 - 1.0;
        v = static_cast<double>(rng_() >> 11) * 0x1.0p-53 * 2.0 - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double f = std::sqrt(-2.0 * portable_log(s) / s);
    spare_ = v * f;
    has_spare_ = true;
    return u * f;
}

std::span<const SyntheticShape> synthetic_shapes() {
    return kShapes;
}

const SyntheticShape* find_synthetic_shape(std::string_view name) {
    for (const auto& s : kShapes)
        if (s.name == name) return &s;
    return nullptr;
}

std::string_view weight_type_name(WeightType t) {
    switch (t) {
        case WeightType::F32:
            return "F32";
        case WeightType::F16:
            return "F16";
        case WeightType::BF16:
            return "BF16";
        case WeightType::Q8_0:
            return "Q8_0";
        case WeightType::Q4_0:
            return "Q4_0";
        case WeightType::Q4_K:
            return "Q4_K";
        case WeightType::Q6_K:
            return "Q6_K";
        case WeightType::Q4_K_M:
            return "Q4_K_M";
    }
    return "?";
}

std::optional<WeightType> weight_type_from_name(std::string_view name) {
    const std::string u = upper(name);
    for (auto t : {WeightType::F32, WeightType::F16, WeightType::BF16, WeightType::Q8_0,
                   WeightType::Q4_0, WeightType::Q4_K, WeightType::Q6_K, WeightType::Q4_K_M})
        if (weight_type_name(t) == u) return t;
    return std::nullopt;
}

uint32_t llama_file_type(WeightType t) {
    switch (t) {
        case WeightType::F32:
            return 0;
        case WeightType::F16:
            return 1;
        case WeightType::BF16:
            return 32;
        case WeightType::Q4_0:
            return 2;
        case WeightType::Q8_0:
            return 7;
        case WeightType::Q4_K:
            return 14;  // Q4_K_S: all Q4_K
        case WeightType::Q6_K:
            return 18;
        case WeightType::Q4_K_M:
            return 15;
    }
    return 0;
}

quant::Type tensor_type_for(WeightType wt, std::string_view name, uint64_t ne0, bool tied) {
    using quant::Type;
    Type t = Type::F32;
    switch (wt) {
        case WeightType::F32:
            t = Type::F32;
            break;
        case WeightType::F16:
            t = Type::F16;
            break;
        case WeightType::BF16:
            t = Type::BF16;
            break;
        case WeightType::Q8_0:
            t = Type::Q8_0;
            break;
        case WeightType::Q4_0:
            t = Type::Q4_0;
            break;
        case WeightType::Q4_K:
            t = Type::Q4_K;
            break;
        case WeightType::Q6_K:
            t = Type::Q6_K;
            break;
        case WeightType::Q4_K_M: {
            t = Type::Q4_K;
            const bool output = name == "output.weight" || (tied && name == "token_embd.weight");
            const int layer = layer_of(name);
            const bool more_bits = (name.find(".attn_v.") != std::string_view::npos ||
                                    name.find(".ffn_down.") != std::string_view::npos) &&
                                   layer % 2 == 0;
            if (output || more_bits) t = Type::Q6_K;
            break;
        }
    }
    const auto& tr = quant::traits(t);
    if (ne0 % tr.block_size != 0) {
        if (t == Type::Q4_K)
            t = Type::Q5_0;
        else if (t == Type::Q6_K)
            t = Type::Q8_0;
        if (ne0 % quant::traits(t).block_size != 0) t = Type::F16;
    }
    return t;
}

std::vector<float> llama3_rope_factors(uint32_t n_rot, float base, float factor,
                                       float low_freq_factor, float high_freq_factor,
                                       uint32_t orig_ctx) {
    const double pi = 3.14159265358979323846;
    const double low_wavelen = orig_ctx / low_freq_factor;
    const double high_wavelen = orig_ctx / high_freq_factor;
    std::vector<float> out(n_rot / 2);
    for (uint32_t i = 0; i < n_rot / 2; ++i) {
        const double freq = 1.0 / std::pow(static_cast<double>(base), 2.0 * i / n_rot);
        const double wavelen = 2.0 * pi / freq;
        double f;
        if (wavelen < high_wavelen) {
            f = 1.0;
        } else if (wavelen > low_wavelen) {
            f = factor;
        } else {
            const double smooth =
                (orig_ctx / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor);
            f = 1.0 / ((1.0 - smooth) / factor + smooth);
        }
        out[i] = static_cast<float>(f);
    }
    return out;
}

Status write_synthetic_model(const SyntheticSpec& spec, const std::filesystem::path& vocab_path,
                             const std::filesystem::path& out) {
    const SyntheticShape* shape = find_synthetic_shape(spec.shape);
    if (!shape) {
        std::string names;
        for (const auto& s : kShapes) names += (names.empty() ? "" : ", ") + std::string(s.name);
        return Status::error("unknown shape '" + spec.shape + "' (known: " + names + ")");
    }
    auto vocab = gguf::GgufFile::open(vocab_path);
    if (!vocab) return vocab.status();
    const gguf::Value* tokens = (*vocab)->find("tokenizer.ggml.tokens");
    if (!tokens || tokens->type() != gguf::ValueType::Array ||
        tokens->array_type() != gguf::ValueType::String)
        return Status::error("no tokenizer.ggml.tokens array in " + vocab_path.string());
    const uint64_t n_tokens = tokens->array_size();
    const uint64_t n_vocab = shape->n_vocab ? shape->n_vocab : n_tokens;
    if (n_tokens > n_vocab)
        return Status::error("shape '" + spec.shape + "' has " + std::to_string(n_vocab) +
                             " vocabulary rows but '" + vocab_path.filename().string() + "' has " +
                             std::to_string(n_tokens) + " tokens (use " +
                             std::string(shape->vocab_hint) + ")");
    if (n_vocab > UINT32_MAX) return Status::error("vocabulary too large");

    if (spec.copying)
        if (auto s = check_copying_shape(*shape); !s) return s;
    std::vector<Plan> plan = plan_tensors(*shape, static_cast<uint32_t>(n_vocab), spec.type);
    if (spec.copying)
        for (auto& t : plan) t.fill = Fill::Copying;
    for (const auto& t : plan)
        if (t.type != quant::Type::F32 && !quant::can_quantize(t.type))
            return Status::error("cannot encode " + t.name + " as " +
                                 std::string(quant::traits(t.type).name) + " (no quantizer)");

    gguf::GgufWriter w;
    const std::string a(arch_name(shape->arch));
    const uint32_t hd = shape->head_dim ? shape->head_dim : shape->n_embd / shape->n_head;
    w.set_string("general.architecture", a);
    w.set_string("general.name", "Hearth synthetic " + spec.shape +
                                     (spec.copying ? " copying " : " ") +
                                     std::string(weight_type_name(spec.type)));
    w.set_u32("general.file_type", llama_file_type(spec.type));
    const bool quantized = std::any_of(
        plan.begin(), plan.end(), [](const Plan& t) { return quant::traits(t.type).is_quantized; });
    if (quantized) w.set_u32("general.quantization_version", 2);
    w.set_u32(a + ".vocab_size", static_cast<uint32_t>(n_vocab));
    w.set_u32(a + ".context_length", shape->n_ctx);
    w.set_u32(a + ".embedding_length", shape->n_embd);
    w.set_u32(a + ".block_count", shape->n_layer);
    w.set_u32(a + ".feed_forward_length", shape->n_ff);
    w.set_u32(a + ".attention.head_count", shape->n_head);
    w.set_u32(a + ".attention.head_count_kv", shape->n_head_kv);
    w.set_u32(a + ".rope.dimension_count", hd);
    w.set_f32(a + ".rope.freq_base", spec.copying ? kCopyingRopeBase : shape->rope_base);
    w.set_f32(a + ".attention.layer_norm_rms_epsilon", shape->rms_eps);
    if (shape->head_dim) {
        w.set_u32(a + ".attention.key_length", shape->head_dim);
        w.set_u32(a + ".attention.value_length", shape->head_dim);
    }
    if (shape->n_expert) {
        w.set_u32(a + ".expert_count", shape->n_expert);
        w.set_u32(a + ".expert_used_count", shape->n_expert_used);
        w.set_u32(a + ".expert_feed_forward_length", shape->n_ff);
    }
    if (shape->n_swa) {
        w.set_u32(a + ".attention.sliding_window", shape->n_swa);
        w.set_f32(a + ".rope.freq_base_swa", 10000.0f);
    }

    // Tokenizer: every tokenizer.* key; token arrays padded as the HF converter pads them.
    const uint64_t pad = n_vocab - n_tokens;
    std::vector<std::string> pad_names;
    for (uint64_t i = 0; i < pad; ++i)
        pad_names.push_back("[PAD" + std::to_string(n_tokens + i) + "]");
    for (const auto& kv : (*vocab)->metadata()) {
        if (kv.key.rfind("tokenizer.", 0) != 0) continue;
        const gguf::Value& v = kv.value;
        if (pad == 0 || v.type() != gguf::ValueType::Array || v.array_size() != n_tokens) {
            w.copy_value(kv.key, v);
        } else if (v.array_type() == gguf::ValueType::String && kv.key == "tokenizer.ggml.tokens") {
            std::vector<std::string_view> all;
            all.reserve(n_vocab);
            for (uint64_t i = 0; i < n_tokens; ++i) all.push_back(v.string_at(i));
            for (const auto& p : pad_names) all.push_back(p);
            w.set_string_array(kv.key, std::span<const std::string_view>(all));
        } else if (v.array_type() == gguf::ValueType::I32) {
            std::vector<int32_t> all(n_vocab, 5);  // padding tokens are UNUSED (5)
            for (uint64_t i = 0; i < n_tokens; ++i) all[i] = static_cast<int32_t>(v.int_at(i));
            w.set_array(kv.key, std::span<const int32_t>(all));
        } else if (v.array_type() == gguf::ValueType::F32) {
            std::vector<float> all(n_vocab, 0.0f);
            for (uint64_t i = 0; i < n_tokens; ++i) all[i] = static_cast<float>(v.float_at(i));
            w.set_array(kv.key, std::span<const float>(all));
        } else {
            w.copy_value(kv.key, v);
        }
    }

    for (const auto& t : plan)
        if (auto s = w.add_tensor(t.name, t.type, t.ne); !s) return s;
    if (auto s = w.begin(out); !s) return s;
    for (size_t i = 0; i < plan.size(); ++i) {
        const Plan& t = plan[i];
        if (t.fill == Fill::RopeFreqs) {
            const auto f = llama3_rope_factors(hd, shape->rope_base);
            if (auto s = w.write_tensor_data(std::as_bytes(std::span(f))); !s) return s;
            continue;
        }
        if (auto s = stream_tensor(w, t, *shape, spec.seed, i, spec.threads); !s) return s;
    }
    if (auto s = w.finish(); !s) return s;

    // Self-check: the file must load as the model it claims to be.
    auto check = gguf::GgufFile::open(out);
    if (!check) return Status::error("written file does not open: " + check.error_message());
    auto config = load_model_config(**check);
    if (!config)
        return Status::error("written file is not a valid model: " + config.error_message());
    return Status::ok();
}

}  // namespace hearth::model
