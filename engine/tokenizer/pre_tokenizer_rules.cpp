// Pre-tokenizer rules for byte-level BPE vocabularies, keyed by tokenizer.ggml.pre.
// Generated once from ../shared/testdata/vocab/pretokenizers.json (facts about which regex
// set each name uses); non-ASCII characters are written as PCRE2 \x{...} escapes.
#include "tokenizer/pre_tokenizer_rules.h"

#include <array>

namespace hearth::tokenizer {
namespace {

constexpr std::string_view kBailingmoe[] = {
    R"re('(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+)re",
};
constexpr std::string_view kBloom[] = {
    R"re( ?[^(\s|.,!?\x{2026}\x{3002}\x{FF0C}\x{3001}\x{964}\x{6D4}\x{60C})]+)re",
};
constexpr std::string_view kChameleon[] = {
    R"re(<sentinel:[0-9]+>)re",
    R"re((IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z)re",
    R"re(([\t\n]|    |  ))re",
    R"re(\p{N})re",
    R"re([\p{P}!-/:-@\[-`{-~])re",
    R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))re",
};
constexpr std::string_view kChatglm4[] = {
    R"re((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
};
constexpr std::string_view kCodeshell[] = {
    R"re(\p{N})re",
    R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))re",
};
constexpr std::string_view kCommandR[] = {
    R"re(\p{N})re",
    R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))re",
};
constexpr std::string_view kDbrx[] = {
    R"re((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
};
constexpr std::string_view kDeepseek3Llm[] = {
    R"re(\p{N}{1,3})re",
    R"re([\x{4E00}-\x{9FA5}\x{3040}-\x{309F}\x{30A0}-\x{30FF}]+)re",
    R"re([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
};
constexpr std::string_view kDeepseekCoder[] = {
    R"re([\r\n])re",    R"re(\s?\p{L}+)re",
    R"re(\s?\p{P}+)re", R"re([\x{4E00}-\x{9FA5}\x{800}-\x{4E00}\x{AC00}-\x{D7FF}]+)re",
    R"re(\p{N})re",
};
constexpr std::string_view kDeepseekLlm[] = {
    R"re([\r\n])re",
    R"re(\s?[A-Za-z\x{B5}\x{C0}-\x{D6}\x{D8}-\x{F6}\x{F8}-\x{1BA}\x{1BC}-\x{1BF}\x{1C4}-\x{293}\x{295}-\x{2AF}\x{370}-\x{373}\x{376}\x{377}\x{37B}-\x{37D}\x{37F}\x{386}\x{388}-\x{38A}\x{38C}\x{38E}-\x{3A1}\x{3A3}-\x{3F5}\x{3F7}-\x{481}\x{48A}-\x{52F}\x{531}-\x{556}\x{10A0}-\x{10C5}\x{13A0}-\x{13F5}\x{13F8}-\x{13FD}\x{1C90}-\x{1CBA}\x{1CBD}-\x{1CBF}\x{1D00}-\x{1D2B}\x{1D6B}-\x{1D77}\x{1D79}-\x{1D9A}\x{1E00}-\x{1F15}\x{1F18}-\x{1F1D}\x{1F20}-\x{1F45}\x{1F48}-\x{1F4D}\x{1F50}-\x{1F57}\x{1F59}\x{1F5B}\x{1F5D}\x{1F5F}-\x{1F7D}\x{1F80}-\x{1FB4}\x{1FB6}-\x{1FBC}\x{1FBE}\x{1FC2}-\x{1FC4}\x{1FC6}-\x{1FCC}\x{1FD0}-\x{1FD3}\x{1FD6}-\x{1FDB}\x{1FE0}-\x{1FEC}\x{1FF2}-\x{1FF4}\x{1FF6}-\x{1FFC}\x{2102}\x{2107}\x{210A}-\x{2113}\x{2115}\x{2119}-\x{211D}\x{2124}\x{2126}\x{2128}\x{212A}-\x{212D}\x{212F}-\x{2134}\x{2139}\x{213C}-\x{213F}\x{2145}-\x{2149}\x{214E}\x{2183}\x{2184}\x{2C00}-\x{2C7B}\x{2C7E}-\x{2CE4}\x{2CEB}-\x{2CEE}\x{2CF2}\x{2CF3}\x{A640}-\x{A66D}\x{A680}-\x{A69B}\x{A722}-\x{A76F}\x{A771}-\x{A787}\x{A78B}-\x{A78E}\x{AB70}-\x{ABBF}\x{FB00}-\x{FB06}\x{FB13}-\x{FB17}\x{FF21}-\x{FF3A}\x{FF41}-\x{FF5A}\x{10400}-\x{1044F}\x{104B0}-\x{104D3}\x{104D8}-\x{104FB}\x{10C80}-\x{10CB2}\x{10CC0}-\x{10CF2}\x{118A0}-\x{118DF}\x{1E900}-\x{1E943}]+)re",
    R"re(\s?[!-/:-~\x{FF01}-\x{FF0F}\x{FF1A}-\x{FF5E}\x{2018}-\x{201F}\x{3000}-\x{3002}]+)re",
    R"re(\s+$)re",
    R"re([\x{4E00}-\x{9FA5}\x{800}-\x{4E00}\x{AC00}-\x{D7FF}]+)re",
    R"re(\p{N}+)re",
};
constexpr std::string_view kDefault[] = {
    R"re([\p{P}\$\+<=>\^~\|]+)re",
    R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))re",
    R"re(\p{N}+)re",
    R"re([0-9][0-9][0-9])re",
};
constexpr std::string_view kExaone[] = {
    R"re(\p{N})re",
    R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))re",
};
constexpr std::string_view kExaoneMoe[] = {
    R"re((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?(?:\p{L}\p{M}*(?: \p{L}\p{M}*)*)+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]?|\s*[\r\n]|\s+(?!\S)|\s+)re",
};
constexpr std::string_view kFalcon[] = {
    R"re([\p{P}\$\+<=>\^~\|`]+)re",
    R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))re",
    R"re([0-9][0-9][0-9])re",
};
constexpr std::string_view kGpt2[] = {
    R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))re",
};
constexpr std::string_view kGpt3Finnish[] = {
    R"re( ?[^(\s|.,!?\x{2026}\x{3002}\x{FF0C}\x{3001}\x{964}\x{6D4}\x{60C})]+)re",
};
constexpr std::string_view kGpt4o[] = {
    R"re([^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
};
constexpr std::string_view kGraniteDocling[] = {
    R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))re",
};
constexpr std::string_view kGraniteEmbMulti[] = {
    R"re([^\r\n\p{L}\p{N}]?((?=[\p{L}\p{M}])([^a-z]))*((?=[\p{L}\p{M}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\r\n\p{L}\p{N}]?((?=[\p{L}\p{M}])([^a-z]))+((?=[\p{L}\p{M}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
};
constexpr std::string_view kGrok2[] = {
    R"re((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
};
constexpr std::string_view kHunyuan[] = {
    R"re((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
};
constexpr std::string_view kHunyuanDense[] = {
    R"re(\p{N}{1,3})re",
    R"re([\x{4E00}-\x{9FA5}\x{3040}-\x{309F}\x{30A0}-\x{30FF}]+)re",
    R"re([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
};
constexpr std::string_view kJais[] = {
    R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))re",
};
constexpr std::string_view kJais2[] = {
    R"re((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s{512}(?!\S)|\s{256}(?!\S)|\s{128}(?!\S)|\s{64}(?!\S)|\s{32}(?!\S)|\s{16}(?!\S)|\s{8}(?!\S)|\s{4}(?!\S)|\s{1,2}(?!\S)|\s{1})re",
};
constexpr std::string_view kJoyaiLlm[] = {
    R"re(\p{N}{1,3})re",
    R"re([\x{4E00}-\x{9FA5}\x{3040}-\x{309F}\x{30A0}-\x{30FF}]+)re",
    R"re([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
};
constexpr std::string_view kLaguna[] = {
    R"re([^\n]+|[\n]+)re",
    R"re((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
};
constexpr std::string_view kLlama3[] = {
    R"re((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
};
constexpr std::string_view kMellum2[] = {
    R"re(\p{N})re",
    R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))re",
};
constexpr std::string_view kMinerva[] = {
    R"re(\p{N})re",
    R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))re",
};
constexpr std::string_view kMinicpm5[] = {
    R"re(\p{N}{1,3})re",
    R"re((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}+| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
};
constexpr std::string_view kMinimaxM2[] = {
    R"re([^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
};
constexpr std::string_view kMpt[] = {
    R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))re",
};
constexpr std::string_view kOlmo[] = {
    R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))re",
};
constexpr std::string_view kPoro[] = {
    R"re( ?[^(\s|.,!?\x{2026}\x{3002}\x{FF0C}\x{3001}\x{964}\x{6D4}\x{60C})]+)re",
};
constexpr std::string_view kQwen2[] = {
    R"re((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
};
constexpr std::string_view kQwen35[] = {
    R"re((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
};
constexpr std::string_view kRefact[] = {
    R"re(\p{N})re",
    R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))re",
};
constexpr std::string_view kSeedCoder[] = {
    R"re((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1}| ?[^\s\p{L}\p{N}\r\n]+|\s*[\r\n]+|\s+(?!\S)|\s+)re",
};
constexpr std::string_view kSmaug[] = {
    R"re((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
};
constexpr std::string_view kSmollm[] = {
    R"re(\p{N})re",
    R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))re",
};
constexpr std::string_view kSolarOpen[] = {
    R"re((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
};
constexpr std::string_view kStablelm2[] = {
    R"re((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
};
constexpr std::string_view kStarcoder[] = {
    R"re(\p{N})re",
    R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))re",
};
constexpr std::string_view kTekken[] = {
    R"re([^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
};
constexpr std::string_view kTinyAya[] = {
    R"re(\d{1,3}(?=(?:\d{3})*\b))re",
    R"re([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
};
constexpr std::string_view kTrillion[] = {
    R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))re",
};
constexpr std::string_view kViking[] = {
    R"re( ?[^(\s|.,!?\x{2026}\x{3002}\x{FF0C}\x{3001}\x{964}\x{6D4}\x{60C})]+)re",
    R"re(\p{N})re",
};
constexpr std::string_view kYoutu[] = {
    R"re([\x{AC00}-\x{D7A3}\x{3131}-\x{318E}]+|[\x{FF01}\x{2026}\x{201C}\x{201D}\x{2018}\x{2019}\x{2014}\x{FF1A}\x{FF1B}\x{FF0C}\x{3001}-\x{303F}\x{FE30}-\x{FE4F}]+|[\x{3105}-\x{312F}]+|[\x{4E00}-\x{9FA5}\x{3040}-\x{309F}\x{30A0}-\x{30FF}]+)re",
    R"re([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)re",
};

