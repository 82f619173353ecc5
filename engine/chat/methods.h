// Python methods templates call on values: str.strip(), dict.items(), ... Lists are
// immutable, as in HF's ImmutableSandboxedEnvironment (append and friends are refused).
#pragma once

#include <optional>
#include <string>

#include "chat/evaluator.h"
#include "chat/value.h"

namespace hearth::chat {

// The method's result, or nullopt when `obj` has no method `name`.
std::optional<Value> call_method(Evaluator& ev, const Value& obj, const std::string& name,
                                 CallArgs& args);

}  // namespace hearth::chat
