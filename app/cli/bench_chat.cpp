#include "bench_chat.h"

#include "device_options.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "hearth/session.h"

namespace hearth::cli {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Process CPU time (all threads), ms: on a shared machine wall time mostly measures the other
// programs; CPU time measures the work (spinning workers included).
double cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return 1e3 * static_cast<double>(ts.tv_sec) + 1e-6 * static_cast<double>(ts.tv_nsec);
}

struct Timed {
    double wall = -1, cpu = -1;  // ms; < 0: failed
};

struct Config {
    int turns = 10;
    int system_tokens = 120;
    int user_tokens = 150;
    int reply_tokens = 150;
    int restore_tokens = 4000;
    int threads = 0;
    int full_every = 1;  // re-prefill on turns 1, every Nth and the last (it is the slow part)
    int64_t n_ctx = 4096;
    KvType kv = KvType::F16;
    LoadOptions load;
    std::string backend = "auto", gpu_layers = "auto";  // as given, for the restart child
};

// Scripted content: seeded random ids from the ordinary part of the vocabulary. The timing
// does not depend on what the tokens say.
std::vector<int32_t> script(std::mt19937& rng, int n, int64_t n_vocab) {
    std::uniform_int_distribution<int32_t> d(300, static_cast<int32_t>(n_vocab - 1));
    std::vector<int32_t> t(static_cast<size_t>(n));
    for (auto& x : t) x = d(rng);
    return t;
}

GenerateOptions first_token() {
    GenerateOptions o;
    o.max_tokens = 1;
    o.sampling.temperature = 0;
    o.stop_at_end_of_generation = false;
    return o;
}

// Prefill + first sampled token on a fresh store (no reuse possible); wall and CPU ms.
Timed cold_ttft(std::shared_ptr<Model> model, const Config& c, std::span<const int32_t> toks) {
    auto store = KvStore::create(model, {.kv_type = c.kv, .n_ctx = c.n_ctx});
    if (!store) return {};
    auto s = Session::create(*store, {.n_threads = c.threads});
    if (!s) return {};
    const auto t0 = Clock::now();
    const double c0 = cpu_ms();
    if (!(*s)->prefill(toks) || !(*s)->generate(first_token())) return {};
    return {ms_since(t0), cpu_ms() - c0};
}

// The restart column: the chat saved before this turn is restored by a new hearth-cli process
// (`bench --restart-turn`), which then prefills the turn and samples the first token. Returns
// the child's ms (restore + prefill + first token; the model load is not counted, as the app
// has the model loaded before the person sends), or < 0.
double restart_ttft(const std::string& self, const std::string& model, const Config& c,
                    const std::filesystem::path& kv_file,
                    std::span<const std::vector<int32_t>> parts) {
    const auto tok_file = kv_file.string() + ".turns";
    {
        std::ofstream out(tok_file, std::ios::binary);
        for (const auto& p : parts) {
            const auto n = static_cast<uint32_t>(p.size());
            out.write(reinterpret_cast<const char*>(&n), sizeof n);
            out.write(reinterpret_cast<const char*>(p.data()),
                      static_cast<std::streamsize>(p.size() * sizeof(int32_t)));
        }
        if (!out) return -1;
    }
    auto quote = [](const std::string& v) {
        std::string q = "'";
        for (char ch : v) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
        return q + "'";
    };
    const std::string cmd = quote(self) + " bench --restart-turn " + quote(kv_file.string()) +
                            " -m " + quote(model) + " -t " + std::to_string(c.threads) + " -c " +
                            std::to_string(c.n_ctx) + " --kv-type " + kv_type_name(c.kv) +
                            " --backend " + quote(c.backend) + " --gpu-layers " +
                            quote(c.gpu_layers) + (c.load.force ? " --force" : "") +
                            (c.load.ctx_beyond_training ? " --ctx-beyond-training" : "");
    FILE* pipe = popen(cmd.c_str(), "r");
    if (!pipe) return -1;
    double ms = -1;
    char line[256];
    while (std::fgets(line, sizeof line, pipe)) {
        double v = 0;
        if (std::sscanf(line, "restart_ttft_ms=%lf", &v) == 1) ms = v;
    }
    if (pclose(pipe) != 0) return -1;
    std::filesystem::remove(tok_file);
    return ms;
}

}  // namespace

