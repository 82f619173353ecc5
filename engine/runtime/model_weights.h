// The model's weights as backend tensors, each bound on the device that runs it (Placement):
// the main device (the CPU) wraps the bytes as stored (the mapped GGUF data section, or a
// test's blob) without copying; each tensor of an accelerator's layers is uploaded into its own
// buffer there. Formats stay as in the file.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"
#include "hearth/backend/device.h"
#include "hearth/result.h"
#include "runtime/config_support.h"
#include "runtime/placement.h"

namespace hearth::runtime {

// Where weights come from: one byte region and named tensors at offsets inside it.
struct TensorSource {
    struct Entry {
        std::string name;
        quant::Type type = quant::Type::F32;
        int64_t ne[4] = {1, 1, 1, 1};
        size_t offset = 0;  // inside bytes
        size_t bytes() const {
            return quant::row_bytes(type, static_cast<size_t>(ne[0])) *
                   static_cast<size_t>(ne[1] * ne[2] * ne[3]);
        }
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
    Placement placement;
    // The main device's view of the source, then one buffer per uploaded tensor.
    std::vector<std::unique_ptr<backend::Buffer>> buffers;
    backend::Tensor tok_embd;               // [n_embd, n_vocab]
    backend::Tensor output_norm;            // [n_embd]
    backend::Tensor output;                 // [n_embd, n_vocab]; token_embd when tied
    backend::Tensor rope_freqs;             // optional [n_rot / 2] (Llama 3.1)
    backend::Tensor rope_long, rope_short;  // LongRoPE factors [n_rot / 2] (phi3)
    // Copies of the rope factors on the accelerator (when it runs layers).
    backend::Tensor accel_rope_freqs, accel_rope_long, accel_rope_short;
    std::vector<LayerWeights> layers;
    uint64_t n_params = 0;
    uint64_t uploaded_bytes = 0;  // copied to the accelerator
};

// Called after each tensor uploaded to the accelerator; false cancels the load.
struct UploadProgress {
    uint64_t total = 0;  // bytes that will be uploaded
    std::function<bool(uint64_t done, uint64_t total)> on_tensor;
};

// Checks names, shapes and types against the hyperparameters and makes the tensors.
// Everything on one device.
Result<ModelWeights> bind_weights(const ModelConfig& params, const TensorSource& source,
                                  backend::Device& device);
// Layers [0, placement.n_accel) (and the output when placement says so) on the accelerator.
// A cancelled upload fails with "loading cancelled" and frees what was uploaded.
Result<ModelWeights> bind_weights(const ModelConfig& params, const TensorSource& source,
                                  const Placement& placement, const UploadProgress& progress = {});
// Bytes bind_weights will upload for this placement.
uint64_t upload_bytes(const ModelConfig& params, const TensorSource& source,
                      const Placement& placement);

}  // namespace hearth::runtime
