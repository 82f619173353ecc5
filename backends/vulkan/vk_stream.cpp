// Stream::compute: a whole graph recorded into one command buffer and submitted once. Between
// dispatches a barrier is placed only where one reads or writes a range an earlier dispatch
// (since the last barrier) wrote, or writes a range one read. Descriptor sets are cached by
// their bindings and reused across steps (a decode step binds the same ranges every time).
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "vk_device.h"
#include "vk_ops.h"

namespace hearth::backend::vk {

namespace {

constexpr uint32_t kMaxSets = 4096;
constexpr size_t kErrorBytes = 16;  // common.glsl report_index_error: node + 1, what, value

struct Range {
    VkBuffer buffer;
    VkDeviceSize begin, end;
    bool overlaps(const Range& o) const {
        return buffer == o.buffer && begin < o.end && o.begin < end;
    }
};

class VkStream final : public Stream {
public:
    explicit VkStream(std::shared_ptr<Context> ctx) : ctx_(std::move(ctx)) {}
    ~VkStream() override {
        VkDevice dev = ctx_->device();
        if (fence_) {
            vkDestroyFence(dev, fence_, nullptr);
        }
        if (pool_) vkDestroyCommandPool(dev, pool_, nullptr);
        if (dpool_) vkDestroyDescriptorPool(dev, dpool_, nullptr);
        if (queries_) {
            print_profile();
            vkDestroyQueryPool(dev, queries_, nullptr);
        }
    }

    Status init() {
        VkDevice dev = ctx_->device();
        VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
        pi.queueFamilyIndex = ctx_->physical().queue_family;
        if (VkResult r = vkCreateCommandPool(dev, &pi, nullptr, &pool_); r)
            return Status::error(vk_error("vkCreateCommandPool", r));
        VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        ai.commandPool = pool_;
        ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ai.commandBufferCount = 1;
        if (VkResult r = vkAllocateCommandBuffers(dev, &ai, &cb_); r)
            return Status::error(vk_error("vkAllocateCommandBuffers", r));
        VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        if (VkResult r = vkCreateFence(dev, &fi, nullptr, &fence_); r)
            return Status::error(vk_error("vkCreateFence", r));
        VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kMaxSets * kBindings};
        VkDescriptorPoolCreateInfo dp{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
        dp.maxSets = kMaxSets;
        dp.poolSizeCount = 1;
        dp.pPoolSizes = &ps;
        if (VkResult r = vkCreateDescriptorPool(dev, &dp, nullptr, &dpool_); r)
            return Status::error(vk_error("vkCreateDescriptorPool", r));
        auto err = ctx_->allocate_host(kErrorBytes);
        if (!err) return err.status();
        errors_ = std::make_unique<VkBuf>(ctx_, *err, kErrorBytes, false);
        generation_ = ctx_->block_generation();
        const char* prof = std::getenv("HEARTH_VULKAN_PROFILE");
        if (prof && *prof && std::string(prof) != "0") {
            VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
            qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
            qi.queryCount = kMaxSets + 1;
            if (vkCreateQueryPool(dev, &qi, nullptr, &queries_) == VK_SUCCESS) profiling_ = true;
        }
        return Status::ok();
    }

