// end_of_turn_markers(): the special tokens the corpus templates write after an assistant turn.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "chat/end_of_turn.h"
#include "test_data.h"

namespace hearth::chat {
namespace {

const std::filesystem::path kTemplates = std::filesystem::path(CHAT_CORPUS_DIR) / "templates";

// Control-token texts of the vocabularies these templates come with (a model's GGUF lists
// its own; the union is enough here because a template only writes its own).
const std::vector<std::string> kSpecials = {"<|im_end|>",
                                            "<|im_start|>",
                                            "<|eot_id|>",
                                            "<|start_header_id|>",
                                            "<|end_header_id|>",
                                            "<|begin_of_text|>",
                                            "</s>",
                                            "<s>",
                                            "<end_of_turn>",
                                            "<start_of_turn>",
                                            "<bos>",
                                            "<eos>",
                                            "<|end|>",
                                            "<|user|>",
                                            "<|assistant|>",
                                            "<|system|>",
                                            "<|end_of_turn|>",
                                            "<|endoftext|>",
                                            "<|end_of_text|>",
                                            "<|start_of_role|>",
                                            "<|end_of_role|>",
                                            "<｜end▁of▁sentence｜>",
                                            "<｜begin▁of▁sentence｜>",
                                            "<｜User｜>",
                                            "<｜Assistant｜>",
                                            "<|start|>",
                                            "<|end|>",
                                            "<|return|>",
                                            "<|message|>",
                                            "<|channel|>",
                                            "<|observation|>",
                                            "[INST]",
                                            "[/INST]",
                                            "<seed:eos>",
                                            "<seed:bos>",
                                            "<|EOT|>",
                                            "<|im_user|>",
                                            "<|im_assistant|>",
                                            "<|im_system|>",
                                            "<|im_middle|>",
                                            "<|stop|>",
                                            "<|from|>",
                                            "[SYSTEM_PROMPT]",
                                            "[/SYSTEM_PROMPT]",
                                            "<step>"};

std::vector<std::string> markers_of(const std::string& name) {
    std::string source = ::hearth::test::read_file(kTemplates / (name + ".jinja"));
    ChatInputs base;
    base.bos_token = "<s>";
    base.eos_token = "</s>";
    base.now = 1768478400;
    return end_of_turn_markers(source, kSpecials, base);
}

TEST(EndOfTurn, CorpusTemplatesNameTheirTurnEnd) {
    const std::map<std::string, std::string> expected = {
        {"codellama-70b-instruct", "<step>"},
        {"deepseek-coder-33b-instruct", "<|EOT|>"},
        {"deepseek-llm-7b-chat", "</s>"},  // the eos_token the test passes
        {"deepseek-r1-distill-qwen-32b", "<｜end▁of▁sentence｜>"},
        {"deepseek-v3.1", "<｜end▁of▁sentence｜>"},
        {"dolphin-2.5-mixtral-8x7b", "<|im_end|>"},
        {"functionary-medium-v2.2", "<|stop|>"},
        {"gemma-3-pythonic-tools", "<end_of_turn>"},
        {"glm-4.5", "<|user|>"},  // GLM ends a reply by starting the next user turn
        {"gpt-oss-20b", "<|end|>"},
        {"granite-3.0-instruct", "<|end_of_text|>"},
        {"hermes-2-pro-tools", "<|im_end|>"},
        {"kimi-k2", "<|im_end|>"},
        {"llama-3.1-json-tools", "<|eot_id|>"},
        {"mistral-small-3.1-24b-instruct-2503", "</s>"},
        {"openchat-3.5-0106", "<|end_of_turn|>"},
        {"phi-3", "<|end|>"},
        {"qwen2.5-instruct", "<|im_end|>"},
        {"seed-oss-36b", "<seed:eos>"},  // the template sets its own eos_token
        {"zephyr-7b-gemma-v0.1", "<|im_end|>"},
    };
    for (const auto& [name, marker] : expected) {
        SCOPED_TRACE(name);
        EXPECT_EQ(markers_of(name), std::vector<std::string>{marker});
    }
    // Plain-text turn ends (### Assistant:), a template that fails on every probe, one that
    // never prints the assistant's content and one that does not parse: no marker.
    for (const char* name :
         {"decilm-7b-instruct", "firefunction-v1", "granite-20b-functioncalling", "vicuna-vllm"}) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(markers_of(name).empty());
    }
}

TEST(EndOfTurn, OnlyListedSpecialTokensCount) {
    const char* chatml =
        "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}";
    EXPECT_EQ(end_of_turn_markers(chatml, kSpecials), std::vector<std::string>{"<|im_end|>"});
    const std::vector<std::string> none;
    EXPECT_TRUE(end_of_turn_markers(chatml, none).empty());
    // Longest match: "<|im_end|>" is not cut to a shorter special that prefixes it.
    const std::vector<std::string> prefixes = {"<|im", "<|im_end|>"};
    EXPECT_EQ(end_of_turn_markers(chatml, prefixes), std::vector<std::string>{"<|im_end|>"});
    EXPECT_TRUE(end_of_turn_markers("{% if %}", kSpecials).empty());
}

}  // namespace
}  // namespace hearth::chat
