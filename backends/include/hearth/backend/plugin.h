// The entry point of a backend plugin: a shared library named hearth-backend-<name>
// (.so / .dll / .dylib) that exports one extern "C" function, HEARTH_BACKEND_ENTRY, returning
// a table. The table itself is plain C (the loader can read it from any plugin, however it was
// built); the device that `create` returns is the C++ hearth::backend::Device of device.h, so
// a plugin must be built by the same compiler and standard library as the program, from the
// same version of backends/include. The loader checks abi_version and build_id and refuses a
// mismatch (backends/README.md says why this choice was made).
#pragma once

#include <cstddef>
#include <cstdint>

namespace hearth::backend {
class Device;
}

// Bumped whenever anything in backends/include/hearth/backend changes in a way a built plugin
// would notice (a virtual function, a struct layout, an op).
#define HEARTH_BACKEND_ABI_VERSION 5u
#define HEARTH_BACKEND_ENTRY "hearth_backend_entry"

#if defined(_WIN32)
#define HEARTH_BACKEND_EXPORT __declspec(dllexport)
#else
#define HEARTH_BACKEND_EXPORT __attribute__((visibility("default")))
#endif

#define HEARTH_BACKEND_STR2(x) #x
#define HEARTH_BACKEND_STR(x) HEARTH_BACKEND_STR2(x)
#if defined(__clang__)
#define HEARTH_BACKEND_COMPILER_ID "clang " __clang_version__
#elif defined(__GNUC__)
#define HEARTH_BACKEND_COMPILER_ID "gcc " __VERSION__
#elif defined(_MSC_VER)
#define HEARTH_BACKEND_COMPILER_ID "msvc " HEARTH_BACKEND_STR(_MSC_VER)
#else
#define HEARTH_BACKEND_COMPILER_ID "unknown compiler"
#endif
#if defined(_LIBCPP_VERSION)
#define HEARTH_BACKEND_STDLIB_ID " libc++ " HEARTH_BACKEND_STR(_LIBCPP_VERSION)
#elif defined(__GLIBCXX__)
#define HEARTH_BACKEND_STDLIB_ID " libstdc++ " HEARTH_BACKEND_STR(__GLIBCXX__)
#else
#define HEARTH_BACKEND_STDLIB_ID ""
#endif
// What a plugin's C++ objects depend on: the compiler and the standard library.
#define HEARTH_BACKEND_BUILD_ID HEARTH_BACKEND_COMPILER_ID HEARTH_BACKEND_STDLIB_ID

extern "C" {

// Device kinds, best first for automatic choice. CPU-type devices (a Vulkan software rasterizer
// such as lavapipe) and the reference device are used only when asked for by name.
enum HearthDeviceKind : int32_t {
    HEARTH_DEVICE_DISCRETE_GPU = 0,
    HEARTH_DEVICE_INTEGRATED_GPU = 1,
    HEARTH_DEVICE_CPU_TYPE = 2,   // an accelerator API running on the CPU: by name only
    HEARTH_DEVICE_REFERENCE = 3,  // the test oracle: by name only
};

struct HearthDeviceInfo {
    char name[64];  // "cuda0", "vulkan1", "ref"
    char description[256];
    int32_t kind;   // HearthDeviceKind
    int32_t score;  // higher is better among devices of one kind and backend
    uint64_t total_bytes;
    uint64_t free_bytes;
    int32_t usable;    // 0: `reason` says why (too little memory, no driver support, ...)
    char reason[256];  // empty when usable
};

struct HearthBackendTable {
    uint32_t abi_version;  // HEARTH_BACKEND_ABI_VERSION of the plugin's build
    uint32_t table_size;   // sizeof(HearthBackendTable)
    const char* build_id;  // HEARTH_BACKEND_BUILD_ID of the plugin's build
    const char* name;      // "cuda", "vulkan", "ref": the part after hearth-backend-
    // Fills up to max_devices entries and returns how many devices exist (0: none), or -1 with
    // a sentence in error (no driver, driver too old). Must not crash when nothing is there.
    int32_t (*probe)(HearthDeviceInfo* devices, int32_t max_devices, char* error,
                     size_t error_size);
    // Makes device `index` of the last probe; nullptr with a sentence in error on failure. The
    // caller owns the device (deleted through its virtual destructor).
    hearth::backend::Device* (*create)(int32_t index, char* error, size_t error_size);
};

typedef const HearthBackendTable* (*HearthBackendEntryFn)(void);

}  // extern "C"
