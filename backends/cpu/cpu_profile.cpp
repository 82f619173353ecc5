#include "cpu/cpu_profile.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace hearth::backend::cpu_ops {

namespace {

double us_since(StreamProfile::Clock::time_point t0) {
    return std::chrono::duration<double, std::micro>(StreamProfile::Clock::now() - t0).count();
}

// "blk.12.ffn_up" -> "ffn_up"; labels without a layer stay whole.
std::string kind_of(const char* label) {
    std::string s = label ? label : "";
    if (s.rfind("blk.", 0) == 0)
        if (const size_t dot = s.find('.', 4); dot != std::string::npos) s = s.substr(dot + 1);
    return s;
}

}  // namespace

bool StreamProfile::enabled_from_env() {
    const char* v = std::getenv("HEARTH_CPU_PROFILE");
    return v && *v && std::strcmp(v, "0") != 0;
}

StreamProfile::~StreamProfile() {
    if (on_ && graphs_.count > 0) std::fputs(report().c_str(), stderr);
}

void StreamProfile::add(const Node& first, size_t nodes, Clock::time_point t0) {
    const double us = us_since(t0);
    std::string key = kind_of(first.label);
    key += " (";
    key += op_name(first.op);
    if (nodes > 1) key += " +" + std::to_string(nodes - 1) + " fused";
    key += ", " + std::to_string(first.dst.ne[1]) + " rows";
    // Attention's rows are heads and its tokens the third axis: a decode step's dispatches
    // then stay apart from a prefill's.
    if (first.dst.ne[2] > 1) key += " x " + std::to_string(first.dst.ne[2]);
    key += ")";
    Sum& s = kinds_[key];
    ++s.count;
    s.us += us;
}

void StreamProfile::add_graph(Clock::time_point t0) {
    ++graphs_.count;
    graphs_.us += us_since(t0);
}

std::string StreamProfile::report() const {
    char line[320];
    std::string out = "hearth cpu profile:\n";
    std::snprintf(line, sizeof line, "  graphs %llu, %.1f ms (%.1f us each)\n",
                  static_cast<unsigned long long>(graphs_.count), graphs_.us / 1e3,
                  graphs_.count ? graphs_.us / double(graphs_.count) : 0.0);
    out += line;
    std::vector<std::pair<std::string, Sum>> rows(kinds_.begin(), kinds_.end());
    std::sort(rows.begin(), rows.end(),
              [](const auto& a, const auto& b) { return a.second.us > b.second.us; });
    double total = 0;
    for (const auto& r : rows) total += r.second.us;
    std::snprintf(line, sizeof line,
                  "  dispatches: %.1f ms (the rest of the graphs' time: %.1f ms)\n", total / 1e3,
                  (graphs_.us - total) / 1e3);
    out += line;
    for (size_t i = 0; i < rows.size() && i < 40; ++i) {
        const auto& [key, s] = rows[i];
        std::snprintf(line, sizeof line, "  %9.1f ms %5.1f%% %8llu x %8.1f us  %s\n", s.us / 1e3,
                      total > 0 ? 100.0 * s.us / total : 0.0,
                      static_cast<unsigned long long>(s.count),
                      s.count ? s.us / double(s.count) : 0.0, key.c_str());
        out += line;
    }
    return out;
}

}  // namespace hearth::backend::cpu_ops
