// Hand-written, single-pass reader of FX readable graph text: forward() signature, body statements,
// `# File:` comments and type annotations become GraphNode rows (see fx_graph_text.h for the rules).
#include "parse/fx_graph_text.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <optional>

#include "parse/fx_operators.h"
#include "parse/node_name_table.h"
#include "parse/text_scan.h"

namespace traces {
namespace {

using scan::isIdentChar;
using scan::isIdentStart;
using scan::trim;
using scan::trimLeft;
using fx_operators::findInfixOperator;
using fx_operators::InPlaceOperation;
using fx_operators::inPlaceOperationOf;

struct SourceLocation {
    std::string file;
    int line = 0;
    std::string function;
    std::string code;
};

constexpr std::string_view kDefForward = "def forward(";

/// "path:line in fn, code: src" (the text after "# File: ").
SourceLocation parseFileComment(std::string_view rest) {
    SourceLocation loc;
    std::string_view where = rest;
    if (size_t codePos = rest.find(", code: "); codePos != std::string_view::npos) {
        where = rest.substr(0, codePos);
        loc.code = std::string(trim(rest.substr(codePos + 8)));
    }
    // Paths may contain " in " or ':' (Windows drives); function names never contain blanks.
    if (size_t inPos = where.rfind(" in "); inPos != std::string_view::npos) {
        loc.function = std::string(trim(where.substr(inPos + 4)));
        where = where.substr(0, inPos);
    }
    where = trim(where);
    size_t colon = where.rfind(':');
    std::optional<int> line = colon == std::string_view::npos ? std::nullopt : scan::parseInt(where.substr(colon + 1));
    if (line) {
        loc.line = *line;
        where = where.substr(0, colon);
    }
    loc.file = std::string(where);
    return loc;
}

/// Length of the dotted name (`torch.ops.aten.mul.Tensor`) starting at s[0], 0 when there is none.
size_t dottedNameLength(std::string_view s) {
    size_t i = 0;
    while (i < s.size() && isIdentStart(s[i])) {
        while (i < s.size() && isIdentChar(s[i])) ++i;
        if (i + 1 < s.size() && s[i] == '.' && isIdentStart(s[i + 1])) {
            ++i;
            continue;
        }
        break;
    }
    return i;
}

void appendPiece(std::string& joined, std::string_view piece) {
    if (piece.empty()) return;
    if (!joined.empty()) {
        char last = joined.back();
        char first = piece.front();
        bool tight = last == '(' || last == '[' || last == '{' || first == ')' || first == ']' || first == '}';
        if (!tight) joined.push_back(' ');
    }
    joined.append(piece);
}

void applyValueType(std::string_view annotation, GraphNode& node) {
    FxValueType type = parseFxValueType(annotation);
    node.dtype = std::move(type.dtype);
    node.shape = std::move(type.shape);
    node.stride = std::move(type.stride);
    node.device = std::move(type.device);
}

/// Thrown by addNode past the node limit; parseFxGraphText turns it into an empty result.
struct TooManyNodes {};

class FxGraphParser {
public:
    explicit FxGraphParser(size_t maxNodes) : maxNodes_(maxNodes) {}
    std::vector<GraphNode> parse(std::string_view text);

private:
    void parseSignature(std::string_view signature);
    void addParameter(std::string_view param);
    void addPlaceholder(std::string_view name, std::string_view target, std::string_view annotation, bool quoted);
    void handleComment(std::string_view comment);
    void handleStatement(std::string_view statement);
    void handleUnpack(std::string_view statement);
    void handleAssignment(std::string_view name, std::string_view annotation, std::string_view expr);
    bool renamePlaceholder(std::string_view newName, std::string_view argumentName);
    void classify(std::string_view expr, GraphNode& node) const;
    std::vector<std::string> referencedNodes(std::string_view expr);
    size_t addNode(GraphNode&& node);
    void dropSignaturePlaceholders();

