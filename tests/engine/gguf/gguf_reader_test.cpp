// The reader on real files: the shared vocab-only GGUFs and the stories260K model.
#include <gtest/gtest.h>

#include <filesystem>

#include "gguf/gguf_file.h"
#include "test_data.h"

namespace hearth::gguf {
namespace {

TEST(GgufReader, OpensEveryVocabFile) {
    auto dir = test::shared_file("testdata/vocab");
    if (!dir) GTEST_SKIP() << "reference data not found: ../shared/testdata/vocab";
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(*dir)) {
        if (e.path().extension() != ".gguf") continue;
        auto f = GgufFile::open(e.path());
        ASSERT_TRUE(f.is_ok()) << e.path() << ": " << f.error_message();
        EXPECT_EQ((*f)->tensors().size(), 0u) << e.path();
        EXPECT_EQ((*f)->version(), 3u);
        EXPECT_TRUE((*f)->get_string("general.architecture").has_value()) << e.path();
        EXPECT_TRUE((*f)->get_string("tokenizer.ggml.model").has_value()) << e.path();
        const Value* tokens = (*f)->find("tokenizer.ggml.tokens");
        ASSERT_NE(tokens, nullptr) << e.path();
        EXPECT_EQ(tokens->type(), ValueType::Array);
        EXPECT_EQ(tokens->array_type(), ValueType::String);
        EXPECT_GT(tokens->array_size(), 100u);
        ++n;
    }
    EXPECT_EQ(n, 14);
}

TEST(GgufReader, LlamaSpmVocabValues) {
    HEARTH_REQUIRE_SHARED(path, "testdata/vocab/ggml-vocab-llama-spm.gguf");
    auto f = GgufFile::open(path);
    ASSERT_TRUE(f.is_ok()) << f.error_message();
    const auto& g = **f;
    EXPECT_EQ(g.metadata().size(), 22u);  // GGUF_FACTS worked example: 22 KV pairs
    EXPECT_EQ(g.metadata()[0].key, "general.architecture");
    EXPECT_EQ(g.get_string("general.architecture"), "llama");
    EXPECT_EQ(g.get_string("tokenizer.ggml.model"), "llama");
    const Value* tokens = g.find("tokenizer.ggml.tokens");
    ASSERT_NE(tokens, nullptr);
    EXPECT_EQ(tokens->array_size(), 32000u);
    EXPECT_EQ(tokens->string_at(0), "<unk>");
    EXPECT_EQ(tokens->string_at(1), "<s>");
    EXPECT_EQ(tokens->string_at(2), "</s>");
    EXPECT_EQ(tokens->string_at(3), "<0x00>");
    EXPECT_EQ(tokens->string_at(32000), "");  // out of range: empty, no UB
    const Value* types = g.find("tokenizer.ggml.token_type");
    ASSERT_NE(types, nullptr);
    EXPECT_EQ(types->array_type(), ValueType::I32);
    EXPECT_EQ(types->int_at(0), 2);  // unknown
    EXPECT_EQ(types->int_at(1), 3);  // control
    EXPECT_EQ(types->int_at(3), 6);  // byte
    EXPECT_EQ(g.get_u64("tokenizer.ggml.bos_token_id"), 1u);
    EXPECT_EQ(g.get_u64("tokenizer.ggml.eos_token_id"), 2u);
    EXPECT_EQ(g.find("no.such.key"), nullptr);
}

TEST(GgufReader, Stories260K) {
    HEARTH_REQUIRE_SHARED(path, "models/stories260K.gguf");
    auto f = GgufFile::open(path);
    ASSERT_TRUE(f.is_ok()) << f.error_message();
    const auto& g = **f;
    EXPECT_EQ(g.file_size(), 1185376u);
    EXPECT_EQ(g.alignment(), 32u);
    EXPECT_EQ(g.data_offset() % 32, 0u);
    EXPECT_EQ(g.get_string("general.architecture"), "llama");
    EXPECT_EQ(g.get_u64("llama.embedding_length"), 64u);
    EXPECT_EQ(g.get_u64("llama.block_count"), 5u);
    EXPECT_EQ(g.get_u64("llama.attention.head_count"), 8u);
    EXPECT_EQ(g.get_u64("llama.attention.head_count_kv"), 4u);
    EXPECT_EQ(g.get_u64("llama.feed_forward_length"), 172u);
    EXPECT_EQ(g.tensors().size(), 2u + 5u * 9u + 1u);  // embd, norm, output + 9 per layer
    const TensorInfo* emb = g.find_tensor("token_embd.weight");
    ASSERT_NE(emb, nullptr);
    EXPECT_EQ(emb->type, quant::Type::F32);
    EXPECT_EQ(emb->n_dims, 2u);
    EXPECT_EQ(emb->ne[0], 64u);
    EXPECT_EQ(emb->ne[1], 512u);
    EXPECT_EQ(emb->nbytes, 64u * 512u * 4u);
    const TensorInfo* out = g.find_tensor("output.weight");
    ASSERT_NE(out, nullptr);
    // The README says output.weight is an exact copy of token_embd.weight.
    ASSERT_EQ(out->data.size(), emb->data.size());
    EXPECT_TRUE(std::equal(out->data.begin(), out->data.end(), emb->data.begin()));
    uint64_t total = 0;
    for (const auto& t : g.tensors()) {
        EXPECT_EQ(t.offset % g.alignment(), 0u) << t.name;
        EXPECT_EQ(t.data.data(), g.bytes().data() + g.data_offset() + t.offset);
        total += t.nbytes;
    }
    EXPECT_LE(g.data_offset() + total, g.file_size());
    EXPECT_EQ(g.find_tensor("blk.5.attn_q.weight"), nullptr);
    EXPECT_NE(g.find_tensor("blk.4.ffn_down.weight"), nullptr);
}

TEST(GgufReader, MissingFileIsAnError) {
    auto f = GgufFile::open("/nonexistent/hearth/model.gguf");
    ASSERT_FALSE(f.is_ok());
    EXPECT_NE(f.error_message().find("cannot open"), std::string::npos) << f.error_message();
}

}  // namespace
}  // namespace hearth::gguf
