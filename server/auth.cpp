#include "auth.h"

#include <cstdint>

namespace hearth::server {

bool constant_time_equal(std::string_view a, std::string_view b) {
    // Every byte of the longer string is visited; a length difference fails at the end.
    const size_t n = a.size() > b.size() ? a.size() : b.size();
    volatile uint8_t diff = a.size() == b.size() ? 0 : 1;
    for (size_t i = 0; i < n; ++i) {
        const uint8_t x = i < a.size() ? static_cast<uint8_t>(a[i]) : 0;
        const uint8_t y = i < b.size() ? static_cast<uint8_t>(b[i]) : 0;
        diff = static_cast<uint8_t>(diff | (x ^ y));
    }
    return diff == 0;
}

std::string_view bearer_token(std::string_view h) {
    constexpr std::string_view kPrefix = "Bearer ";
    if (h.size() <= kPrefix.size()) return {};
    for (size_t i = 0; i < kPrefix.size(); ++i) {
        const char c = h[i];
        const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
        const char want = kPrefix[i];
        const char want_lower =
            (want >= 'A' && want <= 'Z') ? static_cast<char>(want - 'A' + 'a') : want;
        if (lower != want_lower) return {};
    }
    h.remove_prefix(kPrefix.size());
    while (!h.empty() && h.front() == ' ') h.remove_prefix(1);
    while (!h.empty() && (h.back() == ' ' || h.back() == '\r')) h.remove_suffix(1);
    return h;
}

bool is_loopback_host(std::string_view host) {
    if (host == "localhost" || host == "::1" || host == "[::1]") return true;
    if (host.substr(0, 4) != "127.") return false;
    // The rest must be a dotted IPv4 address.
    int dots = 0;
    for (char c : host.substr(4)) {
        if (c == '.')
            ++dots;
        else if (c < '0' || c > '9')
            return false;
    }
    return dots == 2;
}

}  // namespace hearth::server
