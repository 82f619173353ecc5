#include "cpu/cpu_weights.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace hearth::backend {

namespace {

// Hands the whole pages inside [p, p + n) back to the kernel; their contents stay valid (see
// the header). Best effort: an old kernel without MADV_PAGEOUT keeps them.
void release_pages(const std::byte* p, size_t n) {
#ifdef MADV_PAGEOUT
    const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    if (page == 0 || page > (uintptr_t(1) << 30)) return;
    const auto begin = (reinterpret_cast<uintptr_t>(p) + page - 1) / page * page;
    const auto end = (reinterpret_cast<uintptr_t>(p) + n) / page * page;
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_PAGEOUT);  // NOLINT
#else
    (void)p;
    (void)n;
#endif
}

}  // namespace

namespace {
std::atomic<bool>& repack_flag() {
    static std::atomic<bool> on{[] {
        const char* v = std::getenv("HEARTH_CPU_REPACK");
        return !(v && std::string_view(v) == "0");
    }()};
    return on;
}
}  // namespace

bool cpu_repack_enabled() {
    return repack_flag().load(std::memory_order_relaxed);
}

bool cpu_set_repack(bool on) {
    return repack_flag().exchange(on);
}

std::unique_ptr<CpuWeightBuffer> CpuWeightBuffer::borrow(std::span<const std::byte> bytes) {
    auto host = HostBuffer::borrow(bytes);
    if (!host) return nullptr;
    return std::unique_ptr<CpuWeightBuffer>(
        new (std::nothrow) CpuWeightBuffer(std::move(host), cpu_repack_enabled()));
}

const cpu::PackedWeight* CpuWeightBuffer::packed(const Tensor& w, cpu::ThreadPool& pool) {
    if (!repack_ || w.buffer != this) return nullptr;
    const size_t k = static_cast<size_t>(w.ne[0]);
    if (!cpu::packable(w.type, k) || w.ne[2] != 1 || w.ne[3] != 1 || !w.is_dense()) return nullptr;
    const PackKey key = pack_key(w);
    std::lock_guard lock(mu_);
    if (auto it = packs_.find(key); it != packs_.end()) return it->second.get();
    // Packing pays only where a SIMD kernel reads the packed layout (not under forced scalar).
    if (!cpu::packed_kernel_active()) return nullptr;
    const std::byte* src = host_->host_data() + w.offset;
    auto pw = cpu::make_packed(w.type, src, k, static_cast<size_t>(w.ne[1]));
    if (pw) {
        cpu::PackedWeight* p = pw.get();
        pool.parallel_for(p->groups(), 16,
                          [p](size_t b, size_t e, int) { cpu::pack_groups(*p, b, e); });
        packed_bytes_ += p->bytes;
        release_pages(src, w.span_bytes());
    }
    return packs_.emplace(key, std::move(pw)).first->second.get();
}

const cpu::PackedWeight* CpuWeightBuffer::packed_if_made(const Tensor& w) const {
    if (!repack_ || w.buffer != this) return nullptr;
    const PackKey key = pack_key(w);
    std::lock_guard lock(mu_);
    const auto it = packs_.find(key);
    return it == packs_.end() ? nullptr : it->second.get();
}

size_t CpuWeightBuffer::packed_bytes() const {
    std::lock_guard lock(mu_);
    return packed_bytes_;
}

}  // namespace hearth::backend
