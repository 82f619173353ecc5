// The server's pieces without HTTP: key comparison and parsing, loopback detection, request
// parameters to scheduler requests (stories260K), response and chunk shapes, error shapes,
// logprobs objects.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "api_error.h"
#include "auth.h"
#include "json_schema_compile.h"
#include "openai_logprobs.h"
#include "openai_request.h"
#include "openai_response.h"
#include "response_choices.h"
#include "test_data.h"

namespace hearth::server {
namespace {

using nlohmann::json;

TEST(ServerAuth, ConstantTimeEqualIsExactEquality) {
    EXPECT_TRUE(constant_time_equal("sk-abc", "sk-abc"));
    EXPECT_TRUE(constant_time_equal("", ""));
    EXPECT_FALSE(constant_time_equal("sk-abc", "sk-abd"));
    EXPECT_FALSE(constant_time_equal("sk-abc", "sk-ab"));  // prefix
    EXPECT_FALSE(constant_time_equal("sk-ab", "sk-abc"));  // longer
    EXPECT_FALSE(constant_time_equal("sk-abc", ""));
    EXPECT_FALSE(constant_time_equal(std::string_view("a\0b", 3), std::string_view("a\0c", 3)));
    EXPECT_FALSE(constant_time_equal("a", std::string_view("a\0", 2)));  // padding is not equal
}

TEST(ServerAuth, BearerToken) {
    EXPECT_EQ(bearer_token("Bearer sk-1"), "sk-1");
    EXPECT_EQ(bearer_token("bearer sk-1 "), "sk-1");
    EXPECT_EQ(bearer_token("Basic dXNlcjpwYXNz"), "");
    EXPECT_EQ(bearer_token("Bearer "), "");
    EXPECT_EQ(bearer_token(""), "");
}

TEST(ServerAuth, Loopback) {
    for (const char* h : {"127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"})
        EXPECT_TRUE(is_loopback_host(h)) << h;
    for (const char* h : {"0.0.0.0", "::", "192.168.1.2", "127.0.0.1.evil.com", "127.a.0.1",
                          "localhost.example", ""})
        EXPECT_FALSE(is_loopback_host(h)) << h;
}

TEST(ServerErrors, OpenAiShape) {
    const json e = json::parse(model_not_found("gpt-9").to_json());
    EXPECT_EQ(e["error"]["code"], "model_not_found");
    EXPECT_EQ(e["error"]["param"], "model");
    EXPECT_EQ(e["error"]["type"], "invalid_request_error");
    EXPECT_EQ(model_not_found("x").status, 404);
    EXPECT_EQ(queue_full("busy").status, 429);
    EXPECT_EQ(unavailable("stopping").status, 503);
    EXPECT_EQ(body_too_large(10).status, 413);
    const json b = json::parse(bad_request("bad").to_json());
    EXPECT_TRUE(b["error"]["param"].is_null());
    EXPECT_TRUE(b["error"]["code"].is_null());
}

TEST(ServerResponses, ChunksAndBodies) {
    const ResponseHeader h{"chatcmpl-1", 1700000000, "m", true};
    RequestUsage u;
    u.prompt_tokens = 5;
    u.completion_tokens = 3;
    u.cached_tokens = 2;
    const json body = json::parse(completion_body(h, "hi", StopReason::StopString, u));
    EXPECT_EQ(body["object"], "chat.completion");
    EXPECT_EQ(body["choices"][0]["message"]["content"], "hi");
    EXPECT_EQ(body["choices"][0]["finish_reason"], "stop");
    EXPECT_EQ(body["usage"]["total_tokens"], 8);
    EXPECT_EQ(body["usage"]["prompt_tokens_details"]["cached_tokens"], 2);
    const json first = json::parse(stream_chunk(h, "", true, nullptr));
    EXPECT_EQ(first["choices"][0]["delta"]["role"], "assistant");
    EXPECT_TRUE(first["choices"][0]["finish_reason"].is_null());
    const json last = json::parse(stream_chunk(h, "", false, finish_reason(StopReason::MaxTokens)));
    EXPECT_EQ(last["choices"][0]["finish_reason"], "length");
    EXPECT_TRUE(last["choices"][0]["delta"].empty());
    const json use = json::parse(usage_chunk(h, u));
    EXPECT_TRUE(use["choices"].empty());
    EXPECT_FALSE(use["usage"].contains("completion_tokens_details"));  // no speculation
    // Speculative decoding: OpenAI's predicted-output counts.
    u.draft_tokens = 7;
    u.draft_accepted = 5;
    u.draft_steps = 3;
    const json spec = json::parse(usage_chunk(h, u));
    EXPECT_EQ(spec["usage"]["completion_tokens_details"]["accepted_prediction_tokens"], 5);
    EXPECT_EQ(spec["usage"]["completion_tokens_details"]["rejected_prediction_tokens"], 2);
    // Invalid UTF-8 from the model is replaced, never an exception.
    const json bad = json::parse(stream_chunk(h, std::string("a\xff"), false, nullptr));
    EXPECT_EQ(bad["choices"][0]["delta"]["content"], "a\xef\xbf\xbd");
    EXPECT_EQ(sse_event("{}"), "data: {}\n\n");
    EXPECT_EQ(new_response_id("cmpl-").size(), 5u + 24u);
}

TEST(ServerResponses, TextChunkWriterMatchesStreamChunk) {
    // The template-made chunk is byte for byte the one stream_chunk renders, for chat and
    // completions, with text that needs escaping, invalid UTF-8, and a model id that looks
    // like the text's key.
    const std::string texts[] = {"", "hi", " \"quoted\"\n\ttab\\", "a\xff", "\xe4\xb8\xad"};
    for (const bool chat : {true, false})
        for (const std::string model : {"m", R"(x","text":"","content":"")"}) {
            const ResponseHeader h{chat ? "chatcmpl-1" : "cmpl-1", 1700000000, model, chat};
            const TextChunkWriter w(h);
            std::string all, expect;
            for (const std::string& t : texts) {
                std::string one;
                w.append(one, t);
                EXPECT_EQ(one, sse_event(stream_chunk(h, t, false, nullptr)))
                    << (chat ? "chat" : "completion") << ", text " << t;
                all += one;
                expect += sse_event(stream_chunk(h, t, false, nullptr));
            }
            EXPECT_EQ(all, expect);  // appends, never overwrites
        }
}

class ServerRequests : public ::testing::Test {
protected:
    void SetUp() override {
        HEARTH_REQUIRE_SHARED(path, "models/stories260K.gguf");
        auto m = Model::load(path);
        ASSERT_TRUE(m.is_ok());
        model_ = *m;
    }
    std::optional<ApiError> chat(const json& body, ParsedRequest& out) const {
        return parse_chat_request(body, *model_, limits_, out);
    }
    std::shared_ptr<Model> model_;
    RequestLimits limits_{512, 511};
};

TEST_F(ServerRequests, ChatParametersReachTheRequest) {
    ParsedRequest r;
    const json body = {{"model", "m"},
                       {"messages",
                        {{{"role", "system"}, {"content", "Be brief."}},
                         {{"role", "user"}, {"content", {{{"type", "text"}, {"text", "Hi"}}}}}}},
                       {"temperature", 0.5},
                       {"top_p", 0.9},
                       {"max_completion_tokens", 7},
                       {"max_tokens", 99},
                       {"stop", {"x", "yz"}},
                       {"seed", 42},
                       {"presence_penalty", 0.25},
                       {"frequency_penalty", -0.5},
                       {"stream", true},
                       {"stream_options", {{"include_usage", true}}},
                       {"speculative", "lookup"},
                       {"draft_max", 5}};
    ASSERT_FALSE(chat(body, r).has_value());
    EXPECT_EQ(r.lookup, std::optional<bool>(true));
    EXPECT_EQ(r.draft_max, std::optional<int32_t>(5));
    EXPECT_FALSE(r.gen.prompt.empty());
    EXPECT_FLOAT_EQ(r.gen.sampling.temperature, 0.5f);
    EXPECT_FLOAT_EQ(r.gen.sampling.top_p, 0.9f);
    EXPECT_EQ(r.gen.max_tokens, 7);  // max_completion_tokens wins
    EXPECT_EQ(r.gen.sampling.seed, 42u);
    EXPECT_FLOAT_EQ(r.gen.sampling.presence_penalty, 0.25f);
    EXPECT_FLOAT_EQ(r.gen.sampling.frequency_penalty, -0.5f);
    EXPECT_EQ(r.gen.sampling.top_k, 0);  // OpenAI semantics: no top-k unless asked
    EXPECT_TRUE(r.stream && r.include_usage);
    ASSERT_GE(r.gen.stop_strings.size(), 2u);
    EXPECT_EQ(r.gen.stop_strings[r.gen.stop_strings.size() - 2], "x");
    // Without max_tokens the reply may fill the context.
    ParsedRequest d;
    ASSERT_FALSE(chat({{"messages", {{{"role", "user"}, {"content", "Hi"}}}}}, d).has_value());
    EXPECT_EQ(d.gen.max_tokens, 512 - static_cast<int32_t>(d.gen.prompt.size()));
    EXPECT_EQ(d.n, 1);
    // What asks for nothing this server lacks passes: no tools, tool_choice none, plain text.
    ParsedRequest plain;
    EXPECT_FALSE(chat({{"messages", {{{"role", "user"}, {"content", "Hi"}}}},
                       {"tools", json::array()},
                       {"tool_choice", "none"},
                       {"response_format", {{"type", "text"}}}},
                      plain)
                     .has_value());
    EXPECT_EQ(plain.gen.format, OutputFormat::Text);
    // json_object: the reply is one JSON object (constrained decoding in the scheduler).
    ParsedRequest json_reply;
    ASSERT_FALSE(chat({{"messages", {{{"role", "user"}, {"content", "Hi"}}}},
                       {"response_format", {{"type", "json_object"}}}},
                      json_reply)
                     .has_value());
    EXPECT_EQ(json_reply.gen.format, OutputFormat::JsonObject);
    EXPECT_TRUE(json_reply.gen.reply_prefix.empty());
    ParsedRequest three;
    ASSERT_FALSE(
        chat({{"messages", {{{"role", "user"}, {"content", "Hi"}}}}, {"n", 3}}, three).has_value());
    EXPECT_EQ(three.n, 3);
    EXPECT_FALSE(d.lookup.has_value());  // the server's default applies
    EXPECT_FALSE(d.draft_max.has_value());
}

// vLLM's continue_final_message (what the app's Continue sends to a remote model): the last
// assistant message is written on from its end: the prompt is the conversation before it
// with the generation prompt, then that message's text as plain tokens.
TEST_F(ServerRequests, ContinueFinalMessageWritesOnFromTheReply) {
    const json user = {{"role", "user"}, {"content", "Hi"}};
    const json partial = {{"role", "assistant"}, {"content", "Once upon a"}};
    ParsedRequest before, continued, closed;
    ASSERT_FALSE(chat({{"messages", {user}}}, before).has_value());
    ASSERT_FALSE(chat({{"messages", {user, partial}},
                       {"continue_final_message", true},
                       {"add_generation_prompt", false}},
                      continued)
                     .has_value());
    auto text = model_->tokenize("Once upon a", false, false);
    ASSERT_TRUE(text.is_ok());
    std::vector<int32_t> expected = before.gen.prompt;
    expected.insert(expected.end(), text->begin(), text->end());
    EXPECT_EQ(continued.gen.prompt, expected);
    EXPECT_TRUE(continued.gen.reply_prefix.empty());  // plain text needs none
    // With json_object the continued text is where the object starts.
    ParsedRequest json_continued;
    ASSERT_FALSE(chat({{"messages", {user, {{"role", "assistant"}, {"content", "{\"a\": "}}}},
                       {"continue_final_message", true},
                       {"response_format", {{"type", "json_object"}}}},
                      json_continued)
                     .has_value());
    EXPECT_EQ(json_continued.gen.reply_prefix, "{\"a\": ");
    // Without it the assistant message is a closed turn followed by a new generation prompt.
    ASSERT_FALSE(chat({{"messages", {user, partial}}}, closed).has_value());
    EXPECT_NE(closed.gen.prompt, expected);
    ParsedRequest r;
    auto e = chat({{"messages", {user}}, {"continue_final_message", true}}, r);
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->param, "continue_final_message");
    e = chat({{"messages", {user, partial}}, {"continue_final_message", "yes"}}, r);
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->param, "continue_final_message");
}

