// The fixed op set of the forward pass and a graph that records one batch step. The forward
// pass records a step once; a backend validates and executes it as a whole. Shapes follow
// ggml's convention: ne[0] is the row length, ne[1] the token (column) index unless noted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hearth/backend/rope.h"
#include "hearth/backend/tensor.h"
#include "hearth/result.h"

namespace hearth::backend {

enum class Op : uint8_t {
    GetRows,    // dst F32 [n, T] = rows ids[T] (I32) of table [n, V] (any weight type)
    MatMul,     // dst F32 [m, T] = W [k, m] (any weight type) x X F32 [k, T]
    Add,        // dst F32 [n, T] = a [n, T] + b [n, T or 1] (bias when b has one row)
    RmsNorm,    // dst F32 [n, T] = a / sqrt(mean(a^2) + eps) * w [n]
    Rope,       // dst F32 [d, H, T] = rotate(a [d, H, T]) at positions [T]; may be in place
    KvAppend,   // cache [w, cells] (F32/F16/Q8_0/Q4_0) at the cells of positions [T] := a [w, T]
    Attention,  // dst F32 [d, H, T] = softmax(q k^T * scale, causal) v over the cached cells
    SwiGlu,     // dst F32 [n, T] = silu(a) * b
    GeGlu,      // dst F32 [n, T] = gelu(a) * b, GELU in its tanh approximation (Gemma)
    Scale,      // dst F32 [n, T] = a * alpha
    SoftCap,    // dst F32 [n, T] = alpha * tanh(a / alpha) (Gemma 2 final logits)
    // Mixture of experts. MoeRoute: dst F32 [k, T] = weights of the k largest router
    // probabilities softmax(a [n_expert, T]) (renormalised to sum 1 when `renorm`), aux I32 [k, T]
    // = their expert ids (largest first, lowest id on ties).
    MoeRoute,
    // dst F32 [m, k, T] = W[ids[j, t]] [n, m] x X[:, j or 0, t]: W [n, m, n_expert] (any
    // weight type), X F32 [n, k or 1, T], ids I32 [k, T]. Only the selected experts are read.
    MoeMatMul,
    MoeCombine,  // dst F32 [n, T] = sum_j w[j, t] * a[:, j, t]: a F32 [n, k, T], w F32 [k, T]
    // dst I32 [1, T] = the index of the largest value of each column of a F32 [n, T] (greedy
    // sampling on the device: a step reads back one integer per sequence). Ties go to the
    // lowest index; NaN counts as smaller than every number (-inf included), so a column of
    // NaN and -inf gives the first -inf, a column of only NaN gives 0.
    ArgMax,
};
const char* op_name(Op op);

// Types a KV cache may have: F32, F16, and the 32-element block formats Q8_0 and Q4_0 (rows are
// quantized on append and decoded inside the attention loop; the row width must be a multiple
// of 32).
bool is_kv_dtype(DType t);

// How attention and KV append find a token's cache cell: sequence s, position p lives in cell
// block_table[s][p / block_size] * block_size + p % block_size. A contiguous cache is one
// sequence with block_table[i] = i.
struct KvParams {
    int32_t block_size = 1;
    float scale = 1.f;  // attention only: usually 1/sqrt(d)
    // Attention only. softcap > 0: scores s become softcap * tanh(s / softcap) (Gemma 2).
    // window > 0: a token at position p sees only positions p' with p - p' < window (sliding
    // window attention); cells further back are not read.
    float softcap = 0.f;
    int32_t window = 0;
};

// Inputs of every KV op: positions [T] (I32), block_table [max_blocks, n_seq] (I32) and
// optionally seq_ids [T] (I32; absent means every token is in sequence 0). Token t attends to
// positions 0..positions[t] of its sequence.
struct KvIndex {
    Tensor positions;
    Tensor block_table;
    Tensor seq_ids;
};

struct Node {
    Op op = Op::Add;
    Tensor dst;
    Tensor src[3];           // GetRows: table, ids. MatMul: W, X. Add/SwiGlu: a, b.
                             // RmsNorm: a, w. Rope: a, positions, freq_factors (optional).
                             // KvAppend: a (new rows). Attention: q, k cache, v cache.
                             // GeGlu: a, b. Scale/SoftCap/MoeRoute: a. MoeMatMul: W, X, ids.
                             // MoeCombine: a, w. ArgMax: a.
    KvIndex kv;              // KvAppend and Attention
    float eps = 0.f;         // RmsNorm
    RopeParams rope;         // Rope
    KvParams kvp;            // KvAppend and Attention
    float alpha = 1.f;       // Scale, SoftCap
    int32_t k = 0;           // MoeRoute: experts per token
    bool renorm = true;      // MoeRoute: weights of the chosen experts sum to 1
    Tensor aux;              // MoeRoute: the I32 [k, T] expert ids it writes
    const char* label = "";  // "blk.3.attn_q", for dumps and error messages
};

class Graph {
public:
    // Forgets the nodes but keeps their storage: recording a step does not allocate once the
    // graph has reached its size.
    void clear() {
        nodes_.clear();
        revision_ = next_revision();
    }
    const std::vector<Node>& nodes() const { return nodes_; }
    // Changes with every change of the nodes, to a value no graph of this process had before:
    // a stream that has prepared this graph at this revision may run it again as it is (the
    // data in its tensors' buffers may differ, the nodes do not).
    uint64_t revision() const { return revision_; }

    void get_rows(const Tensor& dst, const Tensor& table, const Tensor& ids, const char* label);
    void mat_mul(const Tensor& dst, const Tensor& w, const Tensor& x, const char* label);
    void add(const Tensor& dst, const Tensor& a, const Tensor& b, const char* label);
    void rms_norm(const Tensor& dst, const Tensor& a, const Tensor& w, float eps,
                  const char* label);
    // freq_factors may be an invalid (default) tensor.
    void rope(const Tensor& dst, const Tensor& a, const Tensor& positions,
              const Tensor& freq_factors, const RopeParams& p, const char* label);
    void kv_append(const Tensor& cache, const Tensor& a, const KvIndex& kv, int32_t block_size,
                   const char* label);
    void attention(const Tensor& dst, const Tensor& q, const Tensor& k_cache, const Tensor& v_cache,
                   const KvIndex& kv, const KvParams& p, const char* label);
    void swiglu(const Tensor& dst, const Tensor& a, const Tensor& b, const char* label);
    void geglu(const Tensor& dst, const Tensor& a, const Tensor& b, const char* label);
    void scale(const Tensor& dst, const Tensor& a, float alpha, const char* label);
    void softcap(const Tensor& dst, const Tensor& a, float cap, const char* label);
    void moe_route(const Tensor& weights, const Tensor& ids, const Tensor& logits, int32_t k,
                   bool renorm, const char* label);
    void moe_mat_mul(const Tensor& dst, const Tensor& w, const Tensor& x, const Tensor& ids,
                     const char* label);
    void moe_combine(const Tensor& dst, const Tensor& a, const Tensor& w, const char* label);
    void argmax(const Tensor& dst, const Tensor& a, const char* label);

private:
    static uint64_t next_revision();
    Node& new_node() {
        revision_ = next_revision();
        return nodes_.emplace_back();
    }

    std::vector<Node> nodes_;
    uint64_t revision_ = next_revision();
};

// Checks shapes and types of a node (not the contents of index tensors, which backends check
// while running). Every backend calls this before executing a graph.
Status validate_node(const Node& node);
Status validate_graph(const Graph& graph);

}  // namespace hearth::backend
