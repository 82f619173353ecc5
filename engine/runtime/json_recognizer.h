// A byte-at-a-time recognizer of one JSON object (RFC 8259), for constrained decoding: it
// says whether a prefix can still become a valid document and when the document is complete.
// With a JsonSchema it also holds the document to the schema (hearth/json_schema.h): each
// value's types, an object's keys (each at most once, the required ones before it closes), an
// array's items, a string's allowed values.
// Strings must be valid UTF-8 (no overlong forms, no encoded surrogates) and a \u escape of a
// high surrogate must be followed by one of a low surrogate, so every accepted document reads
// the same in strict parsers. Limits keep a model from running away inside a document that
// stays valid: the object starts at the first byte (no whitespace before it; small models
// otherwise fill their reply with newlines), nesting depth (kMaxDepth) and runs of whitespace
// (kMaxWhitespace bytes with at most one line break: CR, LF or CR LF).
//
// The state is a small trivially copyable value (the vocabulary walk copies it at every trie
// node) that compares by its bytes (masks are cached per state).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hearth/json_schema.h"

namespace hearth::runtime {

class JsonRecognizer {
public:
    static constexpr int kMaxDepth = 64;
    static constexpr int kMaxWhitespace = 32;

    // schema: null for any object; else it must pass JsonSchema::check() and outlive every
    // copy of this state.
    explicit JsonRecognizer(const JsonSchema* schema = nullptr) : schema_(schema) {}

    // Feeds one byte; false when no valid document starts with what was fed plus this byte
    // (the state is then unspecified: feed a copy when probing).
    bool feed(uint8_t c);
    bool feed(std::string_view bytes) {
        for (char c : bytes)
            if (!feed(static_cast<uint8_t>(c))) return false;
        return true;
    }
    // The top-level object is closed (only whitespace may follow).
    bool complete() const { return mode_ == Mode::Done; }
    int depth() const { return depth_; }
    const JsonSchema* schema() const { return schema_; }

    bool operator==(const JsonRecognizer&) const = default;
    // A hash of the whole state (mask caches).
    uint64_t hash() const;

private:
    enum class Mode : uint8_t {
        Start,         // before the top-level object (which comes first)
        ObjFirst,      // after '{': a key or '}'
        Key,           // after ',' in an object: a key
        Colon,         // after a key
        Value,         // after ':' or ',' in an array: a value
        ArrFirst,      // after '[': a value or ']'
        AfterValue,    // after a value: ',' or the container's closing bracket
        Done,          // the top-level object is closed
        String,        // inside a string (key_ says whether it is a key)
        Escape,        // after a backslash
        Hex,           // inside \uXXXX (hex_digits_ read so far, code_ their value)
        LowBackslash,  // after a high surrogate's escape: its low half must follow
        LowU,
        Utf8,       // inside a multi-byte character (utf8_left_ bytes to come)
        Minus,      // number: after '-'
        Zero,       // a leading 0
        Int,        // integer digits
        Dot,        // after '.'
        Frac,       // fraction digits
        Exp,        // after 'e' or 'E'
        ExpSign,    // after the exponent's sign
        ExpDigits,  // exponent digits
        Literal,    // inside true / false / null (literal_, literal_pos_)
    };

    bool value_start(uint8_t c);
    bool after_value(uint8_t c);
    bool whitespace(uint8_t c);
    bool open(bool object, uint16_t node);
    bool close();
    void value_done();
    bool top_is_object() const { return (objects_ >> (depth_ - 1)) & 1u; }
    // Schema mode: the node of the innermost container (kAny without a schema).
    uint16_t container() const { return schema_ ? node_[depth_ - 1] : JsonSchema::kAny; }
    const JsonSchema::Node* node(uint16_t id) const {
        return schema_ && id != JsonSchema::kAny ? &schema_->nodes[id] : nullptr;
    }
    // Keys of the innermost (constrained) object not written yet.
    uint64_t unseen_keys() const;
    // The list the string being read is matched against: the object's keys or the enum's values.
    const std::vector<std::string>& match_list() const {
        return key_ ? node(container())->keys : node(match_node_)->strings;
    }
    bool match_byte(uint8_t c);
    bool match_end();

    uint64_t objects_ = 0;  // bit d: the container at depth d + 1 is an object
    Mode mode_ = Mode::Start;
    uint8_t depth_ = 0;
    uint8_t ws_run_ = 0;
    uint8_t breaks_ = 0;  // line breaks in this run of whitespace: 1 LF, 2 CR
    bool key_ = false;    // String: the string is an object's key
    bool low_ = false;    // Hex: this escape must be a low surrogate
    uint8_t hex_digits_ = 0;
    uint8_t utf8_left_ = 0;
    uint8_t utf8_lo_ = 0x80;  // the next continuation byte's range
    uint8_t utf8_hi_ = 0xBF;
    uint8_t literal_ = 0;  // index into the literals
    uint8_t literal_pos_ = 0;
    uint16_t code_ = 0;

    // Schema mode.
    const JsonSchema* schema_ = nullptr;
    bool integer_ = false;   // the number being read is an integer
    bool matching_ = false;  // the string being read is one of a list (keys or enum values)
    uint16_t match_pos_ = 0;
    uint64_t match_ = 0;                         // the list's entries still matching
    uint16_t value_node_ = JsonSchema::kAny;     // the node of the value that comes next
    uint16_t match_node_ = JsonSchema::kAny;     // enum: the string's node
    uint16_t node_[JsonSchema::kMaxDepth] = {};  // each open container's node
    uint64_t seen_[JsonSchema::kMaxDepth] = {};  // each open object's keys written so far
};

}  // namespace hearth::runtime
