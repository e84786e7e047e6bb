// Small string_view scanning helpers shared by the payload parsers in traces/parse and the workbench's text views
// (header-only).
// They are hand-written rather than regex based because they run over every payload of logs of hundreds of MB.
#pragma once

#include <array>
#include <charconv>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace traces::scan {

inline bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }
inline bool isDigit(char c) { return c >= '0' && c <= '9'; }
inline bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
inline bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }

inline std::string_view trimLeft(std::string_view s) {
    size_t i = 0;
    while (i < s.size() && isSpace(s[i])) ++i;
    return s.substr(i);
}

inline std::string_view trimRight(std::string_view s) {
    size_t n = s.size();
    while (n > 0 && isSpace(s[n - 1])) --n;
    return s.substr(0, n);
}

inline std::string_view trim(std::string_view s) { return trimRight(trimLeft(s)); }

/// Leading blanks of a line; a tab counts as one column (payload lines never mix them in practice).
inline size_t indentOf(std::string_view line) {
    size_t i = 0;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    return i;
}

inline bool isIdentifier(std::string_view s) {
    if (s.empty() || !isIdentStart(s.front())) return false;
    for (char c : s)
        if (!isIdentChar(c)) return false;
    return true;
}

inline std::optional<int> parseInt(std::string_view s) {
    int value = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
    return value;
}

/// Iterates the lines of a text without copying; a trailing '\r' is dropped from each line and a final
/// newline does not produce an extra empty line.
class LineReader {
public:
    explicit LineReader(std::string_view text) : text_(text) {}

    bool next(std::string_view& line) {
        if (pos_ >= text_.size()) return false;
        size_t end = text_.find('\n', pos_);
        if (end == std::string_view::npos) end = text_.size();
        line = text_.substr(pos_, end - pos_);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        pos_ = end + 1;
        return true;
    }

private:
    std::string_view text_;
    size_t pos_ = 0;
};

/// Position just past the Python string literal whose opening quote is at `open`, honouring backslash
/// escapes; returns s.size() for an unterminated literal. Single-line literals only.
inline size_t skipQuoted(std::string_view s, size_t open) {
    const char quote = s[open];
    size_t i = open + 1;
    while (i < s.size()) {
        if (s[i] == '\\') {
            i += 2;
            continue;
        }
        if (s[i] == quote) return i + 1;
        ++i;
    }
    return s.size();
}

/// What one line of Python-like code looks like to a bracket-counting reader.
struct CodeLineScan {
    size_t commentPos = std::string_view::npos;  ///< where a `#` comment starts, outside string literals
    int depthChange = 0;                         ///< net ( [ { minus ) ] }
};

inline CodeLineScan scanCodeLine(std::string_view line) {
    CodeLineScan out;
    for (size_t i = 0; i < line.size();) {
        char c = line[i];
        if (c == '\'' || c == '"') {
            i = skipQuoted(line, i);
            continue;
        }
        if (c == '#') {
            out.commentPos = i;
            break;
        }
        if (c == '(' || c == '[' || c == '{') ++out.depthChange;
        if (c == ')' || c == ']' || c == '}') --out.depthChange;
        ++i;
    }
    return out;
}

/// Index of the bracket closing the one at `open` (quote aware), or npos.
inline size_t findClosingBracket(std::string_view s, size_t open) {
    int depth = 0;
    for (size_t i = open; i < s.size();) {
        char c = s[i];
        if (c == '\'' || c == '"') {
            i = skipQuoted(s, i);
            continue;
        }
        if (c == '(' || c == '[' || c == '{') ++depth;
        if (c == ')' || c == ']' || c == '}') {
            if (--depth == 0) return i;
        }
        ++i;
    }
    return std::string_view::npos;
}

/// Splits at `separator` where it is outside brackets and string literals; pieces are trimmed.
template <typename Fn>
void forEachTopLevelPiece(std::string_view s, char separator, Fn&& fn) {
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i < s.size();) {
        char c = s[i];
        if (c == '\'' || c == '"') {
            i = skipQuoted(s, i);
            continue;
        }
        if (c == '(' || c == '[' || c == '{') ++depth;
        else if (c == ')' || c == ']' || c == '}') --depth;
        else if (c == separator && depth == 0) {
            fn(trim(s.substr(start, i - start)));
            start = i + 1;
        }
        ++i;
    }
    fn(trim(s.substr(start)));
}

/// Quotes and brackets: the bytes that change a scan's nesting, found by one table lookup per byte.
inline constexpr std::array<bool, 256> kNestingBytes = [] {
    std::array<bool, 256> table{};
    for (unsigned char c : std::string_view("'\"()[]{}")) table[c] = true;
    return table;
}();

/// First occurrence of `needle` outside brackets and string literals, or npos.
inline size_t findTopLevel(std::string_view s, std::string_view needle, size_t from = 0) {
    int depth = 0;
    for (size_t i = from; i < s.size();) {
        char c = s[i];
        if (!kNestingBytes[static_cast<unsigned char>(c)]) {  // most bytes: only the needle can start here
            if (depth == 0 && (needle.empty() || c == needle.front()) && s.substr(i, needle.size()) == needle)
                return i;
            ++i;
            continue;
        }
        if (c == '\'' || c == '"') {
            i = skipQuoted(s, i);
            continue;
        }
        // The first byte first: comparing at every position would call memcmp once per character.
        if (depth == 0 && (needle.empty() || c == needle.front()) && s.substr(i, needle.size()) == needle) return i;
        if (c == '(' || c == '[' || c == '{') ++depth;
        else if (c == ')' || c == ']' || c == '}') --depth;
        ++i;
    }
    return std::string_view::npos;
}

/// Replaces Dynamo's local-scope spelling `L['x']` by `x`, as Dynamo's own messages do (strip_local_scope).
inline std::string stripLocalScope(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    size_t copied = 0;  // the text before this is in `out`
    for (size_t i = s.find("L['"); i != std::string_view::npos; i = s.find("L['", i)) {
        const bool atBoundary = i == 0 || !(isIdentChar(s[i - 1]) || s[i - 1] == '.' || s[i - 1] == '\'');
        size_t close = atBoundary ? s.find("']", i + 3) : std::string_view::npos;
        if (close != std::string_view::npos && isIdentifier(s.substr(i + 3, close - i - 3))) {
            out.append(s.substr(copied, i - copied));
            out.append(s.substr(i + 3, close - i - 3));
            i = copied = close + 2;
            continue;
        }
        ++i;
    }
    out.append(s.substr(copied));
    return out;
}

}  // namespace traces::scan
