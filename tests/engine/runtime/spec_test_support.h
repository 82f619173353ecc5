// Helpers shared by the speculative-decoding tests (speculative_test, scheduler_spec_test): a
// small SPM vocabulary written as a GGUF (synthetic models take it), and the chi-square check
// of sampled token counts against exact probabilities.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gguf/gguf_writer.h"

namespace hearth::test {

// An SPM vocabulary: <unk>, <s>, </s>, then n - 3 ordinary pieces.
struct VocabSpec {
    int32_t n = 256;
    int32_t eos = 2;
    int32_t renamed = -1;  // this token's text is changed
};

inline std::filesystem::path write_vocab(const std::filesystem::path& path, const VocabSpec& v) {
    gguf::GgufWriter w;
    w.set_string("general.architecture", "llama");
    w.set_string("tokenizer.ggml.model", "llama");
    std::vector<std::string> tokens = {"<unk>", "<s>", "</s>"};
    for (int32_t i = 3; i < v.n; ++i)
        tokens.push_back("\xE2\x96\x81t" + std::to_string(i) + (i == v.renamed ? "x" : ""));
    std::vector<float> scores(tokens.size());
    std::vector<int32_t> types(tokens.size(), 1);
    types[0] = 2;
    types[1] = types[2] = 3;
    for (size_t i = 0; i < scores.size(); ++i) scores[i] = -static_cast<float>(i);
    w.set_string_array("tokenizer.ggml.tokens", std::span<const std::string>(tokens));
    w.set_array("tokenizer.ggml.scores", std::span<const float>(scores));
    w.set_array("tokenizer.ggml.token_type", std::span<const int32_t>(types));
    w.set_u32("tokenizer.ggml.bos_token_id", 1);
    w.set_u32("tokenizer.ggml.eos_token_id", static_cast<uint32_t>(v.eos));
    w.set_u32("tokenizer.ggml.unknown_token_id", 0);
    EXPECT_TRUE(w.begin(path).is_ok());
    EXPECT_TRUE(w.finish().is_ok());
    return path;
}

// Chi-square statistic with cells of expected count < 5 pooled; returns {stat, dof}.
inline std::pair<double, int> chi_square(const std::vector<double>& expected_p,
                                         const std::vector<int64_t>& observed, int64_t n) {
    double stat = 0, pool_e = 0, pool_o = 0;
    int cells = 0;
    for (size_t i = 0; i < expected_p.size(); ++i) {
        const double e = expected_p[i] * double(n);
        if (e < 5) {
            pool_e += e;
            pool_o += double(observed[i]);
            continue;
        }
        stat += (double(observed[i]) - e) * (double(observed[i]) - e) / e;
        ++cells;
    }
    if (pool_e > 0) {
        stat += (pool_o - pool_e) * (pool_o - pool_e) / std::max(pool_e, 1e-9);
        ++cells;
    }
    return {stat, cells - 1};
}

// The 99.99% quantile of chi-square with k degrees of freedom (Wilson-Hilferty).
inline double chi_square_bound(int k) {
    const double z = 3.719, a = 2.0 / (9.0 * k);
    return k * std::pow(1 - a + z * std::sqrt(a), 3);
}

}  // namespace hearth::test
