#include "response_choices.h"

#include <algorithm>

#include "api_error.h"

namespace hearth::server {

using nlohmann::json;

ResponseChoices::ResponseChoices(const ResponseHeader& head, const Model& model,
                                 std::vector<uint64_t> ids, bool logprobs, bool include_usage,
                                 int32_t per_prompt)
    : head_(head),
      model_(model),
      logprobs_(logprobs),
      include_usage_(include_usage),
      per_prompt_(static_cast<size_t>(std::max(1, per_prompt))),
      text_(head),
      choices_(ids.size()) {
    for (size_t i = 0; i < ids.size(); ++i) choices_[i].id = ids[i];
}

ResponseChoices::Choice* ResponseChoices::choice_of(uint64_t id, int& index) {
    for (size_t i = 0; i < choices_.size(); ++i)
        if (choices_[i].id == id) {
            index = static_cast<int>(i);
            return &choices_[i];
        }
    return nullptr;
}

RequestUsage ResponseChoices::total_usage() const {
    // A prompt counts once (its other choices read its blocks from the prefix cache); what
    // was generated and drafted adds up.
    RequestUsage u = choices_.front().usage;
    for (size_t i = 1; i < choices_.size(); ++i) {
        const RequestUsage& c = choices_[i].usage;
        if (i % per_prompt_ == 0) {
            u.prompt_tokens += c.prompt_tokens;
            u.cached_tokens += c.cached_tokens;
        }
        u.completion_tokens += c.completion_tokens;
        u.preemptions += c.preemptions;
        u.draft_tokens += c.draft_tokens;
        u.draft_accepted += c.draft_accepted;
        u.draft_steps += c.draft_steps;
        u.ttft_seconds = std::max(u.ttft_seconds, c.ttft_seconds);
        u.total_seconds = std::max(u.total_seconds, c.total_seconds);
    }
    return u;
}

json ResponseChoices::logprobs_of(Choice& c) const {
    if (head_.chat) return {{"content", c.chat_logprobs}, {"refusal", nullptr}};
    return c.legacy.object();
}

bool ResponseChoices::stream(const StreamEvent& ev, std::string& out) {
    int index = 0;
    Choice* c = choice_of(ev.request, index);
    if (!c || c->done) return false;
    if (!c->started && head_.chat)
        out += sse_event(stream_chunk(head_, "", true, nullptr, nullptr, index));
    c->started = true;
    if (logprobs_ && (ev.has_logprob || !ev.text.empty())) {
        // A token's chunk carries its entry; one of held-back text none.
        json lp;
        if (head_.chat)
            lp = {{"content",
                   ev.has_logprob ? json::array({chat_logprob_entry(model_, ev)}) : json::array()}};
        else if (ev.has_logprob)
            lp = c->legacy.add(model_, ev);
        out += sse_event(
            stream_chunk(head_, ev.text, false, nullptr, lp.is_null() ? nullptr : &lp, index));
    } else if (!ev.text.empty()) {
        if (index == 0)
            text_.append(out, ev.text);
        else
            out += sse_event(stream_chunk(head_, ev.text, false, nullptr, nullptr, index));
    }
    if (!ev.done) return false;
    if (!ev.error.empty()) {  // one failed choice ends the response
        out += sse_event(ApiError{500, ev.error, "server_error", {}, {}}.to_json());
        out += kSseDone;
        return true;
    }
    c->done = true;
    c->usage = ev.usage;
    out += sse_event(stream_chunk(head_, "", false, finish_reason(ev.reason), nullptr, index));
    if (++n_done_ < choices_.size()) return false;
    if (include_usage_) out += sse_event(usage_chunk(head_, total_usage()));
    out += kSseDone;
    return true;
}

std::optional<std::string> ResponseChoices::collect(const StreamEvent& ev) {
    int index = 0;
    Choice* c = choice_of(ev.request, index);
    if (!c || c->done) return std::nullopt;
    c->text += ev.text;
    if (ev.has_logprob) {
        if (head_.chat)
            c->chat_logprobs.push_back(chat_logprob_entry(model_, ev));
        else
            c->legacy.add(model_, ev);
    }
    if (!ev.done) return std::nullopt;
    if (!ev.error.empty()) return ApiError{500, ev.error, "server_error", {}, {}}.to_json();
    c->done = true;
    c->reason = ev.reason;
    c->usage = ev.usage;
    if (++n_done_ < choices_.size()) return std::nullopt;
    std::vector<json> lps;
    lps.reserve(choices_.size());
    std::vector<ChoiceBody> bodies;
    for (Choice& ch : choices_) lps.push_back(logprobs_ ? logprobs_of(ch) : json());
    for (size_t i = 0; i < choices_.size(); ++i)
        bodies.push_back({choices_[i].text, choices_[i].reason, logprobs_ ? &lps[i] : nullptr});
    return completion_body(head_, bodies, total_usage());
}

}  // namespace hearth::server
