// The engine's C++ API for the CLI and the desktop app: load a model, open a generation
// context, feed text or tokens, generate with a streaming callback, cancel. No exceptions:
// every failure is a Status / Result with a message a person can act on. A Model may be shared
// by several contexts; one Context is used by one thread at a time (cancel() from any thread).
// Context keeps one sequence in a contiguous cache; hearth/session.h has stateful chat sessions
// on the shared paged KV cache (prefix reuse across turns and chats, overflow, save/restore).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hearth/json_schema.h"
#include "hearth/result.h"
#include "quant/kv_type.h"

namespace hearth {

struct LoadProgress {
    double fraction = 0;  // 0..1
    uint64_t bytes_done = 0;
    uint64_t bytes_total = 0;
    // "converting" while INT4 weights are made (bytes: source tensor bytes), then "loading",
    // then "uploading" while weights are copied to an accelerator (bytes: uploaded so far),
    // then "preparing" while the CPU packs its matrices for its kernels (bytes: matrix bytes
    // gone through).
    std::string phase = "loading";
};

// LoadOptions::gpu_layers: as many as fit, or every layer.
constexpr int64_t kGpuLayersAuto = -1;
constexpr int64_t kGpuLayersAll = int64_t(1) << 30;

// KV cache element type (quant/kv_type.h): F16 (default), Q8_0 / Q4_0, F32.
using quant::kv_type_name;  // "f16", "q8_0", ...
using quant::KvType;
Result<KvType> parse_kv_type(std::string_view name);  // the names above, with an error to show

struct LoadOptions {
    // "auto" (the best device: CUDA, then a discrete, then an integrated Vulkan GPU, else the
    // CPU), a backend ("cpu", "vulkan", "cuda", "ref") or a device ("vulkan1").
    std::string backend = "auto";
    // Layers on the accelerator (layers [0, n); the rest run on the CPU): kGpuLayersAuto puts
    // as many as fit in its free memory after the KV cache and compute buffers for n_ctx, with a
    // safety margin; a number or kGpuLayersAll overrides. Ignored when the backend is the CPU.
    int64_t gpu_layers = kGpuLayersAuto;
    // The context and KV type the fit check and the automatic layer count plan for (0: the
    // model's training context).
    int64_t n_ctx = 0;
    KvType kv_type = KvType::F16;
    // Load even when the fit check says the model needs more memory than is available.
    bool force = false;
    // Contexts longer than the model's training context (<arch>.context_length): by default
    // every context, KV store and scheduler of this model (and the fit check) is clamped to
    // it; true keeps the length asked for (quality past the training length is not assured).
    bool ctx_beyond_training = false;
    // Called as the weights are brought in; may run often.
    std::function<void(const LoadProgress&)> on_progress;
    // Set to true from any thread to abandon the load (load() then fails with "cancelled").
    const std::atomic<bool>* cancel = nullptr;
    // INT4 weights (W4A16): a model whose attention/FFN matrices are wider than 5 bits per
    // weight (F32, F16, BF16, Q8_0, Q5_*, Q6_K) is converted to 4-bit (Q4_0, activation-aware
    // scales) on first load and cached under int4_cache_dir/int4; later loads reuse the cache.
    // Files already at <= 5 bits load unchanged.
    bool int4_weights = false;
    std::filesystem::path int4_cache_dir;  // empty: $XDG_CACHE_HOME/hearth or ~/.cache/hearth
    uint64_t int4_cache_limit_bytes = uint64_t(20) << 30;  // LRU eviction past this; 0: none
};

// The context length a Context, KvStore or Scheduler gets when `requested` is asked for: 0 is
// the model's training context (4096 when the file does not say); a longer request is clamped
// to the training context unless beyond_training. `note` says what happened in a sentence
// (empty when the request was used as it is and within the training context).
struct ContextLength {
    int64_t n_ctx = 0;
    bool clamped = false;          // n_ctx is the training context, shorter than requested
    bool beyond_training = false;  // n_ctx is the request, longer than the training context
    std::string note;
};
ContextLength resolve_context_length(int64_t requested, int64_t n_ctx_train, bool beyond_training);

// Deletes every cached INT4 conversion under cache_dir (empty: the default). Returns the bytes
// freed.
uint64_t clear_int4_cache(const std::filesystem::path& cache_dir = {});

struct BackendReport {
    std::string name;  // a device ("cuda0", "vulkan1", "ref", "cpu") or a skipped backend
    bool used = false;
    std::string reason;  // why it was not used
};

// The devices and backends the registry finds on this machine (plugins loaded at run time),
// the chosen automatic device first; each unused one with the reason. For About and --version.
std::vector<BackendReport> available_backends();

struct ModelInfo {
    std::string path;
    std::string name;          // general.name, else the file name
    std::string architecture;  // "llama", "qwen2", "qwen3", "qwen3moe", "gemma2", ...
    uint64_t file_bytes = 0;
    uint64_t n_params = 0;
    // Mixture of experts: experts per layer and how many a token uses (0 for dense models);
    // n_params_active counts only the used experts (n_params for a dense model).
    int64_t n_expert = 0, n_expert_used = 0;
    uint64_t n_params_active = 0;
    int64_t n_vocab = 0, n_embd = 0, n_layer = 0, n_head = 0, n_head_kv = 0, n_ff = 0;
    int64_t n_ctx_train = 0;
    // The context the load planned for (LoadOptions::n_ctx after resolve_context_length), and
    // the note when it differs from the request or exceeds the training context.
    int64_t n_ctx = 0;
    std::string context_note;
    bool ctx_beyond_training = false;  // LoadOptions::ctx_beyond_training
    std::string weight_types;          // "F32", "Q4_K+Q6_K", ...
    std::string device;                // description of the device in use
    std::vector<BackendReport> backends;
    // CPU+accelerator split: layers [0, gpu_layers) run on accel_device, the rest on the CPU;
    // placement_notes say why fewer layers than asked for went there.
    int64_t gpu_layers = 0;
    std::string accel_device;
    bool output_on_accel = false;
    std::vector<std::string> placement_notes;
    uint64_t uploaded_bytes = 0;
    // Bytes of the copies made at load for the CPU's kernels (packed matrices; 0 when its
    // kernels read the file's format, e.g. HEARTH_CPU_REPACK=0 or F32 weights).
    uint64_t prepared_bytes = 0;
    bool has_chat_template = false;
    // INT4 weights: true when the weights in use were converted (now or from the cache);
    // int4_source_types is the source's linear-layer type ("F16"), int4_cache_hit whether this
    // load reused the cache (no conversion ran), source_path the file the user chose.
    bool int4_converted = false;
    bool int4_cache_hit = false;
    std::string int4_source_types;
    std::string source_path;
};

struct ContextOptions {
    // 0: the model's training context; longer than it: clamped to it unless the model was
    // loaded with ctx_beyond_training (resolve_context_length). n_ctx() says what it got.
    int64_t n_ctx = 0;
    KvType kv_type = KvType::F16;
    int n_threads = 0;      // 0: all hardware threads
    int64_t n_batch = 256;  // most prompt tokens per forward step
};

struct SamplingParams {
    float temperature = 0.8f;  // <= 0: greedy
    int32_t top_k = 40;        // <= 0: off
    float top_p = 0.95f;       // >= 1: off
    float min_p = 0.05f;       // <= 0: off
    float repeat_penalty = 1.0f;
    float frequency_penalty = 0.0f;
    float presence_penalty = 0.0f;
    int32_t penalty_last_n = 64;  // window of the penalties; -1: whole context
    uint64_t seed = 0;
    // OpenAI's logit_bias: (token, bias) pairs added to those tokens' logits before any other
    // step (-100 all but bans a token, +100 all but forces it).
    std::vector<std::pair<int32_t, float>> logit_bias = {};
};

// One request's stop signal: whoever starts a request makes a new one and may set it from any
// thread at any time. The engine only reads it (never resets it), so a stop raised before the
// request reaches the engine is not lost.
using CancelToken = std::shared_ptr<std::atomic<bool>>;

enum class StopReason { MaxTokens, EndOfGeneration, StopString, ContextFull, Cancelled };
const char* stop_reason_name(StopReason r);

// What a request's reply must be.
enum class OutputFormat {
    Text,
    // One JSON object (OpenAI's response_format "json_object"): each token is drawn among those
    // that keep the reply the start of a valid object (strict RFC 8259, valid UTF-8 strings;
    // '{' first, at most 64 levels deep, runs of whitespace of at most 32 bytes and one line
    // break), and the request ends with EndOfGeneration when the object closes. A reply cut
    // short by max_tokens, a stop string or cancellation is an unfinished object.
    JsonObject,
    // The same, held to the request's json_schema as well (hearth/json_schema.h; OpenAI's
    // response_format "json_schema"), nested at most 16 levels.
    JsonSchema,
};

struct GenerateOptions {
    int32_t max_tokens = 256;
    SamplingParams sampling;
    std::vector<std::string> stop_strings;  // text is cut before the first match
    bool stop_at_end_of_generation = true;  // EOS, EOT, <|im_end|>, <|eot_id|> ...
    // JSON mode (see OutputFormat; the vocabulary's trie is built for each call: ~50 ms for a
    // 152k vocabulary).
    OutputFormat format = OutputFormat::Text;
    std::shared_ptr<const JsonSchema> json_schema;  // OutputFormat::JsonSchema
    // Streaming: each generated token with the text it completes (may be empty while a UTF-8
    // character or a possible stop string is incomplete). Return false to stop. A last call
    // with token -1 may deliver held-back text at the end.
    std::function<bool(int32_t token, std::string_view text_delta)> on_token;
};

struct GenerateResult {
    std::vector<int32_t> tokens;
    std::string text;
    StopReason reason = StopReason::MaxTokens;
};

struct GenerationStats {
    int64_t prompt_tokens = 0;  // evaluated by feed() since the last reset_stats()
    int64_t generated_tokens = 0;
    double prompt_seconds = 0;
    double generate_seconds = 0;
    double time_to_first_token = 0;  // from the start of generate() to the first token
    uint64_t tokens_computed = 0;    // forward-pass tokens since the context was made
    double prompt_tokens_per_second() const;
    double generate_tokens_per_second() const;
};

class Model {
public:
    static Result<std::shared_ptr<Model>> load(const std::filesystem::path& path,
                                               const LoadOptions& options = {});
    ~Model();
    Model(const Model&) = delete;
    Model& operator=(const Model&) = delete;

