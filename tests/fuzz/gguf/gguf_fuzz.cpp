// libFuzzer target: the GGUF reader on arbitrary bytes, then every accessor on what it accepts,
// then the model layer (config, tensor checks, summary) on whatever parses.
#include <cstddef>
#include <cstdint>
#include <span>

#include "gguf/gguf_file.h"
#include "model/model_info.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace hearth::gguf;
    auto f = GgufFile::parse(std::span(reinterpret_cast<const std::byte*>(data), size));
    if (!f.is_ok()) return 0;
    const GgufFile& g = **f;
    volatile uint64_t sink = 0;
    for (const auto& kv : g.metadata()) {
        const Value& v = kv.value;
        sink = sink + v.as_u64().value_or(0) + static_cast<uint64_t>(v.as_i64().value_or(0));
        sink = sink + static_cast<uint64_t>(v.as_f64().value_or(0) != 0) + v.as_bool().value_or(0);
        sink = sink + v.as_string().value_or("").size();
        if (v.type() == ValueType::Array) {
            const uint64_t n = v.array_size() < 4096 ? v.array_size() : 4096;
            for (uint64_t i = 0; i <= n; ++i) {   // one past the end on purpose
                sink = sink + v.string_at(i).size() + static_cast<uint64_t>(v.int_at(i)) +
                       static_cast<uint64_t>(v.float_at(i) != 0) + v.bool_at(i);
            }
        }
        if (g.find(kv.key) == nullptr) __builtin_trap();   // every key must be findable
    }
    for (const auto& t : g.tensors()) {
        if (g.find_tensor(t.name) != &t) __builtin_trap();
        if (t.data.size() != t.nbytes) __builtin_trap();
        if (!t.data.empty()) sink = sink + static_cast<uint8_t>(t.data.back());
    }
    // The model layer must cope with any file the reader accepts.
    const auto info = hearth::model::describe_model(g);
    sink = sink + info.n_params + (info.config ? 1 : 0);
    return 0;
}
