// Graph construction with torch.fx's naming rules (_Namespace.create_name): illegal characters become '_',
// Python builtins and keywords are never used as names, repeats count up per base name (mul, mul_1, ...).
#include "fx/graph_ir.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <stdexcept>
#include <unordered_set>

namespace eng::fx {

namespace {

std::mutex internedMutex;

/// Every interned text; node-based, so the addresses InternedText keeps stay valid as it grows.
std::unordered_set<std::string>& internedTexts() {
    static std::unordered_set<std::string> texts{std::string()};
    return texts;
}

const std::string* intern(const std::string& text) {
    std::lock_guard lock(internedMutex);
    return &*internedTexts().insert(text).first;
}

// Names FX refuses because they would shadow a Python builtin or keyword in the generated code.
const std::set<std::string>& reservedNames() {
    static const std::set<std::string> names = {
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
        "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
        "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", "abs", "all", "any",
        "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes", "callable", "chr", "classmethod", "compile",
        "complex", "copyright", "credits", "delattr", "dict", "dir", "divmod", "enumerate", "eval", "exec", "exit",
        "filter", "float", "format", "frozenset", "getattr", "globals", "hasattr", "hash", "help", "hex", "id",
        "input", "int", "isinstance", "issubclass", "iter", "len", "license", "list", "locals", "map", "max",
        "memoryview", "min", "next", "object", "oct", "open", "ord", "pow", "print", "property", "quit", "range",
        "repr", "reversed", "round", "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum", "super",
        "tuple", "type", "vars", "zip", "torch", "self", "device", "inf", "nan", "math"};
    return names;
}

std::string sanitized(const std::string& text) {
    std::string out;
    bool inRun = false;
    for (char c : text) {
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
            out += c;
            inRun = false;
        } else if (!inRun) {
            out += '_';
            inRun = true;
        }
    }
    if (out.empty()) out = "_unnamed";
    if (std::isdigit(static_cast<unsigned char>(out[0]))) out = "_" + out;
    return out;
}

}  // namespace

InternedText::InternedText() {
    static const std::string* const none = intern(std::string());
    text_ = none;
}
InternedText::InternedText(const std::string& text) : text_(intern(text)) {}

const char* toString(NodeOp op) {
    switch (op) {
        case NodeOp::Placeholder: return "placeholder";
        case NodeOp::CallFunction: return "call_function";
        case NodeOp::CallMethod: return "call_method";
        case NodeOp::CallModule: return "call_module";
        case NodeOp::GetAttr: return "get_attr";
        case NodeOp::Output: return "output";
    }
    return "?";
}

std::string nameCandidateOf(const std::string& target) {
    size_t dot = target.rfind('.');
    std::string last = dot == std::string::npos ? target : target.substr(dot + 1);
    return last;
}

