// A small, strict option parser for the sub-commands: --flag, --key VALUE, --key=VALUE,
// short aliases (-m), and positional arguments. Unknown options are errors.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::cli {

struct OptionSpec {
    std::string name;          // long name without dashes, e.g. "model"
    char short_name = 0;       // e.g. 'm', or 0
    bool takes_value = false;  // --key VALUE versus --flag
    bool repeatable = false;
};

class Args {
public:
    // Parses args against specs; on failure returns nullopt and sets error.
    static std::optional<Args> parse(std::span<const std::string> args,
                                     std::span<const OptionSpec> specs, std::string& error);

    bool has(std::string_view name) const;
    std::optional<std::string> value(std::string_view name) const;
    std::vector<std::string> values(std::string_view name) const;
    std::string value_or(std::string_view name, std::string fallback) const;
    // Numeric values; a malformed number sets error and returns nullopt.
    std::optional<long long> integer(std::string_view name, std::string& error) const;
    std::optional<double> number(std::string_view name, std::string& error) const;
    const std::vector<std::string>& positional() const { return positional_; }

private:
    std::map<std::string, std::vector<std::string>, std::less<>> options_;
    std::vector<std::string> positional_;
};

}  // namespace hearth::cli
