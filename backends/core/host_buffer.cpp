#include "core/host_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace hearth::backend {

std::unique_ptr<HostBuffer> HostBuffer::allocate(size_t bytes) {
    // Large buffers (KV caches, activations for long batches) come straight from the kernel:
    // zero pages are committed only when touched, so an unused context costs no memory.
    constexpr size_t kMapThreshold = size_t(1) << 20;
    if (bytes >= kMapThreshold) {
        void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return nullptr;
        std::unique_ptr<HostBuffer> b(new (std::nothrow) HostBuffer());
        if (!b) {
            munmap(p, bytes);
            return nullptr;
        }
        b->data_ = static_cast<std::byte*>(p);
        b->size_ = bytes;
        b->mapped_ = true;
        return b;
    }
    constexpr size_t kAlign = 64;
    const size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;
    void* p = std::aligned_alloc(kAlign, rounded == 0 ? kAlign : rounded);
    if (!p) return nullptr;
    std::memset(p, 0, rounded == 0 ? kAlign : rounded);
    std::unique_ptr<HostBuffer> b(new (std::nothrow) HostBuffer());
    if (!b) {
        std::free(p);
        return nullptr;
    }
    b->data_ = static_cast<std::byte*>(p);
    b->size_ = bytes;
    b->owned_ = true;
    return b;
}

void HostBuffer::prepare_write(size_t offset, size_t n) {
#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // linux/mman.h since 5.14; older C libraries lack the name
#endif
    if (!mapped_ || offset >= size_ || n == 0) return;
    static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const auto base = reinterpret_cast<uintptr_t>(data_);  // page-aligned: it came from mmap
    const size_t lo = offset / page * page;
    const size_t hi = std::min(size_, offset + n);
    // EINVAL on kernels before 5.14, ENOMEM when memory is short: either way the pages fault
    // in on first write as they would have.
    (void)madvise(reinterpret_cast<void*>(base + lo), hi - lo, MADV_POPULATE_WRITE);
#else
    (void)offset;
    (void)n;
#endif
}

std::unique_ptr<HostBuffer> HostBuffer::borrow(std::span<const std::byte> bytes) {
    std::unique_ptr<HostBuffer> b(new (std::nothrow) HostBuffer());
    if (!b) return nullptr;
    // Read-only is enforced by write() and by the ops, which never write to a weight.
    b->data_ = const_cast<std::byte*>(bytes.data());
    b->size_ = bytes.size();
    b->read_only_ = true;
    return b;
}

HostBuffer::~HostBuffer() {
    if (mapped_)
        munmap(data_, size_);
    else if (owned_)
        std::free(data_);
}

Status HostBuffer::write(size_t offset, std::span<const std::byte> bytes) {
    if (read_only_) return Status::error("buffer is read-only");
    if (offset > size_ || bytes.size() > size_ - offset)
        return Status::error("buffer write out of range");
    if (!bytes.empty()) std::memcpy(data_ + offset, bytes.data(), bytes.size());
    return Status::ok();
}

Status HostBuffer::read(size_t offset, std::span<std::byte> bytes) const {
    if (offset > size_ || bytes.size() > size_ - offset)
        return Status::error("buffer read out of range");
    if (!bytes.empty()) std::memcpy(bytes.data(), data_ + offset, bytes.size());
    return Status::ok();
}

Status HostBuffer::copy_from(size_t offset, const Buffer& src, size_t src_offset, size_t n) {
    if (read_only_) return Status::error("buffer is read-only");
    if (offset > size_ || n > size_ - offset) return Status::error("buffer copy out of range");
    if (src_offset > src.size() || n > src.size() - src_offset)
        return Status::error("buffer copy source out of range");
    const std::byte* from = const_cast<Buffer&>(src).host_data();
    if (!from) return src.read(src_offset, std::span(data_ + offset, n));
    if (n > 0) std::memmove(data_ + offset, from + src_offset, n);
    return Status::ok();
}

}  // namespace hearth::backend
