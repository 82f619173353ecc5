// W4A16 conversion driver (see int4_convert.h).
#include "model/int4_convert.h"

#include <unistd.h>
#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "gguf/gguf_writer.h"
#include "model/awq_forward.h"
#include "quant/quant_ref.h"

namespace hearth::model {

namespace {

namespace fs = std::filesystem;
using quant::Type;

constexpr const char* kLinear[] = {"attn_q",   "attn_k", "attn_v",  "attn_output",
                                   "ffn_gate", "ffn_up", "ffn_down"};

double bits_per_weight(Type t) {
    const auto& tr = quant::traits(t);
    return 8.0 * tr.type_size / tr.block_size;
}

// "blk.N.<part>.weight" -> (N, part); nullopt for tensors outside the blocks.
std::optional<std::pair<uint32_t, std::string>> block_part(std::string_view name) {
    if (!name.starts_with("blk.")) return std::nullopt;
    const size_t dot = name.find('.', 4);
    if (dot == std::string_view::npos) return std::nullopt;
    uint32_t n = 0;
    for (char c : name.substr(4, dot - 4)) {
        if (c < '0' || c > '9') return std::nullopt;
        n = n * 10 + uint32_t(c - '0');
    }
    return std::pair{n, std::string(name.substr(dot + 1))};
}

bool is_linear_part(std::string_view part) {
    for (const char* l : kLinear)
        if (part == std::string(l) + ".weight") return true;
    return false;
}

bool is_linear(std::string_view name) {
    auto bp = block_part(name);
    return bp && is_linear_part(bp->second);
}

// The output type of a tensor under the policy in int4_convert.h.
Type target_type(const gguf::TensorInfo& t, Type q4) {
    if (t.n_dims < 2) return Type::F32;
    const uint64_t k = t.ne[0];
    if (is_linear(t.name)) {
        if (bits_per_weight(t.type) <= 5.0) return t.type;
        if (q4 == Type::Q4_K && k % 256 == 0) return Type::Q4_K;
        return k % 32 == 0 ? Type::Q4_0 : t.type;
    }
    if ((t.name == "token_embd.weight" || t.name == "output.weight") &&
        bits_per_weight(t.type) > 8.5 && k % 32 == 0)
        return Type::Q8_0;
    return t.type;
}

std::vector<float> to_f32(const gguf::TensorInfo& t, cpu::ThreadPool& pool) {
    const size_t k = t.ne[0], rows = t.n_rows(), rb = quant::row_bytes(t.type, k);
    std::vector<float> out(k * rows);
    pool.parallel_for(rows, 16, [&](size_t b, size_t e, int) {
        for (size_t r = b; r < e; ++r)
            quant::dequantize_row(t.type, t.data.data() + r * rb, out.data() + r * k, k);
    });
    return out;
}

class Converter {
public:
    Converter(const gguf::GgufFile& src, const Int4Settings& s, cpu::ThreadPool& pool,
              const std::function<void(const ConvertProgress&)>& progress,
              const std::atomic<bool>* cancel)
        : src_(src), s_(s), pool_(pool), progress_(progress), cancel_(cancel) {}

    Status run(const fs::path& tmp, std::span<const int32_t> calibration, ConvertReport& rep);

private:
    Status check_cancel() const {
        if (cancel_ && cancel_->load(std::memory_order_relaxed))
            return Status::error("conversion cancelled");
        return Status::ok();
    }
    void advance(uint64_t bytes) {
        done_ += bytes;
        if (progress_) progress_({total_ ? double(done_) / double(total_) : 1.0, done_, total_});
    }
    const gguf::TensorInfo& tensor(uint32_t layer, std::string_view part) const {
        return *src_.find_tensor("blk." + std::to_string(layer) + "." + std::string(part));
    }
    Status write_converted(const gguf::TensorInfo& t, const float* data, std::span<const float> s);
    Status write_plain(const gguf::TensorInfo& t);
    Status run_layer(uint32_t l, std::vector<float>& h, ConvertReport& rep);

