// Shared between filters.cpp and filters_seq.cpp; not part of the module's interface.
#pragma once

#include <string_view>

#include "chat/evaluator.h"
#include "chat/value.h"

namespace hearth::chat::filter_impl {

using FilterFn = Value (*)(Evaluator&, const Value&, CallArgs&);

// Positional argument i or keyword `name`, else dflt.
const Value& arg_or(const CallArgs& a, size_t i, std::string_view name, const Value& dflt);
const Text& require_string(Evaluator& ev, const Value& v, std::string_view filter, size_t offset);

Value f_format(Evaluator&, const Value&, CallArgs&);
Value f_length(Evaluator&, const Value&, CallArgs&);
Value f_dictsort(Evaluator&, const Value&, CallArgs&);
Value f_first(Evaluator&, const Value&, CallArgs&);
Value f_last(Evaluator&, const Value&, CallArgs&);
Value f_items(Evaluator&, const Value&, CallArgs&);
Value f_join(Evaluator&, const Value&, CallArgs&);
Value f_list(Evaluator&, const Value&, CallArgs&);
Value f_map(Evaluator&, const Value&, CallArgs&);
Value f_max(Evaluator&, const Value&, CallArgs&);
Value f_min(Evaluator&, const Value&, CallArgs&);
Value f_reject(Evaluator&, const Value&, CallArgs&);
Value f_rejectattr(Evaluator&, const Value&, CallArgs&);
Value f_reverse(Evaluator&, const Value&, CallArgs&);
Value f_select(Evaluator&, const Value&, CallArgs&);
Value f_selectattr(Evaluator&, const Value&, CallArgs&);
Value f_sort(Evaluator&, const Value&, CallArgs&);
Value f_sum(Evaluator&, const Value&, CallArgs&);
Value f_unique(Evaluator&, const Value&, CallArgs&);

}  // namespace hearth::chat::filter_impl
