#include "cuda_stream.h"

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "cuda_kernels.h"
#include "cuda_memory.h"
#include "cuda_profile.h"

namespace hearth::backend::cuda {

namespace {

// HEARTH_CUDA_GRAPHS=0 / HEARTH_CUDA_DP4A=0 / HEARTH_CUDA_FUSE=0 / HEARTH_CUDA_MMA=0 turn graph
// capture / the dp4a decode kernels / the fused kernels / the tensor-core prefill off (for
// comparisons on a GPU); HEARTH_CUDA_GEMM=0 keeps the tensor-core prefill on its one-pass
// kernel instead of the two-pass one (cuda_gemm.cu); HEARTH_CUDA_PDL=0 launches every kernel
// after the one before has ended, HEARTH_CUDA_PREFETCH=0 keeps PDL but without the weight
// prefetch (cuda_pdl.cuh).
bool env_on(const char* name) {
    const char* v = std::getenv(name);
    return !(v && std::strcmp(v, "0") == 0);
}

class CudaStream final : public Stream {
public:
    explicit CudaStream(int device) : device_(device) {}
    ~CudaStream() override {
        cudaSetDevice(device_);
        if (stream_) cudaStreamSynchronize(stream_);
        if (exec_) cudaGraphExecDestroy(exec_);
        if (err_dev_) cudaFree(err_dev_);
        if (err_host_) cudaFreeHost(err_host_);
        if (scratch_) cudaFree(scratch_);
        if (counts_) cudaFree(counts_);
        if (q8_) cudaFree(q8_);
        if (gemm_) cudaFree(gemm_);
        if (stream_) cudaStreamDestroy(stream_);
    }

    Status init() {
        cudaSetDevice(device_);
        if (cudaError_t e = cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking); e)
            return Status::error("cuda stream: " + cuda_error_text(e));
        if (cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&err_dev_), sizeof(DevError)); e)
            return Status::error("cuda stream: " + cuda_error_text(e));
        if (cudaError_t e = cudaMallocHost(reinterpret_cast<void**>(&err_host_), sizeof(DevError));
            e)
            return Status::error("cuda stream: " + cuda_error_text(e));
        use_graphs_ = env_on("HEARTH_CUDA_GRAPHS") && !profile_.timing_nodes();
        use_dp4a_ = env_on("HEARTH_CUDA_DP4A");
        use_fusion_ = env_on("HEARTH_CUDA_FUSE");
        use_mma_ = env_on("HEARTH_CUDA_MMA");
        int major = 0;
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device_);
        use_gemm_ = use_mma_ && env_on("HEARTH_CUDA_GEMM") && major >= 8;
        policy_.pdl = env_on("HEARTH_CUDA_PDL") && major >= 9;
        policy_.prefetch = policy_.pdl && env_on("HEARTH_CUDA_PREFETCH");
        return Status::ok();
    }

    Status compute(const Graph& graph) override;

