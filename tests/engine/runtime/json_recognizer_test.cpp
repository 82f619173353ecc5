// JSON mode's byte recognizer against nlohmann::json (documents it must accept and refuse,
// random walks that never reach a dead end and end in documents the parser accepts), with and
// without a schema, and the vocabulary trie's masks against feeding every token's bytes one by
// one on real vocabularies.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"
#include "hearth/json_schema.h"
#include "json_test_schemas.h"
#include "runtime/json_mask.h"
#include "runtime/json_recognizer.h"
#include "runtime/token_trie.h"
#include "test_data.h"
#include "tokenizer/tokenizer.h"

namespace hearth {
namespace {

using runtime::JsonRecognizer;
using runtime::JsonTokenMask;
using runtime::TokenTrie;
using test::follows_person;
using test::person_schema;

// Whether the whole text is accepted, and whether it ends a document.
struct Fed {
    bool accepted;
    bool complete;
};
Fed feed_all(std::string_view text) {
    JsonRecognizer r;
    const bool ok = r.feed(text);
    return {ok, ok && r.complete()};
}

TEST(JsonRecognizer, AcceptsObjects) {
    for (const char* doc : {
             "{}", "{ \n\t} ", R"({"a":1})",
             R"({"a": -0.5e+10, "b": [1, 2.25, -3E-2, 0], "c": {"d": null}})",
             R"({"t": true, "f": false, "n": null, "e": [], "o": {}})",
             R"({"s": "esc \" \\ \/ \b \f \n \r \t \u00e9 \uD83D\uDE00 end"})",
             "{\"utf8\": \"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xEF\xBF\xBF\"}",
             R"({"nested": [[[{"x": [{}]}]]]})",
             R"({"k": 0, "k": 1})",  // duplicate keys are valid JSON
         }) {
        const Fed f = feed_all(doc);
        EXPECT_TRUE(f.accepted && f.complete) << doc;
        EXPECT_TRUE(nlohmann::json::accept(doc)) << doc;  // the reference agrees
    }
}

TEST(JsonRecognizer, RefusesWhatIsNotAnObject) {
    // Refused at some byte (not merely unfinished).
    for (const char* doc : {
             "[]",
             "1",
             "\"s\"",
             "null",
             " {}",
             "\n{}",
             "{]",
             "{\"a\"}",
             "{\"a\":}",
             "{\"a\":1,}",
             "{,}",
             "{\"a\":[1,]}",
             "{\"a\":01}",
             "{\"a\":-}",
             "{\"a\":1.}",
             "{\"a\":1.e5}",
             "{\"a\":1e}",
             "{\"a\":+1}",
             "{\"a\":.5}",
             "{\"a\":tru}",
             "{\"a\":nul1}",
             "{\"a\":True}",
             "{a:1}",
             "{'a':1}",
             "{\"a\":1}}",
             "{} {}",
             "{\"a\":1]",
             "{\"a\":[1}",
             "{\"\\x\":1}",
             "{\"\\u12G4\":1}",
             "{\"a\":\"\\uDE00\"}",           // a lone low surrogate
             "{\"a\":\"\\uD83D\"}",           // a high surrogate alone
             "{\"a\":\"\\uD83Dx\"}",          // ... followed by something else
             "{\"a\":\"\\uD83D\\u0041\"}",    // ... followed by a non-surrogate escape
             "{\"a\":\"\\uD83D\\uD83D\"}",    // ... by another high surrogate
             "{\"a\":\"tab\tin\"}",           // control characters must be escaped
             "{\"a\":\"\xC0\x80\"}",          // overlong
             "{\"a\":\"\xE0\x80\xAF\"}",      // overlong
             "{\"a\":\"\xED\xA0\x80\"}",      // an encoded surrogate
             "{\"a\":\"\xF4\x90\x80\x80\"}",  // past U+10FFFF
             "{\"a\":\"\xF5\x80\x80\x80\"}",
             "{\"a\":\"\x80\"}",
             "{\"a\":\"\xC3\x28\"}",
         }) {
        const Fed f = feed_all(doc);
        EXPECT_FALSE(f.accepted) << doc;
        const std::string_view d = doc;
        // JSON but not an object, or an object after whitespace (valid, refused by design).
        if (d != "[]" && d != "1" && d != "\"s\"" && d != "null" && d != " {}" && d != "\n{}") {
            EXPECT_FALSE(nlohmann::json::accept(doc)) << doc;
        }
    }
    // Unfinished: accepted so far, not complete.
    for (const char* doc : {"{", "{\"a", "{\"a\":", "{\"a\":1", "{\"a\":[", "{\"a\":\"\\u00",
                            "{\"a\":\"\xE2\x82", "{\"a\":t"}) {
        const Fed f = feed_all(doc);
        EXPECT_TRUE(f.accepted && !f.complete) << doc;
    }
}