    const ModelInfo& info() const;
    // add_special: BOS/EOS by the model's convention. parse_special: control tokens written
    // in the text become tokens (template text); off for user text.
    Result<std::vector<int32_t>> tokenize(std::string_view text, bool add_special,
                                          bool parse_special) const;
    std::string detokenize(std::span<const int32_t> tokens) const;
    std::string token_piece(int32_t token) const;
    bool is_end_of_generation(int32_t token) const;
    std::string chat_template() const;  // empty when the file has none

    struct Impl;

private:
    friend class Context;
    friend class KvStore;
    friend class Session;
    friend struct ModelAccess;  // engine-internal code (runtime/model_impl.h)
    explicit Model(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

class Context {
public:
    static Result<std::unique_ptr<Context>> create(std::shared_ptr<const Model> model,
                                                   const ContextOptions& options = {});
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    int64_t n_ctx() const;
    int64_t n_past() const;  // tokens in the cache
    std::span<const int32_t> tokens() const;

    // Evaluates tokens after those already in the cache (the prompt).
    Status feed(std::span<const int32_t> tokens);
    Status feed_text(std::string_view text, bool add_special = true, bool parse_special = false);
    // Logits after the last fed or generated token ([n_vocab]); empty before any feed.
    std::span<const float> logits() const;

    Result<GenerateResult> generate(const GenerateOptions& options);

    // Thread-safe: the current feed/generate stops before its next step.
    void cancel();
    // Drops all cached tokens (keeps allocations).
    void reset();
    // Keeps only the first n tokens (rewind).
    Status truncate(int64_t n);

    const GenerationStats& stats() const;
    void reset_stats();

private:
    struct Impl;
    explicit Context(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace hearth