private:
    Status prepare(const Graph& graph);
    Status grow(void*& p, size_t& have, size_t need);
    cudaError_t enqueue();
    // The launches of enqueue() captured into an executable graph.
    cudaError_t capture(cudaGraphExec_t& exec);
    Status finish(const Graph& graph, cudaError_t launch_error);

    // One node with its tensors resolved to device addresses.
    struct Launch {
        const Node* node;
        DevTensor dst, src[3], aux;
        KvArgs kv;
    };

    int device_;
    cudaStream_t stream_ = nullptr;
    DevError* err_dev_ = nullptr;
    DevError* err_host_ = nullptr;
    float* scratch_ = nullptr;
    size_t scratch_bytes_ = 0;
    unsigned* counts_ = nullptr;  // the attention's split counts (launch_attention)
    size_t counts_bytes_ = 0;
    void* q8_ = nullptr;  // decode activations quantized to 8 bits
    size_t q8_bytes_ = 0;
    void* gemm_ = nullptr;  // prefill operands in half precision (launch_gemm_f16)
    size_t gemm_bytes_ = 0;
    bool use_graphs_ = true;
    bool use_dp4a_ = true;
    bool use_fusion_ = true;
    bool use_mma_ = true;
    bool use_gemm_ = true;
    LaunchPolicy policy_;  // programmatic dependent launch on sm_90+ (cuda_pdl.cuh)
    bool q8_path(const Launch& l) const {
        return use_dp4a_ && mat_vec_q8_supported(l.src[0].type) && l.src[1].ne[1] <= kMaxQ8Tokens;
    }
    // Whether `l` (a norm or SwiGLU) may quantize its output for `next`, a dp4a product of it.
    bool quantize_for(const Launch& l, const Launch* next) const;
    // Whether `l`, an Add, may be done by `next`, the norm of its sum.
    bool add_into_norm(const Launch& l, const Launch* next) const;
    // Whether next appends to another cache through the same index as l (one launch for both).
    bool kv_pair(const Launch& l, const Launch* next) const;
    // Whether no node of the step writes t's bytes (a weight: a kernel may read it before its
    // predecessor ends, cuda_pdl.cuh).
    bool written_by_none(const DevTensor& t) const;
    std::vector<Launch> launches_;
    std::vector<uint64_t> sig_, last_sig_;
    cudaGraphExec_t exec_ = nullptr;
    // The graph whose step exec_ ran last and its revision then: set where exec_ is launched,
    // cleared where compute takes the slow path; read only while exec_ holds.
    const Graph* replay_graph_ = nullptr;
    uint64_t replay_revision_ = 0;
    StreamProfile profile_{StreamProfile::level_from_env()};
};

// What HEARTH_CUDA_PROFILE=2 sums a node's GPU time under: op, label, and for a MatMul which
// kernel ran on which weights and shape.
std::string profile_key(const Node& n, bool q8) {
    std::string k = std::string(op_name(n.op)) + " " + n.label;
    if (n.op == Op::MatMul || n.op == Op::MoeMatMul)
        k += std::string(" ") + dtype_name(n.src[0].type) + " " + std::to_string(n.src[0].ne[0]) +
             "x" + std::to_string(n.src[0].ne[1]) + " t" + std::to_string(n.src[1].ne[1]) +
             (q8 ? " dp4a" : "");
    if (n.op == Op::Attention) k += std::string(" kv ") + dtype_name(n.src[1].type);
    return k;
}

// The device tensor of t, or an error when t lives elsewhere.
Status resolve(const Tensor& t, int device, DevTensor& out) {
    out = DevTensor{};
    if (!t.valid()) return Status::ok();
    const auto* b = dynamic_cast<const CudaBuffer*>(t.buffer);
    if (!b || b->device() != device)
        return Status::error("tensor is not in this CUDA device's memory");
    out.p = b->device_ptr() + t.offset;
    out.type = static_cast<uint32_t>(t.type);
    for (int d = 0; d < 4; ++d) {
        out.ne[d] = t.ne[d];
        out.nb[d] = static_cast<int64_t>(t.nb[d]);
    }
    return Status::ok();
}

bool same_tensor(const DevTensor& a, const DevTensor& b) {
    if (a.p != b.p || a.type != b.type) return false;
    for (int d = 0; d < 4; ++d)
        if (a.ne[d] != b.ne[d] || a.nb[d] != b.nb[d]) return false;
    return true;
}

void sign(std::vector<uint64_t>& sig, const DevTensor& t) {
    sig.push_back(reinterpret_cast<uint64_t>(t.p));
    sig.push_back(t.type);
    for (int d = 0; d < 4; ++d) {
        sig.push_back(static_cast<uint64_t>(t.ne[d]));
        sig.push_back(static_cast<uint64_t>(t.nb[d]));
    }
}
// Whether the bytes a and b span (from the first element to past the last) do not meet.
bool disjoint(const DevTensor& a, const DevTensor& b) {
    auto span_of = [](const DevTensor& t) {
        int64_t last = t.nb[0];
        for (int d = 0; d < 4; ++d) last += (t.ne[d] > 0 ? t.ne[d] - 1 : 0) * t.nb[d];
        return std::pair{reinterpret_cast<uintptr_t>(t.p),
                         reinterpret_cast<uintptr_t>(t.p) + uintptr_t(last)};
    };
    const auto [a0, a1] = span_of(a);
    const auto [b0, b1] = span_of(b);
    return a1 <= b0 || b1 <= a0;
}

