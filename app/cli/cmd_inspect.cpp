// hearth-cli inspect: what a GGUF file holds and what running it would need.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "args.h"
#include "command_registry.h"
#include "gguf/gguf_file.h"
#include "model/model_info.h"

namespace {

using hearth::model::ModelInfo;

constexpr const char* kUsage =
    R"(Usage: hearth-cli inspect MODEL.gguf [--json] [--ctx N] [--kv-type TYPE]

Prints what a GGUF file holds: architecture and family, parameter count, file size, tensor
count per type, hyper-parameters, vocabulary kind and size, special tokens, whether a chat
template is present, and the memory needed at the default context (4096 tokens, or the
training context if smaller) with an F16 KV cache. Vocab-only files report what they have.

Text output: one "label: value" line each for file, file size, gguf (version, key count, open
time), architecture (family), name, parameters, tensors (count per type, weight bytes),
context length, shape, rope, experts and active parameters (mixture of experts), features
(family switches such as qk-norm, geglu, sliding-window=WINDOW,LOCAL:1, longrope), norm epsilon, embeddings (tied or not, QKV bias), vocabulary,
special tokens, chat template and memory; a file that is not a loadable model prints
"model: not loadable: REASON" in place of the model lines.

Options:
  --json           one JSON object instead of text. Keys: file, file_size, gguf_version,
                   open_ms, metadata_count, architecture, name, family, loadable, problem,
                   parameters, weight_bytes, tensor_count, tensors_by_type {TYPE: n},
                   config {n_vocab, n_embd, n_layer, n_head, n_head_kv, head_dim, n_ff,
                   n_ctx_train, n_rot, rope_style, rope_freq_base, rope_scaling,
                   rope_freq_scale, rope_freq_factors, rms_eps, tied_embeddings,
                   qkv_bias, file_type, n_expert, n_expert_used, n_ff_exp,
                   sliding_window, sliding_window_period, features [...]},
                   active_parameters (with only the used experts; = parameters when
                   dense), vocab {model, kind, pre, size, add_bos, add_eos,
                   special [{role, id, text}]}, chat_template_bytes,
                   memory {context, kv_type, weights, kv_cache, compute, total} (bytes)
  --ctx N          context length for the memory estimate
  --kv-type TYPE   KV cache type for the estimate: F32, F16 (default), Q8_0, Q4_0

Exit status: 0 when the file opens and is a loadable model or a vocab-only file, 1 when it is
broken or not loadable (the problem is printed), 2 on a usage error.)";

// The family switches of a config, as short words for people and scripts.
std::vector<std::string> features(const hearth::model::ModelConfig& c) {
    std::vector<std::string> f;
    auto num = [](double v) {
        char b[32];
        std::snprintf(b, sizeof b, "%g", v);
        return std::string(b);
    };
    if (c.qk_norm) f.push_back("qk-norm");
    if (c.post_norms) f.push_back("post-norms");
    if (c.gelu_ffn) f.push_back("geglu");
    if (c.embd_scale) f.push_back("embedding-scale");
    if (c.fused_qkv) f.push_back("fused-qkv");
    if (c.fused_gate_up) f.push_back("fused-gate-up");
    if (c.attn_softcap > 0) f.push_back("attn-softcap=" + num(c.attn_softcap));
    if (c.final_softcap > 0) f.push_back("final-softcap=" + num(c.final_softcap));
    if (c.n_swa > 0)
        f.push_back("sliding-window=" + std::to_string(c.n_swa) + "," +
                    std::to_string(c.swa_period - 1) + ":1");
    if (c.arch == hearth::model::Arch::Gemma3)
        f.push_back("rope-base-local=" + num(c.rope_swa.freq_base));
    if (!c.rope_long_factors.empty()) f.push_back("longrope");
    if (c.n_expert > 0)
        f.push_back("moe=" + std::to_string(c.n_expert_used) + "/" + std::to_string(c.n_expert));
    return f;
}

std::string human_bytes(uint64_t b) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(b);
    int u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        ++u;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", v, units[u]);
    return buf;
}

std::string human_count(uint64_t n) {
    char buf[64];
    if (n >= 1000000000ull)
        std::snprintf(buf, sizeof buf, "%.2f B", n / 1e9);
    else if (n >= 1000000ull)
        std::snprintf(buf, sizeof buf, "%.2f M", n / 1e6);
    else if (n >= 1000ull)
        std::snprintf(buf, sizeof buf, "%.2f K", n / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(n));
    return buf;
}

