// A read-only memory mapping of a whole file (mmap on POSIX, a file mapping on Windows).
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>

#include "hearth/result.h"

namespace hearth::gguf {

class FileMapping {
public:
    // Maps the file read-only. An empty file maps to an empty span.
    static Result<std::unique_ptr<FileMapping>> open(const std::filesystem::path& path);
    ~FileMapping();
    FileMapping(const FileMapping&) = delete;
    FileMapping& operator=(const FileMapping&) = delete;

    std::span<const std::byte> bytes() const { return {data_, size_}; }

    // An error when the file under the mapping has shrunk since it was mapped: reading the
    // lost pages would raise SIGBUS. (A file deleted or replaced by a rename is harmless: the
    // mapping keeps the old inode.) One fstat; callers run it before each use of the bytes.
    Status check_size() const;

private:
    FileMapping() = default;
    const std::byte* data_ = nullptr;
    size_t size_ = 0;
    int fd_ = -1;  // POSIX: kept open for check_size()
#ifdef _WIN32
    void* file_ = nullptr;     // HANDLE
    void* mapping_ = nullptr;  // HANDLE
#endif
};

}  // namespace hearth::gguf
