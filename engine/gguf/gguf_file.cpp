// GGUF parsing and validation. Every read is bounds-checked against the bytes that remain, every
// size computation is overflow-checked, and every error names the problem and its byte offset.
#include "gguf/gguf_file.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "gguf/file_mapping.h"

namespace hearth::gguf {

namespace {

constexpr uint32_t kMagic = 0x46554747;  // "GGUF" read as a little-endian uint32
// Counts beyond what any real file has: they bound the memory a hostile header can make the
// reader use (each entry costs ~100 bytes of index even when the file's bytes are sparse zeros).
// Real models have tens of metadata keys, a few thousand tensors and vocabularies of < 1M.
constexpr uint64_t kMaxMetadataCount = uint64_t{1} << 20;
constexpr uint64_t kMaxTensorCount = uint64_t{1} << 20;
constexpr uint64_t kMaxStringArray = uint64_t{1} << 24;
// Up-front reservations never exceed this; vectors grow past it only as entries really parse.
constexpr uint64_t kMaxReserve = 4096;
constexpr uint64_t kMaxKeyLength = 65535;
constexpr uint64_t kMaxTensorName = 63;           // ggml: < GGML_MAX_NAME (64, incl. NUL)
constexpr uint64_t kMinKvRecord = 8 + 1 + 4 + 1;  // key length, 1-byte key, type, 1-byte value
constexpr uint64_t kMinTensorRecord = 8 + 1 + 4 + 4 + 8;  // name, n_dims, type, offset

std::string num(uint64_t v) {
    return std::to_string(v);
}

Status fail(uint64_t offset, const std::string& what) {
    return Status::error("GGUF: " + what + " (at byte offset " + num(offset) + ")");
}

bool mul_overflows(uint64_t a, uint64_t b, uint64_t& out) {
    if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a) return true;
    out = a * b;
    return false;
}

// A bounds-checked little-endian cursor over the file bytes.
class Reader {
public:
    explicit Reader(std::span<const std::byte> b) : b_(b) {}
    uint64_t pos() const { return pos_; }
    uint64_t remaining() const { return b_.size() - pos_; }
    const std::byte* here() const { return b_.data() + pos_; }

    Status need(uint64_t n, std::string_view what) const {
        if (n <= remaining()) return Status::ok();
        return fail(pos_, "file truncated: " + std::string(what) + " needs " + num(n) +
                              " bytes but only " + num(remaining()) + " remain");
    }
    template <typename T>
    Status read(T& v, std::string_view what) {
        if (auto s = need(sizeof(T), what); !s) return s;
        std::memcpy(&v, here(), sizeof(T));
        pos_ += sizeof(T);
        return Status::ok();
    }
    void skip(uint64_t n) { pos_ += n; }  // callers have checked need(n)

