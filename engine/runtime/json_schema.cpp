#include "hearth/json_schema.h"

#include <functional>

#include "runtime/json_recognizer.h"

namespace hearth {

namespace {

// Written raw inside quotes, the text is a valid JSON string without escapes.
bool plain_string(const std::string& s) {
    for (char c : s)
        if (c == '"' || c == '\\' || static_cast<uint8_t>(c) < 0x20) return false;
    runtime::JsonRecognizer r;
    return r.feed("{\"") && r.feed(s) && r.feed("\"");  // valid UTF-8
}

}  // namespace

std::string JsonSchema::check() const {
    if (nodes.empty() || !(nodes[0].types & kObject)) return "the schema's root must be an object";
    if (nodes.size() >= kAny) return "the schema has too many nodes";
    for (size_t i = 0; i < nodes.size(); ++i) {
        const Node& n = nodes[i];
        const std::string at = "schema node " + std::to_string(i) + ": ";
        if (n.types == 0 || n.types > 0x7F) return at + "no type allowed";
        if (n.keys.size() != n.values.size()) return at + "keys and values differ in number";
        if (n.keys.size() > kMaxKeys) return at + "more than 64 properties";
        if (n.strings.size() > kMaxKeys) return at + "more than 64 enum values";
        if (n.keys.size() < 64 && (n.required >> n.keys.size()) != 0)
            return at + "a required key that is not a property";
        for (size_t k = 0; k < n.keys.size(); ++k) {
            if (!plain_string(n.keys[k]))
                return at + "property '" + n.keys[k] +
                       "' holds a quote, backslash, control character or invalid UTF-8";
            for (size_t j = 0; j < k; ++j)
                if (n.keys[j] == n.keys[k]) return at + "property '" + n.keys[k] + "' twice";
            if (n.values[k] != kAny && n.values[k] >= nodes.size())
                return at + "a property's node is out of range";
        }
        for (const std::string& s : n.strings)
            if (!plain_string(s))
                return at + "enum value '" + s +
                       "' holds a quote, backslash, control character or invalid UTF-8";
        if (!n.strings.empty() && !(n.types & kString))
            return at + "enum values on a node that is not a string";
        if (n.items != kAny && n.items >= nodes.size())
            return at + "the items' node is out of range";
    }
    // Every value the reply may start must be writable within kMaxDepth containers: a node
    // that can only be a container, reached deeper than that, would leave the reply no way on
    // (a cycle counts as endless depth). Checked once per node and depth.
    std::vector<uint8_t> done(nodes.size() * (kMaxDepth + 1), 0);
    std::function<bool(uint16_t, int)> fits = [&](uint16_t id, int depth) {
        if (id == kAny) return true;
        const Node& n = nodes[id];
        if (depth >= kMaxDepth) return (n.types & ~(kObject | kArray)) != 0;
        uint8_t& seen = done[size_t(id) * (kMaxDepth + 1) + size_t(depth)];
        if (seen) return true;
        seen = 1;
        if (n.types & kObject)
            for (uint16_t v : n.values)
                if (!fits(v, depth + 1)) return false;
        if ((n.types & kArray) && !fits(n.items, depth + 1)) return false;
        return true;
    };
    if (!fits(0, 0)) return "the schema nests containers deeper than 16 levels";
    return {};
}

}  // namespace hearth