constexpr PreTypeRules kTypes[] = {
    {"AFMOE", {}, "uses a custom digit class (AFMoE_digits) that has no PCRE2 equivalent"},
    {"BAILINGMOE", kBailingmoe, {}},
    {"BLOOM", kBloom, {}},
    {"CHAMELEON", kChameleon, {}},
    {"CHATGLM4", kChatglm4, {}},
    {"CODESHELL", kCodeshell, {}},
    {"COMMAND_R", kCommandR, {}},
    {"DBRX", kDbrx, {}},
    {"DEEPSEEK3_LLM", kDeepseek3Llm, {}},
    {"DEEPSEEK_CODER", kDeepseekCoder, {}},
    {"DEEPSEEK_LLM", kDeepseekLlm, {}},
    {"DEFAULT", kDefault, {}},
    {"EXAONE", kExaone, {}},
    {"EXAONE_MOE", kExaoneMoe, {}},
    {"FALCON", kFalcon, {}},
    {"GEMMA4", {}, "is a SentencePiece-style BPE without byte-level encoding"},
    {"GPT2", kGpt2, {}},
    {"GPT3_FINNISH", kGpt3Finnish, {}},
    {"GPT4O", kGpt4o, {}},
    {"GRANITE_DOCLING", kGraniteDocling, {}},
    {"GRANITE_EMB_MULTI", kGraniteEmbMulti, {}},
    {"GROK_2", kGrok2, {}},
    {"HUNYUAN", kHunyuan, {}},
    {"HUNYUAN_DENSE", kHunyuanDense, {}},
    {"JAIS", kJais, {}},
    {"JAIS2", kJais2, {}},
    {"JOYAI_LLM", kJoyaiLlm, {}},
    {"KIMI_K2", {}, "is special-cased by its reference implementation beyond the listed regex"},
    {"LAGUNA", kLaguna, {}},
    {"LLAMA3", kLlama3, {}},
    {"MELLUM2", kMellum2, {}},
    {"MINERVA", kMinerva, {}},
    {"MINICPM5", kMinicpm5, {}},
    {"MINIMAX_M2", kMinimaxM2, {}},
    {"MPT", kMpt, {}},
    {"OLMO", kOlmo, {}},
    {"PORO", kPoro, {}},
    {"QWEN2", kQwen2, {}},
    {"QWEN35", kQwen35, {}},
    {"REFACT", kRefact, {}},
    {"SARVAM_MOE", {}, "is a SentencePiece-style BPE without byte-level encoding"},
    {"SEED_CODER", kSeedCoder, {}},
    {"SMAUG", kSmaug, {}},
    {"SMOLLM", kSmollm, {}},
    {"SOLAR_OPEN", kSolarOpen, {}},
    {"STABLELM2", kStablelm2, {}},
    {"STARCODER", kStarcoder, {}},
    {"SUPERBPE", {}, "splits on zero-width matches, which this splitter does not model"},
    {"TEKKEN", kTekken, {}},
    {"TINY_AYA", kTinyAya, {}},
    {"TRILLION", kTrillion, {}},
    {"VIKING", kViking, {}},
    {"WHITESPACE", {}, "belongs to a WordPiece-style vocabulary"},
    {"YOUTU", kYoutu, {}},
};

