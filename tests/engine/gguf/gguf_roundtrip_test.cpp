// Writer -> reader round trips: every value type, arrays, tensors, alignment, streaming, copying.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"
#include "test_data.h"

namespace hearth::gguf {
namespace {

std::vector<std::byte> to_bytes(const std::string& s) {
    const auto* p = reinterpret_cast<const std::byte*>(s.data());
    return {p, p + s.size()};
}

// Writes w (whose tensors get `fill(i)` bytes) to memory.
std::vector<std::byte> write_all(GgufWriter& w) {
    std::ostringstream out;
    Status s = w.begin(out);
    EXPECT_TRUE(s.is_ok()) << s.message();
    for (size_t i = 0; i < w.tensor_count(); ++i) {
        std::vector<std::byte> data(w.tensor_nbytes(i));
        for (size_t j = 0; j < data.size(); ++j)
            data[j] = std::byte(static_cast<uint8_t>(i * 31 + j));
        s = w.write_tensor_data(data);
        EXPECT_TRUE(s.is_ok()) << s.message();
    }
    s = w.finish();
    EXPECT_TRUE(s.is_ok()) << s.message();
    return to_bytes(out.str());
}

TEST(GgufRoundTrip, EveryValueType) {
    GgufWriter w;
    w.set_u8("v.u8", 200);
    w.set_i8("v.i8", -100);
    w.set_u16("v.u16", 65000);
    w.set_i16("v.i16", -32000);
    w.set_u32("v.u32", 4000000000u);
    w.set_i32("v.i32", -2000000000);
    w.set_u64("v.u64", 18000000000000000000ull);
    w.set_i64("v.i64", -9000000000000000000ll);
    w.set_f32("v.f32", 0.1f);
    w.set_f64("v.f64", -1.0 / 3.0);
    w.set_bool("v.true", true);
    w.set_bool("v.false", false);
    w.set_string("v.str", "héllo wörld");
    w.set_string("v.empty", "");
    const std::vector<std::string> strs = {"a", "", "▁the", std::string("nul\0in", 6)};
    w.set_string_array("a.str", std::span<const std::string>(strs));
    const std::vector<int32_t> i32 = {-1, 0, 7, INT32_MIN};
    w.set_array("a.i32", std::span<const int32_t>(i32));
    const std::vector<float> f32 = {1.5f, -0.0f, 3e38f};
    w.set_array("a.f32", std::span<const float>(f32));
    const std::vector<uint8_t> u8 = {0, 255};
    w.set_array("a.u8", std::span<const uint8_t>(u8));
    const std::vector<uint64_t> u64 = {UINT64_MAX};
    w.set_array("a.u64", std::span<const uint64_t>(u64));
    const std::vector<double> f64 = {1e300};
    w.set_array("a.f64", std::span<const double>(f64));
    const std::vector<int16_t> i16 = {-5};
    w.set_array("a.i16", std::span<const int16_t>(i16));
    const bool bools[] = {true, false, true};
    w.set_bool_array("a.bool", bools);
    w.set_array("a.empty", std::span<const uint32_t>());
    w.set_u32("v.replaced", 1);
    w.set_u32("v.replaced", 2);  // same key again: replaced in place
    w.set_u32("v.removed", 1);
    w.remove_key("v.removed");

    auto bytes = write_all(w);
    auto f = GgufFile::parse(bytes);
    ASSERT_TRUE(f.is_ok()) << f.error_message();
    const auto& g = **f;
    EXPECT_EQ(g.version(), 3u);
    EXPECT_EQ(g.tensors().size(), 0u);
    EXPECT_EQ(g.metadata().size(), 24u);
    EXPECT_EQ(g.metadata()[0].key, "v.u8");
    EXPECT_EQ(g.find("v.u8")->type(), ValueType::U8);
    EXPECT_EQ(g.get_u64("v.u8"), 200u);
    EXPECT_EQ(g.get_i64("v.i8"), -100);
    EXPECT_EQ(g.get_u64("v.i8"), std::nullopt);  // negative: not a u64
    EXPECT_EQ(g.get_u64("v.u16"), 65000u);
    EXPECT_EQ(g.get_i64("v.i16"), -32000);
    EXPECT_EQ(g.get_u64("v.u32"), 4000000000u);
    EXPECT_EQ(g.find("v.u32")->type(), ValueType::U32);
    EXPECT_EQ(g.get_i64("v.i32"), -2000000000);
    EXPECT_EQ(g.get_u64("v.u64"), 18000000000000000000ull);
    EXPECT_EQ(g.get_i64("v.u64"), std::nullopt);  // does not fit
    EXPECT_EQ(g.get_i64("v.i64"), -9000000000000000000ll);
    EXPECT_EQ(g.get_f64("v.f32"), static_cast<double>(0.1f));
    EXPECT_EQ(g.get_f64("v.f64"), -1.0 / 3.0);
    EXPECT_EQ(g.get_f64("v.u8"), 200.0);
    EXPECT_EQ(g.get_bool("v.true"), true);
    EXPECT_EQ(g.get_bool("v.false"), false);
    EXPECT_EQ(g.get_bool("v.u8"), std::nullopt);
    EXPECT_EQ(g.get_string("v.str"), "héllo wörld");
    EXPECT_EQ(g.get_string("v.empty"), "");
    EXPECT_EQ(g.get_string("v.u8"), std::nullopt);
    EXPECT_EQ(g.get_u64("v.replaced"), 2u);
    EXPECT_EQ(g.find("v.removed"), nullptr);

    const Value* a = g.find("a.str");
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->array_type(), ValueType::String);
    ASSERT_EQ(a->array_size(), strs.size());
    for (size_t i = 0; i < strs.size(); ++i) EXPECT_EQ(a->string_at(i), strs[i]);
    EXPECT_EQ(a->int_at(0), 0);  // wrong kind: 0, no UB
    const Value* ai = g.find("a.i32");
    ASSERT_EQ(ai->array_size(), 4u);
    for (size_t i = 0; i < i32.size(); ++i) EXPECT_EQ(ai->int_at(i), i32[i]);
    EXPECT_EQ(ai->float_at(0), -1.0);
    EXPECT_EQ(ai->string_at(0), "");
    const Value* af = g.find("a.f32");
    for (size_t i = 0; i < f32.size(); ++i) EXPECT_EQ(af->float_at(i), f32[i]);
    EXPECT_TRUE(std::signbit(af->float_at(1)));
    EXPECT_EQ(g.find("a.u8")->int_at(1), 255);
    EXPECT_EQ(g.find("a.u64")->int_at(0), INT64_MAX);  // clamps
    EXPECT_EQ(g.find("a.u64")->float_at(0), static_cast<double>(UINT64_MAX));
    EXPECT_EQ(g.find("a.f64")->float_at(0), 1e300);
    EXPECT_EQ(g.find("a.i16")->int_at(0), -5);
    const Value* ab = g.find("a.bool");
    ASSERT_EQ(ab->array_size(), 3u);
    EXPECT_TRUE(ab->bool_at(0));
    EXPECT_FALSE(ab->bool_at(1));
    EXPECT_TRUE(ab->bool_at(2));
    EXPECT_FALSE(ab->bool_at(3));
    EXPECT_EQ(g.find("a.empty")->array_size(), 0u);
    EXPECT_EQ(g.find("a.empty")->array_type(), ValueType::U32);
}

TEST(GgufRoundTrip, TensorsInInfoOrderAndAligned) {
    for (uint32_t alignment : {32u, 64u, 1u, 4096u}) {
        GgufWriter w;
        w.set_string("general.architecture", "test");
        if (alignment != 32) {
            ASSERT_TRUE(w.set_alignment(alignment).is_ok());
        }
        const uint64_t s1[] = {8, 3}, s2[] = {16}, s3[] = {64, 2}, s4[] = {32, 1, 1, 2},
                       s5[] = {256, 1}, s6[] = {33};
        ASSERT_TRUE(w.add_tensor("f32", quant::Type::F32, s1).is_ok());
        ASSERT_TRUE(w.add_tensor("f16", quant::Type::F16, s2).is_ok());
        ASSERT_TRUE(w.add_tensor("q4_0", quant::Type::Q4_0, s3).is_ok());
        ASSERT_TRUE(w.add_tensor("q8_0.4d", quant::Type::Q8_0, s4).is_ok());
        ASSERT_TRUE(w.add_tensor("q6_k", quant::Type::Q6_K, s5).is_ok());
        ASSERT_TRUE(w.add_tensor("odd", quant::Type::F16, s6).is_ok());
        auto bytes = write_all(w);
        auto f = GgufFile::parse(bytes);
        ASSERT_TRUE(f.is_ok()) << f.error_message();
        const auto& g = **f;
        EXPECT_EQ(g.alignment(), alignment);
        EXPECT_EQ(g.data_offset() % alignment, 0u);
        ASSERT_EQ(g.tensors().size(), 6u);
        const uint64_t nbytes[] = {96, 32, 2 * 36, 2 * 34, 210, 66};
        const uint32_t dims[] = {2, 1, 2, 4, 2, 1};
        uint64_t expect_offset = 0;
        for (size_t i = 0; i < 6; ++i) {
            const TensorInfo& t = g.tensors()[i];
            EXPECT_EQ(t.nbytes, nbytes[i]) << t.name;
            EXPECT_EQ(t.n_dims, dims[i]) << t.name;
            // ggml's rule: offset i is the padded sum of the sizes before it.
            EXPECT_EQ(t.offset, expect_offset) << t.name;
            expect_offset += (t.nbytes + alignment - 1) / alignment * alignment;
            for (size_t j = 0; j < t.data.size(); ++j)
                ASSERT_EQ(t.data[j], std::byte(static_cast<uint8_t>(i * 31 + j))) << t.name;
        }
        EXPECT_EQ(g.find_tensor("q8_0.4d")->ne[3], 2u);
        EXPECT_EQ(g.find_tensor("q8_0.4d")->n_elements(), 64u);
        EXPECT_EQ(g.find_tensor("q4_0")->type, quant::Type::Q4_0);
        EXPECT_EQ(g.find_tensor("q4_0")->n_rows(), 2u);
        // The file ends with the padded last tensor.
        EXPECT_EQ(g.file_size(), g.data_offset() + expect_offset);
        // General.alignment, when written, is a UINT32.
        if (alignment != 32) {
            EXPECT_EQ(g.find("general.alignment")->type(), ValueType::U32);
        }
    }
}

TEST(GgufRoundTrip, StreamingInChunks) {
    GgufWriter w;
    const uint64_t a[] = {100}, b[] = {3, 7};
    ASSERT_TRUE(w.add_tensor("a", quant::Type::F32, a).is_ok());
    ASSERT_TRUE(w.add_tensor("b", quant::Type::F16, b).is_ok());
    std::ostringstream out;
    ASSERT_TRUE(w.begin(out).is_ok());
    std::vector<std::byte> all(400 + 42);
    std::iota(reinterpret_cast<uint8_t*>(all.data()),
              reinterpret_cast<uint8_t*>(all.data()) + all.size(), uint8_t{0});
    // 7-byte chunks cross the tensor boundary; the writer pads between them.
    for (size_t i = 0; i < all.size(); i += 7)
        ASSERT_TRUE(
            w.write_tensor_data(std::span(all).subspan(i, std::min<size_t>(7, all.size() - i)))
                .is_ok());
    ASSERT_TRUE(w.finish().is_ok());
    auto bytes = to_bytes(out.str());
    auto f = GgufFile::parse(bytes);
    ASSERT_TRUE(f.is_ok()) << f.error_message();
    auto ta = (*f)->find_tensor("a")->data, tb = (*f)->find_tensor("b")->data;
    EXPECT_TRUE(std::equal(ta.begin(), ta.end(), all.begin()));
    EXPECT_TRUE(std::equal(tb.begin(), tb.end(), all.begin() + 400));
    EXPECT_EQ((*f)->find_tensor("b")->offset, 416u);
}

TEST(GgufRoundTrip, WriterRejectsMisuse) {
    GgufWriter w;
    const uint64_t ok[] = {32}, five[] = {1, 1, 1, 1, 1}, odd[] = {33};
    EXPECT_FALSE(w.add_tensor("", quant::Type::F32, ok).is_ok());
    EXPECT_FALSE(w.add_tensor(std::string(64, 'x'), quant::Type::F32, ok).is_ok());
    EXPECT_FALSE(w.add_tensor("five", quant::Type::F32, five).is_ok());
    EXPECT_FALSE(w.add_tensor("none", quant::Type::F32, {}).is_ok());
    const uint64_t huge[] = {uint64_t{1} << 32, uint64_t{1} << 32};
    EXPECT_FALSE(w.add_tensor("huge", quant::Type::F32, huge).is_ok());
    Status s = w.add_tensor("odd", quant::Type::Q4_0, odd);
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("not a multiple of the Q4_0 block size 32"), std::string::npos);
    EXPECT_FALSE(w.set_alignment(48).is_ok());
    EXPECT_FALSE(w.set_alignment(0).is_ok());
    ASSERT_TRUE(w.add_tensor("t", quant::Type::F32, ok).is_ok());
    EXPECT_FALSE(w.add_tensor("t", quant::Type::F32, ok).is_ok());         // duplicate
    EXPECT_FALSE(w.write_tensor_data(std::vector<std::byte>(4)).is_ok());  // before begin()
    std::ostringstream out;
    ASSERT_TRUE(w.begin(out).is_ok());
    EXPECT_FALSE(w.begin(out).is_ok());
    EXPECT_FALSE(w.add_tensor("late", quant::Type::F32, ok).is_ok());
    std::vector<std::byte> half(64);
    ASSERT_TRUE(w.write_tensor_data(half).is_ok());
    s = w.finish();
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("'t' has 64 of 128 bytes written"), std::string::npos)
        << s.message();
    std::vector<std::byte> more(65);
    EXPECT_FALSE(w.write_tensor_data(more).is_ok());
}

