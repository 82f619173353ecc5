// hearth-cli bench --chat: time to first token of a scripted multi-turn chat with prefix reuse
// (a Session on the paged KV cache) against a full re-prefill, and restoring a saved chat
// against re-prefilling it. Kept apart from cmd_bench.cpp so the pp/tg mode can grow there.
#pragma once

#include "args.h"

namespace hearth::cli {

int run_bench_chat(const Args& args);
// The restart column's child process (bench --restart-turn FILE).
int run_bench_restart_turn(const Args& args);

}  // namespace hearth::cli
