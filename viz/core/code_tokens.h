// A small syntax highlighter for generated code: Python (Inductor wrappers and Triton kernels), C++/CUDA and
// LLVM IR. Line-based with carried state (triple-quoted strings, block comments) so a view can tokenize once
// and draw only the visible lines.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace viz {

enum class CodeLanguage { Python, Cpp, LlvmIr, Plain };

/// Maps the store's language names: python/triton -> Python, cpp/c++/cuda/c -> Cpp, llvm_ir/llvm/ll -> LlvmIr.
CodeLanguage codeLanguageFromName(std::string_view name);
const char* codeLanguageName(CodeLanguage language);

enum class TokenKind { Plain, Keyword, Type, Builtin, Number, String, Comment, Preprocessor, Decorator, Variable };
constexpr int kTokenKindCount = 10;

/// A run of one line's bytes; runs not covered by any token are Plain.
struct Token {
    uint32_t begin = 0;
    uint32_t length = 0;
    TokenKind kind = TokenKind::Plain;
};

/// What a line leaves open for the next one.
struct LineState {
    enum class Open : uint8_t { Nothing, TripleDouble, TripleSingle, BlockComment };
    Open open = Open::Nothing;
};

/// Tokens of one line (no newline in it), in order and without overlaps.
std::vector<Token> tokenizeLine(std::string_view line, CodeLanguage language, LineState& state);

/// A whole file split into lines and tokenized once.
class HighlightedCode {
public:
    HighlightedCode() = default;
    HighlightedCode(std::string text, CodeLanguage language);

    size_t lineCount() const { return lines_.size(); }
    std::string_view line(size_t index) const;
    const std::vector<Token>& tokens(size_t index) const { return tokens_[index]; }
    const std::string& text() const { return text_; }
    CodeLanguage language() const { return language_; }

private:
    std::string text_;
    CodeLanguage language_ = CodeLanguage::Plain;
    std::vector<std::pair<uint32_t, uint32_t>> lines_;  ///< offset, length (offsets survive moves; views would not)
    std::vector<std::vector<Token>> tokens_;
};

struct TextMatch {
    size_t line = 0;
    size_t column = 0;
};

/// Every case-insensitive occurrence of `needle`, in reading order.
std::vector<TextMatch> findMatches(const HighlightedCode& code, std::string_view needle);

}  // namespace viz
