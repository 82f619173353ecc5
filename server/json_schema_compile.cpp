#include "json_schema_compile.h"

#include <nlohmann/json.hpp>

namespace hearth::server {

namespace {

using json = nlohmann::json;

struct Compiler {
    JsonSchema& out;
    const json& root;  // the document $ref points into
    std::string error;

    uint8_t type_bit(const std::string& t) {
        if (t == "object") return JsonSchema::kObject;
        if (t == "array") return JsonSchema::kArray;
        if (t == "string") return JsonSchema::kString;
        if (t == "number") return JsonSchema::kNumber;
        if (t == "integer") return JsonSchema::kInteger;
        if (t == "boolean") return JsonSchema::kBoolean;
        if (t == "null") return JsonSchema::kNull;
        return 0;
    }

    // The node for schema s (at path, for messages); kAny for an empty one. Sets error instead
    // when s cannot be expressed.
    uint16_t node(const json& s, const std::string& path, int depth) {
        if (!error.empty()) return JsonSchema::kAny;
        if (depth > 64) return fail(path, "nests too deeply");
        if (s.is_boolean() && s.get<bool>()) return JsonSchema::kAny;
        if (!s.is_object()) return fail(path, "must be an object");
        static const char* kAnnotations[] = {"title",    "description", "default",
                                             "examples", "$schema",     "$id",
                                             "$comment", "$defs",       "definitions"};
        const auto only_annotations_besides = [&](const char* keyword) {
            for (const auto& [key, value] : s.items()) {
                bool ok = key == keyword;
                for (const char* k : kAnnotations) ok = ok || key == k;
                if (!ok) {
                    fail(path, std::string("uses '") + key + "' beside '" + keyword +
                                   "', which JSON mode cannot enforce");
                    return false;
                }
            }
            return true;
        };
        // A reference into the document's definitions: compiled in place (a recursive one
        // ends at the depth limit).
        if (const auto r = s.find("$ref"); r != s.end()) {
            if (!only_annotations_besides("$ref")) return JsonSchema::kAny;
            if (!r->is_string() || r->get<std::string>().rfind("#/", 0) != 0)
                return fail(path + ".$ref", "must point into this schema ('#/$defs/...')");
            const std::string ref = r->get<std::string>();
            try {
                const json& target = root.at(json::json_pointer(ref.substr(1)));
                return node(target, ref, depth + 1);
            } catch (const json::exception&) {
                return fail(path + ".$ref", "points to nothing ('" + ref + "')");
            }
        }
        // anyOf / oneOf of branches of different types (Optional[X] is X or null): one node
        // with the union of their types, each type's constraints from its own branch.
        for (const char* keyword : {"anyOf", "oneOf"}) {
            const auto a = s.find(keyword);
            if (a == s.end()) continue;
            if (!only_annotations_besides(keyword)) return JsonSchema::kAny;
            if (!a->is_array() || a->empty())
                return fail(path + "." + keyword, "must be a non-empty list");
            if (out.nodes.size() >= JsonSchema::kAny - 1) return fail(path, "has too many parts");
            const auto id = static_cast<uint16_t>(out.nodes.size());
            out.nodes.emplace_back();
            JsonSchema::Node merged;
            for (size_t i = 0; i < a->size(); ++i) {
                const std::string at = path + "." + keyword + "[" + std::to_string(i) + "]";
                const uint16_t b = node((*a)[i], at, depth + 1);
                if (!error.empty()) return JsonSchema::kAny;
                if (b == JsonSchema::kAny) {  // a branch that allows anything
                    out.nodes.pop_back();
                    return JsonSchema::kAny;
                }
                const JsonSchema::Node branch = out.nodes[b];
                if (merged.types & branch.types)
                    return fail(at,
                                "shares a type with another branch (branches must differ "
                                "in type here)");
                merged.types |= branch.types;
                if (branch.types & JsonSchema::kObject) {
                    merged.keys = branch.keys;
                    merged.values = branch.values;
                    merged.required = branch.required;
                }
                if (branch.types & JsonSchema::kArray) merged.items = branch.items;
                if (branch.types & JsonSchema::kString) merged.strings = branch.strings;
            }
            out.nodes[id] = std::move(merged);
            return id;
        }
        static const char* kHandled[] = {"type",  "properties", "required", "additionalProperties",
                                         "items", "enum",       "const"};
        for (const auto& [key, value] : s.items()) {
            bool known = false;
            for (const char* k : kAnnotations) known = known || key == k;
            for (const char* k : kHandled) known = known || key == k;
            if (!known) return fail(path, "uses '" + key + "', which JSON mode cannot enforce");
        }
        bool constrained = false;
        for (const char* k : kHandled) constrained = constrained || s.contains(k);
        if (!constrained) return JsonSchema::kAny;
        if (out.nodes.size() >= JsonSchema::kAny - 1) return fail(path, "has too many parts");
        const auto id = static_cast<uint16_t>(out.nodes.size());
        out.nodes.emplace_back();
        JsonSchema::Node n;
        if (const auto t = s.find("type"); t != s.end()) {
            const json types = t->is_array() ? *t : json::array({*t});
            for (const auto& x : types) {
                const uint8_t bit = x.is_string() ? type_bit(x.get<std::string>()) : 0;
                if (!bit) return fail(path + ".type", "is not a JSON Schema type");
                n.types |= bit;
            }
        }
        // Strings: enum or const.
        std::vector<json> allowed;
        if (const auto e = s.find("enum"); e != s.end()) {
            if (!e->is_array() || e->empty()) return fail(path + ".enum", "must be a list");
            allowed.assign(e->begin(), e->end());
        }
        if (const auto c = s.find("const"); c != s.end()) allowed.push_back(*c);
        for (const json& v : allowed) {
            if (!v.is_string()) return fail(path + ".enum", "may only hold strings here");
            n.strings.push_back(v.get<std::string>());
        }
        if (!n.strings.empty() && !s.contains("type")) n.types |= JsonSchema::kString;
        if (const auto p = s.find("properties"); p != s.end()) {
            if (!p->is_object()) return fail(path + ".properties", "must be an object");
            if (!s.contains("type")) n.types |= JsonSchema::kObject;
            for (const auto& [key, value] : p->items()) {
                n.keys.push_back(key);
                n.values.push_back(node(value, path + ".properties." + key, depth + 1));
            }
        }
        if (const auto r = s.find("required"); r != s.end()) {
            if (!r->is_array()) return fail(path + ".required", "must be a list of names");
            for (const auto& name : *r) {
                size_t k = 0;
                while (k < n.keys.size() && !(name.is_string() && n.keys[k] == name)) ++k;
                if (k == n.keys.size())
                    return fail(path + ".required",
                                "names '" + name.dump() + "', which is not in 'properties'");
                if (k < 64) n.required |= uint64_t{1} << k;
            }
        }
        if (const auto it = s.find("items"); it != s.end()) {
            if (!s.contains("type")) n.types |= JsonSchema::kArray;
            n.items = node(*it, path + ".items", depth + 1);
        }
        if (s.contains("additionalProperties") && !s.contains("type"))
            n.types |= JsonSchema::kObject;
        if (n.types == 0) n.types = 0x7F;  // constraints on other types only: any type
        if (!error.empty()) return JsonSchema::kAny;
        out.nodes[id] = std::move(n);
        return id;
    }

    uint16_t fail(const std::string& path, const std::string& why) {
        if (error.empty()) error = "the schema at '" + path + "' " + why;
        return JsonSchema::kAny;
    }
};

}  // namespace

std::string compile_json_schema(const json& schema, JsonSchema& out) {
    out.nodes.clear();
    Compiler c{out, schema, {}};
    const uint16_t root = c.node(schema, "schema", 0);
    if (!c.error.empty()) return c.error;
    if (root == JsonSchema::kAny) {  // no constraints: any object
        out.nodes.assign(1, JsonSchema::Node{});
        out.nodes[0].types = JsonSchema::kObject;
    }
    if (std::string why = out.check(); !why.empty()) return why;
    return {};
}

}  // namespace hearth::server
