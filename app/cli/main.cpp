// hearth-cli: the engine from the command line (inspect, tokenize, run, bench, ...).
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "command_registry.h"
#include "hearth/engine.h"
#include "hearth/version.h"

namespace {

void print_version() {
    std::printf("hearth-cli %s (commit %s, %s build, %s)\n", HEARTH_VERSION, HEARTH_GIT_COMMIT,
                HEARTH_BUILD_TYPE, HEARTH_COMPILER);
    // What the registry finds on this machine now (plugins are loaded at run time).
    std::printf("backends:\n");
    for (const auto& b : hearth::available_backends())
        std::printf("  %-8s %s\n", b.name.c_str(),
                    b.used             ? "the automatic choice"
                    : b.reason.empty() ? "usable"
                                       : b.reason.c_str());
}

void print_help() {
    std::printf(
        "hearth-cli %s: run and inspect language models from the command line\n\n"
        "Usage: hearth-cli COMMAND [OPTIONS]\n"
        "       hearth-cli help COMMAND\n"
        "       hearth-cli --version\n\n"
        "Commands:\n",
        HEARTH_VERSION);
    for (const auto& c : hearth::cli::commands())
        std::printf("  %-12s %s\n", c.name.c_str(), c.summary.c_str());
    if (hearth::cli::commands().empty()) std::printf("  (none yet)\n");
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        print_help();
        return 2;
    }
    const std::string& first = args[0];
    if (first == "--version" || first == "-V" || first == "version") {
        print_version();
        return 0;
    }
    if (first == "--help" || first == "-h") {
        print_help();
        return 0;
    }
    if (first == "help") {
        if (args.size() < 2) {
            print_help();
            return 0;
        }
        if (const auto* c = hearth::cli::find_command(args[1])) {
            std::printf("%s\n", c->usage.c_str());
            return 0;
        }
        std::fprintf(stderr, "hearth-cli: no such command '%s'\n", args[1].c_str());
        return 2;
    }
    const auto* cmd = hearth::cli::find_command(first);
    if (!cmd) {
        std::fprintf(stderr, "hearth-cli: unknown command '%s' (try 'hearth-cli --help')\n",
                     first.c_str());
        return 2;
    }
    std::vector<std::string> rest(args.begin() + 1, args.end());
    for (const auto& a : rest) {
        if (a == "--help" || a == "-h") {
            std::printf("%s\n", cmd->usage.c_str());
            return 0;
        }
    }
    // The engine returns errors as values; this is the last line for anything that still
    // throws (out of memory in the CLI's own code): one line and status 1, not abort's 134.
    try {
        return cmd->run(rest);
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "hearth-cli %s: out of memory\n", first.c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hearth-cli %s: internal error: %s\n", first.c_str(), e.what());
    }
    return 1;
}
