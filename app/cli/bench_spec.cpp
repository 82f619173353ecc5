#include "bench_spec.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_median.h"
#include "device_options.h"
#include "hearth/session.h"
#include "hearth/speculative.h"

namespace hearth::cli {

namespace {

using Clock = std::chrono::steady_clock;

struct Row {
    std::string name;
    std::vector<double> tok_s;
    SpeculativeStats spec;
    bool same = true;
    double mean() const {
        double s = 0;
        for (double v : tok_s) s += v;
        return tok_s.empty() ? 0 : s / static_cast<double>(tok_s.size());
    }
};

// Speed-up against `base` round by round (each round runs every row once, one after the
// other): "median [min-max]". On a shared host whose speed drifts between rounds the ratio
// of the same round's runs moves less than the ratio of the means.
std::string by_round(const Row& row, const Row& base) {
    std::vector<double> r;
    for (size_t i = 0; i < row.tok_s.size() && i < base.tok_s.size(); ++i)
        if (base.tok_s[i] > 0) r.push_back(row.tok_s[i] / base.tok_s[i]);
    if (r.empty()) return "-";
    const auto [lo, hi] = std::minmax_element(r.begin(), r.end());
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2fx [%.2f-%.2f]", median(r), *lo, *hi);
    return buf;
}

std::string load_average() {
    std::ifstream f("/proc/loadavg");
    std::string a, b, c;
    if (!(f >> a >> b >> c)) return "unknown";
    return a + " " + b + " " + c;
}

// Mean wall milliseconds per target step spent drafting and in the target's forward pass.
std::string step_split(const SpeculativeStats& st) {
    if (st.steps <= 0) return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f / %.1f", 1e3 * st.draft_seconds / double(st.steps),
                  1e3 * st.target_seconds / double(st.steps));
    return buf;
}

}  // namespace

