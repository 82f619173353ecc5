// Tests of memory committed ahead of use (Buffer::prepare_write): which pages of a range are in
// memory, and whether this kernel can commit a range at once. Linux only.
#pragma once

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace hearth::test {

inline size_t page_bytes() {
    return static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

// Pages of [p, p + n) that are in memory (mincore; p page-aligned); 0 if mincore fails.
inline size_t resident_pages(const std::byte* p, size_t n) {
    std::vector<unsigned char> v((n + page_bytes() - 1) / page_bytes());
    if (mincore(const_cast<std::byte*>(p), n, v.data()) != 0) return 0;
    return static_cast<size_t>(
        std::count_if(v.begin(), v.end(), [](unsigned char c) { return (c & 1) != 0; }));
}

// Whether madvise(MADV_POPULATE_WRITE) works here (Linux 5.14 and later).
inline bool can_populate_write() {
    void* m =
        mmap(nullptr, page_bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return false;
    const bool ok = madvise(m, page_bytes(), 23 /* MADV_POPULATE_WRITE */) == 0;
    munmap(m, page_bytes());
    return ok;
}

}  // namespace hearth::test
#endif
