// Every .inp/.out pair of the reference vectors: tokenize with no BOS/EOS and special-token
// parsing off; the ids must equal the expected ones exactly.
#include <gtest/gtest.h>

#include <cstdio>

#include "vocab_files.h"

namespace hearth::tokenizer {
namespace {

class Vectors : public ::testing::TestWithParam<std::string> {};

TEST_P(Vectors, AllExact) {
    const std::string name = GetParam();
    HEARTH_REQUIRE_SHARED(inp, "testdata/vocab/ggml-vocab-" + name + ".gguf.inp");
    HEARTH_REQUIRE_SHARED(outp, "testdata/vocab/ggml-vocab-" + name + ".gguf.out");
    std::string error;
    const Tokenizer* tok = test::load_vocab(name, &error);
    ASSERT_NE(tok, nullptr) << name << ": " << error;
    const auto inputs = test::read_inputs(inp);
    const auto expected = test::read_outputs(outp);
    ASSERT_EQ(inputs.size(), expected.size());
    ASSERT_GT(inputs.size(), 40u);
    size_t pass = 0;
    for (size_t i = 0; i < inputs.size(); ++i) {
        const auto ids = tok->encode(inputs[i], false, false, false);
        EXPECT_EQ(ids, expected[i]) << name << " case " << i << ": '" << inputs[i] << "'";
        if (ids == expected[i]) ++pass;
        // encode_user is the same convention.
        EXPECT_EQ(tok->encode_user(inputs[i]), ids);
    }
    std::printf("[ vectors  ] %-15s %zu/%zu exact\n", name.c_str(), pass, inputs.size());
}

INSTANTIATE_TEST_SUITE_P(Vocab, Vectors, ::testing::ValuesIn(test::vector_vocabs()),
                         [](const auto& info) {
                             std::string n = info.param;
                             for (char& c : n)
                                 if (c == '-') c = '_';
                             return n;
                         });

TEST(Vectors, BertIsRefusedClearly) {
    HEARTH_REQUIRE_SHARED(path, "testdata/vocab/ggml-vocab-bert-bge.gguf");
    auto file = gguf::GgufFile::open(path);
    ASSERT_TRUE(file.is_ok()) << file.error_message();
    auto tok = Tokenizer::from_gguf(**file);
    ASSERT_FALSE(tok.is_ok());
    EXPECT_NE(tok.error_message().find("bert"), std::string::npos) << tok.error_message();
}

}  // namespace
}  // namespace hearth::tokenizer
