// Sub-commands of hearth-cli register themselves here, one file each (cmd_<name>.cpp).
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::cli {

// A sub-command gets its arguments (without the program and command names) and returns the
// process exit code: 0 success, 1 failure, 2 usage error.
using CommandFn = std::function<int(std::span<const std::string> args)>;

struct Command {
    std::string name;
    std::string summary;   // one line for the help listing
    std::string usage;     // full usage text for `hearth-cli help NAME`
    CommandFn run;
};

std::vector<Command>& commands();
const Command* find_command(std::string_view name);

struct CommandRegistration {
    explicit CommandRegistration(Command c);
};

}  // namespace hearth::cli

#define HEARTH_CLI_CONCAT2(a, b) a##b
#define HEARTH_CLI_CONCAT(a, b) HEARTH_CLI_CONCAT2(a, b)
// HEARTH_CLI_COMMAND({"name", "summary", "usage", fn}); at namespace scope in cmd_<name>.cpp
#define HEARTH_CLI_COMMAND(...)                                                  \
    static const ::hearth::cli::CommandRegistration HEARTH_CLI_CONCAT(           \
        hearth_cli_command_, __LINE__)(::hearth::cli::Command __VA_ARGS__)
