// The model's weights as backend tensors. All weights live in one device buffer that wraps
// their bytes as stored (the mapped GGUF data section, or a test's blob): formats stay as in
// the file, and on the CPU nothing is copied.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"
#include "hearth/backend/device.h"
#include "hearth/result.h"
#include "runtime/model_params.h"

namespace hearth::runtime {

// Where weights come from: one byte region and named tensors at offsets inside it.
struct TensorSource {
    struct Entry {
        std::string name;
        quant::Type type = quant::Type::F32;
        int64_t ne[4] = {1, 1, 1, 1};
        size_t offset = 0;  // inside bytes
    };
    std::span<const std::byte> bytes;
    std::vector<Entry> tensors;

    const Entry* find(std::string_view name) const;
    static TensorSource from_gguf(const gguf::GgufFile& file);
};

struct LayerWeights {
    backend::Tensor attn_norm;  // [n_embd]
    // [n_embd, q_width], [n_embd, kv_width] x2; with a fused attn_qkv these are row ranges of it
    backend::Tensor wq, wk, wv;
    backend::Tensor q_norm, k_norm;                 // optional [head_dim] (qwen3, gemma3)
    backend::Tensor attn_post_norm, ffn_post_norm;  // optional [n_embd] (gemma)
    // Mixture of experts (empty for a dense FFN): router [n_embd, n_expert], experts
    // [n_embd, n_ff_exp, n_expert] (gate, up) and [n_ff_exp, n_embd, n_expert] (down).
    backend::Tensor router, gate_exps, up_exps, down_exps;
    backend::Tensor bq, bk, bv;    // optional biases (qwen2): [q_width], [kv_width]
    backend::Tensor wo;            // [q_width, n_embd]
    backend::Tensor bo;            // optional bias [n_embd]
    backend::Tensor ffn_norm;      // [n_embd]
    backend::Tensor w_gate, w_up;  // [n_embd, n_ff]; row ranges of a fused ffn_up (phi3)
    backend::Tensor w_down;        // [n_ff, n_embd]
};

struct ModelWeights {
    std::unique_ptr<backend::Buffer> buffer;  // every tensor below points into it
    backend::Tensor tok_embd;                 // [n_embd, n_vocab]
    backend::Tensor output_norm;              // [n_embd]
    backend::Tensor output;                   // [n_embd, n_vocab]; token_embd when tied
    backend::Tensor rope_freqs;               // optional [n_rot / 2] (Llama 3.1)
    backend::Tensor rope_long, rope_short;    // LongRoPE factors [n_rot / 2] (phi3)
    std::vector<LayerWeights> layers;
    uint64_t n_params = 0;
};

// Checks names, shapes and types against the hyperparameters and makes the tensors.
Result<ModelWeights> bind_weights(const ModelParams& params, const TensorSource& source,
                                  backend::Device& device);

}  // namespace hearth::runtime
