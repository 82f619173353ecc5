#include "gguf/file_mapping.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#else
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace hearth::gguf {

namespace {

// what + " '" + path + "'" + tail, built by appending (GCC 12's -Wrestrict misfires on
// "literal" + std::string at -O3).
std::string message(std::string_view what, const std::filesystem::path& path,
                    std::string_view tail = {}) {
    std::string m(what);
    m += " '";
    m += path.string();
    m += "'";
    m += tail;
    return m;
}

}  // namespace

#ifdef _WIN32

namespace {

std::string win_error() {
    return " (Windows error " + std::to_string(GetLastError()) + ")";
}

}  // namespace

Result<std::unique_ptr<FileMapping>> FileMapping::open(const std::filesystem::path& path) {
    using R = Result<std::unique_ptr<FileMapping>>;
    std::unique_ptr<FileMapping> m(new FileMapping());
    HANDLE file = CreateFileW(path.c_str(), GENERIC_READ, FILE_SHARE_READ, nullptr, OPEN_EXISTING,
                              FILE_ATTRIBUTE_NORMAL, nullptr);
    if (file == INVALID_HANDLE_VALUE) return R::error(message("cannot open", path, win_error()));
    m->file_ = file;
    LARGE_INTEGER size{};
    if (!GetFileSizeEx(file, &size)) return R::error(message("cannot read the size of", path));
    if (size.QuadPart == 0) return m;
    if (static_cast<unsigned long long>(size.QuadPart) > SIZE_MAX)
        return R::error(message("too large to map:", path));
    HANDLE mapping = CreateFileMappingW(file, nullptr, PAGE_READONLY, 0, 0, nullptr);
    if (!mapping) return R::error(message("cannot map", path, win_error()));
    m->mapping_ = mapping;
    void* view = MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, 0);
    if (!view) return R::error(message("cannot map", path, win_error()));
    m->data_ = static_cast<const std::byte*>(view);
    m->size_ = static_cast<size_t>(size.QuadPart);
    return m;
}

Status FileMapping::check_size() const {
    return Status::ok();  // Windows refuses to truncate a file that is mapped
}

FileMapping::~FileMapping() {
    if (data_) UnmapViewOfFile(data_);
    if (mapping_) CloseHandle(static_cast<HANDLE>(mapping_));
    if (file_) CloseHandle(static_cast<HANDLE>(file_));
}

#else

namespace {

// Closes a descriptor on every return path.
struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

std::string errno_text() {
    return std::strerror(errno);
}

}  // namespace

Result<std::unique_ptr<FileMapping>> FileMapping::open(const std::filesystem::path& path) {
    using R = Result<std::unique_ptr<FileMapping>>;
    Fd f;
    f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (f.fd < 0) return R::error(message("cannot open", path, ": " + errno_text()));
    struct stat st {};
    if (::fstat(f.fd, &st) != 0) return R::error(message("cannot stat", path, ": " + errno_text()));
    if (!S_ISREG(st.st_mode)) return R::error(message("not a regular file:", path));
    std::unique_ptr<FileMapping> m(new FileMapping());
    if (st.st_size == 0) return m;
    if (static_cast<unsigned long long>(st.st_size) > SIZE_MAX)
        return R::error(message("too large to map:", path));
    const auto size = static_cast<size_t>(st.st_size);
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, f.fd, 0);
    if (p == MAP_FAILED) return R::error(message("cannot map", path, ": " + errno_text()));
    m->data_ = static_cast<const std::byte*>(p);
    m->size_ = size;
    m->fd_ = f.fd;
    f.fd = -1;
    return m;
}

Status FileMapping::check_size() const {
    struct stat st {};
    if (fd_ < 0 || ::fstat(fd_, &st) != 0) return Status::ok();
    if (static_cast<unsigned long long>(st.st_size) >= size_) return Status::ok();
    return Status::error("the model file was truncated on disk after it was loaded (" +
                         std::to_string(size_) + " bytes then, " + std::to_string(st.st_size) +
                         " now): load it again");
}

FileMapping::~FileMapping() {
    if (data_) ::munmap(const_cast<std::byte*>(data_), size_);
    if (fd_ >= 0) ::close(fd_);
}

#endif

}  // namespace hearth::gguf