    size_t maxNodes_;
    std::vector<GraphNode> nodes_;
    NodeNameTable byName_{nodes_};
    std::vector<size_t> seenStamp_;  // per node: the last statement that listed it as an input
    size_t stamp_ = 0;
    std::optional<SourceLocation> source_;
    size_t signaturePlaceholders_ = 0;
    /// Set while the statement naming an in-place operation's node is handled: the node computes this.
    std::optional<InPlaceOperation> inPlace_;
};

std::vector<GraphNode> FxGraphParser::parse(std::string_view text) {
    // Real graphs print a node per 150-200 bytes (its line and its "# File:" comment): room for that many saves
    // moving every node several times as the list grows, and the cap keeps huge graphs from reserving too much.
    nodes_.reserve(std::min({text.size() / 192, maxNodes_, size_t{65536}}));
    // The top-level forward is the least indented one: nested submodule classes print theirs deeper.
    std::optional<size_t> forwardOffset;
    size_t forwardIndent = 0;
    {
        scan::LineReader reader(text);
        std::string_view line;
        while (reader.next(line)) {
            size_t indent = scan::indentOf(line);
            if (line.substr(indent).starts_with(kDefForward) && (!forwardOffset || indent < forwardIndent)) {
                forwardOffset = static_cast<size_t>(line.data() - text.data());
                forwardIndent = indent;
            }
        }
    }

    std::string_view body = text;
    if (forwardOffset) {
        // Collect the (possibly multi-line) signature up to the bracket that closes "forward(".
        scan::LineReader reader(text.substr(*forwardOffset));
        std::string signature;
        int depth = 0;
        std::string_view line;
        while (reader.next(line)) {
            scan::CodeLineScan lineScan = scan::scanCodeLine(line);
            appendPiece(signature, trim(line.substr(0, lineScan.commentPos)));
            depth += lineScan.depthChange;
            if (depth <= 0) break;
        }
        parseSignature(signature);
        signaturePlaceholders_ = nodes_.size();
        const char* bodyStart = line.data() + line.size();
        body = text.substr(std::min(text.size(), static_cast<size_t>(bodyStart - text.data())));
    }

    scan::LineReader reader(body);
    std::string_view line;
    std::string pending;
    int pendingDepth = 0;
    while (reader.next(line)) {
        scan::CodeLineScan lineScan = scan::scanCodeLine(line);
        std::string_view code = trim(line.substr(0, lineScan.commentPos));
        if (!pending.empty()) {
            appendPiece(pending, code);
            pendingDepth += lineScan.depthChange;
            if (pendingDepth <= 0) {
                handleStatement(pending);
                pending.clear();
            }
            continue;
        }
        if (trim(line).empty()) {
            source_.reset();
            continue;
        }
        // A line back at the def's indentation ends the body: a nested class, another method, a trailer.
        if (forwardOffset && scan::indentOf(line) <= forwardIndent) break;
        if (code.empty()) {
            if (lineScan.commentPos != std::string_view::npos) handleComment(line.substr(lineScan.commentPos + 1));
            continue;
        }
        if (lineScan.depthChange > 0) {
            pending = std::string(code);
            pendingDepth = lineScan.depthChange;
            continue;
        }
        handleStatement(code);
    }
    if (!pending.empty()) handleStatement(pending);  // truncated payload: keep what the last statement says

    for (size_t i = 0; i < nodes_.size(); ++i) nodes_[i].index = static_cast<int>(i);
    return std::move(nodes_);
}

void FxGraphParser::parseSignature(std::string_view signature) {
    size_t open = signature.find('(');
    if (open == std::string_view::npos) return;
    size_t close = scan::findClosingBracket(signature, open);
    std::string_view params = signature.substr(open + 1, close == std::string_view::npos ? std::string_view::npos
                                                                                          : close - open - 1);
    scan::forEachTopLevelPiece(params, ',', [this](std::string_view param) { addParameter(param); });
}

void FxGraphParser::addParameter(std::string_view param) {
    if (param.empty() || param == "self") return;
    std::string_view target = param;
    std::string_view annotation;
    if (size_t eq = scan::findTopLevel(param, "="); eq != std::string_view::npos) target = trim(param.substr(0, eq));
    if (size_t colon = scan::findTopLevel(target, ":"); colon != std::string_view::npos) {
        annotation = trim(target.substr(colon + 1));
        target = trim(target.substr(0, colon));
    }
    bool quoted = annotation.size() >= 2 && (annotation.front() == '"' || annotation.front() == '\'');
    if (quoted) annotation = annotation.substr(1, annotation.size() - 2);
    std::string_view name = target;
    while (!name.empty() && name.front() == '*') name.remove_prefix(1);
    if (scan::isIdentifier(name)) addPlaceholder(name, target, annotation, quoted);
}

void FxGraphParser::addPlaceholder(std::string_view name, std::string_view target, std::string_view annotation,
                                   bool quoted) {
    GraphNode node;
    node.name = std::string(name);
    node.op = "placeholder";
    node.target = std::string(target);
    if (quoted) applyValueType(annotation, node);
    else if (annotation.starts_with("torch.Sym")) node.dtype = "Sym";  // older logs annotate with Python classes
    addNode(std::move(node));
}

void FxGraphParser::handleComment(std::string_view comment) {
    comment = trim(comment);
    if (comment.starts_with("File:")) source_ = parseFileComment(trim(comment.substr(5)));
    else if (comment.starts_with("No stacktrace found")) source_.reset();
}

void FxGraphParser::handleStatement(std::string_view statement) {
    // Everything after the first top-level ';' is FX freeing dead values ("mul = None"), not a node, but for
    // an in-place operation, whose node is named in the second statement.
    if (size_t semi = scan::findTopLevel(statement, ";"); semi != std::string_view::npos) {
        std::string_view rest = statement.substr(semi + 1);
        statement = statement.substr(0, semi);
        if (std::optional<InPlaceOperation> inPlace = inPlaceOperationOf(trim(statement))) {
            std::vector<std::string> inputs = referencedNodes(statement);
            inPlace_ = std::move(inPlace);
            size_t nodes = nodes_.size();
            handleStatement(rest.substr(0, scan::findTopLevel(rest, ";")));
            if (nodes_.size() > nodes) nodes_.back().inputs = std::move(inputs);
            inPlace_.reset();
            return;
        }
    }
    statement = trim(statement);
    if (statement.empty()) return;

    if (statement.starts_with("return") &&
        (statement.size() == 6 || statement[6] == ' ' || statement[6] == '(' || statement[6] == '[')) {
        GraphNode node;
        node.name = "output";
        node.op = "output";
        node.target = "output";
        std::string_view value = trim(statement.substr(6));
        node.args = std::string(value);
        node.inputs = referencedNodes(value);
        addNode(std::move(node));
        return;
    }

    if (!isIdentStart(statement.front())) return;
    size_t nameEnd = 0;
    while (nameEnd < statement.size() && isIdentChar(statement[nameEnd])) ++nameEnd;
    std::string_view name = statement.substr(0, nameEnd);
    std::string_view rest = trimLeft(statement.substr(nameEnd));
    if (rest.starts_with(',')) {
        handleUnpack(statement);
        return;
    }

    std::string_view annotation;
    bool annotated = false;
    bool quoted = false;
    if (rest.starts_with(':')) {
        annotated = true;
        rest = trimLeft(rest.substr(1));
        quoted = !rest.empty() && (rest.front() == '"' || rest.front() == '\'');
        if (quoted) {
            size_t end = scan::skipQuoted(rest, 0);
            annotation = rest.substr(1, end >= 2 ? end - 2 : 0);
            rest = trimLeft(rest.substr(end));
        } else {
            size_t eq = scan::findTopLevel(rest, "=");
            annotation = trim(rest.substr(0, eq));
            rest = eq == std::string_view::npos ? std::string_view() : rest.substr(eq);
        }
    }
    if (rest.empty() && annotated) {
        // An annotation without a value declares a placeholder (AOT graphs with pytree-flattened inputs).
        if (!byName_.contains(name)) addPlaceholder(name, name, annotation, quoted);
        return;
    }
    // Only quoted annotations carry dtype/shape; a Python class annotation says nothing useful.
    if (rest.starts_with('=') && !rest.starts_with("=="))
        handleAssignment(name, quoted ? annotation : std::string_view(), trim(rest.substr(1)));
}

void FxGraphParser::handleUnpack(std::string_view statement) {
    size_t eq = scan::findTopLevel(statement, "=");
    if (eq == std::string_view::npos || statement.substr(eq).starts_with("==")) return;
    std::string_view rhs = statement.substr(eq + 1);
    // Only the pytree flatten of joint graphs unpacks in FX text; its targets are the real placeholders and
    // the signature's names (primals, tangents) are containers, not graph nodes.
    if (rhs.find("tree_flatten_spec") == std::string_view::npos) return;
    dropSignaturePlaceholders();
    scan::forEachTopLevelPiece(statement.substr(0, eq), ',', [this](std::string_view target) {
        if (scan::isIdentifier(target) && !byName_.contains(target)) addPlaceholder(target, target, "", false);
    });
}

void FxGraphParser::handleAssignment(std::string_view name, std::string_view annotation, std::string_view expr) {
    if (!inPlace_ && annotation.empty() && scan::isIdentifier(expr) && renamePlaceholder(name, expr)) return;

    GraphNode node;
    node.name = std::string(name);
    applyValueType(annotation, node);
    if (inPlace_) {
        node.op = "call_function";
        node.target = inPlace_->target;
        node.args = inPlace_->args;
    } else {
        classify(expr, node);
        node.inputs = referencedNodes(expr);
    }
    if (source_) {
        node.sourceFile = source_->file;
        node.sourceLine = source_->line;
        node.sourceFunction = source_->function;
        node.sourceCode = source_->code;
    }
    addNode(std::move(node));
}

bool FxGraphParser::renamePlaceholder(std::string_view newName, std::string_view argumentName) {
    std::optional<size_t> index = byName_.find(argumentName);
    if (!index) return false;
    GraphNode& node = nodes_[*index];
    if (node.op != "placeholder" || node.name != node.target || byName_.contains(newName)) return false;
    byName_.erase(argumentName);
    node.name = std::string(newName);
    byName_.assign(node.name, *index);
    return true;
}

void FxGraphParser::classify(std::string_view expr, GraphNode& node) const {
    node.op = "call_function";
    if (expr.empty()) return;

    if (scan::isIdentifier(expr)) {
        node.target = "alias";
        node.args = std::string(expr);
        return;
    }
    if (auto infix = findInfixOperator(expr)) {
        auto [pos, op] = *infix;
        node.target = std::string(op->target);
        node.args = std::string(trim(expr.substr(0, pos))) + ", " +
                    std::string(trim(expr.substr(pos + 2 + op->token.size())));
        return;
    }
    if (expr.starts_with("not ")) {
        node.target = "operator.not_";
        node.args = std::string(trim(expr.substr(4)));
        return;
    }
    if ((expr.front() == '-' || expr.front() == '~' || expr.front() == '+') && expr.size() > 1 &&
        !scan::isDigit(expr[1]) && expr[1] != '.') {
        node.target = expr.front() == '-' ? "operator.neg" : expr.front() == '~' ? "operator.invert" : "operator.pos";
        node.args = std::string(trim(expr.substr(1)));
        return;
    }

    size_t headLength = dottedNameLength(expr);
    std::string_view head = expr.substr(0, headLength);
    if (headLength > 0 && headLength < expr.size() && (expr[headLength] == '(' || expr[headLength] == '[') &&
        scan::findClosingBracket(expr, headLength) == expr.size() - 1) {
        std::string_view inner = trim(expr.substr(headLength + 1, expr.size() - headLength - 2));
        if (expr[headLength] == '[') {
            node.target = "operator.getitem";
            node.args = std::string(head) + ", " + std::string(inner);
            return;
        }
        node.args = std::string(inner);
        std::string_view receiver = head.substr(0, head.find('.'));
        if (head.starts_with("self.")) {
            node.op = "call_module";
            node.target = std::string(head);
        } else if (receiver.size() < head.size() && byName_.contains(receiver)) {
            node.op = "call_method";
            node.target = std::string(head.substr(head.rfind('.') + 1));
        } else {
            node.target = std::string(head);
        }
        return;
    }
    if (headLength == expr.size() && head.starts_with("self.")) {
        node.op = "get_attr";
        node.target = std::string(head);
        return;
    }
    node.args = std::string(expr);  // a constant or a form FX does not print: keep it readable
}

std::vector<std::string> FxGraphParser::referencedNodes(std::string_view expr) {
    ++stamp_;
    std::vector<std::string> out;
    for (size_t i = 0; i < expr.size();) {
        char c = expr[i];
        if (c == '\'' || c == '"') {
            i = scan::skipQuoted(expr, i);
            continue;
        }
        if (scan::isDigit(c)) {  // numbers such as 1e-05 or 0x1F hide letters that are not names
            while (i < expr.size() && (isIdentChar(expr[i]) || expr[i] == '.')) ++i;
            continue;
        }
        if (!isIdentStart(c)) {
            ++i;
            continue;
        }
        size_t start = i;
        while (i < expr.size() && isIdentChar(expr[i])) ++i;
        if (start > 0 && expr[start - 1] == '.') continue;  // an attribute, not a variable
        size_t after = i;
        while (after < expr.size() && expr[after] == ' ') ++after;
        bool keyword = after < expr.size() && expr[after] == '=' && (after + 1 >= expr.size() || expr[after + 1] != '=');
        if (keyword) continue;
        std::optional<size_t> node = byName_.find(expr.substr(start, i - start));
        if (!node || seenStamp_[*node] == stamp_) continue;
        seenStamp_[*node] = stamp_;
        out.push_back(nodes_[*node].name);
    }
    return out;
}

size_t FxGraphParser::addNode(GraphNode&& node) {
    size_t index = nodes_.size();
    if (index >= maxNodes_) throw TooManyNodes{};
    nodes_.push_back(std::move(node));
    byName_.assign(nodes_.back().name, index);
    seenStamp_.push_back(0);
    return index;
}

void FxGraphParser::dropSignaturePlaceholders() {
    if (signaturePlaceholders_ == 0) return;
    nodes_.erase(nodes_.begin(), nodes_.begin() + static_cast<std::ptrdiff_t>(signaturePlaceholders_));
    signaturePlaceholders_ = 0;
    byName_.rebuildFromNodes();
    seenStamp_.assign(nodes_.size(), 0);
}

}  // namespace

FxValueType parseFxValueType(std::string_view annotation) {
    FxValueType out;
    annotation = trim(annotation);
    if (annotation.empty()) return out;
    if (annotation.starts_with("Sym(") && annotation.ends_with(')')) {
        out.dtype = "Sym";
        out.shape = std::string(annotation.substr(4, annotation.size() - 5));
        return out;
    }
    size_t open = 0;
    while (open < annotation.size() && (scan::isIdentChar(annotation[open]))) ++open;
    size_t shapeEnd = open > 0 && open < annotation.size() && annotation[open] == '['
                          ? scan::findClosingBracket(annotation, open)
                          : std::string_view::npos;
    if (shapeEnd == std::string_view::npos || !isIdentStart(annotation.front())) {
        out.shape = std::string(annotation);  // tuples, lists and unknown forms stay whole
        return out;
    }
    out.dtype = std::string(annotation.substr(0, open));
    out.shape = std::string(annotation.substr(open, shapeEnd - open + 1));
    size_t next = shapeEnd + 1;
    if (next < annotation.size() && annotation[next] == '[') {
        size_t strideEnd = scan::findClosingBracket(annotation, next);
        if (strideEnd != std::string_view::npos) {
            out.stride = std::string(annotation.substr(next, strideEnd - next + 1));
            next = strideEnd + 1;
        }
    }
    out.device = std::string(trim(annotation.substr(std::min(next, annotation.size()))));
    return out;
}

std::vector<GraphNode> parseFxGraphText(std::string_view text, size_t maxNodes, bool* tooLarge) {
    if (tooLarge) *tooLarge = false;
    try {
        return FxGraphParser(maxNodes).parse(text);
    } catch (const TooManyNodes&) {
        if (tooLarge) *tooLarge = true;
        return {};
    }
}

}  // namespace traces
