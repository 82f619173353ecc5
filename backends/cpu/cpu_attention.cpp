// Attention on the CPU: work items are (tile of consecutive tokens of one sequence, KV heads);
// an item's rows are the tile's tokens times the query heads of the group, and the kernels of
// cpu/kernels (attn_*) run the online softmax over the item's cells in chunks, each K and V
// row decoded once for all rows. A token only takes the cells up to its own position (causal)
// and, with a sliding window, none before it; chunks no row of an item can see are never read.
//
// Cells are folded in segments of kSegmentCells, aligned to multiples of it: a row's online
// softmax starts afresh in each segment and the segments' sums are combined in cell order
// (fold_part). A decode step, with fewer tiles than threads, then gives each thread whole
// segments of every KV head, so it reads whole cache rows in one contiguous run that the
// hardware prefetchers follow (split by heads, each thread read a strided slice of every row:
// decode at a 4k context was ~15% slower here), and a row gets the same bits whether its
// segments ran on several threads or one after the other inside a prefill (batch invariance,
// cpu/kernels/kernels.h).
#include <algorithm>
#include <cmath>
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

// Cells per segment (a multiple of cpu::kAttnChunk). Changing it changes the bits of every
// context longer than one segment.
constexpr int64_t kSegmentCells = 256;
static_assert(kSegmentCells % static_cast<int64_t>(cpu::kAttnChunk) == 0);

// Steps of at most this many tokens (decode and verification steps) split their segments
// across threads when they have fewer tiles than threads, as long as the segments' sums, kept
// until all are done, stay under kSplitMaxFloats (a 16-token verification step at a 128k
// context would need ~0.5 GiB). With more tiles, each thread takes one run of them.
constexpr int64_t kSplitMaxTokens = 16;
constexpr size_t kSplitMaxFloats = size_t{8} << 20;

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

// The first cell a token at pos sees: its sliding window's start, else 0.
int32_t first_visible(int32_t pos, int64_t window) {
    return window > 0 ? std::max<int32_t>(0, pos + 1 - int32_t(window)) : 0;
}

// Tokens [t0, t1) of one sequence: the first cell any of them sees and one past the last.
struct CellSpan {
    int64_t first = INT64_MAX, end = 0;
};
CellSpan visible_cells(const KvLookup& lk, int64_t t0, int64_t t1, int64_t window) {
    CellSpan c;
    for (int64_t t = t0; t < t1; ++t) {
        const int32_t pos = lk.position(t);
        c.first = std::min<int64_t>(c.first, first_visible(pos, window));
        c.end = std::max<int64_t>(c.end, int64_t(pos) + 1);
    }
    return c;
}

// A row's partial result (cpu::attn_export): max, sum of weights, weighted sum of V.
size_t part_floats(size_t hd) {
    return hd + cpu::kAttnPartFloats;
}

void part_clear(float* acc, size_t hd) {
    acc[0] = -INFINITY;
    std::fill(acc + 1, acc + part_floats(hd), 0.0f);
}

// acc := acc followed by part (part's cells come after acc's). Every path combines segments
// with this one function (not inlined, so no call site contracts it differently).
[[gnu::noinline]] void fold_part(float* acc, const float* part, size_t hd) {
    const float mb = part[0];
    if (mb == -INFINITY) return;  // the row saw no cell of this segment
    const float ma = acc[0];
    if (ma == -INFINITY) {
        std::copy(part, part + part_floats(hd), acc);
        return;
    }
    const float m = std::max(ma, mb);
    const float ca = std::exp(ma - m), cb = std::exp(mb - m);
    acc[0] = m;
    for (size_t i = 1; i < part_floats(hd); ++i) acc[i] = acc[i] * ca + part[i] * cb;
}

// The row's output from its combined sums, computed as cpu::attn_end computes it from a state.
void part_result(const float* acc, size_t hd, float* out) {
    const float l = acc[1];
    const float inv = l > 0.0f ? 1.0f / l : 0.0f;
    for (size_t i = 0; i < hd; ++i) out[i] = acc[cpu::kAttnPartFloats + i] * inv;
}

