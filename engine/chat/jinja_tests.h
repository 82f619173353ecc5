// Jinja2's builtin tests, applied as `value is [not] name(args)`.
#pragma once

#include <string>
#include <string_view>

#include "chat/evaluator.h"
#include "chat/value.h"

namespace hearth::chat {

bool is_known_test(std::string_view name);
bool apply_test(Evaluator& ev, const std::string& name, const Value& v, CallArgs& args);

}  // namespace hearth::chat
