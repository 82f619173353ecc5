#include "device_options.h"

#include <cstdio>
#include <string>

namespace hearth::cli {

bool read_device_options(const Args& args, LoadOptions& lo, std::string& error) {
    lo.backend = args.value_or("backend", "auto");
    lo.force = args.has("force");
    lo.ctx_beyond_training = args.has("ctx-beyond-training");
    const std::string g = args.value_or("gpu-layers", "auto");
    if (g == "auto") {
        lo.gpu_layers = kGpuLayersAuto;
    } else if (g == "all") {
        lo.gpu_layers = kGpuLayersAll;
    } else {
        const auto n = args.integer("gpu-layers", error);
        if (!error.empty() || !n || *n < 0) {
            error = "--gpu-layers: expected a number >= 0, auto or all, got '" + g + "'";
            return false;
        }
        lo.gpu_layers = *n;
    }
    return true;
}

std::string load_error_text(const std::string& message) {
    if (message.find(" available; try INT4 weights or a shorter context") == std::string::npos)
        return message;
    return message + " (--force loads it anyway)";
}

int64_t print_context_note(const char* command, const ModelInfo& info, int64_t requested) {
    const ContextLength c =
        resolve_context_length(requested, info.n_ctx_train, info.ctx_beyond_training);
    if (!c.note.empty())
        std::fprintf(
            stderr, "hearth-cli %s: note: %s%s\n", command, c.note.c_str(),
            c.clamped ? (" (--ctx-beyond-training keeps " + std::to_string(requested) + ")").c_str()
                      : "");
    return c.n_ctx;
}

void print_placement(const char* command, const ModelInfo& info) {
    if (info.accel_device.empty()) return;
    std::fprintf(stderr, "hearth-cli %s: %lld of %lld layers on %s%s, the rest on the cpu\n",
                 command, static_cast<long long>(info.gpu_layers),
                 static_cast<long long>(info.n_layer), info.accel_device.c_str(),
                 info.output_on_accel ? " (and the output head)" : "");
    for (const auto& n : info.placement_notes)
        std::fprintf(stderr, "hearth-cli %s: %s\n", command, n.c_str());
}

}  // namespace hearth::cli