TEST_F(ServerRequests, BadParametersNameThemselves) {
    const json msgs = {{{"role", "user"}, {"content", "Hi"}}};
    const std::pair<json, const char*> cases[] = {
        {{{"messages", msgs}, {"temperature", 2.5}}, "temperature"},
        {{{"messages", msgs}, {"temperature", "hot"}}, "temperature"},
        {{{"messages", msgs}, {"top_p", -0.1}}, "top_p"},
        {{{"messages", msgs}, {"max_tokens", 0}}, "max_tokens"},
        {{{"messages", msgs}, {"max_tokens", 1.5}}, "max_tokens"},
        {{{"messages", msgs}, {"tools", {{{"type", "function"}}}}}, "tools"},
        {{{"messages", msgs}, {"functions", {{{"name", "f"}}}}}, "functions"},
        {{{"messages", msgs}, {"tool_choice", "auto"}}, "tool_choice"},
        {{{"messages", msgs}, {"response_format", {{"type", "json_schema"}}}},
         "response_format.json_schema"},
        {{{"messages", msgs}, {"response_format", {{"type", "xml"}}}}, "response_format"},
        {{{"messages", msgs}, {"response_format", "json"}}, "response_format"},
        {{{"messages", msgs}, {"response_format", {{"type", 5}}}}, "response_format"},
        {{{"messages", msgs}, {"n", 0}}, "n"},
        {{{"messages", msgs}, {"n", 17}}, "n"},
        {{{"messages", msgs}, {"stop", {1, 2}}}, "stop"},
        {{{"messages", msgs}, {"stop", {"a", "b", "c", "d", "e"}}}, "stop"},
        {{{"messages", msgs}, {"stream", "yes"}}, "stream"},
        {{{"messages", msgs}, {"stream_options", {{"include_usage", true}}}}, "stream_options"},
        {{{"messages", msgs}, {"presence_penalty", 3}}, "presence_penalty"},
        {{{"messages", msgs}, {"speculative", "draft"}}, "speculative"},
        {{{"messages", msgs}, {"speculative", true}}, "speculative"},
        {{{"messages", msgs}, {"draft_max", 0}}, "draft_max"},
        {{{"messages", msgs}, {"draft_max", 33}}, "draft_max"},
        {{{"messages", json::array()}}, "messages"},
        {{{"messages", "hi"}}, "messages"},
        {{{"messages", {{{"role", "tool"}, {"content", "x"}}}}}, "messages[0].role"},
        {{{"messages", {{{"role", "user"}, {"content", 5}}}}}, "messages[0].content"},
        {{{"messages", {{{"role", "user"}, {"content", {{{"type", "image_url"}}}}}}}},
         "messages[0].content"},
        // A member of another type where a string is read: a 400, not a thrown type error.
        {{{"messages", {{{"role", "user"}, {"content", {{{"type", 5}, {"text", "x"}}}}}}}},
         "messages[0].content"},
        {{{"messages", msgs}, {"prediction", {{"type", 5}, {"content", "x"}}}}, "prediction"},
    };
    for (const auto& [body, param] : cases) {
        ParsedRequest r;
        const auto e = chat(body, r);
        ASSERT_TRUE(e.has_value()) << body.dump();
        EXPECT_EQ(e->status, 400) << body.dump();
        EXPECT_EQ(e->param, param) << body.dump();
    }
    // A prompt longer than the limit.
    ParsedRequest r;
    std::string lots;
    for (int i = 0; i < 600; ++i) lots += "word ";
    const auto e = chat({{"messages", {{{"role", "user"}, {"content", lots}}}}}, r);
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->code, "context_length_exceeded");
}

