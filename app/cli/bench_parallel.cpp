#include "bench_parallel.h"

#include <httplib.h>

#include <time.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "api_server.h"
#include "bench_median.h"
#include "hearth/scheduler.h"

namespace hearth::cli {

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

// CPU time of the whole process (every thread): on a shared machine the wall clock measures
// the neighbours too, the CPU time mostly this program (with -t 1 nothing spins).
double process_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct ClientResult {
    double ttft = 0;   // submit to the first token (direct) / the first streamed chunk (HTTP)
    double total = 0;  // submit to the last event
    int64_t generated = 0;
    std::vector<Clock::time_point> token_times;  // arrival of each token (HTTP: each chunk)
    std::vector<double> token_cpu;               // process CPU seconds at each arrival
    std::vector<int32_t> tokens;                 // direct: the generated ids
    RequestUsage usage;                          // direct: the scheduler's figures
    std::string error;
};

struct RunResult {
    double wall = 0;
    double cpu = 0;  // process CPU seconds
    std::vector<ClientResult> clients;
    int64_t generated() const {
        int64_t n = 0;
        for (const auto& c : clients) n += c.generated;
        return n;
    }
    double ttft_mean() const {
        double s = 0;
        for (const auto& c : clients) s += c.ttft;
        return clients.empty() ? 0 : s / double(clients.size());
    }
    double ttft_max() const {
        double m = 0;
        for (const auto& c : clients) m = std::max(m, c.ttft);
        return m;
    }
    // Speculative decoding over all clients: drafted, accepted, decode steps.
    RequestUsage spec() const {
        RequestUsage u;
        for (const auto& c : clients) {
            u.draft_tokens += c.usage.draft_tokens;
            u.draft_accepted += c.usage.draft_accepted;
            u.draft_steps += c.usage.draft_steps;
        }
        return u;
    }
    std::string first_error() const {
        for (const auto& c : clients)
            if (!c.error.empty()) return c.error;
        return {};
    }
    // Aggregate tokens/s while every client decodes: from the last client's first token to the
    // first client's last token, tokens that arrived in between over its length (the prompts
    // are all computed by then). 0 when the clients never decoded at the same time.
    // cpu: the same tokens per process CPU second.
    double decode_tok_s(bool cpu = false) const {
        Clock::time_point from{}, to = Clock::time_point::max();
        double cpu_from = 0, cpu_to = 0;
        for (const auto& c : clients) {
            if (c.token_times.size() < 2) return 0;
            if (c.token_times.front() > from) {
                from = c.token_times.front();
                cpu_from = c.token_cpu.front();
            }
            if (c.token_times.back() < to) {
                to = c.token_times.back();
                cpu_to = c.token_cpu.back();
            }
        }
        if (to <= from) return 0;
        int64_t n = 0;
        for (const auto& c : clients)
            for (const auto t : c.token_times) n += t > from && t <= to ? 1 : 0;
        const double span = cpu ? cpu_to - cpu_from : seconds(from, to);
        return span > 0 ? double(n) / span : 0;
    }
};

std::vector<int32_t> random_prompt(std::mt19937_64& rng, int64_t n, int64_t n_vocab) {
    // Ids from the lower vocabulary (real pieces, no control tokens of a padded tail).
    std::uniform_int_distribution<int32_t> d(
        3, static_cast<int32_t>(std::min<int64_t>(n_vocab, 32000) - 1));
    std::vector<int32_t> p(static_cast<size_t>(n));
    for (auto& t : p) t = d(rng);
    return p;
}

// One request on the scheduler; `started` is when it was submitted.
struct DirectClient {
    std::mutex mu;
    std::condition_variable cv;
    ClientResult r;
    bool done = false;
    bool first = true;
    Clock::time_point started;
};

GenerationRequest direct_request(const std::vector<int32_t>& prompt, int32_t n_gen, DirectClient& c,
                                 std::shared_ptr<Drafter> drafter = nullptr) {
    GenerationRequest g;
    g.prompt = prompt;
    g.drafter = std::move(drafter);
    g.max_tokens = n_gen;
    g.sampling.temperature = 0.f;
    g.stop_at_end_of_generation = false;
    g.on_event = [&c](const StreamEvent& e) {
        std::lock_guard lock(c.mu);
        const auto now = Clock::now();
        if (e.token >= 0 && c.first) {
            c.r.ttft = seconds(c.started, now);
            c.first = false;
        }
        if (e.token >= 0) {
            ++c.r.generated;
            c.r.tokens.push_back(e.token);
            c.r.token_times.push_back(now);
            c.r.token_cpu.push_back(process_cpu_seconds());
        }
        if (e.done) {
            c.r.total = seconds(c.started, now);
            c.r.error = e.error;
            c.r.usage = e.usage;
            c.done = true;
            c.cv.notify_all();
        }
    };
    return g;
}

// lookup: prompt lookup for every request (draft_max tokens at most), else none.
RunResult run_direct(Scheduler& s, const std::vector<std::vector<int32_t>>& prompts, int32_t n_gen,
                     int32_t lookup_draft_max = 0) {
    std::vector<std::unique_ptr<DirectClient>> cs;
    const auto t0 = Clock::now();
    const double c0 = process_cpu_seconds();
    for (const auto& p : prompts) {
        cs.push_back(std::make_unique<DirectClient>());
        cs.back()->started = Clock::now();
        std::shared_ptr<Drafter> drafter;
        if (lookup_draft_max > 0) drafter = make_lookup_drafter({.draft_max = lookup_draft_max});
        const SubmitResult sub = s.submit(direct_request(p, n_gen, *cs.back(), drafter));
        if (!sub.ok()) {
            cs.back()->r.error = sub.message;
            cs.back()->done = true;
        }
    }
    RunResult out;
    for (auto& c : cs) {
        std::unique_lock lock(c->mu);
        c->cv.wait(lock, [&] { return c->done; });
        out.clients.push_back(c->r);
    }
    out.wall = seconds(t0, Clock::now());
    out.cpu = process_cpu_seconds() - c0;
    return out;
}

// One streamed /v1/completions request (the prompt as token ids) on its own connection.
ClientResult http_request(int port, const std::string& model, const std::vector<int32_t>& prompt,
                          int32_t n_gen) {
    ClientResult r;
    httplib::Client cli("127.0.0.1", port);
    cli.set_read_timeout(600, 0);
    const nlohmann::json body = {{"model", model},
                                 {"prompt", prompt},
                                 {"max_tokens", n_gen},
                                 {"temperature", 0},
                                 {"ignore_eos", true},
                                 {"stream", true},
                                 {"stream_options", {{"include_usage", true}}}};
    httplib::Request req;
    req.method = "POST";
    req.path = "/v1/completions";
    req.body = body.dump();
    req.set_header("Content-Type", "application/json");
    std::string buffer;
    bool first = true;
    r.token_times.reserve(static_cast<size_t>(n_gen) + 2);
    const auto t0 = Clock::now();
    req.content_receiver = [&](const char* data, size_t len, uint64_t, uint64_t) {
        const auto now = Clock::now();
        if (first) {
            r.ttft = seconds(t0, now);
            first = false;
        }
        buffer.append(data, len);
        size_t begin = 0;
        for (size_t end; (end = buffer.find("\n\n", begin)) != std::string::npos; begin = end + 2) {
            const std::string_view ev(buffer.data() + begin, end - begin);
            if (ev.rfind("data: {", 0) != 0) continue;
            // A token's chunk (finish_reason still null) needs no parsing; the last ones do.
            if (ev.find("\"finish_reason\":null") != std::string_view::npos) {
                r.token_times.push_back(now);
                r.token_cpu.push_back(process_cpu_seconds());
                continue;
            }
            const auto j = nlohmann::json::parse(ev.substr(6), nullptr, false);
            if (j.is_object() && j.contains("usage") && j["usage"].is_object())
                r.generated = j["usage"].value("completion_tokens", int64_t(0));
            if (j.is_object() && j.contains("error")) r.error = j["error"].value("message", "");
        }
        buffer.erase(0, begin);
        return true;
    };
    const auto res = cli.send(req);
    r.total = seconds(t0, Clock::now());
    if (!res)
        r.error = "HTTP error " + httplib::to_string(res.error());
    else if (res->status != 200)
        r.error = "HTTP status " + std::to_string(res->status);
    return r;
}

RunResult run_http(int port, const std::string& model,
                   const std::vector<std::vector<int32_t>>& prompts, int32_t n_gen) {
    RunResult out;
    out.clients.resize(prompts.size());
    std::vector<std::thread> threads;
    const auto t0 = Clock::now();
    const double c0 = process_cpu_seconds();
    for (size_t i = 0; i < prompts.size(); ++i)
        threads.emplace_back(
            [&, i] { out.clients[i] = http_request(port, model, prompts[i], n_gen); });
    for (auto& t : threads) t.join();
    out.wall = seconds(t0, Clock::now());
    out.cpu = process_cpu_seconds() - c0;
    return out;
}

std::vector<int> parse_list(const std::string& s) {
    std::vector<int> out;
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, ',');) {
        try {
            const int v = std::stoi(item);
            if (v < 1 || v > 256) return {};
            out.push_back(v);
        } catch (...) {
            return {};
        }
    }
    return out;
}

