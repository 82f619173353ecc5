// A plain float32 forward pass of one transformer block, used only to calibrate the INT4
// converter: it runs the block over the calibration activations and keeps the input of every
// linear layer (the activations AWQ weighs the quantization error with).
#pragma once

#include <cstddef>
#include <vector>

#include "model/model_config.h"
#include "thread_pool.h"

namespace hearth::model {

// One block's weights as float32, row-major [rows][row length] (GGUF ne1 x ne0).
struct LayerWeightsF32 {
    std::vector<float> attn_norm, ffn_norm;
    std::vector<float> q, k, v, o, gate, up, down;
    std::vector<float> bq, bk, bv, bo;  // empty when the model has none
};

// The inputs of the block's linear layers over the calibration tokens, [n_tok][width].
struct LayerActivations {
    std::vector<float> attn_in;  // attn_norm output: input of attn_q/k/v  (n_embd)
    std::vector<float> o_in;     // attention output: input of attn_output (n_head*head_dim_v)
    std::vector<float> ffn_in;   // ffn_norm output: input of ffn_gate/up  (n_embd)
    std::vector<float> down_in;  // silu(gate)*up: input of ffn_down       (n_ff)
};

// y[t][i] = dot(w row i, x[t]) for a weight matrix w [n][k] and activations x [t][k].
void matmul_f32(cpu::ThreadPool& pool, const float* w, size_t n, size_t k, const float* x,
                size_t n_tok, float* y);

// Runs block `w` over the residual stream h [n_tok][n_embd] (positions 0..n_tok-1, causal),
// updating h in place and filling `acts`.
void layer_forward(const ModelConfig& c, const LayerWeightsF32& w, std::vector<float>& h,
                   size_t n_tok, LayerActivations& acts, cpu::ThreadPool& pool);

// RMSNorm of each row of x [n_tok][n] times weight.
void rms_norm_rows(const float* x, const float* weight, size_t n_tok, size_t n, float eps,
                   float* out);

}  // namespace hearth::model