// Whether x (a matrix [d * H, T]) is a 3-D tensor t [d, H, T] with its heads side by side.
bool rows_of(const DevTensor& x, const DevTensor& t) {
    return x.p == t.p && x.type == t.type && x.ne[0] == t.ne[0] * t.ne[1] && x.ne[1] == t.ne[2] &&
           x.ne[2] == 1 && x.ne[3] == 1 && t.ne[3] == 1 && x.nb[1] == t.nb[2] &&
           t.nb[1] == t.ne[0] * t.nb[0];
}

bool same_rope(const RopeParams& a, const RopeParams& b) {
    return a.mode == b.mode && a.n_rot == b.n_rot && a.freq_base == b.freq_base &&
           a.freq_scale == b.freq_scale && a.attn_factor == b.attn_factor;
}

template <class T>
void sign_bytes(std::vector<uint64_t>& sig, const T& v) {
    uint64_t w[(sizeof(T) + 7) / 8] = {};
    std::memcpy(w, &v, sizeof(T));
    sig.insert(sig.end(), std::begin(w), std::end(w));
}

Status CudaStream::prepare(const Graph& graph) {
    launches_.clear();
    sig_.clear();
    size_t scratch = 0, counts = 0, q8 = 0, gemm = 0;
    for (const Node& n : graph.nodes()) {
        Launch l{};
        l.node = &n;
        Status s = resolve(n.dst, device_, l.dst);
        for (int i = 0; s && i < 3; ++i) s = resolve(n.src[i], device_, l.src[i]);
        if (s) s = resolve(n.aux, device_, l.aux);
        if (s && (n.op == Op::KvAppend || n.op == Op::Attention)) {
            s = resolve(n.kv.positions, device_, l.kv.positions);
            if (s) s = resolve(n.kv.block_table, device_, l.kv.block_table);
            if (s) s = resolve(n.kv.seq_ids, device_, l.kv.seq_ids);
            l.kv.block_size = n.kvp.block_size;
            l.kv.scale = n.kvp.scale;
            l.kv.softcap = n.kvp.softcap;
            l.kv.window = n.kvp.window;
        }
        if (!s)
            return Status::error(std::string(op_name(n.op)) + " '" + n.label + "': " + s.message());
        if (n.op == Op::Attention) {
            scratch = std::max(scratch, attention_scratch_bytes(l.src[0], l.kv));
            counts = std::max(counts, attention_count_words(l.src[0], l.kv) * sizeof(unsigned));
        }
        if (n.op == Op::MatMul && q8_path(l))
            q8 = std::max(q8, mat_vec_q8_scratch_bytes(l.src[0].ne[0], l.src[1].ne[1]));
        else if (n.op == Op::MatMul && use_gemm_)
            gemm = std::max(gemm, gemm_f16_scratch_bytes(l.src[0], l.src[1].ne[1]));
        sig_.push_back(static_cast<uint64_t>(n.op));
        sign(sig_, l.dst);
        for (const auto& t : l.src) sign(sig_, t);
        sign(sig_, l.aux);
        sign(sig_, l.kv.positions);
        sign(sig_, l.kv.block_table);
        sign(sig_, l.kv.seq_ids);
        sign_bytes(sig_, n.kvp);
        sign_bytes(sig_, n.rope);
        sign_bytes(sig_, n.eps);
        sign_bytes(sig_, n.alpha);
        sig_.push_back(static_cast<uint64_t>(n.k) | (uint64_t(n.renorm) << 32));
        launches_.push_back(l);
    }
    if (Status s = grow(reinterpret_cast<void*&>(scratch_), scratch_bytes_, scratch); !s) return s;
    if (Status s = grow(reinterpret_cast<void*&>(counts_), counts_bytes_, counts); !s) return s;
    if (Status s = grow(q8_, q8_bytes_, q8); !s) return s;
    // The half-precision operands are a speed-up, not a need: without the memory for them the
    // products take the one-pass kernel.
    if (!grow(gemm_, gemm_bytes_, gemm)) (void)cudaGetLastError();
    return Status::ok();
}

