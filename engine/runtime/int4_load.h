// Model::load's INT4 path: converts the source (or reuses the cache) before the normal load.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "hearth/engine.h"
#include "hearth/result.h"

namespace hearth::runtime {

struct Int4Prepared {
    std::filesystem::path path;  // the file to load instead of the source
    bool cache_hit = false;
};

// nullopt when the source needs no conversion (already <= 5 bits per weight).
Result<std::optional<Int4Prepared>> prepare_int4(const std::filesystem::path& source,
                                                 const LoadOptions& opt);

}  // namespace hearth::runtime
