// Which compute devices exist on this machine and which one to use. The CPU is built in; every
// other backend is a plugin, hearth-backend-<name> (.so / .dll / .dylib), found next to the
// executable and in the folders of HEARTH_BACKEND_PATH (include/hearth/backend/plugin.h is its
// entry point). The registry loads every plugin it finds, ranks their devices (CUDA > discrete
// Vulkan > integrated Vulkan > CPU; CPU-type and reference devices only when asked for by
// name) and records in words why each plugin or device was skipped, so the app can show it.
// A broken plugin (missing entry symbol, other ABI, failing probe) is skipped, never fatal.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hearth/backend/device.h"
#include "hearth/backend/plugin.h"
#include "hearth/result.h"

namespace hearth::backend {

// One device the registry found (usable or not).
struct DeviceEntry {
    std::string backend;  // "cuda", "vulkan", "ref", "cpu"
    std::string name;     // "cuda0", "vulkan1", "ref", "cpu"
    std::string description;
    HearthDeviceKind kind = HEARTH_DEVICE_DISCRETE_GPU;
    bool builtin_cpu = false;  // the built-in CPU backend (ranked last among automatic choices)
    int32_t score = 0;
    MemoryInfo memory;
    bool usable = false;
    std::string reason;  // why not usable
    // Chosen automatically when best; false for CPU-type and reference devices.
    bool automatic() const {
        return builtin_cpu || kind == HEARTH_DEVICE_DISCRETE_GPU ||
               kind == HEARTH_DEVICE_INTEGRATED_GPU;
    }
    // For create(): the plugin's table and the device's index in its probe.
    const HearthBackendTable* table = nullptr;
    int32_t index = 0;
};

// A plugin or a backend that gave no device, and why ("hearth-backend-cuda: not found").
struct SkippedBackend {
    std::string name;  // "cuda", or the plugin file name for an unknown plugin
    std::string reason;
};

// Kept for callers that list backends: one row per device and per skipped backend.
struct BackendProbe {
    std::string name;
    bool usable = false;
    std::string reason;  // why it is not usable (empty when usable)
};

struct ProbeOptions {
    // Folders searched for plugins, in order. Empty: the executable's folder, then each folder
    // of HEARTH_BACKEND_PATH (':'-separated; ';' on Windows).
    std::vector<std::filesystem::path> dirs;
    // Backends whose plugin is expected; a missing one is recorded as skipped with its reason.
    std::vector<std::string> expected = {"cuda", "vulkan"};
};

class Registry {
public:
    // Looks at the machine (loads the plugins; no driver is ever linked). Plugins stay loaded
    // for the life of the process: a device, its buffers and streams run plugin code.
    static Registry probe();
    static Registry probe(const ProbeOptions& options);

    // Every device, best first: usable automatic ones by rank, then the rest.
    const std::vector<DeviceEntry>& devices() const { return devices_; }
    const std::vector<SkippedBackend>& skipped() const { return skipped_; }
    // Devices and skipped backends as rows (for About and ModelInfo).
    std::vector<BackendProbe> backends() const;

    // The best usable automatic device ("" or "auto"), or the one pinned by backend name
    // ("cuda", "ref": that backend's best device) or device name ("vulkan1"). A pinned device
    // that is not usable is an error carrying its reason.
    Result<std::unique_ptr<Device>> create(std::string_view pinned = "") const;
    // The entry create(pinned) would use, or nullptr (error() says why).
    const DeviceEntry* find(std::string_view pinned) const;
    // Why find(pinned) gives nothing.
    std::string why_not(std::string_view pinned) const;
    // The device name create("") would pick.
    std::string best() const;

private:
    void add_plugin(const std::filesystem::path& file);
    std::vector<DeviceEntry> devices_;
    std::vector<SkippedBackend> skipped_;
};

// Loads one plugin file and checks its entry (for the registry and its tests): the table, or
// why it is refused ("no entry symbol hearth_backend_entry", "ABI version 2, this build
// expects 1", ...).
Result<const HearthBackendTable*> load_plugin(const std::filesystem::path& file);

// The folders probe() searches by default.
std::vector<std::filesystem::path> default_plugin_dirs();

}  // namespace hearth::backend
