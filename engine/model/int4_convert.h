// W4A16 conversion: rewrites a model whose linear layers are wider than 4 bits (F32, F16, BF16,
// Q8_0, Q5_*, Q6_K ...) as a GGUF with 4-bit linear layers that the CPU kernels run directly.
// Policy: attention and FFN projections -> Q4_0 (or Q4_K on request, Q4_0 where a row is not a
// multiple of 256); token_embd and output -> Q8_0 when stored wider than 8.5 bits, else kept;
// 1-D tensors (norms, biases) -> F32; linear layers already at <= 5 bits are kept as they are.
// With Int4Method::Awq the per-channel scales of awq_search.h are folded exactly into the op
// that produces each input: attn_norm (q/k/v), ffn_norm (gate/up), ffn_up rows (down) and
// attn_v rows (attn_output, one scale per kv-head channel shared by its GQA group).
// The output streams layer by layer: peak extra memory is one block's weights as float32 plus
// the calibration activations.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>

#include "gguf/gguf_file.h"
#include "hearth/result.h"
#include "model/awq_search.h"
#include "quant/quant_type.h"

namespace hearth::model {

// Bump when the output of the converter changes (invalidates cached conversions).
inline constexpr uint32_t kInt4ConverterVersion = 1;

enum class Int4Method { Awq, Rtn };

struct Int4Settings {
    Int4Method method = Int4Method::Awq;
    quant::Type type = quant::Type::Q4_0;  // Q4_0 or Q4_K
    size_t max_calibration_tokens = 256;
    AwqSearchOptions search;
    int n_threads = 0;  // 0: all hardware threads (the output does not depend on it)
    // A canonical text of everything that changes the output (part of the cache key).
    std::string key_text() const;
};

struct ConvertProgress {
    double fraction = 0;
    uint64_t bytes_done = 0;  // source tensor bytes processed
    uint64_t bytes_total = 0;
};

struct ConvertReport {
    int n_converted = 0;        // linear matrices written as 4-bit
    std::string source_types;   // types of the source's linear layers, e.g. "F16"
    double search_err_rtn = 0;  // summed sampled output errors of the search (AWQ only)
    double search_err_best = 0;
    uint64_t out_bytes = 0;
};

// Whether the converter handles the file's architecture (llama and qwen2 without experts: its
// calibration runs a llama-style forward pass).
bool int4_supported(const gguf::GgufFile& file);
// Whether any attention/FFN matrix is stored wider than 5 bits per weight, for a supported
// architecture (other families load as stored).
bool needs_int4_conversion(const gguf::GgufFile& file);
// "F16", "Q8_0+Q6_K", ...: the types of the linear layers.
std::string linear_weight_types(const gguf::GgufFile& file);

// Converts `src` to `out` (written to a temporary name beside it, renamed when complete; on
// any failure or cancellation nothing is left at `out` nor the temporary). `calibration`
// holds the tokens of the calibration text (BOS first); unused with Int4Method::Rtn.
Result<ConvertReport> convert_to_int4(const gguf::GgufFile& src, const std::filesystem::path& out,
                                      const Int4Settings& settings,
                                      std::span<const int32_t> calibration,
                                      const std::function<void(const ConvertProgress&)>& progress,
                                      const std::atomic<bool>* cancel);

}  // namespace hearth::model
