// Reads Dynamo's graph-break reports (header, multi-line reason, Python user traceback) and the older
// free-text restart reasons into ParsedGraphBreak.
#include "parse/graph_break_text.h"

#include <tuple>
#include <vector>

#include "parse/text_scan.h"

namespace traces {
namespace {

using scan::trim;
using scan::trimLeft;
using scan::trimRight;

constexpr std::string_view kUserCodeAt = " in user code at ";
constexpr std::string_view kReasonLabel = "Graph Break Reason:";
constexpr std::string_view kTracebackLabel = "User code traceback:";
constexpr std::string_view kPreface = "Encountered graph break when attempting to trace";

/// "file:line" -> (file, line); a missing or odd line number leaves the text whole in file.
std::pair<std::string, int> splitFileLine(std::string_view location) {
    location = trim(location);
    size_t colon = location.rfind(':');
    if (colon != std::string_view::npos) {
        if (std::optional<int> line = scan::parseInt(location.substr(colon + 1)))
            return {std::string(location.substr(0, colon)), *line};
    }
    return {std::string(location), 0};
}

bool isCaretLine(std::string_view line) {
    line = trim(line);
    if (line.empty()) return false;
    for (char c : line)
        if (c != '^' && c != '~') return false;
    return true;
}

/// Frames of Dynamo itself say nothing about the user's program.
bool isDynamoInternal(const Frame& frame) {
    return frame.file.find("/torch/_dynamo/") != std::string::npos || frame.file.starts_with("torch/_dynamo/");
}

std::string_view unquote(std::string_view text) {
    text = trim(text);
    if (text.size() >= 2 && text.front() == '\'' && text.back() == '\'') return text.substr(1, text.size() - 2);
    return text;
}

}  // namespace

std::optional<Frame> parseTracebackFileLine(std::string_view line) {
    std::string_view t = trimLeft(line);
    if (!t.starts_with("File \"")) return std::nullopt;
    size_t quote = t.find("\", line ", 6);
    if (quote == std::string_view::npos) return std::nullopt;
    Frame frame;
    frame.file = std::string(t.substr(6, quote - 6));
    std::string_view rest = t.substr(quote + 8);
    size_t digits = 0;
    while (digits < rest.size() && scan::isDigit(rest[digits])) ++digits;
    std::optional<int> number = scan::parseInt(rest.substr(0, digits));
    if (!number) return std::nullopt;
    frame.line = *number;
    rest = rest.substr(digits);
    if (rest.starts_with(", in ")) frame.function = std::string(trim(rest.substr(5)));
    return frame;
}

std::string graphBreakType(std::string_view reason) {
    reason = unquote(reason);
    scan::LineReader reader(reason);
    std::string_view line;
    std::string_view headline;
    bool afterPreface = false;
    while (reader.next(line)) {
        std::string_view t = trim(line);
        if (t.empty()) continue;
        if (headline.empty()) {
            headline = t;
            // Current PyTorch opens with a preface naming the bytecode; the type is the next paragraph.
            if (!t.starts_with(kPreface)) break;
            afterPreface = true;
            continue;
        }
        if (afterPreface) {
            headline = t;
            break;
        }
    }
    if (size_t inFile = headline.find(" in file "); inFile != std::string_view::npos && headline.starts_with("skip "))
        headline = headline.substr(0, inFile);
    if (headline.starts_with("<class '") && headline.ends_with("'>")) {
        std::string_view name = headline.substr(8, headline.size() - 10);
        headline = name.substr(name.rfind('.') == std::string_view::npos ? 0 : name.rfind('.') + 1);
    }
    return std::string(headline);
}

ParsedGraphBreak parseGraphBreakText(std::string_view text) {
    enum class Section { Start, Reason, Frames, Done };
    ParsedGraphBreak out;
    Section section = Section::Start;
    bool expectSource = false;
    scan::LineReader reader(text);
    std::string_view line;
    while (section != Section::Done && reader.next(line)) {
        std::string_view t = trim(line);
        switch (section) {
        case Section::Start:
            if (t.empty()) break;
            if (t.starts_with("Graph break") && t.find(kUserCodeAt) != std::string_view::npos) {
                std::tie(out.userFile, out.userLine) = splitFileLine(t.substr(t.find(kUserCodeAt) + kUserCodeAt.size()));
            } else if (t.starts_with(kReasonLabel)) {
                out.reason = std::string(trim(t.substr(kReasonLabel.size())));
                section = Section::Reason;
            } else {
                // No header: the whole text is a reason in an older or foreign wording.
                out.reason = std::string(trim(text.substr(static_cast<size_t>(line.data() - text.data()))));
                section = Section::Done;
            }
            break;
        case Section::Reason:
            if (t == kTracebackLabel) section = Section::Frames;
            else if (line.starts_with("Traceback (most recent call last)")) section = Section::Done;
            else out.reason += "\n" + std::string(trimRight(line));
            break;
        case Section::Frames:
            if (std::optional<Frame> frame = parseTracebackFileLine(line)) {
                out.userStack.push_back(std::move(*frame));
                expectSource = true;
            } else if (t.empty() || t.starts_with("=====") || isCaretLine(t)) {
                expectSource = expectSource && !t.empty();
            } else if (scan::indentOf(line) > 0) {
                if (expectSource && !out.userStack.empty()) out.userStack.back().source = std::string(t);
                expectSource = false;
            } else {
                section = Section::Done;  // "Traceback (most recent call last):", a NOTE, ...
            }
            break;
        case Section::Done:
            break;
        }
    }
    out.reason = std::string(trimRight(out.reason));
    std::erase_if(out.userStack, isDynamoInternal);
    if (out.userFile.empty() && !out.userStack.empty()) {
        out.userFile = out.userStack.back().file;
        out.userLine = out.userStack.back().line;
    }
    out.breakType = graphBreakType(out.reason);
    return out;
}

ParsedGraphBreak parseRestartReason(std::string_view text) {
    ParsedGraphBreak out;
    out.reason = std::string(unquote(trimRight(text)));
    out.breakType = graphBreakType(out.reason);
    return out;
}

std::string graphBreakCounterKey(std::string_view reason) {
    reason = trimRight(reason);
    size_t start = reason.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos) return {};
    std::string_view body = reason.substr(start);
    if (!body.starts_with(kPreface)) return std::string(body);
    // Drop the preface line, then the blank lines between it and the message Dynamo counts. The reason was
    // trimmed on the right, so a preface with anything after it has a non-blank line left.
    size_t lineEnd = body.find('\n');
    if (lineEnd == std::string_view::npos) return std::string(body);
    body = body.substr(lineEnd + 1);
    while (true) {
        size_t next = body.find('\n');
        if (!trim(body.substr(0, next)).empty() || next == std::string_view::npos) break;
        body = body.substr(next + 1);
    }
    return std::string(body);
}

std::string graphBreakDedupKey(const ParsedGraphBreak& graphBreak) {
    std::string file = graphBreak.userFile;
    int line = graphBreak.userLine;
    if (file.empty() && !graphBreak.userStack.empty()) {
        file = graphBreak.userStack.back().file;
        line = graphBreak.userStack.back().line;
    }
    return graphBreak.breakType + "@" + file + ":" + std::to_string(line);
}

}  // namespace traces
