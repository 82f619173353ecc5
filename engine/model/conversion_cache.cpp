// The INT4 conversion cache (see conversion_cache.h).
#include "model/conversion_cache.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

namespace hearth::model {

namespace fs = std::filesystem;

namespace {

// Two independent 64-bit FNV-1a streams: enough to tell files and settings apart (this is an
// identity check, not a defence against crafted collisions).
struct Hash128 {
    uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
    void add(const void* p, size_t n) {
        const auto* c = static_cast<const unsigned char*>(p);
        for (size_t i = 0; i < n; ++i) {
            a = (a ^ c[i]) * 0x100000001b3ull;
            b = (b ^ c[i] ^ 0x5a) * 0x100000001b3ull;
        }
    }
    void add(std::string_view s) {
        const uint64_t n = s.size();
        add(&n, sizeof n);
        add(s.data(), s.size());
    }
    std::string hex() const {
        static const char* d = "0123456789abcdef";
        std::string out;
        for (uint64_t v : {a, b})
            for (int i = 60; i >= 0; i -= 4) out += d[(v >> i) & 15];
        return out;
    }
};

// Reads up to n bytes at offset (fewer at the end of the file).
std::vector<char> read_at(std::ifstream& f, uint64_t offset, size_t n) {
    std::vector<char> buf(n);
    f.clear();
    f.seekg(std::streamoff(offset));
    f.read(buf.data(), std::streamsize(n));
    buf.resize(size_t(std::max<std::streamsize>(0, f.gcount())));
    return buf;
}

bool is_entry(const fs::directory_entry& e) {
    return e.is_regular_file() && e.path().extension() == ".gguf";
}

}  // namespace

ConversionCache::ConversionCache(fs::path dir, uint64_t limit_bytes)
    : dir_(std::move(dir) / "int4"), limit_(limit_bytes) {}

fs::path ConversionCache::default_dir() {
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "hearth";
    if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "hearth";
    std::error_code ec;
    return fs::temp_directory_path(ec) / "hearth";
}

Result<std::string> ConversionCache::key_for(const fs::path& source, const Int4Settings& s) try {
    std::error_code cec, ec;
    const fs::path canon = fs::weakly_canonical(source, cec);
    const uint64_t size = fs::file_size(source, ec);
    if (ec) return Result<std::string>::error(source.string() + ": " + ec.message());
    const auto mtime = fs::last_write_time(source, ec).time_since_epoch().count();
    if (ec) return Result<std::string>::error(source.string() + ": " + ec.message());
    std::ifstream f(source, std::ios::binary);
    if (!f) return Result<std::string>::error(source.string() + ": cannot open");
    Hash128 h;
    h.add(cec ? source.string() : canon.string());
    h.add(&size, sizeof size);
    const int64_t mt = int64_t(mtime);
    h.add(&mt, sizeof mt);
    // The header and metadata start, plus 64 KiB samples spread through the tensor data.
    constexpr size_t kSample = 64 << 10;
    for (uint64_t off :
         {uint64_t(0), size / 4, size / 2, size * 3 / 4, size > kSample ? size - kSample : 0}) {
        const auto buf = read_at(f, off, kSample);
        h.add(buf.data(), buf.size());
    }
    h.add("int4 converter v" + std::to_string(kInt4ConverterVersion));
    h.add(s.key_text());
    return h.hex() + ".gguf";
} catch (...) {
    return exception_status("INT4 cache");
}

Result<CachedConversion> ConversionCache::get_or_convert(
    const fs::path& source, const gguf::GgufFile& source_file, const Int4Settings& settings,
    std::span<const int32_t> calibration,
    const std::function<void(const ConvertProgress&)>& progress,
    const std::atomic<bool>* cancel) try {
    using R = Result<CachedConversion>;
    auto key = key_for(source, settings);
    if (!key) return R::error(key.error_message());
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec) return R::error("INT4 cache " + dir_.string() + ": " + ec.message());
    CachedConversion c;
    c.path = dir_ / *key;
    if (fs::exists(c.path, ec)) {
        if (auto f = gguf::GgufFile::open(c.path);
            f && (*f)->get_u64("hearth.int4.converter_version") == kInt4ConverterVersion) {
            fs::last_write_time(c.path, fs::file_time_type::clock::now(), ec);  // LRU stamp
            return c;
        }
        fs::remove(c.path, ec);  // corrupt or foreign: rebuild
    }
    auto rep = convert_to_int4(source_file, c.path, settings, calibration, progress, cancel);
    if (!rep) return R::error(rep.error_message());
    c.converted = true;
    c.report = *rep;
    evict(c.path);
    return c;
} catch (...) {
    return exception_status("INT4 cache");
}

uint64_t ConversionCache::size_bytes() const {
    uint64_t total = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_, ec))
        if (is_entry(e)) total += e.file_size(ec);
    return total;
}

void ConversionCache::evict(const fs::path& keep) {
    if (limit_ == 0) return;
    struct Entry {
        fs::path path;
        fs::file_time_type time;
        uint64_t size;
    };
    std::vector<Entry> entries;
    uint64_t total = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_, ec)) {
        if (!is_entry(e)) continue;
        entries.push_back({e.path(), e.last_write_time(ec), e.file_size(ec)});
        total += entries.back().size;
    }
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.time < b.time; });
    for (const auto& e : entries) {
        if (total <= limit_) break;
        if (e.path == keep) continue;
        if (fs::remove(e.path, ec)) total -= e.size;
    }
}

uint64_t ConversionCache::clear() {
    uint64_t freed = 0;
    std::error_code ec;
    std::vector<fs::path> victims;
    for (const auto& e : fs::directory_iterator(dir_, ec))
        if (e.is_regular_file() &&
            (is_entry(e) || e.path().string().find(".gguf.tmp") != std::string::npos))
            victims.push_back(e.path());
    for (const auto& p : victims) {
        const uint64_t n = fs::file_size(p, ec);
        if (fs::remove(p, ec)) freed += n;
    }
    return freed;
}

}  // namespace hearth::model