TEST_F(ServerRequests, CompletionPrompts) {
    ParsedRequest a, b, c;
    ASSERT_FALSE(parse_completion_request({{"prompt", "Once upon"}}, *model_, limits_, a));
    ASSERT_FALSE(parse_completion_request({{"prompt", {"Once upon"}}}, *model_, limits_, b));
    EXPECT_EQ(a.gen.prompt, b.gen.prompt);
    ASSERT_FALSE(parse_completion_request({{"prompt", a.gen.prompt}}, *model_, limits_, c));
    EXPECT_EQ(c.gen.prompt, a.gen.prompt);
    // A batch: strings or token-id arrays, each prompt n choices, at most 16 choices in all.
    ParsedRequest batch, ids_batch;
    ASSERT_FALSE(parse_completion_request({{"prompt", {"Once upon", "The dog"}}, {"n", 2}}, *model_,
                                          limits_, batch));
    EXPECT_EQ(batch.gen.prompt, a.gen.prompt);
    ASSERT_EQ(batch.more_prompts.size(), 1u);
    EXPECT_EQ(batch.n, 2);
    // The longest prompt of a batch bounds the reply, and one over the limit refuses it.
    ParsedRequest bounded, too_long;
    ASSERT_FALSE(
        parse_completion_request({{"prompt", {json::array({1}), json(std::vector<int>(500, 5))}}},
                                 *model_, limits_, bounded));
    EXPECT_EQ(bounded.gen.max_tokens, 512 - 500);
    const auto long_err =
        parse_completion_request({{"prompt", {json::array({1}), json(std::vector<int>(600, 5))}}},
                                 *model_, limits_, too_long);
    ASSERT_TRUE(long_err.has_value());
    EXPECT_EQ(long_err->code, "context_length_exceeded");
    EXPECT_EQ(long_err->param, "prompt");
    ASSERT_FALSE(
        parse_completion_request({{"prompt", {{1, 2}, {3}}}}, *model_, limits_, ids_batch));
    EXPECT_EQ(ids_batch.gen.prompt, (std::vector<int32_t>{1, 2}));
    ASSERT_EQ(ids_batch.more_prompts.size(), 1u);
    EXPECT_EQ(ids_batch.more_prompts[0], (std::vector<int32_t>{3}));
    for (const json& bad :
         {json{{"prompt", {"a", "b", "c"}}, {"n", 6}}, json{{"prompt", json(17, json("a"))}},
          json{{"prompt", {"a", json::array({1})}}},
          json{{"prompt", {json::array({1}), json::array()}}}, json{{"prompt", {1, -1}}},
          json{{"prompt", {1, 100000}}}, json{{"prompt", json::array()}}, json{{"prompt", 5}},
          json::object(), json{{"prompt", "a"}, {"echo", true}}}) {
        ParsedRequest r;
        const auto e = parse_completion_request(bad, *model_, limits_, r);
        ASSERT_TRUE(e.has_value()) << bad.dump();
        EXPECT_EQ(e->status, 400);
    }
}

