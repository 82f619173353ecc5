// INT4 conversion end to end: stories260K (F32, 64-wide rows) and a synthetic small-llama F16
// (256-wide rows): the converted files load, have the stated types, and their logits stay
// within bounds of the original over 256 greedy tokens, for AWQ and round-to-nearest.
#include <gtest/gtest.h>

#include <cstdio>

#include "gguf/gguf_file.h"
#include "int4_test_util.h"
#include "model/synthetic_model.h"
#include "test_data.h"

namespace hearth {
namespace {

using model::Int4Method;
using model::Int4Settings;

struct Converted {
    std::shared_ptr<Model> model;
    model::ConvertReport report;
};

// compare_logits teacher-forces 256 positions after the prompt, past the 128 stories260K was
// trained on: the models it compares are loaded with contexts allowed beyond training.
Result<std::shared_ptr<Model>> load_long(const std::filesystem::path& path) {
    LoadOptions lo;
    lo.ctx_beyond_training = true;
    return Model::load(path, lo);
}

Converted convert(const std::filesystem::path& src, const std::filesystem::path& out,
                  Int4Method method) {
    auto f = gguf::GgufFile::open(src);
    EXPECT_TRUE(f.is_ok());
    Int4Settings s;
    s.method = method;
    s.n_threads = 2;
    auto rep = model::convert_to_int4(**f, out, s, test::calibration_tokens(**f), {}, nullptr);
    EXPECT_TRUE(rep.is_ok()) << (rep ? "" : rep.error_message());
    if (!rep) return {};
    auto m = load_long(out);
    EXPECT_TRUE(m.is_ok()) << (m ? "" : m.error_message());
    return {m ? *m : nullptr, *rep};
}

void print(const char* what, const test::LogitDiff& d) {
    std::printf("%s: mean |dlogit| %.4f max %.4f (ref rms %.3f) greedy agreement %.3f\n", what,
                d.mean_abs, d.max_abs, d.ref_rms, d.agreement);
}

TEST(Int4Convert, Stories260kAwqAndRtn) {
    HEARTH_REQUIRE_SHARED(src, "models/stories260K.gguf");
    test::TempDir dir;
    auto ref = load_long(src);
    ASSERT_TRUE(ref.is_ok());
    auto awq = convert(src, dir.path() / "awq.gguf", Int4Method::Awq);
    auto rtn = convert(src, dir.path() / "rtn.gguf", Int4Method::Rtn);
    ASSERT_TRUE(awq.model && rtn.model);
    EXPECT_EQ(awq.report.n_converted, 30);  // 5 layers x 6: ffn_down rows (172) stay F32
    EXPECT_EQ(awq.report.source_types, "F32");
    EXPECT_LT(awq.report.search_err_best, awq.report.search_err_rtn);
    const auto& info = awq.model->info();
    EXPECT_TRUE(info.int4_converted);
    EXPECT_EQ(info.int4_source_types, "F32");
    EXPECT_EQ(info.weight_types, "F32+Q4_0+Q8_0");  // token_embd Q8_0, ffn_down F32
    EXPECT_FALSE((*ref)->info().int4_converted);
    EXPECT_LT(awq.report.out_bytes * 2, (*ref)->info().file_bytes);

    const auto da = test::compare_logits(*ref, awq.model, 256);
    const auto dr = test::compare_logits(*ref, rtn.model, 256);
    print("stories260K awq", da);
    print("stories260K rtn", dr);
    ASSERT_EQ(da.positions, 256);
    ASSERT_EQ(dr.positions, 256);
    // Measured (logit rms 9.2): AWQ mean 0.565 max 4.32 agreement 0.953; RTN 0.592 / 6.79 /
    // 0.895. Bounds with margin; AWQ must stay ahead of RTN on the mean and the agreement.
    EXPECT_LT(da.mean_abs, 0.65);
    EXPECT_LT(da.max_abs, 6.0);
    EXPECT_GT(da.agreement, 0.9);
    EXPECT_LT(dr.mean_abs, 0.7);
    EXPECT_LT(dr.max_abs, 9.0);
    EXPECT_GT(dr.agreement, 0.8);
    EXPECT_GE(da.agreement, dr.agreement);
    EXPECT_LE(da.mean_abs, dr.mean_abs);
}

TEST(Int4Convert, SyntheticSmallLlamaF16) {
    HEARTH_REQUIRE_SHARED(vocab, "testdata/vocab/ggml-vocab-llama-spm.gguf");
    test::TempDir dir;
    const auto src = dir.path() / "small-f16.gguf";
    ASSERT_TRUE(
        model::write_synthetic_model({"small-llama", model::WeightType::F16, 7, 2}, vocab, src)
            .is_ok());
    auto ref = load_long(src);
    ASSERT_TRUE(ref.is_ok());
    auto awq = convert(src, dir.path() / "awq.gguf", Int4Method::Awq);
    auto rtn = convert(src, dir.path() / "rtn.gguf", Int4Method::Rtn);
    ASSERT_TRUE(awq.model && rtn.model);
    EXPECT_EQ(awq.report.n_converted, 14);
    EXPECT_EQ(awq.model->info().weight_types, "Q4_0+Q8_0");
    EXPECT_EQ(awq.model->info().int4_source_types, "F16");
    EXPECT_LE(awq.report.search_err_best, awq.report.search_err_rtn);
    const auto da = test::compare_logits(*ref, awq.model, 256);
    const auto dr = test::compare_logits(*ref, rtn.model, 256);
    print("small-llama F16 awq", da);
    print("small-llama F16 rtn", dr);
    ASSERT_EQ(da.positions, 256);
    // Random weights (std 0.02) give small, flat logits (rms 0.32) and no outlier channels, so
    // AWQ has nothing to exploit: measured AWQ mean 0.051 max 0.33 agreement 0.40, RTN 0.047 /
    // 0.31 / 0.45. The bounds check that both stay in that regime.
    EXPECT_LT(da.mean_abs, 0.25 * da.ref_rms);
    EXPECT_LT(dr.mean_abs, 0.25 * dr.ref_rms);
    EXPECT_LT(da.max_abs, 2.0 * da.ref_rms);
    EXPECT_GT(da.agreement, 0.25);
    EXPECT_GT(dr.agreement, 0.25);
}

// Families the converter does not handle (its calibration is a llama-style forward pass) load
// as stored with the INT4 option on, and an explicit conversion is refused.
TEST(Int4Convert, OtherFamiliesLoadAsStored) {
    HEARTH_REQUIRE_SHARED(gemma, "models/archs/gemma2.gguf");
    HEARTH_REQUIRE_SHARED(moe, "models/archs/llama-moe.gguf");
    for (const auto& path : {gemma, moe}) {
        SCOPED_TRACE(path.string());
        auto f = gguf::GgufFile::open(path);
        ASSERT_TRUE(f.is_ok());
        EXPECT_FALSE(model::int4_supported(**f));
        EXPECT_FALSE(model::needs_int4_conversion(**f));  // F32 weights, yet nothing to do
        test::TempDir dir;
        LoadOptions lo;
        lo.int4_weights = true;
        lo.int4_cache_dir = dir.path() / "cache";
        auto m = Model::load(path, lo);
        ASSERT_TRUE(m.is_ok()) << m.error_message();
        EXPECT_FALSE((*m)->info().int4_converted);
        model::Int4Settings settings;
        auto r = model::convert_to_int4(**f, dir.path() / "out.gguf", settings, {}, {}, nullptr);
        ASSERT_FALSE(r.is_ok());
        EXPECT_NE(r.error_message().find("supports llama and qwen2 models only"), std::string::npos)
            << r.error_message();
    }
}

TEST(Int4Convert, FourBitFilesNeedNoConversion) {
    HEARTH_REQUIRE_SHARED(vocab, "testdata/vocab/ggml-vocab-llama-spm.gguf");
    test::TempDir dir;
    const auto src = dir.path() / "q4.gguf";
    ASSERT_TRUE(
        model::write_synthetic_model({"small-llama", model::WeightType::Q4_0, 7, 2}, vocab, src)
            .is_ok());
    auto f = gguf::GgufFile::open(src);
    ASSERT_TRUE(f.is_ok());
    EXPECT_FALSE(model::needs_int4_conversion(**f));
    LoadOptions lo;
    lo.int4_weights = true;
    lo.int4_cache_dir = dir.path() / "cache";
    auto m = Model::load(src, lo);
    ASSERT_TRUE(m.is_ok());
    EXPECT_FALSE((*m)->info().int4_converted);
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "cache" / "int4"));
}

