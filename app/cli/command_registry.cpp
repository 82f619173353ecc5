#include "command_registry.h"

#include <algorithm>

namespace hearth::cli {

std::vector<Command>& commands() {
    static std::vector<Command> all;
    return all;
}

const Command* find_command(std::string_view name) {
    for (const auto& c : commands())
        if (c.name == name) return &c;
    return nullptr;
}

CommandRegistration::CommandRegistration(Command c) {
    auto& all = commands();
    auto pos = std::lower_bound(all.begin(), all.end(), c.name,
                                [](const Command& a, const std::string& n) { return a.name < n; });
    all.insert(pos, std::move(c));
}

}  // namespace hearth::cli