Status CudaStream::grow(void*& p, size_t& have, size_t need) {
    if (need <= have) return Status::ok();
    // A new scratch address changes what a captured graph points at: drop it.
    cudaStreamSynchronize(stream_);
    if (p) cudaFree(p);
    p = nullptr;
    have = 0;
    if (exec_) cudaGraphExecDestroy(exec_);
    exec_ = nullptr;
    last_sig_.clear();
    if (cudaError_t e = cudaMalloc(&p, need); e)
        return Status::error("cuda scratch: " + cuda_error_text(e));
    // Zeroed, in the stream's order: the attention's split counts start at 0 (and every launch
    // leaves them so).
    if (cudaError_t e = cudaMemsetAsync(p, 0, need, stream_); e)
        return Status::error("cuda scratch: " + cuda_error_text(e));
    have = need;
    return Status::ok();
}

bool CudaStream::quantize_for(const Launch& l, const Launch* next) const {
    return use_fusion_ && next && next->node->op == Op::MatMul && q8_path(*next) &&
           same_tensor(next->src[1], l.dst) && l.dst.ne[0] % 32 == 0;
}

bool CudaStream::add_into_norm(const Launch& l, const Launch* next) const {
    return use_fusion_ && next && next->node->op == Op::RmsNorm &&
           same_tensor(next->src[0], l.dst) && l.src[0].ne[0] == l.dst.ne[0] &&
           l.src[0].ne[1] == l.dst.ne[1] && l.src[1].ne[0] == l.dst.ne[0] &&
           (l.src[1].ne[1] == 1 || l.src[1].ne[1] == l.dst.ne[1]);
}

bool CudaStream::kv_pair(const Launch& l, const Launch* next) const {
    return use_fusion_ && next && next->node->op == Op::KvAppend && next->dst.type == l.dst.type &&
           next->src[0].ne[1] == l.src[0].ne[1] &&
           same_tensor(next->kv.positions, l.kv.positions) &&
           same_tensor(next->kv.block_table, l.kv.block_table) &&
           same_tensor(next->kv.seq_ids, l.kv.seq_ids) && next->kv.block_size == l.kv.block_size &&
           disjoint(next->src[0], l.dst);
}

bool CudaStream::written_by_none(const DevTensor& t) const {
    for (const Launch& l : launches_) {
        if (!disjoint(l.dst, t)) return false;
        // Every op writes its dst; MoeRoute also its aux (the chosen ids).
        if (l.node->op == Op::MoeRoute && l.aux.p && !disjoint(l.aux, t)) return false;
    }
    return true;
}

