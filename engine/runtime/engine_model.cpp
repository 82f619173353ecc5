// hearth::Model: opening the file, the tokenizer, the device and the weights.
#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "hearth/engine.h"
#include "kv/prefix_hash.h"
#include "model_impl.h"
#include "registry.h"
#include "runtime/int4_load.h"
#include "runtime/placement.h"
#include "runtime/template_stops.h"

namespace hearth {

namespace {

// Brings the weights into memory page by page so the caller sees progress and can cancel
// (the mapping would otherwise fault them in during the first forward pass).
Status touch_weights(std::span<const std::byte> bytes, const LoadOptions& opt) {
    constexpr size_t kChunk = size_t(4) << 20;
    constexpr size_t kPage = 4096;
    const uint64_t total = bytes.size();
    volatile unsigned char sink = 0;
    for (size_t done = 0; done < bytes.size();) {
        if (opt.cancel && opt.cancel->load(std::memory_order_relaxed))
            return Status::error("loading cancelled");
        const size_t end = std::min(bytes.size(), done + kChunk);
        for (size_t i = done; i < end; i += kPage)
            sink = sink + static_cast<unsigned char>(bytes[i]);
        done = end;
        if (opt.on_progress)
            opt.on_progress({total ? double(done) / double(total) : 1.0, done, total});
    }
    (void)sink;
    return Status::ok();
}

// The matrices the forward pass multiplies by (forward.cpp's mat_mul weights), readied for the
// main device's kernels now (backend::Device::prepare_weights: the CPU packs them), so that the
// first reply after a load does not pay for it: on qwen2.5-0.5b Q8_0 the first 8-token prompt
// took 0.25-0.67 s against ~0.03 s later. Accelerator layers' tensors are not the CPU's and are
// skipped there.
Result<uint64_t> prepare_matrices(const runtime::ModelWeights& w, backend::Device& device,
                                  const LoadOptions& opt) {
    std::vector<const backend::Tensor*> mats;
    auto add = [&](const backend::Tensor& t) {
        if (t.valid()) mats.push_back(&t);
    };
    for (const auto& L : w.layers)
        for (const auto* t : {&L.wq, &L.wk, &L.wv, &L.wo, &L.router, &L.w_gate, &L.w_up, &L.w_down})
            add(*t);
    add(w.output);
    auto made = device.prepare_weights(mats, [&opt](uint64_t done, uint64_t total) {
        if (opt.cancel && opt.cancel->load(std::memory_order_relaxed)) return false;
        if (opt.on_progress)
            opt.on_progress({total ? double(done) / double(total) : 1.0, done, total, "preparing"});
        return true;
    });
    if (!made && opt.cancel && opt.cancel->load(std::memory_order_relaxed))
        return Result<uint64_t>::error("loading cancelled");
    return made;
}

}  // namespace

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::~Model() = default;

namespace {
// Who made a KV cache: the file size, its first MiB (header, metadata, tensor table) and 4 KiB
// from 16 places across the weights. Cheap on a multi-GB file, and any re-quantization or
// different model changes it.
std::string file_identity(std::span<const std::byte> bytes) {
    uint64_t h = kv::fnv1a(bytes.first(std::min<size_t>(bytes.size(), size_t(1) << 20)));
    constexpr size_t kSample = 4096;
    if (bytes.size() > kSample)
        for (size_t i = 0; i < 16; ++i) {
            const size_t at = (bytes.size() - kSample) / 15 * i;
            h = kv::fnv1a(bytes.subspan(at, kSample), h);
        }
    char buf[64];
    std::snprintf(buf, sizeof buf, "gguf:%llu:%016llx",
                  static_cast<unsigned long long>(bytes.size()),
                  static_cast<unsigned long long>(h));
    return buf;
}
}  // namespace

Result<std::shared_ptr<Model>> Model::load(const std::filesystem::path& path,
                                           const LoadOptions& opt) try {
    using R = Result<std::shared_ptr<Model>>;
    if (opt.int4_weights) {
        auto prep = runtime::prepare_int4(path, opt);
        if (!prep) return R::error(prep.error_message());
        if (*prep) {
            LoadOptions plain = opt;
            plain.int4_weights = false;
            auto model = load((*prep)->path, plain);
            if (model) {
                ModelInfo& info = (*model)->impl_->info;
                info.int4_cache_hit = (*prep)->cache_hit;
                info.source_path = path.string();
                if (!info.name.empty() && info.name == (*prep)->path.stem().string())
                    info.name = path.stem().string();
            }
            return model;
        }
    }
    auto m = std::make_unique<Impl>();
    auto file = gguf::GgufFile::open(path);
    if (!file) return R::error(path.string() + ": " + file.error_message());
    m->file = std::move(file.value());
    auto params = runtime::load_supported_config(*m->file);
    if (!params) return R::error(path.string() + ": " + params.error_message());
    m->params = *params;
    auto tok = tokenizer::Tokenizer::from_gguf(*m->file);
    if (!tok) return R::error(path.string() + ": tokenizer: " + tok.error_message());
    m->tokenizer = std::move(tok.value());
    runtime::add_template_stop_tokens(*m->tokenizer,
                                      m->file->get_string("tokenizer.chat_template").value_or(""));
    if (m->tokenizer->n_vocab() != m->params.n_vocab)
        return R::error(path.string() + ": the vocabulary has " +
                        std::to_string(m->tokenizer->n_vocab()) + " tokens but token_embd has " +
                        std::to_string(m->params.n_vocab) + " rows");

    // The CPU is the main device; any other chosen device is the accelerator for a split.
    const auto registry = backend::Registry::probe();
    const backend::DeviceEntry* chosen = registry.find(opt.backend);
    if (!chosen || !chosen->usable) return R::error("backend: " + registry.why_not(opt.backend));
    auto cpu = registry.create("cpu");
    if (!cpu) return R::error("backend: " + cpu.error_message());
    m->device = std::move(cpu.value());
    if (!chosen->builtin_cpu) {
        auto accel = registry.create(chosen->name);
        if (!accel) return R::error("backend: " + accel.error_message());
        m->accel = std::move(accel.value());
    }

    // Placement and the fit check, before anything is read.
    const auto source = runtime::TensorSource::from_gguf(*m->file);
    runtime::PlanOptions po;
    po.gpu_layers = opt.gpu_layers;
    // The fit check plans for the context the model's contexts will get (the clamp included).
    const ContextLength planned =
        resolve_context_length(opt.n_ctx, m->params.n_ctx_train, opt.ctx_beyond_training);
    po.n_ctx = planned.n_ctx;
    po.kv_type = quant::element_type(opt.kv_type);
    const auto plan = runtime::plan_placement(m->params, source, *m->device, m->accel.get(), po);
    if (!opt.force)
        if (Status s = runtime::check_fit(plan); !s)
            return R::error(path.string() + ": " + s.message());

    if (Status s = touch_weights(source.bytes, opt); !s) return s;
    runtime::Placement placement;
    placement.main = m->device.get();
    placement.accel = m->accel.get();
    placement.n_accel = plan.n_accel;
    placement.output_on_accel = plan.output_on_accel;
    runtime::UploadProgress up;
    up.total = runtime::upload_bytes(m->params, source, placement);
    up.on_tensor = [&opt](uint64_t done, uint64_t total) {
        if (opt.cancel && opt.cancel->load(std::memory_order_relaxed)) return false;
        if (opt.on_progress)
            opt.on_progress({total ? double(done) / double(total) : 1.0, done, total, "uploading"});
        return true;
    };
    auto weights = runtime::bind_weights(m->params, source, placement, up);
    if (!weights) return R::error(path.string() + ": " + weights.error_message());
    m->weights = std::move(weights.value());
    if (m->weights.placement.n_accel == 0 && !m->weights.placement.output_on_accel)
        m->accel.reset();  // nothing runs there
    auto prepared = prepare_matrices(m->weights, *m->device, opt);
    if (!prepared) return R::error(prepared.error_message());
    for (int64_t l = 0; l < m->params.n_layer; ++l)
        m->layer_devices.push_back(&m->weights.placement.layer_device(l));

    ModelInfo& info = m->info;
    info.path = path.string();
    info.name = std::string(m->file->get_string("general.name").value_or(path.stem().string()));
    info.architecture = m->params.arch_name;
    info.file_bytes = m->file->file_size();
    info.n_params = m->weights.n_params;
    info.n_expert = m->params.n_expert;
    info.n_expert_used = m->params.n_expert_used;
    info.n_params_active = info.n_params;
    for (const auto& L : m->weights.layers)  // the unused share of each expert tensor
        for (const auto* t : {&L.gate_exps, &L.up_exps, &L.down_exps})
            if (t->valid())
                info.n_params_active -= static_cast<uint64_t>(t->n_elements()) /
                                        static_cast<uint64_t>(info.n_expert) *
                                        static_cast<uint64_t>(info.n_expert - info.n_expert_used);
    info.n_vocab = m->params.n_vocab;
    info.n_embd = m->params.n_embd;
    info.n_layer = m->params.n_layer;
    info.n_head = m->params.n_head;
    info.n_head_kv = m->params.n_head_kv;
    info.n_ff = m->params.n_ff;
    info.n_ctx_train = m->params.n_ctx_train;
    info.n_ctx = planned.n_ctx;
    info.context_note = planned.note;
    info.ctx_beyond_training = opt.ctx_beyond_training;
    info.int4_converted = m->file->find("hearth.int4.method") != nullptr;
    info.int4_source_types =
        std::string(m->file->get_string("hearth.int4.source_types").value_or(""));
    info.source_path = info.path;
    std::set<std::string> types;
    for (const auto& t : m->file->tensors())
        if (t.n_dims >= 2) types.insert(std::string(quant::traits(t.type).name));
    for (const auto& t : types) info.weight_types += (info.weight_types.empty() ? "" : "+") + t;
    info.device = m->accel ? m->accel->description() + " + " + m->device->description()
                           : m->device->description();
    info.gpu_layers = m->weights.placement.n_accel;
    info.output_on_accel = m->weights.placement.output_on_accel;
    info.accel_device = m->accel ? m->accel->name() : "";
    info.placement_notes = plan.notes;
    info.uploaded_bytes = m->weights.uploaded_bytes;
    info.prepared_bytes = *prepared;
    for (const auto& b : registry.backends()) {
        const bool used = b.name == m->device->name() || (m->accel && b.name == m->accel->name());
        info.backends.push_back({b.name, used, used ? "" : b.reason});
    }
    info.has_chat_template = m->file->find("tokenizer.chat_template") != nullptr;
    m->identity = file_identity(m->file->bytes());
    // (The "preparing" phase, last, ended at 1: it reports every matrix, whatever its device.)
    return std::shared_ptr<Model>(new Model(std::move(m)));
} catch (...) {
    return exception_status("loading the model");
}

std::vector<BackendReport> available_backends() {
    std::vector<BackendReport> out;
    const auto registry = backend::Registry::probe();
    const std::string best = registry.best();
    for (const auto& b : registry.backends())
        out.push_back({b.name, b.usable && b.name == best, b.reason});
    return out;
}

const ModelInfo& Model::info() const {
    return impl_->info;
}

Result<std::vector<int32_t>> Model::tokenize(std::string_view text, bool add_special,
                                             bool parse_special) const try {
    const auto& t = *impl_->tokenizer;
    return t.encode(text, add_special && t.add_bos(), add_special && t.add_eos(), parse_special);
} catch (...) {
    return exception_status("tokenize");
}

std::string Model::detokenize(std::span<const int32_t> tokens) const {
    return impl_->tokenizer->decode(tokens);
}

std::string Model::token_piece(int32_t token) const {
    return impl_->tokenizer->token_to_piece(token);
}

bool Model::is_end_of_generation(int32_t token) const {
    return impl_->tokenizer->is_end_of_generation(token);
}

std::string Model::chat_template() const {
    return std::string(impl_->file->get_string("tokenizer.chat_template").value_or(""));
}

const char* stop_reason_name(StopReason r) {
    switch (r) {
        case StopReason::MaxTokens:
            return "max tokens";
        case StopReason::EndOfGeneration:
            return "end of generation";
        case StopReason::StopString:
            return "stop string";
        case StopReason::ContextFull:
            return "context full";
        case StopReason::Cancelled:
            return "cancelled";
    }
    return "?";
}

double GenerationStats::prompt_tokens_per_second() const {
    return prompt_seconds > 0 ? double(prompt_tokens) / prompt_seconds : 0.0;
}

double GenerationStats::generate_tokens_per_second() const {
    return generate_seconds > 0 ? double(generated_tokens) / generate_seconds : 0.0;
}

}  // namespace hearth
