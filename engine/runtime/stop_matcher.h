// Cuts generated text at the first stop string while streaming: text that might be the start
// of a stop string is held back until it either completes the stop string or cannot.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hearth::runtime {

class StopMatcher {
public:
    explicit StopMatcher(std::vector<std::string> stops);

    // Adds a text delta; returns the text that is now safe to show. Sets stopped (and returns
    // only the text before the match) when a stop string is complete.
    std::string push(std::string_view delta, bool& stopped);
    // The held-back text at the end of the stream.
    std::string finish();

private:
    std::vector<std::string> stops_;
    std::string held_;
};

}  // namespace hearth::runtime
