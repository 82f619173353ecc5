// INT4 weights at load time (see int4_load.h and LoadOptions::int4_weights).
#include "runtime/int4_load.h"

#include "gguf/gguf_file.h"
#include "model/calibration_text.h"
#include "model/conversion_cache.h"
#include "tokenizer/tokenizer.h"

namespace hearth {

namespace runtime {

Result<std::optional<Int4Prepared>> prepare_int4(const std::filesystem::path& source,
                                                 const LoadOptions& opt) try {
    using R = Result<std::optional<Int4Prepared>>;
    auto file = gguf::GgufFile::open(source);
    if (!file) return R::error(source.string() + ": " + file.error_message());
    if (!model::needs_int4_conversion(**file)) return std::optional<Int4Prepared>{};
    auto tok = tokenizer::Tokenizer::from_gguf(**file);
    if (!tok) return R::error(source.string() + ": tokenizer: " + tok.error_message());
    const auto calibration =
        (*tok)->encode(model::kCalibrationText, (*tok)->add_bos(), false, false);
    model::ConversionCache cache(
        opt.int4_cache_dir.empty() ? model::ConversionCache::default_dir() : opt.int4_cache_dir,
        opt.int4_cache_limit_bytes);
    model::Int4Settings settings;
    auto progress = [&](const model::ConvertProgress& p) {
        if (opt.on_progress)
            opt.on_progress({p.fraction, p.bytes_done, p.bytes_total, "converting"});
    };
    auto c = cache.get_or_convert(source, **file, settings, calibration, progress, opt.cancel);
    if (!c) return R::error(source.string() + ": INT4 conversion: " + c.error_message());
    return std::optional<Int4Prepared>(Int4Prepared{c->path, !c->converted});
} catch (...) {
    return exception_status("INT4 weights");
}

}  // namespace runtime

uint64_t clear_int4_cache(const std::filesystem::path& cache_dir) {
    model::ConversionCache cache(
        cache_dir.empty() ? model::ConversionCache::default_dir() : cache_dir, 0);
    return cache.clear();
}

}  // namespace hearth
