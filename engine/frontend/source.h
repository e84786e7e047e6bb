// Source text, positions and diagnostics shared by every front-end pass: a SourceFile, line:col positions,
// the `file:line:col: error: ...` message with its caret, and Expected<T> for results that may fail.
#pragma once

#include <cstddef>
#include <exception>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace eng::frontend {

/// A point in the source. Lines and columns start at 1; columns count Unicode code points, so a caret lines
/// up under non-ASCII text too.
struct SourcePos {
    int line = 1;
    int column = 1;

    friend bool operator==(const SourcePos&, const SourcePos&) = default;
    friend auto operator<=>(const SourcePos&, const SourcePos&) = default;
};

/// A half-open range [begin, end): `end` is the position just after the last character.
struct SourceRange {
    SourcePos begin;
    SourcePos end;

    friend bool operator==(const SourceRange&, const SourceRange&) = default;
};

/// The smallest range covering both.
SourceRange spanning(const SourceRange& first, const SourceRange& last);

/// One script: its display name (used in messages and code objects) and its UTF-8 text, with line breaks
/// normalized to LF.
class SourceFile {
public:
    SourceFile(std::string name, std::string text);

    const std::string& name() const { return name_; }
    const std::string& text() const { return text_; }
    int lineCount() const { return static_cast<int>(lineStarts_.size()); }
    /// The text of a 1-based line without its line break; empty when out of range.
    std::string_view lineText(int line) const;

private:
    std::string name_;
    std::string text_;
    std::vector<size_t> lineStarts_;
};

/// A user-facing error: where it is and what was expected. render() gives the clang/Python form:
///   file:line:col: error: message
///   <the source line>
///   <spaces (tabs kept) up to the column>^
struct Diagnostic {
    std::string file;
    SourcePos pos;
    std::string message;
    std::string sourceLine;

    std::string render() const;
};

Diagnostic makeDiagnostic(const SourceFile& file, SourcePos pos, std::string message);

/// Thrown inside the passes and caught at their public entry points, which return Expected: the passes are
/// recursive and stop at the first error, as Python's compiler does.
class FrontendError : public std::exception {
public:
    explicit FrontendError(Diagnostic diagnostic);
    const char* what() const noexcept override { return rendered_.c_str(); }
    const Diagnostic& diagnostic() const { return diagnostic_; }

private:
    Diagnostic diagnostic_;
    std::string rendered_;
};

[[noreturn]] void throwError(const SourceFile& file, SourcePos pos, std::string message);

/// Either a value or the Diagnostic that prevented it.
template <typename T>
class [[nodiscard]] Expected {
public:
    Expected(T value) : state_(std::move(value)) {}
    Expected(Diagnostic error) : state_(std::move(error)) {}

    bool hasValue() const { return state_.index() == 0; }
    explicit operator bool() const { return hasValue(); }
    T& value() { return std::get<0>(state_); }
    const T& value() const { return std::get<0>(state_); }
    T& operator*() { return value(); }
    const T& operator*() const { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    const Diagnostic& error() const { return std::get<1>(state_); }

private:
    std::variant<T, Diagnostic> state_;
};

/// Runs `pass`, turning a FrontendError into the error side of Expected.
template <typename T, typename Pass>
Expected<T> catchFrontendError(Pass&& pass) {
    try {
        return Expected<T>(pass());
    } catch (const FrontendError& error) {
        return Expected<T>(error.diagnostic());
    }
}

}  // namespace eng::frontend
