// Finds the kernels inside Inductor's generated wrapper: async_compile calls in Python modules and
// extern "C" functions in AOTInductor C++. One forward pass; kernel sources are never copied twice.
#include "parse/output_code.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "parse/text_scan.h"

namespace traces {
namespace {

using scan::trim;

constexpr std::string_view kAsyncCompile = "async_compile.";
constexpr std::string_view kExternC = "extern \"C\"";

struct PythonCall {
    size_t end = std::string_view::npos;  ///< index of the closing parenthesis, npos when unterminated
    std::optional<std::string_view> tripleQuoted;  ///< first '''...''' / """...""" argument
    std::string_view firstString;                  ///< first ordinary string argument (a kernel's name)
};

/// Scans a Python call from its opening parenthesis, stepping over string literals of every kind so that
/// brackets inside kernel sources do not count.
PythonCall scanPythonCall(std::string_view s, size_t open) {
    PythonCall call;
    int depth = 0;
    for (size_t i = open; i < s.size();) {
        char c = s[i];
        if (c == '\'' || c == '"') {
            const char triple[] = {c, c, c};
            std::string_view delimiter(triple, 3);
            if (s.substr(i, 3) == delimiter) {
                size_t close = s.find(delimiter, i + 3);
                std::string_view content = s.substr(i + 3, close == std::string_view::npos ? std::string_view::npos
                                                                                           : close - i - 3);
                if (depth == 1 && !call.tripleQuoted) call.tripleQuoted = content;
                i = close == std::string_view::npos ? s.size() : close + 3;
                continue;
            }
            size_t end = scan::skipQuoted(s, i);
            if (depth == 1 && call.firstString.empty() && end >= i + 2) call.firstString = s.substr(i + 1, end - i - 2);
            i = end;
            continue;
        }
        if (c == '#') {
            size_t newline = s.find('\n', i);
            i = newline == std::string_view::npos ? s.size() : newline;
            continue;
        }
        if (c == '(' || c == '[' || c == '{') ++depth;
        if (c == ')' || c == ']' || c == '}') {
            if (--depth == 0) {
                call.end = i;
                return call;
            }
        }
        ++i;
    }
    return call;
}

std::string kernelLanguage(std::string_view kind) {
    if (kind == "cpp" || kind == "cpp_pybinding") return "cpp";
    return std::string(kind);
}

/// `name = ` immediately before `pos` on the same line; empty when the call is not assigned to a name.
std::string_view assignedName(std::string_view s, size_t pos) {
    size_t lineStart = s.rfind('\n', pos == 0 ? 0 : pos - 1);
    lineStart = lineStart == std::string_view::npos ? 0 : lineStart + 1;
    std::string_view prefix = trim(s.substr(lineStart, pos - lineStart));
    if (!prefix.ends_with('=')) return {};
    std::string_view name = trim(prefix.substr(0, prefix.size() - 1));
    return scan::isIdentifier(name) ? name : std::string_view();
}

/// `key=` followed by a bracketed value inside a kernel source: "size_hints={'x': 4096}".
std::string bracketedSetting(std::string_view source, std::string_view key) {
    size_t pos = source.find(key);
    if (pos == std::string_view::npos) return {};
    size_t open = pos + key.size();
    if (open >= source.size() || (source[open] != '{' && source[open] != '[' && source[open] != '(')) return {};
    size_t close = scan::findClosingBracket(source, open);
    if (close == std::string_view::npos) return {};
    return std::string(source.substr(pos, close - pos + 1));
}

/// Start of the line that holds `pos`.
size_t lineStartOf(std::string_view s, size_t pos) {
    size_t newline = pos == 0 ? std::string_view::npos : s.rfind('\n', pos - 1);
    return newline == std::string_view::npos ? 0 : newline + 1;
}

/// "a, b, c" -> {"a", "b", "c"}, blanks dropped.
std::vector<std::string> splitNameList(std::string_view list) {
    std::vector<std::string> names;
    while (!list.empty()) {
        size_t comma = list.find(',');
        std::string_view name = trim(list.substr(0, comma));
        if (!name.empty()) names.emplace_back(name);
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    return names;
}

/// `%name : ... = call_function[...]` inside a "Graph fragment:" comment: the node's name when the line
/// defines a node computed by the kernel. Placeholders are the kernel's inputs, produced elsewhere.
std::string_view fragmentNodeName(std::string_view text) {
    if (!text.starts_with('%')) return {};
    size_t nameEnd = 1;
    while (nameEnd < text.size() && scan::isIdentChar(text[nameEnd])) ++nameEnd;
    std::string_view name = text.substr(1, nameEnd - 1);
    size_t equals = text.find(" = ", nameEnd);
    if (name.empty() || equals == std::string_view::npos) return {};
    std::string_view producer = text.substr(equals + 3);
    if (producer.starts_with("PlaceHolder[") || producer.starts_with("placeholder[")) return {};
    return name;
}

/// Inductor writes, in the comment block right above each kernel it defines, the Dynamo-graph nodes the
/// kernel computes ("# Topologically Sorted Source Nodes: [a, b], Original ATen: [...]") and the post-grad
/// graph it fused ("# Graph fragment:" then one "#   %name : ... = ..." line per node). Reads that block.
void readFusionComments(std::string_view source, size_t definitionLine, Kernel& kernel) {
    constexpr std::string_view kSourceNodes = "Topologically Sorted Source Nodes: [";
    constexpr std::string_view kFragment = "Graph fragment:";
    size_t blockStart = definitionLine;
    while (blockStart > 0) {
        size_t previous = lineStartOf(source, blockStart - 1);
        if (!scan::trimLeft(source.substr(previous, blockStart - previous)).starts_with('#')) break;
        blockStart = previous;
    }
    scan::LineReader lines(source.substr(blockStart, definitionLine - blockStart));
    bool inFragment = false;
    for (std::string_view line; lines.next(line);) {
        std::string_view text = trim(trim(line).substr(1));  // past the '#'
        if (text.starts_with(kSourceNodes)) {
            size_t close = text.find(']', kSourceNodes.size());
            kernel.sourceNodes = splitNameList(text.substr(kSourceNodes.size(), close - kSourceNodes.size()));
            inFragment = false;
        } else if (text == kFragment) {
            inFragment = true;
        } else if (inFragment) {
            if (!text.starts_with('%') && !text.starts_with("return")) {
                inFragment = false;
                continue;
            }
            std::string_view name = fragmentNodeName(text);
            bool seen = std::find(kernel.postGradNodes.begin(), kernel.postGradNodes.end(), name) !=
                        kernel.postGradNodes.end();
            if (!name.empty() && !seen) kernel.postGradNodes.emplace_back(name);
        }
    }
}

void splitPythonKernels(std::string_view source, std::vector<Kernel>& kernels) {
    for (size_t pos = source.find(kAsyncCompile); pos != std::string_view::npos;
         pos = source.find(kAsyncCompile, pos + 1)) {
        std::string_view name = assignedName(source, pos);
        size_t kindStart = pos + kAsyncCompile.size();
        size_t kindEnd = kindStart;
        while (kindEnd < source.size() && scan::isIdentChar(source[kindEnd])) ++kindEnd;
        if (name.empty() || kindEnd >= source.size() || source[kindEnd] != '(') continue;

        PythonCall call = scanPythonCall(source, kindEnd);
        Kernel kernel;
        kernel.index = static_cast<int>(kernels.size());
        kernel.name = std::string(name);
        kernel.language = kernelLanguage(source.substr(kindStart, kindEnd - kindStart));
        size_t callEnd = call.end == std::string_view::npos ? source.size() : call.end + 1;
        kernel.source = call.tripleQuoted ? std::string(*call.tripleQuoted)
                                          : std::string(source.substr(kindStart, callEnd - kindStart));
        if (kernel.language == "triton") kernel.launchConfig = bracketedSetting(kernel.source, "size_hints=");
        readFusionComments(source, lineStartOf(source, pos), kernel);
        kernels.push_back(std::move(kernel));
        pos = callEnd - 1;
    }
    if (kernels.empty()) return;

    // The wrapper launches kernels as `name.run(args..., stream=...)` (older: `grid=grid(n)` among the args).
    std::unordered_map<std::string_view, size_t> byName;
    for (size_t i = 0; i < kernels.size(); ++i)
        if (kernels[i].language == "triton") byName.emplace(kernels[i].name, i);
    std::vector<bool> launched(kernels.size(), false);
    constexpr std::string_view kRun = ".run(";
    for (size_t pos = source.find(kRun); pos != std::string_view::npos; pos = source.find(kRun, pos + 1)) {
        size_t nameStart = pos;
        while (nameStart > 0 && scan::isIdentChar(source[nameStart - 1])) --nameStart;
        auto it = byName.find(source.substr(nameStart, pos - nameStart));
        if (it == byName.end() || launched[it->second]) continue;
        size_t open = pos + kRun.size() - 1;
        size_t close = scan::findClosingBracket(source.substr(0, std::min(source.size(), open + 4096)), open);
        if (close == std::string_view::npos) continue;
        launched[it->second] = true;
        std::string& config = kernels[it->second].launchConfig;
        config += (config.empty() ? "" : "; ") + std::string("run") + std::string(source.substr(open, close - open + 1));
    }
}

/// Index just past the C/C++ block opened at `open` ('{'), skipping literals and comments; npos if unterminated.
size_t skipCppBlock(std::string_view s, size_t open) {
    int depth = 0;
    for (size_t i = open; i < s.size();) {
        char c = s[i];
        if (c == '"' || c == '\'') {
            size_t j = i + 1;
            while (j < s.size() && s[j] != c && s[j] != '\n') j += s[j] == '\\' ? 2 : 1;
            i = j + 1;
            continue;
        }
        if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
            size_t newline = s.find('\n', i);
            i = newline == std::string_view::npos ? s.size() : newline;
            continue;
        }
        if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
            size_t close = s.find("*/", i + 2);
            i = close == std::string_view::npos ? s.size() : close + 2;
            continue;
        }
        if (c == '{') ++depth;
        if (c == '}' && --depth == 0) return i + 1;
        ++i;
    }
    return std::string_view::npos;
}

void splitCppKernels(std::string_view source, std::vector<Kernel>& kernels) {
    for (size_t pos = source.find(kExternC); pos != std::string_view::npos; pos = source.find(kExternC, pos + 1)) {
        size_t paren = source.find('(', pos);
        size_t stop = source.find_first_of(";{", pos + kExternC.size());
        if (paren == std::string_view::npos || (stop != std::string_view::npos && stop < paren)) continue;
        size_t nameEnd = paren;
        while (nameEnd > pos && scan::isSpace(source[nameEnd - 1])) --nameEnd;
        size_t nameStart = nameEnd;
        while (nameStart > pos && scan::isIdentChar(source[nameStart - 1])) --nameStart;
        size_t paramsEnd = scan::findClosingBracket(source, paren);
        if (nameStart == nameEnd || paramsEnd == std::string_view::npos) continue;
        size_t bodyOpen = source.find_first_of(";{", paramsEnd);
        if (bodyOpen == std::string_view::npos || source[bodyOpen] == ';') continue;  // a declaration
        size_t bodyEnd = skipCppBlock(source, bodyOpen);
        size_t end = bodyEnd == std::string_view::npos ? source.size() : bodyEnd;

        Kernel kernel;
        kernel.index = static_cast<int>(kernels.size());
        kernel.name = std::string(source.substr(nameStart, nameEnd - nameStart));
        kernel.language = "cpp";
        kernel.source = std::string(source.substr(pos, end - pos));
        kernels.push_back(std::move(kernel));
        pos = end - 1;
    }
}

}  // namespace

