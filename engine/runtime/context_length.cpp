// resolve_context_length: what "context length" means for every context, KV store and scheduler
// of a model, so that they, the fit check and the front ends agree.
#include <string>

#include "hearth/engine.h"

namespace hearth {

ContextLength resolve_context_length(int64_t requested, int64_t n_ctx_train, bool beyond_training) {
    ContextLength c;
    // 0: the model's training context; a file that does not say gets 4096.
    const int64_t trained = n_ctx_train > 0 ? n_ctx_train : 0;
    if (requested <= 0) {
        c.n_ctx = trained > 0 ? trained : 4096;
        return c;
    }
    c.n_ctx = requested;
    if (trained == 0 || requested <= trained) return c;
    const std::string asked = std::to_string(requested), train = std::to_string(trained);
    if (beyond_training) {
        c.beyond_training = true;
        c.note = "context " + asked + " is longer than the " + train +
                 " tokens this model was trained on (allowed by request): text past " + train +
                 " tokens may lose coherence";
        return c;
    }
    c.n_ctx = trained;
    c.clamped = true;
    c.note = "context " + asked + " is longer than the " + train +
             " tokens this model was trained on; using " + train;
    return c;
}

}  // namespace hearth
