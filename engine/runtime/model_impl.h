// What a loaded hearth::Model holds (internal to the engine).
#pragma once

#include <memory>
#include <vector>

#include "gguf/gguf_file.h"
#include "hearth/backend/device.h"
#include "hearth/engine.h"
#include "runtime/config_support.h"
#include "runtime/model_weights.h"
#include "tokenizer/tokenizer.h"

namespace hearth {

struct Model::Impl {
    std::unique_ptr<gguf::GgufFile> file;  // the mapping the weights point into
    std::unique_ptr<tokenizer::Tokenizer> tokenizer;
    // The main device (the CPU, or the only device) and the accelerator running layers
    // [0, weights.placement.n_accel) (null when none); layer_devices has one entry per layer.
    std::unique_ptr<backend::Device> device;
    std::unique_ptr<backend::Device> accel;
    std::vector<backend::Device*> layer_devices;
    runtime::ModelConfig params;
    runtime::ModelWeights weights;
    ModelInfo info;
    std::string identity;  // model file identity for KV cache files and prefix hashes
};

// Engine-internal access to a Model's parts, for code outside Model and Context.
struct ModelAccess {
    static const Model::Impl& impl(const Model& m) { return *m.impl_; }
};

}  // namespace hearth
