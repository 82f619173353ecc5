#include "core/host_memory.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifdef _WIN32
#include <windows.h>
#elif defined(__APPLE__)
#include <mach/mach.h>
#include <sys/sysctl.h>
#else
#include <unistd.h>
#endif

namespace hearth::backend {

uint64_t env_bytes(const char* name, uint64_t fallback) {
    const char* v = std::getenv(name);
    if (!v || !*v) return fallback;
    char* end = nullptr;
    const unsigned long long n = std::strtoull(v, &end, 10);
    return end && *end == '\0' ? static_cast<uint64_t>(n) : fallback;
}

MemoryInfo host_memory() {
    MemoryInfo m;
#ifdef _WIN32
    MEMORYSTATUSEX st{};
    st.dwLength = sizeof st;
    if (GlobalMemoryStatusEx(&st)) {
        m.total_bytes = st.ullTotalPhys;
        m.free_bytes = st.ullAvailPhys;
    }
#elif defined(__APPLE__)
    uint64_t total = 0;
    size_t len = sizeof total;
    if (sysctlbyname("hw.memsize", &total, &len, nullptr, 0) == 0) m.total_bytes = total;
    vm_statistics64_data_t vm{};
    mach_msg_type_number_t count = HOST_VM_INFO64_COUNT;
    if (host_statistics64(mach_host_self(), HOST_VM_INFO64, reinterpret_cast<host_info64_t>(&vm),
                          &count) == KERN_SUCCESS)
        m.free_bytes = (uint64_t(vm.free_count) + vm.inactive_count + vm.purgeable_count) *
                       uint64_t(vm_page_size);
#else
    if (FILE* f = std::fopen("/proc/meminfo", "r")) {
        char line[256];
        while (std::fgets(line, sizeof line, f)) {
            unsigned long long kb = 0;
            if (std::sscanf(line, "MemTotal: %llu kB", &kb) == 1) m.total_bytes = kb * 1024;
            if (std::sscanf(line, "MemAvailable: %llu kB", &kb) == 1) m.free_bytes = kb * 1024;
        }
        std::fclose(f);
    }
    if (m.total_bytes == 0) {
        const long page = sysconf(_SC_PAGESIZE), total = sysconf(_SC_PHYS_PAGES);
        const long avail = sysconf(_SC_AVPHYS_PAGES);
        if (page > 0 && total > 0) m.total_bytes = uint64_t(page) * uint64_t(total);
        if (page > 0 && avail > 0) m.free_bytes = uint64_t(page) * uint64_t(avail);
    }
#endif
    m.free_bytes = env_bytes("HEARTH_HOST_MEMORY_AVAILABLE", m.free_bytes);
    return m;
}

}  // namespace hearth::backend
