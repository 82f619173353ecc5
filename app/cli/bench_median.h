// The median the benches report round by round (bench --parallel, bench --spec): on a shared
// machine whose speed drifts it moves less than a mean.
#pragma once

#include <algorithm>
#include <vector>

namespace hearth::cli {

// The middle value (the mean of the two middle ones for an even count); v is not empty.
inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t h = v.size() / 2;
    return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

}  // namespace hearth::cli
