#include "registry.h"

#include <dlfcn.h>

#include "cpu/cpu_device.h"

namespace hearth::backend {

namespace {

BackendProbe probe_cuda() {
    BackendProbe p{"cuda", false, ""};
    // Only the driver's presence is checked: the app never links libcuda.
    void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!lib) {
        p.reason = "CUDA: no driver (libcuda.so.1 not found)";
        return p;
    }
    dlclose(lib);
    p.reason = "CUDA backend not built yet (driver present)";
    return p;
}

BackendProbe probe_vulkan() {
    return {"vulkan", false, "Vulkan backend not built yet"};
}

}  // namespace

Registry Registry::probe() {
    Registry r;
    r.backends_.push_back(probe_cuda());
    r.backends_.push_back(probe_vulkan());
    r.backends_.push_back({"cpu", true, ""});
    return r;
}

std::string Registry::best() const {
    for (const auto& b : backends_)
        if (b.usable) return b.name;
    return "cpu";
}

Result<std::unique_ptr<Device>> Registry::create(std::string_view pinned) const {
    std::string name = (pinned.empty() || pinned == "auto") ? best() : std::string(pinned);
    for (const auto& b : backends_) {
        if (b.name != name) continue;
        if (!b.usable) return Result<std::unique_ptr<Device>>::error(b.reason);
        if (name == "cpu") return make_cpu_device();
    }
    return Result<std::unique_ptr<Device>>::error("unknown backend '" + name +
                                                  "' (choose auto, cpu, vulkan or cuda)");
}

}  // namespace hearth::backend
