// The public KvType as a backend element type.
#pragma once

#include "hearth/backend/tensor.h"
#include "hearth/engine.h"

namespace hearth::runtime {

inline backend::DType kv_dtype(KvType t) {
    return quant::element_type(t);
}

}  // namespace hearth::runtime
