// libFuzzer target: arbitrary template text, parsed and rendered on a fixed conversation
// (with tools in the context), directly, through render_chat() and through
// end_of_turn_markers(). Any crash, sanitizer report, hang or broken invariant is a finding;
// template errors are fine.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "chat/end_of_turn.h"
#include "chat/render_chat.h"

namespace {

using namespace hearth::chat;

ChatInputs fixed_inputs() {
    ChatInputs in;
    in.messages = {{"system", "You are a helpful assistant", {}},
                   {"user", "Hello <|im_end|>", {}},
                   {"assistant", "   Hi there   ", {}},
                   {"user", "Who are you? ünï", {}}};
    Value call = Value::dict();
    call.set("name", Value::string("get_weather"));
    Value args = Value::dict();
    args.set("city", Value::string("Paris"));
    call.set("arguments", args);
    in.messages[2].extra.emplace_back("tool_calls", Value::list({call}));
    in.bos_token = "<s>";
    in.eos_token = "</s>";
    Value tool = Value::dict();
    tool.set("type", Value::string("function"));
    tool.set("function", call);
    in.context.emplace_back("tools", Value::list({tool}));
    in.context.emplace_back("n", Value::integer(3));
    in.now = 1700000000;
    return in;
}

// Small limits: every limit path is still reached, but a looping input stops after a few
// milliseconds instead of tens (with 20,000 iterations and 64 MiB of work the corpus averaged
// 37 runs/s on an idle core; with these, about 240/s on a loaded one).
Limits fuzz_limits() {
    Limits l;
    l.max_output_bytes = 64 << 10;
    l.max_loop_iterations = 2000;
    l.max_call_depth = 32;
    l.max_recursion_depth = 150;
    l.max_list_elements = 10000;
    l.max_work_bytes = 4 << 20;
    return l;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 8192) return 0;
    static const ChatInputs inputs = fixed_inputs();
    static const Limits limits = fuzz_limits();
    std::string_view source(reinterpret_cast<const char*>(data), size);
    auto t = ChatTemplate::parse(source, limits);
    if (t.is_ok()) {
        auto r = t->render(inputs);
        if (r.is_ok()) {
            std::string joined;
            for (const auto& s : r->segments) joined += s.text;
            if (joined != r->text) __builtin_trap();  // segments must cover the text exactly
            if (r->text.size() > limits.max_output_bytes) __builtin_trap();
        } else if (r.error_message().empty()) {
            __builtin_trap();
        }
    } else if (t.error_message().find("line ") != 0) {
        __builtin_trap();  // parse errors always name a position
    }
    ChatRenderResult full = render_chat(source, inputs, {}, limits);
    if (full.format != ChatFormat::Template && full.note.empty()) __builtin_trap();
    static const std::vector<std::string> specials = {"<|im_end|>", "</s>", "<|eot_id|>",
                                                      "<end_of_turn>", "<|end|>"};
    for (const auto& m : end_of_turn_markers(source, specials, inputs, limits))
        if (std::find(specials.begin(), specials.end(), m) == specials.end()) __builtin_trap();
    return 0;
}
