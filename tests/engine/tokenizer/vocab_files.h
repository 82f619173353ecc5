// Shared helpers for the tests on the reference vocab GGUFs (../shared/testdata/vocab).
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"
#include "test_data.h"
#include "tokenizer/tokenizer.h"

namespace hearth::tokenizer::test {

inline std::optional<std::filesystem::path> vocab_path(const std::string& name) {
    return ::hearth::test::shared_file("testdata/vocab/ggml-vocab-" + name + ".gguf");
}

// Loads a vocab once per process (the big ones take a moment) and keeps it.
inline const Tokenizer* load_vocab(const std::string& name, std::string* error = nullptr) {
    static std::map<std::string, std::unique_ptr<Tokenizer>> cache;
    if (auto it = cache.find(name); it != cache.end()) return it->second.get();
    auto path = vocab_path(name);
    if (!path) return nullptr;
    auto file = gguf::GgufFile::open(*path);
    if (!file) {
        if (error) *error = file.error_message();
        return nullptr;
    }
    auto tok = Tokenizer::from_gguf(**file);
    if (!tok) {
        if (error) *error = tok.error_message();
        return nullptr;
    }
    return cache.emplace(name, std::move(tok).value()).first->second.get();
}

// The test strings of a .inp file: each is followed by the separator, the last included.
inline std::vector<std::string> read_inputs(const std::filesystem::path& p) {
    const std::string all = ::hearth::test::read_file(p);
    const std::string sep = "\n__ggml_vocab_test__\n";
    std::vector<std::string> out;
    size_t at = 0;
    while (true) {
        const size_t k = all.find(sep, at);
        if (k == std::string::npos) break;
        out.push_back(all.substr(at, k - at));
        at = k + sep.size();
    }
    return out;
}

// The expected ids of a .out file: one line per string, each id preceded by a space.
inline std::vector<std::vector<int32_t>> read_outputs(const std::filesystem::path& p) {
    const std::string all = ::hearth::test::read_file(p);
    std::vector<std::vector<int32_t>> out;
    size_t at = 0;
    while (at < all.size()) {
        size_t nl = all.find('\n', at);
        if (nl == std::string::npos) nl = all.size();
        std::vector<int32_t> ids;
        size_t i = at;
        while (i < nl) {
            while (i < nl && all[i] == ' ') ++i;
            if (i >= nl) break;
            ids.push_back(static_cast<int32_t>(std::stol(all.substr(i, nl - i))));
            while (i < nl && all[i] != ' ') ++i;
        }
        out.push_back(std::move(ids));
        at = nl + 1;
    }
    return out;
}

// Every vocab with vectors, and the extra ones used only for round trips.
inline const std::vector<std::string>& vector_vocabs() {
    static const std::vector<std::string> v = {
        "llama-spm",      "phi-3",  "gpt-2", "llama-bpe", "qwen2", "deepseek-llm",
        "deepseek-coder", "falcon", "mpt",   "starcoder", "refact"};
    return v;
}
inline const std::vector<std::string>& all_vocabs() {
    static const std::vector<std::string> v = {
        "llama-spm",    "phi-3",          "gpt-2",   "llama-bpe", "qwen2",
        "deepseek-llm", "deepseek-coder", "falcon",  "mpt",       "starcoder",
        "refact",       "baichuan",       "gpt-neox"};
    return v;
}

}  // namespace hearth::tokenizer::test
