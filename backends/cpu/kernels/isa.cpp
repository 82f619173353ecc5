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
};

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
}  // namespace

bool cpu_has_avx512vnni() {
    return features().vnni && g_vnni_allowed.load(std::memory_order_relaxed);
}

bool allow_avx512vnni(bool allow) {
    return g_vnni_allowed.exchange(allow);
}

}  // namespace detail

}  // namespace hearth::cpu
