// Model weights on the CPU: the mapped file, borrowed and never copied, plus a packed copy
// (cpu/kernels/packed.h) of each Q4_0 / Q5_0 / Q8_0 / Q4_K / Q6_K matrix the SIMD kernels multiply
// with (and of each F16 / BF16 one under the AVX-512 kernels), made when Model::load prepares
// the matrices (Device::prepare_weights), else the first time a graph uses it.
// Packing moves bytes, it never re-quantizes. Once a matrix is
// packed its pages of the mapping are handed back to the kernel (madvise MADV_PAGEOUT), so
// resident memory stays about one copy of the weights: the packed copy is exactly as large as
// the file's blocks. Those pages are clean file pages (or, for bytes that are not a file,
// swappable ones), so a later read of them faults them back in, from the disk once the page
// cache has let them go; the token embedding lookup of a tied output matrix therefore reads its
// rows back from the packed copy (cpu::unpack_row) instead: through the faults it took 48 us a
// row in prefill and 0.22 ms a decode step on qwen2.5-0.5b (2.3 % of the step).
// HEARTH_CPU_REPACK=0 turns packing off (the file-format kernels then read the mapping).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <tuple>

#include "core/host_buffer.h"
#include "cpu/kernels/packed.h"
#include "cpu/thread_pool.h"
#include "hearth/backend/tensor.h"

namespace hearth::backend {

class CpuWeightBuffer final : public Buffer {
public:
    // Borrowed bytes that must outlive the buffer; read-only. nullptr when out of memory.
    static std::unique_ptr<CpuWeightBuffer> borrow(std::span<const std::byte> bytes);

    size_t size() const override { return host_->size(); }
    std::byte* host_data() override { return host_->host_data(); }
    bool read_only() const override { return true; }
    Status write(size_t offset, std::span<const std::byte> bytes) override {
        return host_->write(offset, bytes);
    }
    Status read(size_t offset, std::span<std::byte> bytes) const override {
        return host_->read(offset, bytes);
    }
    Status copy_from(size_t offset, const Buffer& src, size_t src_offset, size_t n) override {
        return host_->copy_from(offset, src, src_offset, n);
    }

    // The packed form of matrix w (a dense 2-D tensor of this buffer), packed on first use with
    // the pool's threads; nullptr when it is not packed (type, row length, packing turned off,
    // no packed kernel for the active ISA, out of memory): then use the file-format kernels.
    const cpu::PackedWeight* packed(const Tensor& w, cpu::ThreadPool& pool);
    // The packed form of matrix w if one has been made (never packs), else nullptr.
    const cpu::PackedWeight* packed_if_made(const Tensor& w) const;
    // Bytes held by packed copies (tests, diagnostics).
    size_t packed_bytes() const;

private:
    CpuWeightBuffer(std::unique_ptr<HostBuffer> host, bool repack)
        : host_(std::move(host)), repack_(repack) {}
    std::unique_ptr<HostBuffer> host_;
    const bool repack_;  // cpu_repack_enabled() when the file was imported
    mutable std::mutex mu_;
    // (offset, type, k, rows) -> packed copy; nullptr records "does not pack"
    using PackKey = std::tuple<size_t, int, int64_t, int64_t>;
    static PackKey pack_key(const Tensor& w) {
        return {w.offset, static_cast<int>(w.type), w.ne[0], w.ne[1]};
    }
    std::map<PackKey, std::unique_ptr<cpu::PackedWeight>> packs_;
    size_t packed_bytes_ = 0;
};

// Whether the CPU packs weights: HEARTH_CPU_REPACK unset or anything but "0" (read once).
bool cpu_repack_enabled();
// Tests: turns packing on or off for files imported afterwards; returns the old setting.
bool cpu_set_repack(bool on);

}  // namespace hearth::backend
