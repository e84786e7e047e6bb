// Hand-written lexers for the three code families the code view shows (see code_tokens.h). They aim at
// readable colours, not at parsing: an unusual construct only loses its colour.
#include "core/code_tokens.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "core/text_match.h"

namespace viz {
namespace {

constexpr std::array<std::string_view, 38> kPythonKeywords = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", "match", "case", "print"};
constexpr std::array<std::string_view, 16> kPythonBuiltins = {
    "self", "tl", "triton", "torch", "len", "range", "int", "float", "str", "bool", "isinstance", "super",
    "empty_strided_cpu", "empty_strided_cuda", "reinterpret_tensor", "async_compile"};
constexpr std::array<std::string_view, 50> kCppKeywords = {
    "if", "else", "for", "while", "do", "return", "break", "continue", "switch", "case", "default", "goto",
    "struct", "class", "union", "enum", "namespace", "using", "typedef", "template", "typename", "public",
    "private", "protected", "virtual", "static", "extern", "inline", "const", "constexpr", "volatile", "mutable",
    "new", "delete", "this", "nullptr", "true", "false", "sizeof", "alignas", "restrict", "__restrict__",
    "__global__", "__device__", "__host__", "__shared__", "__syncthreads", "operator", "friend", "noexcept"};
constexpr std::array<std::string_view, 28> kCppTypes = {
    "void", "bool", "char", "short", "int", "long", "float", "double", "unsigned", "signed", "auto", "size_t",
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "half", "bfloat16",
    "at", "std", "float4", "dim3", "c10", "Vectorized"};
constexpr std::array<std::string_view, 58> kLlvmKeywords = {
    "define", "declare", "ret", "br", "switch", "call", "tail", "load", "store", "alloca", "getelementptr",
    "inbounds", "phi", "select", "icmp", "fcmp", "add", "sub", "mul", "udiv", "sdiv", "fadd", "fsub", "fmul",
    "fdiv", "frem", "shl", "lshr", "ashr", "and", "or", "xor", "zext", "sext", "trunc", "fpext", "fptrunc",
    "sitofp", "uitofp", "fptosi", "bitcast", "addrspacecast", "ptrtoint", "inttoptr", "extractelement",
    "insertelement", "shufflevector", "to", "align", "nsw", "nuw", "global", "constant", "private", "internal",
    "target", "attributes", "unreachable"};
constexpr std::array<std::string_view, 9> kLlvmTypes = {"void", "ptr", "half", "bfloat", "float", "double",
                                                        "label", "metadata", "x86_fp80"};

template <size_t N>
bool oneOf(const std::array<std::string_view, N>& words, std::string_view word) {
    return std::find(words.begin(), words.end(), word) != words.end();
}

bool identStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

class LineLexer {
public:
    LineLexer(std::string_view line, LineState& state) : line_(line), state_(state) {}

    std::vector<Token> python();
    std::vector<Token> cpp();
    std::vector<Token> llvm();

private:
    void emit(size_t begin, size_t end, TokenKind kind) {
        if (end > begin) tokens_.push_back({static_cast<uint32_t>(begin), static_cast<uint32_t>(end - begin), kind});
    }
    size_t identEnd(size_t from) const {
        while (from < line_.size() && identChar(line_[from])) ++from;
        return from;
    }
    size_t numberEnd(size_t from) const {
        // Digits, hex, exponents with signs, suffixes (1.5e-3f, 0x1F, 10L): good enough for colouring.
        while (from < line_.size()) {
            char c = line_[from];
            bool sign = (c == '-' || c == '+') && from > 0 && (line_[from - 1] == 'e' || line_[from - 1] == 'E');
            if (!(identChar(c) || c == '.' || sign)) break;
            ++from;
        }
        return from;
    }
    size_t quotedEnd(size_t from, char quote) const {
        for (size_t i = from + 1; i < line_.size(); ++i) {
            if (line_[i] == '\\') ++i;
            else if (line_[i] == quote) return i + 1;
        }
        return line_.size();
    }
    /// Continues or opens a multi-line region; returns where it ends on this line (or the line's end).
    size_t closeRegion(size_t from, std::string_view closer) {
        size_t end = line_.find(closer, from);
        if (end == std::string_view::npos) return line_.size();
        state_.open = LineState::Open::Nothing;
        return end + closer.size();
    }

