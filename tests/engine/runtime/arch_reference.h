// An independent float64 forward pass for every supported family (qwen3, qwen3moe, gemma2,
// gemma3, phi3, llama with or without experts), written from the families' definitions over
// the decoded values of a GGUF file. It shares nothing with the engine's graph or kernels, so
// the CPU backend (and any later device) is checked against something other than llama.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"
#include "runtime/config_support.h"

namespace hearth::runtime::test {

struct ArchModel {
    ModelConfig params;
    std::map<std::string, std::vector<float>> values;  // every tensor, decoded to float
};

ArchModel decode_arch_model(const gguf::GgufFile& file);

// Logits of every position [T][n_vocab] for tokens at positions 0..T-1. n_ctx picks LongRoPE's
// factor set as the engine does (long when n_ctx exceeds the original context).
std::vector<std::vector<double>> arch_reference_forward(const ArchModel& m,
                                                        const std::vector<int32_t>& tokens,
                                                        int64_t n_ctx);

}  // namespace hearth::runtime::test
