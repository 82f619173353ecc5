// The device options shared by run and bench: --backend NAME, --gpu-layers N|auto|all, --force.
#pragma once

#include <string>

#include "args.h"
#include "hearth/engine.h"

namespace hearth::cli {

// The option specs to append to a command's own.
inline const OptionSpec kDeviceOptionSpecs[] = {
    {"backend", 0, true},
    {"gpu-layers", 0, true},
    {"force", 0, false},
    {"ctx-beyond-training", 0, false},
};

// Help text lines for the three options (indented like the commands' usage); a literal so
// that usage strings concatenate it at compile time.
#define HEARTH_CLI_DEVICE_OPTIONS_USAGE                                                          \
    "      --backend NAME      auto (default: CUDA, else a Vulkan GPU, else the CPU), cpu, a\n"  \
    "                          plugin backend (cuda, vulkan, ref) or a device (vulkan1);\n"      \
    "                          hearth-cli --version lists what this machine has\n"               \
    "      --gpu-layers N      layers on the accelerator, the rest on the CPU: a number, all,\n" \
    "                          or auto (default: as many as fit in its free memory)\n"           \
    "      --force             load even when the fit check says the model needs more memory\n"  \
    "                          than is available\n"                                              \
    "      --ctx-beyond-training  keep a context longer than the model's training context\n"     \
    "                          (default: clamped to it, with a note on stderr)\n"

// Fills lo.backend, lo.gpu_layers, lo.force and lo.ctx_beyond_training; false with error set
// on a bad value.
bool read_device_options(const Args& args, LoadOptions& lo, std::string& error);

// A load error, with how to load anyway when the fit check refused the model.
std::string load_error_text(const std::string& message);

// One stderr line when the context asked for (0: the training context) is clamped to the
// model's training context, or kept beyond it by --ctx-beyond-training:
// "hearth-cli run: note: context 2048 is longer than the 128 tokens this model was trained on;
// using 128 (--ctx-beyond-training keeps 2048)". Returns the context the model's contexts get.
int64_t print_context_note(const char* command, const ModelInfo& info, int64_t requested);

// One stderr line when layers run on an accelerator: "placement: 3 of 5 layers on ref ...".
void print_placement(const char* command, const ModelInfo& info);

}  // namespace hearth::cli