nlohmann::json to_json(const std::string& path, double open_ms, const ModelInfo& m) {
    using nlohmann::json;
    json j;
    j["file"] = path;
    j["file_size"] = m.file_size;
    j["gguf_version"] = m.gguf_version;
    j["open_ms"] = open_ms;
    j["metadata_count"] = m.n_kv;
    j["architecture"] = m.arch;
    j["name"] = m.name;
    j["loadable"] = m.config.has_value();
    j["problem"] = m.config_error;
    j["parameters"] = m.n_params;
    j["weight_bytes"] = m.weight_bytes;
    j["tensor_count"] = m.n_tensors;
    j["tensors_by_type"] = json::object();
    for (const auto& [type, n] : m.tensors_by_type) j["tensors_by_type"][type] = n;
    if (m.config) {
        const auto& c = *m.config;
        j["family"] = c.family;
        j["config"] = {
            {"n_vocab", c.n_vocab},
            {"n_embd", c.n_embd},
            {"n_layer", c.n_layer},
            {"n_head", c.n_head},
            {"n_head_kv", c.n_head_kv},
            {"head_dim", c.head_dim},
            {"n_ff", c.n_ff},
            {"n_ctx_train", c.n_ctx_train},
            {"n_rot", c.rope.n_rot},
            {"rope_style",
             c.rope.mode == hearth::backend::RopeMode::RotateHalf ? "neox" : "adjacent"},
            {"rope_freq_base", c.rope.freq_base},
            {"rope_scaling", std::string(hearth::model::rope_scaling_name(c.rope_scaling))},
            {"rope_freq_scale", c.rope.freq_scale},
            {"rope_freq_factors", c.rope_freq_factors},
            {"rms_eps", c.rms_eps},
            {"tied_embeddings", c.tied_embeddings},
            {"qkv_bias", c.has_qkv_bias},
            {"file_type", c.file_type},
            {"n_expert", c.n_expert},
            {"n_expert_used", c.n_expert_used},
            {"n_ff_exp", c.n_ff_exp},
            {"sliding_window", c.n_swa},
            {"sliding_window_period", c.swa_period},
            {"features", features(c)},
        };
        j["active_parameters"] = hearth::model::active_parameter_count(c);
    } else {
        j["family"] = nullptr;
        j["config"] = nullptr;
    }
    json special = json::array();
    for (const auto& t : m.special_tokens)
        special.push_back({{"role", t.role}, {"id", t.id}, {"text", t.text}});
    j["vocab"] = {{"model", m.vocab_model},
                  {"kind", m.vocab_kind},
                  {"pre", m.vocab_pre},
                  {"size", m.vocab_size},
                  {"special", special}};
    j["vocab"]["add_bos"] = m.add_bos ? json(*m.add_bos) : json(nullptr);
    j["vocab"]["add_eos"] = m.add_eos ? json(*m.add_eos) : json(nullptr);
    j["chat_template_bytes"] = m.chat_template_bytes;
    if (m.memory) {
        j["memory"] = {{"context", m.context},
                       {"kv_type", std::string(hearth::model::kv_type_name(m.kv_type))},
                       {"weights", m.memory->weights},
                       {"kv_cache", m.memory->kv_cache},
                       {"compute", m.memory->compute},
                       {"total", m.memory->total()}};
    } else {
        j["memory"] = nullptr;
    }
    return j;
}

