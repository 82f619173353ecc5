// Attention on the CPU: work items are (tile of consecutive tokens of one sequence, KV heads);
// an item's rows are the tile's tokens times the query heads of the group, and the kernels of
// cpu/kernels (attn_*) run the online softmax over the item's cells in chunks, each K and V
// row decoded once for all rows. A token only takes the cells up to its own position (causal)
// and, with a sliding window, none before it; chunks no row of an item can see are never read.
#include <algorithm>
#include <cstring>

#include "core/host_access.h"
#include "core/kv_lookup.h"
#include "cpu/cpu_ops.h"
#include "cpu/kernels/kernels.h"

namespace hearth::backend::cpu_ops {

namespace {

// Rows per work item: enough that a decoded chunk of K/V serves many rows (prefill), few
// enough that the state stays in L2.
constexpr int64_t kItemRows = 128;

int64_t group_of(const Node& n) {
    const int64_t hd = n.src[0].ne[0];
    const int64_t kv_heads = std::max<int64_t>(1, n.src[1].ne[0] / hd);
    return std::max<int64_t>(1, n.src[0].ne[1] / kv_heads);
}

int64_t tile_tokens(const Node& n) {
    return std::max<int64_t>(1, kItemRows / group_of(n));
}

cpu::KvFormat kv_format(DType t) {
    switch (t) {
        case DType::F16:
            return cpu::KvFormat::F16;
        case DType::Q8_0:
            return cpu::KvFormat::Q8_0;
        case DType::Q4_0:
            return cpu::KvFormat::Q4_0;
        default:
            return cpu::KvFormat::F32;
    }
}

void prefetch_slice(const uint8_t* p, size_t bytes) {
    const auto first = reinterpret_cast<uintptr_t>(p) & ~uintptr_t(63);
    const auto end = reinterpret_cast<uintptr_t>(p + bytes);
    for (uintptr_t line = first; line < end; line += 64)
        __builtin_prefetch(reinterpret_cast<const void*>(line), 0, 3);
}

// Per-thread scratch of one item: q and out pointers, lo and hi per row, then the kernel
// state (16-float aligned offsets; the stream aligns each thread's share the same way).
struct ItemScratch {
    const float** q;
    float** out;
    int32_t* lo;
    int32_t* hi;
    float* state;
};

size_t round16(size_t f) {
    return (f + 15) / 16 * 16;
}

size_t item_scratch_floats(size_t hd, size_t rows) {
    return round16(4 * rows) + round16(2 * rows) + cpu::attn_state_floats(hd, rows);
}

ItemScratch item_scratch(float* base, size_t rows) {
    ItemScratch s;
    auto* p = reinterpret_cast<std::byte*>(base);
    s.q = reinterpret_cast<const float**>(p);
    s.out = reinterpret_cast<float**>(p + rows * sizeof(void*));
    p += round16(4 * rows) * sizeof(float);
    s.lo = reinterpret_cast<int32_t*>(p);
    s.hi = s.lo + rows;
    p += round16(2 * rows) * sizeof(float);
    s.state = reinterpret_cast<float*>(p);
    return s;
}

// Tokens [t0, t1) (one sequence) against KV heads [kvh0, kvh1): one state per head, and the
// heads inner to the cell loop, so an item reads its part of each cache row in one go (a
// head alone is a few cache lines of a row; items of single heads would each pull whole rows
// through the prefetchers, several times the cache's bytes at long contexts).
void attend_item(const Node& n, const KvLookup& lk, int64_t t0, int64_t t1, int64_t kvh0,
                 int64_t kvh1, float* scratch) {
    const Tensor& q = n.src[0];
    const Tensor& kc = n.src[1];
    const Tensor& vc = n.src[2];
    const int64_t hd = q.ne[0];
    const int64_t group = group_of(n);
    const size_t rows = static_cast<size_t>((t1 - t0) * group);
    const size_t ud = static_cast<size_t>(hd);
    const size_t head_floats = item_scratch_floats(ud, rows);
    const int64_t window = n.kvp.window;
    int64_t j_first = INT64_MAX, n_kv = 0;
    for (int64_t kvh = kvh0; kvh < kvh1; ++kvh) {
        const ItemScratch s = item_scratch(scratch + size_t(kvh - kvh0) * head_floats, rows);
        for (int64_t t = t0; t < t1; ++t) {
            const int32_t pos = lk.position(t);
            const int32_t lo = window > 0 ? std::max<int32_t>(0, pos + 1 - int32_t(window)) : 0;
            j_first = std::min<int64_t>(j_first, lo);
            n_kv = std::max<int64_t>(n_kv, int64_t(pos) + 1);
            for (int64_t g = 0; g < group; ++g) {
                const size_t r = static_cast<size_t>((t - t0) * group + g);
                s.q[r] = f32_row(q, kvh * group + g, t);
                s.out[r] = f32_row(n.dst, kvh * group + g, t);
                s.lo[r] = lo;
                s.hi[r] = pos;
            }
        }
        cpu::attn_begin(s.state, ud, rows, s.q, n.kvp.scale, s.lo, s.hi);
    }
    const cpu::KvFormat fmt = kv_format(kc.type);
    const int64_t seq = lk.seq(t0);
    // Row pointers of the current chunk and of the next one (buffers cur and 1 - cur).
    const uint8_t* kp[2][cpu::kAttnChunk];
    const uint8_t* vp[2][cpu::kAttnChunk];
    constexpr auto kChunk = static_cast<int64_t>(cpu::kAttnChunk);
    auto fill_rows = [&](int64_t j0, int b) {
        for (int64_t c = 0; c < std::min(kChunk, n_kv - j0); ++c) {
            const int64_t cell = lk.cell(seq, j0 + c);
            kp[b][c] = reinterpret_cast<const uint8_t*>(row_ptr(kc, cell));
            vp[b][c] = reinterpret_cast<const uint8_t*>(row_ptr(vc, cell));
        }
    };
    // The item's heads within a cache row.
    const size_t slice_begin = dtype_row_bytes(kc.type, size_t(kvh0 * hd));
    const size_t slice_bytes = dtype_row_bytes(kc.type, size_t((kvh1 - kvh0) * hd));
    // Chunks start at multiples of kChunk whatever the item's rows (a sliding window's first
    // visible cell depends on them): a row's online softmax then folds the same runs of cells
    // alone or in a batch (batch invariance, cpu/kernels/kernels.h); cells below a row's
    // window are masked.
    int cur = 0;
    const int64_t j_start = j_first / kChunk * kChunk;
    if (j_start < n_kv) fill_rows(j_start, cur);
    for (int64_t j0 = j_start; j0 < n_kv; j0 += kChunk, cur = 1 - cur) {
        const int64_t jn = std::min(kChunk, n_kv - j0);
        // The next chunk's slices are requested while this one is computed: a chunk's cells are
        // cache rows hundreds of bytes apart of which an item reads a slice, runs too short for
        // the hardware prefetchers, and without this a decode step at a 4k context spent most
        // of its attention time waiting on them.
        if (const int64_t next = j0 + kChunk; next < n_kv) {
            fill_rows(next, 1 - cur);
            for (int64_t c = 0; c < std::min(kChunk, n_kv - next); ++c) {
                prefetch_slice(kp[1 - cur][c] + slice_begin, slice_bytes);
                prefetch_slice(vp[1 - cur][c] + slice_begin, slice_bytes);
            }
        }
        for (int64_t kvh = kvh0; kvh < kvh1; ++kvh) {
            const ItemScratch s = item_scratch(scratch + size_t(kvh - kvh0) * head_floats, rows);
            cpu::attn_chunk(s.state, ud, rows, fmt, kp[cur], vp[cur], static_cast<size_t>(kvh * hd),
                            static_cast<size_t>(jn), static_cast<int32_t>(j0), n.kvp.softcap);
        }
    }
    for (int64_t kvh = kvh0; kvh < kvh1; ++kvh) {
        const ItemScratch s = item_scratch(scratch + size_t(kvh - kvh0) * head_floats, rows);
        cpu::attn_end(s.state, ud, rows, s.out);
    }
}

struct AttentionArgs {
    const Node* n;
    Scratch* scratch;
    const KvLookup* lookup;
    const std::vector<int64_t>* tiles;  // first token of each tile, then the end
    size_t head_groups;                 // items per tile
    size_t heads_per_item;
    size_t kv_heads;
};

}  // namespace

size_t attention_per_thread_floats(const Node& n) {
    const int64_t hd = n.src[0].ne[0];
    const auto rows = static_cast<size_t>(tile_tokens(n) * group_of(n));
    const auto kv_heads = static_cast<size_t>(std::max<int64_t>(1, n.src[1].ne[0] / hd));
    return kv_heads * item_scratch_floats(static_cast<size_t>(hd), rows);
}

Status attention(const Node& n, cpu::ThreadPool& pool, Scratch& scratch) {
    auto lookup = KvLookup::make(n.kv, n.kvp.block_size, n.src[1].ne[1]);
    if (!lookup) return lookup.status();
    const int64_t hd = n.src[0].ne[0];
    const size_t kv_heads = static_cast<size_t>(n.src[1].ne[0] / hd);
    const size_t group = static_cast<size_t>(group_of(n));
    const int64_t tile_len = tile_tokens(n);
    // Tiles: runs of consecutive tokens of the same sequence, at most tile_len long.
    std::vector<int64_t>& tiles = scratch.tiles;
    tiles.clear();
    int32_t max_pos = 0;
    for (int64_t t = 0; t < lookup->n_tokens(); ++t) {
        max_pos = std::max(max_pos, lookup->position(t));
        if (tiles.empty() || t - tiles.back() >= tile_len || lookup->seq(t) != lookup->seq(t - 1))
            tiles.push_back(t);
    }
    const size_t n_tiles = tiles.size();
    tiles.push_back(lookup->n_tokens());
    // Whole tiles (every KV head) per item when there are tiles enough for the threads (long
    // prefills); otherwise (decode, short prefills) the heads are split into as many groups
    // as it takes to keep the threads busy.
    const size_t threads = static_cast<size_t>(pool.size());
    const size_t want = n_tiles >= threads ? 1 : (threads + n_tiles - 1) / n_tiles;
    const size_t heads_per_item =
        (kv_heads + std::min(kv_heads, want) - 1) / std::min(kv_heads, want);
    const size_t head_groups = (kv_heads + heads_per_item - 1) / heads_per_item;
    AttentionArgs args{&n,          &scratch,       &lookup.value(), &tiles,
                       head_groups, heads_per_item, kv_heads};
    const AttentionArgs* a = &args;
    const size_t seen = n.kvp.window > 0
                            ? std::min<size_t>(size_t(max_pos) + 1, size_t(n.kvp.window))
                            : size_t(max_pos) + 1;
    const size_t work = seen * size_t(hd) * 2 * group * size_t(tile_len) * heads_per_item;
    pool.parallel_for(n_tiles * head_groups, grain_for(work), [a](size_t b, size_t e, int th) {
        float* tmp = a->scratch->per_thread.data() + size_t(th) * a->scratch->per_thread_floats;
        const std::vector<int64_t>& tl = *a->tiles;
        for (size_t i = b; i < e; ++i) {
            const size_t tile = i / a->head_groups;
            const size_t h0 = (i % a->head_groups) * a->heads_per_item;
            const size_t h1 = std::min(a->kv_heads, h0 + a->heads_per_item);
            attend_item(*a->n, *a->lookup, tl[tile], tl[tile + 1], static_cast<int64_t>(h0),
                        static_cast<int64_t>(h1), tmp);
        }
    });
    return Status::ok();
}

}  // namespace hearth::backend::cpu_ops
