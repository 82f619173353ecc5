// Tiny random llama / qwen2 models built in memory for forward-pass tests, with the float
// values of every weight kept for a plain float64 reference forward pass.
#pragma once

#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "hearth/backend/device.h"
#include "quant/quant_ref.h"
#include "runtime/config_support.h"
#include "runtime/model_weights.h"

namespace hearth::runtime::test {

struct SyntheticModel {
    ModelConfig params;
    std::vector<std::byte> blob;                       // the weights as stored
    TensorSource source;                               // views into blob
    std::map<std::string, std::vector<float>> values;  // what each stored tensor decodes to
};

// Shapes: n_embd 256, 8 heads of 32 (2 KV heads), n_ff 512, 2 layers, vocab 300.
// llama: adjacent RoPE, rope_freqs, linear scale 0.5, separate output. qwen2: rotate-half
// RoPE with base 1e6, QKV biases, tied embeddings. Matrices are stored as `wtype`, norms and
// biases as F32. With `as_f32_of`, the matrices are the F32 decoding of that model's.
SyntheticModel make_synthetic(Arch arch, quant::Type wtype, uint32_t seed,
                              const SyntheticModel* as_f32_of = nullptr);
// The same with attn_v and ffn_down stored as v_down_type, as Q4_K_M files mix types (Q4_K with
// Q6_K, or Q5_0 with Q8_0 where rows are not whole super-blocks).
SyntheticModel make_synthetic(Arch arch, quant::Type wtype, std::optional<quant::Type> v_down_type,
                              uint32_t seed, const SyntheticModel* as_f32_of = nullptr);

// Float64 forward pass over the decoded values: logits of every position [T][n_vocab].
std::vector<std::vector<double>> reference_forward(const SyntheticModel& m,
                                                   const std::vector<int32_t>& tokens);

// A prompt, then `steps` greedy steps, on one placement: layers [0, n) (and the output head
// when `head`) on `accel`, the rest on `cpu` (n = 0, accel = nullptr: all on the CPU), with a
// 64-token cache of `kv_type`. Records the greedy tokens and the logits after the prompt and
// after each token; a failure is a test failure (and a shorter run). A second run on the same
// placement picks each token on the device (Forward::step_argmax) and must give the same
// tokens without reading any logits back.
struct SplitRun {
    std::vector<int32_t> tokens;
    std::vector<int32_t> device_tokens;
    std::vector<std::vector<float>> logits;
};
SplitRun run_split(const SyntheticModel& m, backend::Device& cpu, backend::Device* accel, int64_t n,
                   bool head, const std::vector<int32_t>& prompt, int steps,
                   backend::DType kv_type = backend::DType::F32);

// max |a - b| / max |b|; a size mismatch counts as a huge difference.
double rel_diff(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace hearth::runtime::test