    Status compute(const Graph& graph) override {
        if (Status s = validate_graph(graph); !s) return s;
        if (graph.nodes().empty()) return Status::ok();
        const Clock::time_point t0 = profiling_ ? Clock::now() : Clock::time_point{};
        dispatches_.clear();
        retired_.clear();
        const RopeTable rope = [this](const RopeParams& p) { return rope_table(p); };
        const Scratch scratch = [this](size_t bytes) { return scratch_buffer(bytes); };
        const auto& nodes = graph.nodes();
        for (size_t ni = 0; ni < nodes.size(); ++ni) {
            const Node& n = nodes[ni];
            const size_t first = dispatches_.size();
            for (const Tensor* t : {&n.dst, &n.src[0], &n.src[1], &n.src[2], &n.kv.positions,
                                    &n.kv.block_table, &n.kv.seq_ids, &n.aux}) {
                if (!t->valid()) continue;
                const auto* b = dynamic_cast<const VkBuf*>(t->buffer);
                if (!b || b->context() != ctx_.get())
                    return Status::error(std::string("vulkan: ") + op_name(n.op) + " '" + n.label +
                                         "': a tensor is not in this device's memory");
            }
            if (std::string why = unsupported_reason(*ctx_, n); !why.empty())
                return Status::error(ctx_->physical().name + ": " + op_name(n.op) + " '" + n.label +
                                     "': " + why);
            if (Status s = encode_node(*ctx_, n, rope, scratch, dispatches_); !s) return s;
            for (size_t j = first; j < dispatches_.size(); ++j) {
                Dispatch& x = dispatches_[j];
                if (!x.index_errors) continue;
                x.b[x.error_binding] = {errors_.get(), 0, kErrorBytes, true, true};
                x.pc.u[15] = static_cast<uint32_t>(ni + 1);
            }
        }
        // Stale or too many cached sets: start the pool afresh (nothing is in flight here).
        if (generation_ != ctx_->block_generation() ||
            sets_.size() + dispatches_.size() > kMaxSets) {
            vkResetDescriptorPool(ctx_->device(), dpool_, 0);
            sets_.clear();
            generation_ = ctx_->block_generation();
        }
        if (dispatches_.size() > kMaxSets)
            return Status::error("vulkan: a graph of more than 4096 dispatches");
        vkResetCommandBuffer(cb_, 0);
        VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        vkBeginCommandBuffer(cb_, &bi);
        Status st = record();
        vkEndCommandBuffer(cb_);
        if (!st) return st;
        auto* words = static_cast<uint32_t*>(errors_->allocation().block->mapped);
        std::fill(words, words + kErrorBytes / 4, 0u);  // coherent: seen by the submit
        const Clock::time_point t1 = profiling_ ? Clock::now() : Clock::time_point{};
        if (Status s = ctx_->submit_and_wait(cb_, fence_); !s) return s;
        if (profiling_) {
            host_.record_ms += ms_between(t0, t1);
            host_.wait_ms += ms_between(t1, Clock::now());
            ++host_.steps;
            host_.dispatches += dispatches_.size();
            collect_profile();
        }
        if (Status s = ctx_->check_validation("compute"); !s) return s;
        // An index error found on the device: the first report names its node and value.
        if (words[0] != 0 && words[0] <= nodes.size())
            return Status::error(
                ctx_->physical().name + ": " +
                index_error_text(nodes[words[0] - 1], words[1], static_cast<int32_t>(words[2])));
        return Status::ok();
    }

private:
    using Key = std::array<uint64_t, 3 * kBindings>;

    // The bound range of a slot: the start aligned down, the end rounded up to whole words
    // (kernels read 32-bit words; allocations are whole 256-byte units, so this stays inside).
    void resolve(const Binding& in, VkBuffer& buf, VkDeviceSize& offset, VkDeviceSize& range,
                 uint32_t& inner) const {
        const Allocation& a = in.buf ? in.buf->allocation() : ctx_->dummy();
        const VkDeviceSize begin = a.offset + (in.buf ? in.begin : 0);
        VkDeviceSize end = a.offset + (in.buf ? in.end : a.size);
        end = std::min<VkDeviceSize>((end + 3) / 4 * 4, a.offset + a.size);
        const VkDeviceSize align = ctx_->offset_alignment();
        offset = begin / align * align;
        range = std::max<VkDeviceSize>(end - offset, 4);
        inner = static_cast<uint32_t>(begin - offset);
        buf = a.block->buffer;
    }

    void collect_profile() {
        const auto n = static_cast<uint32_t>(dispatches_.size() + 1);
        std::vector<uint64_t> ts(n);
        if (vkGetQueryPoolResults(ctx_->device(), queries_, 0, n, n * sizeof(uint64_t), ts.data(),
                                  sizeof(uint64_t), VK_QUERY_RESULT_64_BIT) != VK_SUCCESS)
            return;
        const double ns = ctx_->physical().props.limits.timestampPeriod;
        for (size_t i = 0; i + 1 < n; ++i) {
            const Dispatch& d = dispatches_[i];
            auto& e = profile_[std::string(d.kernel) + " " + std::to_string(d.groups[0]) + "x" +
                               std::to_string(d.groups[1]) + "x" + std::to_string(d.groups[2])];
            e.first += double(ts[i + 1] - ts[i]) * ns * 1e-6;
            ++e.second;
        }
    }

