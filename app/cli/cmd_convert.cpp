// hearth-cli convert: rewrite a model with 4-bit linear layers (the engine's INT4 weights).
#include <chrono>
#include <cstdio>
#include <string>

#include "args.h"
#include "command_registry.h"
#include "gguf/gguf_file.h"
#include "model/calibration_text.h"
#include "model/int4_convert.h"
#include "tokenizer/tokenizer.h"

namespace {

constexpr const char* kUsage =
    R"(Usage: hearth-cli convert -m MODEL --int4 [--rtn] [--q4k] [--threads N] -o OUT.gguf

Converts the attention and FFN matrices of MODEL that are wider than 5 bits per weight to 4-bit
Q4_0 (the format `hearth-cli run --int4` and the app's INT4 switch use). By default the
per-channel scales are chosen activation-aware (AWQ) on a built-in calibration text and folded
into the norms / producing layers; --rtn uses plain round-to-nearest instead. token_embd and
output become Q8_0 when stored wider than 8 bits; norms and biases stay F32.

Options:
  -m, --model FILE   source GGUF model
  -o, --output FILE  converted GGUF (written to FILE.tmpPID, renamed when complete)
      --int4         required (the only conversion for now)
      --rtn          round-to-nearest, no activation-aware scales
      --q4k          Q4_K (256-blocks) instead of Q4_0 where rows allow it
  -t, --threads N    threads (default: all)

Prints progress to stderr and, when done, one line to stdout:
  converted N matrices (SOURCE_TYPES -> Q4_0, awq|rtn) in S s: BYTES bytes
  [awq search error: rtn R best B]
)";

int convert(std::span<const std::string> argv) {
    using hearth::cli::OptionSpec;
    const OptionSpec specs[] = {{"model", 'm', true}, {"output", 'o', true},
                                {"int4", 0, false},   {"rtn", 0, false},
                                {"q4k", 0, false},    {"threads", 't', true}};
    std::string err;
    auto args = hearth::cli::Args::parse(argv, specs, err);
    if (!args) {
        std::fprintf(stderr, "hearth-cli convert: %s\n%s", err.c_str(), kUsage);
        return 2;
    }
    if (!args->has("model") || !args->has("output") || !args->has("int4")) {
        std::fprintf(stderr, "hearth-cli convert: -m, -o and --int4 are required\n%s", kUsage);
        return 2;
    }
    hearth::model::Int4Settings s;
    if (args->has("rtn")) s.method = hearth::model::Int4Method::Rtn;
    if (args->has("q4k")) s.type = hearth::quant::Type::Q4_K;
    if (auto t = args->integer("threads", err)) s.n_threads = int(*t);
    if (!err.empty()) {
        std::fprintf(stderr, "hearth-cli convert: %s\n", err.c_str());
        return 2;
    }
    const std::string in = *args->value("model");
    auto file = hearth::gguf::GgufFile::open(in);
    if (!file) {
        std::fprintf(stderr, "hearth-cli convert: %s: %s\n", in.c_str(),
                     file.error_message().c_str());
        return 1;
    }
    if (!hearth::model::int4_supported(**file)) {
        std::fprintf(
            stderr,
            "hearth-cli convert: %s: INT4 conversion supports llama and qwen2 models "
            "without experts only (this is %s)\n",
            in.c_str(),
            std::string((*file)->get_string("general.architecture").value_or("?")).c_str());
        return 1;
    }
    if (!hearth::model::needs_int4_conversion(**file))
        std::fprintf(stderr,
                     "hearth-cli convert: note: no linear layer is wider than 5 bits; "
                     "writing a copy with Q8_0 embeddings at most\n");
    auto tok = hearth::tokenizer::Tokenizer::from_gguf(**file);
    if (!tok) {
        std::fprintf(stderr, "hearth-cli convert: tokenizer: %s\n", tok.error_message().c_str());
        return 1;
    }
    const auto calib =
        (*tok)->encode(hearth::model::kCalibrationText, (*tok)->add_bos(), false, false);
    int last = -1;
    auto progress = [&](const hearth::model::ConvertProgress& p) {
        const int pct = int(p.fraction * 100);
        if (pct != last) std::fprintf(stderr, "\rconverting: %3d%%", pct);
        last = pct;
    };
    const auto t0 = std::chrono::steady_clock::now();
    auto rep =
        hearth::model::convert_to_int4(**file, *args->value("output"), s, calib, progress, nullptr);
    std::fprintf(stderr, "\n");
    if (!rep) {
        std::fprintf(stderr, "hearth-cli convert: %s\n", rep.error_message().c_str());
        return 1;
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("converted %d matrices (%s -> %s, %s) in %.2f s: %llu bytes\n", rep->n_converted,
                rep->source_types.c_str(), s.type == hearth::quant::Type::Q4_K ? "Q4_K" : "Q4_0",
                s.method == hearth::model::Int4Method::Awq ? "awq" : "rtn", secs,
                static_cast<unsigned long long>(rep->out_bytes));
    if (s.method == hearth::model::Int4Method::Awq)
        std::printf("awq search error: rtn %.6g best %.6g\n", rep->search_err_rtn,
                    rep->search_err_best);
    return 0;
}

}  // namespace

HEARTH_CLI_COMMAND({"convert", "convert a model's linear layers to 4-bit (INT4 weights)", kUsage,
                    convert});
