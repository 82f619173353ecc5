// The functions every template can call: Jinja2's range/namespace/dict and HF's
// raise_exception/strftime_now.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "chat/value.h"

namespace hearth::chat {

std::vector<std::pair<std::string, Value>> builtin_globals();

}  // namespace hearth::chat
