// The cache of INT4-converted models: <dir>/int4/<key>.gguf, where the key hashes the source's
// identity (canonical path, size, modification time, and bytes sampled from its header and its
// tensor data), the converter version and the settings. A changed source gives a new key (the
// old entry ages out under the size limit). Entries are written under a temporary name and
// renamed when complete, so a half-written file is never used; an entry that does not open as
// a valid GGUF is deleted and rebuilt. Least-recently-used entries are evicted past the limit.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>

#include "gguf/gguf_file.h"
#include "hearth/result.h"
#include "model/int4_convert.h"

namespace hearth::model {

struct CachedConversion {
    std::filesystem::path path;  // the converted GGUF
    bool converted = false;      // false: an existing entry was reused
    ConvertReport report;        // filled when converted
};

class ConversionCache {
public:
    // dir: the data/cache directory (entries go to dir/int4); limit: total bytes kept (0: no
    // limit). The newest entry is kept even when it alone exceeds the limit.
    ConversionCache(std::filesystem::path dir, uint64_t limit_bytes);

    // $XDG_CACHE_HOME/hearth, else $HOME/.cache/hearth, else the temp directory /hearth.
    static std::filesystem::path default_dir();

    // The entry name for a source file and settings ("<32 hex>.gguf").
    static Result<std::string> key_for(const std::filesystem::path& source,
                                       const Int4Settings& settings);

    // Returns the cached conversion of `source`, converting it first when absent or invalid.
    Result<CachedConversion> get_or_convert(
        const std::filesystem::path& source, const gguf::GgufFile& source_file,
        const Int4Settings& settings, std::span<const int32_t> calibration,
        const std::function<void(const ConvertProgress&)>& progress,
        const std::atomic<bool>* cancel);

    // Deletes every entry (and stray temporary files). Returns the bytes freed.
    uint64_t clear();
    // Total bytes of the entries.
    uint64_t size_bytes() const;
    // Evicts least-recently-used entries until the total fits the limit, sparing `keep`.
    void evict(const std::filesystem::path& keep = {});

    const std::filesystem::path& dir() const { return dir_; }

private:
    std::filesystem::path dir_;  // <dir>/int4
    uint64_t limit_;
};

}  // namespace hearth::model