// The prompts of n clients: seeded random ids, or the text of --prompt-file after a line that
// differs per client ("Request 3.") so no two share a KV block.
std::vector<std::vector<int32_t>> make_prompts(int n, std::mt19937_64& rng, int64_t n_prompt,
                                               const Model& model, const std::string* text) {
    std::vector<std::vector<int32_t>> out;
    for (int i = 0; i < n; ++i) {
        if (!text) {
            out.push_back(random_prompt(rng, n_prompt, model.info().n_vocab));
            continue;
        }
        auto t = model.tokenize("Request " + std::to_string(i + 1) + ".\n" + *text, true, false);
        out.push_back(t ? std::move(*t) : std::vector<int32_t>{});
    }
    return out;
}

void print_row(const char* mode, int n, int64_t p, int32_t g, const RunResult& r) {
    const double agg = double(r.generated()) / r.wall;
    std::printf(
        "| %-6s | %7d | %6lld | %4d | %7.2f | %6.3f | %9.2f | %13.2f | %13.2f | %12.1f | "
        "%11.1f | %9.2f | %12.2f |\n",
        mode, n, static_cast<long long>(p), g, r.wall, double(r.clients.size()) / r.wall, agg,
        agg / double(n), r.decode_tok_s(), r.ttft_mean() * 1e3, r.ttft_max() * 1e3,
        double(r.generated()) / r.cpu, r.decode_tok_s(true));
    std::fflush(stdout);
}

