#include "registry.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <system_error>

#ifdef _WIN32
#include <windows.h>
#else
#include <dlfcn.h>
#include <unistd.h>
#endif

#include "cpu/cpu_device.h"

namespace hearth::backend {

namespace {

namespace fs = std::filesystem;

#if defined(_WIN32)
constexpr const char* kPluginSuffix = ".dll";
constexpr char kPathSep = ';';
#elif defined(__APPLE__)
constexpr const char* kPluginSuffix = ".dylib";
constexpr char kPathSep = ':';
#else
constexpr const char* kPluginSuffix = ".so";
constexpr char kPathSep = ':';
#endif
constexpr std::string_view kPluginPrefix = "hearth-backend-";

// Loaded libraries by path: each file is opened once per process and never closed (the
// devices it makes run its code until the process ends).
std::mutex g_mutex;
std::map<std::string, Result<const HearthBackendTable*>>& loaded() {
    static std::map<std::string, Result<const HearthBackendTable*>> m;
    return m;
}

std::string last_dl_error() {
#ifdef _WIN32
    return "error " + std::to_string(GetLastError());
#else
    const char* e = dlerror();
    return e ? e : "unknown error";
#endif
}

Result<const HearthBackendTable*> open_plugin(const fs::path& file) {
    using R = Result<const HearthBackendTable*>;
#ifdef _WIN32
    HMODULE lib = LoadLibraryW(file.c_str());
    if (!lib) return R::error("cannot be loaded (" + last_dl_error() + ")");
    auto entry = reinterpret_cast<HearthBackendEntryFn>(GetProcAddress(lib, HEARTH_BACKEND_ENTRY));
    auto close = [&] { FreeLibrary(lib); };
#else
    void* lib = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) return R::error("cannot be loaded (" + last_dl_error() + ")");
    auto entry = reinterpret_cast<HearthBackendEntryFn>(dlsym(lib, HEARTH_BACKEND_ENTRY));
    auto close = [&] { dlclose(lib); };
#endif
    if (!entry) {
        close();
        return R::error(std::string("no entry symbol ") + HEARTH_BACKEND_ENTRY);
    }
    const HearthBackendTable* t = entry();
    if (!t) {
        close();
        return R::error("its entry returned no table");
    }
    if (t->abi_version != HEARTH_BACKEND_ABI_VERSION) {
        const std::string msg =
            "ABI version " + std::to_string(t->abi_version) + ", this build expects " +
            std::to_string(HEARTH_BACKEND_ABI_VERSION) + " (rebuild the plugin)";
        close();
        return R::error(msg);
    }
    if (t->table_size != sizeof(HearthBackendTable) || !t->build_id || !t->name || !t->probe ||
        !t->create) {
        close();
        return R::error("its entry table is incomplete");
    }
    if (std::strcmp(t->build_id, HEARTH_BACKEND_BUILD_ID) != 0) {
        const std::string msg = std::string("built with ") + t->build_id + ", this program with " +
                                HEARTH_BACKEND_BUILD_ID + " (rebuild the plugin)";
        close();
        return R::error(msg);
    }
    return t;  // stays loaded
}

std::string c_string(const char* s, size_t cap) {
    return std::string(s, strnlen(s, cap));
}

// Lower is better: CUDA, then Vulkan, then others, within one kind.
int backend_rank(std::string_view backend) {
    if (backend == "cuda") return 0;
    if (backend == "vulkan") return 1;
    return 2;
}

bool better(const DeviceEntry& a, const DeviceEntry& b) {
    auto key = [](const DeviceEntry& d) {
        // usable automatic devices first, then usable ones by name only, then unusable ones;
        // within a group by kind (the CPU after every GPU kind), API, score
        const int group = !d.usable ? 2 : d.automatic() ? 0 : 1;
        const int kind = d.builtin_cpu ? 2 : static_cast<int>(d.kind) * 2;
        return std::tuple(group, kind, backend_rank(d.backend), -d.score);
    };
    return key(a) < key(b);
}

// Why a backend's plugin is missing, with what the machine has for it.
std::string missing_reason(const std::string& name) {
    std::string r = "plugin hearth-backend-" + name + kPluginSuffix + " not found (not built)";
#ifndef _WIN32
    if (name == "cuda") {
        // Only the driver's presence is checked: the program never links libcuda.
        void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
        if (lib) {
            dlclose(lib);
            r += "; an NVIDIA driver is present";
        } else {
            r += "; no NVIDIA driver (libcuda.so.1) either";
        }
    }
#endif
    return r;
}

}  // namespace

Result<const HearthBackendTable*> load_plugin(const fs::path& file) {
    std::lock_guard lock(g_mutex);
    std::error_code ec;
    const fs::path canon = fs::weakly_canonical(file, ec);
    const std::string key = (ec ? file : canon).string();
    auto it = loaded().find(key);
    if (it == loaded().end()) it = loaded().emplace(key, open_plugin(file)).first;
    return it->second;
}

std::vector<fs::path> default_plugin_dirs() {
    std::vector<fs::path> dirs;
    std::error_code ec;
#ifdef _WIN32
    wchar_t buf[MAX_PATH];
    const DWORD n = GetModuleFileNameW(nullptr, buf, MAX_PATH);
    if (n > 0 && n < MAX_PATH) dirs.push_back(fs::path(buf).parent_path());
#else
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) dirs.push_back(exe.parent_path());
#endif
    if (const char* env = std::getenv("HEARTH_BACKEND_PATH")) {
        std::string_view s(env);
        while (!s.empty()) {
            const size_t at = s.find(kPathSep);
            const std::string_view part = s.substr(0, at);
            if (!part.empty()) dirs.emplace_back(std::string(part));
            if (at == std::string_view::npos) break;
            s.remove_prefix(at + 1);
        }
    }
    return dirs;
}

