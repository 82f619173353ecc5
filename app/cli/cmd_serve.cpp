// hearth-cli serve: the local OpenAI-compatible API server (server/) over one model, with
// continuous batching (hearth/scheduler.h). Runs until SIGINT or SIGTERM.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "api_server.h"
#include "args.h"
#include "command_registry.h"
#include "device_options.h"
#include "hearth/scheduler.h"

namespace {

constexpr const char* kUsage =
    R"usage(Usage: hearth-cli serve -m MODEL [--host 127.0.0.1] [--port 8080] [--api-key KEY]
                        [--parallel N] [options]

Serves the model through an OpenAI-compatible HTTP API until interrupted (Ctrl-C):
  GET  /v1/models               the loaded model (its id is the file name without .gguf)
  POST /v1/chat/completions     messages rendered with the model's chat template; "stream": true
                                sends server-sent events ending with "data: [DONE]"
  POST /v1/completions          a prompt string or an array of token ids; streams too
  GET  /health                  {"status": "ok", ...} (no key needed)
  POST /tokenize, /detokenize   {"content": "text"} <-> {"tokens": [ids]}
Requests run together (continuous batching): up to --parallel sequences share each forward
step; more wait in a queue of --queue requests, and beyond that get 429.

Prints "listening on http://HOST:PORT/v1 (model ID)" once it accepts connections.

Options:
  -m, --model FILE        GGUF model file
      --host ADDR         address to listen on (default 127.0.0.1, this machine only); any
                          other address needs an API key
      --port N            port (default 8080; 0: any free port)
      --api-key KEY       require "Authorization: Bearer KEY" (default: $HEARTH_API_KEY)
      --parallel N        sequences decoded together (default 4)
      --queue N           requests waiting beyond those (default 16)
  -c, --ctx-size N        context length of every sequence (default 4096; one longer than
                          the model's training context is clamped to it, with a note)
      --ctx-beyond-training  keep a context longer than the model's training context
      --kv-type TYPE      f16 (default), q8_0, q4_0, f32
      --batch N           tokens per forward step: decodes plus prompt chunks (default 256)
      --max-body BYTES    largest request body (default 1048576; larger: 413)
      --timeout S         read/write timeout for slow clients in seconds (default 30)
      --cors-origin URL   send CORS headers allowing this origin (default: none)
      --model-id NAME     the model's name in the API (default: the file name)
      --log               one line per request on stderr
      --lookup            speculative decoding by prompt lookup for every request (a request
                          may say "speculative": "off" or "lookup" itself); greedy output is
                          unchanged, sampled output has the same distribution
      --draft-max K       most drafted tokens per sequence and step (default 8; adapted to the
                          acceptance rate; also at most --batch / --parallel - 1)
  -t, --threads N         CPU threads (default: all)

Extensions of the request body: "speculative": "lookup" | "off", "draft_max": K (1-32).
With speculation the usage holds completion_tokens_details.accepted_prediction_tokens and
rejected_prediction_tokens; /health counts drafted and accepted tokens of all requests.
)usage";

int serve(std::span<const std::string> argv) {
    using hearth::cli::OptionSpec;
    const OptionSpec specs[] = {
        {"model", 'm', true},    {"host", 0, true},      {"port", 0, true},
        {"api-key", 0, true},    {"parallel", 0, true},  {"queue", 0, true},
        {"ctx-size", 'c', true}, {"kv-type", 0, true},   {"batch", 0, true},
        {"max-body", 0, true},   {"timeout", 0, true},   {"cors-origin", 0, true},
        {"model-id", 0, true},   {"log", 0, false},      {"threads", 't', true},
        {"lookup", 0, false},    {"draft-max", 0, true}, {"ctx-beyond-training", 0, false},
    };
    std::string err;
    const auto args = hearth::cli::Args::parse(argv, specs, err);
    if (!args || !args->has("model")) {
        std::fprintf(stderr, "hearth-cli serve: %s\n%s",
                     args ? "-m MODEL is required" : err.c_str(), kUsage);
        return 2;
    }
    const auto integer = [&](const char* name, long long fallback, long long lo, long long hi,
                             long long& out) {
        const auto v = args->integer(name, err);
        if (!err.empty()) return false;
        out = v ? *v : fallback;
        if (out < lo || out > hi) {
            err = std::string("--") + name + " must be between " + std::to_string(lo) + " and " +
                  std::to_string(hi);
            return false;
        }
        return true;
    };
    long long port = 0, parallel = 0, queue = 0, ctx = 0, batch = 0, body = 0, timeout = 0,
              threads = 0, draft_max = 0;
    if (!integer("port", 8080, 0, 65535, port) || !integer("parallel", 4, 1, 256, parallel) ||
        !integer("queue", 16, 0, 4096, queue) || !integer("ctx-size", 4096, 16, 1 << 20, ctx) ||
        !integer("batch", 256, 1, 4096, batch) ||
        !integer("max-body", 1 << 20, 1024, 1LL << 30, body) ||
        !integer("timeout", 30, 1, 3600, timeout) || !integer("threads", 0, 0, 1024, threads) ||
        !integer("draft-max", 8, 1, 32, draft_max)) {
        std::fprintf(stderr, "hearth-cli serve: %s\n", err.c_str());
        return 2;
    }
    const auto kv = hearth::parse_kv_type(args->value_or("kv-type", "f16"));
    if (!kv) {
        std::fprintf(stderr, "hearth-cli serve: %s\n", kv.error_message().c_str());
        return 2;
    }
    hearth::server::ServerOptions so;
    so.host = args->value_or("host", "127.0.0.1");
    so.port = static_cast<int>(port);
    so.api_key = args->value_or("api-key", "");
    if (so.api_key.empty())
        if (const char* env = std::getenv("HEARTH_API_KEY")) so.api_key = env;
    so.max_body_bytes = static_cast<size_t>(body);
    so.timeout_seconds = static_cast<int>(timeout);
    so.cors_origin = args->value_or("cors-origin", "");
    so.model_id = args->value_or("model-id", "");
    so.log_requests = args->has("log");
    so.lookup = args->has("lookup");
    so.draft_max = static_cast<int32_t>(draft_max);

    // SIGINT/SIGTERM are taken by sigwait below, so every thread started later blocks them.
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, nullptr);

