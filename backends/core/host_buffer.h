// Buffers in host memory: owned (zeroed, aligned) or borrowed (a mapped file, read-only).
// Shared by the host backends (reference and CPU).
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "hearth/backend/buffer.h"

namespace hearth::backend {

class HostBuffer final : public Buffer {
public:
    // Owned, zero-filled memory aligned to 64 bytes; nullptr if the allocation fails.
    // Large buffers are anonymous mappings, committed page by page as they are touched, or a
    // range at once through prepare_write.
    static std::unique_ptr<HostBuffer> allocate(size_t bytes);
    // Borrowed bytes that must outlive the buffer; read-only.
    static std::unique_ptr<HostBuffer> borrow(std::span<const std::byte> bytes);

    ~HostBuffer() override;
    size_t size() const override { return size_; }
    std::byte* host_data() override { return data_; }
    bool read_only() const override { return read_only_; }
    Status write(size_t offset, std::span<const std::byte> bytes) override;
    Status read(size_t offset, std::span<std::byte> bytes) const override;
    // memmove when src is host memory too.
    Status copy_from(size_t offset, const Buffer& src, size_t src_offset, size_t n) override;
    // Commits the pages of a large (mapped) buffer's range at once (Linux 5.14+:
    // MADV_POPULATE_WRITE); elsewhere, or when the kernel refuses, they fault in when written.
    void prepare_write(size_t offset, size_t n) override;
    // From now on writes are refused (an imported copy of weights).
    void make_read_only() { read_only_ = true; }

private:
    HostBuffer() = default;
    std::byte* data_ = nullptr;
    size_t size_ = 0;
    bool owned_ = false;   // aligned_alloc
    bool mapped_ = false;  // anonymous mapping (large buffers)
    bool read_only_ = false;
};

}  // namespace hearth::backend
