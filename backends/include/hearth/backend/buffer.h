// Device memory. A buffer is a block of bytes on one device; tensors are views into it.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "hearth/result.h"

namespace hearth::backend {

class Buffer {
public:
    virtual ~Buffer() = default;

    virtual size_t size() const = 0;
    // The bytes when the host can address them directly (CPU memory, a mapped file), else
    // nullptr. A read-only buffer (a mapped model file) still returns its address.
    virtual std::byte* host_data() = 0;
    virtual bool read_only() const = 0;

    // Copies between host memory and the buffer; out-of-range or read-only writes fail.
    virtual Status write(size_t offset, std::span<const std::byte> bytes) = 0;
    virtual Status read(size_t offset, std::span<std::byte> bytes) const = 0;

    // Copies n bytes of src (a buffer of the same device) from src_offset to offset of this
    // buffer, on the device: KV copy-on-write uses it, so a GPU never round-trips through the
    // host. Regions may overlap only when they are equal. This default goes through host
    // memory; every backend overrides it.
    virtual Status copy_from(size_t offset, const Buffer& src, size_t src_offset, size_t n) {
        std::vector<std::byte> tmp(n);
        if (Status s = src.read(src_offset, tmp); !s) return s;
        return write(offset, tmp);
    }

    // A hint that [offset, offset + n) is about to be written for the first time (a KV cache
    // block handed out). Memory the system commits page by page on first touch (a host
    // buffer's anonymous mapping) is committed now, in one call: in the virtual machine these
    // figures come from, a first-touch fault cost ~11 us a 4 KiB page and a bulk commit
    // ~0.8 us, and a step of eight tinyllama sequences faulted in ~44 pages (a 4 KiB page holds
    // 8 cells of one layer's K or V). Does nothing by default; never fails (the pages then
    // fault in as before).
    virtual void prepare_write(size_t offset, size_t n) {
        (void)offset;
        (void)n;
    }
};

}  // namespace hearth::backend
