#include "runtime/generation.h"

#include "runtime/json_mask.h"
#include "runtime/sampler.h"
#include "runtime/stop_matcher.h"
#include "tokenizer/streaming_decoder.h"

namespace hearth::runtime {

Result<GenerateResult> generate_tokens(const tokenizer::Tokenizer& tokenizer,
                                       const GenerateOptions& opt, std::span<const int32_t> history,
                                       const std::vector<float>& logits,
                                       std::optional<int32_t>& pending,
                                       const std::atomic<bool>& cancel, GenerationStats& stats,
                                       const GenerationHooks& hooks,
                                       std::chrono::steady_clock::time_point t0) {
    const auto seconds_since = [](std::chrono::steady_clock::time_point t) {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    };
    const auto cancelled = [&] {
        return cancel.load(std::memory_order_relaxed) ||
               (hooks.token && hooks.token->load(std::memory_order_relaxed));
    };
    runtime::SamplerChain chain = runtime::make_sampler_chain(opt.sampling);
    for (int32_t t : history) chain.accept(t);
    tokenizer::StreamingDecoder decoder(tokenizer);
    runtime::StopMatcher stop(opt.stop_strings);
    GenerateResult res;
    bool first = true;
    // JSON mode: each token is drawn from a copy of the logits with the tokens that would break
    // the object masked.
    std::optional<JsonRecognizer> json;
    std::optional<JsonTokenMask> mask;
    std::vector<float> masked;
    if (opt.format != OutputFormat::Text) {
        const JsonSchema* schema =
            opt.format == OutputFormat::JsonSchema ? opt.json_schema.get() : nullptr;
        if (std::string why = json_format_error(opt.format, schema); !why.empty())
            return Status::error(why);
        json.emplace(schema);
        mask.emplace(JsonTokenMask::for_tokenizer(tokenizer));
    }
    // Plain greedy: after the first token (from the logits the caller has) the device picks
    // each next one and only its index comes back.
    const bool on_device = hooks.eval_greedy && runtime::is_plain_greedy(opt.sampling) && !json;
    std::optional<int32_t> picked;
    for (int32_t i = 0; i < opt.max_tokens; ++i) {
        if (cancelled()) {
            res.reason = StopReason::Cancelled;
            break;
        }
        int32_t tok = -1;
        if (json) {
            std::string why;
            tok = sample_json_token(*mask, *json, chain, logits, masked, why);
            if (tok < 0) return Status::error(why);
        } else {
            tok = picked ? *picked : chain.sample(logits);
        }
        picked.reset();
        chain.accept(tok);
        if (first) {
            stats.time_to_first_token = seconds_since(t0);
            first = false;
        }
        if (opt.stop_at_end_of_generation && tokenizer.is_end_of_generation(tok)) {
            res.reason = StopReason::EndOfGeneration;
            break;
        }
        res.tokens.push_back(tok);
        ++stats.generated_tokens;
        bool hit = false;
        const std::string delta = stop.push(decoder.push(tok), hit);
        res.text += delta;
        const bool keep_going = !opt.on_token || opt.on_token(tok, delta);
        if (hit) {
            res.reason = StopReason::StopString;
            pending = tok;
            break;
        }
        if (json && json->complete()) {  // the object is closed: the reply is done
            res.reason = StopReason::EndOfGeneration;
            pending = tok;
            break;
        }
        if (!keep_going) {
            res.reason = StopReason::Cancelled;
            pending = tok;
            break;
        }
        if (i + 1 == opt.max_tokens) {
            pending = tok;  // evaluated by the next feed/generate, if any
            break;
        }
        if (!hooks.has_room()) {
            res.reason = StopReason::ContextFull;
            break;
        }
        Status s = Status::ok();
        if (on_device) {
            auto next = hooks.eval_greedy(tok);
            if (next)
                picked = *next;
            else
                s = next.status();
        } else {
            s = hooks.eval(tok);
        }
        if (!s) {
            if (cancelled()) {
                res.reason = StopReason::Cancelled;
                break;
            }
            return s;
        }
    }
    bool hit = false;
    std::string tail = stop.push(decoder.finish(), hit);
    if (!hit) tail += stop.finish();
    if (!tail.empty()) {
        res.text += tail;
        if (opt.on_token) opt.on_token(-1, tail);
    }
    return res;
}

}  // namespace hearth::runtime