// Per-thread scratch of one item: q and out pointers, lo and hi per row, the kernel state,
// then the rows' combined partial results (16-float aligned offsets; the stream aligns each
// thread's share the same way).
struct ItemScratch {
    const float** q;
    float** out;
    int32_t* lo;
    int32_t* hi;
    float* state;
    float* acc;
};

size_t round16(size_t f) {
    return (f + 15) / 16 * 16;
}

size_t item_scratch_floats(size_t hd, size_t rows) {
    return round16(4 * rows) + round16(2 * rows) + round16(cpu::attn_state_floats(hd, rows)) +
           round16(rows * part_floats(hd));
}

ItemScratch item_scratch(float* base, size_t hd, size_t rows) {
    ItemScratch s;
    auto* p = reinterpret_cast<std::byte*>(base);
    s.q = reinterpret_cast<const float**>(p);
    s.out = reinterpret_cast<float**>(p + rows * sizeof(void*));
    p += round16(4 * rows) * sizeof(float);
    s.lo = reinterpret_cast<int32_t*>(p);
    s.hi = s.lo + rows;
    p += round16(2 * rows) * sizeof(float);
    s.state = reinterpret_cast<float*>(p);
    s.acc = s.state + round16(cpu::attn_state_floats(hd, rows));
    return s;
}

// Floats of one item's scratch: one ItemScratch per head, then one export buffer.
size_t item_floats(size_t hd, size_t rows, size_t heads) {
    return heads * item_scratch_floats(hd, rows) + round16(rows * part_floats(hd));
}

// A work item: tokens [t0, t1) of one sequence against KV heads [kvh0, kvh1).
struct Item {
    int64_t t0, t1, kvh0, kvh1;
};

