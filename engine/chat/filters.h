// Jinja2's builtin filters (plus HF's tojson), applied as `value | name(args)`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "chat/evaluator.h"
#include "chat/value.h"

namespace hearth::chat {

bool is_known_filter(std::string_view name);
Value apply_filter(Evaluator& ev, const std::string& name, const Value& v, CallArgs& args);

// Python's fmt % args: positional args in order; %(key)s conversions read `mapping` (a dict
// value, or nullptr when there is none).
Value format_percent(Evaluator& ev, const Text& fmt, const std::vector<Value>& args,
                     const Value* mapping, size_t offset);
// The elements a filter or loop walks: list items, dict keys, string characters; an
// undefined value is empty. Other values are an error.
ValueList iterate(Evaluator& ev, const Value& v, size_t offset);
// Jinja2's attribute getter for filters: "a.b.0" walks dicts and lists.
Value resolve_attribute(Evaluator& ev, const Value& item, const Value& attribute, size_t offset);
// Python-style ordering of two values for sort/min/max; throws on incomparable types.
int compare_values(Evaluator& ev, const Value& a, const Value& b, bool case_sensitive,
                   size_t offset);

}  // namespace hearth::chat
