// The HTTP side of the API server: routes, authentication, limits, and the streaming
// responses that carry scheduler events to the client.
#include "api_server.h"

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "api_error.h"
#include "auth.h"
#include "openai_request.h"
#include "openai_response.h"
#include "request_stream.h"
#include "response_choices.h"

namespace hearth::server {

namespace {

using nlohmann::json;
using namespace std::chrono_literals;

void send_error(httplib::Response& res, const ApiError& e) {
    res.status = e.status;
    res.set_content(e.to_json(), "application/json");
}

void send_json(httplib::Response& res, const json& j) {
    res.status = 200;
    res.set_content(j.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
}

int64_t unix_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace

struct ApiServer::Impl {
    std::shared_ptr<Scheduler> scheduler;
    ServerOptions opt;
    std::string model_id;
    int64_t created = 0;
    RequestLimits limits;
    httplib::Server http;
    std::thread thread;
    int port = 0;
    std::atomic<bool> stopping{false};
    std::atomic<int32_t> active{0};
    std::atomic<uint64_t> total{0};

    void routes();
    bool authorized(const httplib::Request& req, httplib::Response& res) const;
    std::optional<json> parse_body(const httplib::Request& req, httplib::Response& res) const;
    bool check_model(const json& body, httplib::Response& res) const;
    void generate(const httplib::Request& req, httplib::Response& res, bool chat);
};

ApiServer::ApiServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ApiServer::~ApiServer() {
    stop();
}

Result<std::unique_ptr<ApiServer>> ApiServer::create(std::shared_ptr<Scheduler> scheduler,
                                                     ServerOptions opt) try {
    using R = Result<std::unique_ptr<ApiServer>>;
    if (!scheduler) return R::error("no scheduler");
    if (!is_loopback_host(opt.host) && opt.api_key.empty())
        return R::error("listening on " + opt.host +
                        " makes the server reachable from other machines: set an API key "
                        "(--api-key or HEARTH_API_KEY), or use 127.0.0.1");
    if (opt.port < 0 || opt.port > 65535) return R::error("the port must be 0..65535");
    if (opt.max_body_bytes == 0) return R::error("the body limit must be > 0");
    auto impl = std::make_unique<Impl>();
    impl->scheduler = std::move(scheduler);
    const ModelInfo& info = impl->scheduler->model().info();
    impl->model_id = opt.model_id;
    if (impl->model_id.empty()) {
        const std::string& p = info.source_path.empty() ? info.path : info.source_path;
        impl->model_id = std::filesystem::path(p).stem().string();
        if (impl->model_id.empty()) impl->model_id = info.name;
    }
    impl->created = unix_now();
    const int64_t n_ctx = impl->scheduler->n_ctx();
    impl->limits.n_ctx = n_ctx;
    impl->limits.max_prompt_tokens =
        opt.max_prompt_tokens > 0 ? std::min(opt.max_prompt_tokens, n_ctx - 1) : n_ctx - 1;
    impl->opt = std::move(opt);
    impl->routes();
    return std::unique_ptr<ApiServer>(new ApiServer(std::move(impl)));
} catch (...) {
    return exception_status("creating the API server");
}

bool ApiServer::Impl::authorized(const httplib::Request& req, httplib::Response& res) const {
    if (opt.api_key.empty()) return true;
    const std::string header = req.get_header_value("Authorization");
    const std::string_view key = bearer_token(header);
    if (key.empty()) {
        send_error(res, unauthorized("You didn't provide an API key. You need to provide your "
                                     "API key in an Authorization header using Bearer auth "
                                     "(i.e. Authorization: Bearer YOUR_KEY)."));
        return false;
    }
    if (!constant_time_equal(key, opt.api_key)) {
        send_error(res, unauthorized("Incorrect API key provided."));
        return false;
    }
    return true;
}

std::optional<json> ApiServer::Impl::parse_body(const httplib::Request& req,
                                                httplib::Response& res) const {
    json body = json::parse(req.body, nullptr, false);
    if (body.is_discarded()) {
        send_error(res, bad_request("We could not parse the JSON body of your request. (HINT: "
                                    "This likely means you aren't using your HTTP library "
                                    "correctly. The OpenAI API expects a JSON payload.)"));
        return std::nullopt;
    }
    if (!body.is_object()) {
        send_error(res, bad_request("The request body must be a JSON object."));
        return std::nullopt;
    }
    return body;
}

bool ApiServer::Impl::check_model(const json& body, httplib::Response& res) const {
    const auto it = body.find("model");
    if (it == body.end() || !it->is_string()) {
        send_error(res, bad_request("you must provide a model parameter", "model"));
        return false;
    }
    if (it->get<std::string>() != model_id) {
        send_error(res, model_not_found(it->get<std::string>()));
        return false;
    }
    return true;
}

void ApiServer::Impl::routes() {
    http.set_payload_max_length(opt.max_body_bytes);
    http.set_read_timeout(opt.timeout_seconds, 0);
    http.set_write_timeout(opt.timeout_seconds, 0);
    http.set_keep_alive_timeout(5);
    const SchedulerOptions& so = scheduler->options();
    const int threads = opt.threads > 0 ? opt.threads : so.max_running + so.max_queued + 4;
    http.new_task_queue = [threads] { return new httplib::ThreadPool(size_t(threads)); };

    http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
        ++total;
        if (!opt.cors_origin.empty()) {
            res.set_header("Access-Control-Allow-Origin", opt.cors_origin);
            res.set_header("Access-Control-Allow-Headers", "Authorization, Content-Type");
            res.set_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
            if (req.method == "OPTIONS") {
                res.status = 204;
                return httplib::Server::HandlerResponse::Handled;
            }
        }
        if (req.path == "/health") return httplib::Server::HandlerResponse::Unhandled;
        return authorized(req, res) ? httplib::Server::HandlerResponse::Unhandled
                                    : httplib::Server::HandlerResponse::Handled;
    });
    http.set_error_handler([this](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return;
        if (res.status == 413)
            send_error(res, body_too_large(opt.max_body_bytes));
        else if (res.status == 404)
            send_error(res, {404,
                             "Unknown request URL: " + req.method + " " + req.path,
                             "invalid_request_error",
                             {},
                             "unknown_url"});
        else if (res.status == 400)
            send_error(res, bad_request("The request could not be read."));
    });
    http.set_exception_handler(
        [](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
            send_error(res, {500, "The server had an internal error.", "server_error", {}, {}});
        });
    if (opt.log_requests)
        http.set_logger([](const httplib::Request& req, const httplib::Response& res) {
            std::fprintf(stderr, "%s %s %d\n", req.method.c_str(), req.path.c_str(), res.status);
        });