// The same prompts as the plain run d with prompt lookup (draft_max tokens at most), on a
// fresh scheduler (no cached prefixes): its row, then its speed-up, acceptance and whether
// every client's output equalled d's. False (the reason printed) when it fails.
bool run_lookup_row(std::shared_ptr<const Model> model, const SchedulerOptions& so,
                    std::mt19937_64& rng, int64_t n_vocab,
                    const std::vector<std::vector<int32_t>>& prompts, int64_t prompt_len,
                    int32_t n_gen, int32_t draft_max, const RunResult& d) {
    const int n = static_cast<int>(prompts.size());
    auto ls = Scheduler::create(std::move(model), so);
    if (!ls) {
        std::fprintf(stderr, "hearth-cli bench: %s\n", ls.error_message().c_str());
        return false;
    }
    (*ls)->start();
    run_direct(**ls, {random_prompt(rng, 16, n_vocab)}, 4);
    const RunResult l = run_direct(**ls, prompts, n_gen, draft_max);
    (*ls)->stop();
    if (!l.first_error().empty()) {
        std::fprintf(stderr, "hearth-cli bench: %s\n", l.first_error().c_str());
        return false;
    }
    print_row("lookup", n, prompt_len, n_gen, l);
    bool same = true;
    for (size_t i = 0; i < d.clients.size(); ++i)
        same = same && d.clients[i].tokens == l.clients[i].tokens;
    const RequestUsage u = l.spec();
    std::printf(
        "  lookup at %d clients: %.2fx aggregate tok/s, %.2fx decode tok/s; drafted "
        "%lld, accepted %lld (%.1f%%), %.2f tokens per decode step; output %s\n",
        n, (double(l.generated()) / l.wall) / (double(d.generated()) / d.wall),
        d.decode_tok_s() > 0 ? l.decode_tok_s() / d.decode_tok_s() : 0.0,
        static_cast<long long>(u.draft_tokens), static_cast<long long>(u.draft_accepted),
        u.draft_tokens > 0 ? 100.0 * double(u.draft_accepted) / double(u.draft_tokens) : 0.0,
        u.draft_steps > 0 ? double(u.draft_accepted + u.draft_steps) / double(u.draft_steps) : 0.0,
        same ? "same as direct" : "DIFFERS from direct");
    return true;
}

