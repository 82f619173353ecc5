// The values a chat template computes with, modelled on the Python objects Jinja2 sees:
// undefined, None, bool, int, float, str, list/tuple, dict (insertion-ordered), callables.
// Strings carry which of their bytes came from message contents ("input"), so the caller can
// tokenize those bytes as plain text and never as control tokens.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hearth::chat {

// A byte range [begin, end) of a Text that came from user input.
struct InputSpan {
    size_t begin = 0;
    size_t end = 0;
};

// A UTF-8 string plus the sorted, disjoint byte ranges that came from input.
struct Text {
    std::string str;
    std::vector<InputSpan> input;

    Text() = default;
    explicit Text(std::string s, bool from_input = false);

    void append(const Text& other);
    void append(std::string_view s, bool from_input = false);
    // Bytes [pos, pos+n) with their taint.
    Text substr(size_t pos, size_t n) const;
    // Whether any byte of [begin, end) is input.
    bool any_input(size_t begin, size_t end) const;
    bool any_input() const { return !input.empty(); }
};

class Value;
class Evaluator;
struct CallArgs;

using ValueList = std::vector<Value>;

struct ListObj {
    ValueList items;
    int depth = 1;       // nesting depth of lists/dicts inside, to bound recursion
    bool tuple = false;  // only changes how it prints: (a, b) versus [a, b]
};

struct LoopState;

struct DictObj {
    std::vector<std::pair<Value, Value>> items;  // insertion order, as Python dicts
    bool is_namespace = false;                   // namespace(): attributes may be assigned
    bool is_loop = false;                        // the `loop` variable of a for loop
    std::shared_ptr<LoopState> loop_state;       // loop.changed() memory, shared by iterations
    int depth = 1;                               // nesting depth, as ListObj::depth

    const Value* find(const Value& key) const;
    const Value* find(std::string_view key) const;
    void set(Value key, Value value);
};

// A function callable from a template (builtins, macros, caller()).
using NativeFn = std::function<Value(Evaluator&, CallArgs&)>;
struct Callable {
    std::string name;
    NativeFn fn;
};

class Value {
public:
    enum class Kind : uint8_t { Undefined, None, Bool, Int, Float, String, List, Dict, Callable };

    Value() = default;  // undefined
    static Value undefined(std::string name = {});
    static Value none();
    static Value boolean(bool b);
    static Value integer(int64_t i);
    static Value number(double d);
    static Value string(Text t);
    static Value string(std::string s, bool from_input = false);
    static Value list(ValueList items, bool tuple = false);
    static Value dict();
    static Value dict(std::shared_ptr<DictObj> d);
    static Value callable(std::string name, NativeFn fn);

    Kind kind() const { return kind_; }
    bool is_undefined() const { return kind_ == Kind::Undefined; }
    bool is_none() const { return kind_ == Kind::None; }
    bool is_bool() const { return kind_ == Kind::Bool; }
    bool is_int() const { return kind_ == Kind::Int; }
    bool is_float() const { return kind_ == Kind::Float; }
    bool is_number() const { return kind_ == Kind::Int || kind_ == Kind::Float; }
    bool is_string() const { return kind_ == Kind::String; }
    bool is_list() const { return kind_ == Kind::List; }
    bool is_dict() const { return kind_ == Kind::Dict; }
    bool is_callable() const { return kind_ == Kind::Callable; }

    bool as_bool() const { return b_; }
    int64_t as_int() const { return kind_ == Kind::Bool ? (b_ ? 1 : 0) : i_; }
    double as_double() const { return kind_ == Kind::Float ? f_ : static_cast<double>(as_int()); }
    const Text& text() const { return *s_; }
    const std::string& str() const { return s_->str; }
    const ValueList& items() const { return l_->items; }
    bool is_tuple() const { return l_->tuple; }
    int list_depth() const { return l_->depth; }
    const DictObj& dict_obj() const { return *d_; }
    DictObj& mutable_dict() const { return *d_; }
    const std::shared_ptr<DictObj>& dict_ptr() const { return d_; }
    const Callable& callable_obj() const { return *c_; }
    // The name an undefined value was looked up by (for error messages).
    const std::string& undefined_name() const;

    // Convenience for building dicts from C++.
    void set(std::string key, Value v);
    const Value* get(std::string_view key) const;

    // Python truthiness.
    bool truthy() const;
    // Python ==, deep for lists and dicts; 1 == 1.0 == True.
    bool equals(const Value& other) const;

private:
    Kind kind_ = Kind::Undefined;
    bool b_ = false;
    int64_t i_ = 0;
    double f_ = 0;
    std::shared_ptr<const Text> s_;  // strings, and the name of an undefined value
    std::shared_ptr<ListObj> l_;
    std::shared_ptr<DictObj> d_;
    std::shared_ptr<const Callable> c_;
};

// What loop.changed(*values) remembers across the iterations of one for loop.
struct LoopState {
    bool changed_called = false;
    ValueList changed_last;
};

// How deeply lists and dicts nest inside v (0 for scalars).
int nesting(const Value& v);
// Whether any string inside v (keys and items included) came from input.
bool contains_input(const Value& v);

// Python str(x): strings as is (keeping taint), everything else as Python prints it.
Text to_text(const Value& v);
// Python repr(x), e.g. 'it\'s' -> "it's", {'a': [1, None]}.
std::string repr(const Value& v);
// Python repr of a float (shortest round-trip, "1.0", "1e+16", "inf", "nan").
std::string float_repr(double d);
// The options of Python's json.dumps that HF's tojson filter passes on.
struct JsonStyle {
    std::optional<std::string> indent;  // none: one line; else newline + indent per level
    std::string item_separator = ", ";  // json.dumps: ", " without indent, "," with one
    std::string key_separator = ": ";
    bool sort_keys = false;
    bool ensure_ascii = false;    // HF's default: non-ASCII text is written as is
    size_t max_bytes = SIZE_MAX;  // stop (with an error) once the text passes this size
};
// json.dumps(v, **style). Returns false (and leaves a message in error) for values JSON
// cannot hold.
bool to_json(const Value& v, const JsonStyle& style, std::string& out, std::string& error);
// The type name Python would print in an error ("str", "int", "dict", ...).
std::string_view type_name(const Value& v);

}  // namespace hearth::chat