TEST(JsonRecognizer, LimitsDepthAndWhitespace) {
    std::string deep = "{\"a\":";
    for (int i = 1; i < JsonRecognizer::kMaxDepth; ++i) deep += "[";
    EXPECT_TRUE(feed_all(deep).accepted);
    EXPECT_TRUE(feed_all(deep + "1").accepted);
    EXPECT_FALSE(feed_all(deep + "[").accepted);
    EXPECT_FALSE(feed_all(deep + "{").accepted);

    const std::string ws(JsonRecognizer::kMaxWhitespace, ' ');
    EXPECT_TRUE(feed_all("{" + ws + "}").complete);
    EXPECT_FALSE(feed_all("{" + ws + " }").accepted);
    EXPECT_TRUE(feed_all("{\"a\":1" + ws + ",\"b\":" + ws + "2}").complete);  // runs restart
    // Inside strings spaces are text, not whitespace between tokens.
    EXPECT_TRUE(feed_all("{\"a\":\"" + ws + ws + "\"}").complete);
    // One line break a run: indentation passes, empty lines do not.
    EXPECT_TRUE(feed_all("{\r\n  \"a\": [\n    1\n  ]\n}").complete);
    EXPECT_FALSE(feed_all("{\n\n}").accepted);
    EXPECT_FALSE(feed_all("{ \n \n}").accepted);
    EXPECT_FALSE(feed_all("{\r\r}").accepted);
    EXPECT_TRUE(feed_all("{\"a\":1,\n\"b\":\n2}").complete);  // one a run
    // After the object only whitespace may follow.
    EXPECT_TRUE(feed_all("{}" + ws).accepted);
    EXPECT_FALSE(feed_all("{} x").accepted);
}

// A random walk over the bytes a recognizer accepts (now and then a structural byte, `prefer`
// in turn 1 time in `odds`, so walks close their containers): fails the test at a state that
// accepts no byte before the object is complete (a constrained reply could not go on). Returns
// the document when it completed within max_steps bytes.
std::optional<std::string> random_walk(JsonRecognizer r, std::mt19937& rng, int max_steps,
                                       std::string_view prefer, unsigned odds) {
    std::string doc;
    for (int step = 0; step < max_steps && !r.complete(); ++step) {
        std::vector<uint8_t> ok;
        for (int c = 0; c < 256; ++c) {
            JsonRecognizer probe = r;
            if (probe.feed(uint8_t(c))) ok.push_back(uint8_t(c));
        }
        if (ok.empty()) {
            ADD_FAILURE() << "dead end after: " << doc;
            return std::nullopt;
        }
        uint8_t pick = ok[rng() % ok.size()];
        for (char c : prefer)
            if (std::find(ok.begin(), ok.end(), uint8_t(c)) != ok.end() && rng() % odds == 0)
                pick = uint8_t(c);
        EXPECT_TRUE(r.feed(pick));
        doc += char(pick);
    }
    if (!r.complete()) return std::nullopt;
    return doc;
}

// The parsed document, or null for a number past a double's range (1e999: valid JSON that
// nlohmann will not convert; the syntax is what the recognizer checks).
nlohmann::json parse_walk(const std::string& doc) {
    try {
        return nlohmann::json::parse(doc);
    } catch (const nlohmann::json::out_of_range&) {
        return nullptr;
    } catch (const std::exception& e) {
        ADD_FAILURE() << e.what() << "\n" << doc;
        return nullptr;
    }
}

