#include "openai_logprobs.h"

#include <cmath>
#include <string>

namespace hearth::server {

namespace {

using nlohmann::json;

// A token that has no probability at all (a logit of -inf) gets OpenAI's floor, not -inf,
// which JSON cannot carry.
double json_logprob(float lp) {
    return std::isfinite(lp) ? double(lp) : -9999.0;
}

json byte_list(const std::string& piece) {
    json b = json::array();
    for (unsigned char c : piece) b.push_back(int(c));
    return b;
}

// Characters a piece adds to the text: its UTF-8 lead bytes (a piece holding the middle of a
// character adds none).
int64_t characters(const std::string& piece) {
    int64_t n = 0;
    for (unsigned char c : piece) n += (c & 0xC0) != 0x80;
    return n;
}

}  // namespace

json chat_logprob_entry(const Model& model, const StreamEvent& ev) {
    const std::string piece = model.token_piece(ev.token);
    json top = json::array();
    for (const TokenLogprob& t : ev.top_logprobs) {
        const std::string p = model.token_piece(t.token);
        top.push_back(
            {{"token", p}, {"logprob", json_logprob(t.logprob)}, {"bytes", byte_list(p)}});
    }
    return {{"token", piece},
            {"logprob", json_logprob(ev.logprob)},
            {"bytes", byte_list(piece)},
            {"top_logprobs", std::move(top)}};
}

json CompletionLogprobs::add(const Model& model, const StreamEvent& ev) {
    const std::string piece = model.token_piece(ev.token);
    json top = json::object();
    for (const TokenLogprob& t : ev.top_logprobs)
        top[model.token_piece(t.token)] = json_logprob(t.logprob);
    json one = {{"tokens", {piece}},
                {"token_logprobs", {json_logprob(ev.logprob)}},
                {"top_logprobs", json::array({top})},
                {"text_offset", {offset_}}};
    for (const char* key : {"tokens", "token_logprobs", "top_logprobs", "text_offset"})
        j_[key].push_back(one[key][0]);
    offset_ += characters(piece);
    return one;
}

}  // namespace hearth::server
