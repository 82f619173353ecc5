// The syntax tree of a template. Nodes own their children; `offset` points into the source
// for error messages.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "chat/value.h"

namespace hearth::chat::ast {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

enum class ExprKind {
    Literal,      // value
    Name,         // name
    List,         // items
    Tuple,        // items
    Dict,         // pairs
    Attr,         // object.name
    Item,         // object[index]
    Slice,        // object[start:stop:step] (absent parts are null)
    Call,         // callee(args, kwargs)
    Filter,       // object | name(args, kwargs)
    Test,         // object is [not] name(args)
    Not,          // not object
    Neg,          // -object
    Pos,          // +object
    Binary,       // left op right (arithmetic, ~, and, or)
    Compare,      // object op1 a op2 b ... (chained, ==, !=, <, <=, >, >=, in, not in)
    Conditional,  // then if cond else otherwise
};

struct Expr {
    ExprKind kind;
    size_t offset = 0;
    Value value;                 // Literal
    std::string name;            // Name, Attr, Filter, Test; Binary/Compare operator
    ExprPtr object;              // Attr, Item, Slice, Call (callee), Filter, Test, unary
    ExprPtr a, b, c;             // Item (a); Slice (a,b,c); Binary (a,b); Conditional
    std::vector<ExprPtr> items;  // List, Tuple, Call/Filter/Test positional args
    std::vector<std::pair<std::string, ExprPtr>> kwargs;  // Call, Filter, Test
    std::vector<std::pair<ExprPtr, ExprPtr>> pairs;       // Dict
    std::vector<std::pair<std::string, ExprPtr>> ops;     // Compare: (operator, operand)
    bool negated = false;                                 // Test: `is not`
    int height = 1;  // longest path to a leaf (bounds evaluator recursion)

    Expr(ExprKind k, size_t off) : kind(k), offset(off) {}
};

enum class StmtKind {
    Text,         // literal template text
    Emit,         // {{ expr }}
    If,           // branches (cond, body)..., else body
    For,          // for targets in expr [if cond] ... [else] ...
    Set,          // set target = expr   (target: names, or ns.attr)
    SetBlock,     // set name %}...{% endset
    Macro,        // macro name(params) ... endmacro
    CallBlock,    // call[(params)] expr ... endcall
    FilterBlock,  // filter name(args) | ... endfilter
    Break,
    Continue,
    Block,  // a body rendered in place (generation, block)
};

struct Param {
    std::string name;
    ExprPtr default_value;  // may be null
};

struct Stmt {
    StmtKind kind;
    size_t offset = 0;
    std::string text;                  // Text
    ExprPtr expr;                      // Emit, For (iterable), Set, CallBlock (call), FilterBlock
    ExprPtr cond;                      // For filter
    std::vector<std::string> targets;  // For / Set / SetBlock names
    std::string attr;                  // Set: ns.attr target when non-empty
    std::vector<std::pair<ExprPtr, Body>> branches;  // If
    Body body;                  // For, SetBlock, Macro, CallBlock, FilterBlock, Block
    Body else_body;             // If, For
    std::string name;           // Macro
    std::vector<Param> params;  // Macro, CallBlock (caller's parameters)
    bool recursive = false;     // For: `recursive` loops

    Stmt(StmtKind k, size_t off) : kind(k), offset(off) {}
};

}  // namespace hearth::chat::ast
