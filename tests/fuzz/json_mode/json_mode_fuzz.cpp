// JSON mode against nlohmann::json, on arbitrary bytes:
//  - a document the recognizer completes is one the parser reads as an object;
//  - an object the parser reads is one the recognizer completes, within the recognizer's
//    limits ('{' first, depth <= 64, whitespace runs of <= 32 bytes with one line break);
//  - every accepted prefix has a continuation (some byte is accepted unless it is complete),
//    so constrained decoding never finds no allowed token;
//  - the vocabulary trie offers exactly the pieces that feeding them byte by byte accepts
//    (pieces: the input cut at 0x01 bytes, from the state after the first piece).
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/json_recognizer.h"
#include "runtime/token_trie.h"

using hearth::runtime::JsonRecognizer;
using hearth::runtime::TokenTrie;

namespace {

int depth_of(const nlohmann::json& j) {
    int d = 0;
    if (j.is_object() || j.is_array())
        for (const auto& v : j) d = std::max(d, depth_of(v));
    return (j.is_object() || j.is_array()) ? d + 1 : 0;
}

// Whether every run of whitespace is within the recognizer's limits (its length, one LF and
// one CR), counted anywhere (inside strings too: a conservative test).
bool whitespace_within_limits(std::string_view s) {
    size_t run = 0, lf = 0, cr = 0;
    for (char c : s) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            ++run;
            lf += c == '\n';
            cr += c == '\r';
            if (run > size_t(JsonRecognizer::kMaxWhitespace) || lf > 1 || cr > 1) return false;
        } else {
            run = lf = cr = 0;
        }
    }
    return true;
}

// {"name": string, "n": integer, "tags": ["a" | "ab"], "opt": boolean | null, "any": *},
// name and n required.
const hearth::JsonSchema& fuzz_schema() {
    static const hearth::JsonSchema s = [] {
        hearth::JsonSchema t;
        t.nodes.resize(6);
        t.nodes[0].types = hearth::JsonSchema::kObject;
        t.nodes[0].keys = {"name", "n", "tags", "opt", "any"};
        t.nodes[0].values = {1, 2, 3, 5, hearth::JsonSchema::kAny};
        t.nodes[0].required = 0b11;
        t.nodes[1].types = hearth::JsonSchema::kString;
        t.nodes[2].types = hearth::JsonSchema::kInteger;
        t.nodes[3].types = hearth::JsonSchema::kArray;
        t.nodes[3].items = 4;
        t.nodes[4].types = hearth::JsonSchema::kString;
        t.nodes[4].strings = {"a", "ab"};
        t.nodes[5].types = hearth::JsonSchema::kBoolean | hearth::JsonSchema::kNull;
        return t;
    }();
    return s;
}

bool follows_fuzz_schema(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("name") || !j.contains("n")) return false;
    for (const auto& [k, v] : j.items()) {
        if (k == "name" && !v.is_string()) return false;
        if (k == "n" && !v.is_number_integer()) return false;
        if (k == "tags") {
            if (!v.is_array()) return false;
            for (const auto& t : v)
                if (t != "a" && t != "ab") return false;
        }
        if (k == "opt" && !v.is_boolean() && !v.is_null()) return false;
        if (k != "name" && k != "n" && k != "tags" && k != "opt" && k != "any") return false;
    }
    return true;
}

void check(bool ok, const char* what) {
    if (!ok) {
        fprintf(stderr, "json_mode_fuzz: %s\n", what);
        abort();
    }
}

// Feeds r the longest prefix of data it accepts; returns its length. There, unless the object
// is complete, some byte must be accepted (liveness).
size_t feed_longest_prefix(JsonRecognizer& r, const uint8_t* data, size_t size,
                           const char* dead_end) {
    size_t fed = 0;
    while (fed < size) {
        JsonRecognizer next = r;
        if (!next.feed(data[fed])) break;
        r = next;
        ++fed;
    }
    if (!r.complete()) {
        bool any = false;
        for (int c = 0; c < 256 && !any; ++c) {
            JsonRecognizer probe = r;
            any = probe.feed(uint8_t(c));
        }
        check(any, dead_end);
    }
    return fed;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);

    JsonRecognizer r;
    const size_t fed =
        feed_longest_prefix(r, data, size, "an accepted prefix with no continuation");
    const bool whole = fed == size && r.complete();
    bool parsed_object = false;
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
        parsed_object = doc.is_object();
    } catch (const nlohmann::json::out_of_range&) {
        // a number past a double's range: valid syntax the parser will not convert
        parsed_object = whole;
    } catch (const nlohmann::json::exception&) {
    }
    if (whole) check(parsed_object, "the recognizer completed what the parser refuses");
    // (nlohmann's parser ends its input at a NUL byte: "{}\0x" reads as {}.)
    if (parsed_object && !whole && size > 0 && data[0] == '{' && depth_of(doc) <= 64 &&
        text.find('\0') == std::string_view::npos && whitespace_within_limits(text))
        check(false, "the parser read an object the recognizer refused");

    // The same bytes under a schema: never a dead end, and a completed document follows it.
    JsonRecognizer sr(&fuzz_schema());
    const size_t sfed = feed_longest_prefix(
        sr, data, size, "an accepted prefix with no continuation under the schema");
    if (sfed == size && sr.complete()) {
        try {
            check(follows_fuzz_schema(nlohmann::json::parse(text)),
                  "the recognizer completed a document that breaks the schema");
        } catch (const nlohmann::json::out_of_range&) {
        } catch (const nlohmann::json::exception&) {
            check(false, "the recognizer completed what the parser refuses (schema)");
        }
    }

    // The trie against feeding each piece.
    std::vector<std::string> pieces;
    size_t start = 0;
    for (size_t i = 0; i <= size && pieces.size() < 64; ++i)
        if (i == size || data[i] == 0x01) {
            pieces.emplace_back(text.substr(start, i - start));
            start = i + 1;
        }
    // From the plain state after the first piece, or the schema's when the input says so.
    JsonRecognizer from(size > 0 && (data[size - 1] & 1) ? &fuzz_schema() : nullptr);
    if (!from.feed(pieces[0])) return 0;
    const TokenTrie trie(pieces);
    std::vector<char> walked(pieces.size(), 0);
    trie.walk(from, [&](int32_t id) { walked[size_t(id)] = 1; });
    for (size_t id = 0; id < pieces.size(); ++id) {
        JsonRecognizer x = from;
        const bool want = !pieces[id].empty() && x.feed(pieces[id]);
        check(bool(walked[id]) == want, "the trie and the recognizer disagree on a piece");
    }
    return 0;
}