    // A GGUF string (uint64 length + bytes) as a view into the file.
    Status read_string(std::string_view& out, std::string_view what) {
        const uint64_t at = pos_;
        uint64_t len = 0;
        if (auto s = read(len, what); !s) return s;
        if (len > remaining()) {
            return fail(at, std::string(what) + " length " + num(len) + " exceeds the file (only " +
                                num(remaining()) + " bytes remain)");
        }
        out = std::string_view(reinterpret_cast<const char*>(here()), len);
        pos_ += len;
        return Status::ok();
    }

private:
    std::span<const std::byte> b_;
    uint64_t pos_ = 0;
};

bool known_value_type(uint32_t t) {
    return t <= static_cast<uint32_t>(ValueType::F64);
}

Status check_bool(const std::byte* p, uint64_t at) {
    if (static_cast<uint8_t>(*p) <= 1) return Status::ok();
    return fail(at, "invalid boolean value " + num(static_cast<uint8_t>(*p)) + " (must be 0 or 1)");
}

// Reads one value of type t. Scalars come back as raw little-endian bits; strings and arrays as
// views of the file (plus, for string arrays, the per-element offset index).
Status read_value(Reader& r, ValueType t, std::string_view key, std::span<const std::byte> file,
                  std::shared_ptr<const std::vector<uint64_t>>& offsets_out, uint64_t& count_out,
                  ValueType& elem_out, std::span<const std::byte>& bytes_out,
                  uint64_t& scalar_bits) {
    const std::string ctx = "value of '" + std::string(key) + "'";
    if (t == ValueType::String) {
        std::string_view s;
        if (auto st = r.read_string(s, ctx); !st) return st;
        bytes_out =
            std::span<const std::byte>(reinterpret_cast<const std::byte*>(s.data()), s.size());
        return Status::ok();
    }
    if (t != ValueType::Array) {
        const size_t size = value_type_size(t);
        if (auto st = r.need(size, ctx); !st) return st;
        if (t == ValueType::Bool) {
            if (auto st = check_bool(r.here(), r.pos()); !st) return st;
        }
        scalar_bits = 0;
        std::memcpy(&scalar_bits, r.here(), size);
        r.skip(size);
        return Status::ok();
    }
    // Array: element type, count, elements.
    const uint64_t elem_at = r.pos();
    uint32_t elem = 0;
    if (auto st = r.read(elem, "array element type of '" + std::string(key) + "'"); !st) return st;
    if (elem == static_cast<uint32_t>(ValueType::Array))
        return fail(elem_at, "nested arrays are not supported (key '" + std::string(key) + "')");
    if (!known_value_type(elem))
        return fail(elem_at, "unknown array element type " + num(elem) + " (key '" +
                                 std::string(key) + "')");
    const uint64_t count_at = r.pos();
    uint64_t count = 0;
    if (auto st = r.read(count, "array length of '" + std::string(key) + "'"); !st) return st;
    elem_out = static_cast<ValueType>(elem);
    count_out = count;
    const uint64_t start = r.pos();
    if (elem_out == ValueType::String) {
        // Each element needs at least its 8-byte length; refuse before allocating the index.
        if (count > r.remaining() / 8)
            return fail(count_at, "array of " + num(count) + " strings for '" + std::string(key) +
                                      "' cannot fit in the " + num(r.remaining()) +
                                      " bytes that remain");
        if (count > kMaxStringArray)
            return fail(count_at, "array of " + num(count) + " strings for '" + std::string(key) +
                                      "' is too long (at most " + num(kMaxStringArray) + ")");
        auto offsets = std::make_shared<std::vector<uint64_t>>();
        offsets->reserve(std::min(count + 1, kMaxReserve));
        for (uint64_t i = 0; i < count; ++i) {
            offsets->push_back(r.pos() - start);
            uint64_t len = 0;
            // The fast path builds no message: a vocabulary has ~150k elements.
            if (r.remaining() < 8 || (std::memcpy(&len, r.here(), 8), len > r.remaining() - 8)) {
                std::string_view s;
                return r.read_string(s, "element " + num(i) + " of '" + std::string(key) + "'");
            }
            r.skip(8 + len);
        }
        offsets->push_back(r.pos() - start);
        offsets_out = std::move(offsets);
    } else {
        const uint64_t size = value_type_size(elem_out);
        if (count > r.remaining() / size)
            return fail(count_at, "array of " + num(count) + " " +
                                      std::string(value_type_name(elem_out)) + " for '" +
                                      std::string(key) + "' exceeds the file (only " +
                                      num(r.remaining()) + " bytes remain)");
        if (elem_out == ValueType::Bool) {
            for (uint64_t i = 0; i < count; ++i)
                if (auto st = check_bool(r.here() + i, r.pos() + i); !st) return st;
        }
        r.skip(count * size);
    }
    bytes_out = file.subspan(start, r.pos() - start);
    return Status::ok();
}

}  // namespace

Result<std::unique_ptr<GgufFile>> GgufFile::open(const std::filesystem::path& path) {
    return guarded("GGUF: reading '" + path.string() + "'",
                   [&]() -> Result<std::unique_ptr<GgufFile>> { return open_unguarded(path); });
}

Result<std::unique_ptr<GgufFile>> GgufFile::parse(std::span<const std::byte> bytes) {
    return guarded("GGUF",
                   [&]() -> Result<std::unique_ptr<GgufFile>> { return parse_unguarded(bytes); });
}

Result<std::unique_ptr<GgufFile>> GgufFile::open_unguarded(const std::filesystem::path& path) {
    auto mapping = FileMapping::open(path);
    if (!mapping)
        return Result<std::unique_ptr<GgufFile>>::error("GGUF: " + mapping.error_message());
    std::unique_ptr<GgufFile> f(new GgufFile());
    f->mapping_ = std::move(mapping.value());
    f->bytes_ = f->mapping_->bytes();
    if (auto s = f->parse_all(); !s)
        return Result<std::unique_ptr<GgufFile>>::error(s.message() + " in '" + path.string() +
                                                        "'");
    return f;
}

Result<std::unique_ptr<GgufFile>> GgufFile::parse_unguarded(std::span<const std::byte> bytes) {
    std::unique_ptr<GgufFile> f(new GgufFile());
    f->owned_.assign(bytes.begin(), bytes.end());
    f->bytes_ = f->owned_;
    if (auto s = f->parse_all(); !s) return s;
    return f;
}

