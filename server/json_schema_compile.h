// OpenAI's response_format json_schema: a JSON Schema document to the engine's table
// (hearth/json_schema.h). What the table cannot express is refused by name, not ignored, so a
// client never takes a reply for one that follows constraints it did not.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "hearth/json_schema.h"

namespace hearth::server {

// Accepted keywords: type (one or a list), properties, required, additionalProperties (extra
// keys are never written, so any value is valid), items, enum and const (strings), $ref into
// the document ('#/$defs/...', compiled in place; a recursive one fails at the depth limit),
// anyOf / oneOf of branches of different types (Pydantic's Optional[X]: X or null), and the
// annotations title, description, default, examples, $schema, $id, $comment, $defs. Other
// keywords (pattern, minimum, format, allOf, ...) are refused. An empty schema (or true)
// allows any value. Returns the reason it was refused ("" when `out` is filled).
std::string compile_json_schema(const nlohmann::json& schema, JsonSchema& out);

}  // namespace hearth::server
