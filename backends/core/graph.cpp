#include "hearth/backend/graph.h"

#include <atomic>
#include <cmath>
#include <string>

#include "hearth/backend/buffer.h"

namespace hearth::backend {

uint64_t Graph::next_revision() {
    static std::atomic<uint64_t> counter{0};
    return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}

const char* op_name(Op op) {
    switch (op) {
        case Op::GetRows:
            return "get_rows";
        case Op::MatMul:
            return "mat_mul";
        case Op::Add:
            return "add";
        case Op::RmsNorm:
            return "rms_norm";
        case Op::Rope:
            return "rope";
        case Op::KvAppend:
            return "kv_append";
        case Op::Attention:
            return "attention";
        case Op::SwiGlu:
            return "swiglu";
        case Op::GeGlu:
            return "geglu";
        case Op::Scale:
            return "scale";
        case Op::SoftCap:
            return "softcap";
        case Op::MoeRoute:
            return "moe_route";
        case Op::MoeMatMul:
            return "moe_mat_mul";
        case Op::MoeCombine:
            return "moe_combine";
        case Op::ArgMax:
            return "argmax";
    }
    return "?";
}

void Graph::get_rows(const Tensor& dst, const Tensor& table, const Tensor& ids, const char* label) {
    Node& n = new_node();
    n.op = Op::GetRows;
    n.dst = dst;
    n.src[0] = table;
    n.src[1] = ids;
    n.label = label;
}

void Graph::mat_mul(const Tensor& dst, const Tensor& w, const Tensor& x, const char* label) {
    Node& n = new_node();
    n.op = Op::MatMul;
    n.dst = dst;
    n.src[0] = w;
    n.src[1] = x;
    n.label = label;
}

void Graph::add(const Tensor& dst, const Tensor& a, const Tensor& b, const char* label) {
    Node& n = new_node();
    n.op = Op::Add;
    n.dst = dst;
    n.src[0] = a;
    n.src[1] = b;
    n.label = label;
}

void Graph::rms_norm(const Tensor& dst, const Tensor& a, const Tensor& w, float eps,
                     const char* label) {
    Node& n = new_node();
    n.op = Op::RmsNorm;
    n.dst = dst;
    n.src[0] = a;
    n.src[1] = w;
    n.eps = eps;
    n.label = label;
}

void Graph::rope(const Tensor& dst, const Tensor& a, const Tensor& positions,
                 const Tensor& freq_factors, const RopeParams& p, const char* label) {
    Node& n = new_node();
    n.op = Op::Rope;
    n.dst = dst;
    n.src[0] = a;
    n.src[1] = positions;
    n.src[2] = freq_factors;
    n.rope = p;
    n.label = label;
}

void Graph::kv_append(const Tensor& cache, const Tensor& a, const KvIndex& kv, int32_t block_size,
                      const char* label) {
    Node& n = new_node();
    n.op = Op::KvAppend;
    n.dst = cache;
    n.src[0] = a;
    n.kv = kv;
    n.kvp.block_size = block_size;
    n.label = label;
}

void Graph::attention(const Tensor& dst, const Tensor& q, const Tensor& k_cache,
                      const Tensor& v_cache, const KvIndex& kv, const KvParams& p,
                      const char* label) {
    Node& n = new_node();
    n.op = Op::Attention;
    n.dst = dst;
    n.src[0] = q;
    n.src[1] = k_cache;
    n.src[2] = v_cache;
    n.kv = kv;
    n.kvp = p;
    n.label = label;
}

void Graph::swiglu(const Tensor& dst, const Tensor& a, const Tensor& b, const char* label) {
    Node& n = new_node();
    n.op = Op::SwiGlu;
    n.dst = dst;
    n.src[0] = a;
    n.src[1] = b;
    n.label = label;
}

void Graph::geglu(const Tensor& dst, const Tensor& a, const Tensor& b, const char* label) {
    swiglu(dst, a, b, label);
    nodes_.back().op = Op::GeGlu;
}

void Graph::scale(const Tensor& dst, const Tensor& a, float alpha, const char* label) {
    Node& n = new_node();
    n.op = Op::Scale;
    n.dst = dst;
    n.src[0] = a;
    n.alpha = alpha;
    n.label = label;
}

void Graph::softcap(const Tensor& dst, const Tensor& a, float cap, const char* label) {
    scale(dst, a, cap, label);
    nodes_.back().op = Op::SoftCap;
}

void Graph::moe_route(const Tensor& weights, const Tensor& ids, const Tensor& logits, int32_t k,
                      bool renorm, const char* label) {
    Node& n = new_node();
    n.op = Op::MoeRoute;
    n.dst = weights;
    n.aux = ids;
    n.src[0] = logits;
    n.k = k;
    n.renorm = renorm;
    n.label = label;
}

void Graph::moe_mat_mul(const Tensor& dst, const Tensor& w, const Tensor& x, const Tensor& ids,
                        const char* label) {
    Node& n = new_node();
    n.op = Op::MoeMatMul;
    n.dst = dst;
    n.src[0] = w;
    n.src[1] = x;
    n.src[2] = ids;
    n.label = label;
}

void Graph::moe_combine(const Tensor& dst, const Tensor& a, const Tensor& w, const char* label) {
    Node& n = new_node();
    n.op = Op::MoeCombine;
    n.dst = dst;
    n.src[0] = a;
    n.src[1] = w;
    n.label = label;
}

void Graph::argmax(const Tensor& dst, const Tensor& a, const char* label) {
    Node& n = new_node();
    n.op = Op::ArgMax;
    n.dst = dst;
    n.src[0] = a;
    n.label = label;
}

bool is_kv_dtype(DType t) {
    return t == DType::F32 || t == DType::F16 || t == DType::Q8_0 || t == DType::Q4_0;
}

namespace {

Status fail(const Node& n, const std::string& what) {
    return Status::error(std::string(op_name(n.op)) + " '" + n.label + "': " + what);
}

// A tensor that lies inside its buffer, with elements contiguous inside each row.
bool sane(const Tensor& t) {
    if (!t.buffer) return false;
    for (int d = 0; d < 4; ++d)
        if (t.ne[d] < 0) return false;
    if (static_cast<size_t>(t.ne[0]) % dtype_block_size(t.type) != 0) return false;
    if (t.nb[0] != dtype_block_bytes(t.type)) return false;
    const size_t span = t.span_bytes();
    return t.offset <= t.buffer->size() && span <= t.buffer->size() - t.offset;
}

bool is(const Tensor& t, DType type) {
    return sane(t) && t.type == type;
}

bool same_shape(const Tensor& a, const Tensor& b) {
    return a.ne[0] == b.ne[0] && a.ne[1] == b.ne[1] && a.ne[2] == b.ne[2] && a.ne[3] == b.ne[3];
}

bool flat(const Tensor& t) {
    return t.ne[2] == 1 && t.ne[3] == 1;
}

Status validate_kv(const Node& n, int64_t n_tokens) {
    const KvIndex& kv = n.kv;
    if (!is(kv.positions, DType::I32) || kv.positions.ne[0] != n_tokens)
        return fail(n, "positions must be I32 [T]");
    if (!is(kv.block_table, DType::I32) || kv.block_table.ne[0] < 1)
        return fail(n, "block_table must be I32 [blocks, seqs]");
    if (kv.seq_ids.valid() && (!is(kv.seq_ids, DType::I32) || kv.seq_ids.ne[0] != n_tokens))
        return fail(n, "seq_ids must be I32 [T]");
    if (n.kvp.block_size < 1) return fail(n, "block_size must be >= 1");
    return Status::ok();
}

}  // namespace

Status validate_node(const Node& n) {
    const Tensor& d = n.dst;
    const Tensor& a = n.src[0];
    const Tensor& b = n.src[1];
    const DType dst_type = n.op == Op::KvAppend ? d.type
                           : n.op == Op::ArgMax ? DType::I32
                                                : DType::F32;
    if (!is(d, dst_type)) return fail(n, "bad destination");
    if (d.buffer->read_only()) return fail(n, "destination is read-only");
    switch (n.op) {
        case Op::GetRows:
            if (!sane(a) || !is_weight_dtype(a.type) || !flat(a)) return fail(n, "bad table");
            if (!is(b, DType::I32) || !flat(b) || b.ne[1] != 1) return fail(n, "ids must be I32");
            if (d.ne[0] != a.ne[0] || d.ne[1] != b.ne[0] || !flat(d))
                return fail(n, "shape mismatch");
            return Status::ok();
        case Op::MatMul:
            if (!sane(a) || !is_weight_dtype(a.type) || !flat(a)) return fail(n, "bad weight");
            if (!is(b, DType::F32) || !flat(b) || !flat(d)) return fail(n, "bad input");
            if (b.ne[0] != a.ne[0] || d.ne[0] != a.ne[1] || d.ne[1] != b.ne[1])
                return fail(n, "shape mismatch");
            return Status::ok();
        case Op::Add:
        case Op::SwiGlu:
        case Op::GeGlu:
            if (!is(a, DType::F32) || !is(b, DType::F32)) return fail(n, "inputs must be F32");
            if (!flat(a) || !flat(b) || !flat(d) || !same_shape(a, d) || b.ne[0] != a.ne[0])
                return fail(n, "shape mismatch");
            if (b.ne[1] != a.ne[1] && !(n.op == Op::Add && b.ne[1] == 1))
                return fail(n, "row count mismatch");
            return Status::ok();
        case Op::Scale:
        case Op::SoftCap:
            if (!is(a, DType::F32) || !flat(a) || !flat(d) || !same_shape(a, d))
                return fail(n, "input must be F32 of the destination's shape");
            if (!std::isfinite(n.alpha) || (n.op == Op::SoftCap && !(n.alpha > 0.f)))
                return fail(n, "bad factor");
            return Status::ok();
        case Op::MoeRoute: {
            const Tensor& ids = n.aux;
            if (!is(a, DType::F32) || !flat(a) || !flat(d)) return fail(n, "logits must be F32");
            if (!is(ids, DType::I32) || !flat(ids) || ids.ne[0] != d.ne[0] || ids.ne[1] != d.ne[1])
                return fail(n, "ids must be I32 [k, T]");
            if (ids.buffer->read_only()) return fail(n, "ids are read-only");
            if (n.k < 1 || n.k > a.ne[0] || d.ne[0] != n.k || d.ne[1] != a.ne[1])
                return fail(n, "shape mismatch");
            return Status::ok();
        }
        case Op::MoeMatMul: {
            const Tensor& ids = n.src[2];
            if (!sane(a) || !is_weight_dtype(a.type) || a.ne[3] != 1) return fail(n, "bad weight");
            if (!is(b, DType::F32) || b.ne[3] != 1 || d.ne[3] != 1) return fail(n, "bad input");
            if (!is(ids, DType::I32) || !flat(ids)) return fail(n, "ids must be I32 [k, T]");
            const int64_t k = ids.ne[0], T = ids.ne[1];
            if (b.ne[0] != a.ne[0] || d.ne[0] != a.ne[1] || d.ne[1] != k || d.ne[2] != T ||
                b.ne[2] != T || (b.ne[1] != k && b.ne[1] != 1))
                return fail(n, "shape mismatch");
            return Status::ok();
        }
        case Op::MoeCombine:
            if (!is(a, DType::F32) || !is(b, DType::F32) || !flat(b) || !flat(d) || a.ne[3] != 1)
                return fail(n, "inputs must be F32");
            if (a.ne[0] != d.ne[0] || a.ne[2] != d.ne[1] || b.ne[0] != a.ne[1] ||
                b.ne[1] != a.ne[2])
                return fail(n, "shape mismatch");
            return Status::ok();
        case Op::ArgMax:
            if (!is(a, DType::F32) || !flat(a) || a.ne[0] < 1)
                return fail(n, "input must be F32 [n, T]");
            if (!flat(d) || d.ne[0] != 1 || d.ne[1] != a.ne[1])
                return fail(n, "destination must be I32 [1, T]");
            return Status::ok();
        case Op::RmsNorm:
            if (!is(a, DType::F32) || !is(b, DType::F32)) return fail(n, "inputs must be F32");
            if (!flat(a) || !same_shape(a, d) || b.ne[0] != a.ne[0] || b.ne[1] != 1)
                return fail(n, "shape mismatch");
            if (!(n.eps >= 0.f)) return fail(n, "bad eps");
            return Status::ok();
        case Op::Rope: {
            if (!is(a, DType::F32) || !same_shape(a, d) || a.ne[3] != 1)
                return fail(n, "input must be F32 [d, H, T]");
            if (!is(b, DType::I32) || b.ne[0] != a.ne[2]) return fail(n, "positions must be [T]");
            const int32_t r = n.rope.n_rot;
            if (r <= 0 || r % 2 != 0 || r > a.ne[0]) return fail(n, "bad n_rot");
            if (!std::isfinite(n.rope.attn_factor)) return fail(n, "bad attn_factor");
            const Tensor& ff = n.src[2];
            if (ff.valid() && (!is(ff, DType::F32) || ff.ne[0] < r / 2))
                return fail(n, "freq_factors must be F32 [n_rot/2]");
            return Status::ok();
        }
        case Op::KvAppend:
            if (!is_kv_dtype(d.type)) return fail(n, "cache type");
            if (!is(a, DType::F32) || !flat(a) || !flat(d) || a.ne[0] != d.ne[0])
                return fail(n, "shape mismatch");
            return validate_kv(n, a.ne[1]);
        case Op::Attention: {
            const Tensor& kc = b;
            const Tensor& vc = n.src[2];
            if (!is(a, DType::F32) || !same_shape(a, d) || a.ne[3] != 1)
                return fail(n, "q must be F32 [d, H, T]");
            if (!sane(kc) || !sane(vc) || kc.type != vc.type || !flat(kc) || !flat(vc))
                return fail(n, "bad cache");
            if (!is_kv_dtype(kc.type)) return fail(n, "cache type");
            const int64_t hd = a.ne[0];
            if (kc.ne[0] % hd != 0 || vc.ne[0] != kc.ne[0] || kc.ne[1] != vc.ne[1])
                return fail(n, "cache shape mismatch");
            const int64_t h_kv = kc.ne[0] / hd;
            if (h_kv == 0 || a.ne[1] % h_kv != 0)
                return fail(n, "heads not a multiple of kv heads");
            if (!(n.kvp.softcap >= 0.f) || n.kvp.window < 0)
                return fail(n, "bad soft-cap or window");
            return validate_kv(n, a.ne[2]);
        }
    }
    return fail(n, "unknown op");
}

Status validate_graph(const Graph& graph) {
    for (const Node& n : graph.nodes())
        if (Status s = validate_node(n); !s) return s;
    return Status::ok();
}

}  // namespace hearth::backend