// TTFT of a new request while n-1 others decode on s (stopped here: that ends the load),
// against the same request on an idle scheduler. False when the idle one cannot be made.
bool print_ttft_under_load(Scheduler& s, std::shared_ptr<const Model> model,
                           const SchedulerOptions& so, std::mt19937_64& rng, int64_t n_vocab, int n,
                           int64_t prompt_len) {
    std::vector<std::unique_ptr<DirectClient>> load;
    for (int i = 0; i + 1 < n; ++i) {
        load.push_back(std::make_unique<DirectClient>());
        load.back()->started = Clock::now();
        // They decode until their context is full, longer than the measurement.
        const auto max_tokens = static_cast<int32_t>(s.n_ctx() - prompt_len - 1);
        s.submit(direct_request(random_prompt(rng, prompt_len, n_vocab), max_tokens, *load.back()));
    }
    for (auto& c : load) {  // every one of them decoding
        std::unique_lock lock(c->mu);
        c->cv.wait(lock, [&] { return !c->first || c->done; });
    }
    const RunResult busy = run_direct(s, {random_prompt(rng, prompt_len, n_vocab)}, 1);
    s.stop();  // ends the load
    auto idle_s = Scheduler::create(std::move(model), so);
    if (!idle_s) return false;
    (*idle_s)->start();
    run_direct(**idle_s, {random_prompt(rng, 16, n_vocab)}, 2);
    const RunResult idle = run_direct(**idle_s, {random_prompt(rng, prompt_len, n_vocab)}, 1);
    std::printf(
        "TTFT of a new %lld-token request while %d others decode: %.1f ms; "
        "on an idle scheduler: %.1f ms (%.2fx)\n",
        static_cast<long long>(prompt_len), n - 1, busy.clients[0].ttft * 1e3,
        idle.clients[0].ttft * 1e3, busy.clients[0].ttft / idle.clients[0].ttft);
    return true;
}

// "3.76x", or "n/a" for 0 (no ratio).
std::string times(double r) {
    if (r <= 0) return "n/a";
    char b[32];
    std::snprintf(b, sizeof b, "%.2fx", r);
    return b;
}

}  // namespace

