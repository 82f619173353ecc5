// hearth-cli tokenize: text to token ids with a model's (or a vocab-only file's) tokenizer,
// and a throughput bench.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "args.h"
#include "command_registry.h"
#include "gguf/gguf_file.h"
#include "tokenizer/tokenizer.h"

namespace hearth::cli {
namespace {

using tokenizer::Tokenizer;

const char kUsage[] =
    "Usage: hearth-cli tokenize -m MODEL_OR_VOCAB.gguf [--special] [--bos] [--eos] [--pieces]\n"
    "                           [--file F | TEXT...]\n"
    "       hearth-cli tokenize -m MODEL_OR_VOCAB.gguf --bench FILE | --bench-synthetic\n"
    "\n"
    "Tokenizes TEXT (several words are joined with one space), or the bytes of file F ('-' is\n"
    "stdin). By default no BOS is added and special-token text is plain text, the convention\n"
    "of the reference vectors (user text).\n"
    "  --special   recognise control tokens written in the text (template text)\n"
    "  --bos/--eos add BOS/EOS when the vocabulary has them\n"
    "  --pieces    also print each token on its own line\n"
    "  --bench F   time tokenizing file F; --bench-synthetic uses a built-in 1 MB mix of\n"
    "              English, code and CJK text (the same bytes on every run)\n"
    "\n"
    "Output (stable; scripts may parse it):\n"
    "  line 1: the token ids in decimal, separated by single spaces (empty line: no tokens)\n"
    "  --pieces: then one line per token: ID, a tab, the token's bytes with \\\\ \\n \\r \\t\n"
    "            and \\xHH (other control bytes and bytes of incomplete characters) escaped\n"
    "  --bench: 'bench: ...' and 'chat: ...' lines with tokens/s and ms per 100 tokens\n"
    "Exit status: 0 ok, 1 the file or vocabulary cannot be used, 2 usage error.\n";

std::string escape_piece(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else if (c == '\r')
            out += "\\r";
        else if (c == '\t')
            out += "\\t";
        else if (c < 0x20 || c == 0x7F) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02X", c);
            out += buf;
        } else if (c >= 0x80) {
            // Keep whole characters; escape bytes that do not form one.
            size_t n = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
            bool whole = n > 0 && i + n <= s.size();
            for (size_t k = 1; whole && k < n; ++k)
                whole = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
            if (whole) {
                out.append(s, i, n);
                i += n - 1;
            } else {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\x%02X", c);
                out += buf;
            }
        } else {
            out.push_back(static_cast<char>(c));
        }
    }
    return out;
}

bool read_input(const std::string& path, std::string& out) {
    if (path == "-") {
        out.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
        return true;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::ostringstream ss;
    ss << in.rdbuf();
    out = ss.str();
    return true;
}

// About 1 MB of mixed prose, code and CJK text from a fixed-seed generator.
std::string synthetic_bench_text(size_t bytes) {
    static const char* const kWords[] = {
        "the",     "model",  "tokenizer", "reads",   "every",  "byte",   "of",   "input",
        "and",     "writes", "tokens",    "quickly", "while",  "users",  "wait", "for",
        "answers", "about",  "science",   "history", "Paris",  "London", "2024", "3.14159",
        "don't",   "it's",   "we'll",     "(see",    "below)", "e.g.",   "HTTP", "JSON",
        "naïve",   "café",   "Zürich",    "déjà",    "vu"};
    static const char* const kCode[] = {
        "for (int i = 0; i < n; ++i) {\n    sum += values[i] * weights[i];\n}\n",
        "def tokenize(text: str) -> list[int]:\n    return [vocab[w] for w in text.split()]\n",
        "    if (!file) return Status::error(\"cannot open \" + path);\n",
        "const auto it = std::find_if(begin, end, [&](auto& x) { return x.id == 42; });\n",
        "SELECT id, name FROM users WHERE created_at > '2024-01-01' ORDER BY id;\n",
        "<div class=\"message\">{{ content | escape }}</div>\n"};
    static const char* const kCjk[] = {
        "我想在苹果公司工作。",           "今天天气很好，我们去公园散步吧。",
        "日本語のテキストを処理します。", "東京は日本の首都です。",
        "한국어 문장도 포함합니다.",      "机器学习模型需要大量的数据。",
        "🚀 速度测试 ✅ 🦙"};
    uint64_t state = 0x9E3779B97F4A7C15ull;
    auto next = [&](uint32_t n) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<uint32_t>(state >> 33) % n;
    };
    std::string out;
    out.reserve(bytes + 256);
    while (out.size() < bytes) {
        const uint32_t kind = next(10);
        if (kind < 5) {  // an English sentence
            const uint32_t n = 6 + next(14);
            for (uint32_t i = 0; i < n; ++i) {
                std::string w = kWords[next(std::size(kWords))];
                if (i == 0)
                    w[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(w[0])));
                out += w;
                out += i + 1 < n ? " " : ". ";
            }
            if (next(4) == 0) out += "\n\n";
        } else if (kind < 8) {
            out += kCode[next(std::size(kCode))];
        } else {
            out += kCjk[next(std::size(kCjk))];
            if (next(3) == 0) out += "\n";
        }
    }
    // Cut on a character boundary.
    size_t cut = bytes;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    out.resize(cut);
    return out;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

