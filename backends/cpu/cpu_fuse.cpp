#include "cpu/cpu_fuse.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string_view>

#include "core/host_access.h"
#include "cpu/cpu_weights.h"
#include "cpu/kernels/kernels.h"
#include "cpu/kernels/packed.h"
#include "quant/quant_type.h"

namespace hearth::backend {

namespace {

std::atomic<bool>& fuse_flag() {
    static std::atomic<bool> on{[] {
        const char* v = std::getenv("HEARTH_CPU_FUSE");
        return !(v && std::string_view(v) == "0");
    }()};
    return on;
}

std::atomic<uint64_t> g_fused_groups{0}, g_fused_mat_muls{0};

}  // namespace

bool cpu_fusion_enabled() {
    return fuse_flag().load(std::memory_order_relaxed);
}

bool cpu_set_fusion(bool on) {
    return fuse_flag().exchange(on);
}

uint64_t cpu_fused_groups() {
    return g_fused_groups.load(std::memory_order_relaxed);
}

uint64_t cpu_fused_mat_muls() {
    return g_fused_mat_muls.load(std::memory_order_relaxed);
}

namespace cpu_ops {

namespace {

constexpr size_t kMaxGroup = 3;  // Q, K and V

// Steps of up to this many tokens fuse: decode, batched decode of several sequences and
// speculative verification, where a matrix's share of the step is short enough that a
// dispatch's wake-up and barrier show. A longer step (a prefill) is compute-bound; there the
// unfused MatMul also prepares its tokens' activations in parallel, which pays.
constexpr int64_t kMaxFuseTokens = 16;

// `tokens` rows of `rows` floats each (the shape of a MatMul's dst for that many tokens).
bool rows_of(const Tensor& t, int64_t rows, int64_t tokens) {
    return t.type == DType::F32 && t.ne[0] == rows && t.ne[1] == tokens && t.ne[2] == 1 &&
           t.ne[3] == 1;
}

// A MatMul of a short step that the fused path runs exactly as mat_mul would.
bool fusable_mat_mul(const Node& n) {
    if (n.op != Op::MatMul) return false;
    const Tensor& w = n.src[0];
    const Tensor& x = n.src[1];
    const int64_t tokens = x.ne[1];
    return tokens >= 1 && tokens <= kMaxFuseTokens && x.type == DType::F32 && x.ne[2] == 1 &&
           x.ne[3] == 1 && cpu::supports_weight_type(w.type) && w.nb[1] == w.row_bytes() &&
           rows_of(n.dst, w.ne[1], tokens) && !overlap(n.dst, x);
}

struct Mat {
    const Node* node = nullptr;
    const cpu::PackedWeight* packed = nullptr;
    size_t rows = 0;
    size_t items = 0;  // work items of this matrix (chunks of `chunk` rows)
};

struct Group {
    Mat mats[kMaxGroup];
    size_t count = 0;
    const Node* swiglu = nullptr;  // silu(mats[0]) * mats[1], row by row
    const Node* add = nullptr;     // an Add of mats[0]'s output (count == 1)
    quant::Type wt = quant::Type::F32;
    size_t k = 0;
    size_t tokens = 0;
    const std::byte* xq = nullptr;  // the tokens' prepared activations, xq_stride bytes apart
    size_t xq_stride = 0;
    size_t chunk = 0;  // rows per work item, a multiple of the packed group
};

// The Add folded into a single MatMul: dst[i] = a[i] + b[i] for the rows just computed of
// every token (the same expression as cpu_ops' add; a one-row operand is broadcast as there).
void add_rows(const Node& a, size_t tokens, size_t b, size_t e) {
    for (size_t t = 0; t < tokens; ++t) {
        const int64_t r = static_cast<int64_t>(t);
        const float* x = f32_row(a.src[0], r);
        const float* y = f32_row(a.src[1], a.src[1].ne[1] == 1 ? 0 : r);
        float* d = f32_row(a.dst, r);
        for (size_t i = b; i < e; ++i) d[i] = x[i] + y[i];
    }
}

void swiglu_rows(const Node& s, size_t tokens, size_t b, size_t e) {
    for (size_t t = 0; t < tokens; ++t) {
        const int64_t r = static_cast<int64_t>(t);
        cpu::silu_mul(f32_row(s.src[0], r) + b, f32_row(s.src[1], r) + b, f32_row(s.dst, r) + b,
                      e - b);
    }
}

// rows [b, e) of matrix m for every token of the group, as mat_mul would compute them.
void mat_rows(const Group& g, size_t m, size_t b, size_t e) {
    mat_mul_rows(*g.mats[m].node, g.mats[m].packed, g.xq, g.xq_stride, b, e);
}

void run_item(const Group& g, size_t item) {
    if (g.swiglu) {  // item = a row range of gate and up alike
        const size_t rows = g.mats[0].rows;
        const size_t b = item * g.chunk, e = std::min(rows, b + g.chunk);
        mat_rows(g, 0, b, e);
        mat_rows(g, 1, b, e);
        swiglu_rows(*g.swiglu, g.tokens, b, e);
        return;
    }
    size_t m = 0;
    while (item >= g.mats[m].items) item -= g.mats[m++].items;
    const size_t b = item * g.chunk, e = std::min(g.mats[m].rows, b + g.chunk);
    mat_rows(g, m, b, e);
    if (g.add) add_rows(*g.add, g.tokens, b, e);
}

// Whether an Add right after a lone MatMul (output t, input x) can be done row by row as each
// chunk of t is computed: one operand is t itself, the other (t's shape, or one row broadcast
// to every token: a bias) and the destination either are t or the other operand exactly or do
// not touch t, and nothing writes the MatMul's input.
bool foldable_add(const Node& a, const Tensor& t, const Tensor& x) {
    if (a.op != Op::Add) return false;
    const int64_t rows = t.ne[0], tokens = t.ne[1];
    if (!rows_of(a.dst, rows, tokens)) return false;
    const bool first = same_view(a.src[0], t), second = same_view(a.src[1], t);
    if (!first && !second) return false;
    const Tensor& other = first ? a.src[1] : a.src[0];
    // add() broadcasts only its second operand
    const bool broadcast = first && tokens > 1 && rows_of(other, rows, 1);
    if (!rows_of(other, rows, tokens) && !broadcast) return false;
    if (!same_view(other, t) && overlap(other, t)) return false;
    const bool dst_ok = same_view(a.dst, t) || same_view(a.dst, other) ||
                        (!overlap(a.dst, t) && !overlap(a.dst, other));
    // a broadcast row must survive until every token has read it
    return dst_ok && !overlap(a.dst, x) && !(broadcast && overlap(a.dst, other));
}

// SwiGlu(gate, up) right after the MatMuls of gate (mats[0]) and up (mats[1]).
bool foldable_swiglu(const Node& s, const Group& g) {
    if (s.op != Op::SwiGlu || g.count != 2) return false;
    const Tensor& gate = g.mats[0].node->dst;
    const Tensor& up = g.mats[1].node->dst;
    const Tensor& x = g.mats[0].node->src[1];
    if (gate.ne[0] != up.ne[0] || !same_view(s.src[0], gate) || !same_view(s.src[1], up))
        return false;
    if (!rows_of(s.dst, gate.ne[0], gate.ne[1])) return false;
    const bool dst_ok = same_view(s.dst, gate) || same_view(s.dst, up) ||
                        (!overlap(s.dst, gate) && !overlap(s.dst, up));
    return dst_ok && !overlap(s.dst, x);
}

}  // namespace

size_t run_fused(const std::vector<Node>& nodes, size_t i, cpu::ThreadPool& pool,
                 Scratch& scratch) {
    const Node& first = nodes[i];
    if (!fusable_mat_mul(first)) return 0;
    Group g;
    g.wt = first.src[0].type;
    g.k = static_cast<size_t>(first.src[0].ne[0]);
    g.mats[g.count++].node = &first;
    size_t j = i + 1;
    // Further MatMuls of the same input and a weight type that takes the same prepared rows
    // (Q4_K_M files mix Q4_K and Q6_K, or Q5_0 and Q8_0, among Q, K and V), writing rows no
    // other member writes or reads.
    for (; g.count < kMaxGroup && j < nodes.size(); ++j) {
        const Node& n = nodes[j];
        if (!fusable_mat_mul(n) || !same_view(n.src[1], first.src[1]) ||
            !cpu::same_activation_rows(n.src[0].type, g.wt))
            break;
        bool clash = false;
        for (size_t m = 0; m < g.count; ++m) clash = clash || overlap(n.dst, g.mats[m].node->dst);
        if (clash) break;
        g.mats[g.count++].node = &n;
    }
    if (j < nodes.size() && foldable_swiglu(nodes[j], g)) {
        g.swiglu = &nodes[j++];
    } else if (g.count == 1 && j < nodes.size() &&
               foldable_add(nodes[j], first.dst, first.src[1])) {
        g.add = &nodes[j++];
    }
    if (g.count == 1 && !g.add) return 0;  // a lone MatMul: nothing to fuse

    // Prepare the tokens once for every matrix (mat_mul does the same per matrix).
    const Tensor& x = first.src[1];
    g.tokens = static_cast<size_t>(x.ne[1]);
    g.xq_stride = cpu::activation_row_bytes(g.wt, g.k);
    std::byte* xq = scratch.activation_rows();
    scratch.forget_prepared();  // (what a lone MatMul left there is overwritten)
    for (size_t t = 0; t < g.tokens; ++t)
        cpu::quantize_activation(g.wt, f32_row(x, static_cast<int64_t>(t)), g.k,
                                 xq + t * g.xq_stride);
    g.xq = xq;
    size_t total = 0, total_bytes = 0;
    for (size_t m = 0; m < g.count; ++m) {
        Mat& mat = g.mats[m];
        const Tensor& w = mat.node->src[0];
        mat.rows = static_cast<size_t>(w.ne[1]);
        auto* wbuf = dynamic_cast<CpuWeightBuffer*>(w.buffer);
        mat.packed = wbuf ? wbuf->packed(w, pool) : nullptr;
        total += mat.rows;
        total_bytes += mat.rows * quant::row_bytes(w.type, g.k);
    }
    // About four items per thread (a descheduled thread then holds up little; a short step's
    // no smaller than short_step_chunks allows), each at least the work that pays for a
    // hand-off, in whole packed row groups.
    const size_t per_row = g.k * g.tokens * (g.swiglu ? 2 : 1);
    const size_t span = g.swiglu ? g.mats[0].rows : total;
    const size_t threads = static_cast<size_t>(pool.size());
    const size_t want =
        g.tokens <= kShortStepTokens ? short_step_chunks(total_bytes, threads) : 4 * threads;
    size_t chunk = std::max(grain_for(per_row), (span + want - 1) / want);
    chunk = (chunk + cpu::kPackRows - 1) / cpu::kPackRows * cpu::kPackRows;
    g.chunk = chunk;
    size_t items = 0;
    if (g.swiglu) {
        items = (g.mats[0].rows + chunk - 1) / chunk;
    } else {
        for (size_t m = 0; m < g.count; ++m) {
            g.mats[m].items = (g.mats[m].rows + chunk - 1) / chunk;
            items += g.mats[m].items;
        }
    }
    const Group* gp = &g;  // one pointer: the std::function stores it without allocating
    pool.parallel_for(items, 1, [gp](size_t b, size_t e, int) {
        for (size_t it = b; it < e; ++it) run_item(*gp, it);
    });
    g_fused_groups.fetch_add(1, std::memory_order_relaxed);
    g_fused_mat_muls.fetch_add(g.count, std::memory_order_relaxed);
    return j - i;
}

}  // namespace cpu_ops
}  // namespace hearth::backend
