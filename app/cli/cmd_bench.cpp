// hearth-cli bench: performance measurements. Each mode lives in its own file: bench_speed.cpp
// (prompt processing / token generation, the default) and bench_chat.cpp (--chat).
#include <cstdio>
#include <iterator>
#include <vector>

#include "args.h"
#include "bench_chat.h"
#include "bench_parallel.h"
#include "bench_spec.h"
#include "bench_speed.h"
#include "command_registry.h"
#include "device_options.h"

namespace {

constexpr const char* kUsage =
    R"(Usage: hearth-cli bench -m MODEL [-p N] [-n N] [-d N] [-t N] [-r N] [--kv-type T] [--json]
       hearth-cli bench --chat -m MODEL [options]
       hearth-cli bench --spec -m MODEL [--lookup] [--draft-model FILE] [options]
       hearth-cli bench --parallel 1,2,4,8 -m MODEL [-p N] [-n N] [-t N] [--http]
                        [--lookup [--draft-max K]] [--prompt-file FILE]

Default mode, in the manner of llama-bench: prompt processing of -p random tokens in one
batch (pp) and generation of -n tokens one step at a time (tg), each repeated -r times after
a warm-up, reported as mean ± sample standard deviation in tokens per second:
  | model | size | params | threads | isa | test | t/s |
followed by the decode floor: bytes streamed per generated token (every weight matrix once,
the token embedding's one row unless the output reuses it, of a mixture of experts only the
experts a token uses: expert_used_count / expert_count of the expert tensors, plus the
average KV cache read)
divided by the read bandwidth measured now with the same number of threads (the best of
several read patterns and passes over 1 GiB, on huge pages where the system grants them, as
the packed weights are), and the share
of that floor the tg run reached. --json prints one object with the same figures
(pp_tok_s, pp_tok_s_sd, tg_tok_s, tg_tok_s_sd, read_bandwidth_gb_s, decode_bytes_per_token,
decode_floor_tok_s, tg_fraction_of_floor, pp_cpu_ms_per_tok, tg_cpu_ms_per_tok, ...).
--no-floor skips the bandwidth measurement (decode_bytes_per_token is still reported: a GPU
run divides it by the GPU's bandwidth). Process CPU time per token is printed too: with -t 1
it moves less than the wall clock when other programs share the cores, so it compares runs on
a busy machine better (a host whose own clock or memory speed changes still moves it; with
more threads it includes the time workers spin waiting).

--chat: a scripted multi-turn chat (seeded random token ids) on one Session. Per turn it
prints one table row:
  turn | context | new | TTFT reuse ms | TTFT restart ms | TTFT full ms | new-only ms
       | full/reuse | restart/reuse | reuse/new-only | reuse CPU ms | new-only CPU ms
       | CPU reuse/new-only
where TTFT reuse is prefill (reusing the cached history) + first token, TTFT restart the
same in a new hearth-cli process that restores the chat saved before the turn (restore +
prefill + first token; its model load is not counted), TTFT full the same on a fresh cache
(whole chat re-prefilled), new-only a fresh prefill of just the new message. Restart and full
are measured on the turns --full-every selects (others print "-"; restart from turn 2).
The CPU columns are the process CPU time of TTFT reuse and new-only: on a busy machine
their ratio holds where the wall-clock one does not.
Then: second chat, same system prompt (N tokens): TTFT X ms (reused, computed) | its message
alone: Y ms | X/Y (a new Session on the same store, its first turn after the system prompt);
restore N tokens (S MiB file): R ms | re-prefill: P ms | Kx

--spec (also implied by --lookup or --draft-model): speculative decoding. Generates -n tokens
after one prompt (--prompt-file FILE, tokenized with BOS; else -p random tokens) without
speculation, then with each drafter asked for (--lookup: prompt lookup; --draft-model FILE:
a draft model of the same vocabulary; neither: prompt lookup), -r times each after one
uncounted warm-up round, and prints one table row per drafter:
  | drafter | tok/s | speed-up | by round | drafted | accepted | acceptance | mean accepted length
  | ms per step: draft / target | output |
speed-up is against the row "none" (mean against mean); by round is the median [min-max] of each
round's ratio (the rows run one after the other in every round, so on a shared machine whose
speed drifts this moves less); mean accepted length is tokens per target step (accepted
drafts plus the target's own token); ms per step is the wall time per target step spent in the
drafter (a draft model's own decoding) and in the target's forward pass; output says whether
greedy output equalled "none"'s.
Prompt prefill (the target's, and the draft model's) is not timed. A first line gives the
setup and the load average (other processes sharing the CPU skew the numbers).
      --draft-max K        most drafted tokens per step (default 8; adapted to acceptance)
      --temp T             sampling temperature (default 0: greedy)
--parallel LIST: continuous batching (hearth/scheduler.h). For each count N in LIST, N
clients each send a -p token prompt (seeded random ids, no shared prefix) and generate -n
tokens greedily, all at once, to one scheduler allowing N sequences per step. One table row
per N: wall time from the first submit to the last token, requests/s, aggregate generated
tokens/s (all clients, prompts included), that per sequence, decode tok/s (the aggregate while
every client decodes: from the last client's first token to the first client's last one),
time to first token (mean, max), then generated tokens per process CPU second for the whole
run and for the decode window (on a shared machine the wall clock also measures the other
programs; with -t 1 no worker spins, so these move least with other programs, though a host
whose own clock or memory speed changes still moves them). --http
repeats each run through the API server (hearth-cli serve's, on 127.0.0.1, one HTTP connection
per client streaming /v1/completions; the clients run in this process). After the largest N:
the TTFT of a new request while N-1 others decode against the TTFT on an idle scheduler, the
ratios largest N / 1 (whole requests and decode, by wall clock and per CPU second), and the
HTTP overhead per N (by wall clock and per CPU second). --prompt-file FILE: every client's
prompt is that text after a line of its own ("Request 3."), so none shares a KV block.
-r N with --parallel: the whole list N times in turn (1, 8, 1, 8, ... for 1,8), a row per run;
the ratios are then the median of the rounds' ratios, each round's decode ratio listed after
(a host whose speed drifts moves both sides of a round alike); --http runs every round too
and its overhead is the median of the rounds' (each listed); lookup and the TTFT runs come
in the last round only.
--lookup: each N runs again with prompt lookup for every request on a fresh scheduler (row
"lookup"), followed by its speed-up over "direct", drafted and accepted tokens, tokens per
decode step and whether every client's greedy output equalled "direct"'s (--parallel takes
precedence over --spec here).

Options:
  -m, --model FILE         GGUF model file
  -p, --n-prompt N         pp: prompt tokens (default 512; 0 skips pp; --spec: random prompt
                           tokens, default 256)
  -n, --n-gen N            tg: generated tokens (default 128; 0 skips tg)
  -r, --repetitions N      repetitions of each test (default 3; --parallel: rounds, default 1)
  -d, --depth N            pp and tg start from a context that already holds N random tokens
                           (prefilled before each test, not timed; rows read e.g. tg128 @ d4096)
      --json               default mode: one JSON object instead of the table
      --no-floor           default mode: skip the bandwidth measurement
      --sampled            default mode: also tg-sampled, generation with the app's sampling
                           (temperature 0.8, top-k 40, top-p 0.95, min-p 0.05, repeat 1.1)
      --parallel LIST      the continuous batching mode, e.g. 1,2,4,8 (-p default 256 here)
      --http               --parallel: also through the HTTP API server
      --batch N            --parallel: tokens per scheduler step (default 256)
      --chat               the chat mode:
      --turns N            user turns (default 10)
      --system-tokens N    system prompt length (default 120)
      --user-tokens N      tokens per user message (default 150)
      --reply-tokens N     tokens per reply (default 150)
      --restore-tokens N   length of the saved chat (default 4000)
      --full-every N       re-prefill (TTFT full) only on turn 1, every Nth turn and the last
                           (default 1: every turn; others print "-")
  -c, --ctx-size N         context length (default 4096; clamped to the model's training
                           context unless --ctx-beyond-training)
      --kv-type TYPE       f16 (default), q8_0, q4_0, f32
  -t, --threads N          CPU threads (default: all)
)" HEARTH_CLI_DEVICE_OPTIONS_USAGE;

int bench(std::span<const std::string> argv) {
    using hearth::cli::OptionSpec;
    std::vector<OptionSpec> specs = {
        {"model", 'm', true},        {"chat", 0, false},         {"turns", 0, true},
        {"system-tokens", 0, true},  {"user-tokens", 0, true},   {"reply-tokens", 0, true},
        {"restore-tokens", 0, true}, {"ctx-size", 'c', true},    {"kv-type", 0, true},
        {"threads", 't', true},      {"full-every", 0, true},    {"n-prompt", 'p', true},
        {"n-gen", 'n', true},        {"repetitions", 'r', true}, {"json", 0, false},
        {"no-floor", 0, false},      {"sampled", 0, false},      {"restart-turn", 0, true},
        {"spec", 0, false},          {"lookup", 0, false},       {"draft-model", 0, true},
        {"draft-max", 0, true},      {"prompt-file", 0, true},   {"temp", 0, true},
        {"parallel", 0, true},       {"http", 0, false},         {"batch", 0, true},
        {"depth", 'd', true},
    };
    specs.insert(specs.end(), std::begin(hearth::cli::kDeviceOptionSpecs),
                 std::end(hearth::cli::kDeviceOptionSpecs));
    std::string err;
    const auto args = hearth::cli::Args::parse(argv, specs, err);
    if (!args) {
        std::fprintf(stderr, "hearth-cli bench: %s\n%s", err.c_str(), kUsage);
        return 2;
    }
    if (args->has("restart-turn")) return hearth::cli::run_bench_restart_turn(*args);
    if (args->has("chat")) return hearth::cli::run_bench_chat(*args);
    if (args->has("parallel")) return hearth::cli::run_bench_parallel(*args);
    if (args->has("spec") || args->has("lookup") || args->has("draft-model"))
        return hearth::cli::run_bench_spec(*args);
    return hearth::cli::run_bench_speed(*args);
}

}  // namespace

HEARTH_CLI_COMMAND({"bench",
                    "performance measurements (--chat: multi-turn TTFT, restore; --spec: "
                    "speculative decoding)",
                    kUsage, bench});