TEST(GgufRoundTrip, WritesToFileAndCopiesEveryVocabKey) {
    HEARTH_REQUIRE_SHARED(vocab, "testdata/vocab/ggml-vocab-qwen2.gguf");
    auto src = GgufFile::open(vocab);
    ASSERT_TRUE(src.is_ok()) << src.error_message();
    GgufWriter w;
    for (const auto& kv : (*src)->metadata()) w.copy_value(kv.key, kv.value);
    const uint64_t ne[] = {64};
    ASSERT_TRUE(w.add_tensor("x", quant::Type::F32, ne).is_ok());
    test::TempDir dir;
    const auto path = dir.path() / "copy.gguf";
    ASSERT_TRUE(w.begin(path).is_ok());
    std::vector<std::byte> data(256, std::byte{7});
    ASSERT_TRUE(w.write_tensor_data(data).is_ok());
    ASSERT_TRUE(w.finish().is_ok());
    auto f = GgufFile::open(path);
    ASSERT_TRUE(f.is_ok()) << f.error_message();
    ASSERT_EQ((*f)->metadata().size(), (*src)->metadata().size());
    for (size_t i = 0; i < (*src)->metadata().size(); ++i) {
        const auto& a = (*src)->metadata()[i];
        const auto& b = (*f)->metadata()[i];
        EXPECT_EQ(a.key, b.key);
        ASSERT_EQ(a.value.type(), b.value.type()) << a.key;
        if (a.value.type() == ValueType::Array) {
            EXPECT_EQ(a.value.array_type(), b.value.array_type());
            EXPECT_EQ(a.value.array_size(), b.value.array_size());
            auto x = a.value.array_bytes(), y = b.value.array_bytes();
            EXPECT_TRUE(std::equal(x.begin(), x.end(), y.begin(), y.end())) << a.key;
        } else if (a.value.type() == ValueType::String) {
            EXPECT_EQ(a.value.as_string(), b.value.as_string());
        } else {
            EXPECT_EQ(a.value.as_f64(), b.value.as_f64()) << a.key;
            EXPECT_EQ(a.value.as_bool(), b.value.as_bool()) << a.key;
        }
    }
    const Value* tok = (*f)->find("tokenizer.ggml.tokens");
    ASSERT_NE(tok, nullptr);
    EXPECT_EQ(tok->string_at(tok->array_size() - 1),
              (*src)->find("tokenizer.ggml.tokens")->string_at(tok->array_size() - 1));
    EXPECT_EQ((*f)->find_tensor("x")->data[255], std::byte{7});
}

TEST(GgufRoundTrip, CannotCreateFileInMissingFolder) {
    GgufWriter w;
    Status s = w.begin(std::filesystem::path("/nonexistent/dir/x.gguf"));
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("cannot create"), std::string::npos);
}

}  // namespace
}  // namespace hearth::gguf
