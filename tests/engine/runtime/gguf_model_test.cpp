// Synthetic models written as GGUF by engine/model (our own writer) and loaded like real files:
// the forward pass against the float64 reference over the decoded file contents.
#include <gtest/gtest.h>

#include "cpu/cpu_device.h"
#include "gguf/gguf_file.h"
#include "model/synthetic_model.h"
#include "runtime/forward.h"
#include "synthetic_model.h"
#include "test_data.h"

namespace hearth::runtime::test {
namespace {

// The decoded values of every tensor in a file, in the form reference_forward() reads.
SyntheticModel decode_file(const gguf::GgufFile& file) {
    SyntheticModel m;
    m.params = load_supported_config(file).value();
    for (const auto& t : file.tensors()) {
        std::vector<float> v(t.n_elements());
        const size_t rb = quant::row_bytes(t.type, t.ne[0]);
        for (uint64_t r = 0; r < t.n_rows(); ++r)
            quant::dequantize_row(t.type, t.data.data() + r * rb, v.data() + r * t.ne[0], t.ne[0]);
        m.values[std::string(t.name)] = std::move(v);
    }
    return m;
}

struct Case {
    const char* shape;
    const char* vocab;
};

TEST(GgufModels, SyntheticFilesMatchFloat64Reference) {
    for (const Case c : {Case{"tiny-llama", "ggml-vocab-llama-spm.gguf"},
                         Case{"tiny-llama3", "ggml-vocab-llama-bpe.gguf"},
                         Case{"tiny-qwen2", "ggml-vocab-qwen2.gguf"}}) {
        SCOPED_TRACE(c.shape);
        HEARTH_REQUIRE_SHARED(vocab, std::string("testdata/vocab/") + c.vocab);
        hearth::test::TempDir dir;
        const auto path = dir.path() / "model.gguf";
        model::SyntheticSpec spec;
        spec.shape = c.shape;
        spec.type = model::WeightType::F32;
        spec.seed = 3;
        ASSERT_TRUE(model::write_synthetic_model(spec, vocab, path).is_ok());
        auto file = std::move(gguf::GgufFile::open(path).value());
        const SyntheticModel ref = decode_file(*file);
        auto dev = backend::make_cpu_device();
        auto w = bind_weights(ref.params, TensorSource::from_gguf(*file), *dev);
        ASSERT_TRUE(w.is_ok()) << w.error_message();
        auto kv = std::move(KvCache::create(*dev, ref.params, 32, backend::DType::F32).value());
        auto fw = std::move(Forward::create(*dev, ref.params, *w, 32, 8, 2).value());
        const std::vector<int32_t> toks = {1, 900, 31999, 5, 5, 77, 12345, 2, 640, 10};
        auto out = fw->step(toks, *kv, true);
        ASSERT_TRUE(out.is_ok()) << out.error_message();
        const auto want = reference_forward(ref, toks);
        const size_t V = size_t(ref.params.n_vocab);
        double worst = 0;
        for (size_t t = 0; t < toks.size(); ++t) {
            double mx = 0, scale = 0;
            for (size_t i = 0; i < V; ++i) {
                mx = std::max(mx, std::fabs(double((*out)[t * V + i]) - want[t][i]));
                scale = std::max(scale, std::fabs(want[t][i]));
            }
            worst = std::max(worst, mx / scale);
        }
        EXPECT_LT(worst, 1e-4);
        std::printf("[ info ] %s (GGUF, F32) vs float64: max rel logit error %.2e\n", c.shape,
                    worst);
    }
}

}  // namespace
}  // namespace hearth::runtime::test
