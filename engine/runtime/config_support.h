// The forward pass runs on model::ModelConfig. This reads one from a file and refuses what the
// forward pass does not implement yet.
#pragma once

#include "gguf/gguf_file.h"
#include "hearth/result.h"
#include "model/model_config.h"

namespace hearth::runtime {

using model::Arch;
using model::ModelConfig;

// Reads the hyperparameters and checks the tensor set (model::load_model_config), then
// check_config.
Result<ModelConfig> load_supported_config(const gguf::GgufFile& file);

// Checks that a config is consistent and that the forward pass implements it (not yet: YaRN,
// LongRoPE without its factor tensors, V heads of another size than K's). Synthetic models in
// tests are checked by it too.
Status check_config(const ModelConfig& c);

}  // namespace hearth::runtime
