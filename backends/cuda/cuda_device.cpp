#include "cuda_device.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "cuda_driver.h"
#include "cuda_kernels.h"
#include "cuda_memory.h"
#include "cuda_stream.h"

namespace hearth::backend::cuda {

namespace {

constexpr size_t kStageBytes = size_t(16) << 20;     // each of the two pinned staging halves
constexpr size_t kDirectUpload = size_t(256) << 10;  // smaller uploads skip the staging

std::string gib(uint64_t bytes) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f GiB", double(bytes) / double(1ull << 30));
    return b;
}

// Uploads through two pinned halves: the host copies into one while the DMA engine drains the
// other, so a weight upload runs at the bus speed rather than a pageable copy's.
class Stager {
public:
    explicit Stager(int device) : device_(device) {}
    ~Stager() {
        cudaSetDevice(device_);
        if (stream_) cudaStreamSynchronize(stream_);
        for (int i = 0; i < 2; ++i) {
            if (pinned_[i]) cudaFreeHost(pinned_[i]);
            if (done_[i]) cudaEventDestroy(done_[i]);
        }
        if (stream_) cudaStreamDestroy(stream_);
    }
    Stager(const Stager&) = delete;
    Stager& operator=(const Stager&) = delete;

    cudaError_t upload(char* dst, std::span<const std::byte> src) {
        std::lock_guard lock(mu_);
        if (src.size() <= kDirectUpload || !ready()) {
            cudaError_t e = cudaMemcpy(dst, src.data(), src.size(), cudaMemcpyHostToDevice);
            return e == cudaSuccess ? cudaStreamSynchronize(nullptr) : e;
        }
        int half = 0;
        for (size_t off = 0; off < src.size(); off += kStageBytes, half ^= 1) {
            const size_t n = std::min(kStageBytes, src.size() - off);
            if (cudaError_t e = cudaEventSynchronize(done_[half]); e) return e;
            std::memcpy(pinned_[half], src.data() + off, n);
            if (cudaError_t e =
                    cudaMemcpyAsync(dst + off, pinned_[half], n, cudaMemcpyHostToDevice, stream_);
                e)
                return e;
            if (cudaError_t e = cudaEventRecord(done_[half], stream_); e) return e;
        }
        return cudaStreamSynchronize(stream_);
    }

private:
    // Allocates the staging once; false (plain copies) when pinned memory is refused.
    bool ready() {
        if (tried_) return ok_;
        tried_ = true;
        cudaSetDevice(device_);
        ok_ = cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking) == cudaSuccess;
        for (int i = 0; ok_ && i < 2; ++i) {
            ok_ = cudaMallocHost(&pinned_[i], kStageBytes) == cudaSuccess &&
                  cudaEventCreateWithFlags(&done_[i], cudaEventDisableTiming) == cudaSuccess &&
                  cudaEventRecord(done_[i], stream_) == cudaSuccess;
        }
        if (!ok_) (void)cudaGetLastError();
        return ok_;
    }

    const int device_;
    std::mutex mu_;
    bool tried_ = false, ok_ = false;
    cudaStream_t stream_ = nullptr;
    void* pinned_[2] = {};
    cudaEvent_t done_[2] = {};
};

class CudaDevice final : public Device {
public:
    CudaDevice(int index, const cudaDeviceProp& p)
        : index_(index), pool_(std::make_shared<Pool>(index)), stager_(index) {
        name_ = "cuda" + std::to_string(index);
        const int drv = check_driver().driver_version;
        description_ = std::string(p.name) + " · " + gib(p.totalGlobalMem) + " · sm_" +
                       std::to_string(p.major) + std::to_string(p.minor) + " · " +
                       std::to_string(p.multiProcessorCount) + " SMs · CUDA driver " +
                       std::to_string(drv / 1000) + "." + std::to_string((drv % 1000) / 10);
    }

    std::string name() const override { return name_; }
    std::string description() const override { return description_; }