// Tokens [t0, t1) (one sequence) against KV heads [kvh0, kvh1): one state per head, and the
// heads inner to the cell loop, so an item reads its part of each cache row in one go (a
// head alone is a few cache lines of a row; items of single heads would each pull whole rows
// through the prefetchers, several times the cache's bytes at long contexts).
// parts null: every segment in turn, combined, and the outputs written. Otherwise segments
// [seg_lo, seg_hi) only, each segment's partial results to parts (segment by segment from
// seg_lo, heads in order within one, rows * part_floats floats a head). after: the item this
// thread runs next, whose first chunk is requested during this item's last one.
void attend_item(const Node& n, const KvLookup& lk, int64_t t0, int64_t t1, int64_t kvh0,
                 int64_t kvh1, float* scratch, int64_t seg_lo = 0, int64_t seg_hi = 0,
                 float* parts = nullptr, const Item* after = nullptr) {
    const Tensor& q = n.src[0];
    const Tensor& kc = n.src[1];
    const Tensor& vc = n.src[2];
    const int64_t hd = q.ne[0];
    const int64_t group = group_of(n);
    const size_t rows = static_cast<size_t>((t1 - t0) * group);
    const size_t ud = static_cast<size_t>(hd);
    const size_t head_floats = item_scratch_floats(ud, rows);
    const size_t pf = part_floats(ud);
    float* exported = scratch + size_t(kvh1 - kvh0) * head_floats;
    auto head_scratch = [&](int64_t kvh) {
        return item_scratch(scratch + size_t(kvh - kvh0) * head_floats, ud, rows);
    };
    const CellSpan span = visible_cells(lk, t0, t1, n.kvp.window);
    int64_t n_kv = span.end;
    const cpu::KvFormat fmt = kv_format(kc.type);
    for (int64_t kvh = kvh0; kvh < kvh1; ++kvh) {
        const ItemScratch s = head_scratch(kvh);
        for (int64_t t = t0; t < t1; ++t) {
            const int32_t pos = lk.position(t);
            const int32_t lo = first_visible(pos, n.kvp.window);
            for (int64_t g = 0; g < group; ++g) {
                const size_t r = static_cast<size_t>((t - t0) * group + g);
                s.q[r] = f32_row(q, kvh * group + g, t);
                s.out[r] = f32_row(n.dst, kvh * group + g, t);
                s.lo[r] = lo;
                s.hi[r] = pos;
            }
        }
        cpu::attn_begin(s.state, ud, rows, s.q, n.kvp.scale, s.lo, s.hi, fmt);
    }
    const int64_t seq = lk.seq(t0);
    // Row pointers of the current chunk and of the next one (buffers cur and 1 - cur): a chunk
    // of n cells has its K rows at [0, n) and its V rows at [n, 2n).
    const uint8_t* rows_of[2][2 * cpu::kAttnChunk];
    constexpr auto kChunk = static_cast<int64_t>(cpu::kAttnChunk);
    // A block's cells are consecutive rows: one lookup per block, not a division and two
    // virtual buffer queries per cell (1.5% of a decode step at a 4k context, perf).
    const auto* k_base = reinterpret_cast<const uint8_t*>(row_ptr(kc, 0));
    const auto* v_base = reinterpret_cast<const uint8_t*>(row_ptr(vc, 0));
    const size_t k_stride = kc.nb[1], v_stride = vc.nb[1];
    auto fill_rows_of = [&](int64_t sq, int64_t j0, int64_t end, int b) {
        const int64_t n = std::min(kChunk, end - j0);
        for (int64_t c = 0; c < n;) {
            int64_t run = 0;
            const auto cell = static_cast<size_t>(lk.cell_run(sq, j0 + c, run));
            const int64_t c_end = std::min(n, c + run);
            for (size_t i = 0; c < c_end; ++c, ++i) {
                rows_of[b][c] = k_base + (cell + i) * k_stride;
                rows_of[b][n + c] = v_base + (cell + i) * v_stride;
            }
        }
    };
    auto fill_rows = [&](int64_t j0, int b) { fill_rows_of(seq, j0, n_kv, b); };
    // The item's heads within a cache row.
    const size_t slice_begin = dtype_row_bytes(kc.type, size_t(kvh0 * hd));
    const size_t slice_bytes = dtype_row_bytes(kc.type, size_t((kvh1 - kvh0) * hd));
    // Chunks start at multiples of kChunk whatever the item's rows (a sliding window's first
    // visible cell depends on them): a row's online softmax then folds the same runs of cells
    // alone or in a batch (batch invariance, cpu/kernels/kernels.h); cells below a row's
    // window are masked.
    int cur = 0;
    int64_t j_start = span.first / kChunk * kChunk;
    if (parts) {
        j_start = std::max(j_start, seg_lo * kSegmentCells);
        n_kv = std::min(n_kv, seg_hi * kSegmentCells);
    }
    const size_t seg_floats = size_t(kvh1 - kvh0) * rows * pf;
    // The heads' states as segment seg's partial results (parts != null).
    auto export_segment = [&](int64_t seg) {
        for (int64_t kvh = kvh0; kvh < kvh1; ++kvh)
            cpu::attn_export(
                head_scratch(kvh).state, ud, rows,
                parts + size_t(seg - seg_lo) * seg_floats + size_t(kvh - kvh0) * rows * pf);
    };
    bool combined = false;  // whether a segment was folded into the heads' acc yet
    // The heads' states so far into their acc.
    auto fold_segment = [&]() {
        for (int64_t kvh = kvh0; kvh < kvh1; ++kvh) {
            const ItemScratch s = head_scratch(kvh);
            if (!combined)
                for (size_t r = 0; r < rows; ++r) part_clear(s.acc + r * pf, ud);
            cpu::attn_export(s.state, ud, rows, exported);
            for (size_t r = 0; r < rows; ++r) fold_part(s.acc + r * pf, exported + r * pf, ud);
        }
        combined = true;
    };
    if (j_start < n_kv) fill_rows(j_start, cur);
    for (int64_t j0 = j_start; j0 < n_kv; j0 += kChunk, cur = 1 - cur) {
        if (j0 != j_start && j0 % kSegmentCells == 0) {  // a segment ends: fresh states
            if (parts)
                export_segment(j0 / kSegmentCells - 1);
            else
                fold_segment();
            for (int64_t kvh = kvh0; kvh < kvh1; ++kvh)
                cpu::attn_restart(head_scratch(kvh).state, ud, rows);
        }
        const int64_t jn = std::min(kChunk, n_kv - j0);
        // The next chunk's slices are requested while this one is computed: a chunk's cells are
        // cache rows hundreds of bytes apart of which an item reads a slice, runs too short for
        // the hardware prefetchers, and without this a decode step at a 4k context spent most
        // of its attention time waiting on them. The requests (its K rows in order, then its V
        // rows) are shared out over the heads' computations, and each head's kernel spreads its
        // share over its own steps (cpu::AttnPrefetch): bursts kept a core waiting while they
        // queued.
        const int64_t next = j0 + kChunk;
        int64_t next_n = next < n_kv ? std::min(kChunk, n_kv - next) : 0;
        size_t pf_begin = slice_begin, pf_bytes = slice_bytes;
        if (next_n > 0) {
            fill_rows(next, 1 - cur);
        } else if (after) {  // the last chunk: the next item's first one
            const CellSpan as = visible_cells(lk, after->t0, after->t1, n.kvp.window);
            const int64_t a0 = as.first / kChunk * kChunk;
            next_n = std::min(kChunk, as.end - a0);
            fill_rows_of(lk.seq(after->t0), a0, as.end, 1 - cur);
            pf_begin = dtype_row_bytes(kc.type, size_t(after->kvh0 * hd));
            pf_bytes = dtype_row_bytes(kc.type, size_t((after->kvh1 - after->kvh0) * hd));
        }
        const int64_t heads = kvh1 - kvh0;
        for (int64_t kvh = kvh0; kvh < kvh1; ++kvh) {
            const int64_t h = kvh - kvh0;
            const int64_t x0 = 2 * next_n * h / heads, x1 = 2 * next_n * (h + 1) / heads;
            const ItemScratch s = head_scratch(kvh);
            cpu::attn_chunk(
                s.state, ud, rows, fmt, rows_of[cur], rows_of[cur] + jn,
                static_cast<size_t>(kvh * hd), static_cast<size_t>(jn), static_cast<int32_t>(j0),
                n.kvp.softcap,
                cpu::AttnPrefetch{rows_of[1 - cur] + x0, size_t(x1 - x0), pf_begin, pf_bytes});
        }
    }
    if (parts) {
        if (j_start < n_kv) export_segment((n_kv - 1) / kSegmentCells);
        return;
    }
    if (!combined) {  // one segment: attn_end gives what combining it would
        for (int64_t kvh = kvh0; kvh < kvh1; ++kvh) {
            const ItemScratch s = head_scratch(kvh);
            cpu::attn_end(s.state, ud, rows, s.out);
        }
        return;
    }
    fold_segment();
    for (int64_t kvh = kvh0; kvh < kvh1; ++kvh) {
        const ItemScratch s = head_scratch(kvh);
        for (size_t r = 0; r < rows; ++r) part_result(s.acc + r * pf, ud, s.out[r]);
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

// Item i of a step's (tile, head group) items.
Item item_of(const AttentionArgs& a, size_t i) {
    const size_t tile = i / a.head_groups;
    const size_t h0 = (i % a.head_groups) * a.heads_per_item;
    const size_t h1 = std::min(a.kv_heads, h0 + a.heads_per_item);
    return Item{(*a.tiles)[tile], (*a.tiles)[tile + 1], static_cast<int64_t>(h0),
                static_cast<int64_t>(h1)};
}

// Items [b, e) in turn on thread th, each told the one after it.
void run_items(const AttentionArgs& a, size_t b, size_t e, int th) {
    float* tmp = a.scratch->per_thread.data() + size_t(th) * a.scratch->per_thread_floats;
    for (size_t i = b; i < e; ++i) {
        const Item it = item_of(a, i);
        const Item after = i + 1 < e ? item_of(a, i + 1) : Item{};
        attend_item(*a.n, *a.lookup, it.t0, it.t1, it.kvh0, it.kvh1, tmp, 0, 0, nullptr,
                    i + 1 < e ? &after : nullptr);
    }
}

// A decode step's attention with its segments split across the threads: one item per (tile,
// segment) over every KV head, its partial results kept in scratch.attn_parts; then one item
// per (tile, KV head) combines its rows' segments in order and writes the outputs.
void attention_split(const Node& n, const KvLookup& lk, cpu::ThreadPool& pool, Scratch& scratch,
                     size_t n_tiles, size_t kv_heads) {
    const std::vector<int64_t>& tiles = scratch.tiles;
    const int64_t group = group_of(n);
    const size_t hd = static_cast<size_t>(n.src[0].ne[0]);
    const size_t pf = part_floats(hd);
    // Per tile (scratch.attn_tiles, three values each): its first segment, the offset
    // of its parts (segment by segment, then heads, then rows) and its number of segments; per
    // item (scratch.attn_items, three values each): tile, first segment, end segment. A
    // tile's segments are cut into as many contiguous runs as the threads need, so that each
    // thread streams through long runs of cells.
    std::vector<int64_t>& items = scratch.attn_items;
    std::vector<int64_t>& tile_info = scratch.attn_tiles;
    items.clear();
    tile_info.clear();
    const size_t runs_per_tile = (pool.size() + n_tiles - 1) / n_tiles;
    size_t parts = 0;
    int64_t max_seg = 0;
    for (size_t tile = 0; tile < n_tiles; ++tile) {
        const CellSpan span = visible_cells(lk, tiles[tile], tiles[tile + 1], n.kvp.window);
        const size_t rows = static_cast<size_t>((tiles[tile + 1] - tiles[tile]) * group);
        const int64_t seg0 = span.first / kSegmentCells;
        const int64_t n_seg = (span.end + kSegmentCells - 1) / kSegmentCells - seg0;
        const auto runs = static_cast<int64_t>(std::min<size_t>(runs_per_tile, size_t(n_seg)));
        for (int64_t r = 0; r < runs; ++r)
            items.insert(items.end(),
                         {int64_t(tile), seg0 + n_seg * r / runs, seg0 + n_seg * (r + 1) / runs});
        tile_info.insert(tile_info.end(), {seg0, int64_t(parts), n_seg});
        parts += size_t(n_seg) * kv_heads * rows * pf;
        max_seg = std::max(max_seg, n_seg);
    }
    const size_t n_items = items.size() / 3;
    if (scratch.attn_parts.size() < parts) scratch.attn_parts.resize(parts);
    float* part_base = scratch.attn_parts.data();
    const Node* np = &n;
    const KvLookup* lp = &lk;
    Scratch* sp = &scratch;
    const int64_t* ip = items.data();
    const int64_t* tp = tile_info.data();
    pool.parallel_for(n_items, 1, [=](size_t b, size_t e, int th) {
        float* tmp = sp->per_thread.data() + size_t(th) * sp->per_thread_floats;
        for (size_t i = b; i < e; ++i) {
            const int64_t* item = ip + 3 * i;
            const auto tile = static_cast<size_t>(item[0]);
            const int64_t t0 = sp->tiles[tile], t1 = sp->tiles[tile + 1];
            const size_t rows = static_cast<size_t>((t1 - t0) * group);
            float* dst = part_base + static_cast<size_t>(tp[3 * tile + 1]) +
                         size_t(item[1] - tp[3 * tile]) * kv_heads * rows * pf;
            attend_item(*np, *lp, t0, t1, 0, static_cast<int64_t>(kv_heads), tmp, item[1], item[2],
                        dst);
        }
    });
    // Combining is a few multiply-adds per row and segment: most steps do it on this thread.
    const size_t merge_work =
        static_cast<size_t>(group * (tiles[n_tiles] - tiles[0]) * max_seg) * pf / n_tiles;
    pool.parallel_for(n_tiles * kv_heads, grain_for(merge_work), [=](size_t b, size_t e, int th) {
        float* acc = sp->per_thread.data() + size_t(th) * sp->per_thread_floats;
        for (size_t i = b; i < e; ++i) {
            const size_t tile = i / kv_heads;
            const auto kvh = static_cast<int64_t>(i % kv_heads);
            const int64_t t0 = sp->tiles[tile], t1 = sp->tiles[tile + 1];
            const size_t rows = static_cast<size_t>((t1 - t0) * group);
            const int64_t n_seg = tp[3 * tile + 2];
            const float* tile_parts = part_base + static_cast<size_t>(tp[3 * tile + 1]);
            for (int64_t t = t0; t < t1; ++t)
                for (int64_t g = 0; g < group; ++g) {
                    const size_t r = static_cast<size_t>((t - t0) * group + g);
                    part_clear(acc, hd);
                    for (int64_t sg = 0; sg < n_seg; ++sg)
                        fold_part(
                            acc,
                            tile_parts + (size_t(sg) * kv_heads + size_t(kvh)) * rows * pf + r * pf,
                            hd);
                    part_result(acc, hd, f32_row(np->dst, kvh * group + g, t));
                }
        }
    });
}

}  // namespace

size_t attention_per_thread_floats(const Node& n) {
    const int64_t hd = n.src[0].ne[0];
    const auto rows = static_cast<size_t>(tile_tokens(n) * group_of(n));
    const auto kv_heads = static_cast<size_t>(std::max<int64_t>(1, n.src[1].ne[0] / hd));
    return item_floats(static_cast<size_t>(hd), rows, kv_heads);
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
    const size_t threads = static_cast<size_t>(pool.size());
    // Fewer tiles than threads, few tokens and a context of several segments: the segments
    // are what the threads share.
    const size_t split_floats = static_cast<size_t>(lookup->n_tokens() * n.src[0].ne[1]) *
                                part_floats(size_t(hd)) *
                                static_cast<size_t>(max_pos / kSegmentCells + 1);
    if (n_tiles < threads && lookup->n_tokens() <= kSplitMaxTokens &&
        int64_t(max_pos) >= kSegmentCells && split_floats <= kSplitMaxFloats) {
        attention_split(n, lookup.value(), pool, scratch, n_tiles, kv_heads);
        return Status::ok();
    }
    // Whole tiles (every KV head) per item when there are tiles enough for the threads (long
    // prefills); otherwise (short contexts, short prefills) the heads are split into as many
    // groups as it takes to keep the threads busy.
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
    const size_t n_items = n_tiles * head_groups;
    if (lookup->n_tokens() > kSplitMaxTokens || n_items <= threads || grain_for(work) > 1) {
        pool.parallel_for(n_items, grain_for(work),
                          [a](size_t b, size_t e, int th) { run_items(*a, b, e, th); });
        return Status::ok();
    }
    // A decode step of several sequences: one run of consecutive items per thread, cut where
    // the cells read so far reach a thread's share, so that each item's first chunk is
    // requested during the last chunk of the item before it on the same thread (handed out
    // one by one, a thread's next item is not known; the first chunks then waited on memory:
    // 8 sequences at 256-384 cells, attention took 5.2 instead of 5.7 ms a step, the means of
    // nine alternating runs). A thread that finishes early still takes a run nobody claimed.
    std::vector<int64_t>& cuts = scratch.attn_cuts;
    cuts.assign(1, 0);
    int64_t total = 0;
    for (size_t i = 0; i < n_items; ++i) {
        const Item it = item_of(args, i);
        const CellSpan c = visible_cells(lookup.value(), it.t0, it.t1, n.kvp.window);
        total += (c.end - c.first) * (it.t1 - it.t0) * (it.kvh1 - it.kvh0);
        cuts.push_back(total);  // cells read up to item i, prefix sums
    }
    std::vector<int64_t>& runs = scratch.attn_runs;
    runs.assign(1, 0);
    for (size_t r = 1; r < threads; ++r) {
        const int64_t share = total * int64_t(r) / int64_t(threads);
        size_t i = static_cast<size_t>(runs.back());
        while (i < n_items && cuts[i + 1] <= share) ++i;
        if (i < n_items && cuts[i + 1] - share < share - cuts[i]) ++i;  // the nearer cut
        if (i > size_t(runs.back()) && i < n_items) runs.push_back(int64_t(i));
    }
    runs.push_back(int64_t(n_items));
    const int64_t* rp = runs.data();
    pool.parallel_for(runs.size() - 1, 1, [a, rp](size_t b, size_t e, int th) {
        for (size_t r = b; r < e; ++r) run_items(*a, size_t(rp[r]), size_t(rp[r + 1]), th);
    });
    return Status::ok();
}

}  // namespace hearth::backend::cpu_ops