    http.Get("/health", [this](const httplib::Request&, httplib::Response& res) {
        const SchedulerStats st = scheduler->stats();
        send_json(res, {{"status", "ok"},
                        {"model", model_id},
                        {"running", st.running},
                        {"waiting", st.waiting},
                        {"active_requests", active.load()},
                        {"requests_done", st.requests_done},
                        {"requests_cancelled", st.requests_cancelled},
                        {"kv_blocks", st.kv_blocks},
                        {"kv_blocks_free", st.kv_blocks_free},
                        {"speculative",
                         {{"default", opt.lookup ? "lookup" : "off"},
                          {"draft_tokens", st.draft_tokens},
                          {"accepted_tokens", st.draft_accepted},
                          {"acceptance_rate",
                           st.draft_tokens > 0 ? double(st.draft_accepted) / double(st.draft_tokens)
                                               : 0.0}}}});
    });
    const auto model_json = [this] {
        return json{
            {"id", model_id}, {"object", "model"}, {"created", created}, {"owned_by", "hearth"}};
    };
    http.Get("/v1/models", [model_json](const httplib::Request&, httplib::Response& res) {
        send_json(res, {{"object", "list"}, {"data", json::array({model_json()})}});
    });
    http.Get(R"(/v1/models/(.+))",
             [this, model_json](const httplib::Request& req, httplib::Response& res) {
                 if (req.matches[1] != model_id)
                     send_error(res, model_not_found(req.matches[1]));
                 else
                     send_json(res, model_json());
             });
    http.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
        generate(req, res, true);
    });
    http.Post("/v1/completions", [this](const httplib::Request& req, httplib::Response& res) {
        generate(req, res, false);
    });
    http.Post("/tokenize", [this](const httplib::Request& req, httplib::Response& res) {
        auto body = parse_body(req, res);
        if (!body) return;
        const auto it = body->find("content");
        if (it == body->end() || !it->is_string())
            return send_error(res, bad_request("'content' must be a string", "content"));
        const auto sp = body->find("add_special");
        if (sp != body->end() && !sp->is_null() && !sp->is_boolean())
            return send_error(res, bad_request("'add_special' must be a boolean", "add_special"));
        const bool special = sp != body->end() && sp->is_boolean() && sp->get<bool>();
        auto toks = scheduler->model().tokenize(it->get<std::string>(), special, special);
        if (!toks) return send_error(res, bad_request(toks.error_message(), "content"));
        send_json(res, {{"tokens", *toks}});
    });
    http.Post("/detokenize", [this](const httplib::Request& req, httplib::Response& res) {
        auto body = parse_body(req, res);
        if (!body) return;
        const auto it = body->find("tokens");
        if (it == body->end() || !it->is_array())
            return send_error(res, bad_request("'tokens' must be an array of ids", "tokens"));
        const int64_t n_vocab = scheduler->model().info().n_vocab;
        std::vector<int32_t> ids;
        for (const auto& t : *it) {
            if (!t.is_number_integer() || t.get<int64_t>() < 0 || t.get<int64_t>() >= n_vocab)
                return send_error(res, bad_request("token ids must be integers from 0 to " +
                                                       std::to_string(n_vocab - 1),
                                                   "tokens"));
            ids.push_back(t.get<int32_t>());
        }
        send_json(res, {{"content", scheduler->model().detokenize(ids)}});
    });
}