cudaError_t CudaStream::enqueue() {
    const LaunchPolicyScope policy(policy_);
    const bool timing = profile_.timing_nodes();
    // The activations the q8 scratch holds: set by a dp4a product or a kernel that quantized
    // its output for one, kept only while the next node is a dp4a product of the same tensor.
    const DevTensor* q8_x = nullptr;
    if (timing) profile_.begin_step(launches_.size());
    const size_t n_launches = launches_.size();
    for (size_t index = 0; index < n_launches; ++index) {
        const Launch& l = launches_[index];
        const Launch* next = index + 1 < n_launches ? &launches_[index + 1] : nullptr;
        const Node& n = *l.node;
        const bool q8 = n.op == Op::MatMul && q8_path(l);
        const DevTensor* quantized = nullptr;  // what this launch left in the q8 scratch
        size_t absorbed = 0;                   // following nodes this launch also did
        const int node = int(index);
        cudaError_t e = cudaSuccess;
        if (timing) profile_.before(stream_, index);
        switch (n.op) {
            case Op::GetRows:
                e = launch_get_rows(stream_, l.dst, l.src[0], l.src[1], err_dev_, node);
                break;
            case Op::MatMul:
                if (q8) {
                    const bool same = q8_x && same_tensor(*q8_x, l.src[1]);
                    // The products of the same x that follow (Q, K, V; gate, up) join this
                    // launch.
                    MatVecProduct products[3] = {{l.dst, l.src[0]}, {}, {}};
                    size_t n_products = 1;
                    while (use_fusion_ && n_products < 3 && index + n_products < n_launches) {
                        const Launch& o = launches_[index + n_products];
                        if (o.node->op != Op::MatMul || !q8_path(o) ||
                            !same_tensor(o.src[1], l.src[1]) ||
                            !mat_vec_q8_batchable(l.src[0], o.src[0], l.src[1].ne[1]))
                            break;
                        products[n_products++] = {o.dst, o.src[0]};
                    }
                    e = launch_mat_vec_q8_batch(stream_, std::span(products, n_products), l.src[1],
                                                q8_, !same);
                    absorbed = n_products - 1;
                    quantized = &l.src[1];
                } else if (const size_t need =
                               use_gemm_ ? gemm_f16_scratch_bytes(l.src[0], l.src[1].ne[1]) : 0;
                           need > 0 &&
                           need <= gemm_bytes_) {  // 0: the two-pass path does not apply
                    e = launch_gemm_f16(stream_, l.dst, l.src[0], l.src[1], gemm_, gemm_bytes_);
                } else {
                    e = launch_mat_mul(stream_, l.dst, l.src[0], l.src[1], use_mma_);
                }
                break;
            case Op::Add:
                if (add_into_norm(l, next)) {
                    const Launch* after = index + 2 < n_launches ? &launches_[index + 2] : nullptr;
                    void* q = quantize_for(*next, after) ? q8_ : nullptr;
                    e = launch_rms_norm(stream_, next->dst, l.src[0], next->src[1], next->node->eps,
                                        &l.src[1], &l.dst, q, written_by_none(next->src[1]));
                    absorbed = 1;
                    if (q) quantized = &next->dst;
                } else {
                    e = launch_elementwise(stream_, Ew::Add, l.dst, l.src[0], l.src[1], 1.f);
                }
                break;
            case Op::SwiGlu:
                if (quantize_for(l, next)) {
                    e = launch_swiglu_q8(stream_, l.dst, l.src[0], l.src[1], q8_);
                    quantized = &l.dst;
                } else {
                    e = launch_elementwise(stream_, Ew::SwiGlu, l.dst, l.src[0], l.src[1], 1.f);
                }
                break;
            case Op::GeGlu:
                e = launch_elementwise(stream_, Ew::GeGlu, l.dst, l.src[0], l.src[1], 1.f);
                break;
            case Op::Scale:
                e = launch_elementwise(stream_, Ew::Scale, l.dst, l.src[0], l.src[0], n.alpha);
                break;
            case Op::SoftCap:
                e = launch_elementwise(stream_, Ew::SoftCap, l.dst, l.src[0], l.src[0], n.alpha);
                break;
            case Op::RmsNorm: {
                void* q = quantize_for(l, next) ? q8_ : nullptr;
                e = launch_rms_norm(stream_, l.dst, l.src[0], l.src[1], n.eps, nullptr, nullptr, q,
                                    written_by_none(l.src[1]));
                if (q) quantized = &l.dst;
                break;
            }
            case Op::Rope: {
                RopeArgs r;
                r.adjacent = n.rope.mode == RopeMode::Adjacent ? 1 : 0;
                r.n_rot = n.rope.n_rot;
                r.freq_base = n.rope.freq_base;
                r.freq_scale = n.rope.freq_scale;
                r.attn_factor = n.rope.attn_factor;
                // The next node rotating another tensor the same way (RoPE of Q, then of K)
                // joins this launch.
                const bool pair = use_fusion_ && next && next->node->op == Op::Rope &&
                                  same_rope(next->node->rope, n.rope) &&
                                  same_tensor(next->src[1], l.src[1]) &&
                                  same_tensor(next->src[2], l.src[2]) &&
                                  disjoint(next->src[0], l.dst) && disjoint(next->dst, l.src[0]);
                // Then the appends of the rotated K and of V (F32/F16 caches): all four in one.
                const Launch* ka = pair && index + 3 < n_launches ? &launches_[index + 2] : nullptr;
                const Launch* va = ka ? &launches_[index + 3] : nullptr;
                if (ka && ka->node->op == Op::KvAppend && kv_pair(*ka, va) &&
                    rope_kv_supported(ka->dst.type) && rows_of(ka->src[0], next->dst) &&
                    next->dst.nb[0] == 4 && same_tensor(ka->kv.positions, l.src[1]) &&
                    disjoint(va->src[0], l.dst) && disjoint(va->src[0], next->dst)) {
                    const RopeKvArgs a{l.dst,      l.src[0], next->dst, next->src[0], ka->dst,
                                       va->src[0], va->dst,  l.src[1],  l.src[2]};
                    e = launch_rope_kv(stream_, a, r, ka->kv, err_dev_, node + 2);
                    absorbed = 3;
                    break;
                }
                e = launch_rope(stream_, l.dst, l.src[0], l.src[1], l.src[2], r,
                                pair ? &next->dst : nullptr, pair ? &next->src[0] : nullptr);
                absorbed = pair ? 1 : 0;
                break;
            }
            case Op::KvAppend: {
                // K's append and V's, through the same positions and block table, in one launch.
                const bool pair = kv_pair(l, next);
                e = launch_kv_append(stream_, l.dst, l.src[0], l.kv, err_dev_, node,
                                     pair ? &next->dst : nullptr, pair ? &next->src[0] : nullptr);
                absorbed = pair ? 1 : 0;
                break;
            }
            case Op::Attention: {
                // The output projection reads the heads' outputs as one row per token.
                const bool for_next = use_fusion_ && next && next->node->op == Op::MatMul &&
                                      q8_path(*next) && rows_of(next->src[1], l.dst);
                bool done = false;
                e = launch_attention(stream_, l.dst, l.src[0], l.src[1], l.src[2], l.kv, scratch_,
                                     counts_, err_dev_, node, for_next ? q8_ : nullptr, &done);
                if (done) quantized = &next->src[1];
                break;
            }
            case Op::MoeRoute:
                e = launch_moe_route(stream_, l.dst, l.aux, l.src[0], n.k, n.renorm);
                break;
            case Op::MoeMatMul:
                e = launch_moe_mat_mul(stream_, l.dst, l.src[0], l.src[1], l.src[2], err_dev_,
                                       node);
                break;
            case Op::MoeCombine:
                e = launch_moe_combine(stream_, l.dst, l.src[0], l.src[1]);
                break;
            case Op::ArgMax:
                e = launch_argmax(stream_, l.dst, l.src[0]);
                break;
        }
        if (e != cudaSuccess) return e;
        q8_x = quantized;
        if (timing) {
            std::string key = profile_key(n, q8);
            for (size_t i = 1; i <= absorbed; ++i)
                key += std::string(" + ") + op_name(launches_[index + i].node->op);
            if (quantized && !q8) key += " + q8";
            profile_.after(stream_, index, key);
        }
        index += absorbed;
    }
    return cudaSuccess;
}

