// Writes GGUF v3 files that llama.cpp loads: uint64 counts, general.alignment as UINT32 (default
// 32), tensor data in info order, each tensor at a multiple of the alignment, zero padding.
// Tensor data is streamed: declare every tensor, begin(), then append each tensor's bytes in
// declaration order (in as many chunks as you like), then finish(). Nothing but the metadata
// is held in memory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/gguf_file.h"
#include "hearth/result.h"
#include "quant/quant_type.h"

namespace hearth::gguf {

class GgufWriter {
public:
    GgufWriter() = default;
    GgufWriter(const GgufWriter&) = delete;
    GgufWriter& operator=(const GgufWriter&) = delete;

    // Metadata keeps the order in which keys were first set; setting a key again replaces the
    // value in place.
    void set_u8(std::string_view key, uint8_t v);
    void set_i8(std::string_view key, int8_t v);
    void set_u16(std::string_view key, uint16_t v);
    void set_i16(std::string_view key, int16_t v);
    void set_u32(std::string_view key, uint32_t v);
    void set_i32(std::string_view key, int32_t v);
    void set_u64(std::string_view key, uint64_t v);
    void set_i64(std::string_view key, int64_t v);
    void set_f32(std::string_view key, float v);
    void set_f64(std::string_view key, double v);
    void set_bool(std::string_view key, bool v);
    void set_string(std::string_view key, std::string_view v);
    void set_string_array(std::string_view key, std::span<const std::string> v);
    void set_string_array(std::string_view key, std::span<const std::string_view> v);
    // Numeric arrays: T is one of uint8_t, int8_t, ..., uint64_t, int64_t, float, double.
    template <typename T>
    void set_array(std::string_view key, std::span<const T> v);
    void set_bool_array(std::string_view key, std::span<const bool> v);
    // Copies a value read from another file (arrays are copied byte for byte).
    void copy_value(std::string_view key, const Value& v);
    bool has_key(std::string_view key) const;
    void remove_key(std::string_view key);
    size_t key_count() const { return kvs_.size(); }

    // Sets general.alignment (a power of two) and the padding used for the data.
    Status set_alignment(uint32_t alignment);
    uint32_t alignment() const { return alignment_; }

    // Declares a tensor; ne[0] is the row length. Fails on a bad name, more than 4 dims, a row
    // length not divisible by the block size, a duplicate name, or a call after begin().
    Status add_tensor(std::string_view name, quant::Type type, std::span<const uint64_t> ne);
    size_t tensor_count() const { return tensors_.size(); }
    uint64_t tensor_nbytes(size_t i) const { return tensors_[i].nbytes; }

    // Writes header, metadata and tensor infos to a new file (or a caller-owned stream).
    Status begin(const std::filesystem::path& path);
    Status begin(std::ostream& out);
    // Appends bytes of the current tensor (declaration order); a tensor is complete when its
    // nbytes have been written, and the next chunk goes to the next tensor.
    Status write_tensor_data(std::span<const std::byte> chunk);
    // Checks that every tensor was written in full, then flushes and closes.
    Status finish();

private:
    struct Kv {
        std::string key;
        std::vector<std::byte> payload;  // value type id + encoded value
    };
    struct Tensor {
        std::string name;
        quant::Type type;
        std::vector<uint64_t> ne;
        uint64_t offset = 0;
        uint64_t nbytes = 0;
    };
    std::vector<std::byte>& slot(std::string_view key);  // cleared payload for key
    void set_array_raw(std::string_view key, ValueType elem, const void* data, uint64_t count);
    Status write(const void* p, size_t n);
    Status pad_to_alignment(uint64_t written);

    std::vector<Kv> kvs_;
    std::vector<Tensor> tensors_;
    uint32_t alignment_ = 32;
    std::unique_ptr<std::ofstream> file_;
    std::ostream* out_ = nullptr;
    std::filesystem::path path_;
    bool begun_ = false;
    size_t current_ = 0;            // tensor being written
    uint64_t current_written_ = 0;  // bytes of it so far
};

namespace detail {
template <typename T>
constexpr ValueType value_type_of();
template <>
constexpr ValueType value_type_of<uint8_t>() {
    return ValueType::U8;
}
template <>
constexpr ValueType value_type_of<int8_t>() {
    return ValueType::I8;
}
template <>
constexpr ValueType value_type_of<uint16_t>() {
    return ValueType::U16;
}
template <>
constexpr ValueType value_type_of<int16_t>() {
    return ValueType::I16;
}
template <>
constexpr ValueType value_type_of<uint32_t>() {
    return ValueType::U32;
}
template <>
constexpr ValueType value_type_of<int32_t>() {
    return ValueType::I32;
}
template <>
constexpr ValueType value_type_of<uint64_t>() {
    return ValueType::U64;
}
template <>
constexpr ValueType value_type_of<int64_t>() {
    return ValueType::I64;
}
template <>
constexpr ValueType value_type_of<float>() {
    return ValueType::F32;
}
template <>
constexpr ValueType value_type_of<double>() {
    return ValueType::F64;
}
}  // namespace detail

template <typename T>
void GgufWriter::set_array(std::string_view key, std::span<const T> v) {
    set_array_raw(key, detail::value_type_of<T>(), v.data(), v.size());
}

}  // namespace hearth::gguf