void ApiServer::Impl::generate(const httplib::Request& req, httplib::Response& res, bool chat) {
    auto body = parse_body(req, res);
    if (!body || !check_model(*body, res)) return;
    ParsedRequest pr;
    const Model& model = scheduler->model();
    if (auto e = chat ? parse_chat_request(*body, model, limits, pr)
                      : parse_completion_request(*body, model, limits, pr))
        return send_error(res, *e);

    auto stream = std::make_shared<RequestStream>();
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    pr.gen.cancel = cancel;
    pr.gen.on_event = [stream](const StreamEvent& e) { stream->push(e); };
    const bool lookup = pr.lookup.value_or(opt.lookup);
    const bool with_logprobs = pr.gen.logprobs >= 0;
    // n choices a prompt: n requests, seeds seed, seed + 1, ... (the prompt's blocks are
    // shared); a batch of prompts repeats that for each.
    std::vector<uint64_t> ids;
    const size_t n_prompts = 1 + pr.more_prompts.size();
    for (int32_t i = 0; i < pr.n * static_cast<int32_t>(n_prompts); ++i) {
        GenerationRequest g = pr.gen;
        if (const auto k = static_cast<size_t>(i / pr.n); k > 0) g.prompt = pr.more_prompts[k - 1];
        g.sampling.seed += static_cast<uint64_t>(i % pr.n);
        if (lookup || !pr.prediction.empty())  // a drafter keeps one request's state
            g.drafter = make_lookup_drafter(
                {.draft_max = pr.draft_max.value_or(opt.draft_max), .reference = pr.prediction});
        const SubmitResult sub = scheduler->submit(std::move(g));
        if (!sub.ok()) {
            cancel->store(true);  // the choices already queued go
            switch (sub.error) {
                case SubmitError::QueueFull:
                    return send_error(res, queue_full(sub.message));
                case SubmitError::Stopped:
                    return send_error(res, unavailable(sub.message));
                default:
                    return send_error(res, bad_request(sub.message, chat ? "messages" : "prompt"));
            }
        }
        ids.push_back(sub.id);
    }
    ++active;
    ResponseHeader head{new_response_id(chat ? "chatcmpl-" : "cmpl-"), unix_now(), model_id, chat};
    auto choices = std::make_shared<ResponseChoices>(head, model, std::move(ids), with_logprobs,
                                                     pr.include_usage, pr.n);
    // Whatever ends the response (done, client gone, server stopping) cancels the sequences,
    // so their KV blocks are freed; cancelling a finished request does nothing.
    const auto release = [this, cancel](bool) {
        cancel->store(true);
        --active;
    };
    res.set_header("Cache-Control", "no-cache");
    if (pr.stream) {
        // Every event queued when the writer wakes goes out in one write; nullopt when the
        // client went away or the server stops.
        const auto wait_events =
            [this, stream](httplib::DataSink& sink) -> std::optional<std::deque<StreamEvent>> {
            for (;;) {
                if (stopping) return std::nullopt;
                if (auto evs = stream->take_all(100ms); !evs.empty()) return evs;
                if (!sink.is_writable()) return std::nullopt;
            }
        };
        res.set_chunked_content_provider(
            "text/event-stream",
            [wait_events, cancel, choices, out = std::string()](size_t,
                                                                httplib::DataSink& sink) mutable {
                auto evs = wait_events(sink);
                if (!evs) {
                    cancel->store(true);
                    return false;
                }
                out.clear();  // keeps its capacity from one write to the next
                bool done = false;
                for (const StreamEvent& ev : *evs)
                    if ((done = choices->stream(ev, out))) break;  // nothing follows the end
                if (!out.empty() && !sink.write(out.data(), out.size())) {
                    cancel->store(true);
                    return false;
                }
                if (done) sink.done();
                return true;
            },
            release);
        return;
    }
    // Not streamed: the body is written once the reply is complete. It is still sent chunked so
    // that waiting notices a client that disconnected and cancels its sequences.
    const auto wait_event = [this, stream](httplib::DataSink& sink) -> std::optional<StreamEvent> {
        for (;;) {
            if (stopping) return std::nullopt;
            if (auto ev = stream->next(100ms)) return ev;
            if (!sink.is_writable()) return std::nullopt;
        }
    };
    res.set_chunked_content_provider(
        "application/json",
        [wait_event, cancel, choices](size_t, httplib::DataSink& sink) {
            for (;;) {
                auto ev = wait_event(sink);
                if (!ev) {
                    cancel->store(true);
                    return false;
                }
                const auto out = choices->collect(*ev);
                if (!out) continue;
                if (!sink.write(out->data(), out->size())) return false;
                sink.done();
                return true;
            }
        },
        release);
}