    std::string_view line_;
    LineState& state_;
    std::vector<Token> tokens_;
};

std::vector<Token> LineLexer::python() {
    size_t i = 0;
    if (state_.open == LineState::Open::TripleDouble || state_.open == LineState::Open::TripleSingle) {
        i = closeRegion(0, state_.open == LineState::Open::TripleDouble ? "\"\"\"" : "'''");
        emit(0, i, TokenKind::String);
    }
    while (i < line_.size()) {
        char c = line_[i];
        if (c == '#') {
            emit(i, line_.size(), TokenKind::Comment);
            break;
        }
        if (c == '"' || c == '\'') {
            std::string_view triple = c == '"' ? "\"\"\"" : "'''";
            size_t end;
            if (line_.substr(i, 3) == triple) {
                state_.open = c == '"' ? LineState::Open::TripleDouble : LineState::Open::TripleSingle;
                end = closeRegion(i + 3, triple);
            } else {
                end = quotedEnd(i, c);
            }
            emit(i, end, TokenKind::String);
            i = end;
        } else if (c == '@' && (i == 0 || line_.substr(0, i).find_first_not_of(" \t") == std::string_view::npos)) {
            size_t end = identEnd(i + 1);
            while (end < line_.size() && line_[end] == '.') end = identEnd(end + 1);
            emit(i, end, TokenKind::Decorator);
            i = end;
        } else if (digit(c)) {
            size_t end = numberEnd(i);
            emit(i, end, TokenKind::Number);
            i = end;
        } else if (identStart(c)) {
            size_t end = identEnd(i);
            std::string_view word = line_.substr(i, end - i);
            // String prefixes: r"", b'', f"", rb"" ...
            if (end < line_.size() && (line_[end] == '"' || line_[end] == '\'') && word.size() <= 2 &&
                word.find_first_not_of("rRbBfFuU") == std::string_view::npos) {
                i = end;
                continue;
            }
            // Attributes stay plain (buf.triton is no builtin), except Triton's language module: tl.load.
            bool attribute = i > 0 && line_[i - 1] == '.';
            if (attribute) {
                if (i >= 3 && line_.substr(i - 3, 3) == "tl.") emit(i, end, TokenKind::Builtin);
            } else if (oneOf(kPythonKeywords, word)) {
                emit(i, end, TokenKind::Keyword);
            } else if (oneOf(kPythonBuiltins, word)) {
                emit(i, end, TokenKind::Builtin);
            }
            i = end;
        } else {
            ++i;
        }
    }
    return std::move(tokens_);
}

std::vector<Token> LineLexer::cpp() {
    size_t i = 0;
    if (state_.open == LineState::Open::BlockComment) {
        i = closeRegion(0, "*/");
        emit(0, i, TokenKind::Comment);
    }
    size_t firstNonBlank = line_.find_first_not_of(" \t");
    if (i == 0 && firstNonBlank != std::string_view::npos && line_[firstNonBlank] == '#') {
        size_t comment = line_.find("//", firstNonBlank);
        size_t end = comment == std::string_view::npos ? line_.size() : comment;
        emit(firstNonBlank, end, TokenKind::Preprocessor);
        emit(end, line_.size(), TokenKind::Comment);
        return std::move(tokens_);
    }
    while (i < line_.size()) {
        char c = line_[i];
        if (c == '/' && i + 1 < line_.size() && line_[i + 1] == '/') {
            emit(i, line_.size(), TokenKind::Comment);
            break;
        }
        if (c == '/' && i + 1 < line_.size() && line_[i + 1] == '*') {
            state_.open = LineState::Open::BlockComment;
            size_t end = closeRegion(i + 2, "*/");
            emit(i, end, TokenKind::Comment);
            i = end;
        } else if (c == '"' || c == '\'') {
            size_t end = quotedEnd(i, c);
            emit(i, end, TokenKind::String);
            i = end;
        } else if (digit(c)) {
            size_t end = numberEnd(i);
            emit(i, end, TokenKind::Number);
            i = end;
        } else if (identStart(c)) {
            size_t end = identEnd(i);
            std::string_view word = line_.substr(i, end - i);
            if (oneOf(kCppKeywords, word)) emit(i, end, TokenKind::Keyword);
            else if (oneOf(kCppTypes, word)) emit(i, end, TokenKind::Type);
            else if (word.starts_with("__") || word == "threadIdx" || word == "blockIdx" || word == "blockDim")
                emit(i, end, TokenKind::Builtin);
            i = end;
        } else {
            ++i;
        }
    }
    return std::move(tokens_);
}

std::vector<Token> LineLexer::llvm() {
    size_t i = 0;
    while (i < line_.size()) {
        char c = line_[i];
        if (c == ';') {
            emit(i, line_.size(), TokenKind::Comment);
            break;
        }
        if (c == '"') {
            size_t end = quotedEnd(i, c);
            emit(i, end, TokenKind::String);
            i = end;
        } else if (c == '%' || c == '@' || c == '!' || c == '#') {
            size_t end = i + 1;
            if (end < line_.size() && line_[end] == '"') end = quotedEnd(end, '"');
            else
                while (end < line_.size() && (identChar(line_[end]) || line_[end] == '.' || line_[end] == '$')) ++end;
            emit(i, end, c == '!' || c == '#' ? TokenKind::Preprocessor : TokenKind::Variable);
            i = end;
        } else if (digit(c) || (c == '-' && i + 1 < line_.size() && digit(line_[i + 1]))) {
            size_t end = numberEnd(i + 1);
            emit(i, end, TokenKind::Number);
            i = end;
        } else if (identStart(c)) {
            size_t end = identEnd(i);
            while (end < line_.size() && line_[end] == '.') end = identEnd(end + 1);  // llvm.nvvm.read...
            std::string_view word = line_.substr(i, end - i);
            bool intType = word.size() > 1 && word[0] == 'i' &&
                           word.substr(1).find_first_not_of("0123456789") == std::string_view::npos;
            if (intType || oneOf(kLlvmTypes, word)) emit(i, end, TokenKind::Type);
            else if (oneOf(kLlvmKeywords, word)) emit(i, end, TokenKind::Keyword);
            i = end;
        } else {
            ++i;
        }
    }
    return std::move(tokens_);
}

}  // namespace

CodeLanguage codeLanguageFromName(std::string_view name) {
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower == "python" || lower == "triton" || lower == "py") return CodeLanguage::Python;
    if (lower == "cpp" || lower == "c++" || lower == "cuda" || lower == "c" || lower == "cu") return CodeLanguage::Cpp;
    if (lower == "llvm_ir" || lower == "llvm" || lower == "ll" || lower == "llvm-ir") return CodeLanguage::LlvmIr;
    return CodeLanguage::Plain;
}

