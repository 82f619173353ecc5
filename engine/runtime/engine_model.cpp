// hearth::Model: opening the file, the tokenizer, the device and the weights.
#include <algorithm>
#include <cstdio>
#include <set>
#include <string>

#include "kv/prefix_hash.h"
#include "model_impl.h"
#include "registry.h"
#include "runtime/int4_load.h"
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
    auto params = runtime::read_model_params(*m->file);
    if (!params) return R::error(path.string() + ": " + params.error_message());
    m->params = *params;
    auto tok = tokenizer::Tokenizer::from_gguf(*m->file);
    if (!tok) return R::error(path.string() + ": tokenizer: " + tok.error_message());
    m->tokenizer = std::move(tok.value());
    runtime::add_template_stop_tokens(
        *m->tokenizer, m->file->get_string("tokenizer.chat_template").value_or(""));
    if (m->tokenizer->n_vocab() != m->params.n_vocab)
        return R::error(path.string() + ": the vocabulary has " +
                        std::to_string(m->tokenizer->n_vocab()) + " tokens but token_embd has " +
                        std::to_string(m->params.n_vocab) + " rows");

    const auto registry = backend::Registry::probe();
    auto device = registry.create(opt.backend);
    if (!device) return R::error("backend: " + device.error_message());
    m->device = std::move(device.value());

    const auto source = runtime::TensorSource::from_gguf(*m->file);
    if (Status s = touch_weights(source.bytes, opt); !s) return s;
    auto weights = runtime::bind_weights(m->params, source, *m->device);
    if (!weights) return R::error(path.string() + ": " + weights.error_message());
    m->weights = std::move(weights.value());

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
    info.int4_converted = m->file->find("hearth.int4.method") != nullptr;
    info.int4_source_types =
        std::string(m->file->get_string("hearth.int4.source_types").value_or(""));
    info.source_path = info.path;
    std::set<std::string> types;
    for (const auto& t : m->file->tensors())
        if (t.n_dims >= 2) types.insert(std::string(quant::traits(t.type).name));
    for (const auto& t : types) info.weight_types += (info.weight_types.empty() ? "" : "+") + t;
    info.device = m->device->description();
    const std::string used = m->device->name();
    for (const auto& b : registry.backends())
        info.backends.push_back({b.name, b.name == used, b.usable ? "" : b.reason});
    info.has_chat_template = m->file->find("tokenizer.chat_template") != nullptr;
    m->identity = file_identity(m->file->bytes());
    if (opt.on_progress) opt.on_progress({1.0, source.bytes.size(), source.bytes.size()});
    return std::shared_ptr<Model>(new Model(std::move(m)));
} catch (...) {
    return exception_status("loading the model");
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