Status ApiServer::start() try {
    Impl& s = *impl_;
    if (s.thread.joinable()) return Status::ok();
    if (s.opt.port == 0) {
        s.port = s.http.bind_to_any_port(s.opt.host);
        if (s.port <= 0) return Status::error("cannot listen on " + s.opt.host);
    } else {
        if (!s.http.bind_to_port(s.opt.host, s.opt.port))
            return Status::error("cannot listen on " + s.opt.host + ":" +
                                 std::to_string(s.opt.port) +
                                 " (is another program using the port?)");
        s.port = s.opt.port;
    }
    s.thread = std::thread([&s] { s.http.listen_after_bind(); });
    return Status::ok();
} catch (...) {
    return exception_status("starting the API server");
}

void ApiServer::stop() {
    Impl& s = *impl_;
    s.stopping = true;
    s.http.stop();
    if (s.thread.joinable()) s.thread.join();
}

int ApiServer::port() const {
    return impl_->port;
}

std::string ApiServer::base_url() const {
    const std::string& h = impl_->opt.host;
    const std::string host =
        h.find(':') != std::string::npos && h.front() != '[' ? "[" + h + "]" : h;
    return "http://" + host + ":" + std::to_string(impl_->port) + "/v1";
}

const std::string& ApiServer::model_id() const {
    return impl_->model_id;
}

ServerStats ApiServer::stats() const {
    return {impl_->active.load(), impl_->total.load()};
}

}  // namespace hearth::server