// The child of the restart column: restore FILE, prefill the turns in FILE.turns, one token.
int run_bench_restart_turn(const Args& args) {
    const auto file = args.value("restart-turn");
    const auto path = args.value("model");
    std::string err;
    const auto threads = args.integer("threads", err);
    const auto n_ctx = args.integer("ctx-size", err);
    const auto kv = parse_kv_type(args.value_or("kv-type", "f16"));
    if (!file || !path || !err.empty() || !kv) return 2;
    LoadOptions lo;
    if (!read_device_options(args, lo, err)) return 2;
    lo.n_ctx = n_ctx ? *n_ctx : 4096;
    lo.kv_type = *kv;
    auto model = Model::load(*path, lo);
    if (!model) return 1;
    std::vector<std::vector<int32_t>> parts;
    {
        std::ifstream in(*file + ".turns", std::ios::binary);
        uint32_t n = 0;
        while (in.read(reinterpret_cast<char*>(&n), sizeof n)) {
            std::vector<int32_t> p(n);
            if (!in.read(reinterpret_cast<char*>(p.data()), std::streamsize(n * sizeof(int32_t))))
                return 1;
            parts.push_back(std::move(p));
        }
    }
    std::vector<Turn> turns;
    for (size_t i = 0; i < parts.size(); ++i) turns.push_back({parts[i], i == 0});
    auto store = KvStore::create(*model, {.kv_type = *kv, .n_ctx = n_ctx ? *n_ctx : 4096});
    if (!store) return 1;
    auto s = Session::create(*store, {.n_threads = threads ? static_cast<int>(*threads) : 0});
    if (!s) return 1;
    const auto t0 = Clock::now();
    auto restored = (*s)->restore(*file);
    auto rep = (*s)->prefill(turns);
    if (!restored || !rep || !(*s)->generate(first_token())) {
        std::fprintf(stderr, "hearth-cli bench: restart turn failed: %s\n",
                     !restored ? restored.error_message().c_str()
                     : !rep    ? rep.error_message().c_str()
                               : "generate");
        return 1;
    }
    const double ms = ms_since(t0);
    std::printf("restart_ttft_ms=%.3f restored=%lld computed=%lld\n", ms,
                static_cast<long long>(*restored), static_cast<long long>(rep->n_computed));
    return 0;
}

