#include "cuda_memory.h"

#include <cuda_runtime_api.h>

#include <string>

namespace hearth::backend::cuda {

namespace {

constexpr size_t kMiB = size_t(1) << 20;
constexpr size_t kMaxCached = size_t(2048) * kMiB;  // beyond this, freed blocks go back

// Small blocks round to a power of two (at least 256 bytes), large ones to 2 MiB, so a
// buffer that grows by a little reuses the block it had.
size_t round_up(size_t bytes) {
    if (bytes <= 256) return 256;
    if (bytes < kMiB) {
        size_t c = 512;
        while (c < bytes) c <<= 1;
        return c;
    }
    return (bytes + 2 * kMiB - 1) / (2 * kMiB) * (2 * kMiB);
}

}  // namespace

std::string cuda_error_text(int error) {
    const auto e = static_cast<cudaError_t>(error);
    return std::string(cudaGetErrorString(e)) + " (" + cudaGetErrorName(e) + ")";
}

Pool::~Pool() {
    std::lock_guard lock(mu_);
    trim_locked();
}

void Pool::trim_locked() {
    cudaSetDevice(device_);
    for (auto& [cap, p] : free_) cudaFree(p);
    free_.clear();
    cached_ = 0;
}

void* Pool::get(size_t bytes, size_t& cap) {
    cap = round_up(bytes);
    std::lock_guard lock(mu_);
    // An exact size class, or (large blocks) one at most 25 % larger.
    auto it = free_.lower_bound(cap);
    if (it != free_.end() && it->first <= cap + cap / 4) {
        void* p = it->second;
        cap = it->first;
        cached_ -= cap;
        free_.erase(it);
        return p;
    }
    cudaSetDevice(device_);
    void* p = nullptr;
    if (cudaMalloc(&p, cap) != cudaSuccess) {
        (void)cudaGetLastError();
        trim_locked();
        if (cudaMalloc(&p, cap) != cudaSuccess) {
            (void)cudaGetLastError();
            return nullptr;
        }
    }
    return p;
}

void Pool::put(void* p, size_t cap) {
    std::lock_guard lock(mu_);
    if (cached_ + cap > kMaxCached) {
        cudaSetDevice(device_);
        cudaFree(p);
        return;
    }
    free_.emplace(cap, p);
    cached_ += cap;
}

size_t Pool::cached_bytes() const {
    std::lock_guard lock(mu_);
    return cached_;
}

CudaBuffer::CudaBuffer(std::shared_ptr<Pool> pool, int device, void* p, size_t size, size_t cap,
                       bool read_only)
    : pool_(std::move(pool)),
      device_(device),
      p_(p),
      size_(size),
      cap_(cap),
      read_only_(read_only) {}

CudaBuffer::~CudaBuffer() {
    if (!p_) return;
    if (pool_) {
        pool_->put(p_, cap_);
    } else {
        cudaSetDevice(device_);
        cudaFree(p_);
    }
}

// The copies below run on the legacy default stream, which the (non-blocking) compute streams
// never wait for: each one synchronises it before returning, so a following step sees the bytes
// (a pageable host-to-device cudaMemcpy may return before its DMA has finished).
Status CudaBuffer::write(size_t offset, std::span<const std::byte> bytes) {
    if (read_only_) return Status::error("cuda buffer: write to read-only weights");
    if (offset > size_ || bytes.size() > size_ - offset)
        return Status::error("cuda buffer: write of " + std::to_string(bytes.size()) +
                             " bytes at " + std::to_string(offset) + " outside " +
                             std::to_string(size_));
    if (bytes.empty()) return Status::ok();
    cudaSetDevice(device_);
    cudaError_t e =
        cudaMemcpy(device_ptr() + offset, bytes.data(), bytes.size(), cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaStreamSynchronize(nullptr);
    if (e != cudaSuccess) return Status::error("cuda buffer write: " + cuda_error_text(e));
    return Status::ok();
}

Status CudaBuffer::read(size_t offset, std::span<std::byte> bytes) const {
    if (offset > size_ || bytes.size() > size_ - offset)
        return Status::error("cuda buffer: read outside the buffer");
    if (bytes.empty()) return Status::ok();
    cudaSetDevice(device_);
    const cudaError_t e =
        cudaMemcpy(bytes.data(), device_ptr() + offset, bytes.size(), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) return Status::error("cuda buffer read: " + cuda_error_text(e));
    return Status::ok();
}

Status CudaBuffer::copy_from(size_t offset, const Buffer& src, size_t src_offset, size_t n) {
    const auto* s = dynamic_cast<const CudaBuffer*>(&src);
    if (!s || s->device_ != device_) return Buffer::copy_from(offset, src, src_offset, n);
    if (read_only_) return Status::error("cuda buffer: copy into read-only weights");
    if (offset > size_ || n > size_ - offset || src_offset > s->size_ || n > s->size_ - src_offset)
        return Status::error("cuda buffer: copy outside the buffers");
    if (n == 0 || (s == this && offset == src_offset)) return Status::ok();
    cudaSetDevice(device_);
    cudaError_t e = cudaMemcpy(device_ptr() + offset, s->device_ptr() + src_offset, n,
                               cudaMemcpyDeviceToDevice);
    if (e == cudaSuccess) e = cudaStreamSynchronize(nullptr);
    if (e != cudaSuccess) return Status::error("cuda buffer copy: " + cuda_error_text(e));
    return Status::ok();
}

}  // namespace hearth::backend::cuda
