// hearth-cli run --remote URL --model NAME: the same prompt options as a local run, answered by
// a server of the OpenAI API (another Hearth, vLLM, LMDeploy, llama.cpp's server) through
// cpp-httplib and the shared client code of server/client (hearth_openai_client).
#pragma once

#include "args.h"

namespace hearth::cli {

int run_remote(const Args& args);

}  // namespace hearth::cli