    Status record() {
        VkPipeline bound = VK_NULL_HANDLE;
        if (profiling_) {
            vkCmdResetQueryPool(cb_, queries_, 0, kMaxSets + 1);
            vkCmdWriteTimestamp(cb_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 0);
        }
        uint32_t query = 1;
        std::vector<Range> written, read;
        for (Dispatch& x : dispatches_) {
            auto pipe = ctx_->pipelines().get(x.kernel, x.fmt);
            if (!pipe) return pipe.status();
            Key key{};
            VkDescriptorBufferInfo infos[kBindings];
            std::vector<Range> reads, writes;
            for (uint32_t i = 0; i < kBindings; ++i) {
                VkBuffer buf;
                VkDeviceSize off, range;
                resolve(x.b[i], buf, off, range, x.pc.off[i]);
                if (range > ctx_->max_range() && x.b[i].buf)
                    return Status::error("vulkan: internal error: a binding over the range limit");
                infos[i] = {buf, off, range};
                key[3 * i] = reinterpret_cast<uint64_t>(buf);
                key[3 * i + 1] = off;
                key[3 * i + 2] = range;
                if (x.b[i].buf && !x.b[i].atomic) {
                    const Range r{buf, off + x.pc.off[i], off + range};
                    (x.b[i].write ? writes : reads).push_back(r);
                }
            }
            VkDescriptorSet set = VK_NULL_HANDLE;
            if (auto it = sets_.find(key); it != sets_.end()) {
                set = it->second;
            } else {
                VkDescriptorSetLayout layout = ctx_->pipelines().set_layout();
                VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
                ai.descriptorPool = dpool_;
                ai.descriptorSetCount = 1;
                ai.pSetLayouts = &layout;
                if (VkResult r = vkAllocateDescriptorSets(ctx_->device(), &ai, &set); r)
                    return Status::error(vk_error("vkAllocateDescriptorSets", r));
                VkWriteDescriptorSet w[kBindings];
                for (uint32_t i = 0; i < kBindings; ++i) {
                    w[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
                    w[i].dstSet = set;
                    w[i].dstBinding = i;
                    w[i].descriptorCount = 1;
                    w[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
                    w[i].pBufferInfo = &infos[i];
                }
                vkUpdateDescriptorSets(ctx_->device(), kBindings, w, 0, nullptr);
                sets_.emplace(key, set);
            }
            // Read-after-write, write-after-write and write-after-read need a barrier.
            bool hazard = false;
            for (const Range& r : reads)
                for (const Range& w : written) hazard = hazard || r.overlaps(w);
            for (const Range& r : writes) {
                for (const Range& w : written) hazard = hazard || r.overlaps(w);
                for (const Range& q : read) hazard = hazard || r.overlaps(q);
            }
            if (hazard) {
                VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
                mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT;
                mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
                vkCmdPipelineBarrier(cb_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, nullptr, 0,
                                     nullptr);
                written.clear();
                read.clear();
                ++barriers_;
            }
            written.insert(written.end(), writes.begin(), writes.end());
            read.insert(read.end(), reads.begin(), reads.end());
            if (*pipe != bound) {
                vkCmdBindPipeline(cb_, VK_PIPELINE_BIND_POINT_COMPUTE, *pipe);
                bound = *pipe;
            }
            vkCmdBindDescriptorSets(cb_, VK_PIPELINE_BIND_POINT_COMPUTE, ctx_->pipelines().layout(),
                                    0, 1, &set, 0, nullptr);
            vkCmdPushConstants(cb_, ctx_->pipelines().layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                               sizeof(Push), &x.pc);
            vkCmdDispatch(cb_, x.groups[0], x.groups[1], x.groups[2]);
            if (profiling_)
                vkCmdWriteTimestamp(cb_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, queries_, query++);
        }
        return Status::ok();
    }

    // The inverse frequencies freq_scale * base^(-2i/n_rot), i < n_rot/2, computed in double and
    // stored as float (hi, lo) pairs; one small buffer per parameter set, kept by the stream.
    Result<const VkBuf*> rope_table(const RopeParams& p) {
        const auto key = std::make_tuple(p.freq_base, p.freq_scale, p.n_rot);
        if (auto it = rope_tables_.find(key); it != rope_tables_.end()) return it->second.get();
        const int32_t half = p.n_rot / 2;
        std::vector<float> v(size_t(2 * std::max(half, 1)));
        for (int32_t i = 0; i < half; ++i) {
            const double f = double(p.freq_scale) *
                             std::pow(double(p.freq_base), -2.0 * double(i) / double(p.n_rot));
            const float hi = static_cast<float>(f);
            v[size_t(2 * i)] = hi;
            v[size_t(2 * i + 1)] = static_cast<float>(f - double(hi));
        }
        const size_t bytes = v.size() * sizeof(float);
        auto a = ctx_->allocate(bytes);
        if (!a) return a.status();
        auto buf = std::make_unique<VkBuf>(ctx_, *a, bytes, true);
        if (Status s = ctx_->upload(*a, 0, std::as_bytes(std::span(v))); !s) return s;
        const VkBuf* out = buf.get();
        rope_tables_.emplace(key, std::move(buf));
        return out;
    }

    // Grown on demand, kept across steps (a decode step then binds the same range each time).
    Result<const VkBuf*> scratch_buffer(size_t bytes) {
        if (scratch_ && scratch_->size() >= bytes) return scratch_.get();
        // Dispatches recorded earlier in this graph may name the old one: it goes at the next
        // compute, when nothing refers to it.
        if (scratch_) retired_.push_back(std::move(scratch_));
        const size_t size = std::max(bytes, size_t(1) << 20);
        auto a = ctx_->allocate(size);
        if (!a) return a.status();
        scratch_ = std::make_unique<VkBuf>(ctx_, *a, size, false);
        return scratch_.get();
    }

    // HEARTH_VULKAN_PROFILE=1: a timestamp after every dispatch; the time per kernel (longest
    // first) and the host's share of each step are printed to stderr when the stream goes (for
    // tuning, not for tests).
    void print_profile() const {
        if (host_.steps == 0) return;
        std::fprintf(stderr,
                     "vulkan profile: %llu steps, %.1f dispatches and %.1f barriers a step; host "
                     "ms a step: %.3f encoding and recording, %.3f submit and wait\n",
                     static_cast<unsigned long long>(host_.steps),
                     double(host_.dispatches) / double(host_.steps),
                     double(barriers_) / double(host_.steps), host_.record_ms / double(host_.steps),
                     host_.wait_ms / double(host_.steps));
        std::vector<std::pair<std::string, std::pair<double, int>>> rows(profile_.begin(),
                                                                         profile_.end());
        std::sort(rows.begin(), rows.end(),
                  [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
        double total = 0;
        for (const auto& [k, v] : rows) total += v.first;
        std::fprintf(stderr, "vulkan profile: %.3f ms of dispatches (GPU timestamps)\n", total);
        for (const auto& [k, v] : rows)
            std::fprintf(stderr, "vulkan profile: %-30s %6d dispatches %9.3f ms (%4.1f%%)\n",
                         k.c_str(), v.second, v.first, total > 0 ? 100 * v.first / total : 0.0);
    }

    using Clock = std::chrono::steady_clock;
    static double ms_between(Clock::time_point a, Clock::time_point b) {
        return std::chrono::duration<double, std::milli>(b - a).count();
    }
    struct HostTimes {
        uint64_t steps = 0, dispatches = 0;
        double record_ms = 0, wait_ms = 0;
    };
    HostTimes host_;

    std::shared_ptr<Context> ctx_;
    bool profiling_ = false;
    VkQueryPool queries_ = VK_NULL_HANDLE;
    std::map<std::string, std::pair<double, int>> profile_;  // kernel -> (ms, dispatches)
    std::unique_ptr<VkBuf> scratch_;
    std::unique_ptr<VkBuf> errors_;  // host-visible index-error words (report_index_error)
    std::vector<std::unique_ptr<VkBuf>> retired_;
    VkCommandPool pool_ = VK_NULL_HANDLE;
    VkCommandBuffer cb_ = VK_NULL_HANDLE;
    VkFence fence_ = VK_NULL_HANDLE;
    VkDescriptorPool dpool_ = VK_NULL_HANDLE;
    std::map<Key, VkDescriptorSet> sets_;
    uint64_t generation_ = 0;
    std::vector<Dispatch> dispatches_;
    std::map<std::tuple<float, float, int32_t>, std::unique_ptr<VkBuf>> rope_tables_;
    uint64_t barriers_ = 0;
};

}  // namespace

Result<std::unique_ptr<Stream>> make_stream(std::shared_ptr<Context> ctx) {
    auto s = std::make_unique<VkStream>(std::move(ctx));
    if (Status st = s->init(); !st) return st;
    return std::unique_ptr<Stream>(std::move(s));
}

}  // namespace hearth::backend::vk
