// hearth-cli bench --spec: decode speed without and with each speculative drafter (prompt
// lookup, a draft model) on one prompt, with acceptance rate, mean accepted length and
// whether the output matched the run without speculation.
#pragma once

#include "args.h"

namespace hearth::cli {

int run_bench_spec(const Args& args);

}  // namespace hearth::cli