int run_bench(const Tokenizer& tok, const std::string& text) {
    // Whole text: best of 3 runs (the first also warms caches).
    double best = 1e300;
    size_t n_tokens = 0;
    for (int r = 0; r < 3; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        n_tokens = tok.encode_user(text).size();
        best = std::min(best, ms_since(t0));
    }
    std::printf("bench: %zu bytes -> %zu tokens in %.1f ms (best of 3): %.0f tokens/s, %.1f MB/s\n",
                text.size(), n_tokens, best, n_tokens / (best / 1000.0),
                text.size() / (best / 1000.0) / 1e6);

    // A chat of about 4,000 tokens: alternating template markup and message contents,
    // tokenized the way the chat path does (median of 21 runs).
    const size_t chat_bytes =
        std::max<size_t>(1, text.size() * 4000 / std::max<size_t>(1, n_tokens));
    const std::string chat = text.substr(0, std::min(text.size(), chat_bytes));
    std::vector<std::string> markup;
    std::vector<tokenizer::TextSegment> segs;
    const size_t n_msgs = 12;
    size_t at = 0;
    for (size_t m = 0; m < n_msgs; ++m)
        markup.push_back(m % 2 ? "<|im_start|>assistant\n" : "<|im_start|>user\n");
    for (size_t m = 0; m < n_msgs; ++m) {
        size_t end = m + 1 == n_msgs ? chat.size() : chat.size() * (m + 1) / n_msgs;
        while (end < chat.size() && (static_cast<unsigned char>(chat[end]) & 0xC0) == 0x80) ++end;
        segs.push_back({markup[m], true});
        segs.push_back({std::string_view(chat).substr(at, end - at), false});
        segs.push_back({"<|im_end|>\n", true});
        at = end;
    }
    std::vector<double> times;
    size_t chat_tokens = 0;
    for (int r = 0; r < 21; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        chat_tokens = tok.encode_segments(segs, tok.add_bos(), false).size();
        times.push_back(ms_since(t0));
    }
    std::sort(times.begin(), times.end());
    const double med = times[times.size() / 2];
    std::printf(
        "chat: %zu messages, %zu tokens in %.3f ms (median of 21): %.4f ms per 100 tokens\n",
        n_msgs, chat_tokens, med, med * 100.0 / std::max<size_t>(1, chat_tokens));
    return 0;
}

int run(std::span<const std::string> argv) {
    static const OptionSpec specs[] = {
        {"model", 'm', true}, {"special", 0, false},         {"bos", 0, false},
        {"eos", 0, false},    {"pieces", 0, false},          {"file", 'f', true},
        {"bench", 0, true},   {"bench-synthetic", 0, false},
    };
    std::string error;
    auto args = Args::parse(argv, specs, error);
    if (!args) {
        std::fprintf(stderr, "tokenize: %s\n\n%s", error.c_str(), kUsage);
        return 2;
    }
    const auto model = args->value("model");
    const bool bench = args->has("bench") || args->has("bench-synthetic");
    const bool from_file = args->has("file");
    if (!model || (bench && (from_file || !args->positional().empty())) ||
        (from_file && !args->positional().empty()) ||
        (!bench && !from_file && args->positional().empty())) {
        std::fprintf(stderr, "%s", kUsage);
        return 2;
    }
    auto file = gguf::GgufFile::open(*model);
    if (!file) {
        std::fprintf(stderr, "tokenize: %s: %s\n", model->c_str(), file.error_message().c_str());
        return 1;
    }
    auto tok = Tokenizer::from_gguf(**file);
    if (!tok) {
        std::fprintf(stderr, "tokenize: %s: %s\n", model->c_str(), tok.error_message().c_str());
        return 1;
    }

    std::string text;
    if (bench) {
        if (args->has("bench-synthetic")) {
            text = synthetic_bench_text(1 << 20);
        } else if (!read_input(*args->value("bench"), text)) {
            std::fprintf(stderr, "tokenize: cannot read %s\n", args->value("bench")->c_str());
            return 1;
        }
        return run_bench(**tok, text);
    }
    if (from_file) {
        if (!read_input(*args->value("file"), text)) {
            std::fprintf(stderr, "tokenize: cannot read %s\n", args->value("file")->c_str());
            return 1;
        }
    } else {
        for (size_t i = 0; i < args->positional().size(); ++i) {
            if (i) text += ' ';
            text += args->positional()[i];
        }
    }
    const auto ids = (*tok)->encode(text, args->has("bos"), args->has("eos"), args->has("special"));
    std::string line;
    for (size_t i = 0; i < ids.size(); ++i) {
        if (i) line += ' ';
        line += std::to_string(ids[i]);
    }
    std::printf("%s\n", line.c_str());
    if (args->has("pieces"))
        for (int32_t id : ids)
            std::printf("%d\t%s\n", id, escape_piece((*tok)->token_to_piece(id, true)).c_str());
    return 0;
}

}  // namespace

HEARTH_CLI_COMMAND({"tokenize", "text to token ids with a model's tokenizer (and a bench)", kUsage,
                    run});

}  // namespace hearth::cli
