#include "core/host_access.h"

#include "hearth/backend/graph.h"

namespace hearth::backend {

namespace {
bool on_host(const Tensor& t) {
    return !t.valid() || t.buffer->host_data() != nullptr;
}
}  // namespace

bool node_on_host(const Node& n) {
    return on_host(n.dst) && on_host(n.src[0]) && on_host(n.src[1]) && on_host(n.src[2]) &&
           on_host(n.kv.positions) && on_host(n.kv.block_table) && on_host(n.kv.seq_ids) &&
           on_host(n.aux);
}

}  // namespace hearth::backend