TEST_F(ServerRequests, LogprobsParameters) {
    const json msgs = {{{"role", "user"}, {"content", "Hi"}}};
    ParsedRequest none, plain, top;
    ASSERT_FALSE(chat({{"messages", msgs}}, none).has_value());
    EXPECT_EQ(none.gen.logprobs, -1);
    ASSERT_FALSE(chat({{"messages", msgs}, {"logprobs", true}}, plain).has_value());
    EXPECT_EQ(plain.gen.logprobs, 0);
    ASSERT_FALSE(
        chat({{"messages", msgs}, {"logprobs", true}, {"top_logprobs", 20}}, top).has_value());
    EXPECT_EQ(top.gen.logprobs, 20);
    ParsedRequest off;
    ASSERT_FALSE(chat({{"messages", msgs}, {"logprobs", false}}, off).has_value());
    EXPECT_EQ(off.gen.logprobs, -1);
    const std::pair<json, const char*> bad_chat[] = {
        {{{"messages", msgs}, {"top_logprobs", 2}}, "top_logprobs"},  // without logprobs
        {{{"messages", msgs}, {"logprobs", true}, {"top_logprobs", 21}}, "top_logprobs"},
        {{{"messages", msgs}, {"logprobs", true}, {"top_logprobs", -1}}, "top_logprobs"},
        {{{"messages", msgs}, {"logprobs", 3}}, "logprobs"},
    };
    for (const auto& [body, param] : bad_chat) {
        ParsedRequest r;
        const auto e = chat(body, r);
        ASSERT_TRUE(e.has_value()) << body.dump();
        EXPECT_EQ(e->status, 400);
        EXPECT_EQ(e->param, param) << body.dump();
    }
    // The legacy endpoint: an integer count (0 to 5) or null.
    ParsedRequest three, null_lp;
    ASSERT_FALSE(
        parse_completion_request({{"prompt", "Once"}, {"logprobs", 3}}, *model_, limits_, three));
    EXPECT_EQ(three.gen.logprobs, 3);
    ASSERT_FALSE(parse_completion_request({{"prompt", "Once"}, {"logprobs", nullptr}}, *model_,
                                          limits_, null_lp));
    EXPECT_EQ(null_lp.gen.logprobs, -1);
    for (const json& lp : {json(6), json(-1), json(true), json(1.5)}) {
        ParsedRequest r;
        const auto e =
            parse_completion_request({{"prompt", "Once"}, {"logprobs", lp}}, *model_, limits_, r);
        ASSERT_TRUE(e.has_value()) << lp.dump();
        EXPECT_EQ(e->param, "logprobs");
    }
}

