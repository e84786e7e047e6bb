// The read position shared by the lexer and the string-literal scanner: a byte offset into a SourceFile
// that keeps its line:col up to date. Internal to the front end.
#pragma once

#include <string>
#include <string_view>

#include "frontend/source.h"

namespace eng::frontend {

class LexCursor {
public:
    LexCursor(const SourceFile& file, size_t begin, size_t end, SourcePos pos)
        : file_(file), text_(file.text()), offset_(begin), end_(end), pos_(pos) {}

    const SourceFile& file() const { return file_; }
    bool atEnd() const { return offset_ >= end_; }
    size_t offset() const { return offset_; }
    SourcePos pos() const { return pos_; }
    /// The byte `ahead` places on, or '\0' past the end of the range.
    char peek(size_t ahead = 0) const { return offset_ + ahead < end_ ? text_[offset_ + ahead] : '\0'; }
    bool startsWith(std::string_view what) const {
        return offset_ + what.size() <= end_ && text_.compare(offset_, what.size(), what) == 0;
    }
    std::string_view slice(size_t begin, size_t end) const {
        return std::string_view(text_).substr(begin, end - begin);
    }

    char advance() {
        char c = text_[offset_++];
        if (c == '\n') {
            ++pos_.line;
            pos_.column = 1;
        } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
            ++pos_.column;  // UTF-8 continuation bytes belong to the code point already counted
        }
        return c;
    }

    [[noreturn]] void fail(SourcePos at, std::string message) const { throwError(file_, at, std::move(message)); }

private:
    const SourceFile& file_;
    const std::string& text_;
    size_t offset_;
    size_t end_;
    SourcePos pos_;
};

inline bool isIdentifierStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (static_cast<unsigned char>(c) >= 0x80);
}
inline bool isDigit(char c) {
    return c >= '0' && c <= '9';
}
inline bool isIdentifierChar(char c) {
    return isIdentifierStart(c) || isDigit(c);
}

}  // namespace eng::frontend
