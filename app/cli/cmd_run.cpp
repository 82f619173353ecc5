// hearth-cli run: generate a continuation of a prompt and print it with the speeds.
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "args.h"
#include "command_registry.h"
#include "device_options.h"
#include "gguf/gguf_file.h"
#include "hearth/chat_prompt.h"
#include "hearth/engine.h"
#include "hearth/session.h"
#include "hearth/speculative.h"
#include "json_schema_compile.h"
#include "model/int4_convert.h"
#include "run_remote.h"

namespace {

constexpr const char* kUsage =
    "Usage: hearth-cli run -m MODEL -p PROMPT [options]\n"
    "       hearth-cli run -m MODEL --prompt-ids 1,25,300 [options]\n"
    "\n"
    "Generates a continuation of PROMPT and streams it to stdout (the prompt itself is not\n"
    "repeated). Afterwards one line of statistics goes to stderr:\n"
    "  prompt: N tokens in S s (R tok/s) | generation: N tokens in S s (R tok/s) | first token: T "
    "ms\n"
    "\n"
    "Options:\n"
    "  -m, --model FILE        GGUF model file\n"
    "  -p, --prompt TEXT       prompt (BOS added by the model's convention; special tokens\n"
    "                          in the text are plain text)\n"
    "      --prompt-ids IDS    the prompt as comma-separated token ids, used as given (no\n"
    "                          tokenizer, no BOS added: include it yourself)\n"
    "  -n, --n-predict N       tokens to generate (default 128)\n"
    "      --temp T            temperature; 0 = greedy (default 0.8)\n"
    "      --top-k K           (default 40; 0 = off)\n"
    "      --top-p P           (default 0.95; 1 = off)\n"
    "      --min-p M           (default 0.05; 0 = off)\n"
    "      --repeat-penalty R  (default 1.0 = off), --repeat-last-n N (default 64)\n"
    "      --frequency-penalty F, --presence-penalty P (default 0)\n"
    "      --seed S            sampling seed (default: random, printed to stderr)\n"
    "      --stop TEXT         stop before TEXT (repeatable)\n"
    "      --ignore-eos        keep generating after an end-of-generation token\n"
    "      --json              the reply is one JSON object (constrained decoding; it ends\n"
    "                          when the object closes)\n"
    "      --json-schema FILE  ... that follows the JSON Schema in FILE (the API server's\n"
    "                          subset: README, Local API server)\n"
    "  -t, --threads N         CPU threads (default: all)\n"
    "  -c, --ctx-size N        context length (default: the model's training context; a longer\n"
    "                          one is clamped to it unless --ctx-beyond-training)\n"
    "      --kv-type TYPE      KV cache type: f16 (default), q8_0, q4_0 or "
    "f32\n" HEARTH_CLI_DEVICE_OPTIONS_USAGE
    "      --int4              INT4 weights: convert linear layers wider than 5 bits to 4-bit\n"
    "                          (AWQ, cached; see hearth-cli convert); prints one stderr line\n"
    "                          \"int4: converted|cache hit|not needed|not supported for this\n"
    "                          architecture (SOURCE_TYPES)\"; llama and qwen2 without experts\n"
    "                          only, other models load as stored\n"
    "      --int4-cache DIR    cache directory (default ~/.cache/hearth; entries in DIR/int4)\n"
    "      --ids               print the generated token ids (space separated) instead of text\n"
    "      --logits-out FILE   write the logits at the last prompt position as JSON:\n"
    "                          {\"prompt_token_ids\": [...], \"n_vocab\": V, \"logits\": [...]}\n"
    "      --chat              apply the model's chat template to PROMPT as a user message\n"
    "      --system TEXT       with --chat: a system message before the prompt\n"
    "\n"
    "Speculative decoding (the output is the same as without; greedy: the same tokens):\n"
    "      --lookup            draft by prompt lookup: the tokens that followed the last\n"
    "                          earlier occurrence of the sequence's last 4..2 tokens\n"
    "      --lookup-ngram MIN,MAX  n-gram lengths tried, longest first (default 2,4)\n"
    "      --draft-model FILE  draft with a smaller GGUF of the same vocabulary (token texts\n"
    "                          and special tokens are checked; another is refused)\n"
    "      --draft-max K       most drafted tokens per step (default 8); the drafters\n"
    "                          adapt K to the recent acceptance rate\n"
    "      --draft-fixed       keep K fixed (no adaptation)\n"
    "  With either, one more stderr line:\n"
    "  speculative: DRAFTER | steps N | drafted N | accepted N (R%) | mean accepted length L\n"
    "\n"
    "A model on a server (another Hearth, vLLM, LMDeploy, llama.cpp's server: OpenAI API):\n"
    "  hearth-cli run --remote URL --model NAME -p PROMPT [--system TEXT] [sampling options]\n"
    "      --remote URL        the server's base URL, e.g. http://127.0.0.1:8080/v1 (https is\n"
    "                          checked against the system's certificates)\n"
    "      --model NAME        the model as GET URL/models lists it\n"
    "      --api-key KEY       sent as a bearer token (default: $HEARTH_API_KEY)\n"
    "      --timeout S         connect and between-bytes timeout in seconds (default 120)\n"
    "  PROMPT is sent as a user message (the server applies its chat template); -n, --temp,\n"
    "  --top-k, --top-p, --min-p, --repeat-penalty and --seed map to the request. The reply\n"
    "  (reasoning inside <think>...</think>) goes to stdout, then one stderr line:\n"
    "  remote: NAME | generation: N tokens in S s (R tok/s) | first token: T ms | finish: F\n";

std::atomic<bool> g_interrupted{false};
hearth::Context* g_context = nullptr;
hearth::Session* g_session = nullptr;

void on_sigint(int) {
    g_interrupted.store(true);
    if (g_context) g_context->cancel();
    if (g_session) g_session->cancel();
}

// "2,4" -> {2, 4}.
bool parse_pair(const std::string& text, int& a, int& b) {
    char tail = 0;
    return std::sscanf(text.c_str(), "%d,%d%c", &a, &b, &tail) == 2 && a >= 1 && b >= a && b <= 64;
}

bool write_logits(const std::string& path, std::span<const int32_t> prompt,
                  std::span<const float> logits) {
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) return false;
    std::fprintf(f, "{\"prompt_token_ids\": [");
    for (size_t i = 0; i < prompt.size(); ++i) std::fprintf(f, "%s%d", i ? "," : "", prompt[i]);
    std::fprintf(f, "],\n \"n_vocab\": %zu,\n \"logits\": [", logits.size());
    for (size_t i = 0; i < logits.size(); ++i)
        std::fprintf(f, "%s%.9g", i ? "," : "", static_cast<double>(logits[i]));
    std::fprintf(f, "]}\n");
    return std::fclose(f) == 0;
}

