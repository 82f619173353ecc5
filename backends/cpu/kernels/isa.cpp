// Run-time ISA selection: CPU feature bits, the HEARTH_CPU_ISA override and test forcing.
#include <atomic>
#include <cstdlib>
#include <string>

#include "kernels/kernels_internal.h"

#if defined(__clang__) && (defined(__x86_64__) || defined(__i386__))
#include <cpuid.h>
#endif

namespace hearth::cpu {

namespace {

struct Features {
    bool avx2 = false;    // AVX2 + FMA + F16C
    bool avx512 = false;  // AVX-512 F/BW/VL (+ the AVX2 set)
    bool vnni = false;    // AVX-512 VNNI
    bool amx = false;     // AMX-TILE + AMX-INT8, tile state granted by the OS, probe passed
};

#if defined(__x86_64__)
// CPUID leaf 7 EDX bits 24 (AMX-TILE) and 25 (AMX-INT8), and XCR0 bits 17-18 (the OS manages
// the tile state): then ask Linux for the state and check one product (amx_enable).
bool amx_usable() {
    unsigned a = 0, b = 0, c = 0, d = 0;
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0), "c"(0));
    if (a < 7) return false;
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
    if (!(c & (1u << 27))) return false;  // OSXSAVE: xgetbv is allowed
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(7), "c"(0));
    if (!(d & (1u << 24)) || !(d & (1u << 25))) return false;
    unsigned lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & (3u << 17)) != (3u << 17)) return false;
    return detail::amx_enable();
}
#endif

Features detect() {
    Features f;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
#if defined(__clang__)
    // Clang 14 has no "f16c" for __builtin_cpu_supports (the fuzz build uses clang): CPUID
    // leaf 1, ECX bit 29.
    unsigned a = 0, b = 0, c = 0, d = 0;
    const bool f16c = __get_cpuid(1, &a, &b, &c, &d) != 0 && (c & bit_F16C) != 0;
#else
    const bool f16c = __builtin_cpu_supports("f16c");
#endif
    // libgcc / compiler-rt also check that the OS saves the YMM / ZMM state (XGETBV).
    f.avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && f16c;
    f.avx512 = f.avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl");
    f.vnni = f.avx512 && __builtin_cpu_supports("avx512vnni");
#endif
#if defined(__x86_64__)
    f.amx = f.vnni && amx_usable();
#endif
    return f;
}

const Features& features() {
    static const Features f = detect();
    return f;
}

bool compiled_in(Isa isa) {
    switch (isa) {
        case Isa::Scalar:
            return true;
        case Isa::Avx2:
            return detail::avx2_kernels() != nullptr;
        case Isa::Avx512:
            return detail::avx512_kernels() != nullptr || detail::avx512vnni_kernels() != nullptr;
        case Isa::Neon:
            return false;
    }
    return false;
}

Isa best_isa() {
    if (isa_supported(Isa::Avx512)) return Isa::Avx512;
    if (isa_supported(Isa::Avx2)) return Isa::Avx2;
    if (isa_supported(Isa::Neon)) return Isa::Neon;
    return Isa::Scalar;
}

Isa initial_isa() {
    Isa best = best_isa();
    const char* env = std::getenv("HEARTH_CPU_ISA");
    if (!env || !*env) return best;
    const std::string want(env);
    if (want == "amx") return isa_supported(Isa::Avx512) ? Isa::Avx512 : best;
    for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Neon})
        if (want == isa_name(isa) && isa_supported(isa)) return isa;
    return best;  // unknown or unsupported: ignore the request rather than fail
}

std::atomic<Isa>& current() {
    static std::atomic<Isa> isa{initial_isa()};
    return isa;
}

}  // namespace

std::string_view isa_name(Isa isa) {
    switch (isa) {
        case Isa::Scalar:
            return "scalar";
        case Isa::Avx2:
            return "avx2";
        case Isa::Avx512:
            return "avx512";
        case Isa::Neon:
            return "neon";
    }
    return "unknown";
}

bool isa_supported(Isa isa) {
    if (!compiled_in(isa)) return false;
    switch (isa) {
        case Isa::Scalar:
            return true;
        case Isa::Avx2:
            return features().avx2;
        case Isa::Avx512:
            return features().avx512;
        case Isa::Neon:
            return false;
    }
    return false;
}

Isa active_isa() {
    return current().load(std::memory_order_relaxed);
}

bool force_isa(Isa isa) {
    if (!isa_supported(isa)) return false;
    current().store(isa, std::memory_order_relaxed);
    return true;
}

namespace detail {

namespace {
std::atomic<bool> g_vnni_allowed{true};
// AMX is used where the CPU and Linux give it (backends/README.md measures it against the
// VNNI kernels), unless HEARTH_CPU_ISA names another path: avx512 then means the VNNI kernels
// alone.
std::atomic<bool>& amx_allowed() {
    static std::atomic<bool> allowed{[] {
        const char* env = std::getenv("HEARTH_CPU_ISA");
        return !env || !*env || std::string(env) == "amx";
    }()};
    return allowed;
}
}  // namespace

bool cpu_has_amx() {
    return features().amx && amx_allowed().load(std::memory_order_relaxed);
}

bool allow_amx(bool allow) {
    return amx_allowed().exchange(allow);
}

namespace {
bool initial_stream_prefetch_nta() {
    if (const char* env = std::getenv("HEARTH_CPU_PREFETCH"); env && *env) {
        const std::string want(env);
        if (want == "nta") return true;
        if (want == "l2") return false;
    }
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return __builtin_cpu_is("amd");
#else
    return false;
#endif
}
}  // namespace

bool g_stream_prefetch_nta = initial_stream_prefetch_nta();

bool set_stream_prefetch_nta(bool nta) {
    const bool old = g_stream_prefetch_nta;
    g_stream_prefetch_nta = nta;
    return old;
}

bool cpu_has_avx512vnni() {
    return features().vnni && g_vnni_allowed.load(std::memory_order_relaxed);
}

bool allow_avx512vnni(bool allow) {
    return g_vnni_allowed.exchange(allow);
}

}  // namespace detail

}  // namespace hearth::cpu
