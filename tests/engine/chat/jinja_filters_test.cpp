// Filters, tests and methods, against Python Jinja2 3.1 with HF's settings (HF's tojson).
#include <gtest/gtest.h>

#include "template_test_util.h"

namespace hearth::chat {
namespace {

using test::Case;

const Case kFilterCases[] = {
    {"[{{ s|trim }}] [{{ 'xxhixx'|trim('x') }}] [{{ s|upper }}] [{{ s|lower }}] [{{ 'hELLO "
     "wORLD'|capitalize }}] [{{ 'hello big-world (x)'|title }}]",
     "[Hello World] [hi] [  HELLO WORLD  ] [  hello world  ] [Hello world] [Hello Big-World (X)]"},
    {"{{ uni|upper }} {{ uni|lower }} {{ uni|length }} {{ nums|length }} {{ d|length }} {{ "
     "undefined_v|length }} {{ nums|count }}",
     "HÉLLO WÖRLD ПРИВЕТ héllo wörld привет 18 3 2 0 3"},
    {"{{ tools|tojson }}",
     "[{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"description\": \"Get "
     "the weather\", \"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": "
     "\"string\"}}, \"required\": [\"city\"]}}}]"},
    {"{{ tools[0].function|tojson(indent=2) }}",
     "{\n  \"name\": \"get_weather\",\n  \"description\": \"Get the weather\",\n  \"parameters\": "
     "{\n    \"type\": \"object\",\n    \"properties\": {\n      \"city\": {\n        \"type\": "
     "\"string\"\n      }\n    },\n    \"required\": [\n      \"city\"\n    ]\n  }\n}"},
    {"{{ d|tojson(sort_keys=true) }} {{ [1.5, 2.0, none, true, 'ü\"\\\\\\n\\t'] | tojson }} {{ "
     "{}|tojson }} {{ []|tojson(indent=4) }}",
     "{\"a\": 2, \"b\": 1} [1.5, 2.0, null, true, \"ü\\\"\\\\\\n\\t\"] {} []"},
    {"{{ nums|join(', ') }} {{ users|join('|', attribute='name') }} {{ 'abc'|join('.') }} {{ "
     "nums|join }}",
     "3, 1, 2 ann|bob|cy a.b.c 312"},
    {"{{ 'a-b-c'|replace('-', '+') }} {{ 'aaa'|replace('a', 'b', 2) }} {{ 'ab'|replace('', '.') }}",
     "a+b+c bba .a.b."},
    {"[{{ undefined_v|default('dflt') }}] [{{ nothing|default('dflt') }}] [{{ ''|default('dflt', "
     "true) }}] [{{ n|d(9) }}]",
     "[dflt] [None] [dflt] [3]"},
    {"{{ nums|first }} {{ nums|last }} {{ 'xyz'|first }} {{ 'xyz'|last }} [{{ []|first }}]",
     "3 2 x z []"},
    {"{{ 'abc'|list }} {{ d|list }} {{ (1, 2)|list }} {{ d|items|list }}",
     "['a', 'b', 'c'] ['b', 'a'] [1, 2] [('b', 1), ('a', 2)]"},
    {"{{ users|selectattr('admin')|map(attribute='name')|list }} {{ "
     "users|rejectattr('admin')|map(attribute='name')|join }}",
     "['ann', 'cy'] bob"},
    {"{{ messages|selectattr('role', 'equalto', 'user')|map(attribute='content')|list }} {{ "
     "users|selectattr('age', 'gt', 28)|list|length }}",
     "['Hello', 'Who are you'] 2"},
    {"{{ nums|select('odd')|list }} {{ nums|reject('odd')|list }} {{ [0, 1, '', 'a']|select|list "
     "}}",
     "[3, 1] [2] [1, 'a']"},
    {"{{ nums|map('string')|join('-') }} {{ ['a', 'B']|map('upper')|list }} {{ "
     "users|map(attribute='missing', default='?')|list }}",
     "3-1-2 ['A', 'B'] ['?', '?', '?']"},
    {"{{ 42|string }} {{ none|string }} {{ [1, 'a']|string }} {{ '42'|int + 1 }} {{ '3.7'|int }} "
     "{{ 'x'|int }} {{ 'x'|int(7) }} {{ 3.9|int }} {{ '0x1A'|int(0, 16) }} {{ true|int }}",
     "42 None [1, 'a'] 43 3 0 7 3 26 1"},
    {"{{ '2.5'|float }} {{ 3|float }} {{ 'bad'|float }}", "2.5 3.0 0.0"},
    {"{{ 'a\\nb\\n\\nc'|indent }}|{{ 'a\\nb'|indent(2, true) }}|{{ 'a\\n\\nb'|indent(width='> ', "
     "blank=true) }}|{{ 'x\\n'|indent(2) }}",
     "a\n    b\n\n    c|  a\n  b|a\n> \n> b|x\n"},
    {"{{ '<b>'|safe }} {{ '<a href=\"x\">&\\''|escape }} {{ '<>'|e }}",
     "<b> &lt;a href=&#34;x&#34;&gt;&amp;&#39; &lt;&gt;"},
    {"{{ -3|abs }} {{ 2.567|round(2) }} {{ 2.5|round }} {{ 2.1|round(0, 'ceil') }} {{ "
     "2.9|round(method='floor') }}",
     "3 2.57 2.0 3.0 2.0"},
    {"{{ nums|sum }} {{ users|sum(attribute='age') }} {{ nums|min }} {{ nums|max }} {{ "
     "users|max(attribute='age') }} {{ ['b', 'A', 'c']|min }}",
     "6 96 1 3 {'name': 'cy', 'age': 41, 'admin': True} A"},
    {"{{ nums|sort }} {{ nums|sort(reverse=true) }} {{ "
     "users|sort(attribute='age')|map(attribute='name')|join }} {{ ['b', 'A', 'c']|sort }} {{ "
     "['b', 'A', 'c']|sort(case_sensitive=true) }}",
     "[1, 2, 3] [3, 2, 1] bobanncy ['A', 'b', 'c'] ['A', 'b', 'c']"},
    {"{{ d|dictsort }} {{ d|dictsort(by='value', reverse=true) }}",
     "[('a', 2), ('b', 1)] [('a', 2), ('b', 1)]"},
    {"{{ [1, 2, 1, 3, 2]|unique|list }} {{ ['a', 'A', 'b']|unique|list }} {{ nums|reverse|list }} "
     "{{ 'abc'|reverse }}",
     "[1, 2, 3] ['a', 'b'] [2, 1, 3] cba"},
    {"{{ '%s is %d years (%.1f)'|format('ann', 30, 2.25) }} {{ '%s-%s' % ('a', 'b') }} {{ 'n=%d' % "
     "5 }}",
     "ann is 30 years (2.2) a-b n=5"},
    {"{{ 'one two  three'|wordcount }} {{ users[0]|attr('name') }} {{ [1, 'a']|pprint }}",
     "3  [1, 'a']"},
    {"{{ n is defined }} {{ zz is defined }} {{ zz is undefined }} {{ nothing is none }} {{ n is "
     "none }} {{ n is not none }}",
     "True False True True False True"},
    {"{{ 'a' is string }} {{ 1 is string }} {{ d is mapping }} {{ nums is mapping }} {{ nums is "
     "iterable }} {{ 'x' is iterable }} {{ n is iterable }}",
     "True False True False True True False"},
    {"{{ 1 is number }} {{ 1.5 is number }} {{ 'x' is number }} {{ nums is sequence }} {{ 'x' is "
     "sequence }} {{ d is sequence }} {{ n is sequence }}",
     "True True False True True True False"},
    {"{{ 'a' is equalto 'a' }} {{ 1 is eq(2) }} {{ 2 is ne 3 }} {{ 3 is gt 2 }} {{ 3 is lt 2 }} {{ "
     "3 is ge 3 }} {{ 2 is le 1 }} {{ 3 is greaterthan(1) }} {{ 1 is lessthan 1 }}",
     "True False True True False True False True False"},
    {"{{ 3 is odd }} {{ 3 is even }} {{ 9 is divisibleby 3 }} {{ 9 is divisibleby(2) }} {{ yes is "
     "boolean }} {{ yes is true }} {{ nothing is false }} {{ false is false }}",
     "True False True False True True False True"},
    {"{{ 1 is integer }} {{ 1.0 is integer }} {{ 1.0 is float }} {{ 'a' is in 'abc' }} {{ 5 is in "
     "nums }} {{ 'abc' is lower }} {{ 'ABC' is upper }} {{ 'aBc' is lower }}",
     "True False True True False True True False"},
    {"{{ range is callable }} {{ n is callable }} {{ nothing is sameas none }} {{ yes is sameas "
     "true }}",
     "True False True True"},
    {"[{{ s.strip() }}] [{{ s.lstrip() }}] [{{ s.rstrip() }}] [{{ 'xxhixx'.strip('x') }}] [{{ "
     "'..a..'.lstrip('.') }}] [{{ '..a..'.rstrip('.') }}]",
     "[Hello World] [Hello World  ] [  Hello World] [hi] [a..] [..a]"},
    {"{{ s.strip().startswith('Hello') }} {{ 'abc'.startswith(('x', 'a')) }} {{ "
     "'abc'.endswith('bc') }} {{ 'abc'.endswith('b') }}",
     "True True True False"},
    {"{{ text.split(',') }} {{ '  a  b c '.split() }} {{ text.split(',', 1) }} {{ 'a b "
     "c'.split(none, 1) }}",
     "['a', 'b', '', 'c'] ['a', 'b', 'c'] ['a', 'b,,c'] ['a', 'b c']"},
    {"{{ 'abc'.upper() }} {{ 'ABC'.lower() }} {{ 'a-a'.replace('a', 'b') }} {{ 'aaa'.replace('a', "
     "'b', 1) }} {{ \"hello wORLD it's\".title() }} {{ 'hELLO'.capitalize() }}",
     "ABC abc b-b baa Hello World It'S Hello"},
    {"{{ 'hello'.find('l') }} {{ 'hello'.find('z') }} {{ 'hello'.count('l') }} {{ '-'.join(['a', "
     "'b']) }} {{ 'a\\nb\\n'.splitlines() }} {{ 'abc'.removeprefix('a') }}",
     "2 -1 2 a-b ['a', 'b'] bc"},
    {"{{ d.keys()|list }} {{ d.values()|list }} {{ d.get('a') }} {{ d.get('z') }} {{ d.get('z', 0) "
     "}} {{ nums.index(1) }} {{ [1, 1].count(1) }}",
     "['b', 'a'] [1, 2] 2 None 0 1 2"},
    {"{{ '12'.isdigit() }} {{ 'ab'.isalpha() }} {{ ' '.isspace() }}", "True True True"},
};

TEST(JinjaFilters, FiltersTestsAndMethodsMatchPythonJinja2) {
    for (const auto& c : kFilterCases) {
        SCOPED_TRACE(c.source);
        EXPECT_EQ(test::render(c.source), c.expected);
    }
}

}  // namespace
}  // namespace hearth::chat
