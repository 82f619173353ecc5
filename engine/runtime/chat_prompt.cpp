#include "hearth/chat_prompt.h"

#include "chat/render_chat.h"
#include "runtime/model_impl.h"

namespace hearth {

namespace {

// Texts of the vocabulary's control tokens: they tell which built-in format a model was
// trained on when its template is missing.
std::vector<std::string> special_token_texts(const tokenizer::Tokenizer& tok) {
    std::vector<std::string> out;
    for (int32_t id = 0; id < tok.n_vocab(); ++id) {
        const auto type = tok.token_type(id);
        if (type == tokenizer::TokenType::Control || type == tokenizer::TokenType::UserDefined)
            out.emplace_back(tok.token_text(id));
    }
    return out;
}

const std::vector<std::string>& fallback_stop_strings() {
    static const std::vector<std::string> stops = {
        "<|im_end|>", "<|im_start|>", "<|eot_id|>", "<|start_header_id|>", "</s>", "<end_of_turn>",
        "<|end|>",    "<|user|>",     "[INST]"};
    return stops;
}

}  // namespace

Result<ChatPrompt> build_chat_prompt(const Model& model, std::span<const ChatTurn> turns,
                                     bool add_generation_prompt) try {
    const tokenizer::Tokenizer& tok = *ModelAccess::impl(model).tokenizer;
    chat::ChatInputs inputs;
    for (const ChatTurn& t : turns) inputs.messages.push_back({t.role, t.content, {}});
    inputs.add_generation_prompt = add_generation_prompt;
    if (tok.bos_id() >= 0) inputs.bos_token = std::string(tok.token_text(tok.bos_id()));
    if (tok.eos_id() >= 0) inputs.eos_token = std::string(tok.token_text(tok.eos_id()));

    const std::vector<std::string> specials = special_token_texts(tok);
    const chat::ChatRenderResult rendered =
        chat::render_chat(model.chat_template(), inputs, specials);

    std::vector<tokenizer::TextSegment> segments;
    segments.reserve(rendered.prompt.segments.size());
    for (const auto& s : rendered.prompt.segments)
        segments.push_back({s.text, /*is_template=*/!s.from_input});

    ChatPrompt out;
    out.tokens = tok.encode_segments(segments, /*add_bos=*/false, /*add_eos=*/false);
    // Templates that write bos_token themselves already start with it; formats that don't
    // get it from the model's convention, exactly once.
    if (tok.add_bos() && tok.bos_id() >= 0 &&
        (out.tokens.empty() || out.tokens.front() != tok.bos_id()))
        out.tokens.insert(out.tokens.begin(), tok.bos_id());
    if (out.tokens.empty()) return Result<ChatPrompt>::error("the conversation rendered empty");

    out.text = rendered.prompt.text;
    out.format = rendered.format == chat::ChatFormat::Template
                     ? std::string("template")
                     : std::string(chat::format_name(rendered.format));
    out.note = rendered.note;
    out.system_merged = rendered.system_merged;
    if (rendered.format != chat::ChatFormat::Template) out.stop_strings = fallback_stop_strings();
    return out;
} catch (...) {
    return exception_status("chat prompt");
}

}  // namespace hearth