TEST_F(ServerRequests, LogitBias) {
    const json msgs = {{{"role", "user"}, {"content", "Hi"}}};
    ParsedRequest r;
    ASSERT_FALSE(
        chat({{"messages", msgs}, {"logit_bias", {{"5", -100}, {"7", 3.5}}}}, r).has_value());
    ASSERT_EQ(r.gen.sampling.logit_bias.size(), 2u);
    EXPECT_EQ(r.gen.sampling.logit_bias[0], (std::pair<int32_t, float>{5, -100.f}));
    EXPECT_EQ(r.gen.sampling.logit_bias[1], (std::pair<int32_t, float>{7, 3.5f}));
    ParsedRequest c;
    ASSERT_FALSE(parse_completion_request({{"prompt", "Once"}, {"logit_bias", {{"9", 100}}}},
                                          *model_, limits_, c));
    ASSERT_EQ(c.gen.sampling.logit_bias.size(), 1u);
    for (const json& bad : {json{{"x", 1}}, json{{"99999", 1}}, json{{"-1", 1}}, json{{"5", 101}},
                            json{{"5", "a"}}, json{{"5x", 1}}, json("5"), json::array({5})}) {
        ParsedRequest e;
        const auto err = chat({{"messages", msgs}, {"logit_bias", bad}}, e);
        ASSERT_TRUE(err.has_value()) << bad.dump();
        EXPECT_EQ(err->param, "logit_bias") << bad.dump();
    }
}

// OpenAI's predicted outputs: the prediction's tokens (text or text parts), refused when it is
// malformed or speculative decoding is switched off for the request.
TEST_F(ServerRequests, Prediction) {
    const json msgs = {{{"role", "user"}, {"content", "Hi"}}};
    const auto want = model_->tokenize("Once upon a time", false, false);
    ASSERT_TRUE(want.is_ok());
    ParsedRequest text, parts, none;
    ASSERT_FALSE(chat({{"messages", msgs},
                       {"prediction", {{"type", "content"}, {"content", "Once upon a time"}}}},
                      text)
                     .has_value());
    EXPECT_EQ(text.prediction, *want);
    ASSERT_FALSE(chat({{"messages", msgs},
                       {"prediction",
                        {{"type", "content"},
                         {"content",
                          {{{"type", "text"}, {"text", "Once upon"}},
                           {{"type", "text"}, {"text", " a time"}}}}}}},
                      parts)
                     .has_value());
    EXPECT_EQ(parts.prediction, *want);
    ASSERT_FALSE(chat({{"messages", msgs}}, none).has_value());
    EXPECT_TRUE(none.prediction.empty());
    for (const json& bad : {json{{"type", "text"}, {"content", "x"}}, json{{"type", "content"}},
                            json("x"), json{{"type", "content"}, {"content", 5}},
                            json{{"type", "content"}, {"content", {{{"type", "image_url"}}}}}}) {
        ParsedRequest r;
        const auto e = chat({{"messages", msgs}, {"prediction", bad}}, r);
        ASSERT_TRUE(e.has_value()) << bad.dump();
        EXPECT_EQ(e->param, "prediction") << bad.dump();
    }
    ParsedRequest off;
    const auto e = chat({{"messages", msgs},
                         {"speculative", "off"},
                         {"prediction", {{"type", "content"}, {"content", "x"}}}},
                        off);
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->param, "prediction");
}

