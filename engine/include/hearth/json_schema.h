// The subset of JSON Schema that constrained decoding follows (OutputFormat::JsonSchema), as a
// table of nodes. Whoever reads a schema document builds it (the API server does, from OpenAI's
// response_format json_schema) and refuses what it cannot express; the engine only walks it.
//
// A node allows one or more types. An object lists its properties (the reply writes each at
// most once, in any order, every required one, and no other); an array has one schema for its
// items; a string may be limited to a list of values. A node without constraints (kAny)
// allows any JSON value, nested as deep as the document's limit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hearth {

struct JsonSchema {
    enum Type : uint8_t {
        kObject = 1,
        kArray = 2,
        kString = 4,
        kNumber = 8,    // any number
        kInteger = 16,  // digits only (no fraction or exponent)
        kBoolean = 32,
        kNull = 64,
    };
    static constexpr uint16_t kAny = 0xFFFF;  // a node id: any JSON value
    static constexpr size_t kMaxKeys = 64;    // properties of one object, values of one enum
    static constexpr int kMaxDepth = 16;      // containers nested in a constrained reply

    struct Node {
        uint8_t types = 0;
        std::vector<std::string> keys;     // kObject: property names (raw UTF-8, no escapes)
        std::vector<uint16_t> values;      // their nodes
        uint64_t required = 0;             // bit i: keys[i] is required
        uint16_t items = kAny;             // kArray: the items' node
        std::vector<std::string> strings;  // kString: the values allowed (empty: any string)
    };
    std::vector<Node> nodes;  // nodes[0]: the document, an object

    // Why this table cannot drive decoding (empty when it can): a root that is not an object,
    // a node without types, a node id out of range, more than kMaxKeys keys or values, a name
    // or value holding '"', '\\', a control character or invalid UTF-8, a required bit past
    // the keys, a duplicate key.
    std::string check() const;
};

}  // namespace hearth
