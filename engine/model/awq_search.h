// Activation-aware scale search (AWQ, Lin et al. 2023): for a group of weight matrices that
// read the same input x, pick per-input-channel scales s = mean|x|^alpha, alpha on a grid in
// [0, 1), that minimise the output error ||W x - Q(W diag(s)) diag(s)^-1 x|| on calibration
// activations. alpha = 0 (s = 1) is plain round-to-nearest, so the search never does worse than
// RTN on the activations it measures. The caller folds diag(s)^-1 into the op producing x.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "quant/quant_type.h"
#include "thread_pool.h"

namespace hearth::model {

struct MatrixRef {
    const float* w = nullptr;  // [rows][k], row-major
    size_t rows = 0;
};

struct AwqSearchOptions {
    int n_grid = 20;         // alphas 0, 1/n_grid, ..., (n_grid-1)/n_grid
    size_t max_rows = 256;   // output rows sampled per matrix (evenly strided) for the error
    size_t max_tokens = 96;  // calibration tokens used for the error (evenly strided)
};

struct ScaleSearch {
    std::vector<float> scales;  // [k]; all 1 when RTN is best
    float alpha = 0;
    double err_rtn = 0;   // squared output error with s = 1, on the sampled rows and tokens
    double err_best = 0;  // the same with the chosen scales (<= err_rtn)
};

// mean |x| of each channel of x [n_tok][k].
std::vector<float> channel_mean_abs(const float* x, size_t n_tok, size_t k);

// s = mean^alpha, normalised so that max(s) * min(s) = 1 (keeps the weights' range centred).
std::vector<float> awq_scales(std::span<const float> act_mean, float alpha);

ScaleSearch search_scales(std::span<const MatrixRef> mats, size_t k, const float* x, size_t n_tok,
                          std::span<const float> act_mean, quant::Type qtype,
                          const AwqSearchOptions& opt, cpu::ThreadPool& pool);

// Squared output error sum_rows,tokens (W x - Q(W diag(s)) diag(s)^-1 x)^2 over every row of
// every matrix and every token; empty s means s = 1 (RTN). For tests and reports.
double quantized_output_error(std::span<const MatrixRef> mats, size_t k, const float* x,
                              size_t n_tok, std::span<const float> s, quant::Type qtype,
                              cpu::ThreadPool& pool);

// Quantizes rows of w diag(s) (s empty: w) into dst (rows * row_bytes(qtype, k) bytes).
void quantize_scaled(const float* w, size_t rows, size_t k, std::span<const float> s,
                     quant::Type qtype, std::byte* dst, cpu::ThreadPool& pool);

}  // namespace hearth::model
