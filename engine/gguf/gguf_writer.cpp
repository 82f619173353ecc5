#include "gguf/gguf_writer.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <ostream>

namespace hearth::gguf {

namespace {

constexpr uint32_t kMagic = 0x46554747;  // "GGUF"
constexpr uint32_t kVersion = 3;

template <typename T>
void put(std::vector<std::byte>& out, T v) {
    std::array<std::byte, sizeof(T)> b;
    std::memcpy(b.data(), &v, sizeof(T));  // little-endian hosts only (as the reader)
    out.insert(out.end(), b.begin(), b.end());
}

void put_string(std::vector<std::byte>& out, std::string_view s) {
    put<uint64_t>(out, s.size());
    const auto* p = reinterpret_cast<const std::byte*>(s.data());
    out.insert(out.end(), p, p + s.size());
}

uint64_t align_up(uint64_t v, uint64_t a) {
    return (v + a - 1) / a * a;
}

}  // namespace

std::vector<std::byte>& GgufWriter::slot(std::string_view key) {
    for (auto& kv : kvs_) {
        if (kv.key == key) {
            kv.payload.clear();
            return kv.payload;
        }
    }
    kvs_.push_back({std::string(key), {}});
    return kvs_.back().payload;
}

#define HEARTH_GGUF_SETTER(fn, T, VT)                           \
    void GgufWriter::fn(std::string_view key, T v) {            \
        auto& p = slot(key);                                    \
        put<uint32_t>(p, static_cast<uint32_t>(ValueType::VT)); \
        put<T>(p, v);                                           \
    }
HEARTH_GGUF_SETTER(set_u8, uint8_t, U8)
HEARTH_GGUF_SETTER(set_i8, int8_t, I8)
HEARTH_GGUF_SETTER(set_u16, uint16_t, U16)
HEARTH_GGUF_SETTER(set_i16, int16_t, I16)
HEARTH_GGUF_SETTER(set_u32, uint32_t, U32)
HEARTH_GGUF_SETTER(set_i32, int32_t, I32)
HEARTH_GGUF_SETTER(set_u64, uint64_t, U64)
HEARTH_GGUF_SETTER(set_i64, int64_t, I64)
HEARTH_GGUF_SETTER(set_f32, float, F32)
HEARTH_GGUF_SETTER(set_f64, double, F64)
#undef HEARTH_GGUF_SETTER

void GgufWriter::set_bool(std::string_view key, bool v) {
    auto& p = slot(key);
    put<uint32_t>(p, static_cast<uint32_t>(ValueType::Bool));
    put<uint8_t>(p, v ? 1 : 0);
}

void GgufWriter::set_string(std::string_view key, std::string_view v) {
    auto& p = slot(key);
    put<uint32_t>(p, static_cast<uint32_t>(ValueType::String));
    put_string(p, v);
}

void GgufWriter::set_string_array(std::string_view key, std::span<const std::string> v) {
    auto& p = slot(key);
    put<uint32_t>(p, static_cast<uint32_t>(ValueType::Array));
    put<uint32_t>(p, static_cast<uint32_t>(ValueType::String));
    put<uint64_t>(p, v.size());
    for (const auto& s : v) put_string(p, s);
}

void GgufWriter::set_string_array(std::string_view key, std::span<const std::string_view> v) {
    auto& p = slot(key);
    put<uint32_t>(p, static_cast<uint32_t>(ValueType::Array));
    put<uint32_t>(p, static_cast<uint32_t>(ValueType::String));
    put<uint64_t>(p, v.size());
    for (const auto& s : v) put_string(p, s);
}

void GgufWriter::set_bool_array(std::string_view key, std::span<const bool> v) {
    auto& p = slot(key);
    put<uint32_t>(p, static_cast<uint32_t>(ValueType::Array));
    put<uint32_t>(p, static_cast<uint32_t>(ValueType::Bool));
    put<uint64_t>(p, v.size());
    for (bool b : v) put<uint8_t>(p, b ? 1 : 0);
}

void GgufWriter::set_array_raw(std::string_view key, ValueType elem, const void* data,
                               uint64_t count) {
    auto& p = slot(key);
    put<uint32_t>(p, static_cast<uint32_t>(ValueType::Array));
    put<uint32_t>(p, static_cast<uint32_t>(elem));
    put<uint64_t>(p, count);
    const auto* b = static_cast<const std::byte*>(data);
    p.insert(p.end(), b, b + count * value_type_size(elem));
}

void GgufWriter::copy_value(std::string_view key, const Value& v) {
    auto& p = slot(key);
    put<uint32_t>(p, static_cast<uint32_t>(v.type()));
    switch (v.type()) {
        case ValueType::U8:
            put<uint8_t>(p, static_cast<uint8_t>(*v.as_u64()));
            break;
        case ValueType::U16:
            put<uint16_t>(p, static_cast<uint16_t>(*v.as_u64()));
            break;
        case ValueType::U32:
            put<uint32_t>(p, static_cast<uint32_t>(*v.as_u64()));
            break;
        case ValueType::U64:
            put<uint64_t>(p, *v.as_u64());
            break;
        case ValueType::I8:
            put<int8_t>(p, static_cast<int8_t>(*v.as_i64()));
            break;
        case ValueType::I16:
            put<int16_t>(p, static_cast<int16_t>(*v.as_i64()));
            break;
        case ValueType::I32:
            put<int32_t>(p, static_cast<int32_t>(*v.as_i64()));
            break;
        case ValueType::I64:
            put<int64_t>(p, *v.as_i64());
            break;
        case ValueType::F32:
            put<float>(p, static_cast<float>(*v.as_f64()));
            break;
        case ValueType::F64:
            put<double>(p, *v.as_f64());
            break;
        case ValueType::Bool:
            put<uint8_t>(p, *v.as_bool() ? 1 : 0);
            break;
        case ValueType::String:
            put_string(p, *v.as_string());
            break;
        case ValueType::Array: {
            // The payload (string elements with their length prefixes) is copied verbatim.
            put<uint32_t>(p, static_cast<uint32_t>(v.array_type()));
            put<uint64_t>(p, v.array_size());
            const auto b = v.array_bytes();
            p.insert(p.end(), b.begin(), b.end());
            break;
        }
    }
}

bool GgufWriter::has_key(std::string_view key) const {
    return std::any_of(kvs_.begin(), kvs_.end(), [&](const Kv& kv) { return kv.key == key; });
}

void GgufWriter::remove_key(std::string_view key) {
    std::erase_if(kvs_, [&](const Kv& kv) { return kv.key == key; });
}

Status GgufWriter::set_alignment(uint32_t alignment) {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0)
        return Status::error("GGUF writer: alignment " + std::to_string(alignment) +
                             " is not a power of two");
    if (begun_) return Status::error("GGUF writer: set_alignment after begin()");
    alignment_ = alignment;
    set_u32("general.alignment", alignment);
    return Status::ok();
}

