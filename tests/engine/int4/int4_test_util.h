// Shared helpers of the INT4 tests: synthetic models and logit comparison over a greedy run.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include "hearth/engine.h"
#include "model/calibration_text.h"
#include "model/int4_convert.h"
#include "tokenizer/tokenizer.h"

namespace hearth::test {

struct LogitDiff {
    double mean_abs = 0;   // mean |ref - test| over every position and vocabulary entry
    double max_abs = 0;    // largest |ref - test|
    double ref_rms = 0;    // rms of the reference logits (scale for the above)
    double agreement = 0;  // fraction of positions whose argmax matches
    int positions = 0;
};

inline int argmax(std::span<const float> v) {
    return int(std::max_element(v.begin(), v.end()) - v.begin());
}

// Feeds the reference model's greedy continuation of a prompt (n tokens) to both models one
// token at a time and compares the logits at every step (teacher forcing).
inline LogitDiff compare_logits(const std::shared_ptr<Model>& ref,
                                const std::shared_ptr<Model>& test, int n) {
    ContextOptions co;
    co.n_ctx = n + 64;
    co.n_threads = 2;
    co.kv_type = KvType::F32;
    auto a = Context::create(ref, co);
    auto b = Context::create(test, co);
    LogitDiff d;
    if (!a || !b) return d;
    auto prompt = ref->tokenize("Once upon a time", true, false);
    if (!prompt || !(*a)->feed(*prompt) || !(*b)->feed(*prompt)) return d;
    double sum = 0, sq = 0;
    size_t count = 0;
    int agree = 0;
    for (int i = 0; i < n; ++i) {
        const auto la = (*a)->logits(), lb = (*b)->logits();
        for (size_t j = 0; j < la.size(); ++j) {
            const double e = std::fabs(double(la[j]) - lb[j]);
            sum += e;
            d.max_abs = std::max(d.max_abs, e);
            sq += double(la[j]) * la[j];
        }
        count += la.size();
        const int next = argmax(la);
        agree += next == argmax(lb);
        const int32_t tok[] = {next};
        if (!(*a)->feed(tok) || !(*b)->feed(tok)) return d;
    }
    d.positions = n;
    d.mean_abs = sum / double(count);
    d.ref_rms = std::sqrt(sq / double(count));
    d.agreement = double(agree) / n;
    return d;
}

// The calibration tokens of a model file (as Model::load's INT4 path makes them).
inline std::vector<int32_t> calibration_tokens(const gguf::GgufFile& f) {
    auto tok = tokenizer::Tokenizer::from_gguf(f);
    if (!tok) return {};
    return (*tok)->encode(model::kCalibrationText, (*tok)->add_bos(), false, false);
}

}  // namespace hearth::test
