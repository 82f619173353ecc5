#include "runtime/stop_matcher.h"

#include <algorithm>

namespace hearth::runtime {

StopMatcher::StopMatcher(std::vector<std::string> stops) {
    for (auto& s : stops)
        if (!s.empty()) stops_.push_back(std::move(s));
}

std::string StopMatcher::push(std::string_view delta, bool& stopped) {
    stopped = false;
    held_.append(delta);
    size_t first = std::string::npos;
    for (const auto& s : stops_) first = std::min(first, held_.find(s));
    if (first != std::string::npos) {
        stopped = true;
        std::string out = held_.substr(0, first);
        held_.clear();
        return out;
    }
    // Keep the longest tail that is a proper prefix of a stop string.
    size_t keep = 0;
    for (const auto& s : stops_) {
        const size_t max_len = std::min(held_.size(), s.size() - 1);
        for (size_t len = max_len; len > keep; --len)
            if (held_.compare(held_.size() - len, len, s, 0, len) == 0) {
                keep = len;
                break;
            }
    }
    std::string out = held_.substr(0, held_.size() - keep);
    held_.erase(0, held_.size() - keep);
    return out;
}

std::string StopMatcher::finish() {
    std::string out;
    out.swap(held_);
    return out;
}

}  // namespace hearth::runtime
