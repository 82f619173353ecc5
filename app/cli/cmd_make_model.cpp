// hearth-cli make-model: a synthetic model of a real shape with a real tokenizer.
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "args.h"
#include "command_registry.h"
#include "model/synthetic_model.h"

namespace {

constexpr const char* kUsage =
    R"(Usage: hearth-cli make-model --shape NAME --type TYPE --vocab VOCAB.gguf -o OUT.gguf
                             [--seed N] [--threads N] [--weights random|copying]

Writes a model with seeded random weights (normal, std 0.02; norm weights 1) and the tokenizer
of VOCAB.gguf (every tokenizer.* key is copied; token arrays are padded with [PADn] tokens when
the shape has more vocabulary rows). The same seed gives the same file on every platform.

Shapes:
  tinyllama-1.1b  llama, 2048 wide, 22 layers, 32 heads, 4 KV heads, FFN 5632, vocab 32000
                  (use ggml-vocab-llama-spm.gguf)
  qwen2.5-0.5b    qwen2, 896 wide, 24 layers, 14 heads, 2 KV heads, FFN 4864, vocab 151936,
                  QKV biases, tied embeddings, RoPE base 1e6 (ggml-vocab-qwen2.gguf)
  llama3.2-1b     llama, 2048 wide, 16 layers, 32 heads, 8 KV heads, FFN 8192, vocab 128256,
                  tied, RoPE base 500000 + Llama 3.1 rope_freqs (ggml-vocab-llama-bpe.gguf)
  llama3-8b       llama, 4096 wide, 32 layers, 32 heads, 8 KV heads, FFN 14336, vocab 128256,
                  separate output, RoPE base 500000 + rope_freqs (ggml-vocab-llama-bpe.gguf)
  tiny-llama      llama, 64 wide, 2 layers, 4 heads, 2 KV heads, FFN 160, vocab = file's
  tiny-qwen2      as tiny-llama but qwen2 with QKV biases and tied embeddings
  tiny-llama3     as tiny-llama, tied, RoPE base 500000 with rope_freqs
  tiny-llama-1k   as tiny-llama with 1024 vocabulary rows (token arrays padded)
  copy-llama      llama, 384 wide, 4 layers, 6 heads, 1 KV head, FFN 128, vocab = file's
                  (the smallest shape --weights copying fits; use stories260K.gguf)
  small-llama     llama, 256 wide, 2 layers, 4 heads, 2 KV heads, FFN 512 (K-quants apply)
  qwen3-0.6b      qwen3, 1024 wide, 28 layers, 16 heads of 128, 8 KV heads, FFN 3072,
                  vocab 151936, Q/K norms, tied, RoPE base 1e6 (ggml-vocab-qwen2.gguf)
  gemma3-1b       gemma3, 1152 wide, 26 layers, 4 heads of 256, 1 KV head, FFN 6912,
                  vocab 262144 (padded), sliding window 512 on 5 of 6 layers, tied
                  (ggml-vocab-llama-spm.gguf)
  qwen3-moe-small qwen3moe, Qwen3-30B-A3B's widths with 2 of its 48 layers: 2048 wide,
                  32 heads of 128, 4 KV heads, 128 experts of FFN 768, 8 used per token,
                  vocab 151936, separate output (ggml-vocab-qwen2.gguf)

Types: F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K, Q4_K_M (Q4_K; Q6_K for the output and for attn_v /
ffn_down of even layers). Norms and biases stay F32. Rows that a K-quant block does not divide
fall back like llama.cpp (Q4_K -> Q5_0, Q6_K -> Q8_0).

Options:
  --seed N       random seed (default 1)
  --threads N    quantization threads (default 2; the output does not depend on it)
  --weights copying
                 instead of random weights, a hand-built model that copies: greedy decoding
                 continues any passage whose last three tokens it has seen before, with
                 confident logits (three previous-token heads and an induction head; the FFNs
                 and layers from 4 on are zero but read and computed as usual; RoPE base 1e20).
                 For measuring prompt lookup and draft models. Llama shapes with heads of 64
                 and an output head: tinyllama-1.1b, copy-llama

Prints one line: the output path, its size and the time taken.)";

int run_make_model(std::span<const std::string> args) {
    static const hearth::cli::OptionSpec specs[] = {
        {"shape", 0, true, false},    {"type", 0, true, false}, {"vocab", 0, true, false},
        {"output", 'o', true, false}, {"seed", 0, true, false}, {"threads", 0, true, false},
        {"weights", 0, true, false}};
    std::string error;
    auto a = hearth::cli::Args::parse(args, specs, error);
    if (!a || !a->has("shape") || !a->has("type") || !a->has("vocab") || !a->has("output") ||
        !a->positional().empty()) {
        std::fprintf(stderr, "hearth-cli make-model: %s\n%s\n",
                     error.empty() ? "--shape, --type, --vocab and -o are required" : error.c_str(),
                     kUsage);
        return 2;
    }
    hearth::model::SyntheticSpec spec;
    spec.shape = *a->value("shape");
    const auto type = hearth::model::weight_type_from_name(*a->value("type"));
    if (!type) {
        std::fprintf(stderr,
                     "hearth-cli make-model: unknown --type '%s' (F32, F16, BF16, Q8_0, "
                     "Q4_0, Q4_K, Q6_K, Q4_K_M)\n",
                     a->value("type")->c_str());
        return 2;
    }
    spec.type = *type;
    const auto seed = a->integer("seed", error);
    const auto threads = a->integer("threads", error);
    if (!error.empty() || (seed && *seed < 0) || (threads && (*threads < 1 || *threads > 256))) {
        std::fprintf(stderr, "hearth-cli make-model: bad --seed or --threads %s\n", error.c_str());
        return 2;
    }
    if (seed) spec.seed = static_cast<uint64_t>(*seed);
    if (threads) spec.threads = static_cast<unsigned>(*threads);
    if (auto w = a->value("weights")) {
        if (*w != "random" && *w != "copying") {
            std::fprintf(stderr,
                         "hearth-cli make-model: unknown --weights '%s' (random, copying)\n",
                         w->c_str());
            return 2;
        }
        spec.copying = *w == "copying";
    }
    if (!hearth::model::find_synthetic_shape(spec.shape)) {
        std::fprintf(stderr, "hearth-cli make-model: unknown --shape '%s'\n%s\n",
                     spec.shape.c_str(), kUsage);
        return 2;
    }
    const std::filesystem::path out = *a->value("output");
    const auto t0 = std::chrono::steady_clock::now();
    auto s = hearth::model::write_synthetic_model(spec, *a->value("vocab"), out);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!s) {
        std::fprintf(stderr, "hearth-cli make-model: %s\n", s.message().c_str());
        std::error_code ec;
        std::filesystem::remove(out, ec);
        return 1;
    }
    std::error_code ec;
    const auto size = std::filesystem::file_size(out, ec);
    std::printf("%s: %s %s, %llu bytes, %.1f s\n", out.string().c_str(), spec.shape.c_str(),
                std::string(hearth::model::weight_type_name(spec.type)).c_str(),
                static_cast<unsigned long long>(size), secs);
    return 0;
}

}  // namespace

HEARTH_CLI_COMMAND({"make-model", "write a synthetic model with a real tokenizer", kUsage,
                    run_make_model});
