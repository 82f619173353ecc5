// Device memory: a caching pool for allocate() (activations, KV caches, logits: buffers come and
// go with contexts and batch sizes, and cudaMalloc/cudaFree synchronise the whole device), exact
// allocations for imported weights, and the Buffer that wraps either.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "hearth/backend/buffer.h"

namespace hearth::backend::cuda {

std::string cuda_error_text(int error);  // "out of memory (cudaErrorMemoryAllocation)"

class Pool {
public:
    explicit Pool(int device) : device_(device) {}
    ~Pool();
    // A block of at least `bytes` (rounded up to `cap`); nullptr when the device is full even
    // after the cached blocks were returned to the driver.
    void* get(size_t bytes, size_t& cap);
    void put(void* p, size_t cap);
    size_t cached_bytes() const;
    int device() const { return device_; }

private:
    void trim_locked();
    const int device_;
    mutable std::mutex mu_;
    std::multimap<size_t, void*> free_;
    size_t cached_ = 0;
};

class CudaBuffer final : public Buffer {
public:
    // pool == nullptr: an exact allocation freed with cudaFree (imported weights).
    CudaBuffer(std::shared_ptr<Pool> pool, int device, void* p, size_t size, size_t cap,
               bool read_only);
    ~CudaBuffer() override;
    CudaBuffer(const CudaBuffer&) = delete;
    CudaBuffer& operator=(const CudaBuffer&) = delete;

    size_t size() const override { return size_; }
    std::byte* host_data() override { return nullptr; }
    bool read_only() const override { return read_only_; }
    Status write(size_t offset, std::span<const std::byte> bytes) override;
    Status read(size_t offset, std::span<std::byte> bytes) const override;
    Status copy_from(size_t offset, const Buffer& src, size_t src_offset, size_t n) override;

    char* device_ptr() const { return static_cast<char*>(p_); }
    int device() const { return device_; }

private:
    std::shared_ptr<Pool> pool_;
    int device_;
    void* p_;
    size_t size_, cap_;
    bool read_only_;
};

}  // namespace hearth::backend::cuda
