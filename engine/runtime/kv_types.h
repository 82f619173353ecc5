// The public KvType as a backend element type.
#pragma once

#include "hearth/backend/tensor.h"
#include "hearth/engine.h"

namespace hearth::runtime {

inline backend::DType kv_dtype(KvType t) {
    switch (t) {
        case KvType::F32:
            return backend::DType::F32;
        case KvType::Q8_0:
            return backend::DType::Q8_0;
        case KvType::Q4_0:
            return backend::DType::Q4_0;
        case KvType::F16:
            break;
    }
    return backend::DType::F16;
}

}  // namespace hearth::runtime
