#include "cuda_profile.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace hearth::backend::cuda {

int StreamProfile::level_from_env() {
    const char* v = std::getenv("HEARTH_CUDA_PROFILE");
    if (!v || !*v) return 0;
    return std::clamp(std::atoi(v), 0, 3);
}

StreamProfile::~StreamProfile() {
    if (on()) std::fputs(report().c_str(), stderr);
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
}

void StreamProfile::add_host(Phase p, Clock::time_point since) {
    host_us_[int(p)] += std::chrono::duration<double, std::micro>(Clock::now() - since).count();
}

void StreamProfile::count(Kind k) {
    ++steps_[int(k)];
}

void StreamProfile::begin_step(size_t n_nodes) {
    while (events_.size() < 2 * n_nodes) {
        cudaEvent_t e = nullptr;
        if (cudaEventCreate(&e) != cudaSuccess) break;
        events_.push_back(e);
    }
    keys_.assign(n_nodes, std::string());
    pending_ = 0;
}

void StreamProfile::before(cudaStream_t s, size_t i) {
    // In a capture only an external record becomes a node of the graph.
    if (2 * i + 1 < events_.size())
        cudaEventRecordWithFlags(
            events_[2 * i], s,
            timing_in_graph() ? cudaEventRecordExternal : cudaEventRecordDefault);
}

void StreamProfile::after(cudaStream_t s, size_t i, const std::string& key) {
    if (2 * i + 1 >= events_.size()) return;
    cudaEventRecordWithFlags(events_[2 * i + 1], s,
                             timing_in_graph() ? cudaEventRecordExternal : cudaEventRecordDefault);
    keys_[i] = key;
    pending_ = std::max(pending_, i + 1);
}

void StreamProfile::end_step() {
    for (size_t i = 0; i < pending_; ++i) {
        float ms = 0;
        if (keys_[i].empty() ||
            cudaEventElapsedTime(&ms, events_[2 * i], events_[2 * i + 1]) != cudaSuccess)
            continue;
        Sum& s = nodes_[keys_[i]];
        ++s.count;
        s.ms += ms;
    }
    pending_ = 0;
}

std::string StreamProfile::report() const {
    char line[256];
    std::string out = "hearth cuda profile:\n";
    const uint64_t steps = steps_[0] + steps_[1] + steps_[2];
    std::snprintf(
        line, sizeof line,
        "  steps %llu (eager %llu, captured %llu, replayed %llu); host ms: prepare %.1f, "
        "launch %.1f, wait %.1f\n",
        static_cast<unsigned long long>(steps), static_cast<unsigned long long>(steps_[0]),
        static_cast<unsigned long long>(steps_[1]), static_cast<unsigned long long>(steps_[2]),
        host_us_[0] / 1e3, host_us_[1] / 1e3, host_us_[2] / 1e3);
    out += line;
    if (nodes_.empty()) return out;
    std::vector<std::pair<std::string, Sum>> rows(nodes_.begin(), nodes_.end());
    std::sort(rows.begin(), rows.end(),
              [](const auto& a, const auto& b) { return a.second.ms > b.second.ms; });
    double total = 0;
    for (const auto& r : rows) total += r.second.ms;
    std::snprintf(line, sizeof line, "  GPU time of the nodes: %.2f ms\n", total);
    out += line;
    for (size_t i = 0; i < rows.size() && i < 30; ++i) {
        const auto& [key, s] = rows[i];
        std::snprintf(line, sizeof line, "  %8.2f ms %5.1f%% %7llu x %7.1f us  %s\n", s.ms,
                      total > 0 ? 100.0 * s.ms / total : 0.0,
                      static_cast<unsigned long long>(s.count),
                      s.count ? 1e3 * s.ms / double(s.count) : 0.0, key.c_str());
        out += line;
    }
    return out;
}

}  // namespace hearth::backend::cuda
