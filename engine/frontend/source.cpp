// SourceFile line indexing and the rendering of diagnostics with their caret line.
#include "frontend/source.h"

#include <fmt/core.h>

#include <algorithm>

namespace eng::frontend {

SourceRange spanning(const SourceRange& first, const SourceRange& last) {
    return SourceRange{std::min(first.begin, last.begin), std::max(first.end, last.end)};
}

SourceFile::SourceFile(std::string name, std::string text) : name_(std::move(name)) {
    // Line breaks are normalized once here (CRLF and lone CR become LF) so that no pass has to care.
    text_.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\r') {
            text_ += text[i];
        } else {
            text_ += '\n';
            if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
        }
    }
    lineStarts_.push_back(0);
    for (size_t i = 0; i < text_.size(); ++i)
        if (text_[i] == '\n' && i + 1 < text_.size()) lineStarts_.push_back(i + 1);
}

std::string_view SourceFile::lineText(int line) const {
    if (line < 1 || line > lineCount()) return {};
    size_t begin = lineStarts_[static_cast<size_t>(line - 1)];
    size_t end = line < lineCount() ? lineStarts_[static_cast<size_t>(line)] : text_.size();
    std::string_view text(text_.data() + begin, end - begin);
    if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
    return text;
}

std::string Diagnostic::render() const {
    std::string out = fmt::format("{}:{}:{}: error: {}\n", file, pos.line, pos.column, message);
    if (sourceLine.empty()) return out;
    out += sourceLine;
    out += '\n';
    // Walk the line by code points so that the caret sits under the column; tabs are copied so that the
    // terminal expands them the same way in both lines.
    int column = 1;
    for (size_t i = 0; i < sourceLine.size() && column < pos.column; ++i) {
        unsigned char c = static_cast<unsigned char>(sourceLine[i]);
        if ((c & 0xC0) == 0x80) continue;
        out += c == '\t' ? '\t' : ' ';
        ++column;
    }
    for (; column < pos.column; ++column) out += ' ';
    out += "^\n";
    return out;
}

Diagnostic makeDiagnostic(const SourceFile& file, SourcePos pos, std::string message) {
    return Diagnostic{file.name(), pos, std::move(message), std::string(file.lineText(pos.line))};
}

FrontendError::FrontendError(Diagnostic diagnostic)
    : diagnostic_(std::move(diagnostic)), rendered_(diagnostic_.render()) {}

void throwError(const SourceFile& file, SourcePos pos, std::string message) {
    throw FrontendError(makeDiagnostic(file, pos, std::move(message)));
}

}  // namespace eng::frontend
