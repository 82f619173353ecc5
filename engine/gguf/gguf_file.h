// A memory-mapped, fully validated, read-only view of a GGUF file (v2 and v3, little-endian).
// Opening reads only the header, metadata and tensor infos; tensor data stays in the mapping
// until someone touches it. Every string and array is a view into the mapping: nothing here
// copies a vocabulary.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hearth/result.h"
#include "quant/quant_type.h"

namespace hearth::gguf {

class FileMapping;

enum class ValueType : uint32_t {
    U8 = 0,
    I8 = 1,
    U16 = 2,
    I16 = 3,
    U32 = 4,
    I32 = 5,
    F32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    U64 = 10,
    I64 = 11,
    F64 = 12,
};
std::string_view value_type_name(ValueType t);  // "UINT32", "STRING", ...; "?" when unknown
// Bytes of one scalar of type t; 0 for String and Array (variable size) and unknown ids.
size_t value_type_size(ValueType t);

// One metadata value. Scalars are decoded; strings and arrays are views into the file.
class Value {
public:
    ValueType type() const { return type_; }

    // Numeric access converts between integer types when the value fits, else nullopt.
    std::optional<uint64_t> as_u64() const;
    std::optional<int64_t> as_i64() const;
    std::optional<double> as_f64() const;  // any numeric type
    std::optional<bool> as_bool() const;
    std::optional<std::string_view> as_string() const;

    // Arrays (type() == Array). Elements are never arrays (nested arrays are rejected).
    ValueType array_type() const { return array_type_; }
    uint64_t array_size() const { return count_; }
    // Element accessors. An index out of range or an array of the wrong kind gives an empty
    // string / 0 / false (never UB); check array_type() and array_size() first.
    std::string_view string_at(uint64_t i) const;  // array of strings, O(1)
    int64_t int_at(uint64_t i) const;              // any integer type (U64 > INT64_MAX clamps)
    double float_at(uint64_t i) const;             // array of any numeric type
    bool bool_at(uint64_t i) const;
    // Raw bytes of a numeric array (unaligned; use the *_at accessors for values).
    std::span<const std::byte> array_bytes() const { return bytes_; }

private:
    friend class GgufFile;
    ValueType type_ = ValueType::U8;
    ValueType array_type_ = ValueType::U8;
    uint64_t count_ = 0;
    union {
        uint64_t u;
        int64_t i;
        double f;
    } scalar_{};
    std::span<const std::byte> bytes_;  // string bytes or array payload
    // String arrays: count_ + 1 offsets into bytes_; element i's length prefix starts at
    // offsets[i] and its text ends at offsets[i + 1]. Shared so Value stays cheap to copy.
    std::shared_ptr<const std::vector<uint64_t>> string_offsets_;
};

struct KeyValue {
    std::string_view key;
    Value value;
};

struct TensorInfo {
    std::string_view name;
    quant::Type type = quant::Type::F32;
    uint32_t n_dims = 0;
    uint64_t ne[4] = {1, 1, 1, 1};  // ne[0] is the row length (fastest varying)
    uint64_t offset = 0;            // relative to the data section
    uint64_t nbytes = 0;
    std::span<const std::byte> data;  // the tensor's bytes inside the mapping

    uint64_t n_elements() const { return ne[0] * ne[1] * ne[2] * ne[3]; }
    uint64_t n_rows() const { return ne[1] * ne[2] * ne[3]; }
};

class GgufFile {
public:
    // Maps and validates a file. Errors name the problem and the byte offset.
    static Result<std::unique_ptr<GgufFile>> open(const std::filesystem::path& path);
    // Validates a buffer in memory (for tests and fuzzing); the bytes are copied and owned.
    static Result<std::unique_ptr<GgufFile>> parse(std::span<const std::byte> bytes);

    ~GgufFile();
    GgufFile(const GgufFile&) = delete;
    GgufFile& operator=(const GgufFile&) = delete;

    uint32_t version() const { return version_; }
    uint64_t alignment() const { return alignment_; }
    uint64_t file_size() const { return bytes_.size(); }
    uint64_t data_offset() const { return data_offset_; }  // start of the data section

    std::span<const KeyValue> metadata() const { return kvs_; }
    const Value* find(std::string_view key) const;  // nullptr when absent

    // Typed lookups: nullopt when absent or of an incompatible type.
    std::optional<std::string_view> get_string(std::string_view key) const;
    std::optional<uint64_t> get_u64(std::string_view key) const;
    std::optional<int64_t> get_i64(std::string_view key) const;
    std::optional<double> get_f64(std::string_view key) const;
    std::optional<bool> get_bool(std::string_view key) const;

    std::span<const TensorInfo> tensors() const { return tensors_; }
    const TensorInfo* find_tensor(std::string_view name) const;  // nullptr when absent

    // The whole mapped file.
    std::span<const std::byte> bytes() const { return bytes_; }
    // An error when the mapped file has shrunk on disk since open() (see FileMapping).
    Status check_size() const;

private:
    GgufFile() = default;
    static Result<std::unique_ptr<GgufFile>> open_unguarded(const std::filesystem::path& path);
    static Result<std::unique_ptr<GgufFile>> parse_unguarded(std::span<const std::byte> bytes);
    Status parse_all();  // validates bytes_ and fills the tables below
    std::unique_ptr<FileMapping> mapping_;
    std::vector<std::byte> owned_;  // parse(): a private copy of the buffer
    std::span<const std::byte> bytes_;
    uint32_t version_ = 0;
    uint64_t alignment_ = 32;
    uint64_t data_offset_ = 0;
    std::vector<KeyValue> kvs_;
    std::vector<TensorInfo> tensors_;
    // Sorted indexes for O(log n) lookups.
    std::vector<uint32_t> kv_index_, tensor_index_;
};

}  // namespace hearth::gguf
