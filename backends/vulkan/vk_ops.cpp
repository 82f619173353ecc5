#include "vk_ops.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <string>

namespace hearth::backend::vk {

namespace {

// The weight formats the kernels decode (decode.glsl): all 15 of the quant table.
bool weight_supported(DType t) {
    switch (t) {
        case DType::F32:
        case DType::F16:
        case DType::BF16:
        case DType::Q4_0:
        case DType::Q4_1:
        case DType::Q5_0:
        case DType::Q5_1:
        case DType::Q8_0:
        case DType::Q4_K:
        case DType::Q5_K:
        case DType::Q6_K:
        case DType::Q2_K:
        case DType::Q3_K:
        case DType::IQ4_NL:
        case DType::IQ4_XS:
            return true;
        default:
            return false;
    }
}

constexpr uint32_t kMaxGroups = 65535;
constexpr uint32_t kMatMulCols = 8;                   // columns per workgroup (mul_mat.comp NC)
constexpr uint32_t kMatMulRowsPerZ = 32768;           // workgroups (mul_mat) or rows per z slice
constexpr uint32_t kMatMulRowsPerGroup = 8;           // mul_mat.comp RPW
constexpr uint32_t kMaxHeadDim = 256;                 // attention.comp MAX_HD
constexpr int64_t kTiledMinCols = 16;                 // from this many columns: mul_mat_tiled
constexpr uint32_t kTiledRows = 64, kTiledCols = 32;  // mul_mat_tiled.comp BM, BN
constexpr size_t kQ8BlockBytes = 40;                  // quantize_q8.comp: 32 codes, scale, code sum
constexpr int64_t kMoeGroupMinTokens = 8;             // from this many tokens: moe_group + tiled
constexpr int64_t kMoeGroupMaxExperts = 256;          // moe_group.comp's shared counts

// Bytes one binding may hold for a tensor, leaving room to align its start down.
VkDeviceSize room(const Context& ctx) {
    return ctx.max_range() - ctx.offset_alignment();
}

bool aligned4(const Tensor& t) {
    return t.offset % 4 == 0 && t.nb[1] % 4 == 0 && t.nb[2] % 4 == 0 && t.nb[3] % 4 == 0;
}

uint32_t u32(int64_t v) {
    return static_cast<uint32_t>(v);
}
uint32_t u32(size_t v) {
    return static_cast<uint32_t>(v);
}

Binding whole(const Tensor& t, bool write = false) {
    const auto* b = static_cast<const VkBuf*>(t.buffer);
    return {b, t.offset, t.offset + t.span_bytes(), write};
}

// Rows [first, first + count) of dimension 1 of a flat tensor.
Binding rows(const Tensor& t, int64_t first, int64_t count, bool write = false) {
    const auto* b = static_cast<const VkBuf*>(t.buffer);
    const VkDeviceSize begin = t.offset + size_t(first) * t.nb[1];
    return {b, begin, begin + size_t(count - 1) * t.nb[1] + t.row_bytes(), write};
}

// A tensor that must fit in one binding: F32/I32, 4-byte aligned, small enough.
std::string fits(const Context& ctx, const Tensor& t, const char* what) {
    if (!aligned4(t)) return std::string(what) + " is not 4-byte aligned";
    if (t.span_bytes() > room(ctx))
        return std::string(what) + " spans more than one storage binding (maxStorageBufferRange " +
               std::to_string(ctx.max_range()) + ")";
    return "";
}

std::string weight_ok(const Context& ctx, const Tensor& w) {
    if (!weight_supported(w.type))
        return std::string("weight type ") + dtype_name(w.type) + " is not implemented on Vulkan";
    if (w.offset % 4 != 0 || w.nb[1] % 2 != 0 || (w.type == DType::F32 && w.nb[1] % 4 != 0))
        return "weight rows are not aligned";
    if (w.row_bytes() > room(ctx)) return "one weight row is larger than a storage binding";
    return "";
}

bool env_on(const char* name) {
    const char* v = std::getenv(name);
    return v && *v && std::strcmp(v, "0") != 0;
}

// The matrix kernel variant: subgroup sums or shared memory, halves as float16_t or unpacked.
const char* matmul_kernel(const Context& ctx) {
    if (ctx.use_subgroups()) return ctx.use_f16_storage() ? "mul_mat_sg_h16" : "mul_mat_sg";
    return ctx.use_f16_storage() ? "mul_mat_h16" : "mul_mat";
}

}  // namespace

std::string unsupported_reason(const Context& ctx, const Node& n) {
    const Tensor& d = n.dst;
    const Tensor& a = n.src[0];
    const Tensor& b = n.src[1];
    std::string why;
    auto check = [&](const std::string& w) {
        if (why.empty()) why = w;
    };
    switch (n.op) {
        case Op::GetRows:
            check(weight_ok(ctx, a));
            check(fits(ctx, b, "ids"));
            check(fits(ctx, d, "destination"));
            if (b.ne[0] > kMaxGroups) check("too many tokens");
            break;
        case Op::MatMul:
            check(weight_ok(ctx, a));
            check(aligned4(b) ? "" : "input is not aligned");
            check(aligned4(d) ? "" : "destination is not aligned");
            if (size_t(b.nb[1]) > room(ctx) || size_t(d.nb[1]) > room(ctx))
                check("one column is larger than a storage binding");
            break;
        case Op::Add:
        case Op::SwiGlu:
        case Op::GeGlu:
            check(fits(ctx, b, "b"));
            [[fallthrough]];
        case Op::Scale:
        case Op::SoftCap:
            check(fits(ctx, a, "a"));
            check(fits(ctx, d, "destination"));
            if (d.ne[1] > kMaxGroups) check("too many rows");
            break;
        case Op::RmsNorm:
            check(fits(ctx, a, "a"));
            check(fits(ctx, b, "weight"));
            check(fits(ctx, d, "destination"));
            break;
        case Op::Rope:
            check(fits(ctx, a, "a"));
            check(fits(ctx, d, "destination"));
            check(fits(ctx, b, "positions"));
            if (n.src[2].valid()) check(fits(ctx, n.src[2], "freq_factors"));
            if (a.ne[1] > kMaxGroups || a.ne[2] > kMaxGroups) check("too many heads or tokens");
            break;
        case Op::KvAppend:
        case Op::Attention: {
            const Tensor& cache = n.op == Op::KvAppend ? d : b;
            if (!is_kv_dtype(cache.type))
                check(std::string("cache type ") + dtype_name(cache.type));
            if (cache.offset % 4 != 0 || cache.nb[1] % 2 != 0) check("cache rows are not aligned");
            if (cache.span_bytes() > room(ctx))
                check("the KV cache spans more than one storage binding");
            check(fits(ctx, a, n.op == Op::KvAppend ? "new rows" : "q"));
            check(fits(ctx, n.kv.positions, "positions"));
            check(fits(ctx, n.kv.block_table, "block table"));
            if (n.kv.seq_ids.valid()) check(fits(ctx, n.kv.seq_ids, "seq ids"));
            if (n.op == Op::Attention) {
                check(fits(ctx, d, "destination"));
                if (n.src[2].span_bytes() > room(ctx))
                    check("the KV cache spans more than one storage binding");
                if (a.ne[0] > kMaxHeadDim) check("head size above 256");
                if (a.ne[1] > kMaxGroups || a.ne[2] > kMaxGroups) check("too many heads or tokens");
            } else if (a.ne[1] > kMaxGroups) {
                check("too many tokens");
            }
            break;
        }
        case Op::MoeRoute:
            check(fits(ctx, a, "logits"));
            check(fits(ctx, d, "weights"));
            check(fits(ctx, n.aux, "ids"));
            if (a.ne[0] > 256) check("more than 256 experts");
            break;
        case Op::MoeMatMul: {
            check(weight_ok(ctx, a));
            if (a.span_bytes() > room(ctx))
                check("the expert weights span more than one storage binding");
            if (a.nb[2] % 2 != 0) check("expert matrices are not aligned");
            check(fits(ctx, b, "input"));
            check(fits(ctx, n.src[2], "ids"));
            check(fits(ctx, d, "destination"));
            const Tensor& ids = n.src[2];
            if (ids.ne[0] * ids.ne[1] > kMaxGroups) check("too many slots");
            if (a.ne[1] > int64_t(kMaxGroups) * kTiledRows) check("too many rows");
            break;
        }
        case Op::MoeCombine:
            check(fits(ctx, a, "a"));
            check(fits(ctx, b, "w"));
            check(fits(ctx, d, "destination"));
            if (d.ne[1] > kMaxGroups) check("too many tokens");
            break;
        case Op::ArgMax:
            check(fits(ctx, a, "a"));
            check(fits(ctx, d, "destination"));
            if (a.ne[1] > kMaxGroups) check("too many columns");
            break;
    }
    return why;
}

std::string index_error_text(const Node& n, uint32_t what, int32_t value) {
    const std::string where = std::string(op_name(n.op)) + " '" + n.label + "': ";
    switch (what) {
        case 1:
            return where + "token id " + std::to_string(value) + " outside the vocabulary of " +
                   std::to_string(n.src[0].ne[1]);
        case 2:
            return where + "expert id " + std::to_string(value) + " outside the " +
                   std::to_string(n.src[0].ne[2]) + " experts";
        default:
            return where + "token " + std::to_string(value) +
                   ": sequence, position or block table entry outside the cache";
    }
}

bool supports_node(const Context& ctx, const Node& n) {
    return unsupported_reason(ctx, n).empty();
}

uint32_t attention_splits(const Context& ctx, int64_t heads, int64_t tokens, int64_t cells,
                          int64_t head_dim) {
    int64_t s = 1;
    if (const char* e = std::getenv("HEARTH_VULKAN_ATTN_SPLIT"); e && *e) {
        s = std::atoll(e);
    } else if (heads * tokens < 128) {  // too few workgroups to fill a GPU
        s = std::min<int64_t>(cells / 512, 256 / std::max<int64_t>(heads * tokens, 1));
    }
    s = std::clamp<int64_t>(s, 1, 64);
    // The partials must fit in one binding.
    const int64_t per = heads * tokens * (head_dim + 2) * 4;
    s = std::min<int64_t>(s, std::max<int64_t>(1, int64_t(room(ctx)) / std::max<int64_t>(per, 1)));
    return static_cast<uint32_t>(s);
}

Status encode_node(const Context& ctx, const Node& n, const RopeTable& rope, const Scratch& scratch,
                   std::vector<Dispatch>& out) {
    const Tensor& d = n.dst;
    const Tensor& a = n.src[0];
    const Tensor& b = n.src[1];
    switch (n.op) {
        case Op::GetRows: {
            const int64_t V = a.ne[1], T = b.ne[0];
            const int64_t per = std::max<int64_t>(1, int64_t(room(ctx) / a.nb[1]));
            for (int64_t r0 = 0; r0 < V; r0 += per) {
                const int64_t nr = std::min(per, V - r0);
                Dispatch& x = out.emplace_back();
                x.kernel = ctx.use_f16_storage() ? "get_rows_h16" : "get_rows";
                x.fmt = static_cast<uint32_t>(a.type);
                x.b[0] = whole(d, true);
                x.b[1] = rows(a, r0, nr);
                x.b[2] = whole(b);
                x.pc.u[0] = u32(a.ne[0]);
                x.pc.u[1] = u32(T);
                x.pc.u[2] = u32(r0);
                x.pc.u[3] = u32(nr);
                x.pc.u[4] = u32(a.nb[1]);
                x.pc.u[5] = u32(d.nb[1]);
                x.pc.u[6] = u32(V);
                x.groups[0] = u32(T);
                x.index_errors = true;
            }
            return Status::ok();
        }
        case Op::MatMul: {
            const int64_t m = a.ne[1], T = b.ne[1];
            // Q8_0/Q4_0 with integer dot products: each chunk of columns is quantized to 8 bits
            // per block once (quantize_q8, into the stream's scratch), then every weight row
            // chunk reads the codes (mul_mat_q8).
            // Prefill batches: the shared-memory tiled kernel (each decoded weight serves 32
            // columns) for every format.
            const bool tiled = T >= kTiledMinCols && m <= int64_t(kMaxGroups) * kTiledRows &&
                               !env_on("HEARTH_VULKAN_NO_TILED");
            const bool q8 =
                !tiled && ctx.use_int_dot() && (a.type == DType::Q8_0 || a.type == DType::Q4_0);
            const size_t xq_col = q8 ? size_t(a.ne[0] / 32) * kQ8BlockBytes : 0;
            const int64_t wper = std::max<int64_t>(1, int64_t(room(ctx) / a.nb[1]));
            int64_t cper = int64_t(room(ctx) / std::max({b.nb[1], d.nb[1], xq_col}));
            cper = std::clamp<int64_t>(
                cper, 1, q8 ? int64_t(kMaxGroups) : int64_t(kMaxGroups) * kMatMulCols);
            for (int64_t c0 = 0; c0 < T; c0 += cper) {
                const int64_t nc = std::min(cper, T - c0);
                Binding xq;
                if (q8) {
                    auto s = scratch(size_t(nc) * xq_col);
                    if (!s) return s.status();
                    xq = {*s, 0, size_t(nc) * xq_col, true};
                    Dispatch& qd = out.emplace_back();
                    qd.kernel = "quantize_q8";
                    qd.b[0] = xq;
                    qd.b[1] = rows(b, c0, nc);
                    qd.pc.u[0] = u32(a.ne[0]);
                    qd.pc.u[1] = u32(nc);
                    qd.pc.u[2] = u32(b.nb[1]);
                    qd.pc.u[3] = u32(xq_col);
                    qd.groups[0] = u32((a.ne[0] / 32 + 63) / 64);
                    qd.groups[1] = u32(nc);
                    xq.write = false;
                }
                for (int64_t r0 = 0; r0 < m; r0 += wper) {
                    const int64_t nr = std::min(wper, m - r0);
                    Dispatch& x = out.emplace_back();
                    x.kernel = tiled
                                   ? (ctx.use_f16_storage() ? "mul_mat_tiled_h16" : "mul_mat_tiled")
                               : q8 ? (ctx.use_subgroups() ? "mul_mat_q8_sg" : "mul_mat_q8")
                                    : matmul_kernel(ctx);
                    x.fmt = static_cast<uint32_t>(a.type);
                    x.b[0] = rows(d, c0, nc, true);
                    x.b[1] = rows(a, r0, nr);
                    x.b[2] = q8 ? xq : rows(b, c0, nc);
                    x.pc.u[0] = u32(a.ne[0]);
                    x.pc.u[1] = u32(nr);
                    x.pc.u[2] = u32(nc);
                    x.pc.u[3] = u32(a.nb[1]);
                    x.pc.u[4] = q8 ? u32(xq_col) : u32(b.nb[1]);
                    x.pc.u[5] = u32(d.nb[1]);
                    x.pc.u[6] = u32(r0);
                    if (tiled) {
                        x.groups[0] = u32((nr + kTiledRows - 1) / kTiledRows);
                        x.groups[1] = u32((nc + kTiledCols - 1) / kTiledCols);
                        continue;
                    }
                    const int64_t wgs = (nr + kMatMulRowsPerGroup - 1) / kMatMulRowsPerGroup;
                    x.pc.u[7] = kMatMulRowsPerZ;
                    x.groups[0] = u32(std::min<int64_t>(wgs, kMatMulRowsPerZ));
                    x.groups[1] = u32((nc + kMatMulCols - 1) / kMatMulCols);
                    x.groups[2] = u32((wgs + kMatMulRowsPerZ - 1) / kMatMulRowsPerZ);
                }
            }
            return Status::ok();
        }
        case Op::Add:
        case Op::SwiGlu:
        case Op::GeGlu:
        case Op::Scale:
        case Op::SoftCap: {
            Dispatch& x = out.emplace_back();
            x.kernel = "elementwise";
            x.b[0] = whole(d, true);
            x.b[1] = whole(a);
            const bool binary = n.op == Op::Add || n.op == Op::SwiGlu || n.op == Op::GeGlu;
            if (binary) x.b[2] = whole(b);
            x.pc.u[0] = u32(a.ne[0]);
            x.pc.u[1] = u32(a.ne[1]);
            x.pc.u[2] = n.op == Op::Add      ? 0
                        : n.op == Op::SwiGlu ? 1
                        : n.op == Op::GeGlu  ? 2
                        : n.op == Op::Scale  ? 3
                                             : 4;
            x.pc.u[3] = u32(a.nb[1]);
            x.pc.u[4] = binary && b.ne[1] > 1 ? u32(b.nb[1]) : 0;
            x.pc.u[5] = u32(d.nb[1]);
            x.pc.f[0] = n.alpha;
            x.groups[0] = u32((a.ne[0] + 63) / 64);
            x.groups[1] = u32(a.ne[1]);
            return Status::ok();
        }
        case Op::RmsNorm: {
            Dispatch& x = out.emplace_back();
            x.kernel = "rms_norm";
            x.b[0] = whole(d, true);
            x.b[1] = whole(a);
            x.b[2] = whole(b);
            const int64_t R = a.ne[1];
            x.pc.u[0] = u32(a.ne[0]);
            x.pc.u[1] = u32(R);
            x.pc.u[2] = u32(a.nb[1]);
            x.pc.u[3] = u32(d.nb[1]);
            x.pc.f[0] = n.eps;
            x.groups[0] = u32(std::min<int64_t>(R, kMaxGroups));
            x.groups[1] = u32((R + kMaxGroups - 1) / kMaxGroups);
            return Status::ok();
        }
        case Op::Rope: {
            auto table = rope(n.rope);
            if (!table) return table.status();
            Dispatch& x = out.emplace_back();
            x.kernel = "rope";
            x.b[0] = whole(d, true);
            x.b[1] = whole(a);
            x.b[2] = whole(b);
            if (n.src[2].valid()) x.b[3] = whole(n.src[2]);
            x.b[4] = {*table, 0, (*table)->size(), false};
            x.pc.u[0] = u32(a.ne[0]);
            x.pc.u[1] = u32(a.ne[1]);
            x.pc.u[2] = u32(a.ne[2]);
            x.pc.u[3] = u32(int64_t(n.rope.n_rot));
            x.pc.u[4] = n.rope.mode == RopeMode::Adjacent ? 0 : 1;
            x.pc.u[5] = n.src[2].valid() ? 1 : 0;
            x.pc.u[6] = u32(a.nb[1]);
            x.pc.u[7] = u32(a.nb[2]);
            x.pc.u[8] = u32(d.nb[1]);
            x.pc.u[9] = u32(d.nb[2]);
            x.pc.f[0] = n.rope.attn_factor;
            x.groups[0] = u32(a.ne[1]);
            x.groups[1] = u32(a.ne[2]);
            return Status::ok();
        }
        case Op::KvAppend: {
            const KvIndex& kv = n.kv;
            Dispatch& x = out.emplace_back();
            x.kernel = "kv_append";
            x.fmt = static_cast<uint32_t>(d.type);
            x.b[0] = whole(d, true);
            x.b[1] = whole(a);
            x.b[4] = whole(kv.positions);
            x.b[5] = whole(kv.block_table);
            if (kv.seq_ids.valid()) x.b[6] = whole(kv.seq_ids);
            x.pc.u[0] = u32(d.ne[0]);
            x.pc.u[1] = u32(a.ne[1]);
            x.pc.u[2] = u32(d.nb[1]);
            x.pc.u[3] = u32(a.nb[1]);
            x.pc.u[4] = u32(int64_t(n.kvp.block_size));
            x.pc.u[5] = u32(kv.block_table.ne[0]);
            x.pc.u[6] = u32(d.ne[1]);
            x.pc.u[7] = u32(kv.block_table.ne[1]);
            x.pc.u[12] = u32(kv.block_table.nb[1]);
            x.pc.u[13] = kv.seq_ids.valid() ? 1 : 0;
            x.groups[0] = u32(a.ne[1]);
            x.index_errors = true;
            return Status::ok();
        }
        case Op::Attention: {
            const KvIndex& kv = n.kv;
            const Tensor& kc = b;
            const Tensor& vc = n.src[2];
            Dispatch& x = out.emplace_back();
            x.kernel = ctx.use_f16_storage() ? "attention_h16" : "attention";
            x.fmt = static_cast<uint32_t>(kc.type);
            x.b[0] = whole(d, true);
            x.b[1] = whole(a);
            x.b[2] = whole(kc);
            x.b[3] = whole(vc);
            x.b[4] = whole(kv.positions);
            x.b[5] = whole(kv.block_table);
            if (kv.seq_ids.valid()) x.b[6] = whole(kv.seq_ids);
            const int64_t hd = a.ne[0];
            x.pc.u[0] = u32(hd);
            x.pc.u[1] = u32(a.ne[1]);
            x.pc.u[2] = u32(kc.ne[0] / hd);
            x.pc.u[3] = u32(kc.ne[1]);
            x.pc.u[4] = u32(kc.nb[1]);
            x.pc.u[5] = u32(vc.nb[1]);
            x.pc.u[6] = u32(a.nb[1]);
            x.pc.u[7] = u32(a.nb[2]);
            x.pc.u[8] = u32(d.nb[1]);
            x.pc.u[9] = u32(d.nb[2]);
            x.pc.u[10] = u32(int64_t(n.kvp.block_size));
            x.pc.u[11] = u32(kv.block_table.ne[0]);
            x.pc.u[12] = u32(kv.block_table.nb[1]);
            x.pc.u[13] = kv.seq_ids.valid() ? u32(kv.block_table.ne[1]) : 0;
            x.pc.f[0] = n.kvp.scale;
            x.pc.f[1] = n.kvp.softcap;
            x.pc.f[2] = std::bit_cast<float>(u32(int64_t(n.kvp.window)));
            x.groups[0] = u32(a.ne[1]);
            x.groups[1] = u32(a.ne[2]);
            const uint32_t S = attention_splits(ctx, a.ne[1], a.ne[2], kc.ne[1], hd);
            x.index_errors = S <= 1;  // a cell outside the cache, reported on binding 7
            if (S > 1) {
                const size_t bytes = size_t(S) * size_t(a.ne[1] * a.ne[2] * (hd + 2)) * 4;
                auto part = scratch(bytes);
                if (!part) return part.status();
                x.pc.u[14] = S;
                x.groups[2] = S;
                x.b[7] = {*part, 0, bytes, true};
                // The shares mark a cell outside the cache in their partials; the combine
                // reports it (binding 7 holds the partials there too).
                Dispatch& c = out.emplace_back();
                c.kernel = "attention_combine";
                c.index_errors = true;
                c.error_binding = 6;
                c.b[0] = whole(d, true);
                c.b[7] = {*part, 0, bytes, false};
                c.pc.u[0] = u32(hd);
                c.pc.u[1] = u32(a.ne[1]);
                c.pc.u[2] = u32(a.ne[2]);
                c.pc.u[8] = u32(d.nb[1]);
                c.pc.u[9] = u32(d.nb[2]);
                c.pc.u[14] = S;
                c.groups[0] = u32(a.ne[1]);
                c.groups[1] = u32(a.ne[2]);
            }
            return Status::ok();
        }
        case Op::MoeMatMul: {
            const Tensor& ids = n.src[2];
            const int64_t m = a.ne[1], k = ids.ne[0], T = ids.ne[1], E = a.ne[2];
            // Both kernels: dst, the experts' weights and the input in bindings 0-2, and the
            // same sizes and strides in u0-u9 and u11.
            auto expert_product = [&](const char* kernel) -> Dispatch& {
                Dispatch& x = out.emplace_back();
                x.kernel = kernel;
                x.fmt = static_cast<uint32_t>(a.type);
                x.b[0] = whole(d, true);
                x.b[1] = whole(a);
                x.b[2] = whole(b);
                x.pc.u[0] = u32(a.ne[0]);
                x.pc.u[1] = u32(m);
                x.pc.u[2] = u32(k);
                x.pc.u[3] = u32(a.nb[1]);
                x.pc.u[4] = u32(a.nb[2]);
                x.pc.u[5] = u32(b.nb[1]);
                x.pc.u[6] = u32(b.nb[2]);
                x.pc.u[7] = b.ne[1] == k && k > 1 ? 1 : 0;
                x.pc.u[8] = u32(d.nb[1]);
                x.pc.u[9] = u32(d.nb[2]);
                x.pc.u[11] = u32(E);
                return x;
            };
            // Prefill: the slots are grouped by expert on the device (moe_group), then each
            // expert's rows are decoded once per 32 of its slots (moe_mat_mul_tiled) instead of
            // once per slot. All in the same command buffer: no host round trip for the counts.
            if (T >= kMoeGroupMinTokens && E <= kMoeGroupMaxExperts &&
                !env_on("HEARTH_VULKAN_NO_MOE_GROUP")) {
                const size_t bytes = size_t(2 * E + k * T) * 4;
                auto s = scratch(bytes);
                if (!s) return s.status();
                Dispatch& gd = out.emplace_back();
                gd.kernel = "moe_group";
                gd.b[0] = {*s, 0, bytes, true};
                gd.b[3] = whole(ids);
                gd.pc.u[0] = u32(k);
                gd.pc.u[1] = u32(T);
                gd.pc.u[2] = u32(ids.nb[1]);
                gd.pc.u[3] = u32(E);
                gd.index_errors = true;
                Dispatch& x = expert_product(ctx.use_f16_storage() ? "moe_mat_mul_tiled_h16"
                                                                   : "moe_mat_mul_tiled");
                x.b[3] = {*s, 0, bytes, false};
                // Slot tiles per expert: twice the mean share, at most what the busiest expert
                // can have (T); an expert with more loops over its tiles.
                const int64_t mean = (k * T + E - 1) / E;
                const int64_t tiles_max = (T + kTiledCols - 1) / kTiledCols;
                x.groups[0] = u32((m + kTiledRows - 1) / kTiledRows);
                x.groups[1] = u32(
                    std::clamp<int64_t>(2 * ((mean + kTiledCols - 1) / kTiledCols), 1, tiles_max));
                x.groups[2] = u32(E);
                return Status::ok();
            }
            Dispatch& x = expert_product(ctx.use_f16_storage() ? "moe_mat_mul_h16" : "moe_mat_mul");
            x.b[3] = whole(ids);
            x.pc.u[10] = u32(ids.nb[1]);
            x.pc.u[12] = kMatMulRowsPerZ;
            x.groups[0] = u32(std::min<int64_t>(m, kMatMulRowsPerZ));
            x.groups[1] = u32(k * T);
            x.groups[2] = u32((m + kMatMulRowsPerZ - 1) / kMatMulRowsPerZ);
            x.index_errors = true;
            return Status::ok();
        }
        case Op::MoeCombine: {
            Dispatch& x = out.emplace_back();
            x.kernel = "moe";
            x.b[0] = whole(d, true);
            x.b[1] = whole(a);
            x.b[2] = whole(b);
            x.pc.u[0] = 0;
            x.pc.u[1] = u32(a.ne[0]);
            x.pc.u[2] = u32(d.ne[1]);
            x.pc.u[3] = u32(a.ne[1]);
            x.pc.u[4] = u32(a.nb[1]);
            x.pc.u[5] = u32(a.nb[2]);
            x.pc.u[6] = u32(b.nb[1]);
            x.pc.u[7] = u32(d.nb[1]);
            x.groups[0] = u32((a.ne[0] + 63) / 64);
            x.groups[1] = u32(d.ne[1]);
            return Status::ok();
        }
        case Op::MoeRoute: {
            Dispatch& x = out.emplace_back();
            x.kernel = "moe";
            x.b[0] = whole(d, true);
            x.b[1] = whole(a);
            x.b[2] = whole(n.aux, true);
            x.pc.u[0] = 1;
            x.pc.u[1] = u32(a.ne[0]);
            x.pc.u[2] = u32(a.ne[1]);
            x.pc.u[3] = u32(int64_t(n.k));
            x.pc.u[4] = u32(a.nb[1]);
            x.pc.u[6] = u32(n.aux.nb[1]);
            x.pc.u[7] = u32(d.nb[1]);
            x.pc.u[8] = n.renorm ? 1 : 0;
            x.groups[0] = u32((a.ne[1] + 63) / 64);
            return Status::ok();
        }
        case Op::ArgMax: {
            Dispatch& x = out.emplace_back();
            x.kernel = ctx.use_subgroups() ? "argmax_sg" : "argmax";
            x.b[0] = whole(d, true);
            x.b[1] = whole(a);
            x.pc.u[0] = u32(a.ne[0]);
            x.pc.u[1] = u32(a.nb[1]);
            x.pc.u[2] = u32(d.nb[1]);
            x.groups[0] = u32(a.ne[1]);
            return Status::ok();
        }
    }
    return Status::error(std::string("vulkan: ") + op_name(n.op) + " is not implemented");
}

}  // namespace hearth::backend::vk