int run_bench_chat(const Args& args) {
    Config c;
    std::string err;
    auto get = [&](const char* name, auto& dst) {
        if (auto v = args.integer(name, err)) dst = static_cast<std::decay_t<decltype(dst)>>(*v);
        return err.empty();
    };
    if (!get("turns", c.turns) || !get("system-tokens", c.system_tokens) ||
        !get("user-tokens", c.user_tokens) || !get("reply-tokens", c.reply_tokens) ||
        !get("restore-tokens", c.restore_tokens) || !get("threads", c.threads) ||
        !get("ctx-size", c.n_ctx) || !get("full-every", c.full_every)) {
        std::fprintf(stderr, "hearth-cli bench: %s\n", err.c_str());
        return 2;
    }
    const auto kv = parse_kv_type(args.value_or("kv-type", "f16"));
    if (!kv) {
        std::fprintf(stderr, "hearth-cli bench: %s\n", kv.error_message().c_str());
        return 2;
    }
    c.kv = *kv;
    const auto path = args.value("model");
    if (!path) {
        std::fprintf(stderr, "hearth-cli bench: --model is required\n");
        return 2;
    }
    if (!read_device_options(args, c.load, err)) {
        std::fprintf(stderr, "hearth-cli bench: %s\n", err.c_str());
        return 2;
    }
    c.backend = args.value_or("backend", "auto");
    c.gpu_layers = args.value_or("gpu-layers", "auto");
    c.load.n_ctx = c.n_ctx;
    c.load.kv_type = c.kv;
    auto model = Model::load(*path, c.load);
    if (!model) {
        std::fprintf(stderr, "hearth-cli bench: %s\n",
                     load_error_text(model.error_message()).c_str());
        return 1;
    }
    c.n_ctx = print_context_note("bench", (*model)->info(), c.n_ctx);
    const int64_t V = (*model)->info().n_vocab;
    std::mt19937 rng(1234);
    auto store = KvStore::create(*model, {.kv_type = c.kv, .n_ctx = c.n_ctx});
    if (!store) {
        std::fprintf(stderr, "hearth-cli bench: %s\n", store.error_message().c_str());
        return 1;
    }
    auto session = Session::create(*store, {.n_threads = c.threads});
    if (!session) {
        std::fprintf(stderr, "hearth-cli bench: %s\n", session.error_message().c_str());
        return 1;
    }
    Session& s = **session;
    std::printf("chat bench: %s, KV %s, %d turns (system %d, user %d, reply %d tokens)\n",
                (*model)->info().name.c_str(), kv_type_name(c.kv), c.turns, c.system_tokens,
                c.user_tokens, c.reply_tokens);
    std::printf(
        "turn | context | new | TTFT reuse ms | TTFT restart ms | TTFT full ms | new-only ms "
        "| full/reuse | restart/reuse | reuse/new-only | reuse CPU ms | new-only CPU ms | CPU "
        "reuse/new-only\n");
    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    const auto saved = std::filesystem::temp_directory_path() /
                       ("hearth_bench_restart_" + std::to_string(::getpid()) + ".hkv");
    std::vector<std::vector<int32_t>> parts;
    parts.push_back(script(rng, c.system_tokens, V));
    for (int turn = 1; turn <= c.turns; ++turn) {
        parts.push_back(script(rng, c.user_tokens, V));
        std::vector<Turn> turns;
        std::vector<int32_t> flat;
        for (size_t i = 0; i < parts.size(); ++i) {
            turns.push_back({parts[i], i == 0});
            flat.insert(flat.end(), parts[i].begin(), parts[i].end());
        }
        const bool measure_full =
            turn == 1 || turn == c.turns || (c.full_every > 0 && turn % c.full_every == 0);
        // The chat as it stood before this turn, saved for the restart column.
        double restart = -1;
        if (measure_full && turn > 1 && s.save(saved))
            restart = restart_ttft(self, *path, c, saved, parts);
        const auto t0 = Clock::now();
        const double c0 = cpu_ms();
        auto rep = s.prefill(turns);
        if (!rep || !s.generate(first_token())) {
            std::fprintf(stderr, "hearth-cli bench: turn %d failed: %s\n", turn,
                         rep ? "generate" : rep.error_message().c_str());
            return 1;
        }
        const double reuse = ms_since(t0), reuse_cpu = cpu_ms() - c0;
        const double full = measure_full ? cold_ttft(*model, c, flat).wall : -1;
        const Timed new_only = cold_ttft(*model, c, parts.back());
        char restart_s[32] = "-", ratio_s[32] = "-", full_s[32] = "-", full_ratio_s[32] = "-";
        if (restart > 0) {
            std::snprintf(restart_s, sizeof restart_s, "%.1f", restart);
            std::snprintf(ratio_s, sizeof ratio_s, "%.2fx", restart / reuse);
        }
        if (full > 0) {
            std::snprintf(full_s, sizeof full_s, "%.1f", full);
            std::snprintf(full_ratio_s, sizeof full_ratio_s, "%.2fx", full / reuse);
        }
        std::printf(
            "%4d | %7zu | %3lld | %13.1f | %15s | %12s | %11.1f | %10s | %13s | %14.2f | %12.1f | "
            "%15.1f | %18.2f\n",
            turn, flat.size(), static_cast<long long>(rep->n_computed), reuse, restart_s, full_s,
            new_only.wall, full_ratio_s, ratio_s, reuse / new_only.wall, reuse_cpu, new_only.cpu,
            reuse_cpu / new_only.cpu);
        std::fflush(stdout);
        // The reply, as if generated: evaluated now, outside the timed part.
        parts.push_back(script(rng, c.reply_tokens, V));
        if (Status st = s.append(parts.back()); !st) {
            std::fprintf(stderr, "hearth-cli bench: %s\n", st.message().c_str());
            return 1;
        }
    }

    std::filesystem::remove(saved);

    // A second chat with the same system prompt on the same store: its first turn reuses the
    // system prompt's blocks, so it costs about as much as its own message.
    {
        auto second = Session::create(*store, {.n_threads = c.threads});
        if (!second) return 1;
        const auto user = script(rng, c.user_tokens, V);
        const Turn turns[] = {{parts.front(), true}, {user, false}};
        const auto t0 = Clock::now();
        auto rep = (*second)->prefill(turns);
        if (!rep || !(*second)->generate(first_token())) return 1;
        const double shared = ms_since(t0);
        const double alone = cold_ttft(*model, c, user).wall;
        std::printf(
            "second chat, same system prompt (%d tokens): TTFT %.1f ms (reused %lld, computed "
            "%lld) | its message alone: %.1f ms | %.2fx\n",
            c.system_tokens, shared, static_cast<long long>(rep->n_reused),
            static_cast<long long>(rep->n_computed), alone, shared / alone);
        std::fflush(stdout);
    }

    // Restore vs re-prefill of a long chat.
    const auto chat = script(rng, c.restore_tokens, V);
    const auto file = std::filesystem::temp_directory_path() / "hearth_bench_chat.hkv";
    auto st2 = KvStore::create(*model, {.kv_type = c.kv, .n_ctx = c.n_ctx});
    if (!st2) return 1;
    auto writer = Session::create(*st2, {.n_threads = c.threads});
    if (!writer) return 1;
    auto t0 = Clock::now();
    if (!(*writer)->prefill(chat) || !(*writer)->generate(first_token())) return 1;
    const double prefill_ms = ms_since(t0);
    if (Status sv = (*writer)->save(file); !sv) {
        std::fprintf(stderr, "hearth-cli bench: %s\n", sv.message().c_str());
        return 1;
    }
    auto st3 = KvStore::create(*model, {.kv_type = c.kv, .n_ctx = c.n_ctx});
    if (!st3) return 1;
    auto reader = Session::create(*st3, {.n_threads = c.threads});
    if (!reader) return 1;
    t0 = Clock::now();
    auto n = (*reader)->restore(file);
    if (!n || !(*reader)->generate(first_token())) {
        std::fprintf(stderr, "hearth-cli bench: restore failed: %s\n",
                     n ? "generate" : n.error_message().c_str());
        return 1;
    }
    const double restore_ms = ms_since(t0);
    std::printf("restore %lld tokens (%.1f MiB file): %.1f ms | re-prefill: %.1f ms | %.1fx\n",
                static_cast<long long>(*n),
                double(std::filesystem::file_size(file)) / (1024.0 * 1024.0), restore_ms,
                prefill_ms, prefill_ms / restore_ms);
    std::filesystem::remove(file);
    return 0;
}

}  // namespace hearth::cli