    hearth::LoadOptions lo;
    lo.n_ctx = ctx;
    lo.kv_type = *kv;
    lo.ctx_beyond_training = args->has("ctx-beyond-training");
    auto model = hearth::Model::load(*args->value("model"), lo);
    if (!model) {
        std::fprintf(stderr, "hearth-cli serve: %s\n", model.error_message().c_str());
        return 1;
    }
    hearth::cli::print_context_note("serve", (*model)->info(), ctx);
    hearth::SchedulerOptions sched;
    sched.n_threads = static_cast<int>(threads);
    sched.n_ctx = ctx;
    sched.kv_type = *kv;
    sched.max_running = static_cast<int32_t>(parallel);
    sched.max_queued = static_cast<int32_t>(queue);
    sched.step_tokens = batch;
    auto scheduler = hearth::Scheduler::create(*model, sched);
    if (!scheduler) {
        std::fprintf(stderr, "hearth-cli serve: %s\n", scheduler.error_message().c_str());
        return 1;
    }
    std::shared_ptr<hearth::Scheduler> sch = std::move(*scheduler);
    auto server = hearth::server::ApiServer::create(sch, so);
    if (!server) {
        std::fprintf(stderr, "hearth-cli serve: %s\n", server.error_message().c_str());
        return 1;
    }
    sch->start();
    if (hearth::Status s = (*server)->start(); !s) {
        std::fprintf(stderr, "hearth-cli serve: %s\n", s.message().c_str());
        return 1;
    }
    std::printf("listening on %s (model %s, %lld parallel, context %lld%s)\n",
                (*server)->base_url().c_str(), (*server)->model_id().c_str(), parallel,
                static_cast<long long>(sch->n_ctx()), so.lookup ? ", prompt lookup" : "");
    std::fflush(stdout);
    int sig = 0;
    sigwait(&sigs, &sig);
    std::fprintf(stderr, "hearth-cli serve: stopping (%s)\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    (*server)->stop();
    sch->stop();
    return 0;
}

}  // namespace

HEARTH_CLI_COMMAND({"serve", "a local OpenAI-compatible API server (continuous batching)", kUsage,
                    serve});
