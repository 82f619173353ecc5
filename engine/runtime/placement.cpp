#include "runtime/placement.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "runtime/model_weights.h"

namespace hearth::runtime {

using backend::DType;
using backend::Node;
using backend::Op;

namespace {

bool is_layer_tensor(const std::string& name, int64_t layer) {
    const std::string pre = "blk." + std::to_string(layer) + ".";
    return name.compare(0, pre.size(), pre) == 0;
}

Node typed(Op op, DType dst, DType a = DType::F32, DType b = DType::F32, DType c = DType::F32) {
    Node n;
    n.op = op;
    n.dst.type = dst;
    n.src[0].type = a;
    n.src[1].type = b;
    n.src[2].type = c;
    return n;
}

// Every node a layer records (op and element types; no buffers), for Device::supports().
std::vector<Node> layer_nodes(const ModelConfig& p, const TensorSource& src, int64_t layer,
                              DType kv) {
    std::vector<Node> nodes;
    for (const auto& e : src.tensors) {
        if (!is_layer_tensor(e.name, layer) || e.ne[1] <= 1) continue;  // matrices only
        const bool experts = e.name.find("_exps.") != std::string::npos;
        nodes.push_back(typed(experts ? Op::MoeMatMul : Op::MatMul, DType::F32, e.type, DType::F32,
                              DType::I32));
    }
    nodes.push_back(typed(Op::RmsNorm, DType::F32));
    nodes.push_back(typed(Op::Add, DType::F32));
    nodes.push_back(typed(Op::Rope, DType::F32, DType::F32, DType::I32));
    nodes.push_back(typed(Op::KvAppend, kv));
    nodes.push_back(typed(Op::Attention, DType::F32, DType::F32, kv, kv));
    nodes.push_back(typed(p.gelu_ffn ? Op::GeGlu : Op::SwiGlu, DType::F32));
    if (p.n_expert > 0) {
        nodes.push_back(typed(Op::MoeRoute, DType::F32));
        nodes.push_back(typed(Op::MoeCombine, DType::F32));
    }
    return nodes;
}

// The first node of the layer the device cannot run, described, or "".
std::string unsupported(const backend::Device& d, const std::vector<Node>& nodes) {
    for (const Node& n : nodes) {
        if (d.supports(n)) continue;
        std::string what = backend::op_name(n.op);
        if (n.op == Op::MatMul || n.op == Op::MoeMatMul)
            what += std::string(" with ") + backend::dtype_name(n.src[0].type) + " weights";
        if (n.op == Op::KvAppend || n.op == Op::Attention)
            what += std::string(" with a ") + backend::dtype_name(n.src[1].type) + " KV cache";
        return what;
    }
    return "";
}

uint64_t tensor_bytes(const TensorSource& src, std::string_view name) {
    const auto* e = src.find(name);
    return e ? e->bytes() : 0;
}

}  // namespace

uint64_t accel_margin(const backend::MemoryInfo& m) {
    return std::max<uint64_t>(m.total_bytes / 20, uint64_t(16) << 20);
}

uint64_t layer_weight_bytes(const TensorSource& source, int64_t layer) {
    uint64_t n = 0;
    for (const auto& e : source.tensors)
        if (is_layer_tensor(e.name, layer)) n += e.bytes();
    return n;
}

uint64_t kv_layer_bytes(const ModelConfig& p, int64_t n_ctx, DType kv_type) {
    const int64_t cells = (n_ctx + 15) / 16 * 16;
    return 2 * backend::dtype_row_bytes(kv_type, static_cast<size_t>(p.kv_width())) *
           static_cast<uint64_t>(cells);
}

uint64_t compute_bytes(const ModelConfig& p, int64_t n_batch) {
    const int64_t K = std::max<int64_t>(1, p.n_expert_used);
    const int64_t per_token = 3 * p.n_embd + 2 * p.q_width() + 2 * p.kv_width() +
                              2 * p.ffn_width() + std::max<int64_t>(1, p.n_expert) + 2 * K +
                              (p.n_expert > 0 ? p.n_embd * K : 1) + 2;
    return static_cast<uint64_t>(per_token * n_batch) * 4 + static_cast<uint64_t>(p.n_vocab) * 4;
}

PlacementPlan plan_placement(const ModelConfig& p, const TensorSource& src, backend::Device& main,
                             backend::Device* accel, const PlanOptions& o) {
    PlacementPlan plan;
    const int64_t L = p.n_layer;
    const uint64_t kv_layer = kv_layer_bytes(p, o.n_ctx, o.kv_type);
    const uint64_t compute = compute_bytes(p, o.n_batch);
    std::vector<uint64_t> layer_bytes(static_cast<size_t>(L));
    uint64_t all_layers = 0;
    for (int64_t l = 0; l < L; ++l)
        all_layers += layer_bytes[size_t(l)] = layer_weight_bytes(src, l);
    const bool tied = !src.find("output.weight");
    const uint64_t output_bytes = tensor_bytes(src, tied ? "token_embd.weight" : "output.weight") +
                                  tensor_bytes(src, "output_norm.weight");
    uint64_t total_weights = 0;
    for (const auto& e : src.tensors) total_weights += e.bytes();

    if (accel && o.gpu_layers != 0) {
        const int64_t want = o.gpu_layers < 0 ? L : std::min(o.gpu_layers, L);
        int64_t n = 0;
        for (; n < want; ++n) {  // every node of the layer must run there
            const std::string why = unsupported(*accel, layer_nodes(p, src, n, o.kv_type));
            if (!why.empty()) {
                plan.notes.push_back("layers " + std::to_string(n) + "-" + std::to_string(L - 1) +
                                     " stay on the " + main.name() + ": " + accel->name() +
                                     " cannot run " + why + " (blk." + std::to_string(n) + ")");
                break;
            }
        }
        const backend::MemoryInfo mem = accel->memory();
        if (o.gpu_layers == kGpuLayersAuto) {
            // As many layers as fit after the compute buffers, each with its KV cache.
            const uint64_t reserve = accel_margin(mem) + compute;
            uint64_t budget = mem.free_bytes > reserve ? mem.free_bytes - reserve : 0;
            int64_t fit = 0;
            while (fit < n && layer_bytes[size_t(fit)] + kv_layer <= budget) {
                budget -= layer_bytes[size_t(fit)] + kv_layer;
                ++fit;
            }
            if (fit < n)
                plan.notes.push_back(std::to_string(fit) + " of " + std::to_string(L) +
                                     " layers fit in " + accel->name() + "'s free memory (" +
                                     format_bytes(mem.free_bytes) + ")");
            n = fit;
            plan.output_on_accel = n == L && output_bytes <= budget;
        } else {
            plan.output_on_accel = n == L;
        }
        plan.n_accel = n;
        if (n > 0 || plan.output_on_accel) {
            DeviceNeed a{accel->name(), 0, kv_layer * uint64_t(n), compute, mem.free_bytes};
            for (int64_t l = 0; l < n; ++l) a.weights += layer_bytes[size_t(l)];
            if (plan.output_on_accel) a.weights += output_bytes;
            plan.needs.push_back(a);
        }
    }
    // The main device keeps the mapped file's other tensors (the embeddings always).
    DeviceNeed m{main.name(), total_weights, kv_layer * uint64_t(L - plan.n_accel), compute,
                 main.memory().free_bytes};
    for (int64_t l = 0; l < plan.n_accel; ++l) m.weights -= layer_bytes[size_t(l)];
    if (plan.output_on_accel && !tied) m.weights -= tensor_bytes(src, "output.weight");
    plan.needs.insert(plan.needs.begin(), m);
    (void)all_layers;
    return plan;
}

Status check_fit(const PlacementPlan& plan) {
    for (const auto& d : plan.needs) {
        if (d.available == 0 || d.total() <= d.available) continue;  // 0: the device did not say
        return Status::error("the model needs " + format_bytes(d.total()) + " on the " + d.device +
                             " (weights " + format_bytes(d.weights) + ", KV cache " +
                             format_bytes(d.kv) + ", compute " + format_bytes(d.compute) + "), " +
                             format_bytes(d.available) +
                             " available; try INT4 weights or a shorter context");
    }
    return Status::ok();
}

std::string format_bytes(uint64_t b) {
    char buf[32];
    if (b >= 1000ull * 1000 * 1000)
        std::snprintf(buf, sizeof buf, "%.1f GB", double(b) / 1e9);
    else if (b >= 1000ull * 1000)
        std::snprintf(buf, sizeof buf, "%.1f MB", double(b) / 1e6);
    else
        std::snprintf(buf, sizeof buf, "%.1f KB", double(b) / 1e3);
    return buf;
}

}  // namespace hearth::runtime