// The entries' shapes: the token's text and bytes, its log-probability, alternatives in the
// event's order; the legacy lists side by side with character offsets; -inf as OpenAI's floor.
TEST_F(ServerRequests, LogprobsObjects) {
    auto toks = model_->tokenize("Once upon a time", false, false);
    ASSERT_TRUE(toks.is_ok());
    ASSERT_GE(toks->size(), 3u);
    StreamEvent ev;
    ev.token = (*toks)[0];
    ev.has_logprob = true;
    ev.logprob = -0.25f;
    ev.top_logprobs = {{(*toks)[0], -0.25f}, {(*toks)[1], -2.5f}};
    const std::string piece = model_->token_piece(ev.token);
    const json e = chat_logprob_entry(*model_, ev);
    EXPECT_EQ(e["token"], piece);
    EXPECT_DOUBLE_EQ(e["logprob"].get<double>(), -0.25);
    ASSERT_EQ(e["bytes"].size(), piece.size());
    for (size_t i = 0; i < piece.size(); ++i)
        EXPECT_EQ(e["bytes"][i].get<int>(), int(static_cast<unsigned char>(piece[i])));
    ASSERT_EQ(e["top_logprobs"].size(), 2u);
    EXPECT_EQ(e["top_logprobs"][1]["token"], model_->token_piece((*toks)[1]));
    EXPECT_DOUBLE_EQ(e["top_logprobs"][1]["logprob"].get<double>(), -2.5);

    CompletionLogprobs legacy;
    const json one = legacy.add(*model_, ev);
    StreamEvent ev2 = ev;
    ev2.token = (*toks)[1];
    ev2.logprob = -INFINITY;  // no probability at all
    ev2.top_logprobs.clear();
    const json two = legacy.add(*model_, ev2);
    EXPECT_EQ(one["tokens"][0], piece);
    EXPECT_EQ(one["text_offset"][0], 0);
    EXPECT_EQ(two["text_offset"][0], static_cast<int64_t>(piece.size()));  // ASCII pieces
    EXPECT_DOUBLE_EQ(two["token_logprobs"][0].get<double>(), -9999.0);
    EXPECT_TRUE(two["top_logprobs"][0].empty());
    const json& all = legacy.object();
    ASSERT_EQ(all["tokens"].size(), 2u);
    EXPECT_EQ(all["tokens"][1], model_->token_piece((*toks)[1]));
    EXPECT_DOUBLE_EQ(all["top_logprobs"][0][model_->token_piece((*toks)[1])].get<double>(), -2.5);

    // In a body and a chunk, under the choice.
    const ResponseHeader h{"chatcmpl-1", 1700000000, "m", true};
    const json lp = {{"content", {e}}, {"refusal", nullptr}};
    const json body = json::parse(completion_body(h, "x", StopReason::MaxTokens, {}, &lp));
    EXPECT_EQ(body["choices"][0]["logprobs"], lp);
    const json plain = json::parse(completion_body(h, "x", StopReason::MaxTokens, {}));
    EXPECT_TRUE(plain["choices"][0]["logprobs"].is_null());
    const json chunk = json::parse(stream_chunk(h, "x", false, nullptr, &lp));
    EXPECT_EQ(chunk["choices"][0]["logprobs"], lp);
}

