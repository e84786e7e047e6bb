// The captured graph, in the spirit of torch.fx: placeholders, calls (function, method, module), get_attr and
// one output node, each with the example value it produced during tracing and FX's naming rules.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "vm/value.h"

namespace eng::fx {

struct Node;
class Graph;

/// Text kept once per distinct value for the life of the process (source file names, function names, source
/// lines): the nodes made by one line of a program point at the same text, so a node's size does not grow with the
/// length of its script's path (a million-node graph needs as much memory from a short path as from a long one).
class InternedText {
public:
    InternedText();
    explicit InternedText(const std::string& text);
    const std::string& str() const { return *text_; }
    bool empty() const { return text_->empty(); }
    bool operator==(const InternedText& other) const { return text_ == other.text_; }

private:
    const std::string* text_;
};

/// An argument of a node as FX holds it: another node, a constant, or a list/tuple/slice of arguments.
struct Arg {
    enum class Kind { NodeRef, Constant, List, Tuple, Slice };
    Kind kind = Kind::Constant;
    Node* node = nullptr;
    vm::Value constant;
    std::vector<Arg> items;

    static Arg ofNode(Node* n) {
        Arg a;
        a.kind = Kind::NodeRef;
        a.node = n;
        return a;
    }
    static Arg ofConstant(vm::Value v) {
        Arg a;
        a.constant = std::move(v);
        return a;
    }
    static Arg ofItems(Kind kind, std::vector<Arg> items) {
        Arg a;
        a.kind = kind;
        a.items = std::move(items);
        return a;
    }
};
using KwArg = std::pair<std::string, Arg>;

enum class NodeOp { Placeholder, CallFunction, CallMethod, CallModule, GetAttr, Output };
const char* toString(NodeOp op);

/// How the runner executes a call_function node: an operator of the VM, a callable value, or getitem.
enum class CallKind { Callable, Binary, Compare, Unary, GetItem };

struct Node {
    NodeOp op = NodeOp::CallFunction;
    std::string name;    // FX node name: sin, mul_1, l_x_
    std::string target;  // placeholder: L_x_; call_function: torch.sin / operator.mul; call_method: sum
    std::vector<Arg> args;
    std::vector<KwArg> kwargs;
    CallKind callKind = CallKind::Callable;  // Binary/Compare/Unary: the operator is the target (operator.add)
    vm::Value callee;           // call_function with CallKind::Callable: what to call
    vm::Value example;          // the value this node produced while tracing
    std::string typeName;       // placeholder annotation: torch.Tensor, torch.nn.parameter.Parameter, torch.SymInt
    bool nameFromUser = false;  // renamed after the local it was stored to (Dynamo's set_name_hint)
    InternedText file;          // user source of the instruction that made it
    int line = 0;
    InternedText function;
    InternedText code;
    /// The symbol of each dimension of a tensor example ("" where static), carried from the inputs' dimensions
    /// rather than guessed from sizes, so a static dimension that happens to equal a symbol's hint stays static.
    std::vector<std::string> dimSymbols;
    /// Per dimension of a call's tensor result: its dimSymbols entry is exact (shape_facts.cpp), not inferred
    /// from sizes alone. Placeholders and get_attr tensors are exact without it.
    std::vector<bool> dimsExact;
    /// get_attr of a higher-order op's body (cond_true_0): the subgraph it names, printed as a nested
    /// GraphModule; `callee` is a callable that runs it (fx::subgraphCallable) and returns its outputs as a tuple.
    std::shared_ptr<const Graph> subgraph;
};

/// Sets a call node's dimSymbols from its tensor arguments': an output dimension takes the label of the input
/// dimension it lines up with (right-aligned, as broadcasting lines them up) when the sizes agree; otherwise a
/// symbolic input dimension of the same size (reductions, views), else it is static.
void inferDimSymbols(Node& node);

/// Sets a call node's dimsExact (and the exact symbols in dimSymbols) from what the op passes through from its
/// arguments: a size the code reads from a dimension that is not exact is read in the graph.
void inferExactDims(Node& node);

/// A graph under construction or compiled. Nodes are owned here; placeholders stay in front of the calls.
class Graph {
public:
    Node* addPlaceholder(const std::string& target, vm::Value example, std::string typeName);
    Node* addCall(NodeOp op, const std::string& target, std::string nameCandidate, std::vector<Arg> args,
                  std::vector<KwArg> kwargs);
    Node* setOutput(std::vector<Arg> outputs);
    /// Dynamo's set_name_hint: the node takes the name of the local it is first stored to.
    void renameOnce(Node* node, const std::string& candidate);
    /// Whether `node` is one of this graph's nodes (a subgraph's trace tells its own values from lifted ones).
    bool contains(const Node* node) const;
    /// Puts the placeholders in this order (every placeholder once): the two branches of a torch.cond take
    /// their lifted inputs in one order.
    void orderPlaceholders(const std::vector<Node*>& order);

    const std::vector<std::unique_ptr<Node>>& nodes() const { return nodes_; }
    std::vector<Node*> placeholders() const;
    Node* output() const { return output_; }
    /// call_function nodes: what explain() counts as ops (methods such as x.sum() are not counted).
    int opCount() const;
    /// Symbols of dynamic dimensions: name -> the placeholder that carries it.
    std::map<std::string, Node*> symbols;

private:
    std::string uniqueName(std::string candidate);
    std::vector<std::unique_ptr<Node>> nodes_;
    Node* output_ = nullptr;
    size_t placeholderCount_ = 0;
    std::set<std::string> usedNames_;
    std::map<std::string, int> baseCounts_;
};

/// FX's name for a call target: "torch.sin" -> sin, "operator.mul" -> mul, "torch._C._nn.linear" -> linear.
std::string nameCandidateOf(const std::string& target);

}  // namespace eng::fx
