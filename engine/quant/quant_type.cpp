#include "quant/quant_type.h"

#include <array>
#include <cctype>
#include <string>

namespace hearth::quant {

namespace {

constexpr std::array kTypes = {
    TypeTraits{Type::F32, "F32", 1, 4, false},
    TypeTraits{Type::F16, "F16", 1, 2, false},
    TypeTraits{Type::BF16, "BF16", 1, 2, false},
    TypeTraits{Type::Q4_0, "Q4_0", 32, 18, true},
    TypeTraits{Type::Q4_1, "Q4_1", 32, 20, true},
    TypeTraits{Type::Q5_0, "Q5_0", 32, 22, true},
    TypeTraits{Type::Q5_1, "Q5_1", 32, 24, true},
    TypeTraits{Type::Q8_0, "Q8_0", 32, 34, true},
    TypeTraits{Type::Q8_1, "Q8_1", 32, 36, true},
    TypeTraits{Type::Q2_K, "Q2_K", 256, 84, true},
    TypeTraits{Type::Q3_K, "Q3_K", 256, 110, true},
    TypeTraits{Type::Q4_K, "Q4_K", 256, 144, true},
    TypeTraits{Type::Q5_K, "Q5_K", 256, 176, true},
    TypeTraits{Type::Q6_K, "Q6_K", 256, 210, true},
    TypeTraits{Type::Q8_K, "Q8_K", 256, 292, true},
    TypeTraits{Type::IQ4_NL, "IQ4_NL", 32, 18, true},
    TypeTraits{Type::IQ4_XS, "IQ4_XS", 256, 136, true},
    TypeTraits{Type::I32, "I32", 1, 4, false},
};

}  // namespace

const TypeTraits* type_traits(uint32_t id) {
    for (const auto& t : kTypes)
        if (static_cast<uint32_t>(t.type) == id) return &t;
    return nullptr;
}

std::optional<Type> type_from_name(std::string_view name) {
    std::string upper(name);
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (const auto& t : kTypes)
        if (t.name == upper) return t.type;
    return std::nullopt;
}

}  // namespace hearth::quant
