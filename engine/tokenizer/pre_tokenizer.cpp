#include "tokenizer/pre_tokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <string>

#include "tokenizer/pre_tokenizer_rules.h"

namespace hearth::tokenizer {

struct PreTokenizer::Compiled {
    pcre2_code* code = nullptr;
    ~Compiled() { pcre2_code_free(code); }
};

struct PreTokenizer::Scratch::Impl {
    pcre2_match_data* match = nullptr;
    std::vector<TextSpan> next;
    Impl() : match(pcre2_match_data_create(1, nullptr)) {}
    ~Impl() { pcre2_match_data_free(match); }
};

PreTokenizer::Scratch::Scratch() : impl_(std::make_unique<Impl>()) {}
PreTokenizer::Scratch::~Scratch() = default;
PreTokenizer::~PreTokenizer() = default;

Result<std::unique_ptr<const PreTokenizer>> PreTokenizer::for_name(std::string_view pre) {
    if (pre.empty()) pre = "default";
    const PreNameRule* rule = nullptr;
    for (const auto& r : pre_name_rules())
        if (r.name == pre) rule = &r;
    if (!rule) return Status::error("unknown pre-tokenizer '" + std::string(pre) + "'");
    for (const auto& t : pre_type_rules()) {
        if (t.type != rule->type) continue;
        if (!t.unsupported_reason.empty())
            return Status::error("pre-tokenizer '" + std::string(pre) + "' (type " +
                                 std::string(t.type) + ") is not supported: it " +
                                 std::string(t.unsupported_reason));
        return from_regexes(std::vector<std::string_view>(t.regexes.begin(), t.regexes.end()));
    }
    return Status::error("pre-tokenizer '" + std::string(pre) + "' has no rule set");
}

Result<std::unique_ptr<const PreTokenizer>> PreTokenizer::from_regexes(
    const std::vector<std::string_view>& regexes) {
    std::unique_ptr<PreTokenizer> p(new PreTokenizer());
    for (std::string_view re : regexes) {
        int err = 0;
        PCRE2_SIZE err_offset = 0;
        // DOLLAR_ENDONLY: '$' means the end of the piece, never "before a final newline".
        pcre2_code* code =
            pcre2_compile(reinterpret_cast<PCRE2_SPTR>(re.data()), re.size(),
                          PCRE2_UTF | PCRE2_UCP | PCRE2_DOLLAR_ENDONLY, &err, &err_offset, nullptr);
        if (!code) {
            PCRE2_UCHAR msg[256];
            pcre2_get_error_message(err, msg, sizeof msg);
            return Status::error("pre-tokenizer regex does not compile at offset " +
                                 std::to_string(err_offset) + ": " +
                                 reinterpret_cast<const char*>(msg));
        }
        auto c = std::make_unique<Compiled>();
        c->code = code;
        // JIT is an optimisation only: without it pcre2_match interprets the same pattern.
        (void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
        p->regexes_.push_back(std::move(c));
    }
    return std::unique_ptr<const PreTokenizer>(std::move(p));
}

void PreTokenizer::split(std::string_view text, std::vector<TextSpan>& out,
                         Scratch& scratch) const {
    out.clear();
    if (text.empty()) return;
    out.push_back({0, text.size()});
    auto& s = *scratch.impl_;
    const auto* subject_all = reinterpret_cast<PCRE2_SPTR>(text.data());
    for (const auto& re : regexes_) {
        s.next.clear();
        for (const TextSpan piece : out) {
            const PCRE2_SPTR subject = subject_all + piece.offset;
            size_t pos = 0, emitted = 0;
            while (pos < piece.length) {
                int rc = pcre2_match(re->code, subject, piece.length, pos, PCRE2_NO_UTF_CHECK,
                                     s.match, nullptr);
                if (rc < 0 && rc != PCRE2_ERROR_NOMATCH)  // e.g. JIT stack exhausted: retry
                    rc = pcre2_match(re->code, subject, piece.length, pos,
                                     PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, s.match, nullptr);
                if (rc < 0) break;  // no match (or a resource limit): the rest is one gap
                const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(s.match);
                const size_t b = ov[0], e = ov[1];
                if (e == b) {  // empty match: step over one character
                    pos = b + 1;
                    while (pos < piece.length && (subject[pos] & 0xC0) == 0x80) ++pos;
                    continue;
                }
                if (b > emitted) s.next.push_back({piece.offset + emitted, b - emitted});
                s.next.push_back({piece.offset + b, e - b});
                emitted = pos = e;
            }
            if (emitted < piece.length)
                s.next.push_back({piece.offset + emitted, piece.length - emitted});
        }
        out.swap(s.next);
    }
}

}  // namespace hearth::tokenizer
