// Python string operations on UTF-8 Text that keep track of which bytes came from input.
// Lengths and indices count code points, as Python's str does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chat/value.h"

namespace hearth::chat::text_ops {

// Decodes the code point starting at s[i] (len: its byte length); malformed bytes decode as
// themselves, one byte each.
uint32_t decode_utf8(std::string_view s, size_t i, size_t& len);

// Byte offset of every code point start, plus the total size at the end.
std::vector<size_t> char_starts(std::string_view s);
size_t char_count(std::string_view s);

enum class Side { Both, Left, Right };
// str.strip([chars]); without chars strips Python whitespace.
Text strip(const Text& s, Side side, const std::optional<std::string>& chars = std::nullopt);

enum class Case { Upper, Lower, Capitalize, PyTitle, JinjaTitle, Swap };
// Case changes for ASCII, Latin-1, Greek and Cyrillic letters (byte lengths never change).
Text change_case(const Text& s, Case c);

// str.replace(old, new[, count]); count < 0 means all. Replacement bytes are input when the
// replaced text or the replacement was.
// Stops early once the result passes max_bytes (the caller then reports the size limit).
Text replace(const Text& s, const Text& old, const Text& repl, int64_t count,
             size_t max_bytes = SIZE_MAX);

// str.split([sep[, maxsplit]]) and str.rsplit([sep[, maxsplit]]).
std::vector<Text> split(const Text& s, const std::optional<std::string>& sep, int64_t maxsplit);
std::vector<Text> rsplit(const Text& s, const std::optional<std::string>& sep, int64_t maxsplit);
// str.splitlines([keepends]): \n, \r, \r\n, \v, \f, \x1c-\x1e, \x85, U+2028, U+2029.
std::vector<Text> splitlines(const Text& s, bool keepends);

// Python slice semantics on n elements: fills the selected indices in order.
std::vector<int64_t> slice_indices(int64_t n, std::optional<int64_t> start,
                                   std::optional<int64_t> stop, std::optional<int64_t> step);

bool is_python_space(uint32_t cp);

}  // namespace hearth::chat::text_ops