int run_bench_parallel(const Args& args) {
    std::string err;
    const auto list = parse_list(args.value_or("parallel", "1,2,4,8"));
    if (list.empty()) {
        std::fprintf(stderr, "hearth-cli bench: --parallel takes a list like 1,2,4,8\n");
        return 2;
    }
    const auto get = [&](const char* name, long long fallback) {
        const auto v = args.integer(name, err);
        return v ? *v : fallback;
    };
    const int64_t n_prompt = get("n-prompt", 256);
    const int32_t n_gen = static_cast<int32_t>(get("n-gen", 128));
    const int threads = static_cast<int>(get("threads", 0));
    const int64_t batch = get("batch", 256);
    const long long rounds = get("repetitions", 1);
    if (!err.empty() || n_prompt < 1 || n_gen < 1 || batch < 1 || rounds < 1) {
        std::fprintf(stderr, "hearth-cli bench: %s\n",
                     err.empty() ? "-p, -n, -r and --batch must be >= 1" : err.c_str());
        return 2;
    }
    const bool http = args.has("http");
    const bool lookup = args.has("lookup");
    const auto draft_max = static_cast<int32_t>(get("draft-max", 8));
    if (!err.empty() || draft_max < 1 || draft_max > 64) {
        std::fprintf(stderr, "hearth-cli bench: --draft-max must be between 1 and 64\n");
        return 2;
    }
    std::optional<std::string> prompt_text;
    if (auto file = args.value("prompt-file")) {
        std::ifstream in(*file, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        if (!in) {
            std::fprintf(stderr, "hearth-cli bench: cannot read %s\n", file->c_str());
            return 1;
        }
        prompt_text = ss.str();
    }
    auto model = Model::load(*args.value("model"));
    if (!model) {
        std::fprintf(stderr, "hearth-cli bench: %s\n", model.error_message().c_str());
        return 1;
    }
    const int64_t n_vocab = (*model)->info().n_vocab;
    const std::string* text = prompt_text ? &*prompt_text : nullptr;
    // With --prompt-file the prompt length is the file's (plus the client's line).
    int64_t prompt_len = n_prompt;
    if (text) {
        std::mt19937_64 unused;
        const auto p = make_prompts(1, unused, n_prompt, **model, text);
        if (p[0].empty()) {
            std::fprintf(stderr, "hearth-cli bench: the prompt file does not tokenize\n");
            return 1;
        }
        prompt_len = static_cast<int64_t>(p[0].size());
    }
    const int max_n = *std::max_element(list.begin(), list.end());
    double load1 = 0;
    if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
        if (std::fscanf(f, "%lf", &load1) != 1) load1 = 0;
        std::fclose(f);
    }
    std::printf(
        "continuous batching: %s, %lld-token prompts (%s), %d new tokens each, greedy, "
        "%d threads, step budget %lld tokens%s%s, load average %.2f\n",
        (*model)->info().name.c_str(), static_cast<long long>(prompt_len),
        text ? args.value("prompt-file")->c_str() : "random ids", n_gen, threads,
        static_cast<long long>(batch),
        lookup ? (", then again with prompt lookup (--draft-max " + std::to_string(draft_max) + ")")
                     .c_str()
               : "",
        rounds > 1 ? (", " + std::to_string(rounds) + " rounds of the whole list in turn").c_str()
                   : "",
        load1);
    std::printf(
        "| mode   | clients | prompt | gen  | wall s  | req/s  | agg tok/s | tok/s per seq | "
        "decode tok/s  | TTFT mean ms | TTFT max ms | tok/cpu-s | decode/cpu-s |\n");
    std::printf(
        "|--------|---------|--------|------|---------|--------|-----------|---------------|"
        "---------------|--------------|-------------|-----------|--------------|\n");
    std::mt19937_64 rng(42);
    double agg1 = 0, agg_max = 0, dec1 = 0, dec_max = 0, cdec1 = 0, cdec_max = 0;
    double cagg1 = 0, cagg_max = 0;
    // Per round, the ratios largest N / 1 (whole, decode; wall clock, then per CPU second).
    std::vector<std::array<double, 4>> ratios;
    // Per client count in LIST, per round: the HTTP overhead (wall clock, per CPU second).
    std::vector<std::vector<double>> http_wall(list.size()), http_cpu(list.size());
    for (long long round = 0; round < rounds; ++round) {
        const bool last = round + 1 == rounds;  // lookup and TTFT runs: the last round only
        for (size_t li = 0; li < list.size(); ++li) {
            const int n = list[li];
            SchedulerOptions so;
            so.n_threads = threads;
            so.n_ctx = prompt_len + n_gen + 32;
            so.max_running = n;
            so.max_queued = n;
            so.step_tokens = std::max<int64_t>(batch, n);
            auto sched = Scheduler::create(*model, so);
            if (!sched) {
                std::fprintf(stderr, "hearth-cli bench: %s\n", sched.error_message().c_str());
                return 1;
            }
            std::shared_ptr<Scheduler> s = std::move(*sched);
            s->start();
            {  // warm-up: page the weights in, fill the caches
                std::vector<std::vector<int32_t>> w{random_prompt(rng, 16, n_vocab)};
                run_direct(*s, w, 4);
            }
            const auto prompts = make_prompts(n, rng, n_prompt, **model, text);
            const RunResult d = run_direct(*s, prompts, n_gen);
            if (!d.first_error().empty()) {
                std::fprintf(stderr, "hearth-cli bench: %s\n", d.first_error().c_str());
                return 1;
            }
            print_row("direct", n, prompt_len, n_gen, d);
            if (lookup && last &&
                !run_lookup_row(*model, so, rng, n_vocab, prompts, prompt_len, n_gen, draft_max, d))
                return 1;
            const double agg = double(d.generated()) / d.wall;
            if (n == 1) {
                agg1 = agg;
                dec1 = d.decode_tok_s();
                cagg1 = double(d.generated()) / d.cpu;
                cdec1 = d.decode_tok_s(true);
            }
            if (n == max_n) {
                agg_max = agg;
                dec_max = d.decode_tok_s();
                cagg_max = double(d.generated()) / d.cpu;
                cdec_max = d.decode_tok_s(true);
            }
            if (http) {
                server::ServerOptions opt;
                opt.port = 0;
                opt.model_id = "bench";
                auto srv = server::ApiServer::create(s, opt);
                if (!srv || !(*srv)->start()) {
                    std::fprintf(stderr, "hearth-cli bench: cannot start the API server\n");
                    return 1;
                }
                std::vector<std::vector<int32_t>> hp;  // fresh prompts: no prefix-cache hits
                for (int i = 0; i < n; ++i) hp.push_back(random_prompt(rng, prompt_len, n_vocab));
                const RunResult h = run_http((*srv)->port(), "bench", hp, n_gen);
                (*srv)->stop();
                if (!h.first_error().empty()) {
                    std::fprintf(stderr, "hearth-cli bench: %s\n", h.first_error().c_str());
                    return 1;
                }
                print_row("http", n, prompt_len, n_gen, h);
                http_wall[li].push_back(100.0 * (1.0 - (double(h.generated()) / h.wall) / agg));
                http_cpu[li].push_back(100.0 * (1.0 - (double(h.generated()) / h.cpu) /
                                                          (double(d.generated()) / d.cpu)));
            }
            if (n == max_n && n > 1 && last &&
                !print_ttft_under_load(*s, *model, so, rng, n_vocab, n, prompt_len))
                return 1;
            s->stop();
        }
        // 0: no ratio (a run too short to have a window where every client decodes).
        const auto ratio = [](double a, double b) { return a > 0 && b > 0 ? a / b : 0.0; };
        if (agg1 > 0 && max_n > 1)
            ratios.push_back({ratio(agg_max, agg1), ratio(dec_max, dec1), ratio(cagg_max, cagg1),
                              ratio(cdec_max, cdec1)});
    }
    const std::string of = rounds > 1 ? " (median of " + std::to_string(rounds) + " rounds)" : "";
    if (!ratios.empty()) {
        // One round: its ratios. Several: the median of the rounds' ratios (each from runs
        // minutes apart at most, so a host that changes speed moves both sides of it).
        // Rounds without a ratio are left out of the median; none with one: "n/a".
        std::array<std::string, 4> m;
        for (size_t k = 0; k < m.size(); ++k) {
            std::vector<double> v;
            for (const auto& r : ratios)
                if (r[k] > 0) v.push_back(r[k]);
            m[k] = times(v.empty() ? 0.0 : median(v));
        }
        std::printf(
            "aggregate tok/s with %d sequences / with 1%s: %s for whole requests (prompts "
            "included), %s while all decode\n",
            max_n, of.c_str(), m[0].c_str(), m[1].c_str());
        std::printf(
            "the same per process CPU second (less moved by other programs; no spinning with "
            "-t 1): %s whole, %s decode\n",
            m[2].c_str(), m[3].c_str());
        if (ratios.size() > 1) {
            std::printf("decode ratio by round:");
            for (const auto& r : ratios) std::printf(" %s", times(r[1]).c_str());
            std::printf("\n");
        }
    }
    for (size_t li = 0; li < list.size(); ++li) {
        if (http_wall[li].empty()) continue;
        std::printf(
            "HTTP overhead at %d clients%s: %.1f%% of the direct aggregate tok/s (%.1f%% per "
            "process CPU second, the in-process client's parsing included)",
            list[li], of.c_str(), median(http_wall[li]), median(http_cpu[li]));
        if (rounds > 1) {
            std::printf("; by round:");
            for (double o : http_wall[li]) std::printf(" %.1f%%", o);
        }
        std::printf("\n");
    }
    return 0;
}

}  // namespace hearth::cli
