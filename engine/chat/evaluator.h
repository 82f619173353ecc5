// Runs a parsed template against a context and produces tainted text. Inside the evaluator
// failures are thrown as EvalError and caught by ChatTemplate::render, so no exception
// leaves the engine API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "chat/ast.h"
#include "chat/lexer.h"
#include "chat/value.h"

namespace hearth::chat {

// Bounds that keep a hostile or broken template from hanging or exhausting memory.
struct Limits {
    size_t max_output_bytes = size_t{16} << 20;  // the rendered prompt and any one string
    uint64_t max_loop_iterations = 1'000'000;    // all loops of one render together
    int max_recursion_depth = 200;               // nested evaluation (expressions, blocks)
    int max_call_depth = 64;                     // nested macro calls
    int max_value_depth = 128;                   // nesting of lists/dicts a template builds
    size_t max_list_elements = 1'000'000;        // any one list (or a string split into chars)
    // Bytes of strings and lists built during one render, all together: bounds the time a
    // template can spend (e.g. copying a big string in every loop iteration).
    uint64_t max_work_bytes = uint64_t{4} << 30;
};

struct EvalError {
    size_t offset;
    std::string message;
};

struct CallArgs {
    std::vector<Value> positional;
    std::vector<std::pair<std::string, Value>> kwargs;
    size_t offset = 0;

    // Positional argument i, else keyword `name`, else nullptr.
    const Value* get(size_t i, std::string_view name) const;
    const Value* kwarg(std::string_view name) const;
};

class Evaluator {
public:
    Evaluator(const SourceMap& map, const Limits& limits, std::optional<std::time_t> now);

    // Renders body with `context` (a dict) as the template's variables.
    Text render(const ast::Body& body, const Value& context);

    [[noreturn]] void fail(size_t offset, std::string message) const;
    // Calls a template-callable value (macro, builtin, caller).
    Value call(const Value& fn, CallArgs& args);
    // Throws when a string or list would exceed the size limits.
    void check_size(size_t bytes, size_t offset) const;
    void check_depth(const Value& v, size_t offset) const;
    // Throws when a list of n elements would exceed the element limit.
    void check_elements(size_t n, size_t offset) const;
    // Counts bytes a render builds against max_work_bytes.
    void charge(uint64_t bytes, size_t offset);
    // Each element a render creates (a list item, a character of a split string) is an
    // allocation, so it counts as kWorkPerElement bytes: splitting a 1 MB string into characters
    // twice (a fuzzed template) took 1.6 s under ASan while it counted as only ~64 MB of work.
    static constexpr uint64_t kWorkPerElement = 256;
    void charge_list(size_t elements, size_t offset) {
        charge(uint64_t(elements) * kWorkPerElement, offset);
    }
    // Charges the string or list a filter or method returned.
    void charge_result(const Value& v, size_t offset);
    // Counts one loop iteration (or one element a builtin produces) against the limit.
    void count_iterations(uint64_t n, size_t offset);
    const Limits& limits() const { return limits_; }
    std::time_t now() const;

    Value eval(const ast::Expr& e);
    // Jinja2's getattr / getitem with Python's fallbacks.
    Value get_attr(const Value& obj, const std::string& name, size_t offset);
    Value get_item(const Value& obj, const Value& key, size_t offset);
    // a <op> b for + - * / // % ** with Python's types and the size limits.
    Value arithmetic(const std::string& op, const Value& a, const Value& b, size_t offset);

private:
    struct Scope {
        std::vector<std::pair<std::string, Value>> vars;
        Scope* parent = nullptr;
        Value* find(const std::string& name);
        void set(const std::string& name, Value v);
    };
    enum class Flow { Normal, Break, Continue };

    struct DepthGuard {
        Evaluator& ev;
        DepthGuard(Evaluator& e, size_t offset);
        ~DepthGuard() { --ev.depth_; }
    };

    Flow exec_body(const ast::Body& body);
    Flow exec(const ast::Stmt& s);
    void exec_for(const ast::Stmt& s);
    void exec_set(const ast::Stmt& s);
    void exec_macro(const ast::Stmt& s);
    void exec_call_block(const ast::Stmt& s);
    Text capture(const ast::Body& body, Scope& scope);
    Value invoke_macro(const ast::Stmt& macro, CallArgs& args, Value caller);
    void write_output(const Text& t, size_t offset);
    Value lookup(const std::string& name, size_t offset);
    void assign_targets(Scope& scope, const std::vector<std::string>& names, const Value& v,
                        size_t offset);

    Value eval_binary(const ast::Expr& e);
    Value eval_compare(const ast::Expr& e);
    Value eval_call(const ast::Expr& e);
    Value eval_filter(const ast::Expr& e, const Value* block_input);
    Value eval_slice(const ast::Expr& e);
    CallArgs eval_args(const ast::Expr& e);

    const SourceMap& map_;
    Limits limits_;
    std::optional<std::time_t> now_;
    Scope* root_ = nullptr;
    Scope* scope_ = nullptr;
    std::vector<Text*> out_;
    int depth_ = 0;
    int call_depth_ = 0;
    uint64_t iterations_ = 0;
    uint64_t work_ = 0;
};

}  // namespace hearth::chat
