#include "args.h"

#include <charconv>
#include <cstdlib>

namespace hearth::cli {

std::optional<Args> Args::parse(std::span<const std::string> args,
                                std::span<const OptionSpec> specs, std::string& error) {
    Args out;
    auto find_long = [&](std::string_view n) -> const OptionSpec* {
        for (const auto& s : specs)
            if (s.name == n) return &s;
        return nullptr;
    };
    auto find_short = [&](char c) -> const OptionSpec* {
        for (const auto& s : specs)
            if (s.short_name == c) return &s;
        return nullptr;
    };
    bool only_positional = false;
    for (size_t i = 0; i < args.size(); ++i) {
        std::string_view a = args[i];
        if (only_positional || a.size() < 2 || a[0] != '-' ||
            (a[1] >= '0' && a[1] <= '9')) {   // "-5" is a value, not an option
            out.positional_.emplace_back(a);
            continue;
        }
        if (a == "--") {
            only_positional = true;
            continue;
        }
        const OptionSpec* spec = nullptr;
        std::optional<std::string> inline_value;
        if (a.starts_with("--")) {
            auto body = a.substr(2);
            auto eq = body.find('=');
            if (eq != std::string_view::npos) {
                inline_value = std::string(body.substr(eq + 1));
                body = body.substr(0, eq);
            }
            spec = find_long(body);
        } else if (a.size() == 2) {
            spec = find_short(a[1]);
        }
        if (!spec) {
            error = "unknown option '" + std::string(a) + "'";
            return std::nullopt;
        }
        auto& slot = out.options_[spec->name];
        if (!slot.empty() && !spec->repeatable) {
            error = "option --" + spec->name + " given more than once";
            return std::nullopt;
        }
        if (spec->takes_value) {
            if (inline_value) {
                slot.push_back(*inline_value);
            } else if (i + 1 < args.size()) {
                slot.push_back(args[++i]);
            } else {
                error = "option --" + spec->name + " needs a value";
                return std::nullopt;
            }
        } else {
            if (inline_value) {
                error = "option --" + spec->name + " takes no value";
                return std::nullopt;
            }
            slot.emplace_back();
        }
    }
    return out;
}

bool Args::has(std::string_view name) const { return options_.find(name) != options_.end(); }

std::optional<std::string> Args::value(std::string_view name) const {
    auto it = options_.find(name);
    if (it == options_.end() || it->second.empty()) return std::nullopt;
    return it->second.back();
}

std::vector<std::string> Args::values(std::string_view name) const {
    auto it = options_.find(name);
    return it == options_.end() ? std::vector<std::string>{} : it->second;
}

std::string Args::value_or(std::string_view name, std::string fallback) const {
    auto v = value(name);
    return v ? *v : std::move(fallback);
}

std::optional<long long> Args::integer(std::string_view name, std::string& error) const {
    auto v = value(name);
    if (!v) return std::nullopt;
    long long out = 0;
    auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
    if (ec != std::errc() || p != v->data() + v->size()) {
        error = "--" + std::string(name) + ": '" + *v + "' is not a whole number";
        return std::nullopt;
    }
    return out;
}

std::optional<double> Args::number(std::string_view name, std::string& error) const {
    auto v = value(name);
    if (!v) return std::nullopt;
    char* end = nullptr;
    double out = std::strtod(v->c_str(), &end);
    if (v->empty() || end != v->c_str() + v->size()) {
        error = "--" + std::string(name) + ": '" + *v + "' is not a number";
        return std::nullopt;
    }
    return out;
}

}  // namespace hearth::cli
