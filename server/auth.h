// Who may call the server: a key compared in constant time, and which addresses count as this
// machine only (binding anywhere else requires a key).
#pragma once

#include <string_view>

namespace hearth::server {

// True when the two strings are equal. The time taken depends only on the lengths, never on
// where the first difference is, so a caller cannot find the key byte by byte by timing.
bool constant_time_equal(std::string_view a, std::string_view b);

// The key of an "Authorization: Bearer KEY" header value, or empty.
std::string_view bearer_token(std::string_view authorization);

// 127.0.0.0/8, ::1 and "localhost".
bool is_loopback_host(std::string_view host);

}  // namespace hearth::server