// n choices: events of the choices' requests arrive interleaved; the body lists them in choice
// order, the stream tags each chunk with its index, and one failed choice fails the response.
TEST_F(ServerRequests, ChoicesFromInterleavedEvents) {
    const ResponseHeader h{"chatcmpl-1", 1700000000, "m", true};
    const auto event = [](uint64_t id, std::string text, bool done = false,
                          StopReason why = StopReason::MaxTokens, std::string error = {}) {
        StreamEvent e;
        e.request = id;
        e.token = done ? -1 : 5;
        e.text = std::move(text);
        e.done = done;
        e.reason = why;
        e.error = std::move(error);
        e.usage.prompt_tokens = 4;
        e.usage.completion_tokens = done ? 2 : 0;
        return e;
    };
    const std::vector<StreamEvent> evs = {
        event(9, "b"),      event(7, "a"), event(7, "a"),
        event(7, "", true), event(9, "b"), event(9, "", true, StopReason::StopString)};
    ResponseChoices body_side(h, *model_, {7, 9}, false, false, 2);  // n = 2
    std::optional<std::string> body;
    for (size_t i = 0; i < evs.size(); ++i) {
        body = body_side.collect(evs[i]);
        EXPECT_EQ(body.has_value(), i + 1 == evs.size()) << i;
    }
    const json b = json::parse(*body);
    ASSERT_EQ(b["choices"].size(), 2u);
    EXPECT_EQ(b["choices"][0]["message"]["content"], "aa");
    EXPECT_EQ(b["choices"][0]["finish_reason"], "length");
    EXPECT_EQ(b["choices"][1]["index"], 1);
    EXPECT_EQ(b["choices"][1]["message"]["content"], "bb");
    EXPECT_EQ(b["choices"][1]["finish_reason"], "stop");
    EXPECT_EQ(b["usage"]["prompt_tokens"], 4);      // once
    EXPECT_EQ(b["usage"]["completion_tokens"], 4);  // both

    ResponseChoices stream_side(h, *model_, {7, 9}, false, true, 2);
    std::string out;
    bool ended = false;
    for (const StreamEvent& e : evs) ended = stream_side.stream(e, out);
    EXPECT_TRUE(ended);
    std::string text[2];
    int roles = 0, finishes = 0;
    size_t at = 0;
    std::vector<json> chunks;
    while ((at = out.find("data: {", at)) != std::string::npos) {
        const size_t end = out.find("\n\n", at);
        chunks.push_back(json::parse(out.substr(at + 6, end - at - 6)));
        at = end;
    }
    for (const json& c : chunks)
        for (const json& ch : c["choices"]) {
            const int i = ch["index"].get<int>();
            text[i] += ch["delta"].value("content", "");
            roles += ch["delta"].contains("role");
            finishes += !ch["finish_reason"].is_null();
        }
    EXPECT_EQ(text[0], "aa");
    EXPECT_EQ(text[1], "bb");
    EXPECT_EQ(roles, 2);
    EXPECT_EQ(finishes, 2);
    ASSERT_FALSE(chunks.empty());
    EXPECT_EQ(chunks.back()["usage"]["completion_tokens"], 4);  // include_usage, last
    EXPECT_TRUE(out.ends_with(kSseDone));

    // Two prompts of one choice each (a completions batch): both prompts count.
    ResponseChoices two_prompts(h, *model_, {7, 9}, false, false, 1);
    std::optional<std::string> tb;
    for (const StreamEvent& e : evs) tb = two_prompts.collect(e);
    ASSERT_TRUE(tb.has_value());
    EXPECT_EQ(json::parse(*tb)["usage"]["prompt_tokens"], 8);

    ResponseChoices failing(h, *model_, {7, 9}, false, false);
    EXPECT_FALSE(failing.collect(event(9, "b")).has_value());
    const auto err = failing.collect(event(7, "", true, StopReason::Cancelled, "boom"));
    ASSERT_TRUE(err.has_value());
    EXPECT_EQ(json::parse(*err)["error"]["message"], "boom");
}

}  // namespace
}  // namespace hearth::server