Status GgufWriter::add_tensor(std::string_view name, quant::Type type,
                              std::span<const uint64_t> ne) {
    const std::string n(name);
    if (begun_) return Status::error("GGUF writer: add_tensor('" + n + "') after begin()");
    if (name.empty() || name.size() > 63)
        return Status::error("GGUF writer: tensor name '" + n + "' must be 1 to 63 bytes");
    if (ne.empty() || ne.size() > 4)
        return Status::error("GGUF writer: tensor '" + n + "' must have 1 to 4 dimensions");
    const quant::TypeTraits* tr = quant::type_traits(static_cast<uint32_t>(type));
    if (!tr) return Status::error("GGUF writer: tensor '" + n + "' has an unknown type");
    if (ne[0] % tr->block_size != 0)
        return Status::error("GGUF writer: tensor '" + n + "' row length " + std::to_string(ne[0]) +
                             " is not a multiple of the " + std::string(tr->name) + " block size " +
                             std::to_string(tr->block_size));
    for (const auto& t : tensors_)
        if (t.name == name) return Status::error("GGUF writer: duplicate tensor '" + n + "'");
    // Sizes the reader would refuse (element count above INT64_MAX, byte count overflowing
    // 64 bits) are refused here too.
    const uint64_t limit = static_cast<uint64_t>(INT64_MAX);
    if (ne[0] / tr->block_size > UINT64_MAX / tr->type_size)
        return Status::error("GGUF writer: tensor '" + n + "' is too large");
    uint64_t n_elem = 1, nbytes = ne[0] / tr->block_size * tr->type_size;
    for (size_t d = 0; d < ne.size(); ++d) {
        const uint64_t v = ne[d];
        if (v != 0 && (n_elem > limit / v || (d > 0 && nbytes > UINT64_MAX / v)))
            return Status::error("GGUF writer: tensor '" + n + "' is too large");
        n_elem *= v;
        if (d > 0) nbytes *= v;
    }
    tensors_.push_back({n, type, std::vector<uint64_t>(ne.begin(), ne.end()), 0, nbytes});
    return Status::ok();
}

