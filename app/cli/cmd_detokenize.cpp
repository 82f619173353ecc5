// hearth-cli detokenize: token ids back to text.
#include <cstdio>
#include <string>
#include <vector>

#include "args.h"
#include "command_registry.h"
#include "gguf/gguf_file.h"
#include "tokenizer/tokenizer.h"

namespace hearth::cli {
namespace {

const char kUsage[] =
    "Usage: hearth-cli detokenize -m MODEL_OR_VOCAB.gguf [--special] IDS...\n"
    "\n"
    "Prints the text of the token ids (decimal; separated by spaces or commas, in one or\n"
    "several arguments), exactly, with no newline added. Control tokens are left out unless\n"
    "--special. The output is valid UTF-8: bytes that do not form a character print as U+FFFD.\n"
    "Exit status: 0 ok, 1 the file or vocabulary cannot be used or an id is out of range,\n"
    "2 usage error.\n";

int run(std::span<const std::string> argv) {
    static const OptionSpec specs[] = {{"model", 'm', true}, {"special", 0, false}};
    std::string error;
    auto args = Args::parse(argv, specs, error);
    if (!args) {
        std::fprintf(stderr, "detokenize: %s\n\n%s", error.c_str(), kUsage);
        return 2;
    }
    const auto model = args->value("model");
    if (!model) {
        std::fprintf(stderr, "%s", kUsage);
        return 2;
    }
    std::vector<long long> ids;
    for (const std::string& a : args->positional()) {
        size_t i = 0;
        while (i < a.size()) {
            if (a[i] == ' ' || a[i] == ',' || a[i] == '\t' || a[i] == '\n') {
                ++i;
                continue;
            }
            size_t j = i;
            while (j < a.size() && a[j] >= '0' && a[j] <= '9') ++j;
            if (j == i || j - i > 10 ||
                (j < a.size() && a[j] != ' ' && a[j] != ',' && a[j] != '\t' && a[j] != '\n')) {
                std::fprintf(stderr, "detokenize: '%s' is not a list of token ids\n", a.c_str());
                return 2;
            }
            ids.push_back(std::stoll(a.substr(i, j - i)));
            i = j;
        }
    }
    auto file = gguf::GgufFile::open(*model);
    if (!file) {
        std::fprintf(stderr, "detokenize: %s: %s\n", model->c_str(), file.error_message().c_str());
        return 1;
    }
    auto tok = tokenizer::Tokenizer::from_gguf(**file);
    if (!tok) {
        std::fprintf(stderr, "detokenize: %s: %s\n", model->c_str(), tok.error_message().c_str());
        return 1;
    }
    std::vector<int32_t> checked;
    for (long long id : ids) {
        if (id < 0 || id >= (*tok)->n_vocab()) {
            std::fprintf(stderr, "detokenize: token id %lld is out of range (vocabulary has %d)\n",
                         id, (*tok)->n_vocab());
            return 1;
        }
        checked.push_back(static_cast<int32_t>(id));
    }
    const std::string text = (*tok)->decode(checked, args->has("special"));
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
}

}  // namespace

HEARTH_CLI_COMMAND({"detokenize", "token ids to text with a model's tokenizer", kUsage, run});

}  // namespace hearth::cli
