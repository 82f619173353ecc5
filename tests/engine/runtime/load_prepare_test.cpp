// Model::load readies the CPU's matrices for its kernels (Device::prepare_weights, packing)
// instead of leaving it to the first forward pass: a "preparing" progress phase after the
// weights are in, ModelInfo::prepared_bytes the size of the packed copies (0 when packing is
// off), and a cancel during that phase fails the load like a cancel in any other.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "cpu/cpu_weights.h"
#include "cpu/kernels/packed.h"
#include "hearth/session.h"
#include "model/synthetic_model.h"
#include "spec_test_support.h"

namespace hearth {
namespace {

namespace fs = std::filesystem;

class LoadPrepare : public ::testing::Test {
public:
    static void SetUpTestSuite() {
        dir_ = fs::temp_directory_path() / ("hearth-load-prepare-" + std::to_string(::getpid()));
        fs::create_directories(dir_);
        const fs::path vocab = test::write_vocab(dir_ / "v256.gguf", {});
        model::SyntheticSpec spec;
        spec.shape = "small-llama";
        spec.type = model::WeightType::Q8_0;
        spec.seed = 5;
        file_ = dir_ / "q8.gguf";
        ASSERT_TRUE(model::write_synthetic_model(spec, vocab, file_).is_ok());
    }
    static void TearDownTestSuite() {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }

protected:
    static inline fs::path dir_, file_;
};

TEST_F(LoadPrepare, PackingIsALoadPhase) {
    const bool had = backend::cpu_set_repack(true);
    std::vector<std::string> phases;
    double last_preparing = -1;
    LoadOptions lo;
    lo.backend = "cpu";
    lo.on_progress = [&](const LoadProgress& p) {
        if (phases.empty() || phases.back() != p.phase) phases.push_back(p.phase);
        if (p.phase == "preparing") last_preparing = p.fraction;
    };
    auto m = Model::load(file_, lo);
    backend::cpu_set_repack(had);
    ASSERT_TRUE(m.is_ok()) << m.error_message();
    const ModelInfo& info = (*m)->info();
    if (!cpu::packed_kernel_active()) GTEST_SKIP() << "no packed kernels on this CPU (scalar)";
    ASSERT_GE(phases.size(), 2u);
    EXPECT_EQ(phases[0], "loading");
    EXPECT_NE(std::find(phases.begin(), phases.end(), "preparing"), phases.end());
    EXPECT_EQ(last_preparing, 1.0);
    // The matrices pack to their own Q8_0 blocks (plus zero rows up to a multiple of 16 per
    // matrix): more than nothing, and far less than twice the file.
    EXPECT_GT(info.prepared_bytes, 0u);
    EXPECT_LT(info.prepared_bytes, 2 * fs::file_size(file_));

    // The model generates after it (the packed copies are the ones the graphs use).
    auto st = KvStore::create(*m, {.n_ctx = 64});
    ASSERT_TRUE(st.is_ok()) << st.error_message();
    auto s = Session::create(*st, {.n_threads = 2});
    ASSERT_TRUE(s.is_ok()) << s.error_message();
}

TEST_F(LoadPrepare, NothingToPrepareWithPackingOff) {
    const bool had = backend::cpu_set_repack(false);
    LoadOptions lo;
    lo.backend = "cpu";
    auto m = Model::load(file_, lo);
    backend::cpu_set_repack(had);
    ASSERT_TRUE(m.is_ok()) << m.error_message();
    EXPECT_EQ((*m)->info().prepared_bytes, 0u);
}

TEST_F(LoadPrepare, CancelWhilePreparingFailsTheLoad) {
    const bool had = backend::cpu_set_repack(true);
    std::atomic<bool> cancel{false};
    int preparing_calls = 0;
    LoadOptions lo;
    lo.backend = "cpu";
    lo.cancel = &cancel;
    lo.on_progress = [&](const LoadProgress& p) {
        if (p.phase != "preparing") return;
        ++preparing_calls;
        cancel.store(true);
    };
    auto m = Model::load(file_, lo);
    backend::cpu_set_repack(had);
    ASSERT_FALSE(m.is_ok());
    EXPECT_NE(m.error_message().find("cancelled"), std::string::npos) << m.error_message();
    EXPECT_EQ(preparing_calls, 1) << "preparing went on after the cancel";
}

}  // namespace
}  // namespace hearth
