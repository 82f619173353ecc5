// Value accessors: decoding scalars and array elements from their little-endian bytes.
#include <cstring>
#include <limits>

#include "gguf/gguf_file.h"

namespace hearth::gguf {

namespace {

template <typename T>
T load(const std::byte* p) {
    T v;
    std::memcpy(&v, p, sizeof v);  // unaligned-safe; GGUF is little-endian like our targets
    return v;
}

bool is_unsigned(ValueType t) {
    return t == ValueType::U8 || t == ValueType::U16 || t == ValueType::U32 || t == ValueType::U64;
}
bool is_signed(ValueType t) {
    return t == ValueType::I8 || t == ValueType::I16 || t == ValueType::I32 || t == ValueType::I64;
}
bool is_float(ValueType t) {
    return t == ValueType::F32 || t == ValueType::F64;
}

// An integer element of type t at p, as unsigned (u) or signed (i).
void load_int(ValueType t, const std::byte* p, uint64_t& u, int64_t& i) {
    switch (t) {
        case ValueType::U8:
            u = load<uint8_t>(p);
            return;
        case ValueType::U16:
            u = load<uint16_t>(p);
            return;
        case ValueType::U32:
            u = load<uint32_t>(p);
            return;
        case ValueType::U64:
            u = load<uint64_t>(p);
            return;
        case ValueType::I8:
            i = load<int8_t>(p);
            return;
        case ValueType::I16:
            i = load<int16_t>(p);
            return;
        case ValueType::I32:
            i = load<int32_t>(p);
            return;
        case ValueType::I64:
            i = load<int64_t>(p);
            return;
        default:
            return;
    }
}

}  // namespace

std::string_view value_type_name(ValueType t) {
    switch (t) {
        case ValueType::U8:
            return "UINT8";
        case ValueType::I8:
            return "INT8";
        case ValueType::U16:
            return "UINT16";
        case ValueType::I16:
            return "INT16";
        case ValueType::U32:
            return "UINT32";
        case ValueType::I32:
            return "INT32";
        case ValueType::F32:
            return "FLOAT32";
        case ValueType::Bool:
            return "BOOL";
        case ValueType::String:
            return "STRING";
        case ValueType::Array:
            return "ARRAY";
        case ValueType::U64:
            return "UINT64";
        case ValueType::I64:
            return "INT64";
        case ValueType::F64:
            return "FLOAT64";
    }
    return "?";
}

size_t value_type_size(ValueType t) {
    switch (t) {
        case ValueType::U8:
        case ValueType::I8:
        case ValueType::Bool:
            return 1;
        case ValueType::U16:
        case ValueType::I16:
            return 2;
        case ValueType::U32:
        case ValueType::I32:
        case ValueType::F32:
            return 4;
        case ValueType::U64:
        case ValueType::I64:
        case ValueType::F64:
            return 8;
        case ValueType::String:
        case ValueType::Array:
            return 0;
    }
    return 0;
}

std::optional<uint64_t> Value::as_u64() const {
    if (is_unsigned(type_)) return scalar_.u;
    if (is_signed(type_) && scalar_.i >= 0) return static_cast<uint64_t>(scalar_.i);
    return std::nullopt;
}

std::optional<int64_t> Value::as_i64() const {
    if (is_signed(type_)) return scalar_.i;
    if (is_unsigned(type_) && scalar_.u <= static_cast<uint64_t>(INT64_MAX))
        return static_cast<int64_t>(scalar_.u);
    return std::nullopt;
}

std::optional<double> Value::as_f64() const {
    if (is_float(type_)) return scalar_.f;
    if (is_unsigned(type_)) return static_cast<double>(scalar_.u);
    if (is_signed(type_)) return static_cast<double>(scalar_.i);
    return std::nullopt;
}

std::optional<bool> Value::as_bool() const {
    if (type_ == ValueType::Bool) return scalar_.u != 0;
    return std::nullopt;
}

std::optional<std::string_view> Value::as_string() const {
    if (type_ != ValueType::String) return std::nullopt;
    return std::string_view(reinterpret_cast<const char*>(bytes_.data()), bytes_.size());
}

std::string_view Value::string_at(uint64_t i) const {
    if (type_ != ValueType::Array || array_type_ != ValueType::String || !string_offsets_ ||
        i >= count_)
        return {};
    const auto& off = *string_offsets_;
    const uint64_t begin = off[i] + 8, end = off[i + 1];
    return std::string_view(reinterpret_cast<const char*>(bytes_.data() + begin), end - begin);
}

int64_t Value::int_at(uint64_t i) const {
    if (type_ != ValueType::Array || i >= count_) return 0;
    if (!is_unsigned(array_type_) && !is_signed(array_type_)) return 0;
    const size_t size = value_type_size(array_type_);
    uint64_t u = 0;
    int64_t s = 0;
    load_int(array_type_, bytes_.data() + i * size, u, s);
    if (is_unsigned(array_type_))
        return u > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(u);
    return s;
}

double Value::float_at(uint64_t i) const {
    if (type_ != ValueType::Array || i >= count_) return 0.0;
    const std::byte* p = bytes_.data() + i * value_type_size(array_type_);
    if (array_type_ == ValueType::F32) return load<float>(p);
    if (array_type_ == ValueType::F64) return load<double>(p);
    if (!is_unsigned(array_type_) && !is_signed(array_type_)) return 0.0;
    uint64_t u = 0;
    int64_t s = 0;
    load_int(array_type_, p, u, s);
    return is_unsigned(array_type_) ? static_cast<double>(u) : static_cast<double>(s);
}

bool Value::bool_at(uint64_t i) const {
    if (type_ != ValueType::Array || array_type_ != ValueType::Bool || i >= count_) return false;
    return bytes_[i] != std::byte{0};
}

}  // namespace hearth::gguf
