// Spellings of token kinds and the keyword lookup, both derived from the lists in token.h.
#include "frontend/token.h"

#include <array>
#include <utility>

namespace eng::frontend {

namespace {

constexpr std::array kKeywords = {
#define CWB_KEYWORD_PAIR(kind, word) std::pair<std::string_view, TokenKind>{word, TokenKind::kind},
    CWB_KEYWORDS(CWB_KEYWORD_PAIR)
#undef CWB_KEYWORD_PAIR
};

constexpr std::array<std::string_view, static_cast<size_t>(TokenKind::KeywordFalse)> kSpellings = {
#define CWB_TOKEN_SPELLING(kind, spelling) spelling,
    CWB_TOKEN_KINDS(CWB_TOKEN_SPELLING)
#undef CWB_TOKEN_SPELLING
};

}  // namespace

std::string_view tokenKindSpelling(TokenKind kind) {
    auto index = static_cast<size_t>(kind);
    if (index < kSpellings.size()) return kSpellings[index];
    return kKeywords[index - kSpellings.size()].first;
}

TokenKind keywordKind(std::string_view word) {
    for (const auto& [spelling, kind] : kKeywords)
        if (spelling == word) return kind;
    return TokenKind::Name;
}

bool isKeyword(TokenKind kind) {
    return kind >= TokenKind::KeywordFalse;
}

}  // namespace eng::frontend
