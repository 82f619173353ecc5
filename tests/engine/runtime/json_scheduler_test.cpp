// JSON mode in the scheduler and Context::generate on stories260K: every reply a valid object
// (or schema-following object) or its unfinished start, the same tokens alone and batched with
// plain requests, a bias toward '}' closing at once, a reply_prefix, refusals.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hearth/json_schema.h"
#include "hearth/scheduler.h"
#include "json_test_schemas.h"
#include "runtime/json_recognizer.h"
#include "stories_scheduler_test.h"
#include "test_data.h"

namespace hearth {
namespace {

using runtime::JsonRecognizer;
using test::follows_person;
using test::ok_schema;
using test::Outcome;
using test::person_schema;

class JsonSchedulerTest : public test::StoriesSchedulerTest {
protected:
    GenerationRequest json_request(uint32_t salt, int32_t max_tokens, Outcome& out) const {
        GenerationRequest r;
        r.prompt = prompt(24, salt);
        r.max_tokens = max_tokens;
        r.sampling.temperature = 0.f;
        r.format = OutputFormat::JsonObject;
        r.on_event = test::record_into(out);
        return r;
    }
    // The token whose bytes are exactly `text` (stories260K's byte tokens).
    int32_t token_of(const std::string& text) const {
        for (int32_t id = 0; id < model_->info().n_vocab; ++id)
            if (model_->token_piece(id) == text) return id;
        ADD_FAILURE() << "no token '" << text << "'";
        return -1;
    }
    static void drain(Scheduler& s) { test::drain(s, 20000); }
    // Bans every token that is only whitespace: this tiny model's favourite between JSON
    // tokens, which would otherwise fill max_tokens before the object closes.
    void ban_whitespace(SamplingParams& sampling) const {
        for (int32_t id = 0; id < model_->info().n_vocab; ++id) {
            const std::string p = model_->token_piece(id);
            if (!p.empty() && p.find_first_not_of(" \n\t\r") == std::string::npos)
                sampling.logit_bias.emplace_back(id, -100.f);
        }
    }
    // The reply is a complete object (ended by the format) or the start of one (cut by
    // max_tokens).
    static void expect_valid(const Outcome& r, const std::string& prefix = {}) {
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
    std::vector<Outcome> replies(8);
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
    for (const Outcome& r : replies) expect_valid(r);
    EXPECT_EQ(s->stats().kv_blocks_free, s->stats().kv_blocks);
    EXPECT_TRUE(s->check().is_ok());
}

TEST_F(JsonSchedulerTest, ClosingEndsTheRequest) {
    // A strong bias toward '}' closes the object at once: "{}" and EndOfGeneration, with
    // max_tokens to spare.
    auto s = scheduler({.max_running = 2});
    Outcome reply;
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
    Outcome alone;
    {
        auto s = scheduler({.max_running = 1});
        ASSERT_TRUE(s->submit(json_request(5, 60, alone)).ok());
        drain(*s);
    }
    auto s = scheduler({.max_running = 4, .step_tokens = 32});
    Outcome batched;
    std::vector<Outcome> plain(3);
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
    std::vector<Outcome> replies(6);
    for (uint32_t i = 0; i < replies.size(); ++i) {
        GenerationRequest r = json_request(i, 150, replies[i]);
        r.format = OutputFormat::JsonSchema;
        r.json_schema = schema;
        r.sampling = SamplingParams{};
        r.sampling.seed = 40 + i;
        // Toward closing and quoting and away from whitespace, so that most replies finish
        // within max_tokens.
        r.sampling.logit_bias = {{token_of("\""), 3.f}, {token_of("}"), 3.f}, {token_of("]"), 5.f}};
        ban_whitespace(r.sampling);
        ASSERT_TRUE(s->submit(std::move(r)).ok());
    }
    drain(*s);
    int complete = 0;
    for (const Outcome& r : replies) {
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
        Outcome reply;
        GenerationRequest r = json_request(20 + i, 40, reply);
        r.format = OutputFormat::JsonSchema;
        r.json_schema = tiny;
        r.sampling.logit_bias.clear();
        ban_whitespace(r.sampling);
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
    Outcome unused;
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
    ban_whitespace(o.sampling);
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
    Outcome reply;
    GenerationRequest r = json_request(7, 80, reply);
    r.reply_prefix = "{\"name\": \"";
    r.sampling.logit_bias = {{token_of("\""), 8.f}, {token_of("}"), 8.f}};
    ASSERT_TRUE(s->submit(std::move(r)).ok());
    drain(*s);
    expect_valid(reply, "{\"name\": \"");
    // Not the start of an object, or a whole one already: refused.
    for (const char* bad : {"[", "x", "{}", "{\"a\":01"}) {
        Outcome unused;
        GenerationRequest b = json_request(7, 8, unused);
        b.reply_prefix = bad;
        const SubmitResult res = s->submit(std::move(b));
        EXPECT_EQ(res.error, SubmitError::Invalid) << bad;
        EXPECT_NE(res.message.find("JSON object"), std::string::npos) << res.message;
    }
}

}  // namespace
}  // namespace hearth
