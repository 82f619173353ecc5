// Synthetic models: real shapes and a real tokenizer, seeded random weights (normal, std 0.02;
// norm weights 1). Used by `hearth-cli make-model`, by tests (tiny shapes) and by benchmarks.
// Output is identical on every platform for a given seed: our own RNG-to-normal transform uses
// only correctly rounded IEEE operations, and chunking does not depend on the thread count.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hearth/result.h"
#include "model/model_config.h"
#include "quant/quant_type.h"

namespace hearth::model {

struct SyntheticShape {
    std::string_view name;  // "tinyllama-1.1b", "tiny-llama", ...
    Arch arch;
    uint32_t n_embd, n_layer, n_head, n_head_kv, n_ff;
    uint32_t n_vocab;  // 0: as many as the vocab file has tokens
    bool qkv_bias;     // blk.N.attn_{q,k,v}.bias
    bool tied;         // no output.weight
    float rope_base;
    bool llama3_rope;  // rope_freqs.weight, Llama 3.1 scaling (factor 32, low 1, high 4, 8192)
    uint32_t n_ctx;    // <arch>.context_length
    float rms_eps;
    std::string_view vocab_hint;  // the shared vocab file this shape is meant for
    uint32_t head_dim = 0;        // attention.key_length; 0: n_embd / n_head (no key written)
    uint32_t n_expert = 0;        // experts (0: dense FFN); n_ff is then the expert width
    uint32_t n_expert_used = 0;
    uint32_t n_swa = 0;  // gemma: attention.sliding_window
};

std::span<const SyntheticShape> synthetic_shapes();
const SyntheticShape* find_synthetic_shape(std::string_view name);

// Weight formats for make-model: one type for every matrix, or the Q4_K_M-style mix.
enum class WeightType { F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K, Q4_K_M };
std::string_view weight_type_name(WeightType t);
std::optional<WeightType> weight_type_from_name(std::string_view name);  // case-insensitive
uint32_t llama_file_type(WeightType t);  // general.file_type (LLAMA_FTYPE_*)

// The type a tensor gets. 1-D tensors are F32. Matrices get `t`, except in Q4_K_M: Q6_K for
// the output projection (token_embd when tied) and for attn_v / ffn_down of even layers.
// A row length the block does not divide falls back as llama.cpp does: Q4_K -> Q5_0,
// Q6_K -> Q8_0, 32-blocks -> F16.
quant::Type tensor_type_for(WeightType t, std::string_view name, uint64_t ne0, bool tied);

struct SyntheticSpec {
    std::string shape = "tiny-llama";
    WeightType type = WeightType::F32;
    uint64_t seed = 1;
    unsigned threads = 2;  // quantization threads; the output does not depend on it
    bool copying = false;  // the copying construction (copying_weights.h), not random weights
};

// Writes the model to `out`, streaming layer by layer (memory stays at a few tens of MB), then
// reopens it and checks it with load_model_config().
Status write_synthetic_model(const SyntheticSpec& spec, const std::filesystem::path& vocab,
                             const std::filesystem::path& out);

// The Llama 3.1 rope_freqs.weight values for n_rot rotary dims (n_rot/2 entries).
std::vector<float> llama3_rope_factors(uint32_t n_rot, float base, float factor = 32.0f,
                                       float low_freq_factor = 1.0f, float high_freq_factor = 4.0f,
                                       uint32_t orig_ctx = 8192);

// SplitMix64's finalizer: seeds for the per-chunk and per-token generators (synthetic_model.cpp,
// copying_weights.cpp), so a chunk's values do not depend on which thread made the others.
uint64_t splitmix(uint64_t x);

// The layer index in a tensor name "blk.N.xxx", or -1 (no such prefix, or not a real index).
int layer_of(std::string_view name);

// The seeded normal generator (exposed for tests): mean 0, std 1. Marsaglia's polar form of
// Box-Muller with our own logarithm (std::log is not guaranteed identical across C libraries).
class NormalRng {
public:
    explicit NormalRng(uint64_t seed);
    double next();

private:
    std::mt19937_64 rng_;  // fully specified by the standard: same stream everywhere
    double spare_ = 0.0;
    bool has_spare_ = false;
};

}  // namespace hearth::model