void print_text(const std::string& path, double open_ms, const ModelInfo& m) {
    std::printf("file:            %s\n", path.c_str());
    std::printf("file size:       %s (%llu bytes)\n", human_bytes(m.file_size).c_str(),
                static_cast<unsigned long long>(m.file_size));
    std::printf("gguf:            version %u, %llu metadata keys, opened in %.2f ms\n",
                m.gguf_version, static_cast<unsigned long long>(m.n_kv), open_ms);
    std::printf("architecture:    %s", m.arch.empty() ? "(none)" : m.arch.c_str());
    if (m.config) std::printf(" (family: %s)", m.config->family.c_str());
    std::printf("\n");
    if (!m.name.empty()) std::printf("name:            %s\n", m.name.c_str());
    std::printf("parameters:      %s (%llu)\n", human_count(m.n_params).c_str(),
                static_cast<unsigned long long>(m.n_params));
    std::printf("tensors:         %llu", static_cast<unsigned long long>(m.n_tensors));
    const char* sep = " (";
    for (const auto& [type, n] : m.tensors_by_type) {
        std::printf("%s%s: %llu", sep, type.c_str(), static_cast<unsigned long long>(n));
        sep = ", ";
    }
    std::printf("%s, %s of weights\n", m.tensors_by_type.empty() ? "" : ")",
                human_bytes(m.weight_bytes).c_str());
    if (m.config) {
        const auto& c = *m.config;
        std::printf("context length:  %lld (training)\n", static_cast<long long>(c.n_ctx_train));
        std::printf(
            "shape:           %s wide, %s layers, %s heads (%s KV), head dim %s, FFN %s,"
            " vocab %s\n",
            std::to_string(c.n_embd).c_str(), std::to_string(c.n_layer).c_str(),
            std::to_string(c.n_head).c_str(), std::to_string(c.n_head_kv).c_str(),
            std::to_string(c.head_dim).c_str(), std::to_string(c.n_ff).c_str(),
            std::to_string(c.n_vocab).c_str());
        std::printf(
            "rope:            %s, base %g, %d dims, scaling %s",
            c.rope.mode == hearth::backend::RopeMode::RotateHalf ? "neox" : "adjacent pairs",
            c.rope.freq_base, c.rope.n_rot,
            std::string(hearth::model::rope_scaling_name(c.rope_scaling)).c_str());
        if (!c.rope_freq_factors.empty())
            std::printf(", rope_freqs (%zu factors, %g..%g)", c.rope_freq_factors.size(),
                        c.rope_freq_factors.front(), c.rope_freq_factors.back());
        std::printf("\n");
        if (c.n_expert > 0)
            std::printf("experts:         %s x FFN %s, %s used per token; active parameters %s\n",
                        std::to_string(c.n_expert).c_str(), std::to_string(c.n_ff_exp).c_str(),
                        std::to_string(c.n_expert_used).c_str(),
                        human_count(hearth::model::active_parameter_count(c)).c_str());
        if (const auto f = features(c); !f.empty()) {
            std::printf("features:       ");
            for (const auto& x : f) std::printf(" %s", x.c_str());
            std::printf("\n");
        }
        std::printf("norm epsilon:    %g\n", c.rms_eps);
        std::printf("embeddings:      %s; QKV bias: %s\n",
                    c.tied_embeddings ? "tied (output uses token_embd)" : "separate output",
                    c.has_qkv_bias ? "yes" : "no");
    } else {
        std::printf("model:           not loadable: %s\n", m.config_error.c_str());
    }
    std::printf("vocabulary:      %s", m.vocab_model.empty() ? "(none)" : m.vocab_kind.c_str());
    if (!m.vocab_model.empty()) std::printf(" (%s)", m.vocab_model.c_str());
    if (!m.vocab_pre.empty()) std::printf(", pre-tokenizer %s", m.vocab_pre.c_str());
    std::printf(", %llu tokens\n", static_cast<unsigned long long>(m.vocab_size));
    std::printf("special tokens: ");
    if (m.special_tokens.empty()) std::printf(" none");
    for (const auto& t : m.special_tokens)
        std::printf(" %s=%u '%s'", t.role.c_str(), t.id, t.text.c_str());
    if (m.add_bos) std::printf(" add_bos=%s", *m.add_bos ? "true" : "false");
    if (m.add_eos) std::printf(" add_eos=%s", *m.add_eos ? "true" : "false");
    std::printf("\n");
    if (m.chat_template_bytes)
        std::printf("chat template:   yes (%llu bytes)\n",
                    static_cast<unsigned long long>(m.chat_template_bytes));
    else
        std::printf("chat template:   no\n");
    if (m.memory) {
        std::printf(
            "memory @ %u ctx: %s total = weights %s + KV cache (%s) %s + compute %s\n", m.context,
            human_bytes(m.memory->total()).c_str(), human_bytes(m.memory->weights).c_str(),
            std::string(hearth::model::kv_type_name(m.kv_type)).c_str(),
            human_bytes(m.memory->kv_cache).c_str(), human_bytes(m.memory->compute).c_str());
    }
}

int run_inspect(std::span<const std::string> args) {
    static const hearth::cli::OptionSpec specs[] = {
        {"json", 0, false, false}, {"ctx", 0, true, false}, {"kv-type", 0, true, false}};
    std::string error;
    auto a = hearth::cli::Args::parse(args, specs, error);
    if (!a || a->positional().size() != 1) {
        std::fprintf(stderr, "hearth-cli inspect: %s\n%s\n",
                     error.empty() ? "expected one MODEL.gguf" : error.c_str(), kUsage);
        return 2;
    }
    const auto ctx = a->integer("ctx", error);
    if (!error.empty() || (ctx && (*ctx <= 0 || *ctx > 0x7FFFFFFF))) {
        std::fprintf(stderr, "hearth-cli inspect: bad --ctx %s\n", error.c_str());
        return 2;
    }
    auto kv = hearth::model::kv_type_from_name(a->value_or("kv-type", "F16"));
    if (!kv) {
        std::fprintf(stderr, "hearth-cli inspect: unknown --kv-type (F32, F16, Q8_0, Q4_0)\n");
        return 2;
    }
    const std::string path = a->positional()[0];
    const auto t0 = std::chrono::steady_clock::now();
    auto file = hearth::gguf::GgufFile::open(path);
    const double open_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!file) {
        std::fprintf(stderr, "hearth-cli inspect: %s\n", file.error_message().c_str());
        return 1;
    }
    const ModelInfo m =
        hearth::model::describe_model(**file, ctx ? static_cast<uint32_t>(*ctx) : 0, *kv);
    if (a->has("json"))
        std::printf("%s\n", to_json(path, open_ms, m).dump(2).c_str());
    else
        print_text(path, open_ms, m);
    const bool vocab_only = m.n_tensors == 0;
    return (m.config || vocab_only) ? 0 : 1;
}

}  // namespace

HEARTH_CLI_COMMAND({"inspect", "show what a GGUF model file holds", kUsage, run_inspect});
