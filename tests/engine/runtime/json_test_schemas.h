// The schemas the JSON-mode tests share (json_recognizer_test, json_scheduler_test), with the
// tests' own reading of one to check replies against.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>

#include "hearth/json_schema.h"

namespace hearth::test {

// A schema as the API server would compile it: {"name": string, "age": integer, "tags": array
// of "a" | "b" | "ab", "ok": boolean or null, "meta": anything}, name and age required.
inline JsonSchema person_schema() {
    JsonSchema s;
    s.nodes.resize(6);
    s.nodes[0].types = JsonSchema::kObject;
    s.nodes[0].keys = {"name", "age", "tags", "ok", "meta"};
    s.nodes[0].values = {1, 2, 3, 4, JsonSchema::kAny};
    s.nodes[0].required = 0b11;
    s.nodes[1].types = JsonSchema::kString;
    s.nodes[2].types = JsonSchema::kInteger;
    s.nodes[3].types = JsonSchema::kArray;
    s.nodes[3].items = 5;
    s.nodes[4].types = JsonSchema::kBoolean | JsonSchema::kNull;
    s.nodes[5].types = JsonSchema::kString;
    s.nodes[5].strings = {"a", "b", "ab"};
    return s;
}

// {"ok": boolean}, required: a reply has one way through.
inline std::shared_ptr<JsonSchema> ok_schema() {
    auto s = std::make_shared<JsonSchema>();
    s->nodes.resize(2);
    s->nodes[0].types = JsonSchema::kObject;
    s->nodes[0].keys = {"ok"};
    s->nodes[0].values = {1};
    s->nodes[0].required = 1;
    s->nodes[1].types = JsonSchema::kBoolean;
    return s;
}

// Whether doc follows person_schema (the test's own reading of it).
inline bool follows_person(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("name") || !j.contains("age")) return false;
    for (const auto& [k, v] : j.items()) {
        if (k == "name" && !v.is_string()) return false;
        if (k == "age" && !v.is_number_integer()) return false;
        if (k == "tags") {
            if (!v.is_array()) return false;
            for (const auto& t : v)
                if (t != "a" && t != "b" && t != "ab") return false;
        }
        if (k == "ok" && !v.is_boolean() && !v.is_null()) return false;
        if (k != "name" && k != "age" && k != "tags" && k != "ok" && k != "meta") return false;
    }
    return true;
}

}  // namespace hearth::test