const char* codeLanguageName(CodeLanguage language) {
    switch (language) {
        case CodeLanguage::Python: return "Python";
        case CodeLanguage::Cpp: return "C++/CUDA";
        case CodeLanguage::LlvmIr: return "LLVM IR";
        case CodeLanguage::Plain: return "text";
    }
    return "text";
}

std::vector<Token> tokenizeLine(std::string_view line, CodeLanguage language, LineState& state) {
    LineLexer lexer(line, state);
    switch (language) {
        case CodeLanguage::Python: return lexer.python();
        case CodeLanguage::Cpp: return lexer.cpp();
        case CodeLanguage::LlvmIr: return lexer.llvm();
        case CodeLanguage::Plain: return {};
    }
    return {};
}

HighlightedCode::HighlightedCode(std::string text, CodeLanguage language)
    : text_(std::move(text)), language_(language) {
    LineState state;
    size_t start = 0;
    while (start < text_.size()) {
        size_t end = text_.find('\n', start);
        if (end == std::string::npos) end = text_.size();
        size_t length = end - start;
        if (length > 0 && text_[end - 1] == '\r') --length;
        lines_.emplace_back(static_cast<uint32_t>(start), static_cast<uint32_t>(length));
        tokens_.push_back(tokenizeLine(std::string_view(text_).substr(start, length), language, state));
        start = end + 1;
    }
}

std::string_view HighlightedCode::line(size_t index) const {
    auto [offset, length] = lines_[index];
    return std::string_view(text_).substr(offset, length);
}

std::vector<TextMatch> findMatches(const HighlightedCode& code, std::string_view needle) {
    std::vector<TextMatch> matches;
    if (needle.empty()) return matches;
    for (size_t l = 0; l < code.lineCount(); ++l) {
        std::string_view line = code.line(l);
        for (size_t at = findIgnoreCase(line, needle); at != std::string_view::npos;
             at = findIgnoreCase(line, needle, at + needle.size()))
            matches.push_back({l, at});
    }
    return matches;
}

}  // namespace viz