constexpr PreNameRule kNames[] = {
    {"default", "DEFAULT", false, false, false},
    {"minicpm5", "MINICPM5", true, false, false},
    {"llama3", "LLAMA3", true, true, false},
    {"llama-v3", "LLAMA3", true, true, false},
    {"llama-bpe", "LLAMA3", true, true, false},
    {"falcon3", "LLAMA3", true, true, false},
    {"falcon-h1", "LLAMA3", true, true, false},
    {"pixtral", "LLAMA3", true, true, false},
    {"midm-2.0", "LLAMA3", true, true, false},
    {"lfm2", "LLAMA3", true, true, false},
    {"jina-v5-nano", "LLAMA3", true, true, false},
    {"deepseek-llm", "DEEPSEEK_LLM", false, false, false},
    {"deepseek-coder", "DEEPSEEK_CODER", false, false, false},
    {"deepseek-v3", "DEEPSEEK3_LLM", false, false, false},
    {"youtu", "YOUTU", true, false, false},
    {"falcon", "FALCON", false, false, false},
    {"mpt", "MPT", false, false, false},
    {"starcoder", "STARCODER", false, false, false},
    {"gpt-2", "GPT2", false, false, false},
    {"phi-2", "GPT2", false, false, false},
    {"jina-es", "GPT2", false, false, false},
    {"jina-de", "GPT2", false, false, false},
    {"gigachat", "GPT2", false, false, false},
    {"jina-v2-es", "GPT2", false, false, false},
    {"jina-v2-de", "GPT2", false, false, false},
    {"a.x-4.0", "GPT2", false, false, false},
    {"mellum", "GPT2", false, false, false},
    {"modern-bert", "GPT2", false, false, false},
    {"jais-2", "JAIS2", false, false, false},
    {"gemma4", "GEMMA4", false, false, false},
    {"granite-embed-multi-311m", "GEMMA4", false, false, false},
    {"sarvam-moe", "SARVAM_MOE", false, false, false},
    {"jina-v1-en", "GPT2", false, false, false},
    {"jina-v2-code", "GPT2", false, false, false},
    {"roberta-bpe", "GPT2", false, false, false},
    {"whitespace", "WHITESPACE", false, false, false},
    {"refact", "REFACT", false, false, false},
    {"command-r", "COMMAND_R", false, false, false},
    {"qwen2", "QWEN2", false, false, false},
    {"deepseek-r1-qwen", "QWEN2", false, false, false},
    {"kormo", "QWEN2", false, false, false},
    {"f2llmv2", "QWEN2", false, false, false},
    {"qwen35", "QWEN35", false, false, false},
    {"stablelm2", "STABLELM2", false, false, false},
    {"olmo", "OLMO", false, false, false},
    {"dbrx", "DBRX", false, false, false},
    {"smaug-bpe", "SMAUG", false, false, false},
    {"poro-chat", "PORO", false, false, false},
    {"glm4", "CHATGLM4", false, false, true},
    {"chatglm-bpe", "CHATGLM4", false, false, true},
    {"viking", "VIKING", false, false, false},
    {"jais", "JAIS", false, false, false},
    {"tekken", "TEKKEN", true, true, false},
    {"smollm", "SMOLLM", false, false, false},
    {"codeshell", "CODESHELL", false, false, false},
    {"bloom", "BLOOM", false, false, false},
    {"gpt3-finnish", "GPT3_FINNISH", false, false, false},
    {"exaone", "EXAONE", false, false, false},
    {"exaone4", "GPT2", false, false, false},
    {"exaone-moe", "EXAONE_MOE", false, false, false},
    {"chameleon", "CHAMELEON", false, true, false},
    {"minerva-7b", "MINERVA", false, false, false},
    {"megrez", "QWEN2", false, false, false},
    {"gpt-4o", "GPT4O", false, false, false},
    {"llama4", "GPT4O", false, false, false},
    {"kanana2", "GPT4O", false, false, false},
    {"talkie", "GPT4O", false, false, false},
    {"granite-embed-multi-97m", "GRANITE_EMB_MULTI", true, false, false},
    {"tiny_aya", "TINY_AYA", false, false, false},
    {"cohere2moe", "TINY_AYA", false, false, false},
    {"superbpe", "SUPERBPE", false, false, false},
    {"trillion", "TRILLION", false, false, false},
    {"granite-docling", "GRANITE_DOCLING", false, false, false},
    {"bailingmoe", "BAILINGMOE", false, false, false},
    {"bailingmoe2", "BAILINGMOE", false, false, false},
    {"llada-moe", "BAILINGMOE", false, false, false},
    {"seed-coder", "SEED_CODER", false, false, false},
    {"hunyuan", "HUNYUAN", false, false, false},
    {"hunyuan-dense", "HUNYUAN_DENSE", false, false, false},
    {"joyai-llm", "JOYAI_LLM", false, false, false},
    {"kimi-k2", "KIMI_K2", false, false, false},
    {"grok-2", "GROK_2", false, false, false},
    {"afmoe", "AFMOE", false, false, false},
    {"laguna", "LAGUNA", false, false, false},
    {"minimax-m2", "MINIMAX_M2", false, false, false},
    {"solar-open", "SOLAR_OPEN", false, false, false},
    {"mellum2", "MELLUM2", false, false, false},
};

}  // namespace

std::span<const PreNameRule> pre_name_rules() {
    return kNames;
}
std::span<const PreTypeRules> pre_type_rules() {
    return kTypes;
}

}  // namespace hearth::tokenizer
