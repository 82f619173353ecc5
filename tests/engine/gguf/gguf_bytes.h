// Hand-assembled GGUF bytes for malformed-input tests (the writer refuses to make broken files).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace hearth::gguf::test {

class Bytes {
public:
    template <typename T>
    Bytes& put(T v) {
        const auto* p = reinterpret_cast<const std::byte*>(&v);
        b_.insert(b_.end(), p, p + sizeof(T));
        return *this;
    }
    Bytes& u8(uint8_t v) { return put(v); }
    Bytes& u32(uint32_t v) { return put(v); }
    Bytes& u64(uint64_t v) { return put(v); }
    Bytes& str(std::string_view s) {
        u64(s.size());
        const auto* p = reinterpret_cast<const std::byte*>(s.data());
        b_.insert(b_.end(), p, p + s.size());
        return *this;
    }
    // magic, version, counts
    Bytes& header(uint64_t n_tensors, uint64_t n_kv, uint32_t version = 3) {
        return u32(0x46554747).u32(version).u64(n_tensors).u64(n_kv);
    }
    Bytes& kv_u32(std::string_view key, uint32_t v) { return str(key).u32(4).u32(v); }
    Bytes& kv_string(std::string_view key, std::string_view v) { return str(key).u32(8).str(v); }
    // A tensor info with 2 dims.
    Bytes& tensor(std::string_view name, uint64_t ne0, uint64_t ne1, uint32_t type,
                  uint64_t offset) {
        return str(name).u32(2).u64(ne0).u64(ne1).u32(type).u64(offset);
    }
    Bytes& pad_to(size_t alignment) {
        while (b_.size() % alignment) b_.push_back(std::byte{0});
        return *this;
    }
    Bytes& zeros(size_t n) {
        b_.insert(b_.end(), n, std::byte{0});
        return *this;
    }
    size_t size() const { return b_.size(); }
    std::span<const std::byte> span() const { return b_; }
    std::vector<std::byte>& vec() { return b_; }

private:
    std::vector<std::byte> b_;
};

}  // namespace hearth::gguf::test