cudaError_t CudaStream::capture(cudaGraphExec_t& exec) {
    cudaGraph_t g = nullptr;
    cudaError_t e = cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal);
    if (e == cudaSuccess) {
        const cudaError_t le = enqueue();
        e = cudaStreamEndCapture(stream_, &g);
        if (le != cudaSuccess) e = le;
    }
    if (e == cudaSuccess) e = cudaGraphInstantiate(&exec, g, 0);
    if (g) cudaGraphDestroy(g);
    return e;
}

Status CudaStream::compute(const Graph& graph) {
    using Phase = StreamProfile::Phase;
    using Kind = StreamProfile::Kind;
    cudaSetDevice(device_);
    // The graph this stream captured, not changed since (Graph::revision): replayed without
    // validating, resolving and signing its nodes again (a tenth of a millisecond of host time
    // a step for tinyllama's 250 nodes, with the GPU idle).
    if (exec_ && &graph == replay_graph_ && graph.revision() == replay_revision_) {
        auto t0 = StreamProfile::Clock::now();
        cudaError_t e = cudaMemsetAsync(err_dev_, 0, sizeof(DevError), stream_);
        if (e == cudaSuccess) e = cudaGraphLaunch(exec_, stream_);
        if (profile_.on()) {
            profile_.count(Kind::Replay);
            profile_.add_host(Phase::Launch, t0);
        }
        return finish(graph, e);
    }
    replay_graph_ = nullptr;
    if (Status s = validate_graph(graph); !s) return s;
    if (graph.nodes().empty()) return Status::ok();
    auto t0 = StreamProfile::Clock::now();
    if (Status s = prepare(graph); !s) return s;
    if (profile_.on()) profile_.add_host(Phase::Prepare, t0);
    cudaError_t e = cudaMemsetAsync(err_dev_, 0, sizeof(DevError), stream_);
    if (e != cudaSuccess) return finish(graph, e);

    if (profile_.timing_in_graph()) {
        // Each step captured afresh with its event pairs and run as a graph (see cuda_profile.h).
        cudaGraphExec_t ex = nullptr;
        e = capture(ex);
        if (e == cudaSuccess) e = cudaGraphLaunch(ex, stream_);
        profile_.count(Kind::Capture);
        profile_.add_host(Phase::Launch, t0);
        Status st = finish(graph, e);
        if (ex) cudaGraphExecDestroy(ex);  // finish has synchronised the stream
        return st;
    }
    const bool repeat = use_graphs_ && sig_ == last_sig_;
    t0 = StreamProfile::Clock::now();
    if (!repeat) {
        if (exec_) cudaGraphExecDestroy(exec_);
        exec_ = nullptr;
        last_sig_ = sig_;
        if (profile_.on()) profile_.count(Kind::Eager);
        e = enqueue();
        if (profile_.on()) profile_.add_host(Phase::Launch, t0);
        return finish(graph, e);
    }
    if (!exec_) {
        // The second identical step: capture it once, replay it from now on.
        e = capture(exec_);
        if (e != cudaSuccess) {
            // Capture is an optimisation: run this step eagerly and stop capturing.
            (void)cudaGetLastError();
            exec_ = nullptr;
            use_graphs_ = false;
            return finish(graph, enqueue());
        }
        if (profile_.on()) profile_.count(Kind::Capture);
    } else if (profile_.on()) {
        profile_.count(Kind::Replay);
    }
    replay_graph_ = &graph;
    replay_revision_ = graph.revision();
    e = cudaGraphLaunch(exec_, stream_);
    if (profile_.on()) profile_.add_host(Phase::Launch, t0);
    return finish(graph, e);
}

