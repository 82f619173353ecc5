#include "model/model_info.h"

namespace hearth::model {

namespace {

std::string vocab_kind(std::string_view model) {
    if (model == "llama") return "SentencePiece";
    if (model == "gpt2") return "byte-level BPE";
    if (model == "bert") return "WordPiece";
    if (model == "t5") return "Unigram";
    if (model == "rwkv") return "RWKV";
    if (model == "no_vocab" || model == "none") return "none";
    return model.empty() ? "" : "unknown";
}

}  // namespace

ModelInfo describe_model(const gguf::GgufFile& f, uint32_t n_ctx, KvType kv_type) {
    ModelInfo m;
    m.file_size = f.file_size();
    m.gguf_version = f.version();
    m.n_kv = f.metadata().size();
    m.arch = std::string(f.get_string("general.architecture").value_or(""));
    m.name = std::string(f.get_string("general.name").value_or(""));
    m.n_tensors = f.tensors().size();
    m.n_params = parameter_count(f);
    m.weight_bytes = weight_bytes(f);
    for (const auto& t : f.tensors()) ++m.tensors_by_type[std::string(quant::traits(t.type).name)];

    m.vocab_model = std::string(f.get_string("tokenizer.ggml.model").value_or(""));
    m.vocab_kind = vocab_kind(m.vocab_model);
    m.vocab_pre = std::string(f.get_string("tokenizer.ggml.pre").value_or(""));
    const gguf::Value* tokens = f.find("tokenizer.ggml.tokens");
    if (tokens && tokens->type() == gguf::ValueType::Array) m.vocab_size = tokens->array_size();
    static const std::pair<const char*, const char*> kRoles[] = {
        {"bos", "tokenizer.ggml.bos_token_id"},       {"eos", "tokenizer.ggml.eos_token_id"},
        {"unk", "tokenizer.ggml.unknown_token_id"},   {"pad", "tokenizer.ggml.padding_token_id"},
        {"eot", "tokenizer.ggml.eot_token_id"},       {"eom", "tokenizer.ggml.eom_token_id"},
        {"sep", "tokenizer.ggml.seperator_token_id"}, {"cls", "tokenizer.ggml.cls_token_id"},
        {"mask", "tokenizer.ggml.mask_token_id"},
    };
    for (const auto& [role, key] : kRoles) {
        const auto id = f.get_u64(key);
        // llama.cpp ignores ids beyond the vocabulary (converters write -1 as UINT32_MAX).
        if (!id || *id > UINT32_MAX || (m.vocab_size && *id >= m.vocab_size)) continue;
        SpecialToken t{role, static_cast<uint32_t>(*id), ""};
        if (tokens) t.text = std::string(tokens->string_at(*id));
        m.special_tokens.push_back(std::move(t));
    }
    m.add_bos = f.get_bool("tokenizer.ggml.add_bos_token");
    m.add_eos = f.get_bool("tokenizer.ggml.add_eos_token");
    m.chat_template_bytes = f.get_string("tokenizer.chat_template").value_or("").size();

    m.kv_type = kv_type;
    if (f.tensors().empty()) {
        m.config_error = "no tensors (vocab-only file)";
        return m;
    }
    auto config = load_model_config(f);
    if (!config) {
        m.config_error = config.error_message();
        return m;
    }
    m.config = std::move(config.value());
    m.context = n_ctx ? n_ctx : default_context(*m.config);
    m.memory = estimate_memory(*m.config, m.weight_bytes, m.context, kv_type);
    return m;
}

}  // namespace hearth::model
