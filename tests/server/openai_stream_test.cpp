// The client side of the OpenAI streaming API (server/client): recorded SSE transcripts of
// vLLM and llama.cpp (tests/server/transcripts, written from their documentation) fed through
// the parser in pieces of every size give the same text, reasoning, finish reason and usage;
// request bodies, model lists and error messages.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "openai_chat.h"
#include "openai_stream.h"

namespace hearth::openai {
namespace {

std::string transcript(const std::string& name) {
    std::ifstream in(std::string(HEARTH_TRANSCRIPTS_DIR) + "/" + name, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

struct Outcome {
    std::string text;  // content with reasoning in <think>…</think>
    std::string content;
    std::string reasoning;
    std::string finish;
    std::optional<Usage> usage;
    std::string error;
    bool done = false;
    int events = 0;
    bool pending = false;
};

// Feeds the bytes `piece` at a time, as a network delivers them.
Outcome run(const std::string& bytes, size_t piece) {
    SseParser sse;
    ThinkJoiner joiner;
    Outcome o;
    for (size_t at = 0; at < bytes.size(); at += piece) {
        for (const std::string& ev : sse.feed(std::string_view(bytes).substr(at, piece))) {
            ++o.events;
            const StreamDelta d = decode_chunk(ev);
            o.done = o.done || d.done;
            o.content += d.content;
            o.reasoning += d.reasoning;
            if (!d.finish_reason.empty()) o.finish = d.finish_reason;
            if (d.usage) o.usage = d.usage;
            if (!d.error.empty()) o.error = d.error;
            o.text += joiner.append(d);
        }
    }
    o.text += joiner.finish();
    o.pending = sse.pending();
    return o;
}

// Every cut of the stream gives the same result as the whole.
void expect_same_for_every_piece_size(const std::string& bytes, const Outcome& whole) {
    for (size_t piece : {size_t{1}, size_t{2}, size_t{3}, size_t{7}, size_t{64}, size_t{333}}) {
        const Outcome o = run(bytes, piece);
        EXPECT_EQ(o.text, whole.text) << "piece " << piece;
        EXPECT_EQ(o.events, whole.events) << "piece " << piece;
        EXPECT_EQ(o.finish, whole.finish) << "piece " << piece;
    }
}

TEST(OpenAiStream, VllmRoleOnlyFirstChunkEmptyContentUsageChunkAndDone) {
    const std::string bytes = transcript("vllm_chat.sse");
    ASSERT_FALSE(bytes.empty()) << HEARTH_TRANSCRIPTS_DIR;
    const Outcome o = run(bytes, bytes.size());
    EXPECT_EQ(o.events, 7);
    EXPECT_EQ(o.text, "Hello, wörld ✓");
    EXPECT_EQ(o.finish, "stop");
    ASSERT_TRUE(o.usage);
    EXPECT_EQ(o.usage->prompt_tokens, 12);
    EXPECT_EQ(o.usage->completion_tokens, 4);
    EXPECT_TRUE(o.done);
    EXPECT_TRUE(o.error.empty());
    EXPECT_FALSE(o.pending);
    expect_same_for_every_piece_size(bytes, o);
}

TEST(OpenAiStream, VllmReasoningContentBecomesAThinkBlock) {
    const std::string bytes = transcript("vllm_reasoning.sse");
    const Outcome o = run(bytes, bytes.size());
    EXPECT_EQ(o.reasoning, "The user greets me. I should greet back.");
    EXPECT_EQ(o.content, "Hi there!");
    EXPECT_EQ(o.text, "<think>The user greets me. I should greet back.</think>\n\nHi there!");
    EXPECT_EQ(o.finish, "length");
    ASSERT_TRUE(o.usage);
    EXPECT_EQ(o.usage->completion_tokens, 12);
    EXPECT_TRUE(o.done);
    expect_same_for_every_piece_size(bytes, o);
}

TEST(OpenAiStream, LlamaCppNullContentCrlfAndUsageInTheFinishChunk) {
    const std::string bytes = transcript("llamacpp_chat.sse");
    ASSERT_NE(bytes.find("\r\n"), std::string::npos);  // the file keeps its CRLF line ends
    const Outcome o = run(bytes, bytes.size());
    EXPECT_EQ(o.events, 6);
    EXPECT_EQ(o.text, "Once upon a time");
    EXPECT_EQ(o.finish, "stop");
    ASSERT_TRUE(o.usage);
    EXPECT_EQ(o.usage->prompt_tokens, 20);
    EXPECT_EQ(o.usage->completion_tokens, 3);
    EXPECT_TRUE(o.done);
    expect_same_for_every_piece_size(bytes, o);
}

TEST(OpenAiStream, LlamaCppReasoningFormat) {
    const std::string bytes = transcript("llamacpp_reasoning.sse");
    const Outcome o = run(bytes, bytes.size());
    EXPECT_EQ(o.text, "<think>Two plus two is four.</think>\n\n4");
    expect_same_for_every_piece_size(bytes, o);
}

TEST(OpenAiStream, CommentsAndEventFieldsAreSkipped) {
    const std::string bytes = transcript("keepalive_comments.sse");
    const Outcome o = run(bytes, bytes.size());
    EXPECT_EQ(o.events, 4);  // the comments make none
    EXPECT_EQ(o.text, "AB");
    EXPECT_EQ(o.finish, "stop");
    EXPECT_TRUE(o.done);
    expect_same_for_every_piece_size(bytes, o);
}

TEST(OpenAiStream, ACutStreamHasNoFinishAndNoDone) {
    const std::string bytes = transcript("cut_midway.sse");
    const Outcome o = run(bytes, bytes.size());
    EXPECT_EQ(o.text, "Partial reply");
    EXPECT_TRUE(o.finish.empty());
    EXPECT_FALSE(o.done);
    // Cut inside an event: the half event is held back, not decoded.
    const Outcome half = run(bytes.substr(0, bytes.size() - 20), 5);
    EXPECT_EQ(half.text, "Partial");
    EXPECT_TRUE(half.pending);
}

TEST(OpenAiStream, AnErrorInsideTheStreamIsReported) {
    const Outcome o = run(transcript("error_midway.sse"), 9);
    EXPECT_EQ(o.text, "Some");
    EXPECT_EQ(o.error, "CUDA out of memory");
    EXPECT_FALSE(o.done);
}

TEST(OpenAiStream, BadChunksAreErrorsNotCrashes) {
    EXPECT_FALSE(decode_chunk("{not json").error.empty());
    EXPECT_FALSE(decode_chunk("[1,2]").error.empty());
    EXPECT_TRUE(decode_chunk("[DONE]").done);
    EXPECT_TRUE(decode_chunk("[DONE]\r").done);
    // Odd but valid shapes decode to nothing rather than failing.
    const StreamDelta odd = decode_chunk(R"({"choices":[{"delta":{"content":5}}]})");
    EXPECT_TRUE(odd.error.empty());
    EXPECT_TRUE(odd.content.empty());
    EXPECT_TRUE(decode_chunk(R"({"choices":"x"})").error.empty());
    EXPECT_EQ(decode_chunk(R"({"error":"overloaded"})").error, "\"overloaded\"");
    // Multi-line data is joined with a newline.
    SseParser sse;
    const auto events = sse.feed("data: a\ndata: b\n\n");
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0], "a\nb");
}

TEST(OpenAiChat, RequestBodyMapsSamplingAndContinue) {
    ChatRequest r;
    r.model = "m";
    r.messages = {{"system", "Be brief."}, {"user", "Hi"}};
    r.sampling.temperature = 0.2;
    r.sampling.top_k = 0;
    r.sampling.repeat_penalty = 1.1;
    r.sampling.seed = 7;
    r.sampling.max_tokens = 0;
    auto j = nlohmann::json::parse(chat_request_json(r));
    EXPECT_EQ(j["model"], "m");
    EXPECT_EQ(j["messages"].size(), 2u);
    EXPECT_EQ(j["messages"][0]["role"], "system");
    EXPECT_EQ(j["stream"], true);
    EXPECT_EQ(j["stream_options"]["include_usage"], true);
    EXPECT_DOUBLE_EQ(j["temperature"].get<double>(), 0.2);
    EXPECT_FALSE(j.contains("top_k"));  // 0: off, not sent
    EXPECT_DOUBLE_EQ(j["repetition_penalty"].get<double>(), 1.1);
    EXPECT_DOUBLE_EQ(j["repeat_penalty"].get<double>(), 1.1);
    EXPECT_EQ(j["seed"], 7);
    EXPECT_EQ(j["max_tokens"], 1);
    EXPECT_FALSE(j.contains("continue_final_message"));
    r.messages.push_back({"assistant", "Once"});
    r.continue_final = true;
    j = nlohmann::json::parse(chat_request_json(r));
    EXPECT_EQ(j["continue_final_message"], true);
    EXPECT_EQ(j["add_generation_prompt"], false);
}

TEST(OpenAiChat, ModelListAndErrors) {
    std::string err;
    auto ids = parse_model_list(
        R"({"object":"list","data":[{"id":"a","object":"model"},{"id":"b"}]})", err);
    ASSERT_TRUE(ids);
    EXPECT_EQ(*ids, (std::vector<std::string>{"a", "b"}));
    EXPECT_FALSE(parse_model_list("<html>", err));
    EXPECT_FALSE(err.empty());
    const std::string e401 = describe_http_error(
        401,
        R"({"error":{"message":"Invalid API key","type":"invalid_request_error","param":null,"code":"invalid_api_key"}})");
    EXPECT_NE(e401.find("401"), std::string::npos);
    EXPECT_NE(e401.find("API key"), std::string::npos);
    EXPECT_NE(e401.find("Invalid API key"), std::string::npos);
    EXPECT_NE(describe_http_error(404, "{}").find("base URL"), std::string::npos);
    EXPECT_NE(describe_http_error(429, "").find("busy"), std::string::npos);
    EXPECT_NE(
        describe_http_error(503, "Service Unavailable\n").find("(server: Service Unavailable)"),
        std::string::npos);
    EXPECT_NE(describe_http_error(500, R"({"detail":"boom"})").find("boom"), std::string::npos);
}

}  // namespace
}  // namespace hearth::openai
