#include "bench_speed.h"

#include "device_options.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gguf/gguf_file.h"
#include "hearth/engine.h"
#include "kernels/bandwidth.h"
#include "kernels/kernels.h"
#include "model/model_config.h"
#include "thread_pool.h"

namespace hearth::cli {

namespace {

using Clock = std::chrono::steady_clock;

struct Series {
    std::vector<double> tok_per_s;
    double cpu_s = 0;  // process CPU time of all repetitions
    long long tokens = 0;
    // CPU milliseconds per token: with -t 1 it does not grow when other programs share the
    // cores (wall time does), so it compares runs on a busy machine.
    double cpu_ms_per_tok() const {
        return tokens > 0 ? 1e3 * cpu_s / static_cast<double>(tokens) : 0;
    }
    double mean() const {
        double s = 0;
        for (double v : tok_per_s) s += v;
        return tok_per_s.empty() ? 0 : s / static_cast<double>(tok_per_s.size());
    }
    double sd() const {
        if (tok_per_s.size() < 2) return 0;
        const double m = mean();
        double s = 0;
        for (double v : tok_per_s) s += (v - m) * (v - m);
        return std::sqrt(s / static_cast<double>(tok_per_s.size() - 1));
    }
};

double kv_bytes_per_value(KvType kv) {
    switch (kv) {
        case KvType::F32:
            return 4.0;
        case KvType::F16:
            return 2.0;
        case KvType::Q8_0:
            return 34.0 / 32.0;
        case KvType::Q4_0:
            return 18.0 / 32.0;
    }
    return 2.0;
}

// Bytes a single decode step streams from memory: every weight matrix once (the token
// embedding only for its one row, unless the output projection reuses it; of a mixture of
// experts only the expert_used_count experts a token runs), plus the KV cache read by
// attention, averaged over the generated positions.
struct DecodeTraffic {
    double weight_bytes = 0;
    double kv_bytes_avg = 0;
    double total() const { return weight_bytes + kv_bytes_avg; }
};

// KV read per generated token on average: depth cached positions plus half of the n_gen ones.
Result<DecodeTraffic> decode_traffic(const std::string& path, const ModelInfo& info, int64_t n_gen,
                                     int64_t depth, KvType kv) {
    auto file = gguf::GgufFile::open(path);
    if (!file) return file.status();
    DecodeTraffic t;
    auto config = hearth::model::load_model_config(**file);
    if (!config) return config.status();
    const bool tied = config->tied_embeddings;
    const double active = config->n_expert > 0 ? static_cast<double>(config->n_expert_used) /
                                                     static_cast<double>(config->n_expert)
                                               : 1.0;
    for (const auto& tensor : (*file)->tensors()) {
        if (tensor.name == "token_embd.weight" && !tied) {
            t.weight_bytes += static_cast<double>(tensor.nbytes) /
                              static_cast<double>(std::max<uint64_t>(tensor.ne[1], 1));
            continue;
        }
        const bool expert = tensor.name.ends_with("_exps.weight");
        t.weight_bytes += static_cast<double>(tensor.nbytes) * (expert ? active : 1.0);
    }
    const double head_dim = static_cast<double>(config->head_dim);
    const double bytes_per_pos = 2.0 * static_cast<double>(info.n_layer) *
                                 static_cast<double>(info.n_head_kv) * head_dim *
                                 kv_bytes_per_value(kv);
    t.kv_bytes_avg =
        bytes_per_pos * (static_cast<double>(depth) + static_cast<double>(n_gen) / 2.0);
    return t;
}

std::vector<int32_t> random_tokens(const Model& model, int64_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const int64_t n_vocab = model.info().n_vocab;
    std::vector<int32_t> out;
    out.reserve(static_cast<size_t>(n));
    while (static_cast<int64_t>(out.size()) < n) {
        const auto id = static_cast<int32_t>(rng() % static_cast<uint64_t>(n_vocab));
        if (model.is_end_of_generation(id)) continue;
        out.push_back(id);
    }
    return out;
}

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Process CPU time (std::clock: all threads on POSIX; wall time on Windows).
double cpu_seconds() {
    return static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
}

}  // namespace

int run_bench_speed(const Args& args) {
    std::string err;
    const auto model_path = args.value("model");
    if (!model_path) {
        std::fprintf(stderr, "hearth-cli bench: -m MODEL is required\n");
        return 2;
    }
    const long long n_prompt = args.integer("n-prompt", err).value_or(512);
    const long long n_gen = args.integer("n-gen", err).value_or(128);
    const long long reps = args.integer("repetitions", err).value_or(3);
    const long long depth = args.integer("depth", err).value_or(0);
    long long threads = args.integer("threads", err).value_or(0);
    if (!err.empty()) {
        std::fprintf(stderr, "hearth-cli bench: %s\n", err.c_str());
        return 2;
    }
    if (n_prompt < 0 || n_gen < 0 || reps < 1 || threads < 0 || depth < 0 ||
        n_prompt + n_gen == 0) {
        std::fprintf(stderr,
                     "hearth-cli bench: -p/-n/-d must be >= 0 (-p and -n not both 0), -r >= 1\n");
        return 2;
    }
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    const std::string kv_name = args.value_or("kv-type", "f16");
    const auto kv_parsed = parse_kv_type(kv_name);
    if (!kv_parsed) {
        std::fprintf(stderr, "hearth-cli bench: %s\n", kv_parsed.error_message().c_str());
        return 2;
    }
    const KvType kv = *kv_parsed;
    const bool json = args.has("json");
    // --sampled: a second generation test that samples each token as the app's chats do
    // (decode plus the sampler chain over the vocabulary), beside tg's forward passes alone.
    const bool sampled = args.has("sampled");

    LoadOptions lo;
    if (!read_device_options(args, lo, err)) {
        std::fprintf(stderr, "hearth-cli bench: %s\n", err.c_str());
        return 2;
    }
    lo.n_ctx = std::max<long long>(n_prompt + n_gen + 16, 256);
    lo.kv_type = kv;
    auto model = Model::load(*model_path, lo);
    if (!model) {
        std::fprintf(stderr, "hearth-cli bench: %s\n",
                     load_error_text(model.error_message()).c_str());
        return 1;
    }
    print_placement("bench", (*model)->info());
    ContextOptions co;
    co.n_ctx = std::max<long long>(depth + n_prompt + n_gen + 16, 256);
    // The context is bench's own choice: within the training context it is clamped quietly,
    // as long as each test (depth + pp or tg, after a reset) still fits.
    {
        const auto& mi = (*model)->info();
        const ContextLength c =
            resolve_context_length(co.n_ctx, mi.n_ctx_train, mi.ctx_beyond_training);
        const long long need = depth + std::max(n_prompt, n_gen) + 1;
        if (c.n_ctx < need) {
            std::fprintf(stderr,
                         "hearth-cli bench: -d + max(-p, -n) needs %lld positions, more than the "
                         "%lld tokens this model was trained on (--ctx-beyond-training runs it "
                         "anyway)\n",
                         need, static_cast<long long>(mi.n_ctx_train));
            return 2;
        }
        co.n_ctx = c.n_ctx;
    }
    co.n_threads = static_cast<int>(threads);
    co.kv_type = kv;
    co.n_batch = std::max<long long>(std::max(n_prompt, std::min<long long>(depth, 512)), 1);
    auto ctx = Context::create(*model, co);
    if (!ctx) {
        std::fprintf(stderr, "hearth-cli bench: %s\n", ctx.error_message().c_str());
        return 1;
    }
    Context& c = **ctx;
    const auto prompt = random_tokens(**model, n_prompt, 1234);
    const auto gen = random_tokens(**model, n_gen, 5678);
    const auto history = random_tokens(**model, depth, 9012);
    // Each test starts from a context that already holds `depth` tokens (not timed).
    auto start = [&]() -> Status {
        c.reset();
        return depth > 0 ? c.feed(history) : Status::ok();
    };

    // Warm-up: touches every weight page and fills caches, as llama-bench does.
    {
        const auto warm = random_tokens(**model, std::min<long long>(n_prompt, 32) + 1, 42);
        if (Status s = c.feed(warm); !s) {
            std::fprintf(stderr, "hearth-cli bench: %s\n", s.message().c_str());
            return 1;
        }
        c.reset();
    }

    Series pp, tg, tgs;
    GenerateOptions gen_opts;  // the app's defaults (app/chat/app_settings.cpp)
    gen_opts.max_tokens = static_cast<int32_t>(n_gen);
    gen_opts.stop_at_end_of_generation = false;
    gen_opts.sampling.temperature = 0.8f;
    gen_opts.sampling.top_k = 40;
    gen_opts.sampling.top_p = 0.95f;
    gen_opts.sampling.min_p = 0.05f;
    gen_opts.sampling.repeat_penalty = 1.1f;
    for (long long r = 0; r < reps; ++r) {
        if (n_prompt > 0) {
            if (Status s = start(); !s) {
                std::fprintf(stderr, "hearth-cli bench: %s\n", s.message().c_str());
                return 1;
            }
            const auto t0 = Clock::now();
            const double c0 = cpu_seconds();
            if (Status s = c.feed(prompt); !s) {
                std::fprintf(stderr, "hearth-cli bench: %s\n", s.message().c_str());
                return 1;
            }
            pp.tok_per_s.push_back(static_cast<double>(n_prompt) / seconds_since(t0));
            pp.cpu_s += cpu_seconds() - c0;
            pp.tokens += n_prompt;
        }
        if (n_gen > 0) {
            if (Status s = start(); !s) {
                std::fprintf(stderr, "hearth-cli bench: %s\n", s.message().c_str());
                return 1;
            }
            const auto t0 = Clock::now();
            const double c0 = cpu_seconds();
            for (int32_t token : gen) {
                if (Status s = c.feed(std::span<const int32_t>(&token, 1)); !s) {
                    std::fprintf(stderr, "hearth-cli bench: %s\n", s.message().c_str());
                    return 1;
                }
            }
            tg.tok_per_s.push_back(static_cast<double>(n_gen) / seconds_since(t0));
            tg.cpu_s += cpu_seconds() - c0;
            tg.tokens += n_gen;
        }
        if (n_gen > 0 && sampled) {
            // The first token only gives the context its logits (not timed).
            Status s = start();
            if (s) s = c.feed(std::span<const int32_t>(gen.data(), 1));
            if (!s) {
                std::fprintf(stderr, "hearth-cli bench: %s\n", s.message().c_str());
                return 1;
            }
            gen_opts.sampling.seed = static_cast<uint64_t>(r) + 1;
            const auto t0 = Clock::now();
            const double c0 = cpu_seconds();
            auto out = c.generate(gen_opts);
            if (!out) {
                std::fprintf(stderr, "hearth-cli bench: %s\n", out.error_message().c_str());
                return 1;
            }
            const auto n = static_cast<long long>(out->tokens.size());
            tgs.tok_per_s.push_back(static_cast<double>(n) / seconds_since(t0));
            tgs.cpu_s += cpu_seconds() - c0;
            tgs.tokens += n;
        }
    }

    double bandwidth = 0;
    DecodeTraffic traffic;
    if (n_gen > 0) {
        // Bytes per token are reported even with --no-floor (a GPU run divides them by the
        // GPU's bandwidth: scripts/gpu-check.sh); the CPU read bandwidth only without it.
        auto t = decode_traffic(*model_path, (*model)->info(), n_gen, depth, kv);
        if (t) traffic = *t;
        if (!args.has("no-floor")) {
            cpu::ThreadPool pool(static_cast<int>(threads));
            bandwidth = cpu::measure_read_bandwidth_gbs(pool);
        }
    }
    const double floor_tps =
        bandwidth > 0 && traffic.total() > 0 ? bandwidth * 1e9 / traffic.total() : 0;
    const auto& info = (*model)->info();
    const std::string isa =
        std::string(cpu::isa_name(cpu::active_isa())) + (cpu::amx_active() ? "+amx" : "");
    const std::string prefetch(cpu::stream_prefetch_name());

    if (json) {
        std::printf(
            "{\"model\": \"%s\", \"architecture\": \"%s\", \"weights\": \"%s\", \"params\": %llu, "
            "\"file_bytes\": %llu, \"threads\": %lld, \"isa\": \"%s\", "
            "\"weight_prefetch\": \"%s\", \"kv_type\": \"%s\", "
            "\"repetitions\": %lld, \"n_prompt\": %lld, \"n_gen\": %lld, \"depth\": %lld, "
            "\"pp_tok_s\": %.3f, \"pp_tok_s_sd\": %.3f, \"tg_tok_s\": %.3f, \"tg_tok_s_sd\": %.3f, "
            "\"read_bandwidth_gb_s\": %.3f, \"decode_bytes_per_token\": %.0f, "
            "\"decode_floor_tok_s\": %.3f, \"tg_fraction_of_floor\": %.4f, "
            "\"pp_cpu_ms_per_tok\": %.3f, \"tg_cpu_ms_per_tok\": %.3f, "
            "\"tg_sampled_tok_s\": %.3f, \"tg_sampled_tok_s_sd\": %.3f}\n",
            info.name.c_str(), info.architecture.c_str(), info.weight_types.c_str(),
            static_cast<unsigned long long>(info.n_params),
            static_cast<unsigned long long>(info.file_bytes), threads, isa.c_str(),
            prefetch.c_str(), kv_name.c_str(), reps, n_prompt, n_gen, depth, pp.mean(), pp.sd(),
            tg.mean(), tg.sd(), bandwidth, traffic.total(), floor_tps,
            floor_tps > 0 ? tg.mean() / floor_tps : 0.0, pp.cpu_ms_per_tok(), tg.cpu_ms_per_tok(),
            tgs.mean(), tgs.sd());
        return 0;
    }
    std::printf("| model | size | params | threads | isa | test | t/s |\n");
    std::printf("|---|---:|---:|---:|---|---|---:|\n");
    const double mib = static_cast<double>(info.file_bytes) / (1024.0 * 1024.0);
    const std::string size = mib >= 1024 ? std::to_string(mib / 1024).substr(0, 5) + " GiB"
                                         : std::to_string(mib).substr(0, 6) + " MiB";
    const double params = static_cast<double>(info.n_params);
    const std::string count = params >= 1e9 ? std::to_string(params / 1e9).substr(0, 4) + " B"
                                            : std::to_string(params / 1e6).substr(0, 5) + " M";
    auto row = [&](const char* test, long long n, const Series& s) {
        const std::string at = depth > 0 ? " @ d" + std::to_string(depth) : "";
        std::printf("| %s %s | %s | %s | %lld | %s | %s%lld%s | %.2f ± %.2f |\n",
                    info.architecture.c_str(), info.weight_types.c_str(), size.c_str(),
                    count.c_str(), threads, isa.c_str(), test, n, at.c_str(), s.mean(), s.sd());
    };
    if (n_prompt > 0) row("pp", n_prompt, pp);
    if (n_gen > 0) row("tg", n_gen, tg);
    if (n_gen > 0 && sampled) row("tg-sampled", n_gen, tgs);
    std::printf("\nprocess CPU time per token:");
    if (n_prompt > 0) std::printf(" pp %.2f ms", pp.cpu_ms_per_tok());
    if (n_gen > 0) std::printf(" tg %.2f ms", tg.cpu_ms_per_tok());
    std::printf(" (all %lld threads, spinning included)\n", threads);
    if (floor_tps > 0) {
        std::printf(
            "decode floor: %.1f MB per token / %.1f GB/s read bandwidth (%lld threads) = "
            "%.1f tok/s; tg reached %.0f%% of it (weights prefetched: %s)\n",
            traffic.total() / 1e6, bandwidth, threads, floor_tps, 100.0 * tg.mean() / floor_tps,
            prefetch.c_str());
    }
    return 0;
}

}  // namespace hearth::cli
