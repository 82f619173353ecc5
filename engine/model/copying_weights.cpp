// The copying construction (copying_weights.h). Every value comes from +, *, / and sqrt (all
// correctly rounded) and our seeded normal generator, so the file is the same everywhere.
#include "model/copying_weights.h"

#include <algorithm>
#include <cmath>
#include <string>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

namespace hearth::model {

namespace {

constexpr uint32_t kHeadDim = 64;
constexpr uint32_t kSub = 16;           // code dims per matched token, per KV head
constexpr uint32_t kOrder = 3;          // tokens matched: the current one and two before it
constexpr uint32_t kPositionPairs = 7;  // RoPE pairs 0-6: angles 1 .. 1.8e-4 per position
constexpr uint32_t kContentPair = 8;    // pairs 8-31: angles <= 1e-5, ~0.02 over 2048 tokens
constexpr double kTheta1 = 0.23713737056616552;  // 1e20^(-2/64): pair 1's angle per position
constexpr double kPosAmp = 20.0;    // positional query / key per pair: margin ~24 logits a step
constexpr double kMatchAmp = 20.0;  // content query / key norm per token: 150 logits a match
constexpr double kHeadGain = 30.0;  // output logit of the copied token's code

struct Layout {
    uint64_t D, n_head, n_kv, group, bias;
    uint64_t slot(uint32_t k) const { return k * D; }  // 0 A, 1..3 B1..B3, 4 C
};

Layout layout_of(const SyntheticShape& s) {
    const uint64_t D = uint64_t{s.n_head_kv} * kHeadDim;
    return {D, s.n_head, s.n_head_kv, s.n_head / s.n_head_kv, 5 * D};
}

// A token's code: D / 16 random unit vectors of 16 dims, each scaled to 1/sqrt(D/16) so the
// whole has unit length.
void code_of(uint64_t seed, uint64_t token, uint64_t D, float* out) {
    NormalRng rng(splitmix(seed ^ splitmix(0xC0DEC0DE00000000ull + token)));
    const double scale = 1.0 / std::sqrt(static_cast<double>(D / kSub));
    for (uint64_t b = 0; b < D; b += kSub) {
        double v[kSub], n2 = 0.0;
        for (double& x : v) {
            x = rng.next();
            n2 += x * x;
        }
        const double k = scale / std::sqrt(n2);
        for (uint32_t i = 0; i < kSub; ++i) out[b + i] = static_cast<float>(v[i] * k);
    }
}

// cos and sin of x in [0, 1] by their series (the C library's are not the same everywhere).
void cos_sin(double x, double& c, double& s) {
    c = 0.0;
    s = 0.0;
    double term = 1.0;
    for (int k = 0; k < 30; ++k) {  // term = x^k / k!
        switch (k % 4) {
            case 0:
                c += term;
                break;
            case 1:
                s += term;
                break;
            case 2:
                c -= term;
                break;
            default:
                s -= term;
                break;
        }
        term = term * x / (k + 1);
    }
}

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The RMS of the residual entering layer l (l = n_layer: the output norm) for a vocabulary
// of unit codes: the slots filled by then, plus the bias column's 1.
float norm_weight(uint64_t n_embd, int l) {
    const int slots = std::min(l, int{kOrder} + 1) + 1;
    return static_cast<float>(std::sqrt((slots + 1.0) / static_cast<double>(n_embd)));
}

}  // namespace

Status check_copying_shape(const SyntheticShape& s) {
    const uint32_t hd = s.head_dim ? s.head_dim : s.n_embd / s.n_head;
    const auto no = [&](const std::string& why) {
        return Status::error("copying weights need " + why + " (shape '" + std::string(s.name) +
                             "')");
    };
    if (s.arch != Arch::Llama || s.qkv_bias || s.tied || s.llama3_rope)
        return no("a llama shape with its own output head and plain RoPE");
    if (hd != kHeadDim || s.n_head % s.n_head_kv != 0) return no("heads of 64");
    if (s.n_layer < kOrder + 1) return no("at least 4 layers");
    if (s.n_embd < 5ull * s.n_head_kv * kHeadDim + 1) return no("n_embd >= 5 * 64 * n_head_kv + 1");
    return Status::ok();
}

void fill_copying_rows(const SyntheticShape& s, std::string_view name, uint64_t seed, uint64_t r0,
                       uint64_t r1, uint64_t row_len, std::span<float> out) {
    std::fill(out.begin(), out.end(), 0.0f);
    const Layout L = layout_of(s);
    const int l = layer_of(name);
    const double code_gain = std::sqrt(static_cast<double>(L.D / kSub));  // sub-block -> unit
    for (uint64_t r = r0; r < r1; ++r) {
        float* row = out.data() + (r - r0) * row_len;
        if (name == "token_embd.weight") {
            code_of(seed, r, L.D, row + L.slot(0));
            row[L.bias] = 1.0f;
        } else if (name == "output.weight") {
            code_of(seed, r, L.D, row + L.slot(4));
            for (uint64_t i = 0; i < L.D; ++i)
                row[L.slot(4) + i] = static_cast<float>(row[L.slot(4) + i] * kHeadGain);
        } else if (name == "output_norm.weight") {
            std::fill(row, row + row_len, norm_weight(row_len, static_cast<int>(s.n_layer)));
        } else if (ends_with(name, ".attn_norm.weight")) {
            std::fill(row, row + row_len, norm_weight(row_len, l));
        } else if (ends_with(name, ".ffn_norm.weight")) {
            std::fill(row, row + row_len, 1.0f);
        } else if (l < 0 || l > int{kOrder}) {
            continue;  // FFNs and the later layers stay zero
        } else if (ends_with(name, ".attn_q.weight") || ends_with(name, ".attn_k.weight")) {
            const bool key = ends_with(name, ".attn_k.weight");
            const uint64_t head = r / kHeadDim, d = r % kHeadDim, pair = d / 2;
            const uint64_t kv = key ? head : head / L.group;
            if (l < int{kOrder}) {
                if (pair >= kPositionPairs) continue;
                // Score ~ sum over pairs of cos(theta_p * (i - j) - phi_p): phi_p = theta_p puts
                // the peak one position back.
                double theta = pair == 0 ? 1.0 : kTheta1;
                for (uint64_t p = 1; p < pair; ++p) theta *= kTheta1;
                double c = 1.0, sn = 0.0;
                if (key) cos_sin(theta, c, sn);
                row[L.bias] = static_cast<float>(kPosAmp * (d % 2 == 0 ? c : sn));
            } else {
                if (pair < kContentPair) continue;
                const uint64_t c = d - 2 * kContentPair;  // 0..47
                const uint64_t n = c / kSub, i = c % kSub;
                const uint32_t slot = static_cast<uint32_t>(key ? n + 1 : n);  // B_{n+1} : A, B_n
                row[L.slot(slot) + kv * kHeadDim + n * kSub + i] =
                    static_cast<float>(kMatchAmp * code_gain);
            }
        } else if (ends_with(name, ".attn_v.weight")) {
            const uint32_t from = l < int{kOrder} ? static_cast<uint32_t>(l) : 0;
            row[L.slot(from) + r] = 1.0f;
        } else if (ends_with(name, ".attn_output.weight")) {
            const uint32_t to = l < int{kOrder} ? static_cast<uint32_t>(l) + 1 : 4;
            if (r < L.slot(to) || r >= L.slot(to) + L.D) continue;
            const uint64_t o = r - L.slot(to), kv = o / kHeadDim, d = o % kHeadDim;
            for (uint64_t g = kv * L.group; g < (kv + 1) * L.group; ++g)
                row[g * kHeadDim + d] = static_cast<float>(1.0 / static_cast<double>(L.group));
        }
    }
}

}  // namespace hearth::model