Status CudaStream::finish(const Graph& graph, cudaError_t e) {
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(err_host_, err_dev_, sizeof(DevError), cudaMemcpyDeviceToHost, stream_);
    const auto t0 = StreamProfile::Clock::now();
    const cudaError_t se = cudaStreamSynchronize(stream_);
    if (profile_.on()) {
        profile_.add_host(StreamProfile::Phase::Wait, t0);
        if (profile_.timing_nodes() && se == cudaSuccess) profile_.end_step();
    }
    if (e == cudaSuccess) e = se;
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        if (exec_) cudaGraphExecDestroy(exec_);
        exec_ = nullptr;
        last_sig_.clear();
        return Status::error("cuda: " + cuda_error_text(e));
    }
    const DevError err = *err_host_;
    if (err.code == kErrNone) return Status::ok();
    const auto& nodes = graph.nodes();
    const Node* n =
        err.node >= 0 && size_t(err.node) < nodes.size() ? &nodes[size_t(err.node)] : nullptr;
    const std::string where =
        n ? std::string(op_name(n->op)) + " '" + n->label + "': " : std::string("cuda: ");
    switch (err.code) {
        case kErrTokenId:
            return Status::error(where + "token id " + std::to_string(err.value) +
                                 " outside the vocabulary of " +
                                 std::to_string(n ? n->src[0].ne[1] : 0));
        case kErrExpertId:
            return Status::error(where + "expert id " + std::to_string(err.value) +
                                 " outside the experts");
        default:
            return Status::error(where + "token " + std::to_string(err.value) +
                                 ": sequence, position or block table entry outside the cache");
    }
}

}  // namespace

std::unique_ptr<Stream> make_cuda_stream(int device, Status* error) {
    auto s = std::make_unique<CudaStream>(device);
    if (Status st = s->init(); !st) {
        if (error) *error = st;
        return nullptr;
    }
    return s;
}

}  // namespace hearth::backend::cuda
