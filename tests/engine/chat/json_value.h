// Test helper: nlohmann::json to the template engine's Value (objects keep their order).
#pragma once

#include <nlohmann/json.hpp>

#include "chat/value.h"

namespace hearth::chat::test {

inline Value from_json(const nlohmann::ordered_json& j) {
    switch (j.type()) {
        case nlohmann::json::value_t::null:
            return Value::none();
        case nlohmann::json::value_t::boolean:
            return Value::boolean(j.get<bool>());
        case nlohmann::json::value_t::number_integer:
        case nlohmann::json::value_t::number_unsigned:
            return Value::integer(j.get<int64_t>());
        case nlohmann::json::value_t::number_float:
            return Value::number(j.get<double>());
        case nlohmann::json::value_t::string:
            return Value::string(j.get<std::string>());
        case nlohmann::json::value_t::array: {
            ValueList items;
            for (const auto& e : j) items.push_back(from_json(e));
            return Value::list(std::move(items));
        }
        case nlohmann::json::value_t::object: {
            Value d = Value::dict();
            for (const auto& [k, v] : j.items()) d.set(k, from_json(v));
            return d;
        }
        default:
            return Value();
    }
}

}  // namespace hearth::chat::test
