// Where tests find the external reference data (../shared beside the checkout).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace hearth::test {

// The shared data folder, or nullopt when it is absent (tests then GTEST_SKIP()).
inline std::optional<std::filesystem::path> shared_dir() {
    if (const char* env = std::getenv("HEARTH_SHARED_DIR"); env && *env) {
        std::filesystem::path p(env);
        if (std::filesystem::is_directory(p)) return p;
    }
    return std::nullopt;
}

// A file under the shared folder, or nullopt when it (or the folder) is absent.
inline std::optional<std::filesystem::path> shared_file(const std::string& relative) {
    auto dir = shared_dir();
    if (!dir) return std::nullopt;
    auto p = *dir / relative;
    if (!std::filesystem::exists(p)) return std::nullopt;
    return p;
}

inline std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// A fresh empty temporary directory, removed when the object dies.
class TempDir {
public:
    TempDir() {
        auto base = std::filesystem::temp_directory_path();
        for (int i = 0;; ++i) {
            path_ = base / ("hearth-test-" + std::to_string(std::rand()) + "-" + std::to_string(i));
            if (std::filesystem::create_directory(path_)) break;
        }
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace hearth::test

#define HEARTH_REQUIRE_SHARED(var, relative)                                             \
    auto var##_opt = ::hearth::test::shared_file(relative);                              \
    if (!var##_opt) GTEST_SKIP() << "reference data not found: ../shared/" << relative \
                                 << " (set HEARTH_SHARED_DIR)";                          \
    const std::filesystem::path var = *var##_opt