std::vector<AnnotatedCall> annotatedCalls(std::string_view source, const std::vector<Kernel>& kernels) {
    constexpr std::string_view kSourceNodes = "# Topologically Sorted Source Nodes: [";
    std::vector<AnnotatedCall> calls;
    std::optional<AnnotatedCall> pending;  // a comment read, its call not yet
    scan::LineReader lines(source);
    for (std::string_view line; lines.next(line);) {
        bool indented = !line.empty() && (line.front() == ' ' || line.front() == '\t');
        std::string_view text = trim(line);
        if (text.starts_with(kSourceNodes)) {
            // Comments above kernel definitions sit at the module's top level; the calls' are inside call().
            if (!indented) continue;
            size_t close = text.find(']', kSourceNodes.size());
            pending.emplace();
            pending->sourceNodes = splitNameList(text.substr(kSourceNodes.size(), close - kSourceNodes.size()));
            continue;
        }
        if (!pending || text.empty() || text.starts_with('#')) continue;
        size_t open = text.find('(');
        if (open == std::string_view::npos) continue;
        std::string_view callee = text.substr(0, open);
        if (size_t equals = callee.find(" = "); equals != std::string_view::npos) callee = trim(callee.substr(equals + 3));
        // Stream and buffer set-up between the comment and its call.
        if (callee.starts_with("get_raw_stream") || callee.starts_with("empty_strided") || callee.starts_with("assert_"))
            continue;
        if (callee.ends_with(".run")) callee.remove_suffix(4);
        pending->callee = std::string(callee);
        pending->generatedKernel = std::any_of(kernels.begin(), kernels.end(),
                                               [&](const Kernel& k) { return k.name == callee; });
        calls.push_back(std::move(*pending));
        pending.reset();
    }
    return calls;
}

std::string outputCodeLanguage(std::string_view source) {
    std::string_view head = scan::trimLeft(source);
    if (head.empty()) return {};
    for (std::string_view cpp : {"#include", "#pragma", "#define", "#if", "//", "/*", "extern ", "namespace ",
                                 "template", "static ", "using "})
        if (head.starts_with(cpp)) return "cpp";
    for (std::string_view python : {"# AOT ID", "from ", "import ", "#", "\"\"\"", "def ", "class "})
        if (head.starts_with(python)) return "python";
    if (source.find("#include") != std::string_view::npos) return "cpp";
    return "python";
}

SplitOutputCode splitOutputCode(std::string_view source) {
    SplitOutputCode out;
    out.language = outputCodeLanguage(source);
    if (out.language == "python") splitPythonKernels(source, out.kernels);
    else if (out.language == "cpp") splitCppKernels(source, out.kernels);
    return out;
}

}  // namespace traces