GgufFile::~GgufFile() = default;

Status GgufFile::check_size() const {
    return mapping_ ? mapping_->check_size() : Status::ok();
}

Status GgufFile::parse_all() {
    Reader r(bytes_);
    uint32_t magic = 0;
    if (auto s = r.read(magic, "magic"); !s) return s;
    if (magic != kMagic) return fail(0, "not a GGUF file (bad magic)");
    if (auto s = r.read(version_, "version"); !s) return s;
    if (version_ != 0 && (version_ & 0xFFFF) == 0)
        return fail(4, "version " + num(version_) +
                           " looks byte-swapped (big-endian files are not supported)");
    if (version_ == 1) return fail(4, "GGUF version 1 is not supported (only versions 2 and 3)");
    if (version_ == 0 || version_ > 3)
        return fail(4, "unsupported GGUF version " + num(version_) + " (only versions 2 and 3)");

    uint64_t n_tensors = 0, n_kv = 0;
    if (auto s = r.read(n_tensors, "tensor count"); !s) return s;
    if (auto s = r.read(n_kv, "metadata count"); !s) return s;
    if (n_tensors > r.remaining() / kMinTensorRecord)
        return fail(8, "tensor count " + num(n_tensors) + " cannot fit in the file");
    if (n_tensors > kMaxTensorCount)
        return fail(8, "tensor count " + num(n_tensors) + " is implausibly large (at most " +
                           num(kMaxTensorCount) + ")");
    if (n_kv > r.remaining() / kMinKvRecord)
        return fail(16, "metadata count " + num(n_kv) + " cannot fit in the file");
    if (n_kv > kMaxMetadataCount)
        return fail(16, "metadata count " + num(n_kv) + " is implausibly large (at most " +
                            num(kMaxMetadataCount) + ")");

    // Metadata.
    kvs_.reserve(std::min(n_kv, kMaxReserve));
    std::vector<uint64_t> kv_at;
    kv_at.reserve(std::min(n_kv, kMaxReserve));
    for (uint64_t i = 0; i < n_kv; ++i) {
        const uint64_t at = r.pos();
        KeyValue kv;
        if (auto s = r.read_string(kv.key, "key of metadata entry " + num(i)); !s) return s;
        if (kv.key.empty()) return fail(at, "metadata entry " + num(i) + " has an empty key");
        if (kv.key.size() > kMaxKeyLength)
            return fail(at, "metadata key of " + num(kv.key.size()) + " bytes is too long");
        const uint64_t type_at = r.pos();
        uint32_t type = 0;
        if (auto s = r.read(type, "type of '" + std::string(kv.key) + "'"); !s) return s;
        if (!known_value_type(type))
            return fail(type_at, "unknown value type " + num(type) + " for key '" +
                                     std::string(kv.key) + "'");
        Value& v = kv.value;
        v.type_ = static_cast<ValueType>(type);
        uint64_t bits = 0;
        if (auto s = read_value(r, v.type_, kv.key, bytes_, v.string_offsets_, v.count_,
                                v.array_type_, v.bytes_, bits);
            !s)
            return s;
        // Widen the scalar into the union member its accessors read.
        switch (v.type_) {
            case ValueType::U8:
                v.scalar_.u = static_cast<uint8_t>(bits);
                break;
            case ValueType::U16:
                v.scalar_.u = static_cast<uint16_t>(bits);
                break;
            case ValueType::U32:
                v.scalar_.u = static_cast<uint32_t>(bits);
                break;
            case ValueType::U64:
                v.scalar_.u = bits;
                break;
            case ValueType::Bool:
                v.scalar_.u = bits & 1;
                break;
            case ValueType::I8:
                v.scalar_.i = static_cast<int8_t>(static_cast<uint8_t>(bits));
                break;
            case ValueType::I16:
                v.scalar_.i = static_cast<int16_t>(static_cast<uint16_t>(bits));
                break;
            case ValueType::I32:
                v.scalar_.i = static_cast<int32_t>(static_cast<uint32_t>(bits));
                break;
            case ValueType::I64:
                v.scalar_.i = static_cast<int64_t>(bits);
                break;
            case ValueType::F32: {
                float f;
                const auto b32 = static_cast<uint32_t>(bits);
                std::memcpy(&f, &b32, 4);
                v.scalar_.f = f;
                break;
            }
            case ValueType::F64: {
                double d;
                std::memcpy(&d, &bits, 8);
                v.scalar_.f = d;
                break;
            }
            default:
                break;
        }
        kvs_.push_back(std::move(kv));
        kv_at.push_back(at);
    }
    kv_index_.resize(kvs_.size());
    for (uint32_t i = 0; i < kv_index_.size(); ++i) kv_index_[i] = i;
    std::sort(kv_index_.begin(), kv_index_.end(),
              [&](uint32_t a, uint32_t b) { return kvs_[a].key < kvs_[b].key; });
    for (size_t i = 1; i < kv_index_.size(); ++i) {
        if (kvs_[kv_index_[i - 1]].key == kvs_[kv_index_[i]].key) {
            const uint32_t later = std::max(kv_index_[i - 1], kv_index_[i]);
            return fail(kv_at[later],
                        "duplicate metadata key '" + std::string(kvs_[later].key) + "'");
        }
    }

    // Alignment: ggml insists on exactly UINT32 and a power of two.
    for (size_t i = 0; i < kvs_.size(); ++i) {
        if (kvs_[i].key != "general.alignment") continue;
        const Value* a = &kvs_[i].value;
        const uint64_t at = kv_at[i];
        if (a->type() != ValueType::U32)
            return fail(at, "general.alignment has type " +
                                std::string(value_type_name(a->type())) + ", expected UINT32");
        const uint64_t al = a->scalar_.u;
        if (al == 0 || (al & (al - 1)) != 0)
            return fail(at, "general.alignment " + num(al) + " is not a power of two");
        alignment_ = al;
    }

    // Tensor infos.
    if (n_tensors > r.remaining() / kMinTensorRecord)
        return fail(8, "tensor count " + num(n_tensors) + " cannot fit in the " +
                           num(r.remaining()) + " bytes after the metadata");
    tensors_.reserve(std::min(n_tensors, kMaxReserve));
    std::vector<uint64_t> info_at;
    info_at.reserve(std::min(n_tensors, kMaxReserve));
    for (uint64_t i = 0; i < n_tensors; ++i) {
        const uint64_t at = r.pos();
        TensorInfo t;
        if (auto s = r.read_string(t.name, "name of tensor " + num(i)); !s) return s;
        if (t.name.empty()) return fail(at, "tensor " + num(i) + " has an empty name");
        if (t.name.size() > kMaxTensorName)
            return fail(at,
                        "tensor name of " + num(t.name.size()) + " bytes is too long (at most 63)");
        const std::string name(t.name);
        const uint64_t dims_at = r.pos();
        if (auto s = r.read(t.n_dims, "n_dims of tensor '" + name + "'"); !s) return s;
        if (t.n_dims > 4)
            return fail(dims_at,
                        "tensor '" + name + "' has " + num(t.n_dims) + " dimensions (at most 4)");
        for (uint32_t d = 0; d < t.n_dims; ++d) {
            const uint64_t d_at = r.pos();
            if (auto s = r.read(t.ne[d], "dimensions of tensor '" + name + "'"); !s) return s;
            if (t.ne[d] > static_cast<uint64_t>(INT64_MAX))
                return fail(d_at, "dimension " + num(d) + " of tensor '" + name + "' is negative");
        }
        const uint64_t type_at = r.pos();
        uint32_t type = 0;
        if (auto s = r.read(type, "type of tensor '" + name + "'"); !s) return s;
        const quant::TypeTraits* tr = quant::type_traits(type);
        if (!tr)
            return fail(type_at,
                        "tensor '" + name + "' has unknown or unsupported type id " + num(type));
        t.type = tr->type;
        const uint64_t off_at = r.pos();
        if (auto s = r.read(t.offset, "offset of tensor '" + name + "'"); !s) return s;

        if (t.ne[0] % tr->block_size != 0)
            return fail(dims_at, "tensor '" + name + "' has rows of " + num(t.ne[0]) +
                                     " elements, not a multiple of the " + std::string(tr->name) +
                                     " block size " + num(tr->block_size));
        uint64_t n = t.ne[0], nbytes = 0;
        bool over = mul_overflows(t.ne[0] / tr->block_size, tr->type_size, nbytes);
        for (int d = 1; d < 4; ++d) {
            over = over || mul_overflows(n, t.ne[d], n) || mul_overflows(nbytes, t.ne[d], nbytes);
        }
        if (over || n > static_cast<uint64_t>(INT64_MAX))
            return fail(dims_at, "tensor '" + name + "' is too large (element count overflows)");
        t.nbytes = nbytes;
        if (t.offset % alignment_ != 0)
            return fail(off_at, "tensor '" + name + "' offset " + num(t.offset) +
                                    " is not a multiple of the alignment " + num(alignment_));
        tensors_.push_back(t);
        info_at.push_back(at);
    }
    tensor_index_.resize(tensors_.size());
    for (uint32_t i = 0; i < tensor_index_.size(); ++i) tensor_index_[i] = i;
    std::sort(tensor_index_.begin(), tensor_index_.end(),
              [&](uint32_t a, uint32_t b) { return tensors_[a].name < tensors_[b].name; });
    for (size_t i = 1; i < tensor_index_.size(); ++i) {
        if (tensors_[tensor_index_[i - 1]].name == tensors_[tensor_index_[i]].name) {
            const uint32_t later = std::max(tensor_index_[i - 1], tensor_index_[i]);
            return fail(info_at[later],
                        "duplicate tensor name '" + std::string(tensors_[later].name) + "'");
        }
    }

    // Data section: starts at the next multiple of the alignment after the infos.
    const uint64_t end_of_infos = r.pos();
    const uint64_t pad = (alignment_ - end_of_infos % alignment_) % alignment_;
    data_offset_ = end_of_infos + pad;  // cannot overflow: end_of_infos <= file size
    if (tensors_.empty()) return Status::ok();
    if (data_offset_ > bytes_.size())
        return fail(end_of_infos, "file truncated: the data section would start at byte " +
                                      num(data_offset_) + " but the file has " +
                                      num(bytes_.size()) + " bytes");
    const uint64_t data_size = bytes_.size() - data_offset_;
    for (size_t i = 0; i < tensors_.size(); ++i) {
        TensorInfo& t = tensors_[i];
        if (t.offset > data_size || t.nbytes > data_size - t.offset)
            return fail(info_at[i], "tensor '" + std::string(t.name) + "' data [" + num(t.offset) +
                                        ", " + num(t.offset) + " + " + num(t.nbytes) +
                                        ") lies outside the data section of " + num(data_size) +
                                        " bytes (file truncated?)");
        t.data = bytes_.subspan(data_offset_ + t.offset, t.nbytes);
    }
    std::vector<uint32_t> by_offset(tensors_.size());
    for (uint32_t i = 0; i < by_offset.size(); ++i) by_offset[i] = i;
    std::sort(by_offset.begin(), by_offset.end(), [&](uint32_t a, uint32_t b) {
        return tensors_[a].offset < tensors_[b].offset ||
               (tensors_[a].offset == tensors_[b].offset && a < b);
    });
    uint64_t prev_end = 0;
    uint32_t prev = 0;
    bool have_prev = false;
    for (uint32_t idx : by_offset) {
        const TensorInfo& t = tensors_[idx];
        if (t.nbytes == 0) continue;
        if (have_prev && t.offset < prev_end)
            return fail(info_at[idx], "tensor '" + std::string(t.name) + "' data at offset " +
                                          num(t.offset) + " overlaps tensor '" +
                                          std::string(tensors_[prev].name) + "' (which ends at " +
                                          num(prev_end) + ")");
        prev_end = t.offset + t.nbytes;
        prev = idx;
        have_prev = true;
    }
    return Status::ok();
}

