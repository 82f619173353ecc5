// Which compute backends exist on this machine and which one to use. Probes CUDA, then Vulkan,
// then the CPU (always present), and records in words why each unused backend was skipped so
// the app can show it.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hearth/backend/device.h"
#include "hearth/result.h"

namespace hearth::backend {

struct BackendProbe {
    std::string name;  // "cuda", "vulkan", "cpu"
    bool usable = false;
    std::string reason;  // why it is not usable (empty when usable)
};

class Registry {
public:
    // Looks at the machine once (dlopen probes; no driver is ever linked).
    static Registry probe();

    // In preference order (CUDA, Vulkan, CPU).
    const std::vector<BackendProbe>& backends() const { return backends_; }
    // The best usable backend, or the pinned one ("cpu", "cuda", "vulkan"; "" or "auto" for
    // the best). A pinned backend that is not usable is an error carrying its reason.
    Result<std::unique_ptr<Device>> create(std::string_view pinned = "") const;
    // "cpu" etc.: what create("") would pick.
    std::string best() const;

private:
    std::vector<BackendProbe> backends_;
};

}  // namespace hearth::backend
