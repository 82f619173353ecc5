#include "ref/ref_device.h"

#include "core/host_access.h"
#include "core/host_buffer.h"
#include "core/host_memory.h"
#include "ref/ref_ops.h"

namespace hearth::backend {

namespace {

class RefStream final : public Stream {
public:
    Status compute(const Graph& graph) override {
        if (Status s = validate_graph(graph); !s) return s;
        for (const Node& n : graph.nodes()) {
            if (!node_on_host(n)) return Status::error("reference backend: tensor not on host");
            if (Status s = ref::run_node(n); !s) return s;
        }
        return Status::ok();
    }
};

class RefDevice final : public Device {
public:
    explicit RefDevice(const RefDeviceOptions& o) : opt_(o) {}
    std::string name() const override { return "ref"; }
    std::string description() const override { return "reference ops (scalar, float64 sums)"; }
    MemoryInfo memory() const override {
        return opt_.memory.total_bytes ? opt_.memory : host_memory();
    }
    bool supports(const Node&) const override { return true; }
    Result<std::unique_ptr<Buffer>> allocate(size_t bytes) override {
        auto b = HostBuffer::allocate(bytes);
        if (!b) return Result<std::unique_ptr<Buffer>>::error("out of host memory");
        return std::unique_ptr<Buffer>(std::move(b));
    }
    Result<std::unique_ptr<Buffer>> import_host(std::span<const std::byte> bytes) override {
        if (opt_.copy_imports) {
            auto b = HostBuffer::allocate(bytes.size());
            if (!b) return Result<std::unique_ptr<Buffer>>::error("out of device memory");
            if (Status s = b->write(0, bytes); !s) return s;
            b->make_read_only();  // imported weights, as on a GPU
            return std::unique_ptr<Buffer>(std::move(b));
        }
        auto b = HostBuffer::borrow(bytes);
        if (!b) return Result<std::unique_ptr<Buffer>>::error("out of host memory");
        return std::unique_ptr<Buffer>(std::move(b));
    }
    Result<std::unique_ptr<Stream>> create_stream(const StreamOptions&) override {
        return std::unique_ptr<Stream>(std::make_unique<RefStream>());
    }

private:
    RefDeviceOptions opt_;
};

}  // namespace

std::unique_ptr<Device> make_ref_device(const RefDeviceOptions& options) {
    return std::make_unique<RefDevice>(options);
}

}  // namespace hearth::backend
