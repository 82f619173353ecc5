// JSON mode against nlohmann::json, on arbitrary bytes:
//  - a document the recognizer completes is one the parser reads as an object;
//  - an object the parser reads is one the recognizer completes, within the recognizer's
//    limits ('{' first, depth <= 64, whitespace runs <= 32 bytes);
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

size_t longest_whitespace_run(std::string_view s) {
    size_t best = 0, run = 0;
    for (char c : s) {
        run = (c == ' ' || c == '\t' || c == '\n' || c == '\r') ? run + 1 : 0;
        best = std::max(best, run);
    }
    return best;
}

void check(bool ok, const char* what) {
    if (!ok) {
        fprintf(stderr, "json_mode_fuzz: %s\n", what);
        abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);

    JsonRecognizer r;
    size_t fed = 0;
    while (fed < size) {
        JsonRecognizer next = r;
        if (!next.feed(data[fed])) break;
        r = next;
        ++fed;
    }
    // Liveness at the longest accepted prefix.
    if (!r.complete()) {
        bool any = false;
        for (int c = 0; c < 256 && !any; ++c) {
            JsonRecognizer probe = r;
            any = probe.feed(uint8_t(c));
        }
        check(any, "an accepted prefix with no continuation");
    }
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
        text.find('\0') == std::string_view::npos &&
        longest_whitespace_run(text) <= size_t(JsonRecognizer::kMaxWhitespace))
        check(false, "the parser read an object the recognizer refused");

    // The trie against feeding each piece.
    std::vector<std::string> pieces;
    size_t start = 0;
    for (size_t i = 0; i <= size && pieces.size() < 64; ++i)
        if (i == size || data[i] == 0x01) {
            pieces.emplace_back(text.substr(start, i - start));
            start = i + 1;
        }
    JsonRecognizer from;
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