namespace hearth::server {
namespace {

// response_format json_schema: the schema compiled to the engine's table, or refused by the
// keyword it cannot enforce.
TEST(ServerJsonSchema, CompilesTheSubsetAndRefusesTheRest) {
    const json schema = json::parse(R"({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Person", "type": "object", "additionalProperties": false,
        "properties": {
            "name": {"type": "string", "description": "full name"},
            "age": {"type": "integer"},
            "tags": {"type": "array", "items": {"enum": ["a", "b"]}},
            "score": {"type": ["number", "null"]},
            "extra": {}
        },
        "required": ["name", "age"]})");
    JsonSchema s;
    ASSERT_EQ(compile_json_schema(schema, s), "");
    ASSERT_EQ(s.check(), "");
    ASSERT_EQ(s.nodes.size(), 6u);  // root, name, age, tags, its items, score; extra is any
    const JsonSchema::Node& root = s.nodes[0];
    EXPECT_EQ(root.types, JsonSchema::kObject);
    // Properties as nlohmann lists them (sorted; the reply may write them in any order).
    ASSERT_EQ(root.keys, (std::vector<std::string>{"age", "extra", "name", "score", "tags"}));
    EXPECT_EQ(root.required, 0b101u);  // age, name
    EXPECT_EQ(root.values[1], JsonSchema::kAny);
    EXPECT_EQ(s.nodes[root.values[0]].types, JsonSchema::kInteger);
    EXPECT_EQ(s.nodes[root.values[2]].types, JsonSchema::kString);
    const auto& tags = s.nodes[root.values[4]];
    EXPECT_EQ(tags.types, JsonSchema::kArray);
    EXPECT_EQ(s.nodes[tags.items].strings, (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(s.nodes[tags.items].types, JsonSchema::kString);
    EXPECT_EQ(s.nodes[root.values[3]].types, JsonSchema::kNumber | JsonSchema::kNull);
    // No constraints at all: any object.
    ASSERT_EQ(compile_json_schema(json::object(), s), "");
    EXPECT_EQ(s.nodes.size(), 1u);
    EXPECT_EQ(s.nodes[0].types, JsonSchema::kObject);

    for (const char* bad : {
             R"({"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}}})",  // nothing there
             R"({"$defs": {"t": {"type": "object", "properties": {"t": {"$ref": "#/$defs/t"}}}},
                 "$ref": "#/$defs/t"})",                                           // recursive
             R"({"type": "object", "properties": {"a": {"anyOf": [{"type": "object"},
                 {"type": "object", "properties": {"b": {}}}]}}})",  // two object branches
             R"({"type": "object", "properties": {"a": {"allOf": [{"type": "string"}]}}})",
             R"({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}],
                 "maxLength": 3}}})",
             R"({"type": "object", "properties": {"a": {"type": "string", "pattern": "x+"}}})",
             R"({"type": "object", "properties": {"a": {"type": "integer", "minimum": 0}}})",
             R"({"type": "string"})",  // the root: an object
             R"({"type": "object", "required": ["missing"]})",
             R"({"type": "object", "properties": {"a": {"type": "date"}}})",
             R"({"type": "object", "properties": {"a": {"enum": [1, 2]}}})",
             R"({"type": "object", "properties": {"a\"b": {}}})",  // a quote in a key
             R"({"type": "object", "properties": {"a": 5}})",
         }) {
        EXPECT_NE(compile_json_schema(json::parse(bad), s), "") << bad;
    }
    EXPECT_NE(compile_json_schema(json::parse(R"({"anyOf": []})"), s).find("anyOf"),
              std::string::npos);
    // What Pydantic writes for a nested model and an Optional field: $defs, $ref, anyOf.
    const json pydantic = json::parse(R"({
        "$defs": {"Pet": {"type": "object", "title": "Pet",
                          "properties": {"kind": {"enum": ["cat", "dog"], "type": "string"}},
                          "required": ["kind"]}},
        "type": "object", "title": "Owner",
        "properties": {"nick": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null},
                       "pet": {"$ref": "#/$defs/Pet"}},
        "required": ["pet"]})");
    ASSERT_EQ(compile_json_schema(pydantic, s), "");
    const JsonSchema::Node& owner = s.nodes[0];
    ASSERT_EQ(owner.keys, (std::vector<std::string>{"nick", "pet"}));
    EXPECT_EQ(owner.required, 0b10u);
    EXPECT_EQ(s.nodes[owner.values[0]].types, JsonSchema::kString | JsonSchema::kNull);
    const JsonSchema::Node& pet = s.nodes[owner.values[1]];
    EXPECT_EQ(pet.types, JsonSchema::kObject);
    ASSERT_EQ(pet.keys, std::vector<std::string>{"kind"});
    EXPECT_EQ(s.nodes[pet.values[0]].strings, (std::vector<std::string>{"cat", "dog"}));
}

TEST_F(ServerRequests, ResponseFormatJsonSchema) {
    const json msgs = {{{"role", "user"}, {"content", "Hi"}}};
    const json schema = {
        {"type", "object"}, {"properties", {{"ok", {{"type", "boolean"}}}}}, {"required", {"ok"}}};
    ParsedRequest r;
    ASSERT_FALSE(
        chat({{"messages", msgs},
              {"response_format",
               {{"type", "json_schema"},
                {"json_schema", {{"name", "answer"}, {"schema", schema}, {"strict", true}}}}}},
             r)
            .has_value());
    EXPECT_EQ(r.gen.format, OutputFormat::JsonSchema);
    ASSERT_TRUE(r.gen.json_schema);
    EXPECT_EQ(r.gen.json_schema->nodes[0].keys, std::vector<std::string>{"ok"});
    // Without a schema: any object.
    ParsedRequest any;
    ASSERT_FALSE(
        chat({{"messages", msgs},
              {"response_format", {{"type", "json_schema"}, {"json_schema", {{"name", "x"}}}}}},
             any)
            .has_value());
    EXPECT_EQ(any.gen.format, OutputFormat::JsonObject);
    for (const json& rf :
         {json{{"type", "json_schema"}},
          json{{"type", "json_schema"},
               {"json_schema", {{"name", "x"}, {"schema", {{"anyOf", json::array()}}}}}}}) {
        ParsedRequest bad;
        const auto e = chat({{"messages", msgs}, {"response_format", rf}}, bad);
        ASSERT_TRUE(e.has_value()) << rf.dump();
        EXPECT_EQ(e->status, 400);
        EXPECT_EQ(e->param.rfind("response_format", 0), 0u) << e->param;
    }
}

}  // namespace
}  // namespace hearth::server
