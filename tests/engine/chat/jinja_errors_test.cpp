// Error paths: every failure is a Result naming line and column, and limits stop runaway
// templates (deep recursion, huge loops, exploding strings) instead of crashing or hanging.
#include <gtest/gtest.h>

#include <string>

#include "chat/chat_template.h"
#include "template_test_util.h"

namespace hearth::chat {
namespace {

std::string parse_error(std::string_view source) {
    auto t = ChatTemplate::parse(source);
    return t ? std::string("(parsed)") : t.error_message();
}

std::string render_error(std::string_view source, const Limits& limits = {}) {
    auto t = ChatTemplate::parse(source, limits);
    if (!t) return "(parse error) " + t.error_message();
    auto r = t->render(test::unit_inputs());
    return r ? std::string("(rendered)") : r.error_message();
}

TEST(JinjaErrors, UnknownFilterIsRefusedAtParseTimeWithPosition) {
    // Jinja2 refuses unknown filters when compiling, even in a branch that never runs.
    EXPECT_EQ(parse_error("ok\n{% if false %}{{ x | nosuchfilter }}{% endif %}"),
              "line 2, column 22: no filter named 'nosuchfilter'");
    EXPECT_EQ(parse_error("{{ x is nosuchtest }}"), "line 1, column 6: no test named 'nosuchtest'");
}

TEST(JinjaErrors, SyntaxErrorsNameLineAndColumn) {
    EXPECT_EQ(parse_error("line one\n  {% if %}x{% endif %}"),
              "line 2, column 9: expected an expression, found '%}'");
    EXPECT_EQ(parse_error("{% for x in %}{% endfor %}"),
              "line 1, column 13: expected an expression, found '%}'");
    EXPECT_EQ(parse_error("{% if true %}never closed"), "line 1, column 26: missing {% endif %}");
    EXPECT_EQ(parse_error("text {{ 'unterminated }}"),
              "line 1, column 9: unterminated string literal");
    EXPECT_EQ(parse_error("{{ 1 +"), "line 1, column 1: unclosed expression (missing '}}')");
    EXPECT_EQ(parse_error("{# never closed"), "line 1, column 1: unclosed comment (missing '#}')");
    EXPECT_EQ(parse_error("{% frobnicate %}"), "line 1, column 4: unknown tag 'frobnicate'");
    EXPECT_EQ(parse_error("{% include 'other.jinja' %}"),
              "line 1, column 4: unsupported tag 'include'");
    EXPECT_EQ(parse_error("{{ a b }}"), "line 1, column 6: expected '}}', found 'b'");
    EXPECT_EQ(parse_error("{{ 1 $ 2 }}"), "line 1, column 6: unexpected character '$'");
    EXPECT_EQ(parse_error("{% endif %}"), "line 1, column 4: unknown tag 'endif'");
    // Columns count characters, not bytes.
    EXPECT_EQ(parse_error("ПРИВЕТ {{ ) }}"),
              "line 1, column 11: expected an expression, found ')'");
    // \r\n line ends count as one line break.
    EXPECT_EQ(parse_error("a\r\nb\r\n{{ ) }}"),
              "line 3, column 4: expected an expression, found ')'");
    // An open bracket hides the closing braces, as in Jinja2's lexer.
    EXPECT_EQ(parse_error("{{ ( }}"), "line 1, column 1: unclosed expression (missing '}}')");
}

TEST(JinjaErrors, RaiseExceptionCarriesTheTemplatesMessage) {
    EXPECT_EQ(render_error("{% if messages[0].role == 'system' %}\n"
                           "  {{ raise_exception('System role not supported') }}\n"
                           "{% endif %}"),
              "line 2, column 21: raise_exception: System role not supported");
}

TEST(JinjaErrors, RuntimeErrorsNameLineAndColumn) {
    EXPECT_EQ(render_error("{{ foo.bar }}"), "line 1, column 7: 'foo' is undefined");
    EXPECT_EQ(render_error("{{ foo['x'] }}"), "line 1, column 7: 'foo' is undefined");
    EXPECT_EQ(render_error("{{ 1 + 'a' }}"),
              "line 1, column 6: unsupported operand type(s) for +: 'int' and 'str'");
    EXPECT_EQ(render_error("{{ nothing + 1 }}"),
              "line 1, column 12: unsupported operand type(s) for +: 'NoneType' and 'int'");
    EXPECT_EQ(render_error("{{ 1 // 0 }}"), "line 1, column 6: integer division or modulo by zero");
    EXPECT_EQ(render_error("{{ 1 / 0 }}"), "line 1, column 6: division by zero");
    EXPECT_EQ(render_error("{{ n < 'a' }}"),
              "line 1, column 4: '<' not supported between instances of 'int' and 'str'");
    EXPECT_EQ(render_error("{{ nosuch() }}"), "line 1, column 10: 'nosuch' is undefined");
    EXPECT_EQ(render_error("{{ n() }}"), "line 1, column 5: 'int' object is not callable");
    EXPECT_EQ(render_error("{% for x in n %}{% endfor %}"),
              "line 1, column 13: 'int' object is not iterable");
    EXPECT_EQ(render_error("{% set a, b = [1] %}"),
              "line 1, column 1: expected 2 values to unpack, got 1");
    EXPECT_EQ(render_error("{% set d.x = 1 %}"),
              "line 1, column 1: cannot assign attribute on a non-namespace object ('d')");
    EXPECT_EQ(render_error("{{ 'a' + 'b' | tojson(indent=[1]) }}"),
              "line 1, column 16: tojson: indent must be an integer or a string");
    EXPECT_EQ(render_error("{{ undefined_thing | tojson }}"),
              "line 1, column 22: tojson: Object of type Undefined is not JSON serializable");
    EXPECT_EQ(render_error("{{ 9223372036854775807 + 1 }}"), "line 1, column 24: integer overflow");
}

TEST(JinjaErrors, ListsAreImmutableAsInHfSandbox) {
    EXPECT_EQ(render_error("{% set x = [] %}{{ x.append(1) }}"),
              "line 1, column 28: access to attribute 'append' of 'list' object is unsafe (lists "
              "are immutable in chat templates)");
}

TEST(JinjaErrors, NamespaceCannotHoldItself) {
    EXPECT_EQ(render_error("{% set ns = namespace() %}{% set ns.me = ns %}"),
              "line 1, column 27: cannot store a namespace, loop or macro in a namespace "
              "attribute");
}

TEST(JinjaErrors, UnboundedRecursionHitsTheCallDepthLimit) {
    EXPECT_EQ(render_error("{% macro r(n) %}{{ r(n + 1) }}{% endmacro %}\n{{ r(0) }}"),
              "line 1, column 21: call depth limit exceeded (64 calls)");
}

TEST(JinjaErrors, HugeLoopsHitTheIterationLimit) {
    EXPECT_EQ(render_error("{% for i in range(1000000) %}{% for j in range(1000000) %}"
                           "{% endfor %}{% endfor %}"),
              "line 1, column 1: loop iteration limit exceeded (1000000 iterations)");
    // range() refuses before allocating anything.
    EXPECT_EQ(render_error("{{ range(1000000000000) | length }}"),
              "line 1, column 9: loop iteration limit exceeded (1000000 iterations)");
    Limits small;
    small.max_loop_iterations = 10;
    EXPECT_EQ(render_error(
                  "{% for m in messages %}{% for c in m.content %}{% endfor %}{% endfor %}", small),
              "line 1, column 24: loop iteration limit exceeded (10 iterations)");
}

TEST(JinjaErrors, ExplodingOutputHitsTheSizeLimit) {
    EXPECT_EQ(render_error("{% set ns = namespace(s='xx') %}{% for i in range(64) %}"
                           "{% set ns.s = ns.s + ns.s %}{% endfor %}"),
              "line 1, column 76: output size limit exceeded (16777216 bytes)");
    EXPECT_EQ(render_error("{{ 'x' * 100000000000 }}"),
              "line 1, column 8: output size limit exceeded (16777216 bytes)");
    Limits small;
    small.max_output_bytes = 100;
    EXPECT_EQ(render_error("{% for i in range(200) %}x{% endfor %}", small),
              "line 1, column 26: output size limit exceeded (100 bytes)");
}

TEST(JinjaErrors, HugeListsHitTheElementLimit) {
    EXPECT_EQ(render_error("{{ ([1, 2] * 600000) | length }}"),
              "line 1, column 12: list size limit exceeded (1000000 elements)");
    Limits small;
    small.max_list_elements = 1000;
    small.max_output_bytes = 100000;
    EXPECT_EQ(render_error("{% set s = 'ab' * 600 %}{{ s | list | length }}", small),
              "line 1, column 32: list size limit exceeded (1000 elements)");
    EXPECT_EQ(render_error("{% for c in 'ab' * 600 %}{% endfor %}", small),
              "line 1, column 1: list size limit exceeded (1000 elements)");
    EXPECT_EQ(render_error("{% set s = 'a,' * 1000 %}{{ s.split(',') | length }}", small),
              "line 1, column 36: list size limit exceeded (1000 elements)");
    EXPECT_EQ(render_error("{{ ('a,' * 999).split(',') | length }}", small), "(rendered)");
    // Growth inside one replace() stops at the size limit instead of allocating gigabytes.
    EXPECT_EQ(
        render_error("{% set s = 'x' * 10000 %}{{ s.replace('x', 'y' * 1000) | length }}", small),
        "line 1, column 38: output size limit exceeded (100000 bytes)");
}

TEST(JinjaErrors, HeavyWorkPerIterationHitsTheWorkLimit) {
    // Each iteration copies a big string without printing it; the total is bounded.
    Limits small;
    small.max_work_bytes = 10'000'000;
    EXPECT_EQ(render_error("{% set big = 'x' * 100000 %}{% for i in range(1000) %}"
                           "{% set y = big ~ '' %}{% endfor %}",
                           small),
              "line 1, column 70: work limit exceeded (10000000 bytes built in one render)");
    EXPECT_EQ(render_error("{% set big = 'x' * 100000 %}{% for i in range(1000) %}"
                           "{% set y = big | upper %}{% endfor %}",
                           small),
              "line 1, column 72: work limit exceeded (10000000 bytes built in one render)");
    EXPECT_EQ(render_error("{% set big = range(10000) | list %}{% for i in range(1000) %}"
                           "{% set y = big | first %}{% endfor %}",
                           small),
              "line 1, column 79: work limit exceeded (10000000 bytes built in one render)");
    // Splitting a string into characters costs an element each, not just its bytes.
    EXPECT_EQ(render_error("{{ ('x' * 50000) | join(',') | length }}", small),
              "line 1, column 20: work limit exceeded (10000000 bytes built in one render)");
    EXPECT_EQ(render_error("{{ ('x' * 30000) | join(',') | length }}", small), "(rendered)");
    // An empty string repeated a huge number of times is instant, not a hang.
    EXPECT_EQ(render_error("{{ ('' * 1000000000000000) | length }}"), "(rendered)");
}

TEST(JinjaErrors, DeepNestingIsRefusedNotOverflowed) {
    std::string parens = "{{ " + std::string(500, '(') + "1" + std::string(500, ')') + " }}";
    EXPECT_NE(parse_error(parens).find("template nested too deeply"), std::string::npos);
    std::string chain = "{{ 1";
    for (int i = 0; i < 2000; ++i) chain += " + 1";
    chain += " }}";
    EXPECT_NE(parse_error(chain).find("expression nested too deeply"), std::string::npos);
    std::string ifs;
    for (int i = 0; i < 300; ++i) ifs += "{% if true %}";
    EXPECT_NE(parse_error(ifs).find("template nested too deeply"), std::string::npos);
    // Values built by a loop cannot nest without bound either.
    EXPECT_EQ(render_error("{% set ns = namespace(x=[]) %}{% for i in range(1000) %}"
                           "{% set ns.x = [ns.x] %}{% endfor %}"),
              "line 1, column 57: value nested too deeply");
}

TEST(JinjaErrors, RecursionLimitIsConfigurable) {
    Limits tight;
    tight.max_recursion_depth = 5;
    EXPECT_EQ(render_error("{{ ((((((1)))))) + [[[[[1]]]]] }}", tight),
              "line 1, column 23: recursion limit exceeded (5 levels)");
    EXPECT_NE(render_error("{% if true %}{% if true %}{% if true %}{% if true %}{% if true %}"
                           "{% if true %}x{% endif %}{% endif %}{% endif %}{% endif %}{% endif %}"
                           "{% endif %}",
                           tight)
                  .find("recursion limit exceeded (5 levels)"),
              std::string::npos);
}

}  // namespace
}  // namespace hearth::chat
