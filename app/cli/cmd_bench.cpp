// hearth-cli bench: performance measurements. Modes live in their own files (bench_chat.cpp);
// the prompt-processing / token-generation mode (pp/tg) goes next to them.
#include <cstdio>

#include "args.h"
#include "bench_chat.h"
#include "command_registry.h"

namespace {

constexpr const char* kUsage =
    R"(Usage: hearth-cli bench --chat -m MODEL [options]

--chat: a scripted multi-turn chat (seeded random token ids) on one Session. Per turn it
prints one table row:
  turn | context | new | TTFT reuse ms | TTFT full ms | new-only ms | full/reuse | reuse/new-only
where TTFT reuse is prefill (reusing the cached history) + first token, TTFT full the same on
a fresh cache (whole chat re-prefilled), new-only a fresh prefill of just the new message.
Then: restore N tokens (S MiB file): R ms | re-prefill: P ms | Kx

Options:
  -m, --model FILE         GGUF model file
      --chat               the chat mode (the pp/tg mode is not implemented yet)
      --turns N            user turns (default 10)
      --system-tokens N    system prompt length (default 120)
      --user-tokens N      tokens per user message (default 150)
      --reply-tokens N     tokens per reply (default 150)
      --restore-tokens N   length of the saved chat (default 4000)
      --full-every N       re-prefill (TTFT full) only on turn 1, every Nth turn and the last
                           (default 1: every turn; others print "-")
  -c, --ctx-size N         context length (default 4096)
      --kv-type TYPE       f16 (default), q8_0, q4_0, f32
  -t, --threads N          CPU threads (default: all)
)";

int bench(std::span<const std::string> argv) {
    using hearth::cli::OptionSpec;
    const OptionSpec specs[] = {
        {"model", 'm', true},        {"chat", 0, false},       {"turns", 0, true},
        {"system-tokens", 0, true},  {"user-tokens", 0, true}, {"reply-tokens", 0, true},
        {"restore-tokens", 0, true}, {"ctx-size", 'c', true},  {"kv-type", 0, true},
        {"threads", 't', true},      {"full-every", 0, true},
    };
    std::string err;
    const auto args = hearth::cli::Args::parse(argv, specs, err);
    if (!args) {
        std::fprintf(stderr, "hearth-cli bench: %s\n%s", err.c_str(), kUsage);
        return 2;
    }
    if (args->has("chat")) return hearth::cli::run_bench_chat(*args);
    std::fprintf(stderr, "hearth-cli bench: only --chat is implemented so far\n%s", kUsage);
    return 2;
}

}  // namespace

HEARTH_CLI_COMMAND({"bench", "performance measurements (--chat: multi-turn TTFT, restore)", kUsage,
                    bench});
