// libFuzzer target: whole model files through Model::load on the CPU backend, the path every
// file the app opens takes, INT4 cache files included (they are GGUF files with Q4 weights
// and hearth.int4.* keys, re-opened on every later load). Whatever loads is then tokenized,
// its chat template read, and one token fed through a 16-token context. Nothing may crash.
//
// Seeds are made by scripts/fuzz.sh with hearth-cli (a tiny model with stories260K's tokenizer
// and an INT4 conversion): reference data is not copied into the repository.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "hearth/engine.h"

namespace {

int memfd() {
    static const int fd = [] {
        const int f = ::memfd_create("hearth-model-fuzz", 0);
        if (f < 0) std::abort();
        return f;
    }();
    return fd;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const int fd = memfd();
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, data, size, 0) != ssize_t(size)) std::abort();
    hearth::LoadOptions opt;
    opt.backend = "cpu";
    auto model = hearth::Model::load("/proc/self/fd/" + std::to_string(fd), opt);
    if (!model) return 0;
    auto toks = (*model)->tokenize("Once upon a time", true, false);
    volatile size_t sink = (*model)->chat_template().size();
    if (toks && !toks->empty()) {
        sink = sink + (*model)->detokenize(*toks).size();
        auto ctx = hearth::Context::create(*model, {.n_ctx = 16, .n_threads = 1});
        if (ctx) {
            const int32_t first = toks->front();
            (void)(*ctx)->feed(std::span(&first, 1));
        }
    }
    (void)sink;
    return 0;
}