Registry Registry::probe() {
    return probe(ProbeOptions{});
}

void Registry::add_plugin(const fs::path& file) {
    const std::string fname = file.filename().string();
    const std::string name = fname.substr(
        kPluginPrefix.size(), fname.size() - kPluginPrefix.size() - std::strlen(kPluginSuffix));
    auto table = load_plugin(file);
    if (!table) {
        skipped_.push_back({name, fname + ": " + table.error_message()});
        return;
    }
    const HearthBackendTable* t = *table;
    constexpr int32_t kMax = 16;
    HearthDeviceInfo infos[kMax] = {};
    char err[256] = {};
    const int32_t n = t->probe(infos, kMax, err, sizeof err);
    if (n < 0) {
        const std::string why = c_string(err, sizeof err);
        skipped_.push_back({name, why.empty() ? "its probe failed" : why});
        return;
    }
    if (n == 0) {
        const std::string why = c_string(err, sizeof err);
        skipped_.push_back({name, why.empty() ? "no device found" : why});
        return;
    }
    for (int32_t i = 0; i < std::min(n, kMax); ++i) {
        const HearthDeviceInfo& d = infos[i];
        DeviceEntry e;
        e.backend = t->name;
        e.name = c_string(d.name, sizeof d.name);
        if (e.name.empty()) e.name = e.backend + std::to_string(i);
        e.description = c_string(d.description, sizeof d.description);
        e.kind = d.kind >= HEARTH_DEVICE_DISCRETE_GPU && d.kind <= HEARTH_DEVICE_REFERENCE
                     ? static_cast<HearthDeviceKind>(d.kind)
                     : HEARTH_DEVICE_CPU_TYPE;
        e.score = d.score;
        e.memory = {d.total_bytes, d.free_bytes};
        e.usable = d.usable != 0;
        e.reason = c_string(d.reason, sizeof d.reason);
        if (!e.usable && e.reason.empty()) e.reason = "not usable";
        e.table = t;
        e.index = i;
        devices_.push_back(std::move(e));
    }
}

Registry Registry::probe(const ProbeOptions& opt) {
    Registry r;
    const auto dirs = opt.dirs.empty() ? default_plugin_dirs() : opt.dirs;
    std::vector<std::string> seen;
    for (const auto& dir : dirs) {
        std::error_code ec;
        std::vector<fs::path> files;
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
            const std::string f = it->path().filename().string();
            if (f.size() > kPluginPrefix.size() + std::strlen(kPluginSuffix) &&
                f.starts_with(kPluginPrefix) && f.ends_with(kPluginSuffix))
                files.push_back(it->path());
        }
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
            const std::string fname = f.filename().string();
            // The first folder holding a plugin wins (the executable's own before the path).
            if (std::find(seen.begin(), seen.end(), fname) != seen.end()) continue;
            seen.push_back(fname);
            r.add_plugin(f);
        }
    }
    for (const auto& name : opt.expected) {
        const std::string fname = std::string(kPluginPrefix) + name + kPluginSuffix;
        if (std::find(seen.begin(), seen.end(), fname) == seen.end())
            r.skipped_.push_back({name, missing_reason(name)});
    }
    DeviceEntry cpu;
    cpu.backend = cpu.name = "cpu";
    cpu.builtin_cpu = true;
    cpu.usable = true;
    r.devices_.push_back(std::move(cpu));
    std::stable_sort(r.devices_.begin(), r.devices_.end(), better);
    return r;
}

std::vector<BackendProbe> Registry::backends() const {
    std::vector<BackendProbe> out;
    for (const auto& d : devices_) {
        std::string why = d.reason;
        if (d.usable && !d.automatic())
            why = "usable when asked for by name (--backend " + d.name + ")";
        out.push_back({d.name, d.usable, why});
    }
    for (const auto& s : skipped_) out.push_back({s.name, false, s.reason});
    return out;
}

const DeviceEntry* Registry::find(std::string_view pinned) const {
    if (pinned.empty() || pinned == "auto") {
        for (const auto& d : devices_)
            if (d.usable && d.automatic()) return &d;
        return nullptr;
    }
    for (const auto& d : devices_)  // a device name
        if (d.name == pinned) return &d;
    const DeviceEntry* first = nullptr;  // a backend name: its best usable device
    for (const auto& d : devices_) {
        if (d.backend != pinned) continue;
        if (d.usable) return &d;
        if (!first) first = &d;
    }
    return first;
}

std::string Registry::why_not(std::string_view pinned) const {
    if (const DeviceEntry* d = find(pinned)) return d->usable ? "" : d->name + ": " + d->reason;
    for (const auto& s : skipped_)
        if (s.name == pinned) return std::string(pinned) + ": " + s.reason;
    std::string names;
    for (const auto& d : devices_) names += (names.empty() ? "" : ", ") + d.name;
    return "unknown backend '" + std::string(pinned) + "' (choose auto or one of: " + names + ")";
}

std::string Registry::best() const {
    const DeviceEntry* d = find("");
    return d ? d->name : "cpu";
}

Result<std::unique_ptr<Device>> Registry::create(std::string_view pinned) const {
    using R = Result<std::unique_ptr<Device>>;
    const DeviceEntry* d = find(pinned);
    if (!d || !d->usable) return R::error(why_not(pinned));
    if (d->builtin_cpu) return make_cpu_device();
    char err[256] = {};
    Device* dev = d->table->create(d->index, err, sizeof err);
    if (!dev) {
        const std::string why = c_string(err, sizeof err);
        return R::error(d->name + ": " + (why.empty() ? "could not be created" : why));
    }
    return std::unique_ptr<Device>(dev);
}

}  // namespace hearth::backend