    const gguf::GgufFile& src_;
    const Int4Settings& s_;
    cpu::ThreadPool& pool_;
    const std::function<void(const ConvertProgress&)>& progress_;
    const std::atomic<bool>* cancel_;
    ModelConfig cfg_;
    gguf::GgufWriter w_;
    uint64_t done_ = 0, total_ = 0;
};

// Encodes a float32 tensor (optionally times per-column scales s) as its target type.
Status Converter::write_converted(const gguf::TensorInfo& t, const float* data,
                                  std::span<const float> s) {
    const Type out = target_type(t, s_.type);
    const size_t k = t.ne[0], rows = t.n_rows();
    if (out == Type::F32 && s.empty())
        return w_.write_tensor_data(std::as_bytes(std::span(data, k * rows)));
    std::vector<std::byte> buf(quant::row_bytes(out, k) * rows);
    if (out == Type::F32) {
        std::vector<float> tmp(data, data + k * rows);
        for (size_t r = 0; r < rows; ++r)
            for (size_t i = 0; i < k; ++i) tmp[r * k + i] *= s[i];
        std::memcpy(buf.data(), tmp.data(), buf.size());
    } else {
        quantize_scaled(data, rows, k, s, out, buf.data(), pool_);
    }
    return w_.write_tensor_data(buf);
}

// A tensor outside the blocks: copied, or re-encoded in row chunks (bounded memory).
Status Converter::write_plain(const gguf::TensorInfo& t) {
    const Type out = target_type(t, s_.type);
    if (out == t.type) return w_.write_tensor_data(t.data);
    const size_t k = t.ne[0], rows = t.n_rows(),
                 chunk = std::max<size_t>(1, (size_t(16) << 20) / (4 * k));
    const size_t rb_in = quant::row_bytes(t.type, k), rb_out = quant::row_bytes(out, k);
    std::vector<float> f(chunk * k);
    std::vector<std::byte> buf(chunk * rb_out);
    for (size_t r0 = 0; r0 < rows; r0 += chunk) {
        const size_t n = std::min(chunk, rows - r0);
        pool_.parallel_for(n, 16, [&](size_t b, size_t e, int) {
            for (size_t r = b; r < e; ++r) {
                quant::dequantize_row(t.type, t.data.data() + (r0 + r) * rb_in, f.data() + r * k,
                                      k);
                quant::quantize_row(out, f.data() + r * k, buf.data() + r * rb_out, k);
            }
        });
        if (Status st = w_.write_tensor_data(std::span(buf).first(n * rb_out)); !st) return st;
        if (Status st = check_cancel(); !st) return st;
    }
    return Status::ok();
}

Status Converter::run_layer(uint32_t l, std::vector<float>& h, ConvertReport& rep) {
    const std::string pre = "blk." + std::to_string(l) + ".";
    auto get = [&](const char* part) { return to_f32(tensor(l, part), pool_); };
    auto opt = [&](const char* part) {
        const auto* t = src_.find_tensor(pre + part);
        return t ? to_f32(*t, pool_) : std::vector<float>{};
    };
    LayerWeightsF32 w;
    w.attn_norm = get("attn_norm.weight");
    w.ffn_norm = get("ffn_norm.weight");
    w.q = get("attn_q.weight");
    w.k = get("attn_k.weight");
    w.v = get("attn_v.weight");
    w.o = get("attn_output.weight");
    w.gate = get("ffn_gate.weight");
    w.up = get("ffn_up.weight");
    w.down = get("ffn_down.weight");
    w.bq = opt("attn_q.bias");
    w.bk = opt("attn_k.bias");
    w.bv = opt("attn_v.bias");
    w.bo = opt("attn_output.bias");

    const size_t E = cfg_.n_embd, F = cfg_.n_ff, od = size_t(cfg_.n_head) * cfg_.head_dim_v;
    auto converted = [&](const char* part) {
        const auto& t = tensor(l, part);
        return target_type(t, s_.type) != t.type;
    };
    std::vector<float> s_qkv, s_o, s_gu, s_down;
    const size_t n_tok = h.size() / E;
    if (s_.method == Int4Method::Awq && n_tok > 0) {
        LayerActivations a;
        layer_forward(cfg_, w, h, n_tok, a, pool_);
        auto search = [&](std::initializer_list<MatrixRef> mats, size_t k, const float* x,
                          std::span<const float> mean, std::vector<float>& s) -> Status {
            if (Status st = check_cancel(); !st) return st;
            const ScaleSearch r = search_scales(mats, k, x, n_tok, mean, s_.type, s_.search, pool_);
            rep.search_err_rtn += r.err_rtn;
            rep.search_err_best += r.err_best;
            if (r.alpha > 0) s = r.scales;
            return Status::ok();
        };
        Status st = Status::ok();
        if (converted("attn_q.weight") && converted("attn_k.weight") && converted("attn_v.weight"))
            st = search({{w.q.data(), size_t(cfg_.q_width())},
                         {w.k.data(), size_t(cfg_.kv_width())},
                         {w.v.data(), size_t(cfg_.v_width())}},
                        E, a.attn_in.data(), channel_mean_abs(a.attn_in.data(), n_tok, E), s_qkv);
        if (st && converted("attn_output.weight") && converted("attn_v.weight")) {
            // One scale per V channel: average the statistics over the heads of a GQA group.
            auto mean = channel_mean_abs(a.o_in.data(), n_tok, od);
            const size_t hdv = cfg_.head_dim_v, group = cfg_.n_head / cfg_.n_head_kv;
            for (size_t g = 0; g < size_t(cfg_.n_head_kv); ++g)
                for (size_t d = 0; d < hdv; ++d) {
                    double acc = 0;
                    for (size_t j = 0; j < group; ++j) acc += mean[((g * group) + j) * hdv + d];
                    for (size_t j = 0; j < group; ++j)
                        mean[((g * group) + j) * hdv + d] = float(acc / double(group));
                }
            st = search({{w.o.data(), E}}, od, a.o_in.data(), mean, s_o);
        }
        if (st && converted("ffn_gate.weight") && converted("ffn_up.weight"))
            st = search({{w.gate.data(), F}, {w.up.data(), F}}, E, a.ffn_in.data(),
                        channel_mean_abs(a.ffn_in.data(), n_tok, E), s_gu);
        if (st && converted("ffn_down.weight") && converted("ffn_up.weight"))
            st = search({{w.down.data(), E}}, F, a.down_in.data(),
                        channel_mean_abs(a.down_in.data(), n_tok, F), s_down);
        if (!st) return st;
    }
    // Fold diag(s)^-1 into the producers of each input (exact in float arithmetic up to
    // rounding; the producers are then quantized or stored as F32).
    for (size_t i = 0; i < s_qkv.size(); ++i) w.attn_norm[i] /= s_qkv[i];
    for (size_t i = 0; i < s_gu.size(); ++i) w.ffn_norm[i] /= s_gu[i];
    for (size_t r = 0; r < s_down.size(); ++r)
        for (size_t i = 0; i < E; ++i) w.up[r * E + i] /= s_down[r];
    if (!s_o.empty()) {
        const size_t hdv = cfg_.head_dim_v, group = cfg_.n_head / cfg_.n_head_kv;
        for (size_t r = 0; r < size_t(cfg_.v_width()); ++r) {
            const float sv = s_o[((r / hdv) * group) * hdv + r % hdv];
            for (size_t i = 0; i < E; ++i) w.v[r * E + i] /= sv;
            if (!w.bv.empty()) w.bv[r] /= sv;
        }
    }
    const std::map<std::string, std::pair<const std::vector<float>*, const std::vector<float>*>>
        parts = {{"attn_norm.weight", {&w.attn_norm, nullptr}},
                 {"ffn_norm.weight", {&w.ffn_norm, nullptr}},
                 {"attn_q.weight", {&w.q, &s_qkv}},
                 {"attn_k.weight", {&w.k, &s_qkv}},
                 {"attn_v.weight", {&w.v, &s_qkv}},
                 {"attn_output.weight", {&w.o, &s_o}},
                 {"ffn_gate.weight", {&w.gate, &s_gu}},
                 {"ffn_up.weight", {&w.up, &s_gu}},
                 {"ffn_down.weight", {&w.down, &s_down}},
                 {"attn_q.bias", {&w.bq, nullptr}},
                 {"attn_k.bias", {&w.bk, nullptr}},
                 {"attn_v.bias", {&w.bv, nullptr}},
                 {"attn_output.bias", {&w.bo, nullptr}}};
    uint64_t bytes = 0;
    for (const auto& t : src_.tensors()) {
        auto bp = block_part(t.name);
        if (!bp || bp->first != l) continue;
        if (Status st = check_cancel(); !st) return st;
        bytes += t.nbytes;
        const auto it = parts.find(bp->second);
        const bool keep = target_type(t, s_.type) == t.type && t.type != Type::F32;
        Status st = Status::ok();
        if (it == parts.end() || keep) {
            st = w_.write_tensor_data(t.data);  // untouched (an un-folded, kept matrix)
        } else {
            const auto* scales = it->second.second;
            st = write_converted(
                t, it->second.first->data(),
                scales ? std::span<const float>(*scales) : std::span<const float>{});
            if (is_linear_part(bp->second) && target_type(t, s_.type) != t.type) ++rep.n_converted;
        }
        if (!st) return st;
    }
    advance(bytes);
    return Status::ok();
}

Status Converter::run(const fs::path& tmp, std::span<const int32_t> calibration,
                      ConvertReport& rep) {
    auto cfg = load_model_config(src_);
    if (!cfg) return Status::error(cfg.error_message());
    cfg_ = std::move(cfg.value());
    // The AWQ search runs its own llama-style forward pass: other families are not converted.
    if ((cfg_.arch != Arch::Llama && cfg_.arch != Arch::Qwen2) || cfg_.n_expert > 0)
        return Status::error("INT4 conversion supports llama and qwen2 models only, not " +
                             cfg_.arch_name + (cfg_.n_expert > 0 ? " with experts" : ""));
    for (int32_t id : calibration)
        if (id < 0 || uint32_t(id) >= cfg_.n_vocab)
            return Status::error("calibration token " + std::to_string(id) + " out of range");

    for (const auto& kv : src_.metadata()) w_.copy_value(kv.key, kv.value);
    if (Status st = w_.set_alignment(uint32_t(src_.alignment())); !st) return st;
    w_.set_u32("general.file_type", s_.type == Type::Q4_K ? 14u : 2u);  // MOSTLY_Q4_K_S / Q4_0
    w_.set_string("hearth.int4.method", s_.method == Int4Method::Awq ? "awq" : "rtn");
    w_.set_string("hearth.int4.source_types", linear_weight_types(src_));
    w_.set_u32("hearth.int4.converter_version", kInt4ConverterVersion);
    // Tensors outside the blocks first, then block by block (the order data is produced in).
    std::vector<const gguf::TensorInfo*> order;
    for (const auto& t : src_.tensors())
        if (!block_part(t.name)) order.push_back(&t);
    for (uint32_t l = 0; l < cfg_.n_layer; ++l)
        for (const auto& t : src_.tensors())
            if (auto bp = block_part(t.name); bp && bp->first == l) order.push_back(&t);
    for (const auto* t : order) {
        total_ += t->nbytes;
        if (Status st =
                w_.add_tensor(t->name, target_type(*t, s_.type), std::span(t->ne, t->n_dims));
            !st)
            return st;
    }
    if (Status st = w_.begin(tmp); !st) return st;
    for (const auto* t : order) {
        if (block_part(t->name)) break;
        if (Status st = write_plain(*t); !st) return st;
        advance(t->nbytes);
    }
    // The calibration activations: token embeddings of the calibration text.
    std::vector<float> h;
    if (s_.method == Int4Method::Awq) {
        const auto* emb = src_.find_tensor("token_embd.weight");
        const size_t E = cfg_.n_embd, rb = quant::row_bytes(emb->type, E);
        const size_t n = std::min(calibration.size(), s_.max_calibration_tokens);
        h.resize(n * E);
        for (size_t i = 0; i < n; ++i)
            quant::dequantize_row(emb->type, emb->data.data() + size_t(calibration[i]) * rb,
                                  h.data() + i * E, E);
    }
    for (uint32_t l = 0; l < cfg_.n_layer; ++l)
        if (Status st = run_layer(l, h, rep); !st) return st;
    return w_.finish();
}

}  // namespace

std::string Int4Settings::key_text() const {
    return std::string(method == Int4Method::Awq ? "awq" : "rtn") + ";" +
           std::string(quant::traits(type).name) +
           ";tok=" + std::to_string(max_calibration_tokens) +
           ";grid=" + std::to_string(search.n_grid) + ";rows=" + std::to_string(search.max_rows) +
           ";stok=" + std::to_string(search.max_tokens);
}

bool int4_supported(const gguf::GgufFile& file) {
    const auto arch = file.get_string("general.architecture").value_or("");
    if (arch != "llama" && arch != "qwen2") return false;
    return file.find(std::string(arch) + ".expert_count") == nullptr;
}

bool needs_int4_conversion(const gguf::GgufFile& file) {
    if (!int4_supported(file)) return false;
    for (const auto& t : file.tensors())
        if (is_linear(t.name) && bits_per_weight(t.type) > 5.0) return true;
    return false;
}

std::string linear_weight_types(const gguf::GgufFile& file) {
    std::set<std::string> types;
    for (const auto& t : file.tensors())
        if (is_linear(t.name)) types.insert(std::string(quant::traits(t.type).name));
    std::string out;
    for (const auto& t : types) out += (out.empty() ? "" : "+") + t;
    return out;
}

Result<ConvertReport> convert_to_int4(const gguf::GgufFile& src, const fs::path& out,
                                      const Int4Settings& settings,
                                      std::span<const int32_t> calibration,
                                      const std::function<void(const ConvertProgress&)>& progress,
                                      const std::atomic<bool>* cancel) try {
    if (settings.type != Type::Q4_0 && settings.type != Type::Q4_K)
        return Result<ConvertReport>::error("INT4 conversion: the type must be Q4_0 or Q4_K");
    const int n_threads = settings.n_threads > 0
                              ? settings.n_threads
                              : int(std::max(1u, std::thread::hardware_concurrency()));
    cpu::ThreadPool pool(n_threads);
    ConvertReport rep;
    rep.source_types = linear_weight_types(src);
    fs::path tmp = out;
    tmp += ".tmp" + std::to_string(::getpid());
    // An exception (out of memory on a huge tensor) is an error like any other, so the
    // half-written file below is removed.
    Status st = guarded("INT4 conversion", [&]() -> Status {
        Converter c(src, settings, pool, progress, cancel);
        return c.run(tmp, calibration, rep);
    });  // the writer's file is closed here
    std::error_code ec;
    if (st) {
        fs::rename(tmp, out, ec);
        if (ec)
            st = Status::error("INT4 conversion: cannot rename " + tmp.string() + ": " +
                               ec.message());
    }
    if (!st) {
        fs::remove(tmp, ec);
        return Result<ConvertReport>::error(st.message());
    }
    rep.out_bytes = fs::file_size(out, ec);
    return rep;
} catch (...) {
    return exception_status("INT4 conversion");
}

}  // namespace hearth::model