// Random walks never dead-end, and every finished one is a document nlohmann parses as an
// object.
TEST(JsonRecognizer, RandomWalksNeverDeadEndAndParse) {
    std::mt19937 rng(7);
    int completed = 0;
    for (int walk = 0; walk < 3000; ++walk) {
        const auto doc = random_walk(JsonRecognizer{}, rng, 400, "}]\"", 4);
        if (!doc) continue;
        ++completed;
        const nlohmann::json j = parse_walk(*doc);
        if (!j.is_null()) {
            EXPECT_TRUE(j.is_object()) << *doc;
        }
    }
    EXPECT_GT(completed, 1000);
}

TEST(JsonRecognizer, EqualStatesHashEqual) {
    JsonRecognizer a, b;
    ASSERT_TRUE(a.feed(R"({"x": "ab)"));
    ASSERT_TRUE(b.feed(R"({"y": "c)"));
    EXPECT_TRUE(a == b);
    EXPECT_EQ(a.hash(), b.hash());
    ASSERT_TRUE(b.feed("\\"));
    EXPECT_FALSE(a == b);
}

TEST(TokenTrie, WalkFindsExactlyTheAcceptedPieces) {
    // Shared prefixes, a repeated piece, empty pieces (never offered) and a piece that is a
    // prefix of others.
    const std::vector<std::string> pieces = {"{",   "{\"", "",   "\"a", "\"ab", "}",
                                             "{\"", "a",   " {", "{}",  "\"",   "x{"};
    TokenTrie trie(pieces);
    EXPECT_EQ(trie.n_vocab(), pieces.size());
    EXPECT_EQ(trie.max_depth(), 3u);
    for (const char* prefix : {"", "{", "{\"", "{\"a\":1", "{\"a\":\""}) {
        JsonRecognizer start;
        ASSERT_TRUE(start.feed(prefix));
        std::vector<int32_t> walked;
        trie.walk(start, [&](int32_t id) { walked.push_back(id); });
        std::sort(walked.begin(), walked.end());
        std::vector<int32_t> brute;
        for (size_t id = 0; id < pieces.size(); ++id) {
            JsonRecognizer r = start;
            if (!pieces[id].empty() && r.feed(pieces[id])) brute.push_back(int32_t(id));
        }
        EXPECT_EQ(walked, brute) << "after '" << prefix << "'";
    }
}

// Checks mask.allowed(state) against feeding every text token's bytes to a copy of state
// (`where` names the state in failures); returns how many tokens are allowed.
size_t expect_mask_is_feeding(JsonTokenMask& mask, const tokenizer::Tokenizer& tok,
                              const JsonRecognizer& state, const std::string& where) {
    const auto bits = mask.allowed(state);
    size_t n_allowed = 0;
    for (int32_t id = 0; id < tok.n_vocab(); ++id) {
        JsonRecognizer r = state;
        const bool text = !tok.is_special(id) && !tok.is_end_of_generation(id);
        const std::string piece = tok.token_to_piece(id);
        const bool want = text && !piece.empty() && r.feed(piece);
        const bool got = (bits[size_t(id) / 64] >> (id % 64)) & 1u;
        EXPECT_EQ(got, want) << "token " << id << " '" << piece << "' after '" << where << "'";
        if (got != want) return n_allowed;  // one report, not thousands
        n_allowed += got;
    }
    return n_allowed;
}

// The masks on real vocabularies (byte-level BPE and SentencePiece with byte fallback) equal
// feeding each token's bytes, from states along a document.
class JsonMaskVocab : public ::testing::TestWithParam<std::string> {};

TEST_P(JsonMaskVocab, MaskIsFeedingEachToken) {
    HEARTH_REQUIRE_SHARED(path, "testdata/vocab/ggml-vocab-" + GetParam() + ".gguf");
    auto file = gguf::GgufFile::open(path);
    ASSERT_TRUE(file.is_ok()) << file.error_message();
    auto tok = tokenizer::Tokenizer::from_gguf(**file);
    ASSERT_TRUE(tok.is_ok()) << tok.error_message();
    JsonTokenMask mask = JsonTokenMask::for_tokenizer(**tok);
    ASSERT_EQ(mask.n_vocab(), size_t((*tok)->n_vocab()));
    const std::string doc =
        "{\"name\": \"Zo\xC3\xAB \\u00e9\\uD83D\\uDE00\", \"n\": [1, -2.5e3, true], \"o\": {}}";
    std::vector<float> logits(mask.n_vocab());
    size_t checked = 0;
    for (size_t cut = 0; cut < doc.size(); cut += 3) {
        JsonRecognizer state;
        ASSERT_TRUE(state.feed(std::string_view(doc).substr(0, cut)));
        const size_t n_allowed = expect_mask_is_feeding(mask, **tok, state, doc.substr(0, cut));
        ASSERT_FALSE(HasFailure());
        EXPECT_GT(n_allowed, 0u) << "after '" << doc.substr(0, cut) << "'";
        const auto bits = mask.allowed(state);
        // apply() leaves allowed logits alone and bans the rest.
        std::fill(logits.begin(), logits.end(), 1.0f);
        ASSERT_TRUE(mask.apply(state, logits));
        for (size_t id = 0; id < logits.size(); ++id)
            ASSERT_EQ(logits[id] == 1.0f, bool((bits[id / 64] >> (id % 64)) & 1u)) << id;
        ++checked;
    }
    EXPECT_GT(checked, 20u);
    EXPECT_GT(mask.cache_size(), 0u);
    // Inside a string every text token without a quote, backslash or control byte is allowed.
    JsonRecognizer in_string;
    ASSERT_TRUE(in_string.feed("{\"k\": \"v"));
    const int32_t word = (*tok)->encode_user("hello")[0];
    EXPECT_TRUE((mask.allowed(in_string)[size_t(word) / 64] >> (word % 64)) & 1u);
    // Never an end of generation.
    JsonRecognizer done;
    ASSERT_TRUE(done.feed("{}"));
    const int32_t eos = (*tok)->eos_id();
    if (eos >= 0) {
        EXPECT_FALSE((mask.allowed(done)[size_t(eos) / 64] >> (eos % 64)) & 1u);
    }
}

INSTANTIATE_TEST_SUITE_P(Vocabularies, JsonMaskVocab,
                         ::testing::Values("qwen2", "llama-spm", "gpt-2", "phi-3"));

Fed feed_schema(const JsonSchema& schema, std::string_view text) {
    JsonRecognizer r(&schema);
    const bool ok = r.feed(text);
    return {ok, ok && r.complete()};
}

TEST(JsonSchemaRecognizer, FollowsTheSchema) {
    const JsonSchema schema = person_schema();
    ASSERT_EQ(schema.check(), "");
    for (
        const char* doc : {
            R"({"name": "x", "age": 3})",
            R"({"age": -12, "name": "Zo\u00eb", "tags": ["a", "ab", "b"], "ok": null, "meta": {"q": [1, {"z": 2.5}]}})",
            R"({"name":"","age":0,"ok":true,"tags":[],"meta":"anything"})",
        }) {
        const Fed f = feed_schema(schema, doc);
        EXPECT_TRUE(f.accepted && f.complete) << doc;
        EXPECT_TRUE(follows_person(nlohmann::json::parse(doc))) << doc;
    }
    for (const char* doc : {
             R"({"name": "x"})",         // age is required: '}' refused
             R"({"age": "3")",           // a string for an integer
             R"({"age": 1.5)",           // a fraction for an integer
             R"({"age": 1e3)",           // an exponent for an integer
             R"({"nama")",               // not a property
             R"({"name": "a", "name")",  // a key written twice
             R"({"tags": ["c"])",        // not one of the enum's values
             R"({"tags": ["abc"])",
             R"({"na\u006de")",  // keys are matched without escapes
             R"({"ok": 1)",      // boolean or null
             R"({"name": 5)", R"([)",
             R"({"name":"x","age":1,"tags":[],"ok":true,"meta":{},)",  // no key left
         }) {
        EXPECT_FALSE(feed_schema(schema, doc).accepted) << doc;
    }
    // Without the schema the same refusals are plain JSON.
    EXPECT_TRUE(feed_all(R"({"name": "x"})").complete);
    // Unfinished but on track.
    EXPECT_TRUE(feed_schema(schema, R"({"tags": ["a)").accepted);
    EXPECT_TRUE(feed_schema(schema, R"({"age": 12, "na)").accepted);
}

TEST(JsonSchemaRecognizer, RandomWalksFollowTheSchema) {
    const JsonSchema schema = person_schema();
    std::mt19937 rng(11);
    int completed = 0;
    for (int walk = 0; walk < 2000; ++walk) {
        const auto doc = random_walk(JsonRecognizer(&schema), rng, 300, "}]\",", 3);
        if (!doc) continue;
        ++completed;
        const nlohmann::json j = parse_walk(*doc);
        if (!j.is_null()) {
            EXPECT_TRUE(follows_person(j)) << *doc;
        }
    }
    EXPECT_GT(completed, 500);
}

TEST(JsonSchemaRecognizer, CheckRefusesWhatDecodingCannotFollow) {
    JsonSchema s = person_schema();
    EXPECT_EQ(s.check(), "");
    JsonSchema root_string = s;
    root_string.nodes[0].types = JsonSchema::kString;
    EXPECT_NE(root_string.check(), "");
    JsonSchema dup = s;
    dup.nodes[0].keys[1] = "name";
    EXPECT_NE(dup.check(), "");
    JsonSchema quote = s;
    quote.nodes[5].strings.push_back("say \"hi\"");
    EXPECT_NE(quote.check(), "");
    JsonSchema req = s;
    req.nodes[0].required |= uint64_t{1} << 7;
    EXPECT_NE(req.check(), "");
    JsonSchema range = s;
    range.nodes[3].items = 99;
    EXPECT_NE(range.check(), "");
    // Objects nested 17 deep (each the only, optional, property of the one above).
    JsonSchema deep;
    for (int i = 0; i < 17; ++i) {
        JsonSchema::Node n;
        n.types = JsonSchema::kObject;
        if (i < 16) {
            n.keys = {"x"};
            n.values = {uint16_t(i + 1)};
        }
        deep.nodes.push_back(n);
    }
    EXPECT_NE(deep.check(), "");
    deep.nodes.pop_back();
    deep.nodes.back().keys.clear();
    deep.nodes.back().values.clear();
    EXPECT_EQ(deep.check(), "");  // 16 levels fit
    // A node that refers to itself: endless depth.
    JsonSchema cycle;
    cycle.nodes.resize(1);
    cycle.nodes[0].types = JsonSchema::kObject;
    cycle.nodes[0].keys = {"self"};
    cycle.nodes[0].values = {0};
    EXPECT_NE(cycle.check(), "");
}

TEST(JsonSchemaRecognizer, MasksUnderASchemaAreFeedingEachToken) {
    HEARTH_REQUIRE_SHARED(path, "testdata/vocab/ggml-vocab-qwen2.gguf");
    auto file = gguf::GgufFile::open(path);
    ASSERT_TRUE(file.is_ok());
    auto tok = tokenizer::Tokenizer::from_gguf(**file);
    ASSERT_TRUE(tok.is_ok());
    JsonTokenMask mask = JsonTokenMask::for_tokenizer(**tok);
    const auto schema = std::make_unique<JsonSchema>(person_schema());
    const std::string doc = R"({"tags": ["ab", "a"], "age": 41, "name": "Zo\u00eb", "ok": false})";
    for (size_t cut = 0; cut < doc.size(); cut += 2) {
        JsonRecognizer state(schema.get());
        ASSERT_TRUE(state.feed(std::string_view(doc).substr(0, cut))) << doc.substr(0, cut);
        const size_t n_allowed = expect_mask_is_feeding(mask, **tok, state, doc.substr(0, cut));
        ASSERT_FALSE(HasFailure());
        EXPECT_GT(n_allowed, 0u) << doc.substr(0, cut);
    }
    // Masks cached for a schema go when it is forgotten (its memory may hold another later).
    const size_t before = mask.cache_size();
    mask.forget(schema.get());
    EXPECT_LT(mask.cache_size(), before);
    for (int i = 0; i < 3; ++i) mask.allowed(JsonRecognizer{});
    mask.forget(schema.get());
    EXPECT_EQ(mask.cache_size(), 1u);  // the plain state's mask stays
}

}  // namespace
}  // namespace hearth