TEST(Int4Convert, BadInputsAreErrors) {
    HEARTH_REQUIRE_SHARED(src, "models/stories260K.gguf");
    test::TempDir dir;
    auto f = gguf::GgufFile::open(src);
    ASSERT_TRUE(f.is_ok());
    const auto out = dir.path() / "x.gguf";
    Int4Settings s;
    const int32_t bad[] = {1, 999999};
    auto r = model::convert_to_int4(**f, out, s, bad, {}, nullptr);
    ASSERT_FALSE(r.is_ok());
    EXPECT_NE(r.error_message().find("out of range"), std::string::npos);
    s.type = quant::Type::Q8_0;
    EXPECT_FALSE(model::convert_to_int4(**f, out, s, {}, {}, nullptr).is_ok());
    EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

}  // namespace
}  // namespace hearth

namespace hearth {
namespace {

// Measurement, not a test (run with --gtest_also_run_disabled_tests): logit error of converted
// files against their source over 256 greedy tokens. HEARTH_INT4_BENCH_REF is the source,
// HEARTH_INT4_BENCH_TEST a ':'-separated list of converted files.
TEST(Int4Bench, DISABLED_LogitErrors) {
    const char* ref_path = std::getenv("HEARTH_INT4_BENCH_REF");
    const char* tests = std::getenv("HEARTH_INT4_BENCH_TEST");
    if (!ref_path || !tests) GTEST_SKIP() << "set HEARTH_INT4_BENCH_REF and _TEST";
    auto ref = load_long(ref_path);
    ASSERT_TRUE(ref.is_ok()) << ref.error_message();
    std::string list = tests;
    for (size_t a = 0; a < list.size();) {
        size_t b = list.find(':', a);
        if (b == std::string::npos) b = list.size();
        const std::string p = list.substr(a, b - a);
        auto m = load_long(p);
        ASSERT_TRUE(m.is_ok()) << m.error_message();
        print(p.c_str(), test::compare_logits(*ref, *m, 256));
        a = b + 1;
    }
}

}  // namespace
}  // namespace hearth