int run_bench_spec(const Args& args) {
    std::string err;
    const auto model_path = args.value("model");
    if (!model_path) {
        std::fprintf(stderr, "hearth-cli bench: -m MODEL is required\n");
        return 2;
    }
    const long long n_gen = args.integer("n-gen", err).value_or(128);
    const long long n_prompt = args.integer("n-prompt", err).value_or(256);
    const long long reps = args.integer("repetitions", err).value_or(3);
    const long long draft_max = args.integer("draft-max", err).value_or(8);
    const double temp = args.number("temp", err).value_or(0.0);
    long long threads = args.integer("threads", err).value_or(0);
    if (!err.empty()) {
        std::fprintf(stderr, "hearth-cli bench: %s\n", err.c_str());
        return 2;
    }
    if (n_gen < 1 || n_prompt < 1 || reps < 1 || threads < 0 || draft_max < 1 || draft_max > 64) {
        std::fprintf(stderr,
                     "hearth-cli bench --spec: -n and -p must be >= 1, -r >= 1, --draft-max "
                     "1..64\n");
        return 2;
    }
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    const auto kv = parse_kv_type(args.value_or("kv-type", "f16"));
    if (!kv) {
        std::fprintf(stderr, "hearth-cli bench: %s\n", kv.error_message().c_str());
        return 2;
    }
    // Both models on the backend asked for (--backend, --gpu-layers), with the same context
    // rule (--ctx-beyond-training).
    LoadOptions lo;
    if (!read_device_options(args, lo, err)) {
        std::fprintf(stderr, "hearth-cli bench: %s\n", err.c_str());
        return 2;
    }
    lo.kv_type = *kv;
    auto model = Model::load(*model_path, lo);
    if (!model) {
        std::fprintf(stderr, "hearth-cli bench: %s\n",
                     load_error_text(model.error_message()).c_str());
        return 1;
    }
    print_placement("bench", (*model)->info());
    std::shared_ptr<Model> draft_model;
    if (auto path = args.value("draft-model")) {
        auto d = Model::load(*path, lo);
        if (!d) {
            std::fprintf(stderr, "hearth-cli bench: --draft-model: %s\n",
                         load_error_text(d.error_message()).c_str());
            return 1;
        }
        if (Status s = check_draft_vocabulary(**model, **d); !s) {
            std::fprintf(stderr, "hearth-cli bench: --draft-model: %s\n", s.message().c_str());
            return 1;
        }
        draft_model = *d;
    }
    // The prompt: a text file (tokenized with BOS) or seeded random ordinary tokens.
    std::vector<int32_t> prompt;
    std::string prompt_desc;
    if (auto file = args.value("prompt-file")) {
        std::ifstream in(*file, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        if (!in) {
            std::fprintf(stderr, "hearth-cli bench: cannot read %s\n", file->c_str());
            return 1;
        }
        auto t = (*model)->tokenize(ss.str(), true, false);
        if (!t) {
            std::fprintf(stderr, "hearth-cli bench: %s\n", t.error_message().c_str());
            return 1;
        }
        prompt = std::move(*t);
        prompt_desc = *file;
    } else {
        std::mt19937_64 rng(1234);
        const int64_t V = (*model)->info().n_vocab;
        while (static_cast<long long>(prompt.size()) < n_prompt) {
            const auto id = static_cast<int32_t>(rng() % static_cast<uint64_t>(V));
            if (!(*model)->is_end_of_generation(id)) prompt.push_back(id);
        }
        prompt_desc = "random tokens";
    }
    const int64_t n_ctx = static_cast<int64_t>(prompt.size()) + n_gen + draft_max + 16;
    if (print_context_note("bench", (*model)->info(), n_ctx) < n_ctx) return 1;  // said why
    auto store = KvStore::create(*model, {.kv_type = *kv, .n_ctx = n_ctx});
    if (!store) {
        std::fprintf(stderr, "hearth-cli bench: %s\n", store.error_message().c_str());
        return 1;
    }

    GenerateOptions go;
    go.max_tokens = static_cast<int32_t>(n_gen);
    go.stop_at_end_of_generation = false;
    go.sampling.temperature = static_cast<float>(temp);
    go.sampling.seed = 42;
    const bool greedy = temp <= 0;

    // Which drafters: those named, else prompt lookup.
    const bool want_lookup = args.has("lookup") || !draft_model;
    std::vector<Row> rows(1);
    rows[0].name = "none";
    if (want_lookup) rows.push_back({"lookup", {}, {}, true});
    if (draft_model) rows.push_back({"draft model", {}, {}, true});
    std::vector<int32_t> reference;
    for (long long r = 0; r < reps + 1; ++r) {  // rep 0 warms the caches and is not counted
        for (auto& row : rows) {
            std::unique_ptr<Drafter> drafter;
            if (row.name == "lookup") {
                drafter = make_lookup_drafter({.draft_max = static_cast<int32_t>(draft_max)});
            } else if (row.name == "draft model") {
                auto d = make_model_drafter(**model, draft_model,
                                            {.draft_max = static_cast<int32_t>(draft_max),
                                             .n_ctx = n_ctx,
                                             .kv_type = *kv,
                                             .n_threads = static_cast<int>(threads)});
                if (!d) {
                    std::fprintf(stderr, "hearth-cli bench: %s\n", d.error_message().c_str());
                    return 1;
                }
                drafter = std::move(*d);
                // The draft's own prompt prefill happens here, outside the timing, as the
                // target's prefill does.
                if (auto w = drafter->draft(prompt, 1, go.sampling); !w) {
                    std::fprintf(stderr, "hearth-cli bench: %s\n", w.error_message().c_str());
                    return 1;
                }
            }
            auto s = Session::create(*store, {.n_threads = static_cast<int>(threads)});
            if (!s) {
                std::fprintf(stderr, "hearth-cli bench: %s\n", s.error_message().c_str());
                return 1;
            }
            if (auto p = (*s)->prefill(prompt); !p) {
                std::fprintf(stderr, "hearth-cli bench: %s\n", p.error_message().c_str());
                return 1;
            }
            const auto t0 = Clock::now();
            auto res = drafter ? (*s)->generate(go, *drafter) : (*s)->generate(go);
            const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
            if (!res) {
                std::fprintf(stderr, "hearth-cli bench: %s\n", res.error_message().c_str());
                return 1;
            }
            if (!drafter && r == 0) reference = res->tokens;
            if (drafter && res->tokens != reference) row.same = false;
            if (r == 0) continue;
            row.tok_s.push_back(static_cast<double>(res->tokens.size()) / secs);
            if (drafter) row.spec += drafter->stats();
        }
    }
    const auto& info = (*model)->info();
    std::printf(
        "target: %s %s | draft: %s | prompt: %zu tokens (%s) | generated: %lld | %s | "
        "threads: %lld | kv: %s | repetitions: %lld | load average: %s\n",
        info.architecture.c_str(), info.weight_types.c_str(),
        draft_model ? draft_model->info().weight_types.c_str() : "-", prompt.size(),
        prompt_desc.c_str(), n_gen,
        greedy ? "greedy" : ("temperature " + std::to_string(temp)).c_str(), threads,
        kv_type_name(*kv), reps, load_average().c_str());
    std::printf(
        "| drafter | tok/s | speed-up | by round | drafted | accepted | acceptance | mean "
        "accepted length | ms per step: draft / target | output |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    const double base = rows[0].mean();
    for (const auto& row : rows) {
        const bool spec = row.name != "none";
        std::printf(
            "| %s | %.2f | %.2fx | %s | %s | %s | %s | %s | %s | %s |\n", row.name.c_str(),
            row.mean(), base > 0 ? row.mean() / base : 0.0,
            spec ? by_round(row, rows[0]).c_str() : "-",
            spec ? std::to_string(row.spec.drafted).c_str() : "-",
            spec ? std::to_string(row.spec.accepted).c_str() : "-",
            spec ? (std::to_string(100.0 * row.spec.acceptance_rate()).substr(0, 5) + "%").c_str()
                 : "-",
            spec ? std::to_string(row.spec.mean_accepted_length()).substr(0, 4).c_str() : "-",
            spec ? step_split(row.spec).c_str() : "-",
            !spec      ? "reference"
            : !greedy  ? "sampled (not compared)"
            : row.same ? "same as none"
                       : "DIFFERS");
    }
    return 0;
}

}  // namespace hearth::cli