// "1,25,300" -> {1, 25, 300}; false on anything else (empty items, signs, overflow).
bool parse_ids(const std::string& text, std::vector<int32_t>& out) {
    out.clear();
    size_t i = 0;
    while (i <= text.size()) {
        const size_t end = std::min(text.find(',', i), text.size());
        if (end == i || end - i > 10) return false;
        long long v = 0;
        for (size_t j = i; j < end; ++j) {
            if (text[j] < '0' || text[j] > '9') return false;
            v = v * 10 + (text[j] - '0');
        }
        if (v > 2147483647LL) return false;
        out.push_back(static_cast<int32_t>(v));
        i = end + 1;
    }
    return !out.empty();
}

int run(std::span<const std::string> argv) {
    using hearth::cli::OptionSpec;
    std::vector<OptionSpec> specs = {
        {"model", 'm', true},
        {"prompt", 'p', true},
        {"prompt-ids", 0, true},
        {"n-predict", 'n', true},
        {"temp", 0, true},
        {"top-k", 0, true},
        {"top-p", 0, true},
        {"min-p", 0, true},
        {"repeat-penalty", 0, true},
        {"repeat-last-n", 0, true},
        {"frequency-penalty", 0, true},
        {"presence-penalty", 0, true},
        {"seed", 0, true},
        {"stop", 0, true, true},
        {"ignore-eos", 0, false},
        {"json", 0, false},
        {"json-schema", 0, true},
        {"threads", 't', true},
        {"ctx-size", 'c', true},
        {"kv-type", 0, true},
        {"ids", 0, false},
        {"logits-out", 0, true},
        {"chat", 0, false},
        {"system", 0, true},
        {"int4", 0, false},
        {"int4-cache", 0, true},
        {"lookup", 0, false},
        {"lookup-ngram", 0, true},
        {"draft-model", 0, true},
        {"draft-max", 0, true},
        {"draft-fixed", 0, false},
        {"remote", 0, true},
        {"api-key", 0, true},
        {"timeout", 0, true},
    };
    specs.insert(specs.end(), std::begin(hearth::cli::kDeviceOptionSpecs),
                 std::end(hearth::cli::kDeviceOptionSpecs));
    std::string err;
    auto args = hearth::cli::Args::parse(argv, specs, err);
    if (!args) {
        std::fprintf(stderr, "hearth-cli run: %s\n%s", err.c_str(), kUsage);
        return 2;
    }
    if (args->has("remote") && (args->has("json") || args->has("json-schema"))) {
        std::fprintf(stderr,
                     "hearth-cli run: --json and --json-schema are not sent with --remote "
                     "(the server takes response_format in the request)\n");
        return 2;
    }
    if (args->has("remote")) return hearth::cli::run_remote(*args);
    if (args->has("api-key") || args->has("timeout")) {
        std::fprintf(stderr, "hearth-cli run: --api-key and --timeout go with --remote\n");
        return 2;
    }
    if (!args->has("model") || args->has("prompt") == args->has("prompt-ids")) {
        std::fprintf(stderr,
                     "hearth-cli run: -m MODEL and one of -p PROMPT or --prompt-ids are "
                     "required\n%s",
                     kUsage);
        return 2;
    }
    std::vector<int32_t> prompt_ids;
    if (auto list = args->value("prompt-ids")) {
        if (args->has("chat")) {
            std::fprintf(stderr, "hearth-cli run: --chat needs -p PROMPT, not --prompt-ids\n");
            return 2;
        }
        if (!parse_ids(*list, prompt_ids)) {
            std::fprintf(stderr,
                         "hearth-cli run: --prompt-ids: expected comma-separated token ids "
                         "(0..2147483647), got '%s'\n",
                         list->c_str());
            return 2;
        }
    }
    hearth::SamplingParams sp;
    hearth::ContextOptions co;
    long long n_predict = 128;
    auto num = [&](const char* name, auto& dst) {
        if (auto v = args->number(name, err)) dst = static_cast<std::decay_t<decltype(dst)>>(*v);
        return err.empty();
    };
    auto integer = [&](const char* name, auto& dst) {
        if (auto v = args->integer(name, err)) dst = static_cast<std::decay_t<decltype(dst)>>(*v);
        return err.empty();
    };
    bool seeded = args->has("seed");
    sp.seed = std::random_device{}();
    if (!num("temp", sp.temperature) || !integer("top-k", sp.top_k) || !num("top-p", sp.top_p) ||
        !num("min-p", sp.min_p) || !num("repeat-penalty", sp.repeat_penalty) ||
        !integer("repeat-last-n", sp.penalty_last_n) ||
        !num("frequency-penalty", sp.frequency_penalty) ||
        !num("presence-penalty", sp.presence_penalty) || !integer("seed", sp.seed) ||
        !integer("n-predict", n_predict) || !integer("threads", co.n_threads) ||
        !integer("ctx-size", co.n_ctx)) {
        std::fprintf(stderr, "hearth-cli run: %s\n", err.c_str());
        return 2;
    }
    const auto kv = hearth::parse_kv_type(args->value_or("kv-type", "f16"));
    if (!kv) {
        std::fprintf(stderr, "hearth-cli run: --kv-type: %s\n", kv.error_message().c_str());
        return 2;
    }
    co.kv_type = *kv;
    if (n_predict < 0) n_predict = 0;
    const bool speculate = args->has("lookup") || args->has("draft-model");
    if (args->has("lookup") && args->has("draft-model")) {
        std::fprintf(stderr, "hearth-cli run: --lookup and --draft-model exclude each other\n");
        return 2;
    }
    // JSON mode: the schema is read before the model loads, so a bad file fails fast.
    hearth::OutputFormat format = hearth::OutputFormat::Text;
    std::shared_ptr<hearth::JsonSchema> json_schema;
    if (auto file = args->value("json-schema")) {
        std::ifstream in(*file);
        nlohmann::json doc;
        try {
            if (!in) throw std::runtime_error("cannot be read");
            doc = nlohmann::json::parse(in);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "hearth-cli run: --json-schema %s: %s\n", file->c_str(), e.what());
            return 2;
        }
        json_schema = std::make_shared<hearth::JsonSchema>();
        if (std::string why = hearth::server::compile_json_schema(doc, *json_schema);
            !why.empty()) {
            std::fprintf(stderr, "hearth-cli run: --json-schema %s: %s\n", file->c_str(),
                         why.c_str());
            return 2;
        }
        format = hearth::OutputFormat::JsonSchema;
    } else if (args->has("json")) {
        format = hearth::OutputFormat::JsonObject;
    }
    if (format != hearth::OutputFormat::Text && speculate) {
        std::fprintf(stderr,
                     "hearth-cli run: --json and --json-schema go without --lookup and "
                     "--draft-model\n");
        return 2;
    }
    long long draft_max = 8;
    if (!integer("draft-max", draft_max) || draft_max < 1 || draft_max > 64) {
        std::fprintf(stderr, "hearth-cli run: --draft-max: expected 1..64 %s\n", err.c_str());
        return 2;
    }
    hearth::LookupOptions lookup;
    lookup.draft_max = static_cast<int32_t>(draft_max);
    lookup.adaptive = !args->has("draft-fixed");
    if (auto ng = args->value("lookup-ngram")) {
        int a = 0, b = 0;
        if (!parse_pair(*ng, a, b)) {
            std::fprintf(stderr,
                         "hearth-cli run: --lookup-ngram: expected MIN,MAX (1 <= MIN <= "
                         "MAX <= 64), got '%s'\n",
                         ng->c_str());
            return 2;
        }
        lookup.ngram_min = a;
        lookup.ngram_max = b;
    }

    hearth::LoadOptions lo;
    if (!hearth::cli::read_device_options(*args, lo, err)) {
        std::fprintf(stderr, "hearth-cli run: %s\n", err.c_str());
        return 2;
    }
    lo.n_ctx = co.n_ctx;
    lo.kv_type = co.kv_type;
    lo.int4_weights = args->has("int4");
    lo.int4_cache_dir = args->value_or("int4-cache", "");
    lo.cancel = &g_interrupted;
    std::signal(SIGINT, on_sigint);  // before the load: Ctrl-C cancels a conversion cleanly
    auto model = hearth::Model::load(*args->value("model"), lo);
    if (!model) {
        std::fprintf(stderr, "hearth-cli run: %s\n",
                     hearth::cli::load_error_text(model.error_message()).c_str());
        return 1;
    }
    hearth::cli::print_placement("run", (*model)->info());
    // The context the run gets (0: the training context; longer: clamped unless allowed).
    const int64_t n_ctx = hearth::cli::print_context_note("run", (*model)->info(), co.n_ctx);
    if (lo.int4_weights) {
        const auto& mi = (*model)->info();
        auto file = hearth::gguf::GgufFile::open(*args->value("model"));
        const bool supported = file && hearth::model::int4_supported(**file);
        std::fprintf(stderr, "int4: %s (%s)\n",
                     !supported           ? "not supported for this architecture"
                     : !mi.int4_converted ? "not needed"
                     : mi.int4_cache_hit  ? "cache hit"
                                          : "converted",
                     mi.int4_converted ? mi.int4_source_types.c_str() : mi.weight_types.c_str());
    }
    // Speculation runs on a session of the paged KV cache; plain runs on a Context.
    std::unique_ptr<hearth::Context> context;
    std::unique_ptr<hearth::Session> session;
    std::unique_ptr<hearth::Drafter> drafter;
    if (speculate) {
        auto store = hearth::KvStore::create(*model, {.kv_type = co.kv_type, .n_ctx = n_ctx});
        if (!store) {
            std::fprintf(stderr, "hearth-cli run: %s\n", store.error_message().c_str());
            return 1;
        }
        auto s =
            hearth::Session::create(*store, {.n_threads = co.n_threads, .n_batch = co.n_batch});
        if (!s) {
            std::fprintf(stderr, "hearth-cli run: %s\n", s.error_message().c_str());
            return 1;
        }
        session = std::move(*s);
        if (auto path = args->value("draft-model")) {
            hearth::LoadOptions dlo;
            dlo.backend = lo.backend;
            dlo.ctx_beyond_training = lo.ctx_beyond_training;
            dlo.cancel = &g_interrupted;
            auto draft = hearth::Model::load(*path, dlo);
            if (!draft) {
                std::fprintf(stderr, "hearth-cli run: --draft-model: %s\n",
                             draft.error_message().c_str());
                return 1;
            }
            hearth::DraftModelOptions dmo;
            dmo.draft_max = static_cast<int32_t>(draft_max);
            dmo.adaptive = !args->has("draft-fixed");
            dmo.n_ctx = n_ctx;
            dmo.kv_type = co.kv_type;
            dmo.n_threads = co.n_threads;
            auto d = hearth::make_model_drafter(**model, *draft, dmo);
            if (!d) {
                std::fprintf(stderr, "hearth-cli run: --draft-model: %s\n",
                             d.error_message().c_str());
                return 1;
            }
            drafter = std::move(*d);
        } else {
            drafter = hearth::make_lookup_drafter(lookup);
        }
    } else {
        auto ctx = hearth::Context::create(*model, co);
        if (!ctx) {
            std::fprintf(stderr, "hearth-cli run: %s\n", ctx.error_message().c_str());
            return 1;
        }
        context = std::move(*ctx);
    }
    std::vector<hearth::ChatTurn> turns;
    if (auto system = args->value("system")) turns.push_back({"system", *system});
    if (args->has("prompt")) turns.push_back({"user", *args->value("prompt")});
    std::vector<std::string> chat_stops;
    auto prompt = [&]() -> hearth::Result<std::vector<int32_t>> {
        if (!prompt_ids.empty()) return prompt_ids;  // ids are checked by feed()
        if (!args->has("chat")) return (*model)->tokenize(*args->value("prompt"), true, false);
        auto chat = hearth::build_chat_prompt(**model, turns);
        if (!chat) return chat.status();
        if (!chat->note.empty())
            std::fprintf(stderr, "hearth-cli run: note: %s\n", chat->note.c_str());
        chat_stops = chat->stop_strings;
        return std::move(chat->tokens);
    }();
    if (!prompt) {
        std::fprintf(stderr, "hearth-cli run: %s\n", prompt.error_message().c_str());
        return 1;
    }
    g_context = context.get();
    g_session = session.get();
    hearth::Status fed = hearth::Status::ok();
    if (session) {
        if (auto r = session->prefill(*prompt); !r) fed = r.status();
    } else {
        fed = context->feed(*prompt);
    }
    if (const hearth::Status& s = fed; !s) {
        std::fprintf(stderr, "hearth-cli run: %s\n", s.message().c_str());
        return 1;
    }
    if (auto path = args->value("logits-out")) {
        if (!write_logits(*path, *prompt, session ? session->logits() : context->logits())) {
            std::fprintf(stderr, "hearth-cli run: cannot write %s\n", path->c_str());
            return 1;
        }
    }
    const bool ids = args->has("ids");
    hearth::GenerateOptions go;
    go.max_tokens = static_cast<int32_t>(n_predict);
    go.sampling = sp;
    go.stop_strings = args->values("stop");
    go.stop_strings.insert(go.stop_strings.end(), chat_stops.begin(), chat_stops.end());
    go.stop_at_end_of_generation = !args->has("ignore-eos");
    go.format = format;
    go.json_schema = json_schema;
    bool first = true;
    go.on_token = [&](int32_t token, std::string_view delta) {
        if (ids) {
            if (token >= 0) std::printf(first ? "%d" : " %d", token);
            first = false;
        } else {
            std::fwrite(delta.data(), 1, delta.size(), stdout);
        }
        std::fflush(stdout);
        return true;
    };
    auto res = session ? session->generate(go, *drafter) : context->generate(go);
    g_context = nullptr;
    g_session = nullptr;
    std::printf("\n");
    std::fflush(stdout);  // the text before the statistics on a shared terminal or log
    if (!res) {
        std::fprintf(stderr, "hearth-cli run: %s\n", res.error_message().c_str());
        return 1;
    }
    const auto& st = session ? session->stats() : context->stats();
    std::fprintf(
        stderr,
        "prompt: %lld tokens in %.3f s (%.1f tok/s) | generation: %lld tokens in %.3f s "
        "(%.1f tok/s) | first token: %.1f ms | stop: %s%s\n",
        static_cast<long long>(st.prompt_tokens), st.prompt_seconds, st.prompt_tokens_per_second(),
        static_cast<long long>(st.generated_tokens), st.generate_seconds,
        st.generate_tokens_per_second(), st.time_to_first_token * 1000.0,
        hearth::stop_reason_name(res->reason),
        seeded || sp.temperature <= 0 ? "" : (" | seed: " + std::to_string(sp.seed)).c_str());
    if (drafter) {
        const auto& ss = drafter->stats();
        std::fprintf(stderr,
                     "speculative: %s | steps %lld | drafted %lld | accepted %lld (%.1f%%) | mean "
                     "accepted length %.2f\n",
                     std::string(drafter->name()).c_str(), static_cast<long long>(ss.steps),
                     static_cast<long long>(ss.drafted), static_cast<long long>(ss.accepted),
                     100.0 * ss.acceptance_rate(), ss.mean_accepted_length());
    }
    return g_interrupted ? 130 : 0;
}

}  // namespace

HEARTH_CLI_COMMAND({"run", "generate text from a prompt", kUsage, run});
