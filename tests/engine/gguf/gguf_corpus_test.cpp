// A corpus of broken files derived from one valid file: truncated at every length, counts and
// lengths replaced by huge values, type ids replaced by bad ones, bytes flipped, random
// mutations. Each must parse to a value or a "GGUF: " error; never a crash (the ASan + UBSan
// build replays the same corpus). Files that still parse must keep their invariants.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"

namespace hearth::gguf {
namespace {

std::vector<std::byte> base_file() {
    GgufWriter w;
    w.set_string("general.architecture", "llama");
    EXPECT_TRUE(w.set_alignment(64).is_ok());
    w.set_u32("llama.block_count", 2);
    w.set_f32("llama.rope.freq_base", 10000.0f);
    w.set_bool("tokenizer.ggml.add_bos_token", true);
    const std::vector<std::string> toks = {"<unk>", "<s>", "</s>", "▁a", "b"};
    w.set_string_array("tokenizer.ggml.tokens", std::span<const std::string>(toks));
    const std::vector<int32_t> types = {2, 3, 3, 1, 1};
    w.set_array("tokenizer.ggml.token_type", std::span<const int32_t>(types));
    const bool flags[] = {true, false};
    w.set_bool_array("x.flags", flags);
    const uint64_t a[] = {32, 2}, b[] = {64}, c[] = {256, 1};
    EXPECT_TRUE(w.add_tensor("a", quant::Type::Q8_0, a).is_ok());
    EXPECT_TRUE(w.add_tensor("b", quant::Type::F32, b).is_ok());
    EXPECT_TRUE(w.add_tensor("c", quant::Type::Q4_K, c).is_ok());
    std::ostringstream out;
    EXPECT_TRUE(w.begin(out).is_ok());
    for (size_t i = 0; i < w.tensor_count(); ++i)
        EXPECT_TRUE(
            w.write_tensor_data(std::vector<std::byte>(w.tensor_nbytes(i), std::byte{1})).is_ok());
    EXPECT_TRUE(w.finish().is_ok());
    const std::string s = out.str();
    const auto* p = reinterpret_cast<const std::byte*>(s.data());
    return {p, p + s.size()};
}

// Parses one corpus entry; returns whether it was accepted. Checks the error format and, for an
// accepted file, that every view lies inside the file.
bool replay(const std::vector<std::byte>& bytes, const std::string& label) {
    auto f = GgufFile::parse(bytes);
    if (!f.is_ok()) {
        EXPECT_EQ(f.error_message().rfind("GGUF: ", 0), 0u) << label << ": " << f.error_message();
        EXPECT_NE(f.error_message().find("at byte offset"), std::string::npos) << label;
        return false;
    }
    const auto& g = **f;
    const std::byte* lo = g.bytes().data();
    const std::byte* hi = lo + g.bytes().size();
    for (const auto& t : g.tensors()) {
        EXPECT_TRUE(t.data.empty() || (t.data.data() >= lo && t.data.data() + t.data.size() <= hi))
            << label;
        EXPECT_EQ(t.data.size(), t.nbytes) << label;
    }
    for (const auto& kv : g.metadata()) {
        if (kv.value.type() == ValueType::Array && kv.value.array_type() == ValueType::String) {
            for (uint64_t i = 0; i < kv.value.array_size(); ++i) {
                auto s = kv.value.string_at(i);
                const auto* p = reinterpret_cast<const std::byte*>(s.data());
                EXPECT_TRUE(s.empty() || (p >= lo && p + s.size() <= hi)) << label;
            }
        }
    }
    return true;
}

template <typename T>
void poke(std::vector<std::byte>& b, size_t at, T v) {
    if (at + sizeof(T) <= b.size()) std::memcpy(b.data() + at, &v, sizeof(T));
}

TEST(GgufCorpus, BaseFileIsValid) {
    auto base = base_file();
    auto f = GgufFile::parse(base);
    ASSERT_TRUE(f.is_ok()) << f.error_message();
    EXPECT_EQ((*f)->tensors().size(), 3u);
}

TEST(GgufCorpus, TruncatedAtEveryLength) {
    const auto base = base_file();
    auto f = GgufFile::parse(base);
    ASSERT_TRUE(f.is_ok());
    const auto& last = (*f)->tensors().back();
    const uint64_t needed = (*f)->data_offset() + last.offset + last.nbytes;
    for (size_t n = 0; n < base.size(); ++n) {
        std::vector<std::byte> cut(base.begin(), base.begin() + static_cast<ptrdiff_t>(n));
        const bool ok = replay(cut, "truncated at " + std::to_string(n));
        EXPECT_EQ(ok, n >= needed) << "truncated at " << n;
    }
}

TEST(GgufCorpus, HugeCountsAndLengthsEverywhere) {
    const auto base = base_file();
    auto f = GgufFile::parse(base);
    ASSERT_TRUE(f.is_ok());
    const size_t header_end = (*f)->data_offset();
    const uint64_t values[] = {UINT64_MAX, uint64_t{1} << 63, uint64_t{1} << 32,
                               0x7FFFFFFF, 1000000,           0};
    int rejected = 0, total = 0;
    for (size_t at = 8; at + 8 <= header_end; ++at) {
        for (uint64_t v : values) {
            auto m = base;
            poke(m, at, v);
            rejected += !replay(m, "u64 " + std::to_string(v) + " at " + std::to_string(at));
            ++total;
        }
    }
    EXPECT_GT(rejected, total / 2);
}

TEST(GgufCorpus, BadTypeIdsEverywhere) {
    const auto base = base_file();
    auto f = GgufFile::parse(base);
    ASSERT_TRUE(f.is_ok());
    const uint32_t values[] = {9, 13, 99, 4, 5, 7, 8, 0xFFFFFFFF};
    for (size_t at = 4; at + 4 <= (*f)->data_offset(); ++at)
        for (uint32_t v : values) {
            auto m = base;
            poke(m, at, v);
            replay(m, "u32 " + std::to_string(v) + " at " + std::to_string(at));
        }
}

TEST(GgufCorpus, FlippedBytes) {
    const auto base = base_file();
    for (size_t at = 0; at < base.size(); ++at)
        for (uint8_t mask : {uint8_t{0xFF}, uint8_t{0x01}, uint8_t{0x80}}) {
            auto m = base;
            m[at] ^= std::byte{mask};
            replay(m, "flip " + std::to_string(mask) + " at " + std::to_string(at));
        }
}

TEST(GgufCorpus, RandomMutations) {
    const auto base = base_file();
    std::mt19937_64 rng(12345);
    for (int i = 0; i < 3000; ++i) {
        auto m = base;
        const int edits = 1 + static_cast<int>(rng() % 4);
        for (int e = 0; e < edits; ++e) {
            const size_t at = rng() % m.size();
            switch (rng() % 4) {
                case 0:
                    m[at] = std::byte(static_cast<uint8_t>(rng()));
                    break;
                case 1:
                    poke<uint64_t>(m, at, rng() >> (rng() % 64));
                    break;
                case 2:
                    poke<uint32_t>(m, at, static_cast<uint32_t>(rng() % 40));
                    break;
                default:
                    m.resize(at);
                    break;
            }
            if (m.empty()) break;
        }
        replay(m, "mutation " + std::to_string(i));
    }
}

}  // namespace
}  // namespace hearth::gguf