    MemoryInfo memory() const override {
        cudaSetDevice(index_);
        size_t free = 0, total = 0;
        if (cudaMemGetInfo(&free, &total) != cudaSuccess) {
            (void)cudaGetLastError();
            return {};
        }
        return {total, free + pool_->cached_bytes()};  // cached blocks are reusable
    }

    bool supports(const Node& n) const override {
        switch (n.op) {
            case Op::GetRows:
            case Op::MatMul:
            case Op::MoeMatMul:
                return weight_type_supported(static_cast<uint32_t>(n.src[0].type));
            case Op::KvAppend:
                return kv_type_supported(static_cast<uint32_t>(n.dst.type));
            case Op::Attention:
                return kv_type_supported(static_cast<uint32_t>(n.src[1].type)) &&
                       n.src[0].ne[0] <= kMaxHeadDim;
            case Op::Add:
            case Op::RmsNorm:
            case Op::Rope:
            case Op::SwiGlu:
            case Op::GeGlu:
            case Op::Scale:
            case Op::SoftCap:
            case Op::MoeRoute:
            case Op::MoeCombine:
            case Op::ArgMax:
                return true;
        }
        return false;
    }

    Result<std::unique_ptr<Buffer>> allocate(size_t bytes) override {
        size_t cap = 0;
        void* p = pool_->get(std::max<size_t>(bytes, 1), cap);
        if (!p)
            return Status::error("out of GPU memory: " + std::to_string(bytes) + " bytes on " +
                                 name_);
        cudaSetDevice(index_);
        cudaError_t e = cudaMemset(p, 0, cap);
        if (e == cudaSuccess) e = cudaStreamSynchronize(nullptr);
        auto b = std::make_unique<CudaBuffer>(pool_, index_, p, bytes, cap, false);
        if (e != cudaSuccess) return Status::error("cuda allocate: " + cuda_error_text(e));
        return std::unique_ptr<Buffer>(std::move(b));
    }

    Result<std::unique_ptr<Buffer>> import_host(std::span<const std::byte> bytes) override {
        cudaSetDevice(index_);
        void* p = nullptr;
        if (cudaError_t e = cudaMalloc(&p, std::max<size_t>(bytes.size(), 1)); e) {
            (void)cudaGetLastError();
            return Status::error("out of GPU memory uploading " + std::to_string(bytes.size()) +
                                 " bytes to " + name_ + " (" + cuda_error_text(e) + ")");
        }
        auto b = std::make_unique<CudaBuffer>(nullptr, index_, p, bytes.size(), bytes.size(), true);
        if (cudaError_t e = stager_.upload(static_cast<char*>(p), bytes); e)
            return Status::error("cuda upload: " + cuda_error_text(e));
        return std::unique_ptr<Buffer>(std::move(b));
    }

    Result<std::unique_ptr<Stream>> create_stream(const StreamOptions&) override {
        Status err;
        auto s = make_cuda_stream(index_, &err);
        if (!s) return err;
        return Result<std::unique_ptr<Stream>>(std::move(s));
    }

private:
    int index_;
    std::string name_, description_;
    std::shared_ptr<Pool> pool_;
    Stager stager_;
};

}  // namespace

Result<std::unique_ptr<Device>> make_cuda_device(int index) {
    const DriverCheck& drv = check_driver();
    if (!drv.ok) return Status::error(drv.reason);
    cudaDeviceProp p{};
    if (cudaError_t e = cudaGetDeviceProperties(&p, index); e)
        return Status::error("cuda device " + std::to_string(index) + ": " + cuda_error_text(e));
    if (cudaError_t e = cudaSetDevice(index); e)
        return Status::error("cuda device " + std::to_string(index) + ": " + cuda_error_text(e));
    return std::unique_ptr<Device>(std::make_unique<CudaDevice>(index, p));
}

}  // namespace hearth::backend::cuda