const Value* GgufFile::find(std::string_view key) const {
    auto it = std::lower_bound(kv_index_.begin(), kv_index_.end(), key,
                               [&](uint32_t i, std::string_view k) { return kvs_[i].key < k; });
    if (it == kv_index_.end() || kvs_[*it].key != key) return nullptr;
    return &kvs_[*it].value;
}

const TensorInfo* GgufFile::find_tensor(std::string_view name) const {
    auto it =
        std::lower_bound(tensor_index_.begin(), tensor_index_.end(), name,
                         [&](uint32_t i, std::string_view k) { return tensors_[i].name < k; });
    if (it == tensor_index_.end() || tensors_[*it].name != name) return nullptr;
    return &tensors_[*it];
}

std::optional<std::string_view> GgufFile::get_string(std::string_view key) const {
    const Value* v = find(key);
    return v ? v->as_string() : std::nullopt;
}
std::optional<uint64_t> GgufFile::get_u64(std::string_view key) const {
    const Value* v = find(key);
    return v ? v->as_u64() : std::nullopt;
}
std::optional<int64_t> GgufFile::get_i64(std::string_view key) const {
    const Value* v = find(key);
    return v ? v->as_i64() : std::nullopt;
}
std::optional<double> GgufFile::get_f64(std::string_view key) const {
    const Value* v = find(key);
    return v ? v->as_f64() : std::nullopt;
}
std::optional<bool> GgufFile::get_bool(std::string_view key) const {
    const Value* v = find(key);
    return v ? v->as_bool() : std::nullopt;
}

}  // namespace hearth::gguf
