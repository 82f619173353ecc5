// JSON-constrained decoding: the byte recognizer against nlohmann::json (documents it must
// accept and refuse, random walks that never reach a dead end and end in documents the parser
// accepts), the vocabulary trie's masks against feeding every token's bytes one by one on real
// vocabularies, and the scheduler's JsonObject requests on stories260K (every reply a valid
// object or its unfinished start, the same tokens alone and batched, a reply_prefix, refusals).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"
#include "hearth/json_schema.h"
#include "hearth/scheduler.h"
#include "runtime/json_mask.h"
#include "runtime/json_recognizer.h"
#include "runtime/token_trie.h"
#include "stories_scheduler_test.h"
#include "test_data.h"
#include "tokenizer/tokenizer.h"

namespace hearth {
namespace {

using runtime::JsonRecognizer;
using runtime::JsonTokenMask;
using runtime::TokenTrie;

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
        const auto bits = mask.allowed(state);
        size_t n_allowed = 0;
        for (int32_t id = 0; id < (*tok)->n_vocab(); ++id) {
            JsonRecognizer r = state;
            const bool text = !(*tok)->is_special(id) && !(*tok)->is_end_of_generation(id);
            const std::string piece = (*tok)->token_to_piece(id);
            const bool want = text && !piece.empty() && r.feed(piece);
            const bool got = (bits[size_t(id) / 64] >> (id % 64)) & 1u;
            ASSERT_EQ(got, want) << "token " << id << " '" << piece << "' after '"
                                 << doc.substr(0, cut) << "'";
            n_allowed += got;
        }
        EXPECT_GT(n_allowed, 0u) << "after '" << doc.substr(0, cut) << "'";
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

// A schema as the API server would compile it: {"name": string, "age": integer, "tags": array
// of "a" | "b" | "ab", "ok": boolean or null, "meta": anything}, name and age required.
JsonSchema person_schema() {
    JsonSchema s;
    s.nodes.resize(5);
    s.nodes[0].types = JsonSchema::kObject;
    s.nodes[0].keys = {"name", "age", "tags", "ok", "meta"};
    s.nodes[0].values = {1, 2, 3, 4, JsonSchema::kAny};
    s.nodes[0].required = 0b11;
    s.nodes[1].types = JsonSchema::kString;
    s.nodes[2].types = JsonSchema::kInteger;
    s.nodes[3].types = JsonSchema::kArray;
    s.nodes[3].items = 4 + 0;  // replaced below
    s.nodes[4].types = JsonSchema::kBoolean | JsonSchema::kNull;
    s.nodes.push_back({});
    s.nodes[5].types = JsonSchema::kString;
    s.nodes[5].strings = {"a", "b", "ab"};
    s.nodes[3].items = 5;
    return s;
}

// {"ok": boolean}, required: a reply has one way through.
std::shared_ptr<JsonSchema> ok_schema() {
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
bool follows_person(const nlohmann::json& j) {
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
        const auto bits = mask.allowed(state);
        size_t n_allowed = 0;
        for (int32_t id = 0; id < (*tok)->n_vocab(); ++id) {
            JsonRecognizer r = state;
            const bool text = !(*tok)->is_special(id) && !(*tok)->is_end_of_generation(id);
            const std::string piece = (*tok)->token_to_piece(id);
            const bool want = text && !piece.empty() && r.feed(piece);
            ASSERT_EQ(bool((bits[size_t(id) / 64] >> (id % 64)) & 1u), want)
                << "token " << id << " '" << piece << "' after '" << doc.substr(0, cut) << "'";
            n_allowed += want;
        }
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

// Scheduler requests with OutputFormat::JsonObject on stories260K.
struct Reply {
    std::vector<int32_t> tokens;
    std::string text;
    bool done = false;
    StopReason reason = StopReason::MaxTokens;
    std::string error;
};

class JsonSchedulerTest : public test::StoriesSchedulerTest {
protected:
    GenerationRequest json_request(uint32_t salt, int32_t max_tokens, Reply& out) const {
        GenerationRequest r;
        r.prompt = prompt(24, salt);
        r.max_tokens = max_tokens;
        r.sampling.temperature = 0.f;
        r.format = OutputFormat::JsonObject;
        r.on_event = [&out](const StreamEvent& e) {
            if (e.token >= 0) out.tokens.push_back(e.token);
            out.text += e.text;
            if (e.done) {
                out.done = true;
                out.reason = e.reason;
                out.error = e.error;
            }
        };
        return r;
    }
    // The token whose bytes are exactly `text` (stories260K's byte tokens).
    int32_t token_of(const std::string& text) const {
        for (int32_t id = 0; id < model_->info().n_vocab; ++id)
            if (model_->token_piece(id) == text) return id;
        ADD_FAILURE() << "no token '" << text << "'";
        return -1;
    }
    static void drain(Scheduler& s) {
        for (int i = 0; i < 20000; ++i) {
            auto r = s.step();
            ASSERT_TRUE(r.is_ok()) << r.error_message();
            if (!*r) return;
        }
        FAIL() << "the scheduler did not finish";
    }
    // The reply is a complete object (ended by the format) or the start of one (cut by
    // max_tokens).
    static void expect_valid(const Reply& r, const std::string& prefix = {}) {
        ASSERT_TRUE(r.done && r.error.empty()) << r.error;
        const std::string doc = prefix + r.text;
        JsonRecognizer rec;
        EXPECT_TRUE(rec.feed(doc)) << doc;
        if (r.reason == StopReason::EndOfGeneration) {
            EXPECT_TRUE(rec.complete()) << doc;
            nlohmann::json parsed;
            ASSERT_NO_THROW(parsed = nlohmann::json::parse(doc)) << doc;
            EXPECT_TRUE(parsed.is_object());
        } else {
            EXPECT_EQ(r.reason, StopReason::MaxTokens) << doc;
            EXPECT_FALSE(rec.complete()) << doc;
        }
    }
};

TEST_F(JsonSchedulerTest, RepliesAreObjectsGreedyAndSampled) {
    auto s = scheduler({.max_running = 8, .step_tokens = 64});
    std::vector<Reply> replies(8);
    for (uint32_t i = 0; i < replies.size(); ++i) {
        GenerationRequest r = json_request(i, 120, replies[i]);
        if (i % 2 == 1) {  // sampled, with the default chain
            r.sampling = SamplingParams{};
            r.sampling.temperature = 1.2f;
            r.sampling.top_k = 0;
            r.sampling.top_p = 1.f;
            r.sampling.min_p = 0.f;
            r.sampling.seed = 100 + i;
        }
        r.logprobs = i == 2 ? 3 : -1;
        ASSERT_TRUE(s->submit(std::move(r)).ok());
    }
    drain(*s);
    for (const Reply& r : replies) expect_valid(r);
    EXPECT_EQ(s->stats().kv_blocks_free, s->stats().kv_blocks);
    EXPECT_TRUE(s->check().is_ok());
}

TEST_F(JsonSchedulerTest, ClosingEndsTheRequest) {
    // A strong bias toward '}' closes the object at once: "{}" and EndOfGeneration, with
    // max_tokens to spare.
    auto s = scheduler({.max_running = 2});
    Reply reply;
    GenerationRequest r = json_request(3, 50, reply);
    r.sampling.logit_bias = {{token_of("}"), 100.f}};
    ASSERT_TRUE(s->submit(std::move(r)).ok());
    drain(*s);
    expect_valid(reply);
    EXPECT_EQ(reply.reason, StopReason::EndOfGeneration);
    EXPECT_EQ(reply.text, "{}");
    EXPECT_EQ(reply.tokens.size(), 2u);
}

TEST_F(JsonSchedulerTest, SameTokensAloneAndBatchedWithPlainRequests) {
    Reply alone;
    {
        auto s = scheduler({.max_running = 1});
        ASSERT_TRUE(s->submit(json_request(5, 60, alone)).ok());
        drain(*s);
    }
    auto s = scheduler({.max_running = 4, .step_tokens = 32});
    Reply batched;
    std::vector<Reply> plain(3);
    for (uint32_t i = 0; i < 3; ++i) {
        GenerationRequest r = json_request(10 + i, 40, plain[i]);
        r.format = OutputFormat::Text;
        ASSERT_TRUE(s->submit(std::move(r)).ok());
    }
    ASSERT_TRUE(s->submit(json_request(5, 60, batched)).ok());
    drain(*s);
    EXPECT_EQ(batched.tokens, alone.tokens);
    expect_valid(batched);
    // The plain requests are the model's own greedy tokens (no mask leaked into them).
    for (uint32_t i = 0; i < 3; ++i)
        EXPECT_EQ(plain[i].tokens, reference(prompt(24, 10 + i), 40)) << i;
}

TEST_F(JsonSchedulerTest, SchemaRepliesFollowTheSchema) {
    auto schema = std::make_shared<JsonSchema>(person_schema());
    auto s = scheduler({.max_running = 6, .step_tokens = 64});
    std::vector<Reply> replies(6);
    for (uint32_t i = 0; i < replies.size(); ++i) {
        GenerationRequest r = json_request(i, 150, replies[i]);
        r.format = OutputFormat::JsonSchema;
        r.json_schema = schema;
        r.sampling = SamplingParams{};
        r.sampling.seed = 40 + i;
        // Toward closing and quoting and away from whitespace (this tiny model's favourite
        // between JSON tokens), so that most replies finish within max_tokens.
        r.sampling.logit_bias = {{token_of("\""), 3.f}, {token_of("}"), 3.f}, {token_of("]"), 5.f}};
        for (int32_t id = 0; id < model_->info().n_vocab; ++id) {
            const std::string p = model_->token_piece(id);
            if (!p.empty() && p.find_first_not_of(" \n\t\r") == std::string::npos)
                r.sampling.logit_bias.emplace_back(id, -100.f);
        }
        ASSERT_TRUE(s->submit(std::move(r)).ok());
    }
    drain(*s);
    int complete = 0;
    for (const Reply& r : replies) {
        ASSERT_TRUE(r.done && r.error.empty()) << r.error;
        JsonRecognizer rec(schema.get());
        EXPECT_TRUE(rec.feed(r.text)) << r.text;
        if (r.reason == StopReason::EndOfGeneration) {
            ++complete;
            EXPECT_TRUE(follows_person(nlohmann::json::parse(r.text))) << r.text;
        }
    }
    // A schema that leaves one way through: {"ok": true} or {"ok": false} (spaces only where a
    // token holds one before a quote; whitespace tokens banned, as above), whatever the model
    // prefers, closed with EndOfGeneration.
    auto tiny = ok_schema();
    for (uint32_t i = 0; i < 3; ++i) {
        Reply reply;
        GenerationRequest r = json_request(20 + i, 40, reply);
        r.format = OutputFormat::JsonSchema;
        r.json_schema = tiny;
        r.sampling.logit_bias.clear();
        for (int32_t id = 0; id < model_->info().n_vocab; ++id) {
            const std::string p = model_->token_piece(id);
            if (!p.empty() && p.find_first_not_of(" \n\t\r") == std::string::npos)
                r.sampling.logit_bias.emplace_back(id, -100.f);
        }
        ASSERT_TRUE(s->submit(std::move(r)).ok());
        drain(*s);
        EXPECT_EQ(reply.reason, StopReason::EndOfGeneration) << reply.text;
        nlohmann::json j;
        ASSERT_NO_THROW(j = nlohmann::json::parse(reply.text)) << reply.text;
        EXPECT_TRUE(j.size() == 1 && j.contains("ok") && j["ok"].is_boolean()) << reply.text;
        complete += reply.reason == StopReason::EndOfGeneration;
    }
    EXPECT_GE(complete, 3);
    // A schema the engine cannot follow, or none, is refused at submit.
    Reply unused;
    GenerationRequest bad = json_request(1, 8, unused);
    bad.format = OutputFormat::JsonSchema;
    EXPECT_EQ(s->submit(bad).error, SubmitError::Invalid);
    auto broken = std::make_shared<JsonSchema>(person_schema());
    broken->nodes[0].types = JsonSchema::kArray;
    bad.json_schema = broken;
    const SubmitResult res = s->submit(bad);
    EXPECT_EQ(res.error, SubmitError::Invalid);
    EXPECT_NE(res.message.find("schema"), std::string::npos) << res.message;
}

// Context::generate (hearth-cli run, sessions) takes the same formats.
TEST_F(JsonSchedulerTest, ContextGenerateFollowsTheFormat) {
    auto ctx = Context::create(model_, {.n_ctx = 256, .n_threads = 2});
    ASSERT_TRUE(ctx.is_ok()) << ctx.error_message();
    GenerateOptions o;
    o.max_tokens = 100;
    o.format = OutputFormat::JsonSchema;
    o.json_schema = std::make_shared<JsonSchema>(person_schema());
    for (int32_t id = 0; id < model_->info().n_vocab; ++id) {
        const std::string p = model_->token_piece(id);
        if (!p.empty() && p.find_first_not_of(" \n\t\r") == std::string::npos)
            o.sampling.logit_bias.emplace_back(id, -100.f);
    }
    o.sampling.logit_bias.emplace_back(token_of("}"), 4.f);
    o.sampling.logit_bias.emplace_back(token_of("]"), 4.f);
    o.sampling.logit_bias.emplace_back(token_of("\""), 3.f);
    int complete = 0;
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        (*ctx)->reset();
        ASSERT_TRUE((*ctx)->feed(prompt(20, uint32_t(seed))).is_ok());
        o.sampling.seed = seed;
        auto r = (*ctx)->generate(o);
        ASSERT_TRUE(r.is_ok()) << r.error_message();
        JsonRecognizer rec(o.json_schema.get());
        EXPECT_TRUE(rec.feed(r->text)) << r->text;
        if (r->reason == StopReason::EndOfGeneration) {
            ++complete;
            EXPECT_TRUE(follows_person(nlohmann::json::parse(r->text))) << r->text;
        } else {
            EXPECT_EQ(r->reason, StopReason::MaxTokens) << r->text;
        }
    }
    // The one-way schema always closes.
    o.json_schema = ok_schema();
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        (*ctx)->reset();
        ASSERT_TRUE((*ctx)->feed(prompt(20, uint32_t(seed))).is_ok());
        o.sampling.seed = seed;
        auto r = (*ctx)->generate(o);
        ASSERT_TRUE(r.is_ok()) << r.error_message();
        EXPECT_EQ(r->reason, StopReason::EndOfGeneration) << r->text;
        complete += r->reason == StopReason::EndOfGeneration;
        const auto j = nlohmann::json::parse(r->text);
        EXPECT_TRUE(j.size() == 1 && j["ok"].is_boolean()) << r->text;
    }
    EXPECT_GE(complete, 3);
    // Plain JSON mode with a strong bias toward '}': "{}" at once.
    GenerateOptions plain;
    plain.max_tokens = 20;
    plain.sampling.temperature = 0.f;
    plain.format = OutputFormat::JsonObject;
    plain.sampling.logit_bias = {{token_of("}"), 100.f}};
    (*ctx)->reset();
    ASSERT_TRUE((*ctx)->feed(prompt(10, 1)).is_ok());
    auto r = (*ctx)->generate(plain);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r->text, "{}");
    EXPECT_EQ(r->reason, StopReason::EndOfGeneration);
    // A schema that cannot be followed is an error, not a reply.
    GenerateOptions bad = plain;
    bad.format = OutputFormat::JsonSchema;
    EXPECT_FALSE((*ctx)->generate(bad).is_ok());
}

TEST_F(JsonSchedulerTest, ReplyPrefixStartsTheObject) {
    auto s = scheduler({.max_running = 2});
    Reply reply;
    GenerationRequest r = json_request(7, 80, reply);
    r.reply_prefix = "{\"name\": \"";
    r.sampling.logit_bias = {{token_of("\""), 8.f}, {token_of("}"), 8.f}};
    ASSERT_TRUE(s->submit(std::move(r)).ok());
    drain(*s);
    expect_valid(reply, "{\"name\": \"");
    // Not the start of an object, or a whole one already: refused.
    for (const char* bad : {"[", "x", "{}", "{\"a\":01"}) {
        Reply unused;
        GenerationRequest b = json_request(7, 8, unused);
        b.reply_prefix = bad;
        const SubmitResult res = s->submit(std::move(b));
        EXPECT_EQ(res.error, SubmitError::Invalid) << bad;
        EXPECT_NE(res.message.find("JSON object"), std::string::npos) << res.message;
    }
}

}  // namespace
}  // namespace hearth