std::string Graph::uniqueName(std::string candidate) {
    candidate = sanitized(candidate);
    std::string base = candidate;
    int number = -1;
    size_t underscore = candidate.rfind('_');
    if (underscore != std::string::npos && underscore + 1 < candidate.size() && underscore > 0 &&
        std::all_of(candidate.begin() + static_cast<long>(underscore) + 1, candidate.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        base = candidate.substr(0, underscore);
        number = std::stoi(candidate.substr(underscore + 1));
    }
    if (number <= 0) number = baseCounts_[base];
    while (usedNames_.contains(candidate) || reservedNames().contains(candidate)) {
        ++number;
        candidate = base + "_" + std::to_string(number);
    }
    usedNames_.insert(candidate);
    baseCounts_[base] = number;
    return candidate;
}

Node* Graph::addPlaceholder(const std::string& target, vm::Value example, std::string typeName) {
    auto node = std::make_unique<Node>();
    node->op = NodeOp::Placeholder;
    node->target = target;
    std::string lowered = target;
    // Dynamo names the placeholder L_x_ and its node l_x_; symbols keep their own name.
    if (typeName != "torch.SymInt")
        std::transform(lowered.begin(), lowered.end(), lowered.begin(), [](unsigned char c) { return std::tolower(c); });
    node->name = uniqueName(lowered);
    node->example = std::move(example);
    node->typeName = std::move(typeName);
    Node* raw = node.get();
    nodes_.insert(nodes_.begin() + static_cast<long>(placeholderCount_), std::move(node));
    ++placeholderCount_;
    return raw;
}

Node* Graph::addCall(NodeOp op, const std::string& target, std::string nameCandidate, std::vector<Arg> args,
                     std::vector<KwArg> kwargs) {
    auto node = std::make_unique<Node>();
    node->op = op;
    node->target = target;
    node->name = uniqueName(std::move(nameCandidate));
    node->args = std::move(args);
    node->kwargs = std::move(kwargs);
    nodes_.push_back(std::move(node));
    return nodes_.back().get();
}

Node* Graph::setOutput(std::vector<Arg> outputs) {
    auto node = std::make_unique<Node>();
    node->op = NodeOp::Output;
    node->name = "output";
    node->target = "output";
    node->args.push_back(Arg::ofItems(Arg::Kind::Tuple, std::move(outputs)));
    nodes_.push_back(std::move(node));
    output_ = nodes_.back().get();
    return output_;
}

void Graph::renameOnce(Node* node, const std::string& candidate) {
    if (node->nameFromUser || node->op == NodeOp::Placeholder) return;
    node->nameFromUser = true;
    if (node->name == candidate) return;
    node->name = uniqueName(candidate);
}

bool Graph::contains(const Node* node) const {
    return std::any_of(nodes_.begin(), nodes_.end(), [&](const auto& owned) { return owned.get() == node; });
}

void Graph::orderPlaceholders(const std::vector<Node*>& order) {
    if (order.size() != placeholderCount_) throw std::logic_error("orderPlaceholders: not every placeholder");
    std::vector<std::unique_ptr<Node>> reordered;
    for (Node* wanted : order)
        for (size_t i = 0; i < placeholderCount_; ++i)
            if (nodes_[i].get() == wanted) reordered.push_back(std::move(nodes_[i]));
    if (reordered.size() != placeholderCount_) throw std::logic_error("orderPlaceholders: a node that is not a placeholder");
    for (size_t i = 0; i < placeholderCount_; ++i) nodes_[i] = std::move(reordered[i]);
}

std::vector<Node*> Graph::placeholders() const {
    std::vector<Node*> out;
    for (size_t i = 0; i < placeholderCount_; ++i) out.push_back(nodes_[i].get());
    return out;
}

int Graph::opCount() const {
    int count = 0;
    for (const auto& node : nodes_)
        if (node->op == NodeOp::CallFunction) ++count;
    return count;
}

namespace {

void collectTensorNodes(const Arg& arg, std::vector<const Node*>& out) {
    if (arg.kind == Arg::Kind::NodeRef) {
        if (arg.node->example.is(vm::Kind::Tensor) && !arg.node->dimSymbols.empty()) out.push_back(arg.node);
        return;
    }
    for (const Arg& item : arg.items) collectTensorNodes(item, out);
}

}  // namespace

void inferDimSymbols(Node& node) {
    node.dimSymbols.clear();
    if (!node.example.is(vm::Kind::Tensor)) return;
    const auto& sizes = node.example.tensor().sizes();
    const size_t rank = sizes.size();
    node.dimSymbols.assign(rank, "");
    std::vector<const Node*> inputs;
    for (const Arg& a : node.args) collectTensorNodes(a, inputs);
    for (const auto& kw : node.kwargs) collectTensorNodes(kw.second, inputs);
    for (size_t d = 0; d < rank; ++d) {
        const int64_t size = sizes[d];
        if (size < 2) continue;
        bool aligned = false;
        std::string label;
        for (const Node* in : inputs) {
            const auto& inSizes = in->example.tensor().sizes();
            const size_t inRank = inSizes.size();
            if (inRank + d < rank) continue;
            const size_t j = d + inRank - rank;
            if (inSizes[j] != size) continue;
            aligned = true;
            if (!in->dimSymbols[j].empty()) {
                label = in->dimSymbols[j];
                break;
            }
        }
        if (!aligned)
            for (const Node* in : inputs)
                for (size_t j = 0; j < in->dimSymbols.size() && label.empty(); ++j)
                    if (!in->dimSymbols[j].empty() && in->example.tensor().sizes()[j] == size) label = in->dimSymbols[j];
        node.dimSymbols[d] = label;
    }
}

}  // namespace eng::fx
