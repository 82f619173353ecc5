// libFuzzer target: request bodies of the API server. Any bytes, read as JSON the way the
// server reads a body, go through parse_chat_request and parse_completion_request against a
// real model's tokenizer and chat template (stories260K from $HEARTH_SHARED_DIR or ../shared).
// Either outcome is allowed, a parsed request or a 4xx ApiError, but nothing may throw (the
// server would answer user input with a 500) or crash, and a parsed request must be one the
// scheduler takes: prompts non-empty and inside the vocabulary, max_tokens within the
// context, n, logprobs and logit biases in their ranges.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "hearth/engine.h"
#include "openai_request.h"

namespace {

using hearth::server::ParsedRequest;

const hearth::Model* model() {
    static const std::shared_ptr<hearth::Model> m = [] {
        const char* env = std::getenv("HEARTH_SHARED_DIR");
        const std::string path = std::string(env ? env : "../shared") + "/models/stories260K.gguf";
        auto r = hearth::Model::load(path);
        if (!r) {
            std::fprintf(stderr, "openai_request fuzz: no model (%s): every input skipped\n",
                         r.error_message().c_str());
            return std::shared_ptr<hearth::Model>();
        }
        return *r;
    }();
    return m.get();
}

void check(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "openai_request fuzz: %s\n", what);
        std::abort();
    }
}

void check_prompt(const std::vector<int32_t>& p, int64_t n_vocab) {
    check(!p.empty(), "empty prompt accepted");
    for (int32_t t : p) check(t >= 0 && t < n_vocab, "prompt token outside the vocabulary");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const hearth::Model* m = model();
    if (!m || size > (size_t{1} << 16)) return 0;
    const auto body = nlohmann::json::parse(data, data + size, nullptr, false);
    if (body.is_discarded() || !body.is_object()) return 0;  // the server's own 400s
    const hearth::server::RequestLimits limits{512, 511};
    const int64_t n_vocab = m->info().n_vocab;
    for (bool chat : {true, false}) {
        ParsedRequest r;
        const auto e = chat ? hearth::server::parse_chat_request(body, *m, limits, r)
                            : hearth::server::parse_completion_request(body, *m, limits, r);
        if (e) {
            check(e->status >= 400 && e->status < 500, "an error that is not a 4xx");
            check(!e->message.empty(), "an error without a message");
            continue;
        }
        check_prompt(r.gen.prompt, n_vocab);
        for (const auto& p : r.more_prompts) check_prompt(p, n_vocab);
        check(static_cast<int64_t>(r.gen.prompt.size()) <= limits.max_prompt_tokens,
              "prompt over the limit accepted");
        check(r.gen.max_tokens >= 1 &&
                  static_cast<int64_t>(r.gen.prompt.size()) + r.gen.max_tokens <= limits.n_ctx,
              "max_tokens outside the context");
        check(r.n >= 1 &&
                  (1 + r.more_prompts.size()) * size_t(r.n) <= size_t(hearth::server::kMaxChoices),
              "too many choices");
        check(r.gen.logprobs >= -1 && r.gen.logprobs <= hearth::kMaxTopLogprobs,
              "logprobs out of range");
        for (const auto& [id, bias] : r.gen.sampling.logit_bias)
            check(id >= 0 && id < n_vocab && bias >= -100.f && bias <= 100.f,
                  "logit bias out of range");
        check(r.gen.sampling.temperature >= 0.f && r.gen.sampling.temperature <= 2.f,
              "temperature out of range");
    }
    return 0;
}
