#include "run_remote.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <httplib.h>

#include "openai_chat.h"
#include "openai_stream.h"

namespace hearth::cli {

namespace {

using Clock = std::chrono::steady_clock;

std::atomic<bool> g_stop{false};
void on_sigint(int) {
    g_stop.store(true);
}

double ms_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

// "http://host:8000/v1" -> {"http://host:8000", "/v1"}; false when it is not http(s)://host.
bool split_url(const std::string& url, std::string& origin, std::string& prefix) {
    const size_t scheme = url.find("://");
    if (scheme == std::string::npos) return false;
    const std::string s = url.substr(0, scheme);
    if (s != "http" && s != "https") return false;
    const size_t path = url.find('/', scheme + 3);
    origin = url.substr(0, path);
    prefix = path == std::string::npos ? std::string() : url.substr(path);
    while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
    return origin.size() > scheme + 3;
}

// cpp-httplib's failure without an HTTP answer, in words.
std::string describe(httplib::Error e) {
    switch (e) {
        case httplib::Error::Connection:
            return "could not connect: nothing answers there (connection refused), or the host "
                   "name could not be resolved";
        case httplib::Error::SSLConnection:
            return "the TLS connection failed (is it an https server?)";
        case httplib::Error::SSLServerVerification:
            return "the server's TLS certificate is not trusted by this system";
        case httplib::Error::Read:
            return "the connection broke or no answer came in time (--timeout)";
        case httplib::Error::Write:
            return "the request could not be sent";
        case httplib::Error::ConnectionTimeout:
            return "connecting timed out (--timeout)";
        default:
            return httplib::to_string(e);
    }
}

}  // namespace

int run_remote(const Args& args) {
    const std::string url = *args.value("remote");
    std::string origin, prefix;
    if (!split_url(url, origin, prefix)) {
        std::fprintf(stderr,
                     "hearth-cli run: --remote: expected a base URL such as "
                     "http://127.0.0.1:8080/v1, got '%s'\n",
                     url.c_str());
        return 2;
    }
    if (!args.has("model") || !args.has("prompt") || args.has("prompt-ids")) {
        std::fprintf(stderr,
                     "hearth-cli run: --remote needs --model NAME (as GET /v1/models lists it) "
                     "and -p PROMPT\n");
        return 2;
    }
    openai::ChatRequest request;
    request.model = *args.value("model");
    if (auto system = args.value("system")) request.messages.push_back({"system", *system});
    request.messages.push_back({"user", *args.value("prompt")});
    openai::ChatSampling& s = request.sampling;
    s.max_tokens = 128;
    std::string err;
    long long timeout = 120;
    auto num = [&](const char* name, auto& dst) {
        if (auto v = args.number(name, err)) dst = static_cast<std::decay_t<decltype(dst)>>(*v);
        return err.empty();
    };
    if (!num("temp", s.temperature) || !num("top-k", s.top_k) || !num("top-p", s.top_p) ||
        !num("min-p", s.min_p) || !num("repeat-penalty", s.repeat_penalty) ||
        !num("seed", s.seed) || !num("n-predict", s.max_tokens) || !num("timeout", timeout)) {
        std::fprintf(stderr, "hearth-cli run: %s\n", err.c_str());
        return 2;
    }
    std::string key = args.value_or("api-key", "");
    if (key.empty())
        if (const char* env = std::getenv("HEARTH_API_KEY")) key = env;

    httplib::Client cli(origin);
    if (!cli.is_valid()) {
        std::fprintf(stderr, "hearth-cli run: --remote: cannot use '%s'\n", origin.c_str());
        return 2;
    }
    // HTTPS is checked against the system's certificates.
    for (const char* ca :
         {"/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt"})
        if (std::filesystem::exists(ca)) {
            cli.set_ca_cert_path(ca);
            break;
        }
    cli.set_connection_timeout(static_cast<time_t>(timeout), 0);
    cli.set_read_timeout(static_cast<time_t>(timeout), 0);
    if (!key.empty()) cli.set_bearer_token_auth(key);

    httplib::Request req;
    req.method = "POST";
    req.path = prefix + "/chat/completions";
    req.body = openai::chat_request_json(request);
    req.set_header("Content-Type", "application/json");
    req.set_header("Accept", "text/event-stream");
    int status = 0;
    std::string raw;  // an error's body
    openai::SseParser sse;
    openai::ThinkJoiner joiner;
    std::string stream_error, finish;
    bool done = false;
    int64_t deltas = 0;
    std::optional<openai::Usage> usage;
    Clock::time_point first{};
    const Clock::time_point t0 = Clock::now();
    req.response_handler = [&](const httplib::Response& r) {
        status = r.status;
        return true;
    };
    req.content_receiver = [&](const char* data, size_t len, uint64_t, uint64_t) {
        if (status != 200) {
            raw.append(data, len);
            return raw.size() < (1 << 16);
        }
        for (const std::string& ev : sse.feed(std::string_view(data, len))) {
            const openai::StreamDelta d = openai::decode_chunk(ev);
            if (d.done) done = true;
            if (!d.error.empty()) stream_error = d.error;
            if (d.usage) usage = d.usage;
            if (!d.finish_reason.empty()) finish = d.finish_reason;
            const std::string text = joiner.append(d);
            if (!text.empty()) {
                if (deltas++ == 0) first = Clock::now();
                std::fwrite(text.data(), 1, text.size(), stdout);
                std::fflush(stdout);
            }
        }
        return !g_stop.load();
    };
    g_stop.store(false);
    auto previous = std::signal(SIGINT, on_sigint);
    const auto res = cli.send(req);
    std::signal(SIGINT, previous);
    const Clock::time_point t1 = Clock::now();
    const std::string tail = joiner.finish();
    std::fwrite(tail.data(), 1, tail.size(), stdout);
    if (deltas > 0) std::fputc('\n', stdout);
    std::fflush(stdout);

    if (g_stop.load()) {
        std::fprintf(stderr, "hearth-cli run: stopped\n");
        return 130;
    }
    if (!res && status == 0) {
        std::fprintf(stderr, "hearth-cli run: %s: %s\n", url.c_str(),
                     describe(res.error()).c_str());
        return 1;
    }
    if (status != 200) {
        std::fprintf(stderr, "hearth-cli run: %s\n",
                     openai::describe_http_error(status, raw).c_str());
        return 1;
    }
    if (!stream_error.empty()) {
        std::fprintf(stderr, "hearth-cli run: the server reported: %s\n", stream_error.c_str());
        return 1;
    }
    if (!res || (!done && finish.empty())) {
        std::fprintf(stderr, "hearth-cli run: the stream ended before the reply was complete%s\n",
                     res ? "" : (" (" + describe(res.error()) + ")").c_str());
        return 1;
    }
    const int64_t n = usage ? usage->completion_tokens : deltas;
    const double gen_s = deltas > 0 ? ms_between(first, t1) / 1000.0 : 0;
    std::fprintf(stderr,
                 "remote: %s | generation: %lld tokens in %.2f s (%.1f tok/s) | first token: %.0f "
                 "ms | finish: %s\n",
                 request.model.c_str(), static_cast<long long>(n), gen_s,
                 gen_s > 0 ? static_cast<double>(n) / gen_s : 0.0,
                 deltas > 0 ? ms_between(t0, first) : 0.0, finish.empty() ? "-" : finish.c_str());
    return 0;
}

}  // namespace hearth::cli
