// Every malformed-input class the reader must reject, each with its specific error and offset.
#include <gtest/gtest.h>

#include <string>

#include "gguf/gguf_file.h"
#include "gguf_bytes.h"

namespace hearth::gguf {
namespace {

using test::Bytes;

// Parses and expects an error containing `what` and, when given, "at byte offset N".
void expect_error(const Bytes& b, const std::string& what, int64_t offset = -1) {
    auto f = GgufFile::parse(b.span());
    ASSERT_FALSE(f.is_ok()) << "expected an error containing '" << what << "'";
    const std::string& m = f.error_message();
    EXPECT_NE(m.find(what), std::string::npos) << m;
    EXPECT_EQ(m.rfind("GGUF: ", 0), 0u) << m;
    if (offset >= 0) {
        EXPECT_NE(m.find("(at byte offset " + std::to_string(offset) + ")"), std::string::npos)
            << m;
    }
}

TEST(GgufMalformed, EmptyAndTinyFiles) {
    expect_error(Bytes(), "file truncated: magic", 0);
    expect_error(Bytes().u8(0x47).u8(0x47), "file truncated: magic", 0);
    expect_error(Bytes().u32(0x46554747), "file truncated: version", 4);
    expect_error(Bytes().u32(0x46554747).u32(3).u32(0), "file truncated: tensor count", 8);
    expect_error(Bytes().u32(0x46554747).u32(3).u64(0), "file truncated: metadata count", 16);
}

TEST(GgufMalformed, MagicAndVersion) {
    expect_error(Bytes().u32(0x46554746).u32(3).u64(0).u64(0), "bad magic", 0);
    expect_error(Bytes().header(0, 0, 1), "version 1 is not supported", 4);
    expect_error(Bytes().header(0, 0, 0), "unsupported GGUF version 0", 4);
    expect_error(Bytes().header(0, 0, 4), "unsupported GGUF version 4", 4);
    expect_error(Bytes().header(0, 0, 0x03000000), "byte-swapped", 4);
    EXPECT_TRUE(GgufFile::parse(Bytes().header(0, 0, 2).span()).is_ok());
    EXPECT_TRUE(GgufFile::parse(Bytes().header(0, 0, 3).span()).is_ok());
}

TEST(GgufMalformed, CountsThatCannotFit) {
    expect_error(Bytes().header(UINT64_MAX, 0), "tensor count", 8);
    expect_error(Bytes().header(0, UINT64_MAX), "metadata count", 16);
    expect_error(Bytes().header(0, 2).kv_u32("a", 1), "metadata count 2 cannot fit", 16);
    // 1 KV fits, but then 1 tensor record (>= 25 bytes) does not.
    expect_error(Bytes().header(1, 1).kv_u32("a.b", 1).zeros(24), "tensor count 1 cannot fit", 8);
}

TEST(GgufMalformed, Keys) {
    expect_error(Bytes().header(0, 1).str("").u32(4).u32(1), "empty key", 24);
    expect_error(Bytes().header(0, 1).u64(UINT64_MAX).zeros(8),
                 "length 18446744073709551615 exceeds the file", 24);
    expect_error(Bytes().header(0, 2).kv_u32("x.y", 1).kv_u32("x.y", 2),
                 "duplicate metadata key 'x.y'", 24 + 8 + 3 + 8);
    expect_error(Bytes().header(0, 1).str("k").u32(13).u32(0), "unknown value type 13 for key 'k'",
                 24 + 9);
}

TEST(GgufMalformed, Values) {
    // A string value whose length runs past the end.
    expect_error(Bytes().header(0, 1).str("k").u32(8).u64(100).zeros(10),
                 "value of 'k' length 100 exceeds the file", 24 + 9 + 4);
    // Truncated scalar.
    expect_error(Bytes().header(0, 1).str("k").u32(10).u32(0),
                 "file truncated: value of 'k' needs 8 bytes but only 4 remain", 24 + 9 + 4);
    // Invalid booleans, scalar and inside an array.
    expect_error(Bytes().header(0, 1).str("k").u32(7).u8(2), "invalid boolean value 2", 24 + 13);
    expect_error(Bytes().header(0, 1).str("k").u32(9).u32(7).u64(3).u8(1).u8(0).u8(255),
                 "invalid boolean value 255", 24 + 13 + 12 + 2);
    EXPECT_TRUE(GgufFile::parse(Bytes().header(0, 1).str("k").u32(7).u8(1).span()).is_ok());
}

TEST(GgufMalformed, Arrays) {
    const uint64_t elem_at = 24 + 13;
    expect_error(Bytes().header(0, 1).str("k").u32(9).u32(9).u64(0), "nested arrays", elem_at);
    expect_error(Bytes().header(0, 1).str("k").u32(9).u32(99).u64(0),
                 "unknown array element type 99", elem_at);
    expect_error(Bytes().header(0, 1).str("k").u32(9).u32(4).u64(1ull << 62).zeros(16),
                 "array of 4611686018427387904 UINT32 for 'k' exceeds the file", elem_at + 4);
    expect_error(Bytes().header(0, 1).str("k").u32(9).u32(8).u64(UINT64_MAX).zeros(16),
                 "strings for 'k' cannot fit", elem_at + 4);
    // Second string's length runs past the end.
    expect_error(Bytes().header(0, 1).str("k").u32(9).u32(8).u64(2).str("ab").u64(1000).zeros(8),
                 "element 1 of 'k' length 1000 exceeds the file", elem_at + 12 + 10);
    expect_error(Bytes().header(0, 1).str("k").u32(9).u32(8).u64(2).str("abcdefgh").u32(0),
                 "file truncated: element 1 of 'k' needs 8 bytes", elem_at + 12 + 16);
    // Truncated in the array header.
    expect_error(Bytes().header(0, 1).str("k").u32(9).u32(4).u32(0),
                 "file truncated: array length of 'k'", elem_at + 4);
}

TEST(GgufMalformed, Alignment) {
    expect_error(Bytes().header(0, 1).str("general.alignment").u32(10).u64(32),
                 "general.alignment has type UINT64, expected UINT32", 24);
    expect_error(Bytes().header(0, 1).kv_u32("general.alignment", 48),
                 "general.alignment 48 is not a power of two", 24);
    expect_error(Bytes().header(0, 1).kv_u32("general.alignment", 0),
                 "general.alignment 0 is not a power of two", 24);
    auto ok = GgufFile::parse(Bytes().header(0, 1).kv_u32("general.alignment", 64).span());
    ASSERT_TRUE(ok.is_ok()) << ok.error_message();
    EXPECT_EQ((*ok)->alignment(), 64u);
}

// A valid file with one F32 [8, 2] tensor "t" at offset 0 (64 bytes of data).
Bytes one_tensor(uint64_t ne0 = 8, uint64_t ne1 = 2, uint32_t type = 0, uint64_t offset = 0) {
    Bytes b;
    b.header(1, 0).tensor("t", ne0, ne1, type, offset).pad_to(32).zeros(64);
    return b;
}

constexpr uint64_t kInfoAt = 24;                // first tensor info record
constexpr uint64_t kDimsAt = kInfoAt + 8 + 1;   // its n_dims field
constexpr uint64_t kTypeAt = kDimsAt + 4 + 16;  // its type field
constexpr uint64_t kOffsetAt = kTypeAt + 4;     // its offset field

TEST(GgufMalformed, ValidBaseline) {
    auto f = GgufFile::parse(one_tensor().span());
    ASSERT_TRUE(f.is_ok()) << f.error_message();
    EXPECT_EQ((*f)->tensors()[0].nbytes, 64u);
    EXPECT_EQ((*f)->data_offset(), 96u);  // 65 bytes of header and info, padded
}

TEST(GgufMalformed, TensorInfos) {
    expect_error(Bytes().header(1, 0).tensor("", 8, 1, 0, 0).pad_to(32).zeros(32), "empty name",
                 kInfoAt);
    expect_error(Bytes().header(1, 0).tensor(std::string(64, 'n'), 8, 1, 0, 0).pad_to(32).zeros(32),
                 "tensor name of 64 bytes is too long", kInfoAt);
    expect_error(Bytes().header(1, 0).str("t").u32(5).zeros(80), "has 5 dimensions (at most 4)",
                 kDimsAt);
    expect_error(one_tensor(8, 1ull << 63), "dimension 1 of tensor 't' is negative", kDimsAt + 12);
    expect_error(one_tensor(8, 2, 4), "unknown or unsupported type id 4", kTypeAt);
    expect_error(one_tensor(8, 2, 1000), "unknown or unsupported type id 1000", kTypeAt);
    expect_error(one_tensor(33, 1, 2),
                 "rows of 33 elements, not a multiple of the Q4_0 block size 32", kDimsAt);
    expect_error(one_tensor(1ull << 40, 1ull << 40), "too large", kDimsAt);
    expect_error(one_tensor(8, 2, 0, 16), "offset 16 is not a multiple of the alignment 32",
                 kOffsetAt);
    expect_error(Bytes().header(1, 0).str("t").u32(2).u64(8).u32(0),
                 "file truncated: dimensions of tensor 't'", kDimsAt + 4 + 8);
}

TEST(GgufMalformed, TensorExtents) {
    // Data runs past the end.
    expect_error(one_tensor(8, 3),
                 "tensor 't' data [0, 0 + 96) lies outside the data section of 64", kInfoAt);
    expect_error(one_tensor(8, 2, 0, 1ull << 60), "lies outside the data section", kInfoAt);
    // The data section itself starts past the end.
    expect_error(Bytes().header(1, 0).tensor("t", 8, 1, 0, 0),
                 "data section would start at byte 96");
    // Two tensors overlapping.
    Bytes b;
    b.header(2, 0).tensor("a", 16, 1, 0, 0).tensor("b", 16, 1, 0, 64).pad_to(32).zeros(128);
    ASSERT_TRUE(GgufFile::parse(b.span()).is_ok());
    Bytes o;
    o.header(2, 0).tensor("a", 16, 1, 0, 0).tensor("b", 16, 1, 0, 32).pad_to(32).zeros(96);
    // a is [0, 64) with 16 F32 elements; b at 32 overlaps it.
    const uint64_t b_at = kInfoAt + 8 + 1 + 4 + 16 + 4 + 8;
    expect_error(o, "tensor 'b' data at offset 32 overlaps tensor 'a' (which ends at 64)", b_at);
    // Duplicate tensor names.
    Bytes d;
    d.header(2, 0).tensor("a", 8, 1, 0, 0).tensor("a", 8, 1, 0, 32).pad_to(32).zeros(64);
    expect_error(d, "duplicate tensor name 'a'", b_at);
}

TEST(GgufMalformed, OutOfOrderButDisjointTensorsAreAccepted) {
    Bytes b;
    b.header(2, 0).tensor("a", 8, 1, 0, 32).tensor("b", 8, 1, 0, 0).pad_to(32).zeros(64);
    auto f = GgufFile::parse(b.span());
    ASSERT_TRUE(f.is_ok()) << f.error_message();
    EXPECT_EQ((*f)->find_tensor("a")->offset, 32u);
}

TEST(GgufMalformed, ZeroDimsAndEmptyTensors) {
    Bytes b;
    b.header(2, 0).str("s").u32(0).u32(0).u64(0).tensor("e", 0, 4, 0, 0).pad_to(32).zeros(32);
    auto f = GgufFile::parse(b.span());
    ASSERT_TRUE(f.is_ok()) << f.error_message();
    EXPECT_EQ((*f)->find_tensor("s")->nbytes, 4u);  // a scalar: 1 element
    EXPECT_EQ((*f)->find_tensor("e")->nbytes, 0u);
}

}  // namespace
}  // namespace hearth::gguf
