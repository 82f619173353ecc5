// Weights that copy: a synthetic model whose greedy output continues any passage it has seen
// before, built by hand instead of trained. Random weights give flat, noisy logits, so nothing
// agrees with them; real chat models instead repeat their context (code being edited, quoted
// text) and are confident while they do. This construction has that one behaviour, so prompt
// lookup and draft models can be measured on a model of a real shape doing what they are for.
//
// How (llama, head_dim 64, D = n_head_kv * 64 code dims; slots of D in the residual):
//   token_embd   row t = code(t) in slot A, 1 in a bias column (the queries' constant input)
//   layers 0-2   one previous-token head each: queries and keys from the bias column on the
//                high-frequency RoPE pairs, shaped so the score peaks one position back; values
//                copy slot A (layer 0) or B_l into B_{l+1}: after layer 2, B1..B3 hold the codes
//                of the three previous tokens
//   layer 3      the induction head: the query is (t_i, t_{i-1}, t_{i-2}) from A, B1, B2, the
//                key (t_{j-1}, t_{j-2}, t_{j-3}) from B1, B2, B3, on the low-frequency pairs (a
//                RoPE base of 1e20 leaves them still over the context), so position j wins where
//                the last three tokens occurred before; its value copies code(t_j) into slot C
//   output       row t = code(t) read from slot C
//   the rest     zero (FFNs and layers from 4 on): read and computed like any weights
// Norm weights are the residual's RMS, so each normalised slot keeps unit length.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "hearth/result.h"
#include "model/synthetic_model.h"

namespace hearth::model {

inline constexpr float kCopyingRopeBase = 1e20f;

// Whether `s` can carry the construction; the error says why not.
Status check_copying_shape(const SyntheticShape& s);

// Rows [r0, r1) of tensor `name` (row length `row_len`) into out (zeroed first).
void fill_copying_rows(const SyntheticShape& s, std::string_view name, uint64_t seed, uint64_t r0,
                       uint64_t r1, uint64_t row_len, std::span<float> out);

}  // namespace hearth::model
