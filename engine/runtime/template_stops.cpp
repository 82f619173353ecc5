#include "runtime/template_stops.h"

#include <string>
#include <vector>

#include "chat/end_of_turn.h"
#include "tokenizer/vocab.h"

namespace hearth::runtime {

int add_template_stop_tokens(tokenizer::Tokenizer& tok, std::string_view chat_template) {
    if (chat_template.empty()) return 0;
    std::vector<std::string> specials;
    for (int32_t id = 0; id < tok.n_vocab(); ++id) {
        const auto type = tok.token_type(id);
        if (type == tokenizer::TokenType::Control || type == tokenizer::TokenType::UserDefined)
            specials.emplace_back(tok.token_text(id));
    }
    chat::ChatInputs base;
    if (tok.bos_id() >= 0) base.bos_token = std::string(tok.token_text(tok.bos_id()));
    if (tok.eos_id() >= 0) base.eos_token = std::string(tok.token_text(tok.eos_id()));
    int added = 0;
    for (const auto& marker : chat::end_of_turn_markers(chat_template, specials, base)) {
        const int32_t id = tok.vocab().find_any(marker);
        if (id >= 0 && !tok.is_end_of_generation(id)) {
            tok.add_end_of_generation(id);
            ++added;
        }
    }
    return added;
}

}  // namespace hearth::runtime