Status GgufWriter::write(const void* p, size_t n) {
    out_->write(static_cast<const char*>(p), static_cast<std::streamsize>(n));
    if (!*out_)
        return Status::error("GGUF writer: write failed" +
                             (path_.empty() ? std::string() : " on '" + path_.string() + "'"));
    return Status::ok();
}

Status GgufWriter::pad_to_alignment(uint64_t written) {
    static const std::array<char, 256> zeros{};
    uint64_t pad = align_up(written, alignment_) - written;
    while (pad > 0) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(pad, zeros.size()));
        if (auto s = write(zeros.data(), n); !s) return s;
        pad -= n;
    }
    return Status::ok();
}

Status GgufWriter::begin(const std::filesystem::path& path) {
    if (begun_) return Status::error("GGUF writer: begin() called twice");
    file_ = std::make_unique<std::ofstream>(path, std::ios::binary | std::ios::trunc);
    if (!*file_) return Status::error("GGUF writer: cannot create '" + path.string() + "'");
    path_ = path;
    return begin(*file_);
}

Status GgufWriter::begin(std::ostream& out) {
    if (begun_) return Status::error("GGUF writer: begin() called twice");
    out_ = &out;
    begun_ = true;
    std::vector<std::byte> head;
    put<uint32_t>(head, kMagic);
    put<uint32_t>(head, kVersion);
    put<uint64_t>(head, tensors_.size());
    put<uint64_t>(head, kvs_.size());
    for (const auto& kv : kvs_) {
        put_string(head, kv.key);
        head.insert(head.end(), kv.payload.begin(), kv.payload.end());
    }
    uint64_t offset = 0;
    for (auto& t : tensors_) {
        t.offset = offset;
        offset = align_up(offset + t.nbytes, alignment_);
        put_string(head, t.name);
        put<uint32_t>(head, static_cast<uint32_t>(t.ne.size()));
        for (uint64_t d : t.ne) put<uint64_t>(head, d);
        put<uint32_t>(head, static_cast<uint32_t>(t.type));
        put<uint64_t>(head, t.offset);
    }
    if (auto s = write(head.data(), head.size()); !s) return s;
    if (!tensors_.empty()) return pad_to_alignment(head.size());
    return Status::ok();
}

Status GgufWriter::write_tensor_data(std::span<const std::byte> chunk) {
    if (!begun_) return Status::error("GGUF writer: tensor data before begin()");
    while (!chunk.empty()) {
        if (current_ >= tensors_.size())
            return Status::error("GGUF writer: more tensor data than the declared tensors hold");
        const Tensor& t = tensors_[current_];
        const uint64_t n = std::min<uint64_t>(chunk.size(), t.nbytes - current_written_);
        if (auto s = write(chunk.data(), static_cast<size_t>(n)); !s) return s;
        current_written_ += n;
        chunk = chunk.subspan(static_cast<size_t>(n));
        if (current_written_ == t.nbytes) {
            if (auto s = pad_to_alignment(t.nbytes); !s) return s;
            ++current_;
            current_written_ = 0;
        }
    }
    // Zero-byte tensors complete without data.
    while (current_ < tensors_.size() && tensors_[current_].nbytes == 0) ++current_;
    return Status::ok();
}

Status GgufWriter::finish() {
    if (!begun_) return Status::error("GGUF writer: finish() before begin()");
    while (current_ < tensors_.size() && tensors_[current_].nbytes == 0) ++current_;
    if (current_ != tensors_.size())
        return Status::error("GGUF writer: tensor '" + tensors_[current_].name + "' has " +
                             std::to_string(current_written_) + " of " +
                             std::to_string(tensors_[current_].nbytes) + " bytes written");
    out_->flush();
    if (!*out_) return Status::error("GGUF writer: flush failed");
    if (file_) {
        file_->close();
        if (!*file_) return Status::error("GGUF writer: closing '" + path_.string() + "' failed");
        file_.reset();
    }
    return Status::ok();
}

}  // namespace hearth::gguf
